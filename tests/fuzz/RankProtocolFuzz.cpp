// libFuzzer target: the rank protocol's record decoders (ccs/proto/RankProtocol.hpp);
// whatever decodes must encode to text that decodes to the same encoding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "FuzzCheck.hpp"
#include "ccs/proto/RankProtocol.hpp"

using namespace mpidbg::ccs::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto status = decodeRankStatus(text)) {
    std::string once = encode(*status);
    auto again = decodeRankStatus(once);
    FUZZ_CHECK(again.has_value() && encode(*again) == once);
  }
  if (auto states = decodeCommStates(text)) {
    std::string once = encode(std::span<const CommState>(*states));
    auto again = decodeCommStates(once);
    FUZZ_CHECK(again.has_value() && encode(std::span<const CommState>(*again)) == once);
  }
  if (auto registration = decodeRegistration(text)) {
    std::string once = encode(*registration);
    auto again = decodeRegistration(once);
    FUZZ_CHECK(again.has_value() && encode(*again) == once);
  }
  if (auto event = decodeEvent(text)) {
    std::string once = encode(*event);
    auto again = decodeEvent(once);
    FUZZ_CHECK(again.has_value() && encode(*again) == once);
  }
  return 0;
}
