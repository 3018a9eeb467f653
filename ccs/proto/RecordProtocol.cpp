// Record/replay state records between the runtime and the front end (format and
// field list in ccs/proto/RecordProtocol.hpp; encoder and decoder from ccs/proto/Message.hpp).
#include "ccs/proto/RecordProtocol.hpp"

#include "ccs/proto/Message.hpp"

namespace mpidbg::ccs::proto {

std::string encode(std::span<const RecordInfo> infos) { return encodeRecords(infos); }

Expected<std::vector<RecordInfo>> decodeRecordInfos(std::string_view text) {
  return decodeRecords<RecordInfo>(text, "record reply");
}

}  // namespace mpidbg::ccs::proto
