// Records of the mpidbg/gdbserver handler (format in ccs/proto/GdbServerProtocol.hpp).
#include "ccs/proto/GdbServerProtocol.hpp"

#include "ccs/proto/Message.hpp"

namespace mpidbg::ccs::proto {

std::string encode(const GdbServerRequest& r) { return encodeRecord(r); }

Expected<GdbServerRequest> decodeGdbServerRequest(std::string_view text) { return decodeRecord<GdbServerRequest>(text); }

std::string encode(const GdbServerReply& r) {
  if (r.error.empty()) return encodeRecord(r);
  std::string w;
  put(w, "error", r.error);
  return w;
}

Expected<GdbServerReply> decodeGdbServerReply(std::string_view text) {
  const std::string prefix = "bad gdbserver reply: ";
  if (text.empty()) return fail(prefix + "empty (the rank's runtime does not serve mpidbg/gdbserver?)");
  auto record = parseOne(text, GdbServerReply::kName);
  if (!record) return std::unexpected(record.error());
  GdbServerReply reply;
  if (record->has("error")) {
    MPIDBG_TRY_ASSIGN(reply.error, record->text("error"));
    if (reply.error.empty()) return fail(prefix + "key 'error' is empty");
    return reply;
  }
  if (auto filled = getFields(*record, reply); !filled) return fail(prefix + filled.error().message);
  if (reply.port == 0) return fail(prefix + "key 'port' is 0");
  return reply;
}

}  // namespace mpidbg::ccs::proto
