// Records of the mpidbg/gdbserver handler (format in ccs/proto/GdbServerProtocol.hpp).
#include "ccs/proto/GdbServerProtocol.hpp"

#include "ccs/proto/TextRecord.hpp"

namespace mpidbg::ccs::proto {

std::string encode(const GdbServerRequest& r) {
  std::string w;
  putInt(w, "connecttimeout", r.connectTimeoutMs);
  return w;
}

Expected<GdbServerRequest> decodeGdbServerRequest(std::string_view text) {
  const std::string prefix = "bad gdbserver request: ";
  auto record = parseOne(text, "gdbserver request", true);
  if (!record) return std::unexpected(record.error());
  GdbServerRequest request;
  if (record->has("connecttimeout")) {
    MPIDBG_TRY_ASSIGN(request.connectTimeoutMs, record->integer<std::uint32_t>("connecttimeout"));
    if (request.connectTimeoutMs == 0) return fail(prefix + "key 'connecttimeout' must be > 0");
  }
  return request;
}

std::string encode(const GdbServerReply& r) {
  std::string w;
  if (!r.error.empty()) {
    put(w, "error", r.error);
    return w;
  }
  put(w, "host", r.host);
  putInt(w, "port", r.port);
  putInt(w, "pid", r.pid);
  putInt(w, "serverpid", r.serverPid);
  return w;
}

Expected<GdbServerReply> decodeGdbServerReply(std::string_view text) {
  const std::string prefix = "bad gdbserver reply: ";
  if (text.empty()) return fail(prefix + "empty (the rank's runtime does not serve mpidbg/gdbserver?)");
  auto record = parseOne(text, "gdbserver reply");
  if (!record) return std::unexpected(record.error());
  const Record& r = *record;
  GdbServerReply reply;
  if (r.has("error")) {
    MPIDBG_TRY_ASSIGN(reply.error, r.text("error"));
    if (reply.error.empty()) return fail(prefix + "key 'error' is empty");
    return reply;
  }
  MPIDBG_TRY_ASSIGN(reply.host, r.text("host"));
  MPIDBG_TRY_ASSIGN(reply.port, r.integer<std::uint16_t>("port"));
  MPIDBG_TRY_ASSIGN(reply.pid, r.integer<std::int32_t>("pid"));
  MPIDBG_TRY_ASSIGN(reply.serverPid, r.integer<std::int32_t>("serverpid"));
  if (reply.port == 0) return fail(prefix + "key 'port' is 0");
  if (reply.pid <= 0) return fail(prefix + "key 'pid' must be > 0");
  if (reply.serverPid <= 0) return fail(prefix + "key 'serverpid' must be > 0");
  return reply;
}

}  // namespace mpidbg::ccs::proto
