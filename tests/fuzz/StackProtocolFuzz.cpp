// libFuzzer target: the stacks decoder (ccs/proto/StackProtocol.hpp), which reads
// merged mpidbg/stacks replies from every rank; whatever decodes must encode
// to text that decodes to the same encoding, and no frame may name a module
// the record does not define.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCheck.hpp"
#include "ccs/proto/StackProtocol.hpp"

using namespace mpidbg::ccs::proto;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto list = decodeRankStacksList(text);
  if (!list) return 0;
  std::string once;
  for (const auto& rank : *list) {
    for (const auto& thread : rank.threads)
      for (const auto& frame : thread.frames)
        FUZZ_CHECK(frame.module >= -1 && frame.module < static_cast<std::int32_t>(rank.modules.size()));
    once += encode(rank);
  }
  auto again = decodeRankStacksList(once);
  FUZZ_CHECK(again.has_value() && again->size() == list->size());
  std::string twice;
  for (const auto& rank : *again) twice += encode(rank);
  FUZZ_CHECK(twice == once);
  return 0;
}
