#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ccs/proto/Field.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// gdb for a rank on another host (issue 6): the front end asks the rank's
/// runtime to start `gdbserver --once --multi BIND:0` on the rank's own host,
/// then its local gdb connects with `target extended-remote HOST:PORT` and
/// attaches to the rank's pid through that gdbserver. Same text record format
/// as ccs/proto/RankProtocol.hpp (`key=value` lines, escaped values, unknown keys
/// ignored, a missing required key or a bad number is an Error naming the key).
///
/// gdbserver listens before it attaches anything, so the rank's CCS thread
/// answers before gdb stops the process (no deadlock with the handler).

/// GdbServerRequest record -> one GdbServerReply record. A single-rank request
/// (not meant for broadcast).
inline constexpr std::string_view kGdbServerHandler = "mpidbg/gdbserver";

/// Default bound, in milliseconds, for gdb to connect to a started gdbserver.
inline constexpr std::uint32_t kDefaultGdbConnectTimeoutMs = 30000;

/// The request. Keys: `connecttimeout` (milliseconds, optional; default
/// kDefaultGdbConnectTimeoutMs; 0 is an error): a gdbserver that no gdb
/// connected to within that time is killed by the runtime. An empty request
/// means every default.
struct GdbServerRequest {
  std::uint32_t connectTimeoutMs = kDefaultGdbConnectTimeoutMs;

  /// The message in errors ("bad gdbserver request ...").
  static constexpr std::string_view kName = "gdbserver request";
  /// The wire form (ccs/proto/Message.hpp).
  static constexpr auto fields() {
    return std::tuple{field("connecttimeout", &GdbServerRequest::connectTimeoutMs).orDefault().positive()};
  }
};

/// The reply: either a listening gdbserver (`error` empty; keys host, port,
/// pid, serverpid) or why none was started (key `error` only, a sentence
/// naming the cause, e.g. "gdbserver not found in PATH on node3; ...", "the
/// process is already traced by process 99 (strace); detach that tracer
/// first").
struct GdbServerReply {
  /// Address gdbserver listens on: the interface the rank's CCS server binds
  /// (loopback unless MPIDBG_CCS_BIND names one); empty when that is a
  /// wildcard address (then connect to the rank's CCS host).
  std::string host;
  std::uint16_t port = 0;        ///< gdbserver's TCP port (never 0 on success)
  std::int32_t pid = 0;          ///< the rank's pid, as gdb must attach to it
  std::int32_t serverPid = 0;    ///< gdbserver's pid on the rank's host
  std::string error;             ///< non-empty: no gdbserver was started

  /// The message in errors ("bad gdbserver reply ...").
  static constexpr std::string_view kName = "gdbserver reply";
  /// The wire form of a success reply (ccs/proto/Message.hpp); a failure is
  /// the key `error` alone.
  static constexpr auto fields() {
    using T = GdbServerReply;
    return std::tuple{field("host", &T::host), field("port", &T::port), field("pid", &T::pid).positive(),
                      field("serverpid", &T::serverPid).positive()};
  }
};

/// Encodes a request ("connecttimeout=N\n").
std::string encode(const GdbServerRequest& r);
/// Decodes a request; empty text is the default request. Errors: "bad
/// gdbserver request: ..." naming the key.
Expected<GdbServerRequest> decodeGdbServerRequest(std::string_view text);
/// Encodes a reply: only `error` when it is non-empty, else host, port, pid,
/// serverpid.
std::string encode(const GdbServerReply& r);
/// Decodes a reply. Errors ("bad gdbserver reply: ..."): empty text (e.g. a
/// runtime without this handler), a missing or malformed key, port 0 or a
/// pid <= 0 in a success reply.
Expected<GdbServerReply> decodeGdbServerReply(std::string_view text);

}  // namespace mpidbg::ccs::proto
