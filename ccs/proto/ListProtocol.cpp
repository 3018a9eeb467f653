// Charm++'s CpdList requests and replies (see ListProtocol.hpp).
#include "ccs/proto/ListProtocol.hpp"

#include <algorithm>

namespace mpidbg::ccs::proto {

namespace {

/// Appends a big-endian 32-bit integer (Charm++ ships CpdList ints in network order).
void putBigEndian32(std::vector<std::uint8_t>& out, std::int32_t value) {
  const auto u = static_cast<std::uint32_t>(value);
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(u >> shift));
}

/// Reads the request body front to back; every read checks the bounds.
class BodyReader {
 public:
  explicit BodyReader(const std::vector<std::uint8_t>& body) : body_(body) {}

  Expected<std::int32_t> readInt(std::string_view what) {
    if (body_.size() - at_ < 4) return fail("bad list request: the body ends before " + std::string(what));
    std::uint32_t u = 0;
    for (int i = 0; i < 4; ++i) u = (u << 8) | body_[at_++];
    return static_cast<std::int32_t>(u);
  }

  Expected<std::vector<std::uint8_t>> readBytes(std::size_t n, std::string_view what) {
    if (body_.size() - at_ < n) return fail("bad list request: the body ends inside " + std::string(what));
    std::vector<std::uint8_t> out(body_.begin() + static_cast<std::ptrdiff_t>(at_),
                                  body_.begin() + static_cast<std::ptrdiff_t>(at_ + n));
    at_ += n;
    return out;
  }

  /// [pathLen][path][optional NUL], and nothing after.
  Expected<std::string> readPath() {
    auto length = readInt("the path length");
    if (!length) return std::unexpected(length.error());
    if (*length < 0 || static_cast<std::size_t>(*length) > kMaxListPath)
      return fail("bad list request: path length " + std::to_string(*length) + " (at most " +
                  std::to_string(kMaxListPath) + ")");
    auto bytes = readBytes(static_cast<std::size_t>(*length), "the path");
    if (!bytes) return std::unexpected(bytes.error());
    if (std::find(bytes->begin(), bytes->end(), 0) != bytes->end())
      return fail("bad list request: NUL inside the path");
    if (at_ < body_.size() && body_[at_] == 0) ++at_;
    if (at_ != body_.size())
      return fail("bad list request: " + std::to_string(body_.size() - at_) +
                  (body_.size() - at_ == 1 ? " byte" : " bytes") + " after the path");
    return std::string(bytes->begin(), bytes->end());
  }

 private:
  const std::vector<std::uint8_t>& body_;
  std::size_t at_ = 0;
};

}  // namespace

std::vector<std::uint8_t> encodeListLenRequest(std::string_view path) {
  std::vector<std::uint8_t> out;
  putBigEndian32(out, static_cast<std::int32_t>(path.size()));
  out.insert(out.end(), path.begin(), path.end());
  out.push_back(0);
  return out;
}

Expected<std::string> decodeListLenRequest(const std::vector<std::uint8_t>& body) {
  return BodyReader(body).readPath();
}

std::vector<std::uint8_t> encodeListItemsRequest(const ListItemsRequest& request) {
  std::vector<std::uint8_t> out;
  putBigEndian32(out, request.lo);
  putBigEndian32(out, request.hiPlus1);
  putBigEndian32(out, static_cast<std::int32_t>(request.extra.size()));
  out.insert(out.end(), request.extra.begin(), request.extra.end());
  putBigEndian32(out, static_cast<std::int32_t>(request.path.size()));
  out.insert(out.end(), request.path.begin(), request.path.end());
  out.push_back(0);
  return out;
}

Expected<ListItemsRequest> decodeListItemsRequest(const std::vector<std::uint8_t>& body) {
  BodyReader reader(body);
  ListItemsRequest request;
  auto lo = reader.readInt("lo");
  if (!lo) return std::unexpected(lo.error());
  auto hi = reader.readInt("hi+1");
  if (!hi) return std::unexpected(hi.error());
  auto extraLength = reader.readInt("the extra length");
  if (!extraLength) return std::unexpected(extraLength.error());
  if (*lo < 0) return fail("bad list request: lo " + std::to_string(*lo) + " is negative");
  if (*hi < *lo)
    return fail("bad list request: hi+1 " + std::to_string(*hi) + " is below lo " + std::to_string(*lo));
  if (*hi - *lo > kMaxListItems)
    return fail("bad list request: " + std::to_string(*hi - *lo) + " items asked (at most " +
                std::to_string(kMaxListItems) + ")");
  if (*extraLength < 0 || static_cast<std::size_t>(*extraLength) > kMaxListExtra)
    return fail("bad list request: extra length " + std::to_string(*extraLength) + " (at most " +
                std::to_string(kMaxListExtra) + ")");
  auto extra = reader.readBytes(static_cast<std::size_t>(*extraLength), "the extra bytes");
  if (!extra) return std::unexpected(extra.error());
  auto path = reader.readPath();
  if (!path) return std::unexpected(path.error());
  request.lo = *lo;
  request.hiPlus1 = *hi;
  request.extra = std::move(*extra);
  request.path = std::move(*path);
  return request;
}

std::vector<std::uint8_t> encodeListLength(std::int32_t length) {
  std::vector<std::uint8_t> out;
  putBigEndian32(out, length);
  return out;
}

Expected<std::int32_t> decodeListLength(const std::vector<std::uint8_t>& reply) {
  if (reply.size() != 4)
    return fail("bad ccs_list_len reply: " + std::to_string(reply.size()) + " bytes (expected 4)");
  std::uint32_t u = 0;
  for (std::uint8_t b : reply) u = (u << 8) | b;
  return static_cast<std::int32_t>(u);
}

std::vector<std::uint8_t> encodeListError(std::string_view reason) {
  std::vector<std::uint8_t> out(kListErrorPrefix.begin(), kListErrorPrefix.end());
  out.insert(out.end(), reason.begin(), reason.end());
  return out;
}

std::optional<std::string> listErrorOf(const std::vector<std::uint8_t>& reply) {
  const std::string_view text(reinterpret_cast<const char*>(reply.data()), reply.size());
  if (!text.starts_with(kListErrorPrefix)) return std::nullopt;
  return std::string(text.substr(kListErrorPrefix.size()));
}

Expected<std::vector<pupfmt::Node>> decodeListItems(const std::vector<std::uint8_t>& reply) {
  if (auto error = listErrorOf(reply)) return fail(*error);
  auto node = pupfmt::decode(std::span<const std::uint8_t>(reply.data(), reply.size()));
  if (!node) return fail("bad list reply: " + node.error().message);
  if (node->kind != pupfmt::Node::Kind::List) return fail("bad list reply: not a CpdList");
  return std::move(node->children);
}

}  // namespace mpidbg::ccs::proto
