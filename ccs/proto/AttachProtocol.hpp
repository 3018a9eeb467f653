#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// Attaching to a job mpidbg did not launch (issue 9). A job started with the
/// runtime preloaded and MPIDBG_LISTEN=1 serves CCS from MPI_Init on, without
/// a front end; rank 0 writes an attach file naming every rank's server and
/// the job's session key. `mpidbg attach FILE` reads it, starts its event hub
/// and sends kAttachHandler to every rank, which then registers on the hub
/// exactly as a launched rank does (ccs/proto/RankProtocol.hpp).

/// Data: an AttachRequest. Reply: a ControlReply (ccs/proto/ControlProtocol.hpp),
/// an error saying why the rank did not register (already attached to
/// another front end; cannot reach the hub; the registration failed).
inline constexpr std::string_view kAttachHandler = "mpidbg/attach";

/// The kAttachHandler request: where the attaching front end's event hub listens.
struct AttachRequest {
  static constexpr std::string_view kName = "attach request";
  std::string frontend;  ///< the hub as "HOST:PORT"

  static constexpr auto fields() { return std::tuple{field("frontend", &AttachRequest::frontend).notEmpty()}; }
};

/// First line of an attach file; the number is the format's version.
inline constexpr std::string_view kAttachMagic = "mpidbg-attach 1";

/// One rank as the attach file names it.
struct AttachRank {
  std::int32_t rank = 0;
  std::string address;   ///< where its CCS server listens (the bound address)
  std::uint16_t port = 0;
  std::int32_t pid = 0;
  std::string host;      ///< gethostname() of the rank
};

/// An attach file. Text, one fact per line, written by rank 0 with mode 0600
/// (it holds the key):
///
///     mpidbg-attach 1
///     size 4
///     security tls            (or plain: MPIDBG_CCS_SECURITY=plain)
///     key 64-HEX-DIGITS       (the session key: TLS PSK and registration MAC)
///     mpi MPICH Version: 4.0.2
///     rank 0 127.0.0.1 40123 9876 node1      (rank, address, port, pid, host)
///     ...                                    (one line per rank that started)
///     end
///
/// Lines starting with '#' are comments. A rank whose server did not start
/// has no line.
struct AttachFile {
  std::int32_t size = 0;
  bool plain = false;                 ///< plain CCS instead of TLS
  std::vector<std::uint8_t> key;      ///< 32 bytes
  std::string mpiLibrary;
  std::vector<AttachRank> ranks;      ///< in rank order
};

/// The file's text (with a comment line saying how to use it and that it is
/// private).
std::string encode(const AttachFile& file);
/// Parses an attach file's text. Errors name the line: a wrong first line,
/// a missing size/key/end, a bad number, a key that is not 64 hex digits, a
/// rank outside [0, size) or named twice.
Expected<AttachFile> decodeAttachFile(std::string_view text);

}  // namespace mpidbg::ccs::proto
