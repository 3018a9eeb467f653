// libFuzzer target: forward envelope decoding (ccs/tree/ForwardEnvelope.hpp) with
// re-encoding round trips, merge rules (ccs/tree/Merge.hpp) on arbitrary parts, and
// the tree layout (ccs/tree/Tree.hpp) on arbitrary sizes.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "FuzzCheck.hpp"
#include "ccs/tree/ForwardEnvelope.hpp"
#include "ccs/tree/Merge.hpp"
#include "ccs/tree/Tree.hpp"

using namespace mpidbg::ccs;

namespace {

void envelopes(std::span<const std::uint8_t> data) {
  if (auto request = decodeForwardRequest(data)) {
    auto encoded = encodeForwardRequest(*request);
    FUZZ_CHECK(encoded.has_value());
    FUZZ_CHECK(std::equal(encoded->begin(), encoded->end(), data.begin(), data.end()));
    auto ccs = makeForwardCcsRequest(*request);
    FUZZ_CHECK(ccs.has_value() && ccs->pe == request->table.front().pe);
  }
  if (auto reply = decodeForwardReply(data)) {
    auto encoded = encodeForwardReply(*reply);
    FUZZ_CHECK(std::equal(encoded.begin(), encoded.end(), data.begin(), data.end()));
  }
}

/// Byte 0 picks the rule, byte 1 the part length, the rest fills parts.
void merges(std::span<const std::uint8_t> data) {
  if (data.size() < 2) return;
  auto rule = static_cast<MergeRule>(data[0] % 10);
  std::size_t length = data[1] % 17;
  data = data.subspan(2);
  std::vector<std::vector<std::uint8_t>> parts;
  while (!data.empty() && parts.size() < 64) {
    // Occasionally a part one byte shorter, to reach the length errors.
    std::size_t take = std::min(data.size(), (data[0] & 0x80) && length > 0 ? length - 1 : length);
    parts.emplace_back(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(take));
    data = data.subspan(take == 0 ? 1 : take);
  }
  auto merged = merge(rule, parts);
  if (!merged) return;
  if (rule == MergeRule::Concatenate) {
    std::size_t total = 0;
    for (const auto& p : parts) total += p.size();
    FUZZ_CHECK(merged->size() == total);
  } else if (!parts.empty()) {
    FUZZ_CHECK(merged->size() == parts.front().size());
  }
}

void trees(std::span<const std::uint8_t> data) {
  if (data.size() < 3) return;
  Tree tree(data[0]);
  std::size_t count = (std::size_t{data[1]} << 8 | data[2]) % 512;
  auto layout = tree.layout(count);
  FUZZ_CHECK(layout.size() == count);
  std::size_t covered = count > 0 ? 1 : 0;
  for (std::size_t p = 0; p < count; ++p) {
    FUZZ_CHECK(layout[p].begin == p && layout[p].end <= count && layout[p].size() >= 1);
    auto children = tree.children(layout[p]);
    FUZZ_CHECK(children.size() <= tree.fanOut());
    std::size_t at = p + 1;
    for (const Slice& c : children) {
      FUZZ_CHECK(c.begin == at && c.size() >= 1);
      at = c.end;
      covered += 1;
    }
    FUZZ_CHECK(children.empty() || at == layout[p].end);
  }
  FUZZ_CHECK(covered == count);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::span<const std::uint8_t> input(data, size);
  envelopes(input);
  merges(input);
  trees(input);
  return 0;
}
