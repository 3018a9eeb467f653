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
