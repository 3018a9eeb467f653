// Thread-level records between the runtime and the front end (format in
// ccs/proto/ThreadLevelProtocol.hpp; the text records of ccs/proto/TextRecord.hpp).
#include "ccs/proto/ThreadLevelProtocol.hpp"

#include "ccs/proto/TextRecord.hpp"

#include <tuple>

namespace mpidbg::ccs::proto {

std::string threadLevelName(std::int32_t level) {
  switch (level) {
    case 0: return "MPI_THREAD_SINGLE";
    case 1: return "MPI_THREAD_FUNNELED";
    case 2: return "MPI_THREAD_SERIALIZED";
    case 3: return "MPI_THREAD_MULTIPLE";
    case kThreadLevelDistinctComms: return "MPI_THREAD_MULTIPLE and distinct communicators";
    default: return "level " + std::to_string(level);
  }
}

std::string encode(std::span<const ThreadLevelInfo> infos) {
  std::string out;
  for (const ThreadLevelInfo& i : infos) {
    putInt(out, "rank", i.rank);
    putInt(out, "requested", i.requested);
    putInt(out, "provided", i.provided);
    putInt(out, "required", i.required);
    putInt(out, "violations", i.violations);
    out += "--\n";
  }
  return out;
}

Expected<std::vector<ThreadLevelInfo>> decodeThreadLevels(std::string_view text) {
  auto records = parseRecords(text);
  if (!records) return fail("bad thread-level reply: " + records.error().message);
  std::vector<ThreadLevelInfo> out;
  for (std::size_t n = 0; n < records->size(); ++n) {
    const Record& r = (*records)[n];
    const std::string prefix = "bad thread-level record " + std::to_string(n) + ": ";
    ThreadLevelInfo i;
    MPIDBG_TRY_ASSIGN(i.rank, r.integer<std::int32_t>("rank"));
    MPIDBG_TRY_ASSIGN(i.requested, r.integer<std::int32_t>("requested"));
    MPIDBG_TRY_ASSIGN(i.provided, r.integer<std::int32_t>("provided"));
    MPIDBG_TRY_ASSIGN(i.required, r.integer<std::int32_t>("required"));
    MPIDBG_TRY_ASSIGN(i.violations, r.integer<std::uint64_t>("violations"));
    for (auto [key, value, max] : {std::tuple{"requested", i.requested, 3}, std::tuple{"provided", i.provided, 3},
                                   std::tuple{"required", i.required, kThreadLevelDistinctComms}})
      if (value < 0 || value > max)
        return fail(prefix + "key '" + key + "' must be between 0 and " + std::to_string(max));
    out.push_back(i);
  }
  return out;
}

}  // namespace mpidbg::ccs::proto
