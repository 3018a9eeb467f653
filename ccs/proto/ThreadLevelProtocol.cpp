// Thread-level records between the runtime and the front end (format and field list in
// ccs/proto/ThreadLevelProtocol.hpp; encoder and decoder from ccs/proto/Message.hpp).
#include "ccs/proto/ThreadLevelProtocol.hpp"

#include "ccs/proto/Message.hpp"

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

std::string encode(std::span<const ThreadLevelInfo> infos) { return encodeRecords(infos); }

Expected<std::vector<ThreadLevelInfo>> decodeThreadLevels(std::string_view text) {
  return decodeRecords<ThreadLevelInfo>(text, "thread-level reply");
}

}  // namespace mpidbg::ccs::proto
