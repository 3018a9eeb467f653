#include "debugger/core/charm/CharmLink.hpp"

#include "ccs/proto/NodeTable.hpp"
#include "ccs/transport/Client.hpp"
#include "ccs/transport/Frame.hpp"

namespace mpidbg::core::charm {

namespace {

ccs::Request requestTo(std::string_view handler, int pe, const std::vector<std::uint8_t>& data) {
  ccs::Request request;
  request.pe = pe;
  request.handler = std::string(handler);
  request.data = data;
  return request;
}

}  // namespace

CharmLink::CharmLink(ccs::Endpoint server, std::optional<ccs::CharmKey> key)
    : server_(std::move(server)), key_(key) {}

Expected<void> CharmLink::ensureSession() {
  if (!key_ || session_) return {};
  auto session = ccs::CharmAuthClient::handshake(server_, 0, *key_, timeout);
  if (!session) return std::unexpected(session.error());
  session_ = *session;
  return {};
}

Expected<std::vector<std::uint8_t>> CharmLink::call(std::string_view handler, int pe,
                                                    const std::vector<std::uint8_t>& data) {
  return call(handler, pe, data, timeout);
}

Expected<std::vector<std::uint8_t>> CharmLink::call(std::string_view handler, int pe,
                                                    const std::vector<std::uint8_t>& data,
                                                    std::chrono::milliseconds limit) {
  const ccs::Request request = requestTo(handler, pe, data);
  std::lock_guard lock(mutex_);
  if (!key_) return ccs::Client::call(server_, request, limit);
  if (auto ok = ensureSession(); !ok) return std::unexpected(ok.error());
  auto reply = ccs::CharmAuthClient::call(server_, *session_, request, limit);
  // A request the server refused leaves its salt count unknown: a new
  // handshake before the next one.
  if (!reply) session_.reset();
  return reply;
}

Expected<void> CharmLink::send(std::string_view handler, int pe, const std::vector<std::uint8_t>& data) {
  const ccs::Request request = requestTo(handler, pe, data);
  std::lock_guard lock(mutex_);
  if (!key_) return ccs::Client::send(server_, request, timeout);
  if (auto ok = ensureSession(); !ok) return ok;
  auto sent = ccs::CharmAuthClient::send(server_, *session_, request, timeout);
  if (!sent) session_.reset();
  return sent;
}

Expected<std::vector<int>> CharmLink::peCounts() {
  auto reply = call(ccs::proto::kGetInfoHandler, 0);
  if (!reply) return std::unexpected(reply.error());
  auto table = ccs::proto::decodeBinary<ccs::proto::NodeTable>(*reply);
  if (!table) return std::unexpected(table.error());
  return std::vector<int>(table->pesPerNode.begin(), table->pesPerNode.end());
}

}  // namespace mpidbg::core::charm
