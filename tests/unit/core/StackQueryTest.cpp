#include <catch2/catch.hpp>

#include "debugger/core/StackQuery.hpp"
#include "debugger/core/stacks/StackRender.hpp"

using namespace mpidbg::core;
using mpidbg::core::stacks::SymbolFrame;

namespace {

/// Frames named `names`, innermost first.
std::vector<SymbolFrame> framesOf(std::initializer_list<const char*> names) {
  std::vector<SymbolFrame> out;
  for (const char* n : names) {
    SymbolFrame f;
    f.function = n;
    out.push_back(f);
  }
  return out;
}

std::vector<std::string> namesOf(const std::vector<SymbolFrame>& frames) {
  std::vector<std::string> out;
  for (const auto& f : frames) out.push_back(f.function);
  return out;
}

GdbThread gdbThread(int tid, const char* name, std::initializer_list<const char*> names) {
  GdbThread t;
  t.tid = tid;
  t.name = name;
  for (const char* n : names) {
    GdbFrame f;
    f.function = n;
    t.frames.push_back(f);
  }
  return t;
}

}  // namespace

TEST_CASE("stacks are cut at the outermost MPI entry and above main", "[stacks][query]") {
  struct Row {
    std::vector<SymbolFrame> in;
    std::vector<std::string> mpi;   // after cutAtMpiCall
    std::vector<std::string> main;  // after cutAboveMain(cutAtMpiCall)
  };
  const Row rows[] = {
      // The fast path: the wrapper calls PMPI, which polls.
      {framesOf({"ucp_worker_progress", "MPIR_Allreduce", "PMPI_Allreduce", "MPI_Allreduce", "solve", "main",
                 "__libc_start_call_main", "_start"}),
       {"MPI_Allreduce", "solve", "main", "__libc_start_call_main", "_start"},
       {"MPI_Allreduce", "solve", "main"}},
      // The slow path in idle-wait mode: the wrapper's out-of-line half.
      {framesOf({"clock_nanosleep", "mpidbg::rt::idle::wait(ompi_request_t**, MPI_Status*)",
                 "(anonymous namespace)::MPI_Recv_slow", "main", "_start"}),
       {"MPI_Recv", "main", "_start"},
       {"MPI_Recv", "main"}},
      // PMPI called by the application itself is shown as the MPI call.
      {framesOf({"poll", "PMPI_Barrier", "main"}), {"MPI_Barrier", "main"}, {"MPI_Barrier", "main"}},
      // No MPI frame: unchanged (a computing rank); a thread starts at start_thread.
      {framesOf({"compute", "worker", "start_thread", "clone3"}),
       {"compute", "worker", "start_thread", "clone3"},
       {"compute", "worker", "start_thread"}},
      // Neither main nor start_thread: nothing cut above.
      {framesOf({"f", "g"}), {"f", "g"}, {"f", "g"}},
      {{}, {}, {}},
      // Names that only look alike are not MPI entries.
      {framesOf({"MPIX_thing", "mpi_send_", "main"}), {"MPIX_thing", "mpi_send_", "main"},
       {"MPIX_thing", "mpi_send_", "main"}},
  };
  for (const Row& row : rows) {
    CHECK(namesOf(cutAtMpiCall(row.in)) == row.mpi);
    CHECK(namesOf(cutAboveMain(cutAtMpiCall(row.in))) == row.main);
  }
}

TEST_CASE("the runtime's freeze --now handler is cut, an application's handler kept", "[stacks][query]") {
  const auto frozen = framesOf({"syscall", "mpidbg::rt::Control::waitWhileHeld(unsigned int) const",
                                "_FUN", "__restore_rt", "spin_loop", "main", "_start"});
  CHECK(namesOf(cutRuntimeHandler(frozen)) == std::vector<std::string>{"spin_loop", "main", "_start"});
  const auto viaGdb = framesOf({"syscall", "mpidbg::rt::Control::onFreezeSignal(int)",
                                "<signal handler called>", "compute", "main"});
  CHECK(namesOf(cutRuntimeHandler(viaGdb)) == std::vector<std::string>{"compute", "main"});
  const auto own = framesOf({"write", "on_alarm", "__restore_rt", "main"});
  CHECK(namesOf(cutRuntimeHandler(own)) == namesOf(own));
  const auto none = framesOf({"compute", "main"});
  CHECK(namesOf(cutRuntimeHandler(none)) == namesOf(none));
}

TEST_CASE("gdb's stacks and failures merge into one tree with the runtime's", "[stacks][query]") {
  StackInput input;
  // Rank 0 held by gdb: main thread in MPI_Allreduce, a UCX thread, and the
  // runtime's helper thread, which is left out.
  input.viaGdb[0] = {gdbThread(101, "solver", {"poll", "PMPI_Allreduce", "MPI_Allreduce", "main", "_start"}),
                     gdbThread(102, "async", {"epoll_wait", "start_thread", "clone3"}),
                     gdbThread(103, "mpidbg-helper", {"poll", "helperLoop", "start_thread", "clone3"})};
  input.gdbReason[0] = "held by gdb";
  input.viaGdb[1] = {gdbThread(201, "solver", {"nanosleep", "MPI_Allreduce_slow", "main"}),
                     gdbThread(202, "async", {"epoll_wait", "start_thread"})};
  input.viaGdb[2] = {gdbThread(301, "mpidbg-helper", {"poll"})};
  input.failed[3] = "exited with code 0";
  stacks::Symbolizer symbolizer;
  const auto tree = buildStackTree(input, stacks::NodeKey::Function, StackDepth::ToMpiCall, symbolizer);
  const std::string leaves = stacks::renderLeaves(tree);
  CHECK_THAT(leaves, Catch::Contains("main > MPI_Allreduce  [0-1]"));
  CHECK_THAT(leaves, Catch::Contains("start_thread > epoll_wait  [0-1]"));
  CHECK_THAT(leaves, !Catch::Contains("helperLoop"));
  CHECK_THAT(leaves, Catch::Contains("[2]: gdb printed no thread"));
  CHECK_THAT(leaves, Catch::Contains("[3]: exited with code 0"));
  const auto classes = tree.equivalenceClasses();
  REQUIRE(classes.size() == 1);
  CHECK(classes[0].ranks.toString() == "[0-1]");

  // Every frame, when asked.
  const auto all = buildStackTree(input, stacks::NodeKey::Function, StackDepth::All, symbolizer);
  CHECK_THAT(stacks::renderLeaves(all), Catch::Contains("_start > main > MPI_Allreduce > PMPI_Allreduce > poll  [0]"));
}

TEST_CASE("nameMain names the unknown callee of glibc's start-up", "[stacks][query]") {
  struct Row {
    std::vector<SymbolFrame> frames;
    std::vector<std::string> expected;
  };
  const Row rows[] = {
      {framesOf({"MPI_Send", "??", "??", "__libc_start_call_main", "__libc_start_main_impl", "_start"}),
       {"MPI_Send", "??", "main", "__libc_start_call_main", "__libc_start_main_impl", "_start"}},
      {framesOf({"poll", "??", "__libc_start_main", "_start"}), {"poll", "main", "__libc_start_main", "_start"}},
      {framesOf({"poll", "solve", "__libc_start_call_main"}), {"poll", "solve", "__libc_start_call_main"}},
      {framesOf({"??", "start_thread"}), {"??", "start_thread"}},
      {framesOf({"__libc_start_call_main", "??"}), {"__libc_start_call_main", "??"}},
  };
  for (const Row& row : rows) CHECK(namesOf(nameMain(row.frames)) == row.expected);
}

TEST_CASE("foldUnknownRuns makes runs of unknown frames of one object one frame", "[stacks][query]") {
  auto frames = framesOf({"MPI_Send", "??", "??", "??", "??", "main", "??", "??", "_start"});
  for (std::size_t i = 1; i <= 4; ++i) {
    frames[i].module = "/opt/nwchem/bin/nwchem.mpich";
    frames[i].offset = 0x1000 + i;
  }
  frames[6].module = "/opt/nwchem/bin/nwchem.mpich";
  frames[7].module = "/lib/libother.so";  // another object: not one run
  const auto folded = foldUnknownRuns(frames);
  CHECK(namesOf(folded) == std::vector<std::string>{"MPI_Send", "?? x4", "main", "??", "??", "_start"});
  CHECK(folded[1].offset == 0x1001);  // the innermost frame of the run
  CHECK(stacks::frameLabel(folded[1], stacks::NodeKey::Function) == "?? x4 (nwchem.mpich)");
  CHECK(stacks::frameLabel(folded[3], stacks::NodeKey::Function) == "?? (nwchem.mpich)");
  CHECK(namesOf(foldUnknownRuns(framesOf({"??"}))) == std::vector<std::string>{"??"});
}

TEST_CASE("where leaves out the MPI library's own threads unless asked", "[stacks][query]") {
  namespace proto = mpidbg::ccs::proto;
  StackInput input;
  proto::RankStacks rank;
  rank.worldRank = 0;
  rank.modules = {{"/work/build/examples/ring", ""},
                  {"/lib/x86_64-linux-gnu/libc.so.6", ""},
                  {"/lib/x86_64-linux-gnu/libucs.so.0", ""},
                  {"/lib/x86_64-linux-gnu/libmpich.so.12", ""}};
  auto thread = [](int tid, bool main, std::initializer_list<int> modules) {
    proto::ThreadStack t;
    t.tid = tid;
    t.mainThread = main;
    for (int m : modules) t.frames.push_back({m, 0x100u + static_cast<unsigned>(t.frames.size()), false});
    return t;
  };
  rank.threads = {thread(10, true, {3, 0, 1, 0}),  // main: the executable is in it
                  thread(11, false, {1, 2, 2, 1}),  // UCX's progress thread: libc and libucs only
                  thread(12, false, {1, 0, 1}),     // an application thread
                  thread(13, false, {1, 1}),        // libc only: not known to be ours, kept
                  thread(14, false, {1, -1, 1})};   // a pc in no module: kept
  input.captured.push_back(rank);
  // Through gdb: hidden only when gdb named every frame's library.
  GdbThread ucx = gdbThread(2, "", {"epoll_wait", "ucs_event_set_wait", "??", "start_thread"});
  for (auto& f : ucx.frames) f.module = "/lib/x86_64-linux-gnu/libucs.so.0";
  ucx.frames.front().module = ucx.frames.back().module = "/lib/x86_64-linux-gnu/libc.so.6";
  GdbThread debugInfo = gdbThread(3, "", {"epoll_wait", "ucs_event_set_wait", "start_thread"});
  debugInfo.frames[1].module = "/lib/x86_64-linux-gnu/libucs.so.0";
  input.viaGdb[1] = {gdbThread(1, "", {"poll", "MPI_Recv", "main"}), ucx, debugInfo};
  stacks::Symbolizer symbolizer;
  HiddenThreads hidden;
  const auto tree = buildStackTree(input, stacks::NodeKey::Function, StackDepth::All, symbolizer,
                                   ThreadChoice::Application, &hidden);
  CHECK(hidden.threads == 2);
  CHECK(hidden.ranks.toString() == "[0-1]");
  const std::string leaves = stacks::renderLeaves(tree);
  CHECK_THAT(leaves, !Catch::Contains("libucs"));
  CHECK_THAT(leaves, Catch::Contains("start_thread > ucs_event_set_wait > epoll_wait  [1]"));  // gdb, unknown libc
  HiddenThreads none;
  const auto all = buildStackTree(input, stacks::NodeKey::Function, StackDepth::All, symbolizer,
                                  ThreadChoice::All, &none);
  CHECK(none.threads == 0);
  CHECK_THAT(stacks::renderLeaves(all), Catch::Contains("libucs.so.0"));
}

TEST_CASE("mpiCallSites names the caller of the MPI call a rank's thread is in, or its own code outside MPI", "[stacks][query]") {
  StackInput input;
  GdbThread main0 = gdbThread(101, "solver", {"poll", "PMPI_Recv", "MPI_Recv", "exchange", "main"});
  main0.number = 1;
  main0.frames[3].file = "/home/me/src/ring.c";
  main0.frames[3].line = 12;
  GdbThread helper = gdbThread(102, "async", {"epoll_wait", "start_thread"});
  helper.number = 2;
  input.viaGdb[0] = {helper, main0};  // gdb prints thread 1 last
  // No line information: the object and offset of the caller instead.
  GdbThread main1 = gdbThread(201, "solver", {"nanosleep", "MPI_Allreduce_slow", "MPI_Allreduce", "??", "main"});
  main1.number = 1;
  main1.frames[3].module = "/opt/app/libsolver.so";
  input.viaGdb[1] = {main1};
  // Not in an MPI call (polling between two MPI_Test calls): the innermost
  // frame of the application's code.
  GdbThread main2 = gdbThread(301, "solver", {"nanosleep", "compute", "main"});
  main2.number = 1;
  main2.frames[0].module = "/lib/x86_64-linux-gnu/libc.so.6";
  main2.frames[1].file = "/home/me/src/solver.c";
  main2.frames[1].line = 40;
  input.viaGdb[2] = {main2};
  // Nothing of the application's on the stack: no call site.
  GdbThread main4 = gdbThread(501, "solver", {"epoll_wait", "start_thread"});
  main4.number = 1;
  main4.frames[0].module = "/lib/x86_64-linux-gnu/libc.so.6";
  main4.frames[1].module = "/lib/x86_64-linux-gnu/libc.so.6";
  input.viaGdb[4] = {main4};
  // The runtime's wrapper tail-called its helper: the helper is skipped.
  GdbThread main3 = gdbThread(401, "solver", {"nanosleep", "PMPI_Recv", "recvPlain", "main"});
  main3.number = 1;
  main3.frames[2].module = "/usr/lib/libmpidbg-rt.so";
  main3.frames[3].file = "wildcard_done.c";
  main3.frames[3].line = 9;
  input.viaGdb[3] = {main3};
  // The MPI calls are made by a thread of the program's own while the main
  // thread joins it: that thread's call site.
  GdbThread main5 = gdbThread(601, "solver", {"__futex_abstimed_wait_common", "pthread_join", "main"});
  main5.number = 1;
  main5.frames[0].module = main5.frames[1].module = "/lib/x86_64-linux-gnu/libc.so.6";
  main5.frames[2].file = "driver.c";
  main5.frames[2].line = 30;
  GdbThread worker = gdbThread(602, "solver", {"poll", "MPI_Recv", "communicate", "start_thread"});
  worker.number = 2;
  worker.frames[2].file = "driver.c";
  worker.frames[2].line = 17;
  worker.frames[3].module = "/lib/x86_64-linux-gnu/libc.so.6";
  input.viaGdb[5] = {worker, main5};
  stacks::Symbolizer symbolizer;
  const auto sites = mpiCallSites(input, symbolizer);
  CHECK(sites.size() == 5);
  CHECK(sites.at(3) == "wildcard_done.c:9 in main");
  CHECK(sites.at(0) == "ring.c:12 in exchange");
  CHECK(sites.at(1) == "?? (libsolver.so)");
  CHECK(sites.at(2) == "solver.c:40 in compute");
  CHECK_FALSE(sites.contains(4));
  CHECK(sites.at(5) == "driver.c:17 in communicate");
}
