// libmpidbg-mqs.so against hostile target memory: corrupt layout tables,
// impossible counts and sizes, unterminated strings, failing fetches and
// random bytes. The DLL must never crash and must answer with error codes
// whose text says what is wrong.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>

#include "MqsJob.hpp"

using namespace mpidbg::mqs::test;
// Declared, so a using-directive of another namespace with a DllSession does not
// make the name ambiguous when the tests are compiled as one unity source.
using mpidbg::mqs::test::DllSession;

namespace {


// Replaces the layout table with `layout` written with the given header.
void reinstall(FakeJob& job, std::uint64_t magic = MPIDBG_LAYOUT_MAGIC,
               std::uint32_t version = MPIDBG_LAYOUT_VERSION,
               std::optional<std::uint32_t> count = std::nullopt) {
  job.layoutAddress = job.layout.install(job.target, magic, version, count);
  job.target.defineSymbol("mpidbg_layout", job.layoutAddress);
}

// A layout edit applied to a copy of the standard layout, then installed.
void editLayout(FakeJob& job, const std::function<void(FakeLayout&)>& edit) {
  FakeLayout copy = job.layout;
  edit(copy);
  job.layoutAddress = copy.install(job.target);
  job.target.defineSymbol("mpidbg_layout", job.layoutAddress);
}

// True when `code` is one the interface allows the DLL to return.
bool knownCode(const Dll& dll, int code) {
  if (code == mqs_ok || code == mqs_no_information || code == mqs_end_of_list) return true;
  return code >= mqs_first_user_code &&
         std::string(dll.errorString(code)).find("unknown error code") == std::string::npos;
}

bool terminated(const char* s, std::size_t size) { return std::memchr(s, 0, size) != nullptr; }

}  // namespace

TEST_CASE("mqs DLL: corrupt layout tables are refused with a reason", "[mqs]") {
  struct Row {
    const char* what;
    std::function<void(FakeJob&)> corrupt;
    const char* reason;  // in mqs_dll_error_string of the code
  };
  const Row rows[] = {
      {"wrong magic", [](FakeJob& j) { reinstall(j, 0x4142434445464748ull); }, "magic"},
      {"other version", [](FakeJob& j) { reinstall(j, MPIDBG_LAYOUT_MAGIC, 2); }, "version"},
      {"count beyond capacity",
       [](FakeJob& j) { reinstall(j, MPIDBG_LAYOUT_MAGIC, 1, MPIDBG_LAYOUT_MAX_FIELDS + 1); },
       "more rows"},
      {"count zero", [](FakeJob& j) { reinstall(j, MPIDBG_LAYOUT_MAGIC, 1, 0); }, "no rows"},
      {"truncated table",
       [](FakeJob& j) {
         j.target.truncate(j.layoutAddress, 16 + 10 * sizeof(mpidbg_layout_field));
       },
       "reading the target's memory failed"},
      {"table at an unmapped address",
       [](FakeJob& j) { j.target.defineSymbol("mpidbg_layout", 0x10); },
       "reading the target's memory failed"},
      {"unterminated type name",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) {
           l.rows.insert(l.rows.begin(), {std::string(24, 'x'), "f", 0, 4});
         });
       },
       "unterminated"},
      {"duplicate row",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) { l.rows.push_back(l.at("comm", "size")); });
       },
       "twice"},
      {"missing field row",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) {
           std::erase_if(l.rows,
                         [](auto& r) { return r.type == "comm" && r.field == "world_ranks"; });
         });
       },
       "lacks"},
      {"missing type row",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) {
           std::erase_if(l.rows, [](auto& r) { return r.type == "call" && r.field.empty(); });
         });
       },
       "lacks"},
      {"field past the end of its type",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) { l.find("op", "issued")->offset = l.sizeOf("op") - 4; });
       },
       "outside its type"},
      {"offset that wraps",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) { l.find("op", "issued")->offset = 0xfffffffc; });
       },
       "outside its type"},
      {"u32 field of 8 bytes",
       [](FakeJob& j) { editLayout(j, [](FakeLayout& l) { l.find("comm", "state")->size = 8; }); },
       "size this DLL does not expect"},
      {"too few collective classes",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) { l.find("comm", "entries")->size = 13 * 8; });
       },
       "size this DLL does not expect"},
      {"request type of 3 bytes",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) { l.rows.push_back({"request", "", 0, 3}); });
       },
       "size this DLL does not expect"},
      {"type of size zero",
       [](FakeJob& j) { editLayout(j, [](FakeLayout& l) { l.find("coll", "")->size = 0; }); },
       "size zero"},
      {"absurd type size",
       [](FakeJob& j) {
         editLayout(j, [](FakeLayout& l) { l.find("root", "")->size = 1u << 24; });
       },
       "absurd"},
      {"no state symbol", [](FakeJob& j) { j.target.symbols_.erase("mpidbg_state"); },
       "mpidbg_state"},
      {"corrupt root magic", [](FakeJob& j) { j.root().set("magic", 0x1234); }, "wrong magic"},
      {"root at an unmapped address",
       [](FakeJob& j) { j.target.defineSymbol("mpidbg_state", 0x7000); },
       "reading the target's memory failed"},
  };
  for (const Row& row : rows) {
    INFO(row.what);
    FakeJob job;
    row.corrupt(job);
    clearDebugLines();
    DllSession s(job.target);
    const int code = s.processCode != mqs_ok ? s.processCode : s.hasQueuesCode;
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(s.dll.errorString(code)).find(row.reason) != std::string::npos);
    CHECK(textOrNull(s.processMessage).find("%s") != std::string::npos);
    // Nothing is answered from a refused process.
    int listCode = -1;
    CHECK(s.communicators(&listCode).empty());
    CHECK(listCode >= mqs_first_user_code);
  }
}

TEST_CASE("mqs DLL: the debug print names a missing layout row", "[mqs]") {
  FakeJob job;
  editLayout(job, [](FakeLayout& l) {
    std::erase_if(l.rows, [](auto& r) { return r.type == "comm" && r.field == "world_ranks"; });
  });
  clearDebugLines();
  DllSession s(job.target);
  CHECK(s.processCode >= mqs_first_user_code);
  CHECK(debugSaid("comm.world_ranks"));
}

TEST_CASE("mqs DLL: impossible counts in the state are errors or skipped slots", "[mqs]") {
  SECTION("comm_capacity beyond the limit") {
    FakeJob job;
    job.root().set("comm_capacity", 1u << 20);
    DllSession s(job.target);
    int code = -1;
    CHECK(s.communicators(&code).empty());
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(s.dll.errorString(code)).find("beyond") != std::string::npos);
  }
  SECTION("op_capacity larger than the array really is") {
    auto job = standardJob();
    job->root().set("op_capacity", FakeJob::kOpCapacity + 1);
    DllSession s(job->target);
    s.communicators();
    REQUIRE(s.select(kWorld));
    int code = -1;
    CHECK(s.operations(mqs_pending_sends, &code).empty());
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(s.dll.errorString(code)).find("reading the target's memory failed") !=
          std::string::npos);
  }
  SECTION("communicator sizes and ranks out of range") {
    FakeJob job;
    job.addComm(0, {kWorld, "MPI_COMM_WORLD", 0, {0, 1, 2, 3}});
    job.addComm(1, {0x84000010, "huge", 0, {0}});
    job.commSlot(1).set("size", 1u << 30);
    job.addComm(2, {0x84000011, "negative", 0, {0}});
    job.commSlot(2).set("size", 0xffffffffu);
    job.addComm(3, {0x84000012, "rank past size", 2, {0, 1}});
    job.addComm(4, {0x84000013, "bad world ranks", 0, {0, 99, -5}});
    clearDebugLines();
    DllSession s(job.target);
    auto comms = s.communicators();
    REQUIRE(comms.size() == 2);
    CHECK(comms[0].unique_id == kWorld);
    CHECK(comms[1].unique_id == 0x84000013);
    CHECK(debugSaid("skipped"));
    REQUIRE(s.select(0x84000013));
    int ranks[3] = {};
    REQUIRE(s.dll.getCommGroup(s.process(), ranks) == mqs_ok);
    CHECK((ranks[0] == 0 && ranks[1] == -1 && ranks[2] == -1));  // out of range -> -1
  }
  SECTION("unreadable world ranks leave the group unknown") {
    FakeJob job;
    job.addComm(0, {kWorld, "MPI_COMM_WORLD", 0, {0, 1}});
    job.commSlot(0).set("world_ranks", 0x20);
    DllSession s(job.target);
    REQUIRE(s.communicators().size() == 1);
    REQUIRE(s.select(kWorld));
    int ranks[2];
    const int code = s.dll.getCommGroup(s.process(), ranks);
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(s.dll.errorString(code)).find("world ranks") != std::string::npos);
  }
  SECTION("a negative request count") {
    FakeJob job;
    job.setCall({"MPI_Waitall", 0, 0, false, 0, 0});
    job.callRecord().set("request_count", 0xfffffff0u);
    DllSession s(job.target);
    mpidbg_mqs_call call;
    const int code = s.dll.getCall(s.process(), &call);
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(s.dll.errorString(code)).find("beyond") != std::string::npos);
  }
  SECTION("a history counter near 2^64") {
    // Without stamps every slot is taken; with them none matches that index.
    for (bool stamped : {false, true}) {
      INFO("stamped " << stamped);
      auto job = standardJob(false, FakeLayout::standard(0, 4, stamped));
      job->root().set("history_next", ~std::uint64_t{0});
      DllSession s(job->target);
      clearDebugLines();
      int code = -1;
      CHECK(s.history(&code).size() == (stamped ? 0u : FakeJob::kHistoryCapacity));
      CHECK(code == mqs_ok);
      CHECK(debugSaid("stamp mismatch") == stamped);
    }
  }
  SECTION("a history of capacity zero") {
    auto job = standardJob();
    job->root().set("history_capacity", 0);
    DllSession s(job->target);
    int code = -1;
    CHECK(s.history(&code).empty());
    CHECK(code == mqs_ok);
  }
  SECTION("a function table beyond the limit") {
    auto job = standardJob();
    job->root().set("function_count", 100000);
    DllSession s(job->target);
    int code = -1;
    CHECK(s.history(&code).empty());
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(s.dll.errorString(code)).find("function names") != std::string::npos);
  }
}

TEST_CASE("mqs DLL: a second live slot with the same handle is dropped", "[mqs]") {
  FakeJob job;
  job.addComm(0, {kWorld, "MPI_COMM_WORLD", 0, {0, 1}});
  job.addComm(5, {kWorld, "impostor", 0, {0, 1, 2, 3}});
  clearDebugLines();
  DllSession s(job.target);
  auto comms = s.communicators();
  REQUIRE(comms.size() == 1);
  CHECK(std::string(comms[0].name) == "MPI_COMM_WORLD");
  CHECK(comms[0].size == 2);
  CHECK(debugSaid("repeats handle"));
}

TEST_CASE("mqs DLL: target strings are terminated and cleaned", "[mqs]") {
  FakeJob job;
  job.addComm(0, {kWorld, std::string(64, 'A'), 0, {0}});  // fills the field: no NUL
  job.addComm(1, {kHalo, "ev\x1b[31mil\x01", 0, {0}});
  job.addOp(0, {MPIDBG_OP_SEND, "MPI_Isend", kWorld, 0, 0, 4, 1});
  job.addOp(1, {MPIDBG_OP_SEND, "MPI_Isend", kWorld, 0, 0, 4, 2});
  job.opSlot(1).set("function", 999);
  // An unterminated function name fills its whole slot in the name table.
  const std::uint32_t isend = job.functionIndex("MPI_Isend");
  const std::string z(FakeJob::kNameLen, 'Z');
  job.target.write(job.names + isend * FakeJob::kNameLen, z.data(), z.size());
  DllSession s(job.target);
  auto comms = s.communicators();
  REQUIRE(comms.size() == 2);
  CHECK(std::string(comms[0].name) == std::string(63, 'A'));
  CHECK(std::string(comms[1].name) == "ev?[31mil?");
  REQUIRE(s.select(kWorld));
  auto sends = s.operations(mqs_pending_sends);
  REQUIRE(sends.size() == 2);
  CHECK(std::string(sends[0].op.extra_text[0]) == std::string(FakeJob::kNameLen - 1, 'Z'));
  CHECK(std::string(sends[1].op.extra_text[0]) == "unknown function 999");
}

TEST_CASE("mqs DLL: corrupt operation slots are skipped or normalised", "[mqs]") {
  FakeJob job;
  job.addComm(0, {kWorld, "MPI_COMM_WORLD", 0, {0, 1}});
  job.addOp(0, {MPIDBG_OP_SEND, "MPI_Isend", kWorld, 1, 0, 4, 1});
  job.opSlot(0).set("kind", 7);
  job.addOp(1, {MPIDBG_OP_COLLECTIVE, "MPI_Ibarrier", kWorld, -1, -1, 0, 2});
  job.opSlot(1).set("coll_class", 99);
  job.addOp(2, {MPIDBG_OP_RECV, "MPI_Irecv", kWorld, 5, 0, 4, 3});  // peer outside the comm
  DllSession s(job.target);
  s.communicators();
  REQUIRE(s.select(kWorld));
  clearDebugLines();
  CHECK(s.operations(mqs_pending_sends).empty());
  CHECK(debugSaid("kind 7; skipped"));
  auto colls = s.operations(MPIDBG_MQS_PENDING_COLLECTIVES);
  REQUIRE(colls.size() == 1);
  CHECK(colls[0].detail.coll_class == -1);
  auto recvs = s.operations(mqs_pending_receives);
  REQUIRE(recvs.size() == 1);
  CHECK(recvs[0].op.desired_local_rank == 5);
  CHECK(recvs[0].op.desired_global_rank == -1);
}

TEST_CASE("mqs DLL: misuse of the interface gets error codes", "[mqs]") {
  auto job = standardJob();
  const Dll& dll = Dll::get();
  SECTION("no basic callbacks") {
    dll.setupBasicCallbacks(nullptr);
    const int code = dll.setupImage(job->target.image(), &FakeTarget::imageCallbacks);
    dll.setupBasicCallbacks(&basicCallbacks());
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(dll.errorString(code)).find("mqs_setup_basic_callbacks") != std::string::npos);
  }
  SECTION("a process that was never set up") {
    dll.setupBasicCallbacks(&basicCallbacks());
    const int code = dll.updateCommunicatorList(job->target.process());
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(dll.errorString(code)).find("mqs_setup_process") != std::string::npos);
    mqs_pending_operation op;
    CHECK(dll.nextOperation(job->target.process(), &op) >= mqs_first_user_code);
  }
  SECTION("a process before its image") {
    dll.setupBasicCallbacks(&basicCallbacks());
    const int code = dll.setupProcess(job->target.process(), &FakeTarget::processCallbacks);
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(dll.errorString(code)).find("mqs_setup_image") != std::string::npos);
  }
  SECTION("null arguments and no current communicator") {
    DllSession s(job->target);
    CHECK(s.dll.getCommunicator(s.process(), nullptr) >= mqs_first_user_code);
    mqs_communicator c;
    CHECK(s.dll.getCommunicator(s.process(), &c) >= mqs_first_user_code);  // no iterator yet
    CHECK(s.dll.nextCommunicator(s.process()) >= mqs_first_user_code);
    CHECK(s.dll.setupOperationIterator(s.process(), mqs_pending_sends) >= mqs_first_user_code);
    CHECK(s.dll.getCommGroup(s.process(), nullptr) >= mqs_first_user_code);
    CHECK(s.dll.getCall(s.process(), nullptr) >= mqs_first_user_code);
    CHECK(s.dll.nextCollRecord(s.process(), nullptr) >= mqs_first_user_code);
    CHECK(s.dll.setupImage(nullptr, &FakeTarget::imageCallbacks) >= mqs_first_user_code);
    CHECK(s.dll.imageHasQueues(nullptr, nullptr) >= mqs_first_user_code);
    int count, active;
    CHECK(s.dll.getCommCollState(s.process(), 0, &count, &active) >= mqs_first_user_code);
    // The list ends cleanly and stays ended.
    REQUIRE(s.communicators().size() == 2);
    REQUIRE(s.dll.setupCommunicatorIterator(s.process()) == mqs_ok);
    CHECK(s.dll.nextCommunicator(s.process()) == mqs_ok);
    CHECK(s.dll.nextCommunicator(s.process()) == mqs_end_of_list);
    CHECK(s.dll.getCommunicator(s.process(), &c) >= mqs_first_user_code);
  }
  SECTION("every fetch failing after setup") {
    DllSession s(job->target);
    job->target.onFetch = [](std::uint64_t, int) { return false; };
    int code = -1;
    CHECK(s.communicators(&code).empty());
    CHECK(code >= mqs_first_user_code);
    CHECK(textOrNull(s.dll.errorString(code)).find("reading the target's memory failed") !=
          std::string::npos);
    mpidbg_mqs_call call;
    CHECK(s.dll.getCall(s.process(), &call) >= mqs_first_user_code);
    CHECK(s.dll.setupCollHistory(s.process()) >= mqs_first_user_code);
  }
}

namespace {

// Runs everything a debugger would ask and checks each answer is well formed.
void exercise(DllSession& s) {
  const Dll& dll = s.dll;
  int code = -1;
  s.communicators(&code);  // mqs_update_communicator_list and one pass
  CHECK(knownCode(dll, code));
  for (code = dll.setupCommunicatorIterator(s.process()); code == mqs_ok;
       code = dll.nextCommunicator(s.process())) {
    mqs_communicator c;
    REQUIRE(dll.getCommunicator(s.process(), &c) == mqs_ok);
    CHECK(terminated(c.name, sizeof c.name));
    REQUIRE(c.size > 0);
    std::vector<int> ranks(static_cast<std::size_t>(c.size));
    CHECK(knownCode(dll, dll.getCommGroup(s.process(), ranks.data())));
    for (int cls : {0, 1, 2, 3}) {
      auto ops = s.operations(cls, &code);
      CHECK(knownCode(dll, code));
      for (const auto& o : ops) {
        for (const auto& line : o.op.extra_text) CHECK(terminated(line, sizeof line));
        CHECK(terminated(o.detail.function, sizeof o.detail.function));
      }
    }
    for (int cls = 0; cls < mqs_comm_class_count; ++cls) {
      int count = -1, active = -1;
      CHECK(knownCode(dll, dll.getCommCollState(s.process(), cls, &count, &active)));
    }
    mqs_taddr_t seq;
    CHECK(knownCode(dll, dll.getCommCollSeq(s.process(), &seq)));
  }
  CHECK(knownCode(dll, code));
  mpidbg_mqs_call call;
  code = dll.getCall(s.process(), &call);
  CHECK(knownCode(dll, code));
  if (code == mqs_ok) {
    CHECK(terminated(call.function, sizeof call.function));
    CHECK((call.request_count >= 0 && call.request_count <= 64));
  }
  for (const auto& r : s.history(&code)) CHECK(terminated(r.function, sizeof r.function));
  CHECK(knownCode(dll, code));
}

// MPIDBG_MQS_FUZZ_SEED / MPIDBG_MQS_FUZZ_ROUNDS override the fixed seed and
// round count for longer runs by hand.
std::uint64_t envOr(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr ? std::strtoull(value, nullptr, 0) : fallback;
}

void randomize(std::vector<std::byte>& bytes, std::mt19937_64& rng) {
  for (auto& b : bytes) b = static_cast<std::byte>(rng());
}

}  // namespace

TEST_CASE("mqs DLL: random memory never crashes it", "[mqs]") {
  std::mt19937_64 rng(envOr("MPIDBG_MQS_FUZZ_SEED", 20240611));
  const auto rounds = static_cast<int>(envOr("MPIDBG_MQS_FUZZ_ROUNDS", 1500));
  SECTION("random bytes everywhere") {
    for (int round = 0; round < rounds / 5; ++round) {
      FakeTarget target;
      std::vector<std::uint64_t> bases;
      for (int r = 0; r < 4; ++r) {
        bases.push_back(target.allocate(1 + rng() % 16384));
        randomize(target.region(bases.back()), rng);
      }
      target.defineSymbol("mpidbg_layout", bases[rng() % 4] + rng() % 64);
      target.defineSymbol("mpidbg_state", bases[rng() % 4] + rng() % 64);
      DllSession s(target);
      CHECK(knownCode(s.dll, s.processCode));
      CHECK(s.processCode != mqs_ok);  // random bytes are no layout table
      exercise(s);
    }
  }
  SECTION("a valid rank with random bytes flipped") {
    // Mutations keep most of the structure, so the deep paths run on
    // partly-garbage records; the layout table itself is mutated in a third
    // of the rounds.
    int accepted = 0;
    for (int round = 0; round < rounds; ++round) {
      auto job = standardJob(round % 5 == 0);
      const auto bases = job->target.regionBases();
      const int flips = 1 + static_cast<int>(rng() % 64);
      for (int f = 0; f < flips; ++f) {
        std::uint64_t base = bases[rng() % bases.size()];
        if (base == job->layoutAddress && round % 3 != 0) base = job->state;
        auto& bytes = job->target.region(base);
        if (bytes.empty()) continue;
        auto& b = bytes[rng() % bytes.size()];
        b = (rng() % 4 == 0) ? std::byte{0xff} : static_cast<std::byte>(rng());
      }
      DllSession s(job->target);
      CHECK(knownCode(s.dll, s.processCode));
      CHECK(knownCode(s.dll, s.hasQueuesCode));
      if (s.processCode == mqs_ok && s.hasQueuesCode == mqs_ok) ++accepted;
      exercise(s);
    }
    CHECK(accepted > rounds / 15);  // the mutated ranks did reach the deep paths
  }
}
