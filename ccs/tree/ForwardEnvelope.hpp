#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/transport/Endpoint.hpp"
#include "ccs/transport/Frame.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// mpidbg's forwarding envelope: the data of a CCS request to handler
/// kForwardHandler and of its reply. It carries one inner request down the
/// forwarding tree (ccs/tree/Tree.hpp) together with the subtree's slice of the PE
/// table, and brings the merged reply and the list of missing PEs back up.
///
/// Request data (all integers big-endian, no padding, nothing after the end):
///   u32 version (kForwardVersion)
///   u32 deadline: milliseconds the receiver has to reply, 1..kMaxForwardDeadlineMs
///   u32 fan-out, 1..kMaxFanOut
///   inner request:
///     u8 handler length 1..31, handler bytes (no NUL; not kForwardHandler)
///     i32 original pe (>= 0, -1 broadcast, -k multicast)
///     u32 multicast count m (k when pe == -k, else 0), then m x i32 PE
///     u32 data length, then the data bytes
///   u32 table entries n >= 1, then n x { i32 pe (>= 0), u8 host length 1..255,
///     host bytes (no NUL), u16 port (>= 1) }; entry 0 is the receiving node.
///
/// Reply data:
///   u32 version
///   u32 answered: PEs whose replies went into the payload
///   u32 missing count, then per missing PE { i32 pe, u16 reason length
///     (<= kMaxMissingReason), reason bytes (UTF-8) }
///   u8 status: 0 = payload is the merged reply, 1 = payload is an error message
///   u32 payload length, then the payload bytes
///
/// Decoders treat input as hostile: every length is checked against the bytes
/// left before anything is allocated; any violation is an Error.

/// CCS handler name of the forwarding envelope (14 characters).
inline constexpr std::string_view kForwardHandler = "mpidbg/forward";
/// Envelope format version.
inline constexpr std::uint32_t kForwardVersion = 1;
/// Upper bound on an envelope's deadline (one hour).
inline constexpr std::uint32_t kMaxForwardDeadlineMs = 3'600'000;
/// Reasons longer than this are cut when encoding.
inline constexpr std::size_t kMaxMissingReason = 200;

/// One PE of the job and where its CCS server listens.
struct PeerEntry {
  std::int32_t pe = 0;
  std::string host;
  std::uint16_t port = 0;

  Endpoint endpoint() const { return Endpoint{host, port}; }
  bool operator==(const PeerEntry&) const = default;
};

/// A decoded forward request.
struct ForwardRequest {
  /// Time the receiver has to reply (remaining when sent).
  std::chrono::milliseconds deadline{5000};
  /// Fan-out of the tree below the receiver.
  std::size_t fanOut = 4;
  /// The request to run on every PE of `table`, with its original addressing.
  Request inner;
  /// The receiver's subtree, entry 0 being the receiver, in merge order.
  std::vector<PeerEntry> table;
};

/// A PE whose reply is not in the merged payload, and why ("connection
/// refused", "no reply within 900 ms", ...).
struct MissingPe {
  std::int32_t pe = 0;
  std::string reason;
  bool operator==(const MissingPe&) const = default;
};

/// A decoded forward reply.
struct ForwardReply {
  /// Number of PEs whose replies were merged into `payload`.
  std::uint32_t answered = 0;
  /// PEs that did not answer in time or could not be reached, in table order.
  std::vector<MissingPe> missing;
  /// Set when the replies could not be merged (no merge rule, mismatched
  /// lengths, malformed envelope); `payload` is then empty.
  std::optional<std::string> error;
  /// The merged reply of every answering PE, in table order.
  std::vector<std::uint8_t> payload;
};

/// Encodes a forward request's data. Errors: empty table, deadline outside
/// 1..kMaxForwardDeadlineMs, fan-out outside 1..kMaxFanOut, inner handler empty,
/// too long or kForwardHandler, multicast list not matching pe, host empty or
/// longer than 255, negative PE or port 0 in the table.
Expected<std::vector<std::uint8_t>> encodeForwardRequest(const ForwardRequest& request);

/// Decodes a forward request's data; the checks of encodeForwardRequest plus
/// truncation, trailing bytes and bad version.
Expected<ForwardRequest> decodeForwardRequest(std::span<const std::uint8_t> data);

/// The CCS request that delivers `request` to its table's first entry
/// (pe = table[0].pe, handler kForwardHandler).
Expected<Request> makeForwardCcsRequest(const ForwardRequest& request);

/// Encodes a forward reply's data (reasons cut to kMaxMissingReason bytes;
/// with `error` set the payload is the error message).
std::vector<std::uint8_t> encodeForwardReply(const ForwardReply& reply);

/// Decodes a forward reply's data. Errors: truncation, trailing bytes, bad
/// version or status, reason over kMaxMissingReason.
Expected<ForwardReply> decodeForwardReply(std::span<const std::uint8_t> data);

}  // namespace mpidbg::ccs
