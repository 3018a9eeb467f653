// libFuzzer target: the record/replay decision log decoder
// (common/include/mpidbg/DecisionLog.hpp), which the runtime reads to replay
// and the front end reads for `mpidbg record`. A log is a file a user can
// edit or truncate. Whatever decodes must be consistent, describable, and
// encode again to a log that decodes to the same decisions.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "FuzzCheck.hpp"
#include "mpidbg/DecisionLog.hpp"

using namespace mpidbg::record;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto log = decode(bytes);
  if (!log) {
    FUZZ_CHECK(!log.error().message.empty());
    return 0;
  }
  std::uint64_t total = 0;
  for (const Run& r : log->runs) {
    FUZZ_CHECK(r.count >= 1);
    FUZZ_CHECK(!describe(r.decision).empty());
    total += r.count;
  }
  FUZZ_CHECK(total == log->decisions);
  FUZZ_CHECK(log->bytes == size);
  // Encode again (runs up to a bounded length) and decode: same decisions.
  Encoder encoder(log->rank, log->size);
  std::uint64_t encoded = 0;
  for (const Run& r : log->runs) {
    const std::uint64_t n = r.count < 64 ? r.count : 64;
    for (std::uint64_t i = 0; i < n; ++i) encoder.add(r.decision);
    encoded += n;
  }
  encoder.finish();
  auto again = decode(encoder.pending());
  FUZZ_CHECK(again.has_value());
  FUZZ_CHECK(again->complete);
  FUZZ_CHECK(again->decisions == encoded);
  FUZZ_CHECK(again->rank == log->rank && again->size == log->size);
  // The same sequence, run boundaries aside (equal neighbours may join).
  std::size_t k = 0;
  std::uint64_t usedInK = 0;
  for (const Run& r : log->runs) {
    for (std::uint64_t n = r.count < 64 ? r.count : 64; n > 0; --n) {
      FUZZ_CHECK(k < again->runs.size());
      FUZZ_CHECK(again->runs[k].decision == r.decision);
      if (++usedInK == again->runs[k].count) ++k, usedInK = 0;
    }
  }
  FUZZ_CHECK(k == again->runs.size() && usedInK == 0);
  return 0;
}
