// Charm++'s CpdList requests and replies (see ListProtocol.hpp).
#include "ccs/proto/ListProtocol.hpp"

namespace mpidbg::ccs::proto {

std::vector<std::uint8_t> encodeListLenRequest(std::string_view path) {
  return encodeBinary(ListLenRequest{std::string(path)});
}

Expected<std::string> decodeListLenRequest(const std::vector<std::uint8_t>& body) {
  auto request = decodeBinary<ListLenRequest>(body);
  if (!request) return std::unexpected(request.error());
  return std::move(request->path);
}

std::vector<std::uint8_t> encodeListItemsRequest(const ListItemsRequest& request) { return encodeBinary(request); }

Expected<ListItemsRequest> decodeListItemsRequest(const std::vector<std::uint8_t>& body) {
  return decodeBinary<ListItemsRequest>(body);
}

std::vector<std::uint8_t> encodeListLength(std::int32_t length) { return encodeBinary(ListLength{length}); }

Expected<std::int32_t> decodeListLength(const std::vector<std::uint8_t>& reply) {
  auto length = decodeBinary<ListLength>(reply);
  if (!length) return std::unexpected(length.error());
  return length->length;
}

std::vector<std::uint8_t> encodeListError(std::string_view reason) {
  const std::string text = std::string(kListErrorPrefix) + std::string(reason);
  return std::vector<std::uint8_t>(text.begin(), text.end());
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
