// The forwarding envelope's wire format (see ForwardEnvelope.hpp).
#include "ccs/tree/ForwardEnvelope.hpp"

#include <algorithm>

#include "ccs/tree/Tree.hpp"

namespace mpidbg::ccs {
namespace {

/// Appends big-endian integers and length-prefixed byte strings.
struct Writer {
  std::vector<std::uint8_t> out;
  void u8(std::uint8_t v) { out.push_back(v); }
  void u16(std::uint16_t v) {
    out.push_back(static_cast<std::uint8_t>(v >> 8));
    out.push_back(static_cast<std::uint8_t>(v));
  }
  void u32(std::uint32_t v) { appendBigEndian32(out, static_cast<std::int32_t>(v)); }
  void i32(std::int32_t v) { appendBigEndian32(out, v); }
  void bytes(std::span<const std::uint8_t> b) { out.insert(out.end(), b.begin(), b.end()); }
  void text(std::string_view s) { out.insert(out.end(), s.begin(), s.end()); }
};

/// Reads big-endian integers with bounds checks; the first failure sticks.
class Reader {
 public:
  explicit Reader(std::span<const std::uint8_t> data) : data_(data) {}
  std::size_t left() const { return data_.size() - at_; }
  bool take(std::size_t n, std::span<const std::uint8_t>& out) {
    if (n > left()) return false;
    out = data_.subspan(at_, n);
    at_ += n;
    return true;
  }
  bool u8(std::uint8_t& v) {
    std::span<const std::uint8_t> b;
    if (!take(1, b)) return false;
    v = b[0];
    return true;
  }
  bool u16(std::uint16_t& v) {
    std::span<const std::uint8_t> b;
    if (!take(2, b)) return false;
    v = static_cast<std::uint16_t>((b[0] << 8) | b[1]);
    return true;
  }
  bool u32(std::uint32_t& v) {
    std::span<const std::uint8_t> b;
    if (!take(4, b)) return false;
    v = static_cast<std::uint32_t>(readBigEndian32(b));
    return true;
  }
  bool i32(std::int32_t& v) {
    std::span<const std::uint8_t> b;
    if (!take(4, b)) return false;
    v = readBigEndian32(b);
    return true;
  }
  bool text(std::size_t n, std::string& s) {
    std::span<const std::uint8_t> b;
    if (!take(n, b)) return false;
    s.assign(b.begin(), b.end());
    return true;
  }

 private:
  std::span<const std::uint8_t> data_;
  std::size_t at_ = 0;
};

constexpr std::size_t kMinTableEntryBytes = 4 + 1 + 1 + 2;

std::unexpected<Error> truncated(const char* what) {
  return fail(std::string("forward envelope is truncated in ") + what);
}

Expected<void> checkInner(const Request& inner) {
  if (inner.handler.empty() || inner.handler.size() > kMaxHandlerName)
    return fail("forward envelope's inner handler name must have 1..31 characters");
  if (inner.handler.find('\0') != std::string::npos)
    return fail("forward envelope's inner handler name contains a NUL byte");
  if (inner.handler == kForwardHandler)
    return fail("forward envelope must not wrap another forward envelope");
  std::size_t expected =
      inner.pe < kBroadcastPe ? static_cast<std::size_t>(-static_cast<std::int64_t>(inner.pe)) : 0;
  if (inner.multicastPes.size() != expected)
    return fail("forward envelope's inner pe " + std::to_string(inner.pe) + " needs " +
                std::to_string(expected) + " multicast PEs, got " +
                std::to_string(inner.multicastPes.size()));
  return {};
}

Expected<void> checkEntry(const PeerEntry& entry) {
  if (entry.pe < 0)
    return fail("forward envelope's PE table has negative PE " + std::to_string(entry.pe));
  if (entry.host.empty() || entry.host.size() > 255 || entry.host.find('\0') != std::string::npos)
    return fail("forward envelope's PE table entry for PE " + std::to_string(entry.pe) +
                " has a bad host name");
  if (entry.port == 0)
    return fail("forward envelope's PE table entry for PE " + std::to_string(entry.pe) +
                " has port 0");
  return {};
}

Expected<void> checkRequest(const ForwardRequest& r) {
  if (r.deadline.count() < 1 || r.deadline.count() > kMaxForwardDeadlineMs)
    return fail("forward envelope deadline of " + std::to_string(r.deadline.count()) +
                " ms is outside 1.." + std::to_string(kMaxForwardDeadlineMs));
  if (r.fanOut < 1 || r.fanOut > kMaxFanOut)
    return fail("forward envelope fan-out " + std::to_string(r.fanOut) + " is outside 1.." +
                std::to_string(kMaxFanOut));
  if (r.table.empty()) return fail("forward envelope has an empty PE table");
  if (auto ok = checkInner(r.inner); !ok) return ok;
  for (const auto& entry : r.table)
    if (auto ok = checkEntry(entry); !ok) return ok;
  return {};
}

}  // namespace

Expected<std::vector<std::uint8_t>> encodeForwardRequest(const ForwardRequest& request) {
  if (auto ok = checkRequest(request); !ok) return std::unexpected(ok.error());
  Writer w;
  w.u32(kForwardVersion);
  w.u32(static_cast<std::uint32_t>(request.deadline.count()));
  w.u32(static_cast<std::uint32_t>(request.fanOut));
  w.u8(static_cast<std::uint8_t>(request.inner.handler.size()));
  w.text(request.inner.handler);
  w.i32(request.inner.pe);
  w.u32(static_cast<std::uint32_t>(request.inner.multicastPes.size()));
  for (std::int32_t pe : request.inner.multicastPes) w.i32(pe);
  w.u32(static_cast<std::uint32_t>(request.inner.data.size()));
  w.bytes(request.inner.data);
  w.u32(static_cast<std::uint32_t>(request.table.size()));
  for (const auto& entry : request.table) {
    w.i32(entry.pe);
    w.u8(static_cast<std::uint8_t>(entry.host.size()));
    w.text(entry.host);
    w.u16(entry.port);
  }
  return std::move(w.out);
}

Expected<ForwardRequest> decodeForwardRequest(std::span<const std::uint8_t> data) {
  Reader r(data);
  ForwardRequest out;
  std::uint32_t version = 0, deadline = 0, fanOut = 0, count = 0;
  if (!r.u32(version)) return truncated("the version");
  if (version != kForwardVersion)
    return fail("forward envelope version " + std::to_string(version) + " is not supported (" +
                std::to_string(kForwardVersion) + " is)");
  if (!r.u32(deadline) || !r.u32(fanOut)) return truncated("the deadline and fan-out");
  out.deadline = std::chrono::milliseconds(deadline);
  out.fanOut = fanOut;

  std::uint8_t handlerLength = 0;
  if (!r.u8(handlerLength) || !r.text(handlerLength, out.inner.handler))
    return truncated("the inner handler name");
  if (!r.i32(out.inner.pe) || !r.u32(count)) return truncated("the inner addressing");
  if (count > r.left() / 4) return truncated("the inner multicast PE list");
  out.inner.multicastPes.resize(count);
  for (auto& pe : out.inner.multicastPes) r.i32(pe);
  std::span<const std::uint8_t> bytes;
  if (!r.u32(count) || !r.take(count, bytes)) return truncated("the inner request data");
  out.inner.data.assign(bytes.begin(), bytes.end());

  if (!r.u32(count)) return truncated("the PE table size");
  if (count > r.left() / kMinTableEntryBytes) return truncated("the PE table");
  out.table.resize(count);
  for (auto& entry : out.table) {
    std::uint8_t hostLength = 0;
    if (!r.i32(entry.pe) || !r.u8(hostLength) || !r.text(hostLength, entry.host) ||
        !r.u16(entry.port))
      return truncated("a PE table entry");
  }
  if (r.left() != 0)
    return fail("forward envelope has " + std::to_string(r.left()) + " unexpected trailing bytes");
  if (auto ok = checkRequest(out); !ok) return std::unexpected(ok.error());
  return out;
}

Expected<Request> makeForwardCcsRequest(const ForwardRequest& request) {
  auto data = encodeForwardRequest(request);
  if (!data) return std::unexpected(data.error());
  Request out;
  out.pe = request.table.front().pe;
  out.handler = std::string(kForwardHandler);
  out.data = std::move(*data);
  return out;
}

std::vector<std::uint8_t> encodeForwardReply(const ForwardReply& reply) {
  Writer w;
  w.u32(kForwardVersion);
  w.u32(reply.answered);
  w.u32(static_cast<std::uint32_t>(reply.missing.size()));
  for (const auto& missing : reply.missing) {
    std::string_view reason = missing.reason;
    reason = reason.substr(0, kMaxMissingReason);
    w.i32(missing.pe);
    w.u16(static_cast<std::uint16_t>(reason.size()));
    w.text(reason);
  }
  w.u8(reply.error ? 1 : 0);
  if (reply.error) {
    w.u32(static_cast<std::uint32_t>(reply.error->size()));
    w.text(*reply.error);
  } else {
    w.u32(static_cast<std::uint32_t>(reply.payload.size()));
    w.bytes(reply.payload);
  }
  return std::move(w.out);
}

Expected<ForwardReply> decodeForwardReply(std::span<const std::uint8_t> data) {
  Reader r(data);
  ForwardReply out;
  std::uint32_t version = 0, count = 0;
  if (!r.u32(version)) return truncated("the reply version");
  if (version != kForwardVersion)
    return fail("forward reply version " + std::to_string(version) + " is not supported");
  if (!r.u32(out.answered) || !r.u32(count)) return truncated("the reply counts");
  if (count > r.left() / 6) return truncated("the missing PE list");
  out.missing.resize(count);
  for (auto& missing : out.missing) {
    std::uint16_t length = 0;
    if (!r.i32(missing.pe) || !r.u16(length)) return truncated("a missing PE");
    if (length > kMaxMissingReason)
      return fail("forward reply has a missing-PE reason of " + std::to_string(length) +
                  " bytes (at most " + std::to_string(kMaxMissingReason) + ")");
    if (!r.text(length, missing.reason)) return truncated("a missing PE's reason");
  }
  std::uint8_t status = 0;
  std::span<const std::uint8_t> bytes;
  if (!r.u8(status)) return truncated("the reply status");
  if (status > 1) return fail("forward reply status " + std::to_string(status) + " is unknown");
  if (!r.u32(count) || !r.take(count, bytes)) return truncated("the reply payload");
  if (r.left() != 0)
    return fail("forward reply has " + std::to_string(r.left()) + " unexpected trailing bytes");
  if (status == 1)
    out.error.emplace(bytes.begin(), bytes.end());
  else
    out.payload.assign(bytes.begin(), bytes.end());
  return out;
}

}  // namespace mpidbg::ccs
