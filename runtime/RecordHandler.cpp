// `info record` (Record.hpp recordInfo, registerRecordHandler): this rank's
// record/replay state read from RecordState.hpp.

#include "RecordState.hpp"
#include "Runtime.hpp"
#include "TypedHandler.hpp"
#include "ccs/transport/Server.hpp"

namespace mpidbg::rt {

ccs::proto::RecordInfo recordInfo(std::int32_t rank) {
  rec::Decisions& d = rec::state();
  std::lock_guard lock(d.mutex);
  ccs::proto::RecordInfo info;
  info.rank = rank;
  info.recording = d.log.active();
  info.recordPath = d.log.path();
  info.recorded = d.log.decisions();
  info.recordBytes = d.log.bytes();
  info.byKind = d.log.countsByKind();
  info.replaying = d.cursor.replaying();
  info.replayPath = d.cursor.path();
  info.replayed = d.cursor.replayed();
  info.replayTotal = d.cursor.total();
  info.replayComplete = d.cursor.complete();
  info.diverged = d.cursor.diverged();
  return info;
}

void registerRecordHandler(ccs::Server& server, Runtime& runtime) {
  Runtime* rt = &runtime;
  on<ccs::proto::NoData, ccs::proto::RecordInfo>(server, ccs::proto::kRecordHandler,
                                                 [rt](const ccs::proto::NoData&) { return recordInfo(rt->rank()); });
}

}  // namespace mpidbg::rt
