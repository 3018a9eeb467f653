// mpidbg-ccs: send one CCS request and print the reply. Speaks Charm++'s plain
// mode, Charm++'s SHA-1 authenticated mode (key file as Charm++'s
// ++server-auth), and mpidbg's TLS 1.3 mode (the session key file).
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include "ccs/proto/NodeTable.hpp"
#include "ccs/transport/Auth.hpp"
#include "ccs/transport/CharmAuthClient.hpp"
#include "ccs/transport/CharmKeyFile.hpp"
#include "ccs/transport/Client.hpp"
#include "ccs/transport/Connection.hpp"
#include "mpidbg/Text.hpp"

using namespace mpidbg;
using namespace std::chrono;

namespace {

void printReply(const std::vector<std::uint8_t>& reply, const std::string& format) {
  if (format == "getinfo") {
    auto table = ccs::proto::decodeBinary<ccs::proto::NodeTable>(reply);
    if (!table) {
      std::printf("(%s; %zu bytes)\n", table.error().message.c_str(), reply.size());
      return;
    }
    std::printf("nodes: %zu\npes per node:", table->pesPerNode.size());
    for (const std::int32_t pes : table->pesPerNode) std::printf(" %d", pes);
    std::printf("\n");
    return;
  }
  bool printable = true;
  for (std::size_t i = 0; i < reply.size(); ++i) {
    const unsigned char c = reply[i];
    const bool trailingNul = c == 0 && i + 1 == reply.size();
    if (!trailingNul && !std::isprint(c) && c != '\n' && c != '\t') printable = false;
  }
  if (format == "text" || (format == "auto" && printable)) {
    std::fwrite(reply.data(), 1, reply.size(), stdout);
    if (!reply.empty() && reply.back() != '\n') std::printf("\n");
    return;
  }
  for (std::size_t i = 0; i < reply.size(); i += 16) {
    std::printf("%08zx ", i);
    for (std::size_t j = i; j < i + 16 && j < reply.size(); ++j) std::printf(" %02x", reply[j]);
    std::printf("\n");
  }
  std::printf("(%zu bytes)\n", reply.size());
}

Expected<std::vector<std::uint8_t>> readSessionKey(const std::string& path) {
  std::ifstream in(path);
  if (!in) return fail("cannot read key file " + path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto key = fromHex(trim(text));
  if (!key || key->size() != kSessionKeyBytes)
    return fail("key file " + path + " does not hold 64 hex digits (an mpidbg session key)");
  return key;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"mpidbg-ccs: send one CCS (Converse Client-Server) request and print the reply.\n"
               "  mpidbg-ccs 127.0.0.1:1234 ccs_getinfo --format getinfo\n"
               "  mpidbg-ccs --charm-key-file auth.txt 127.0.0.1:1234 debug/converse/status --broadcast\n"
               "  mpidbg-ccs 127.0.0.1:1234 debug/converse/freeze --broadcast --no-reply\n"
               "  mpidbg-ccs --tls-key-file /tmp/mpidbg-XXXX/key 127.0.0.1:40000 mpidbg/status --pe 3",
               "mpidbg-ccs"};
  std::string server, handler, data, dataHex, charmKeyFile, tlsKeyFile, format = "auto";
  int pe = 0, level = 0;
  long timeoutMs = 5000;
  bool broadcast = false, hexKey = false, noReply = false;
  std::vector<int> multicast;
  app.add_option("server", server, "HOST:PORT of the CCS server")->required();
  app.add_option("handler", handler, "Handler name (at most 31 characters)")->required();
  app.add_option("--pe", pe, "Destination PE")->capture_default_str();
  app.add_flag("--broadcast", broadcast, "Send to every PE (pe -1)");
  app.add_option("--multicast", multicast,
                 "Send to these PEs (pe -k with the list; one PE is sent as a request to that PE, as Charm++'s "
                 "client does)")
      ->delimiter(',');
  app.add_flag("--no-reply", noReply,
               "Send and do not wait for a reply, for handlers that never answer (Charm++'s "
               "debug/converse/freeze); plain and SHA-1 modes");
  app.add_option("--data", data, "Request data, as text");
  app.add_option("--data-hex", dataHex, "Request data, as hex digits");
  app.add_option("--charm-key-file", charmKeyFile, "Charm++ ++server-auth key file: SHA-1 authenticated mode");
  app.add_option("--level", level, "Security level in the Charm++ key file")->capture_default_str();
  app.add_flag("--hex-key", hexKey, "Read Charm++ key digits as hex (its Java client) instead of decimal pairs");
  app.add_option("--tls-key-file", tlsKeyFile, "mpidbg session key file: TLS 1.3 with that key");
  app.add_option("--format", format, "Reply as auto, text, hex or getinfo")
      ->check(CLI::IsMember({"auto", "text", "hex", "getinfo"}))->capture_default_str();
  app.add_option("--timeout", timeoutMs, "Milliseconds for the whole exchange")->capture_default_str();
  CLI11_PARSE(app, argc, argv);

  auto endpoint = ccs::Endpoint::parse(server);
  if (!endpoint) {
    std::fprintf(stderr, "error: %s\n", endpoint.error().message.c_str());
    return 64;
  }
  ccs::Request request;
  request.handler = handler;
  request.pe = broadcast ? ccs::kBroadcastPe : pe;
  if (multicast.size() == 1) {
    request.pe = multicast.front();  // Charm++'s CcsSendRequestGeneric: one PE is a plain request to it
  } else if (!multicast.empty()) {
    request.multicastPes.assign(multicast.begin(), multicast.end());
    request.pe = -static_cast<std::int32_t>(multicast.size());
  }
  if (noReply && !tlsKeyFile.empty()) {
    std::fprintf(stderr, "error: --no-reply is for Charm++ servers (plain and SHA-1): an mpidbg rank answers "
                         "every request\n");
    return 64;
  }
  if (!dataHex.empty()) {
    auto bytes = fromHex(dataHex);
    if (!bytes) {
      std::fprintf(stderr, "error: --data-hex: %s\n", bytes.error().message.c_str());
      return 64;
    }
    request.data = std::move(*bytes);
  } else {
    request.data.assign(data.begin(), data.end());
  }
  const milliseconds timeout(timeoutMs);

  Expected<std::vector<std::uint8_t>> reply = fail("no mode");
  Expected<void> sent = fail("no request sent");  // --no-reply
  if (!charmKeyFile.empty()) {
    auto keys = ccs::loadCharmKeyFile(charmKeyFile, hexKey ? ccs::KeyDigits::Hex : ccs::KeyDigits::Decimal);
    if (!keys) {
      std::fprintf(stderr, "error: %s\n", keys.error().message.c_str());
      return 64;
    }
    for (const auto& note : keys->notes) std::fprintf(stderr, "note: %s: %s\n", charmKeyFile.c_str(), note.c_str());
    const ccs::CharmKey* key = keys->find(static_cast<std::uint8_t>(level));
    if (key == nullptr) {
      std::fprintf(stderr, "error: %s has no key for level %d\n", charmKeyFile.c_str(), level);
      return 64;
    }
    auto session = ccs::CharmAuthClient::handshake(*endpoint, static_cast<std::uint8_t>(level), *key, timeout);
    if (session && noReply) {
      sent = ccs::CharmAuthClient::send(*endpoint, *session, request, timeout);
    } else {
      reply = session ? ccs::CharmAuthClient::call(*endpoint, *session, request, timeout)
                      : Expected<std::vector<std::uint8_t>>(std::unexpected(session.error()));
      if (!reply && reply.error().message.find("before sending its challenge") != std::string::npos)
        reply.error().message += " (an mpidbg rank in TLS mode, the default, closes so: use --tls-key-file)";
    }
  } else if (!tlsKeyFile.empty()) {
    auto key = readSessionKey(tlsKeyFile);
    if (!key) {
      std::fprintf(stderr, "error: %s\n", key.error().message.c_str());
      return 64;
    }
    auto connection = ccs::Connection::open(
        *endpoint, ccs::Security{ccs::SecurityMode::Tls, *key, "mpidbg-session"}, timeout);
    reply = connection ? (*connection)->call(request, timeout)
                       : Expected<std::vector<std::uint8_t>>(std::unexpected(connection.error()));
  } else if (noReply) {
    sent = ccs::Client::send(*endpoint, request, timeout);
  } else {
    reply = ccs::Client::call(*endpoint, request, timeout);
    if (!reply && reply.error().message.ends_with("closed the connection without a reply"))
      reply.error().message +=
          " (its handler may send none: use --no-reply; an mpidbg rank in TLS mode, the default, closes a plain "
          "request so: use --tls-key-file; a Charm++ server with ++server-auth: use --charm-key-file)";
  }
  if (noReply) {
    if (!sent) {
      std::fprintf(stderr, "error: %s\n", sent.error().message.c_str());
      return 1;
    }
    return 0;
  }
  if (!reply) {
    std::fprintf(stderr, "error: %s\n", reply.error().message.c_str());
    return 1;
  }
  printReply(*reply, format);
  return 0;
}
