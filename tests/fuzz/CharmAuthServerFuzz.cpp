// libFuzzer target: Charm++'s SHA-1 mode server state machine
// (ccs/transport/CharmAuthServer.hpp) fed hostile streams split at arbitrary points,
// with the key of captures 08a-08h and deterministic "random" values.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "FuzzCheck.hpp"
#include "ccs/transport/CharmAuthServer.hpp"

using namespace mpidbg::ccs;

namespace {

std::shared_ptr<CharmAuthServerState> makeState() {
  auto keys = parseCharmKeyFile("0 01020304050607080910111213141516\n", KeyDigits::Decimal);
  FUZZ_CHECK(keys.has_value());
  std::uint32_t next = 0x5eed0000;
  return std::make_shared<CharmAuthServerState>(
      *keys, [next]() mutable -> mpidbg::Expected<std::uint32_t> { return next++; }, 64);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto state = makeState();
  std::span<const std::uint8_t> input(data, size);
  std::size_t chunk = size == 0 ? 1 : 1 + data[size - 1] % 80;
  CharmAuthServer server(state, 4096);
  bool closed = false;
  while (!input.empty()) {
    auto piece = input.first(std::min(chunk, input.size()));
    input = input.subspan(piece.size());
    CharmAuthStep step = server.feed(piece);
    if (closed) FUZZ_CHECK(step.send.empty() && !step.request);
    if (step.request) {
      FUZZ_CHECK(step.request->handler.size() <= kMaxHandlerName);
      auto reply = server.replyFrame(step.request->data);
      FUZZ_CHECK(reply.has_value());
    }
    if (step.closeAfterSend) closed = true;
  }
  return 0;
}
