// libmpidbg-mqs.so over a fake target: what a debugger sees through the
// standard interface and mpidbg's extensions (mqs/include/mpidbg_mqs.h).
#include <catch2/catch.hpp>
#include <cstring>
#include <string>

#include "MqsJob.hpp"

using namespace mpidbg::mqs::test;
// Declared, so a using-directive of another namespace with a DllSession does not
// make the name ambiguous when the tests are compiled as one unity source.
using mpidbg::mqs::test::DllSession;

TEST_CASE("mqs DLL: versions and error texts", "[mqs]") {
  const Dll& dll = Dll::get();
  CHECK(dll.versionCompatibility() == 2);
  CHECK(dll.taddrWidth() == 8);
  CHECK(textOrNull(dll.versionString()).find("mpidbg") != std::string::npos);
  // Every code the DLL can return has its own text.
  for (int code = mqs_first_user_code; code < mqs_first_user_code + 26; ++code) {
    INFO("code " << code);
    CHECK(textOrNull(dll.errorString(code)).find("unknown error code") == std::string::npos);
  }
  CHECK(textOrNull(dll.errorString(99999)).find("unknown error code") != std::string::npos);
  CHECK(textOrNull(dll.errorString(mqs_no_information)).find("unexpected") != std::string::npos);
}

TEST_CASE("mqs DLL: an image without the mpidbg runtime says so", "[mqs]") {
  FakeTarget target;  // no symbols at all
  DllSession s(target);
  CHECK(s.imageCode >= mqs_first_user_code);
  const std::string message = textOrNull(s.imageMessage);
  CHECK(message.find("%s") != std::string::npos);
  CHECK(message.find("mpidbg_layout") != std::string::npos);
  CHECK(textOrNull(s.dll.errorString(s.imageCode)).find("no mpidbg runtime") != std::string::npos);
  CHECK(s.processCode == s.imageCode);
}

TEST_CASE("mqs DLL: a process with the runtime has queues", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  CHECK(s.imageCode == mqs_ok);
  CHECK(s.imageMessage == nullptr);
  CHECK(s.processCode == mqs_ok);
  CHECK(s.hasQueuesCode == mqs_ok);
  CHECK(s.processMessage == nullptr);
}

TEST_CASE("mqs DLL: communicators are the live slots, with names, sizes and ranks", "[mqs]") {
  // Two layouts with different field orders and padding give the same answers.
  for (int order : {0, 1}) {
    auto job = standardJob(false, FakeLayout::standard(order, order ? 12 : 4));
    DllSession s(job->target);
    int code = -1;
    auto comms = s.communicators(&code);
    INFO("layout order " << order);
    REQUIRE(code == mqs_ok);
    REQUIRE(comms.size() == 2);
    CHECK(comms[0].unique_id == kWorld);
    CHECK(std::string(comms[0].name) == "MPI_COMM_WORLD");
    CHECK(comms[0].size == 4);
    CHECK(comms[0].local_rank == 2);
    CHECK(comms[1].unique_id == kHalo);
    CHECK(std::string(comms[1].name) == "halo");
    CHECK(comms[1].size == 2);
    CHECK(comms[1].local_rank == 1);
  }
}

TEST_CASE("mqs DLL: the group of a communicator is its world ranks", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kHalo));
  int ranks[2] = {-9, -9};
  REQUIRE(s.dll.getCommGroup(s.process(), ranks) == mqs_ok);
  CHECK(ranks[0] == 3);
  CHECK(ranks[1] == 2);
  REQUIRE(s.select(kWorld));
  int world[4] = {};
  REQUIRE(s.dll.getCommGroup(s.process(), world) == mqs_ok);
  CHECK((world[0] == 0 && world[1] == 1 && world[2] == 2 && world[3] == 3));
}

TEST_CASE("mqs DLL: pending sends in issue order with peers, tags and lengths", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  int code = -1;
  auto sends = s.operations(mqs_pending_sends, &code);
  REQUIRE(code == mqs_ok);
  REQUIRE(sends.size() == 3);  // Send_init, Isend, Issend; the tombstone is not listed

  struct Row {
    const char* function;
    long peer, global, tag, length;
    unsigned long request;
    const char* line;  // an expected extra_text line ("" for none)
  };
  const Row rows[] = {
      {"MPI_Send_init", 3, 3, 9, 16, 0xac000004, "persistent, inactive"},
      {"MPI_Isend", 1, 1, 7, 80, 0xac000003, ""},
      {"MPI_Issend", 0, 0, 1, 4, 0xac000007, "synchronous"},
  };
  for (std::size_t i = 0; i < std::size(rows); ++i) {
    const auto& [op, detail] = sends[i];
    INFO("send " << i);
    CHECK(op.status == mqs_st_pending);
    CHECK(op.desired_local_rank == rows[i].peer);
    CHECK(op.desired_global_rank == rows[i].global);
    CHECK(op.tag_wild == 0);
    CHECK(op.desired_tag == rows[i].tag);
    CHECK(op.desired_length == rows[i].length);
    CHECK(op.actual_local_rank == rows[i].peer);
    CHECK(op.buffer == 0x1000);
    CHECK(std::string(op.extra_text[0]) == rows[i].function);
    char request[64];
    std::snprintf(request, sizeof request, "request 0x%lx", rows[i].request);
    CHECK(std::string(op.extra_text[1]) == request);
    if (*rows[i].line) {
      bool found = false;
      for (const auto& line : op.extra_text) found = found || std::string(line) == rows[i].line;
      CHECK(found);
    }
    CHECK(std::string(detail.function) == rows[i].function);
    CHECK(detail.request == rows[i].request);
    CHECK(detail.blocking == 0);
    CHECK(detail.coll_class == -1);
  }
  CHECK(std::string(sends[2].op.extra_text[2]) == "waited");
}

TEST_CASE("mqs DLL: pending receives, wildcards and the blocking MPI_Recv", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  auto recvs = s.operations(mqs_pending_receives);
  REQUIRE(recvs.size() == 2);
  const auto& any = recvs[0].op;
  CHECK(std::string(any.extra_text[0]) == "MPI_Irecv");
  CHECK(any.desired_local_rank == -1);
  CHECK(any.desired_global_rank == -1);
  CHECK(any.tag_wild == 1);
  CHECK(any.desired_length == 400);

  const auto& [blocking, detail] = recvs[1];
  CHECK(std::string(blocking.extra_text[0]) == "MPI_Recv");
  CHECK(std::string(blocking.extra_text[1]).find("blocking") != std::string::npos);
  CHECK(blocking.desired_local_rank == 3);
  CHECK(blocking.desired_global_rank == 3);
  CHECK(blocking.tag_wild == 0);
  CHECK(blocking.desired_tag == 42);
  CHECK(detail.blocking == 1);
  CHECK(detail.request == 0);

  // On "halo", local rank 1 is world rank 2, and the blocking call is not there.
  REQUIRE(s.select(kHalo));
  auto halo = s.operations(mqs_pending_receives);
  REQUIRE(halo.size() == 1);
  CHECK(halo[0].op.desired_local_rank == 1);
  CHECK(halo[0].op.desired_global_rank == 2);
  CHECK(halo[0].op.desired_tag == 5);
  CHECK(s.operations(mqs_pending_sends).empty());
}

TEST_CASE("mqs DLL: each blocking call lands in its queue", "[mqs]") {
  struct Row {
    const char* function;
    int queue;  // -1: neither
  };
  const Row rows[] = {{"MPI_Send", mqs_pending_sends},
                      {"MPI_Ssend", mqs_pending_sends},
                      {"MPI_Bsend", mqs_pending_sends},
                      {"MPI_Rsend", mqs_pending_sends},
                      {"MPI_Recv", mqs_pending_receives},
                      {"MPI_Probe", mqs_pending_receives},
                      {"MPI_Sendrecv", mqs_pending_receives},
                      {"MPI_Barrier", -1},
                      {"MPI_Waitall", -1}};
  for (const Row& row : rows) {
    INFO(row.function);
    FakeJob job;
    job.addComm(0, {kHalo, "halo", 0, {3, 2}});
    job.setCall({row.function, 2, 1, true, 3, kHalo});
    DllSession s(job.target);
    s.communicators();
    REQUIRE(s.select(kHalo));
    auto sends = s.operations(mqs_pending_sends);
    auto recvs = s.operations(mqs_pending_receives);
    CHECK(sends.size() == (row.queue == mqs_pending_sends ? 1u : 0u));
    CHECK(recvs.size() == (row.queue == mqs_pending_receives ? 1u : 0u));
    for (const auto* list : {&sends, &recvs})
      for (const auto& o : *list) {
        CHECK(std::string(o.op.extra_text[0]) == row.function);
        CHECK(o.op.desired_local_rank == 1);
        CHECK(o.op.desired_global_rank == 2);
        CHECK(o.op.desired_tag == 3);
      }
  }
}

TEST_CASE("mqs DLL: the unexpected-message queue is not kept", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  int code = -1;
  CHECK(s.operations(mqs_unexpected_messages, &code).empty());
  CHECK(code == mqs_no_information);
  CHECK(s.operations(7, &code).empty());
  CHECK(code >= mqs_first_user_code);
}

TEST_CASE("mqs DLL: collective state per class", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  struct Row {
    std::uint64_t comm;
    int cls, count, active;
  };
  const Row rows[] = {
      {kWorld, mqs_comm_barrier, 3, 0},   {kWorld, mqs_comm_broadcast, 5, 1},
      {kWorld, mqs_comm_allreduce, 2, 0}, {kWorld, mqs_comm_scatterv, 0, 0},
      {kHalo, mqs_comm_scatterv, 7, 1},   {kHalo, mqs_comm_barrier, 0, 0},
  };
  for (const Row& row : rows) {
    INFO("comm " << std::hex << row.comm << std::dec << " class " << row.cls);
    REQUIRE(s.select(row.comm));
    int count = -1, active = -1;
    REQUIRE(s.dll.getCommCollState(s.process(), row.cls, &count, &active) == mqs_ok);
    CHECK(count == row.count);
    CHECK(active == row.active);
  }
  int count = 0, active = 0;
  CHECK(s.dll.getCommCollState(s.process(), 14, &count, &active) >= mqs_first_user_code);
  CHECK(s.dll.getCommCollState(s.process(), -1, &count, &active) >= mqs_first_user_code);

  mqs_taddr_t seq = 0;
  REQUIRE(s.select(kWorld));
  REQUIRE(s.dll.getCommCollSeq(s.process(), &seq) == mqs_ok);
  CHECK(seq == 9);
  REQUIRE(s.select(kHalo));
  REQUIRE(s.dll.getCommCollSeq(s.process(), &seq) == mqs_ok);
  CHECK(seq == 2);

  // The communicator's uid: the world's is set, the halo has none.
  mqs_taddr_t uid = 0;
  REQUIRE(s.select(kWorld));
  REQUIRE(s.dll.getCommUid(s.process(), &uid) == mqs_ok);
  CHECK(uid == kWorldUid);
  REQUIRE(s.select(kHalo));
  CHECK(s.dll.getCommUid(s.process(), &uid) == mqs_no_information);
}

TEST_CASE("mqs DLL: pending nonblocking collectives", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  auto world = s.operations(MPIDBG_MQS_PENDING_COLLECTIVES);
  REQUIRE(world.size() == 1);
  CHECK(std::string(world[0].detail.function) == "MPI_Iallreduce");
  CHECK(world[0].detail.coll_class == mqs_comm_allreduce);
  CHECK(world[0].detail.coll_call == 3);
  CHECK(world[0].detail.coll_seq == 10);
  CHECK(world[0].op.desired_local_rank == -1);
  CHECK(world[0].op.desired_length == 32);

  REQUIRE(s.select(kHalo));
  auto halo = s.operations(MPIDBG_MQS_PENDING_COLLECTIVES);
  REQUIRE(halo.size() == 1);
  CHECK(std::string(halo[0].detail.function) == "MPI_Ibcast");
  CHECK(halo[0].detail.coll_class == mqs_comm_broadcast);
  CHECK(halo[0].op.desired_local_rank == 0);
  CHECK(halo[0].op.desired_global_rank == 3);
  CHECK((halo[0].detail.flags & MPIDBG_OP_WAITED) != 0);
}

TEST_CASE("mqs DLL: a nonblocking collective MPI-IO request is a pending collective in no class", "[mqs]") {
  // Issue 23: MPI_File_iwrite_all is counted in the file's communicator's
  // collective sequence (#11 here) and no class; its request is recorded
  // like MPI_Iallreduce's, with coll_class -1 and no call number of a class.
  auto job = standardJob();
  job->addOp(3, {MPIDBG_OP_COLLECTIVE, "MPI_File_iwrite_all", kWorld, -1, -1, 16, 17, 0xac000009,
                 MPIDBG_OP_ACTIVE | MPIDBG_OP_WAITED, -1, 0, 11, 0x2000, 4});
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  auto world = s.operations(MPIDBG_MQS_PENDING_COLLECTIVES);
  REQUIRE(world.size() == 2);
  const auto& io = std::string(world[0].detail.function) == "MPI_File_iwrite_all" ? world[0] : world[1];
  CHECK(std::string(io.detail.function) == "MPI_File_iwrite_all");
  CHECK(io.detail.coll_class == -1);
  CHECK(io.detail.coll_call == 0);
  CHECK(io.detail.coll_seq == 11);
  CHECK(io.detail.count == 4);
  CHECK(io.detail.request == 0xac000009);
  CHECK((io.detail.flags & MPIDBG_OP_WAITED) != 0);
  CHECK(io.op.desired_local_rank == -1);
  bool sequence = false, classCall = false;
  for (const auto& line : io.op.extra_text) {
    sequence = sequence || std::string(line) == "collective, sequence 11";
    classCall = classCall || std::string(line).starts_with("collective call");
  }
  CHECK(sequence);
  CHECK_FALSE(classCall);
  // Neither a send nor a receive.
  for (int cls : {mqs_pending_sends, mqs_pending_receives})
    for (const auto& op : s.operations(cls)) CHECK(std::string(op.detail.function) != "MPI_File_iwrite_all");
}

TEST_CASE("mqs DLL: collective history is oldest first after the ring wraps", "[mqs]") {
  auto job = standardJob();  // 6 records written into 4 slots
  DllSession s(job->target);
  int code = -1;
  auto history = s.history(&code);
  REQUIRE(code == mqs_ok);
  REQUIRE(history.size() == 4);
  struct Row {
    std::uint64_t seq, comm;
    const char* function;
    int root;
    long count;
  };
  const Row rows[] = {{3, kWorld, "MPI_Barrier", -1, 30},
                      {4, kHalo, "MPI_Bcast", 0, 40},
                      {5, kWorld, "MPI_Allreduce", -1, 50},
                      {6, kHalo, "MPI_Barrier", -1, 60}};
  for (std::size_t i = 0; i < 4; ++i) {
    INFO("record " << i);
    CHECK(history[i].seq == rows[i].seq);
    CHECK(history[i].comm == rows[i].comm);
    CHECK(std::string(history[i].function) == rows[i].function);
    CHECK(history[i].root == rows[i].root);
    CHECK(history[i].count == rows[i].count);
  }

  FakeJob fresh;  // before the ring fills
  fresh.addHistory(1, kWorld, "MPI_Barrier", -1, -1);
  fresh.addHistory(2, kWorld, "MPI_Reduce", 0, 5);
  DllSession t(fresh.target);
  auto two = t.history();
  REQUIRE(two.size() == 2);
  CHECK(std::string(two[0].function) == "MPI_Barrier");
  CHECK(std::string(two[1].function) == "MPI_Reduce");
  CHECK(two[1].root == 0);
}

TEST_CASE("mqs DLL: the current call and its requests", "[mqs]") {
  FakeJob job;
  job.setCall({"MPI_Waitall", 0, 0, false, 0, 0, 0, 91, {0xac000001, 0xac000002, 0xac000003}});
  DllSession s(job.target);
  mpidbg_mqs_call call;
  std::memset(&call, 0x5a, sizeof call);
  REQUIRE(s.dll.getCall(s.process(), &call) == mqs_ok);
  CHECK(std::string(call.function) == "MPI_Waitall");
  CHECK(call.phase == MPIDBG_PHASE_RUNNING);
  CHECK(call.seq == 91);
  CHECK(call.comm == 0);
  REQUIRE(call.request_count == 3);
  CHECK(call.requests[0] == 0xac000001);
  CHECK(call.requests[2] == 0xac000003);

  job.setCall({"MPI_Recv", 1, -1, true, -1, kWorld});
  REQUIRE(s.dll.getCall(s.process(), &call) == mqs_ok);
  CHECK(std::string(call.function) == "MPI_Recv");
  CHECK(call.peer_role == 1);
  CHECK(call.peer == -1);
  CHECK(call.has_tag == 1);
  CHECK(call.tag == -1);
  CHECK(call.comm == kWorld);
  CHECK(call.request_count == 0);

  job.setCall({"", 0, 0, false, 0, 0});  // not inside a call
  REQUIRE(s.dll.getCall(s.process(), &call) == mqs_ok);
  CHECK(std::string(call.function).empty());

  std::vector<std::uint32_t> many(100);
  for (std::uint32_t i = 0; i < 100; ++i) many[i] = 0xac000000 + i;
  job.setCall({"MPI_Waitsome", 0, 0, false, 0, 0, 0, 5, many});
  REQUIRE(s.dll.getCall(s.process(), &call) == mqs_ok);
  CHECK(call.request_count == 64);  // clamped to the room in the struct
  CHECK(call.requests[63] == 0xac000000 + 63);
}

TEST_CASE("mqs DLL: last operation detail only right after an operation", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  mpidbg_mqs_op_detail detail;
  CHECK(s.dll.lastOperationDetail(s.process(), &detail) == mqs_no_information);
  REQUIRE(s.dll.setupOperationIterator(s.process(), mqs_pending_sends) == mqs_ok);
  mqs_pending_operation op;
  REQUIRE(s.dll.nextOperation(s.process(), &op) == mqs_ok);
  REQUIRE(s.dll.lastOperationDetail(s.process(), &detail) == mqs_ok);
  CHECK(std::string(detail.function) == "MPI_Send_init");
  CHECK(detail.flags == MPIDBG_OP_PERSISTENT);
  CHECK(detail.count == 1);
  while (s.dll.nextOperation(s.process(), &op) == mqs_ok) {
  }
  CHECK(s.dll.lastOperationDetail(s.process(), &detail) == mqs_no_information);
}

TEST_CASE("mqs DLL: a big-endian target is read through mqs_target_to_host", "[mqs]") {
  auto job = standardJob(true);
  DllSession s(job->target);
  REQUIRE(s.processCode == mqs_ok);
  auto comms = s.communicators();
  REQUIRE(comms.size() == 2);
  CHECK(comms[0].unique_id == kWorld);
  CHECK(comms[0].size == 4);
  REQUIRE(s.select(kHalo));
  int ranks[2] = {};
  REQUIRE(s.dll.getCommGroup(s.process(), ranks) == mqs_ok);
  CHECK((ranks[0] == 3 && ranks[1] == 2));
  REQUIRE(s.select(kWorld));
  auto sends = s.operations(mqs_pending_sends);
  REQUIRE(sends.size() == 3);
  CHECK(sends[1].op.desired_length == 80);
  CHECK(sends[1].detail.request == 0xac000003);
  CHECK(s.history().size() == 4);
}

TEST_CASE("mqs DLL: the communicator seqlock is retried, then the slot skipped", "[mqs]") {
  auto job = standardJob();
  const std::uint64_t version =
      job->comms + job->layout.sizeOf("comm") * 3 + job->layout.at("comm", "version").offset;
  SECTION("a writer finishing after two reads") {
    // Each fetch that covers halo's version sees the writer's next step: odd
    // (inside a write), even with a half-written name but changed before the
    // read ended, then settled with the final name.
    struct Step {
      std::uint32_t version;
      const char* name;
    };
    const Step steps[] = {{3, "torn"}, {4, "torn"}, {6, "renamed"}};
    std::size_t step = 0;
    job->target.onFetch = [&](std::uint64_t address, int size) {
      if (address <= version && version < address + static_cast<std::uint64_t>(size) &&
          step < std::size(steps)) {
        job->target.writeInt(version, steps[step].version, 4);
        job->commSlot(3).setText("name", steps[step++].name);
      }
      return true;
    };
    DllSession s(job->target);
    auto comms = s.communicators();
    CHECK(step == 3);
    REQUIRE(comms.size() == 2);
    CHECK(std::string(comms[1].name) == "renamed");
  }
  SECTION("a writer that never finishes") {
    DllSession s(job->target);
    job->target.onFetch = [&](std::uint64_t address, int size) {
      if (address <= version && version < address + static_cast<std::uint64_t>(size))
        job->target.writeInt(version, 1, 4);  // odd: inside a write
      return true;
    };
    clearDebugLines();
    int code = -1;
    auto comms = s.communicators(&code);
    CHECK(code == mqs_ok);
    REQUIRE(comms.size() == 1);
    CHECK(comms[0].unique_id == kWorld);
    CHECK(debugSaid("kept changing"));
  }
}

TEST_CASE("mqs DLL: a call record that never settles is an error", "[mqs]") {
  FakeJob job;
  job.setCall({"MPI_Recv", 1, 0, true, 0, kWorld});
  DllSession s(job.target);
  const std::uint64_t version = job.call + job.layout.at("call", "version").offset;
  std::uint32_t v = 10;
  job.target.onFetch = [&](std::uint64_t, int) {
    job.target.writeInt(version, v += 2, 4);  // even, but different on every read
    return true;
  };
  mpidbg_mqs_call call;
  const int code = s.dll.getCall(s.process(), &call);
  CHECK(code >= mqs_first_user_code);
  CHECK(std::string(s.dll.errorString(code)).find("changing") != std::string::npos);
}

TEST_CASE("mqs DLL: before MPI_Init the runtime is not attached", "[mqs]") {
  FakeJob job;
  job.root().set("magic", 0);
  DllSession s(job.target);
  CHECK(s.processCode == mqs_ok);  // the layout table is fine
  CHECK(s.hasQueuesCode >= mqs_first_user_code);
  CHECK(textOrNull(s.processMessage).find("MPI_Init") != std::string::npos);
  mpidbg_mqs_call call;
  CHECK(s.dll.getCall(s.process(), &call) == mqs_no_information);
  CHECK(s.dll.setupCollHistory(s.process()) == mqs_no_information);
  int code = -1;
  CHECK(s.communicators(&code).empty());
  CHECK(code >= mqs_first_user_code);
}

TEST_CASE("mqs DLL: one pass is one snapshot; the next pass sees new operations", "[mqs]") {
  auto job = standardJob();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  REQUIRE(s.operations(mqs_pending_sends).size() == 3);
  // The rank runs and posts another send (into the tombstone's slot).
  job->addOp(3, {MPIDBG_OP_SEND, "MPI_Irsend", kWorld, 2, 4, 8, 16, 0xac000008});
  CHECK(s.operations(mqs_pending_sends).size() == 3);  // same pass: same moment
  REQUIRE(s.select(kWorld));  // mqs_setup_communicator_iterator starts a new pass
  auto sends = s.operations(mqs_pending_sends);
  REQUIRE(sends.size() == 4);
  CHECK(std::string(sends[3].op.extra_text[0]) == "MPI_Irsend");
}

TEST_CASE("mqs DLL: a layout without the added fields still reads", "[mqs]") {
  // root.op_overflow, op.version and coll.stamp came later without a version
  // bump, so a table without them is valid and read without those checks.
  auto job = standardJob(false, FakeLayout::standard(1, 8, false));
  DllSession s(job->target);
  REQUIRE(s.processCode == mqs_ok);
  REQUIRE(s.communicators().size() == 2);
  REQUIRE(s.select(kWorld));
  CHECK(s.operations(mqs_pending_sends).size() == 3);
  auto history = s.history();
  REQUIRE(history.size() == 4);
  CHECK(history[0].seq == 3);
  mqs_taddr_t uid = 0;
  CHECK(s.dll.getCommUid(s.process(), &uid) == mqs_no_information);  // comm.uid came later too
}

TEST_CASE("mqs DLL: the op slot seqlock", "[mqs]") {
  auto job = standardJob();
  const std::uint64_t slot = job->ops + 5 * job->layout.sizeOf("op");  // the MPI_Isend
  const std::uint64_t version = slot + job->layout.at("op", "version").offset;
  const std::uint64_t tag = slot + job->layout.at("op", "tag").offset;
  auto covers = [](std::uint64_t address, int size, std::uint64_t at) {
    return address <= at && at < address + static_cast<std::uint64_t>(size);
  };
  SECTION("a slot refilled between the two reads is re-read") {
    // Read 1 sees version 2 and tag 7; by read 2 the slot was emptied and
    // refilled (version 4, tag 70); after that it stays.
    int reads = 0;
    job->target.onFetch = [&](std::uint64_t address, int size) {
      if (covers(address, size, version) && ++reads == 2) {
        job->target.writeInt(version, 4, 4);
        job->target.writeInt(tag, 70, 4);
      }
      return true;
    };
    DllSession s(job->target);
    s.communicators();
    REQUIRE(s.select(kWorld));
    auto sends = s.operations(mqs_pending_sends);
    REQUIRE(sends.size() == 3);
    CHECK(sends[1].op.desired_tag == 70);
    CHECK(reads == 4);  // two array reads, then the slot twice on its own
  }
  SECTION("a slot that stays half-filled is skipped") {
    job->target.writeInt(version, 5, 4);  // odd: being filled
    clearDebugLines();
    DllSession s(job->target);
    s.communicators();
    REQUIRE(s.select(kWorld));
    auto sends = s.operations(mqs_pending_sends);
    REQUIRE(sends.size() == 2);
    CHECK(std::string(sends[0].op.extra_text[0]) == "MPI_Send_init");
    CHECK(std::string(sends[1].op.extra_text[0]) == "MPI_Issend");
    CHECK(debugSaid("kept changing"));
  }
}

TEST_CASE("mqs DLL: history records are kept only with the right stamp", "[mqs]") {
  auto job = standardJob();
  // Record 4 (slot 3, seq 4) is being overwritten by record 8: stamp 0.
  job->historySlot(3).set("stamp", 0);
  // Record 3 (slot 2) still holds a stale record of an earlier lap.
  job->historySlot(2).set("stamp", 3 - FakeJob::kHistoryCapacity + 100);
  clearDebugLines();
  DllSession s(job->target);
  auto history = s.history();
  REQUIRE(history.size() == 2);
  CHECK(history[0].seq == 5);
  CHECK(history[1].seq == 6);
  CHECK(debugSaid("2 history records"));
}

TEST_CASE("mqs DLL: an overflowing op table is reported", "[mqs]") {
  auto job = standardJob();
  job->root().set("op_overflow", 12);
  clearDebugLines();
  DllSession s(job->target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  CHECK(s.operations(mqs_pending_sends).size() == 3);
  CHECK(debugSaid("12 operations were not recorded"));
}
