#pragma once
// What the Charm++ authentication tests share: the keys and a word reader
// (one definition, so the tests also build as unity sources).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ccs/transport/CharmAuth.hpp"

namespace mpidbg::ccs::test {

/// The key of the captured authenticated sessions (../shared/vectors/ccs):
/// bytes 1..16, written in a key file as the hex digits kCapturedKey.
inline const CharmKey kKey = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
/// kKey as the captures' key file spells it.
inline const std::string kCapturedKey = "01020304050607080910111213141516";
/// kCapturedKey's bytes read as decimal pairs: the same bytes as kKey.
inline const CharmKey& kDecimalKey = kKey;
/// A key that is not the captures': kKey reversed.
inline const CharmKey kWrongKey = {16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1};

/// The big-endian 32-bit word at `offset` of a captured message.
inline std::uint32_t u32At(const std::vector<std::uint8_t>& bytes, std::size_t offset) {
  return readBigEndianU32(std::span(bytes).subspan(offset));
}

}  // namespace mpidbg::ccs::test
