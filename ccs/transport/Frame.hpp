#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// Plain CCS framing, as Charm++ speaks it (../shared/protocols/ccs.md, "Plain
/// request and reply"; checked against ../shared/vectors/ccs/). Every integer
/// on the wire is big-endian.

/// Bytes in a plain request header: data length (4), destination PE (4),
/// handler name (32, NUL-padded).
inline constexpr std::size_t kHeaderSize = 40;
/// Longest handler name that fits the header with its terminating NUL.
inline constexpr std::size_t kMaxHandlerName = 31;
/// Destination PE meaning "every PE".
inline constexpr std::int32_t kBroadcastPe = -1;
/// Default bound on a request's data bytes accepted by a parser (1 MiB).
inline constexpr std::size_t kDefaultMaxRequestBytes = 1u << 20;

/// One CCS request as a handler sees it: no bytes, no sockets.
struct Request {
  /// Destination: >= 0 one PE, -1 broadcast, -k (k >= 2) multicast to the k
  /// PEs of `multicastPes`.
  std::int32_t pe = 0;
  /// The PE list of a multicast (size k when pe == -k); empty otherwise.
  std::vector<std::int32_t> multicastPes;
  /// Handler name, at most kMaxHandlerName characters.
  std::string handler;
  /// Request data (the header's length field counts only these bytes).
  std::vector<std::uint8_t> data;
};

/// Encodes `request` as header, multicast PE list, data. Errors: handler name
/// empty or longer than 31 characters, pe == -k with a PE list not of size k,
/// pe == 0 or > 0 with a PE list, or data of 512 MiB or more (the first byte
/// of the length would leave the plain range).
Expected<std::vector<std::uint8_t>> encodeRequest(const Request& request);

/// Encodes a plain reply: 4-byte big-endian length, then the bytes.
std::vector<std::uint8_t> encodeReply(std::span<const std::uint8_t> data);

/// Reads a big-endian 32-bit signed integer from the first 4 bytes of `bytes`
/// (which must hold at least 4).
std::int32_t readBigEndian32(std::span<const std::uint8_t> bytes);
/// Appends `value` as 4 big-endian bytes.
void appendBigEndian32(std::vector<std::uint8_t>& out, std::int32_t value);

/// Incremental parser of one plain request arriving in pieces. Feed bytes as
/// they arrive; when a whole request is in, `feed` returns it. The parser is
/// then ready for the next request (persistent connections).
class RequestParser {
 public:
  /// `maxDataBytes` bounds the data length (and the PE list, 4 bytes a PE)
  /// that will be buffered; longer requests are an error before any data is
  /// buffered.
  explicit RequestParser(std::size_t maxDataBytes = kDefaultMaxRequestBytes);

  /// Consumes bytes from the front of `input` (advancing it) up to the end of
  /// one request. Returns the request once complete, std::nullopt when more
  /// bytes are needed, or an Error for a malformed stream: first byte not in
  /// the plain range (< 0x20; 0x80 is named as the SHA-1 mode), negative
  /// length, length over the limit, handler name without a NUL in its 32
  /// bytes or empty, multicast count over the limit. After an error the
  /// parser must not be fed again.
  Expected<std::optional<Request>> feed(std::span<const std::uint8_t>& input);

  /// True when no byte of a next request has been consumed yet.
  bool idle() const;

 private:
  std::size_t maxDataBytes_;
  std::vector<std::uint8_t> buffer_;
  std::size_t needed_ = kHeaderSize;
  int stage_ = 0;
  Request current_;
  std::int32_t dataLength_ = 0;
};

/// Incremental parser of one plain reply: 4-byte length then data.
class ReplyParser {
 public:
  /// `maxBytes` bounds the accepted reply length.
  explicit ReplyParser(std::size_t maxBytes = 64u << 20);
  /// Like RequestParser::feed: the reply data once complete, nullopt when more
  /// bytes are needed, an Error for a negative or oversized length.
  Expected<std::optional<std::vector<std::uint8_t>>> feed(std::span<const std::uint8_t>& input);

 private:
  std::size_t maxBytes_;
  std::vector<std::uint8_t> buffer_;
  std::size_t needed_ = 4;
  bool haveLength_ = false;
};

}  // namespace mpidbg::ccs
