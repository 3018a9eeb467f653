#pragma once

// Inputs of the hang verdict (debugger/core/HangReport.hpp) built in one
// line: ranks, communicators and the calls they are in, for the verdict's
// tests (tests/unit/core/Hang*Tests.cpp).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "debugger/core/HangReport.hpp"

namespace hang_builders {

namespace proto = mpidbg::ccs::proto;
using mpidbg::core::HangVerdict;

/// MPI_COMM_WORLD's handle in these inputs.
inline constexpr std::uint64_t kWorld = 0x44000000;

/// MPI_COMM_WORLD of `size` ranks as rank `rank` sees it, `collSeq`
/// collectives into its sequence.
inline proto::CommQueues world(int rank, int size, std::uint64_t collSeq) {
  proto::CommQueues c;
  c.state.handle = kWorld;
  c.state.rootWorldRank = 0;
  c.state.size = size;
  c.state.localRank = rank;
  c.state.name = "MPI_COMM_WORLD";
  c.collSeq = collSeq;
  for (int r = 0; r < size; ++r) c.worldRanks.push_back(r);
  return c;
}

/// A communicator over the same ranks as world(), with its own `handle`,
/// `name` and `uid` (0: none), as MPI_Comm_dup makes one.
inline proto::CommQueues worldCopy(int rank, int size, std::uint64_t collSeq, std::uint64_t handle,
                                  const std::string& name, std::uint64_t uid = 0) {
  proto::CommQueues c = world(rank, size, collSeq);
  c.state.handle = handle;
  c.state.name = name;
  c.state.uid = uid;
  return c;
}

/// An intercommunicator of handle `handle` as the member of local rank
/// `localRank` holds it, `collSeq` collectives into its sequence: described
/// by its `remote` group's world ranks, as the runtime registers one
/// (runtime/CommRegistry.cpp describeComm), with no uid.
inline proto::CommQueues interComm(int localRank, const std::vector<int>& remote, std::uint64_t collSeq,
                                   std::uint64_t handle, const std::string& name = "inter") {
  proto::CommQueues c;
  c.state.handle = handle;
  c.state.rootWorldRank = remote.empty() ? -1 : remote.front();
  c.state.size = static_cast<std::int32_t>(remote.size());
  c.state.localRank = localRank;
  c.state.name = name;
  c.collSeq = collSeq;
  c.worldRanks.assign(remote.begin(), remote.end());
  return c;
}

/// A rank inside call number `callNo` of its class to collective `fn`
/// (`root` -1: unrooted) on `comm`.
inline proto::MpiCall collective(const std::string& fn, std::uint64_t callNo, int root = -1,
                                 std::uint64_t comm = kWorld, const std::string& name = "MPI_COMM_WORLD") {
  proto::MpiCall c;
  c.function = fn;
  c.comm = comm;
  c.commName = name;
  c.collCall = callNo;
  if (root >= 0) {
    c.peerRole = "root";
    c.peer = root;
  }
  return c;
}

/// A rank inside point-to-point `fn` whose peer is its `role` argument
/// ("source", "dest", "target") `peer`, with `tag`, on `comm`.
inline proto::MpiCall p2p(const std::string& fn, const std::string& role, int peer, int tag,
                          std::uint64_t comm = kWorld, const std::string& name = "MPI_COMM_WORLD") {
  proto::MpiCall c;
  c.function = fn;
  c.peerRole = role;
  c.peer = peer;
  c.hasTag = true;
  c.tag = tag;
  c.comm = comm;
  c.commName = name;
  return c;
}

/// A rank inside `fn`, with no peer or communicator.
inline proto::MpiCall plainCall(const std::string& fn) {
  proto::MpiCall c;
  c.function = fn;
  return c;
}

/// A rank inside MPI_Finalize.
inline proto::MpiCall finalizeCall() { return plainCall("MPI_Finalize"); }

/// World rank `r` of `size`, with world() as its only communicator, inside
/// `call` (nullopt: not in MPI), `history` its recent collectives.
inline proto::RankQueues rank(int r, int size, std::uint64_t collSeq, std::optional<proto::MpiCall> call,
                              std::vector<proto::CollRecord> history = {}) {
  proto::RankQueues q;
  q.worldRank = r;
  q.comms.push_back(world(r, size, collSeq));
  q.call = std::move(call);
  q.history = std::move(history);
  q.source = "test";
  return q;
}

/// Collective number `seq` of a history, `fn` on `comm`, one element.
inline proto::CollRecord rec(std::uint64_t seq, const std::string& fn, int root = -1, std::uint64_t comm = kWorld) {
  return proto::CollRecord{comm, seq, fn, root, 1};
}

/// A pending MPI_Irecv on MPI_COMM_WORLD from `source` (-1: any) with `tag`
/// (-1: any) of `count` elements, request handle `request`; `waited` when the
/// rank is inside an MPI_Wait*/Test* on it.
inline proto::PendingOp irecvOp(int source, int tag, int count, std::uint64_t request, bool waited = false) {
  proto::PendingOp irecv;
  irecv.kind = proto::PendingOp::Kind::Recv;
  irecv.function = "MPI_Irecv";
  irecv.peer = source;
  irecv.tag = tag;
  irecv.count = count;
  irecv.request = request;
  irecv.waited = waited;
  irecv.comm = kWorld;
  return irecv;
}

/// True when the verdict has a wait-for edge from rank `from` to `to`.
inline bool hasEdge(const HangVerdict& v, int from, int to) {
  for (const auto& e : v.edges)
    if (e.from == from && e.to == to) return true;
  return false;
}


}  // namespace hang_builders
