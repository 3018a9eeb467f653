// Writes the seed corpus of every fuzz target (tests/fuzz/corpus/<target>/):
// client and server byte streams of the CCS captures for the framing and
// Charm++ SHA-1 targets, and records made with the real encoders for the
// envelope and rank-protocol targets. Usage: fuzz_seeds VECTORS_DIR CORPUS_DIR
// (VECTORS_DIR must be the MPIDBG_VECTORS_DIR it was built with).
// Run by hand when formats change; the output is committed.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../unit/ccs/Transcript.hpp"
#include "ccs/tree/ForwardEnvelope.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "runtime/include/mpidbg/pup.hpp"

namespace fs = std::filesystem;
using namespace mpidbg::ccs;
using Bytes = std::vector<std::uint8_t>;

namespace {

void write(const fs::path& dir, const std::string& name, const Bytes& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

void write(const fs::path& dir, const std::string& name, const std::string& text) {
  write(dir, name, Bytes(text.begin(), text.end()));
}

void captureSeeds(const fs::path& vectors, const fs::path& corpus) {
  for (const auto& entry : fs::directory_iterator(vectors)) {
    if (entry.path().extension() != ".txt") continue;
    std::string stem = entry.path().stem().string();
    auto transcript = test::readTranscript(entry.path().filename().string());
    if (!transcript.ok) continue;
    bool secure = stem.starts_with("08") || stem.starts_with("10");
    for (std::size_t i = 0; i < transcript.connections.size(); ++i) {
      const auto& c = transcript.connections[i];
      std::string name = stem + "_" + std::to_string(i);
      if (!c.client.empty())
        write(corpus / (secure ? "charm_auth_server" : "frame"), name + "_c", c.client);
      if (!c.server.empty() && !secure) write(corpus / "frame", name + "_s", c.server);
    }
  }
}

void envelopeSeeds(const fs::path& dir) {
  ForwardRequest request;
  request.deadline = std::chrono::milliseconds(1500);
  request.fanOut = 2;
  request.inner.pe = -1;
  request.inner.handler = "debug/converse/status";
  request.inner.data = {0};
  for (std::int32_t pe = 0; pe < 7; ++pe)
    request.table.push_back(PeerEntry{pe, "127.0.0.1", static_cast<std::uint16_t>(4000 + pe)});
  write(dir, "request_broadcast", encodeForwardRequest(request).value());
  request.inner.pe = -2;
  request.inner.multicastPes = {3, 1};
  request.table = {{3, "node-3", 4003}, {1, "::1", 4001}};
  write(dir, "request_multicast", encodeForwardRequest(request).value());

  ForwardReply reply;
  reply.answered = 4;
  reply.missing = {{1, "no reply within 900 ms"}, {2, "behind PE 1: no reply within 900 ms"}};
  reply.payload = {0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 4, 0, 0, 0, 1};
  write(dir, "reply_status", encodeForwardReply(reply));
  ForwardReply failed;
  failed.error = "handler 'x' has no merge rule, so a reply from many PEs cannot be merged";
  write(dir, "reply_error", encodeForwardReply(failed));
  // Merge-shaped inputs: rule byte, part length, parts.
  write(dir, "merge_and", Bytes{1, 4, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff});
  write(dir, "merge_sum_ragged", Bytes{5, 8, 1, 0, 0, 0, 2, 0, 0, 0, 0x83, 0, 0, 0});
}

void rankProtocolSeeds(const fs::path& dir) {
  proto::RankStatus status;
  status.rank = 3;
  status.size = 8;
  status.state = proto::RankState::InMpi;
  status.mpiCalls = 42;
  proto::MpiCall call;
  call.function = "MPI_Recv";
  call.peerRole = "source";
  call.peer = -1;
  call.hasTag = true;
  call.tag = 7;
  call.commName = "MPI_COMM_WORLD";
  status.call = call;
  write(dir, "status", proto::encode(status));
  proto::CommState comm;
  comm.name = "MPI_COMM_WORLD";
  comm.size = 8;
  comm.counts[1] = 3;
  comm.active[1] = true;
  std::vector<proto::CommState> comms = {comm, comm};
  write(dir, "comm_states", proto::encode(std::span<const proto::CommState>(comms)));
  proto::Registration registration;
  registration.host = "node=1\\n";
  registration.mpiLibrary = "MPICH Version: 4.0\nline two";
  registration.mac = "00ff";
  write(dir, "registration", proto::encode(registration));
  proto::Event event;
  event.kind = proto::Event::Kind::Abort;
  event.code = 3;
  event.text = "bad input";
  write(dir, "event", proto::encode(event));
}

/// A PUP-able object with nested containers for the pup_fmt seeds.
struct PupSeed {
  struct Cell {
    double x = 0.5;
    float y = -1.25f;
    unsigned long id = 7;
    void pup(PUP::er& p) {
      PUP(x);
      PUP(y);
      PUP(id);
    }
  };
  int nx = 3;
  std::string name = "grid";
  std::vector<Cell> cells = {Cell{}, Cell{}};
  std::map<std::string, std::vector<int>> index = {{"a", {1, 2}}, {"b", {}}};
  std::optional<bool> flag = true;
  int fixed[3] = {4, 5, 6};
  void pup(PUP::er& p) {
    PUP(nx);
    PUP(name);
    PUP(cells);
    PUP(index);
    PUP(flag);
    PUP(fixed);
    p.comment("self");
    p.pointer(reinterpret_cast<const void*>(std::uintptr_t{0x7ffd0000beef}));
  }
};

void pupFmtSeeds(const fs::path& vectors, const fs::path& dir) {
  auto transcript = test::readTranscript(
      (vectors / "05c_list_items_fmt_charm_entries_0_4.txt").filename().string());
  if (transcript.ok && transcript.connections.at(0).server.size() > 4) {
    const auto& server = transcript.connections[0].server;
    write(dir, "05c_charm_entries", Bytes(server.begin() + 4, server.end()));
  }
  PupSeed seed;
  PUP::fmtWriter nested;
  nested | seed;
  write(dir, "nested_object", nested.bytes());
  PUP::fmtWriter list;
  PUP::beginList(list);
  for (int i = 0; i < 2; ++i) PUP::listItem(list, seed);
  PUP::endList(list);
  write(dir, "cpdlist", list.bytes());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: fuzz_seeds VECTORS_DIR CORPUS_DIR\n");
    return 2;
  }
  fs::path corpus = argv[2];
  captureSeeds(argv[1], corpus);
  envelopeSeeds(corpus / "forward_envelope");
  rankProtocolSeeds(corpus / "rank_protocol");
  pupFmtSeeds(argv[1], corpus / "pup_fmt");
  return 0;
}
