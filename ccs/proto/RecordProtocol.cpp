// Record/replay state records between the runtime and the front end (format
// in ccs/proto/RecordProtocol.hpp; the text records of ccs/proto/TextRecord.hpp).
#include "ccs/proto/RecordProtocol.hpp"

#include "ccs/proto/TextRecord.hpp"

namespace mpidbg::ccs::proto {

std::string encode(std::span<const RecordInfo> infos) {
  std::string out;
  for (const RecordInfo& i : infos) {
    putInt(out, "rank", i.rank);
    putInt(out, "recording", i.recording ? 1 : 0);
    put(out, "record_path", i.recordPath);
    putInt(out, "recorded", i.recorded);
    putInt(out, "record_bytes", i.recordBytes);
    put(out, "by_kind", i.byKind);
    putInt(out, "replaying", i.replaying ? 1 : 0);
    put(out, "replay_path", i.replayPath);
    putInt(out, "replayed", i.replayed);
    putInt(out, "replay_total", i.replayTotal);
    putInt(out, "replay_complete", i.replayComplete ? 1 : 0);
    put(out, "diverged", i.diverged);
    out += "--\n";
  }
  return out;
}

Expected<std::vector<RecordInfo>> decodeRecordInfos(std::string_view text) {
  auto records = parseRecords(text);
  if (!records) return fail("bad record reply: " + records.error().message);
  std::vector<RecordInfo> out;
  for (std::size_t n = 0; n < records->size(); ++n) {
    const Record& r = (*records)[n];
    const std::string prefix = "bad record/replay record " + std::to_string(n) + ": ";
    RecordInfo i;
    MPIDBG_TRY_ASSIGN(i.rank, r.integer<std::int32_t>("rank"));
    MPIDBG_TRY_ASSIGN(i.recording, r.flag("recording"));
    MPIDBG_TRY_ASSIGN(i.recordPath, r.text("record_path"));
    MPIDBG_TRY_ASSIGN(i.recorded, r.integer<std::uint64_t>("recorded"));
    MPIDBG_TRY_ASSIGN(i.recordBytes, r.integer<std::uint64_t>("record_bytes"));
    MPIDBG_TRY_ASSIGN(i.byKind, r.text("by_kind"));
    MPIDBG_TRY_ASSIGN(i.replaying, r.flag("replaying"));
    MPIDBG_TRY_ASSIGN(i.replayPath, r.text("replay_path"));
    MPIDBG_TRY_ASSIGN(i.replayed, r.integer<std::uint64_t>("replayed"));
    MPIDBG_TRY_ASSIGN(i.replayTotal, r.integer<std::uint64_t>("replay_total"));
    MPIDBG_TRY_ASSIGN(i.replayComplete, r.flag("replay_complete"));
    MPIDBG_TRY_ASSIGN(i.diverged, r.text("diverged"));
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace mpidbg::ccs::proto
