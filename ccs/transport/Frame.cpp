// Plain CCS framing (../shared/protocols/ccs.md, "Plain request and reply").
#include "ccs/transport/Frame.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>

#include "mpidbg/Text.hpp"

namespace mpidbg::ccs {
namespace {

/// Lengths below this keep the first byte of the stream under 0x20 (plain mode).
constexpr std::uint32_t kPlainLengthLimit = 0x20000000u;
/// First byte of Charm++'s SHA-1 authenticated mode.
constexpr std::uint8_t kSha1Marker = 0x80;

enum Stage : int { kHeader = 0, kPeList = 1, kData = 2, kFailed = 3 };

/// Moves bytes from `input` into `buffer` until it holds `needed`; true when it does.
bool fill(std::vector<std::uint8_t>& buffer, std::size_t needed,
          std::span<const std::uint8_t>& input) {
  if (buffer.size() < needed) {
    std::size_t take = std::min(needed - buffer.size(), input.size());
    buffer.insert(buffer.end(), input.begin(), input.begin() + static_cast<std::ptrdiff_t>(take));
    input = input.subspan(take);
  }
  return buffer.size() >= needed;
}

}  // namespace

std::int32_t readBigEndian32(std::span<const std::uint8_t> bytes) {
  std::uint32_t v = (std::uint32_t{bytes[0]} << 24) | (std::uint32_t{bytes[1]} << 16) |
                    (std::uint32_t{bytes[2]} << 8) | std::uint32_t{bytes[3]};
  return static_cast<std::int32_t>(v);
}

void appendBigEndian32(std::vector<std::uint8_t>& out, std::int32_t value) {
  auto v = static_cast<std::uint32_t>(value);
  out.push_back(static_cast<std::uint8_t>(v >> 24));
  out.push_back(static_cast<std::uint8_t>(v >> 16));
  out.push_back(static_cast<std::uint8_t>(v >> 8));
  out.push_back(static_cast<std::uint8_t>(v));
}

Expected<std::vector<std::uint8_t>> encodeRequest(const Request& request) {
  if (request.handler.empty())
    return fail("cannot encode a CCS request with an empty handler name");
  if (request.handler.size() > kMaxHandlerName)
    return fail("CCS handler name '" + request.handler + "' is longer than 31 characters");
  if (request.handler.find('\0') != std::string::npos)
    return fail("CCS handler name contains a NUL byte");
  if (request.pe >= kBroadcastPe) {
    if (!request.multicastPes.empty())
      return fail("CCS request to pe " + std::to_string(request.pe) +
                  " must not carry a multicast PE list");
  } else {
    auto count = -static_cast<std::int64_t>(request.pe);
    if (static_cast<std::int64_t>(request.multicastPes.size()) != count)
      return fail("CCS multicast pe " + std::to_string(request.pe) + " needs " +
                  std::to_string(count) + " PE numbers, got " +
                  std::to_string(request.multicastPes.size()));
  }
  if (request.data.size() >= kPlainLengthLimit)
    return fail("CCS request data of " + std::to_string(request.data.size()) +
                " bytes is too large (plain mode allows under 512 MiB)");

  std::vector<std::uint8_t> out;
  out.reserve(kHeaderSize + 4 * request.multicastPes.size() + request.data.size());
  appendBigEndian32(out, static_cast<std::int32_t>(request.data.size()));
  appendBigEndian32(out, request.pe);
  out.insert(out.end(), request.handler.begin(), request.handler.end());
  out.resize(kHeaderSize, 0);
  for (std::int32_t pe : request.multicastPes) appendBigEndian32(out, pe);
  out.insert(out.end(), request.data.begin(), request.data.end());
  return out;
}

std::vector<std::uint8_t> encodeReply(std::span<const std::uint8_t> data) {
  std::vector<std::uint8_t> out;
  out.reserve(4 + data.size());
  appendBigEndian32(out, static_cast<std::int32_t>(data.size()));
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// ---- RequestParser ----

RequestParser::RequestParser(std::size_t maxDataBytes) : maxDataBytes_(maxDataBytes) {}

bool RequestParser::idle() const { return stage_ == kHeader && buffer_.empty(); }

Expected<std::optional<Request>> RequestParser::feed(std::span<const std::uint8_t>& input) {
  auto failWith = [this](std::string message) {
    stage_ = kFailed;
    buffer_.clear();
    return fail(std::move(message));
  };
  if (stage_ == kFailed) return fail("CCS request parser fed after a malformed request");

  if (stage_ == kHeader) {
    // Check the mode byte and the length as soon as they arrive, so a bad
    // stream is refused without waiting for a whole header.
    bool haveLength = fill(buffer_, 4, input);
    if (buffer_.empty()) return std::nullopt;
    std::uint8_t first = buffer_[0];
    if (first == kSha1Marker)
      return failWith(
          "CCS request starts with 0x80, Charm++'s SHA-1 authenticated mode, "
          "which is not enabled on this server");
    if (first >= 0x20)
      return failWith("not a plain CCS request: first byte " + hexByte(first) +
                      " (plain requests start below 0x20, 0x80 is the SHA-1 mode)");
    if (!haveLength) return std::nullopt;
    std::int32_t length = readBigEndian32(buffer_);
    if (length < 0)  // unreachable after the mode check; kept as the contract says
      return failWith("CCS request has a negative data length " + std::to_string(length));
    if (static_cast<std::size_t>(length) > maxDataBytes_)
      return failWith("CCS request data length " + std::to_string(length) +
                      " bytes is over the limit of " + std::to_string(maxDataBytes_));
    dataLength_ = length;

    bool havePe = fill(buffer_, 8, input);
    if (!havePe) return std::nullopt;
    std::int32_t pe = readBigEndian32(std::span(buffer_).subspan(4));
    std::size_t peCount = 0;
    if (pe < kBroadcastPe) {
      peCount = static_cast<std::size_t>(-static_cast<std::int64_t>(pe));
      if (peCount > maxDataBytes_ / 4)
        return failWith("CCS multicast to " + std::to_string(peCount) +
                        " PEs is over the limit of " + std::to_string(maxDataBytes_ / 4));
    }

    if (!fill(buffer_, kHeaderSize, input)) return std::nullopt;
    auto name = std::span(buffer_).subspan(8, kHeaderSize - 8);
    auto nul = std::find(name.begin(), name.end(), std::uint8_t{0});
    if (nul == name.end())
      return failWith("CCS request handler name has no NUL within its 32 bytes");
    if (nul == name.begin()) return failWith("CCS request has an empty handler name");

    current_ = Request{};
    current_.pe = pe;
    current_.handler.assign(name.begin(), nul);
    current_.multicastPes.reserve(peCount);
    needed_ = peCount * 4;
    buffer_.clear();
    stage_ = kPeList;
  }

  if (stage_ == kPeList) {
    if (!fill(buffer_, needed_, input)) return std::nullopt;
    for (std::size_t i = 0; i < needed_; i += 4)
      current_.multicastPes.push_back(readBigEndian32(std::span(buffer_).subspan(i)));
    buffer_.clear();
    needed_ = static_cast<std::size_t>(dataLength_);
    stage_ = kData;
  }

  // stage_ == kData
  if (!fill(buffer_, needed_, input)) return std::nullopt;
  current_.data = std::move(buffer_);
  buffer_ = {};
  stage_ = kHeader;
  needed_ = kHeaderSize;
  dataLength_ = 0;
  Request done = std::move(current_);
  current_ = Request{};
  return std::optional<Request>(std::move(done));
}

// ---- ReplyParser ----

ReplyParser::ReplyParser(std::size_t maxBytes) : maxBytes_(maxBytes) {}

Expected<std::optional<std::vector<std::uint8_t>>> ReplyParser::feed(
    std::span<const std::uint8_t>& input) {
  // A failed parser keeps `needed_` at 0 with no length: it stays failed.
  if (!haveLength_ && needed_ == 0) return fail("CCS reply parser fed after a malformed reply");
  if (!haveLength_) {
    if (!fill(buffer_, 4, input)) return std::nullopt;
    std::int32_t length = readBigEndian32(buffer_);
    buffer_.clear();
    if (length < 0 || static_cast<std::size_t>(length) > maxBytes_) needed_ = 0;
    if (length < 0) return fail("CCS reply has a negative length " + std::to_string(length));
    if (static_cast<std::size_t>(length) > maxBytes_)
      return fail("CCS reply length " + std::to_string(length) + " bytes is over the limit of " +
                  std::to_string(maxBytes_));
    needed_ = static_cast<std::size_t>(length);
    haveLength_ = true;
  }
  if (!fill(buffer_, needed_, input)) return std::nullopt;
  std::vector<std::uint8_t> data = std::move(buffer_);
  buffer_ = {};
  haveLength_ = false;
  needed_ = 4;
  return std::optional<std::vector<std::uint8_t>>(std::move(data));
}

}  // namespace mpidbg::ccs
