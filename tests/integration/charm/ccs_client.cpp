// Charm++'s own CCS client (libccs-client of the Charm++ in ../shared/peers)
// driven from the command line, for tests that check an MPI program under
// mpidbg's runtime in Charm-compatible mode answers Charm++'s clients
// (issue 26). Built by tests/integration/cases/charm.sh with Charm++'s
// headers and library; everything on the wire is Charm++'s code.
//
// Usage: ccs_client HOST PORT [--key KEY] OP...
//   KEY            the key as in a ++server-auth file (level 0)
// Each OP prints one line (or a block for list), in order:
//   info                    "pes N nodes M" (ccs_getinfo, at connect)
//   status:PE               "pe P running|frozen" per record (PE -1: broadcast)
//   call:PE:HANDLER[:TEXT]  "reply N bytes: HEX" (PE -1: broadcast)
//   send:PE:HANDLER         sends without reading a reply: "sent"
//   int:PE:HANDLER:TEXT     the reply as a native int: "int V" (bp/set)
//   list:PE:PATH            "length N", then items 0..N-1 as .txt
//   sleep:MS
// Exits 0, or 1 with a line on stderr when an operation fails.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ccs-client.h"

namespace {

std::vector<std::string> split(const std::string& text, std::size_t most) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (out.size() + 1 < most) {
    const std::size_t colon = text.find(':', start);
    if (colon == std::string::npos) break;
    out.push_back(text.substr(start, colon - start));
    start = colon + 1;
  }
  out.push_back(text.substr(start));
  return out;
}

void appendInt(std::vector<char>& out, int value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

int readInt(const unsigned char* p) { return (p[0] << 24) | (p[1] << 16) | (p[2] << 8) | p[3]; }

bool request(CcsServer& server, int pe, const std::string& handler, const std::vector<char>& data) {
  const int sent = pe == -1 ? CcsSendBroadcastRequest(&server, handler.c_str(), static_cast<int>(data.size()), data.data())
                            : CcsSendRequest(&server, handler.c_str(), pe, static_cast<int>(data.size()), data.data());
  if (sent == -1) std::fprintf(stderr, "ccs_client: cannot send %s to pe %d\n", handler.c_str(), pe);
  return sent != -1;
}

/// The reply, or false (printed) when none came within 10 s.
bool response(CcsServer& server, std::vector<unsigned char>& out) {
  void* buffer = nullptr;
  int size = 0;
  if (CcsRecvResponseMsg(&server, &size, &buffer, 10) == -1) {
    std::fprintf(stderr, "ccs_client: no reply\n");
    return false;
  }
  out.assign(static_cast<unsigned char*>(buffer), static_cast<unsigned char*>(buffer) + size);
  std::free(buffer);
  return true;
}

bool call(CcsServer& server, int pe, const std::string& handler, const std::vector<char>& data,
          std::vector<unsigned char>& out) {
  return request(server, pe, handler, data) && response(server, out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: ccs_client HOST PORT [--key KEY] OP...\n");
    return 2;
  }
  int first = 3;
  CcsSec_secretKey key;
  const CcsSec_secretKey* keyPtr = nullptr;
  if (std::strcmp(argv[3], "--key") == 0 && argc > 4) {
    if (!CCS_AUTH_makeSecretKey(argv[4], &key)) {
      std::fprintf(stderr, "ccs_client: bad key\n");
      return 2;
    }
    keyPtr = &key;
    first = 5;
  }
  CcsServer server;
  if (CcsConnect(&server, argv[1], std::atoi(argv[2]), keyPtr) == -1) {
    std::fprintf(stderr, "ccs_client: cannot connect to %s:%s\n", argv[1], argv[2]);
    return 1;
  }
  for (int i = first; i < argc; ++i) {
    const std::vector<std::string> op = split(argv[i], 4);
    std::vector<unsigned char> reply;
    if (op[0] == "info") {
      std::printf("pes %d nodes %d\n", CcsNumPes(&server), CcsNumNodes(&server));
    } else if (op[0] == "status" && op.size() == 2) {
      if (!call(server, std::atoi(op[1].c_str()), "debug/converse/status", {}, reply)) return 1;
      for (std::size_t at = 0; at + 8 <= reply.size(); at += 8)
        std::printf("pe %d %s\n", readInt(&reply[at]), readInt(&reply[at + 4]) ? "running" : "frozen");
    } else if (op[0] == "call" && op.size() >= 3) {
      const std::string text = op.size() > 3 ? op[3] : "";
      std::vector<char> data(text.begin(), text.end());
      if (!text.empty()) data.push_back(0);
      if (!call(server, std::atoi(op[1].c_str()), op[2], data, reply)) return 1;
      std::printf("reply %zu bytes:", reply.size());
      for (unsigned char c : reply) std::printf(" %02x", c);
      std::printf("\n");
    } else if (op[0] == "send" && op.size() == 3) {
      if (!request(server, std::atoi(op[1].c_str()), op[2], {})) return 1;
      CcsNoResponse(&server);
      std::printf("sent\n");
    } else if (op[0] == "int" && op.size() == 4) {
      std::vector<char> data(op[3].begin(), op[3].end());
      data.push_back(0);
      if (!call(server, std::atoi(op[1].c_str()), op[2], data, reply)) return 1;
      int value = 0;
      if (reply.size() != sizeof value) {
        std::fprintf(stderr, "ccs_client: %s: a reply of %zu bytes\n", op[2].c_str(), reply.size());
        return 1;
      }
      std::memcpy(&value, reply.data(), sizeof value);
      std::printf("int %d\n", value);
    } else if (op[0] == "list" && op.size() == 3) {
      const int pe = std::atoi(op[1].c_str());
      const std::string& path = op[2];
      std::vector<char> lenRequest;
      appendInt(lenRequest, static_cast<int>(path.size()));
      lenRequest.insert(lenRequest.end(), path.begin(), path.end());
      if (!call(server, pe, "ccs_list_len", lenRequest, reply) || reply.size() != 4) return 1;
      const int length = readInt(reply.data());
      std::printf("length %d\n", length);
      std::vector<char> itemsRequest;
      appendInt(itemsRequest, 0);
      appendInt(itemsRequest, length);
      appendInt(itemsRequest, 0);
      appendInt(itemsRequest, static_cast<int>(path.size()));
      itemsRequest.insert(itemsRequest.end(), path.begin(), path.end());
      if (!call(server, pe, "ccs_list_items.txt", itemsRequest, reply)) return 1;
      std::fwrite(reply.data(), 1, reply.empty() || reply.back() != 0 ? reply.size() : reply.size() - 1, stdout);
      std::printf("\n");
    } else if (op[0] == "sleep" && op.size() == 2) {
      usleep(static_cast<useconds_t>(std::atoi(op[1].c_str())) * 1000);
    } else {
      std::fprintf(stderr, "ccs_client: unknown operation '%s'\n", argv[i]);
      return 2;
    }
    std::fflush(stdout);
  }
  CcsFinalize(&server);
  return 0;
}
