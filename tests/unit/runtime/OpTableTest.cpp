// The pending-operation table (runtime/OpTable.hpp) the runtime publishes to
// the front end and the mqs DLL: insertion, lookup, completion of plain,
// persistent and collective operations, removal, a stale handle's record
// replaced, slot reuse, overflow, and the snapshot in issue order. No MPI.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/CommTable.hpp"
#include "runtime/CurrentCall.hpp"
#include "runtime/ExportedState.hpp"
#include "runtime/OpTable.hpp"

namespace mpidbg::rt {
extern "C" {
// The state root's storage, which the runtime defines in ExportedState.cpp
// (not linked here: it needs MPI); OpTable::insert counts its overflow there.
constinit StateRoot mpidbg_rt_state{};
}
}  // namespace mpidbg::rt

namespace op_table_test {

using mpidbg::ccs::proto::PendingOp;
using mpidbg::rt::CommInfo;
using mpidbg::rt::CommRecord;
using mpidbg::rt::CommTable;
using mpidbg::rt::MpiFunction;
using mpidbg::rt::OpInit;
using mpidbg::rt::OpRecord;
using mpidbg::rt::OpTable;

/// A table on the heap: its 4,096 slots do not fit a test's stack.
std::unique_ptr<OpTable> newOpTable() { return std::make_unique<OpTable>(); }

OpInit opOf(std::uint64_t request, std::uint32_t kind, MpiFunction function, std::uint64_t issued,
            std::uint32_t flags = MPIDBG_OP_ACTIVE) {
  OpInit op;
  op.request = request;
  op.kind = kind;
  op.function = static_cast<std::uint32_t>(function);
  op.flags = flags;
  op.issued = issued;
  op.comm = 0x44000000;
  return op;
}

std::vector<std::uint64_t> requestsOf(const OpTable& table) {
  std::vector<std::uint64_t> out;
  for (const PendingOp& op : table.snapshot()) out.push_back(op.request);
  return out;
}

std::uint64_t overflow() { return mpidbg::rt::stateRoot().opOverflow.load(); }

TEST_CASE("OpTable records operations and reports them in issue order", "[runtime][ops]") {
  auto table = newOpTable();
  CHECK(table->empty());
  CHECK(table->snapshot().empty());
  CHECK(table->find(0x98000001) == nullptr);

  struct Row {
    OpInit op;
    PendingOp::Kind kind;
    std::string function;
    bool persistent, active, synchronous;
  };
  OpInit issend = opOf(0x98000004, MPIDBG_OP_SEND, MpiFunction::Isend, 4, MPIDBG_OP_ACTIVE | MPIDBG_OP_SYNCHRONOUS);
  issend.peer = 3;
  issend.tag = 11;
  issend.count = 8;
  issend.bytes = 64;
  issend.datatype = 0x4c00080b;
  issend.buffer = 0x7ffd0000;
  OpInit ibarrier = opOf(0x98000002, MPIDBG_OP_COLLECTIVE, MpiFunction::Ibarrier, 2);
  ibarrier.collClass = 0;
  ibarrier.collCall = 5;
  ibarrier.collSeq = 9;
  const std::vector<Row> rows = {
      // Inserted out of issue order: the snapshot sorts by `issued`.
      {issend, PendingOp::Kind::Send, "MPI_Isend", false, true, true},
      {opOf(0x98000003, MPIDBG_OP_RECV, MpiFunction::Irecv, 1), PendingOp::Kind::Recv, "MPI_Irecv", false, true,
       false},
      {ibarrier, PendingOp::Kind::Collective, "MPI_Ibarrier", false, true, false},
      {opOf(0x98000001, MPIDBG_OP_SEND, MpiFunction::SendInit, 3, MPIDBG_OP_PERSISTENT), PendingOp::Kind::Send,
       "MPI_Send_init", true, false, false},
      {opOf(0x98000005, MPIDBG_OP_RMA, MpiFunction::Rput, 5), PendingOp::Kind::Rma, "MPI_Rput", false, true, false},
  };
  for (const Row& row : rows) {
    OpRecord* record = table->insert(row.op);
    REQUIRE(record != nullptr);
    CHECK(table->find(row.op.request) == record);
    CHECK(record->state.load() == MPIDBG_SLOT_LIVE);
    CHECK(record->version.load() % 2 == 0);
  }
  CHECK_FALSE(table->empty());

  const std::vector<PendingOp> snapshot = table->snapshot();
  REQUIRE(snapshot.size() == rows.size());
  const std::vector<std::size_t> issueOrder = {1, 2, 3, 0, 4};  // rows by `issued`
  for (std::size_t i = 0; i < snapshot.size(); ++i) {
    const Row& row = rows[issueOrder[i]];
    const PendingOp& op = snapshot[i];
    INFO(row.function);
    CHECK(op.request == row.op.request);
    CHECK(op.kind == row.kind);
    CHECK(op.function == row.function);
    CHECK_FALSE(op.blocking);
    CHECK(op.persistent == row.persistent);
    CHECK(op.active == row.active);
    CHECK_FALSE(op.waited);
    CHECK(op.synchronous == row.synchronous);
    CHECK(op.comm == row.op.comm);
    CHECK(op.peer == row.op.peer);
    CHECK(op.tag == row.op.tag);
    CHECK(op.count == row.op.count);
    CHECK(op.bytes == row.op.bytes);
    CHECK(op.datatype == row.op.datatype);
    CHECK(op.buffer == row.op.buffer);
    CHECK(op.collClass == row.op.collClass);
    CHECK(op.collCall == row.op.collCall);
    CHECK(op.collSeq == row.op.collSeq);
  }
}

TEST_CASE("OpTable completion: plain operations go, persistent ones turn inactive, strangers are no-ops",
          "[runtime][ops]") {
  auto table = newOpTable();
  OpRecord* isend = table->insert(opOf(0x98000001, MPIDBG_OP_SEND, MpiFunction::Isend, 1));
  OpRecord* persistent =
      table->insert(opOf(0x98000002, MPIDBG_OP_RECV, MpiFunction::RecvInit, 2, MPIDBG_OP_PERSISTENT));
  OpRecord* irecv = table->insert(opOf(0x98000003, MPIDBG_OP_RECV, MpiFunction::Irecv, 3));
  REQUIRE(isend);
  REQUIRE(persistent);
  REQUIRE(irecv);

  enum class Act { Start, Wait, Complete, Remove };
  struct Row {
    const char* what;
    Act act;
    OpRecord* op;
    std::uint64_t request;
    bool completed;                        ///< complete()'s result
    std::vector<std::uint64_t> pending;    ///< snapshot afterwards, issue order
    std::uint32_t persistentFlags;         ///< flags of the persistent request afterwards
  };
  constexpr std::uint32_t P = MPIDBG_OP_PERSISTENT, A = MPIDBG_OP_ACTIVE, W = MPIDBG_OP_WAITED;
  const std::vector<Row> rows = {
      {"complete names another request: no-op", Act::Complete, isend, 0x98000003, false,
       {0x98000001, 0x98000002, 0x98000003}, P},
      {"Isend completes", Act::Complete, isend, 0x98000001, true, {0x98000002, 0x98000003}, P},
      {"completing it again: no-op", Act::Complete, isend, 0x98000001, false, {0x98000002, 0x98000003}, P},
      {"MPI_Start", Act::Start, persistent, 0x98000002, false, {0x98000003, 0x98000002}, P | A},
      {"waited on", Act::Wait, persistent, 0x98000002, false, {0x98000003, 0x98000002}, P | A | W},
      {"the persistent request completes: inactive, still there", Act::Complete, persistent, 0x98000002, true,
       {0x98000003, 0x98000002}, P},
      {"MPI_Request_free of another request: no-op", Act::Remove, irecv, 0x98000002, false,
       {0x98000003, 0x98000002}, P},
      {"MPI_Request_free", Act::Remove, persistent, 0x98000002, false, {0x98000003}, 0},
      {"Irecv completes", Act::Complete, irecv, 0x98000003, true, {}, 0},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    bool completed = false;
    switch (row.act) {
      case Act::Start: table->start(*row.op, 10); break;  // issued again later than the Irecv
      case Act::Wait: OpTable::setWaited(*row.op, true); break;
      case Act::Complete: completed = table->complete(*row.op, row.request); break;
      case Act::Remove: table->remove(*row.op, row.request); break;
    }
    CHECK(completed == row.completed);
    CHECK(requestsOf(*table) == row.pending);
    if (OpRecord* p = table->find(0x98000002)) CHECK(p->flags.load() == row.persistentFlags);
    else CHECK(row.persistentFlags == 0);
  }
  CHECK(table->empty());
  CHECK(table->find(0x98000001) == nullptr);
}

TEST_CASE("OpTable: a collective's completion counts its exit on its communicator while it is the same one",
          "[runtime][ops]") {
  auto comms = std::make_unique<CommTable>();
  CommInfo info;
  info.size = 4;
  info.name = "MPI_COMM_WORLD";
  CommRecord* comm = comms->add(0x44000000, info);
  REQUIRE(comm != nullptr);
  constexpr std::int32_t kClass = 3;

  struct Row {
    const char* what;
    bool reRegistered;   ///< the communicator's slot registered again before completion
    bool persistent;
    bool started;        ///< a persistent collective was started (MPI_Start)
    std::uint64_t exits; ///< exits counted by the completion
  };
  const std::vector<Row> rows = {
      {"nonblocking collective", false, false, true, 1},
      {"after its communicator was freed and its slot reused", true, false, true, 0},
      {"started persistent collective", false, true, true, 1},
      {"persistent collective never started", false, true, false, 0},
  };
  std::uint64_t request = 0x98000100;
  for (const Row& row : rows) {
    INFO(row.what);
    auto table = newOpTable();
    OpInit op = opOf(++request, MPIDBG_OP_COLLECTIVE, row.persistent ? MpiFunction::AllreduceInit : MpiFunction::Iallreduce,
                     1, row.persistent ? MPIDBG_OP_PERSISTENT : MPIDBG_OP_ACTIVE);
    op.collClass = kClass;
    op.commRecord = comm;
    op.commGeneration = comm->generation.load();
    OpRecord* record = table->insert(op);
    REQUIRE(record != nullptr);
    if (row.persistent && row.started) {
      table->startCollective(*record, 7, 4, 12);
      const std::vector<PendingOp> started = table->snapshot();
      REQUIRE(started.size() == 1);
      CHECK(started[0].active);
      CHECK(started[0].collCall == 4);
      CHECK(started[0].collSeq == 12);
    }
    if (row.reRegistered) REQUIRE(comms->add(0x44000000, info) == comm);
    const std::uint64_t before = comm->exits[kClass].load();
    CHECK(table->complete(*record, request));
    CHECK(comm->exits[kClass].load() - before == row.exits);
    for (std::size_t c = 0; c < comm->exits.size(); ++c)
      if (c != kClass) CHECK(comm->exits[c].load() == 0);
  }
}

TEST_CASE("OpTable: a live record of a reused handle is replaced, its unseen collective exit counted",
          "[runtime][ops]") {
  auto comms = std::make_unique<CommTable>();
  CommInfo info;
  info.size = 2;
  CommRecord* comm = comms->add(0x84000001, info);
  REQUIRE(comm != nullptr);
  auto table = newOpTable();
  OpInit ibcast = opOf(0x98000001, MPIDBG_OP_COLLECTIVE, MpiFunction::Ibcast, 1);
  ibcast.collClass = 1;
  ibcast.commRecord = comm;
  ibcast.commGeneration = comm->generation.load();
  OpRecord* first = table->insert(ibcast);
  REQUIRE(first != nullptr);
  // MPI completed it behind the runtime's back and reused the handle.
  OpRecord* second = table->insert(opOf(0x98000001, MPIDBG_OP_RECV, MpiFunction::Irecv, 2));
  CHECK(second == first);
  CHECK(comm->exits[1].load() == 1);
  const std::vector<PendingOp> snapshot = table->snapshot();
  REQUIRE(snapshot.size() == 1);
  CHECK(snapshot[0].function == "MPI_Irecv");
  REQUIRE(table->complete(*second, 0x98000001));
  CHECK(table->empty());
}

TEST_CASE("OpTable holds kCapacity operations, counts the overflow, reuses freed slots", "[runtime][ops]") {
  auto table = newOpTable();
  const auto requestOf = [](std::size_t i) { return std::uint64_t{0x98000000} + i; };
  std::vector<OpRecord*> records;
  for (std::size_t i = 0; i < OpTable::kCapacity; ++i) {
    records.push_back(table->insert(opOf(requestOf(i), MPIDBG_OP_SEND, MpiFunction::Isend, i)));
    REQUIRE(records.back() != nullptr);
  }
  struct Row {
    const char* what;
    std::size_t request;
    bool recorded;
  };
  const std::uint64_t overflowBefore = overflow();
  const std::vector<Row> full = {{"a new request", OpTable::kCapacity, false},
                                 {"another", OpTable::kCapacity + 1, false},
                                 {"a live request's handle again", 7, true}};
  for (const Row& row : full) {
    INFO(row.what);
    CHECK((table->insert(opOf(requestOf(row.request), MPIDBG_OP_RECV, MpiFunction::Irecv, 1)) != nullptr) ==
          row.recorded);
  }
  CHECK(overflow() - overflowBefore == 2);
  CHECK(table->snapshot().size() == OpTable::kCapacity);

  // Every eighth completes; new requests take their slots and every live one
  // is still found across the freed slots.
  std::size_t freed = 0;
  for (std::size_t i = 0; i < OpTable::kCapacity; i += 8, ++freed) REQUIRE(table->complete(*records[i], requestOf(i)));
  for (std::size_t k = 0; k < freed; ++k)
    REQUIRE(table->insert(opOf(requestOf(OpTable::kCapacity + k), MPIDBG_OP_SEND, MpiFunction::Isend, 1)) != nullptr);
  CHECK(table->insert(opOf(requestOf(OpTable::kCapacity + freed), MPIDBG_OP_SEND, MpiFunction::Isend, 1)) == nullptr);
  CHECK(overflow() - overflowBefore == 3);
  std::size_t found = 0;
  for (std::size_t i = 0; i < OpTable::kCapacity + freed; ++i) found += table->find(requestOf(i)) != nullptr ? 1 : 0;
  CHECK(found == OpTable::kCapacity);
  for (std::size_t i = 0; i < OpTable::kCapacity; i += 8) CHECK(table->find(requestOf(i)) == nullptr);
}

TEST_CASE("OpTable: removing the last operations empties their slots again", "[runtime][ops]") {
  auto table = newOpTable();
  // A freed slot followed by an empty one ends no probe chain: it, and the
  // run of freed slots before it, become empty again.
  std::vector<OpRecord*> records;
  for (std::uint64_t r = 1; r <= 3; ++r)
    records.push_back(table->insert(opOf(0x98000000 + r, MPIDBG_OP_SEND, MpiFunction::Isend, r)));
  for (OpRecord* record : records) REQUIRE(record != nullptr);
  REQUIRE(table->complete(*records[0], 0x98000001));
  CHECK(records[0]->state.load() != MPIDBG_SLOT_LIVE);
  for (std::uint64_t r = 2; r <= 3; ++r) REQUIRE(table->complete(*records[r - 1], 0x98000000 + r));
  for (OpRecord* record : records) CHECK(record->state.load() == MPIDBG_SLOT_EMPTY);
  CHECK(table->empty());
}

}  // namespace op_table_test
