// libFuzzer target: the queue-state decoder (ccs/proto/QueueProtocol.hpp), which
// reads merged mpidbg/queues replies from every rank; whatever decodes must
// encode to text that decodes to the same encoding.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCheck.hpp"
#include "ccs/proto/QueueProtocol.hpp"

using namespace mpidbg::ccs::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto list = decodeRankQueuesList(text)) {
    std::string once;
    for (const auto& q : *list) once += encode(q);
    auto again = decodeRankQueuesList(once);
    FUZZ_CHECK(again.has_value() && again->size() == list->size());
    std::string twice;
    for (const auto& q : *again) twice += encode(q);
    FUZZ_CHECK(twice == once);
  }
  if (auto one = decodeRankQueues(text)) {
    std::string once = encode(*one);
    auto again = decodeRankQueues(once);
    FUZZ_CHECK(again.has_value() && encode(*again) == once);
  }
  return 0;
}
