// libFuzzer target: the plain CCS RequestParser and ReplyParser (ccs/transport/Frame.hpp)
// on hostile streams split at arbitrary points; parsed requests must re-encode
// and parse back to the same request.
#include <cstddef>
#include <cstdint>
#include <span>

#include "FuzzCheck.hpp"
#include "ccs/transport/Frame.hpp"

using namespace mpidbg::ccs;

namespace {

/// Feeds `data` in pieces of `chunk` bytes; checks every request found.
void parseRequests(std::span<const std::uint8_t> data, std::size_t chunk) {
  RequestParser parser(4096);
  while (!data.empty()) {
    auto piece = data.first(std::min(chunk, data.size()));
    data = data.subspan(piece.size());
    while (!piece.empty()) {
      auto step = parser.feed(piece);
      if (!step) return;  // malformed: the parser must not be fed again
      if (!*step) continue;
      const Request& request = **step;
      auto encoded = encodeRequest(request);
      FUZZ_CHECK(encoded.has_value());
      RequestParser again(4096);
      std::span<const std::uint8_t> bytes(*encoded);
      auto reparsed = again.feed(bytes);
      FUZZ_CHECK(reparsed.has_value() && reparsed->has_value() && bytes.empty());
      FUZZ_CHECK((*reparsed)->pe == request.pe && (*reparsed)->handler == request.handler &&
                 (*reparsed)->multicastPes == request.multicastPes &&
                 (*reparsed)->data == request.data);
    }
  }
}

void parseReplies(std::span<const std::uint8_t> data, std::size_t chunk) {
  ReplyParser parser(4096);
  while (!data.empty()) {
    auto piece = data.first(std::min(chunk, data.size()));
    data = data.subspan(piece.size());
    while (!piece.empty()) {
      auto step = parser.feed(piece);
      if (!step) return;
      if (*step) FUZZ_CHECK((*step)->size() <= 4096);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> input(data, size);
  std::size_t chunk = size == 0 ? 1 : 1 + data[size - 1] % 64;
  parseRequests(input, size);
  parseRequests(input, chunk);
  parseReplies(input, size);
  parseReplies(input, chunk);
  return 0;
}
