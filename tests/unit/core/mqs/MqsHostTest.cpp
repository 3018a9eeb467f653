// Loading message-queue DLLs: ours, Open MPI's (as Debian ships it: loads,
// then refuses because libmpi is stripped, and its words must reach the
// Error), and broken ones (missing file, missing functions).

#include <catch2/catch.hpp>
#include <string>

#include "ForkedChild.hpp"
#include "debugger/core/mqs/MqsHost.hpp"
#include "debugger/core/mqs/ProcessMemory.hpp"
#include "debugger/core/mqs/QueueReader.hpp"
#include "debugger/core/mqs/QueueSources.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"

using mpidbg::core::mqs::MqsHost;
using mpidbg::core::mqs::ProcessMemory;
using mpidbg::core::mqs::readRankQueues;
using mpidbg::core::mqs::SymbolSource;
using mpidbg::core::mqs::Target;
using mqs_test::ForkedChild;
using mqs_test::selfExe;
using mqs_test::why;

namespace {

constexpr const char* kOpenMpiDll =
    "/usr/lib/x86_64-linux-gnu/openmpi/lib/openmpi3/libompi_dbg_msgq.so";


}  // namespace

TEST_CASE("Open MPI's DLL loads and its complaint reaches the Error verbatim", "[mqshost][dll]") {
  auto host = MqsHost::load(kOpenMpiDll);
  INFO(why(host));
  REQUIRE(host);
  CHECK((*host)->fileName() == "libompi_dbg_msgq.so");
  CHECK_FALSE((*host)->hasCollState());  // Open MPI as shipped has no collective extension
  CHECK_FALSE((*host)->hasMpidbgExtensions());
  CHECK((*host)->functions().getCommGroup != nullptr);

  ForkedChild child;
  ProcessMemory memory(child.pid());
  auto symbols = SymbolSource::fromProcess(child.pid());
  REQUIRE(symbols);
  Target target{0, memory, *symbols, {}, {}};
  auto queues = readRankQueues(**host, target);
  REQUIRE_FALSE(queues);
  const std::string& message = queues.error().message;
  INFO(message);
  // The DLL's own words: its has_queues message (the missing type's name)
  // and mqs_dll_error_string of its code, unchanged.
  CHECK_THAT(message, Catch::StartsWith("libompi_dbg_msgq.so: no message queues in " + selfExe() +
                                        ": opal_list_item_t [Failed to find some type (mqs code "));
  CHECK_THAT(message, Catch::Contains("the target has no DWARF for type opal_list_item_t"));
}

TEST_CASE("a core read with Open MPI's DLL carries the same complaint", "[mqshost][dll][core]") {
  MQS_TEST_SKIP_CORES();
  mqs_test::TempDir dir;
  ForkedChild child;
  const std::string corePath = mqs_test::makeCore(child.pid(), dir.path());
  REQUIRE_FALSE(corePath.empty());
  auto ranks = mpidbg::core::mqs::readCoreFiles({corePath}, kOpenMpiDll);
  REQUIRE(ranks);
  REQUIRE(ranks->size() == 1);
  const auto& rank = ranks->front();
  CHECK(rank.worldRank == -1);  // no mpidbg runtime in the child
  CHECK(rank.source == "core:" + corePath);
  CHECK_THAT(rank.error, Catch::Contains("Failed to find some type"));
}

TEST_CASE("our DLL loads with every extension", "[mqshost][dll]") {
  const std::string path = mpidbg::core::mqs::defaultDllPath();
  CHECK_THAT(path, Catch::EndsWith("/lib/libmpidbg-mqs.so"));
  auto host = MqsHost::load(path);
  INFO(why(host));
  REQUIRE(host);
  CHECK((*host)->hasCollState());
  CHECK((*host)->hasMpidbgExtensions());
  const auto& fn = (*host)->functions();
  CHECK(fn.getCommGroup);
  CHECK(fn.lastOperationDetail);
  CHECK(fn.getCommCollSeq);
  CHECK(fn.setupCollHistory);
  CHECK(fn.nextCollRecord);
  CHECK_FALSE((*host)->version().empty());

  // A process without the runtime: our DLL says so, and the reader passes
  // its words on.
  ForkedChild child;
  auto queues = mpidbg::core::mqs::readLiveRank(-1, child.pid(), path);
  REQUIRE_FALSE(queues);
  INFO(queues.error().message);
  CHECK_THAT(queues.error().message, Catch::StartsWith("libmpidbg-mqs.so: no message queues in "));
}

TEST_CASE("broken DLLs give clear errors", "[mqshost][dll]") {
  auto missing = MqsHost::load("/nonexistent/libnothing.so");
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message,
             Catch::StartsWith("cannot load mqs DLL /nonexistent/libnothing.so: "));
  CHECK_THAT(missing.error().message, Catch::Contains("No such file or directory"));

  // A real shared library that is no mqs DLL.
  auto notDll = MqsHost::load("libm.so.6");
  REQUIRE_FALSE(notDll);
  CHECK(notDll.error().message ==
        "mqs DLL libm.so.6 lacks the required function mqs_setup_basic_callbacks");

  auto shared = MqsHost::shared("/nonexistent/libnothing.so");
  REQUIRE_FALSE(shared);
}

TEST_CASE("choosing the DLL: override, MPIR_dll_name, default", "[mqshost][dll]") {
  ForkedChild child;
  ProcessMemory memory(child.pid());
  auto symbols = SymbolSource::fromProcess(child.pid());
  REQUIRE(symbols);
  CHECK(mpidbg::core::mqs::chooseDll("/some/dll.so", memory, *symbols) == "/some/dll.so");
  // The test binary has no MPIR_dll_name: the default beside bin/.
  CHECK(mpidbg::core::mqs::chooseDll("", memory, *symbols) == mpidbg::core::mqs::defaultDllPath());
}

TEST_CASE("has_queues messages: one %s is the image, the rest verbatim", "[mqshost][dll]") {
  struct Row {
    const char* format;
    const char* expected;
  };
  const Row rows[] = {
      {"The symbols in the image '%s' are not as expected\n",
       "The symbols in the image '/bin/app' are not as expected"},
      {"opal_list_item_t", "opal_list_item_t"},
      {"100%% sure about %s and %s", "100% sure about /bin/app and %s"},
      {"%d stays %", "%d stays %"},
      {"", ""},
  };
  for (const Row& row : rows) {
    INFO(row.format);
    CHECK(mpidbg::core::mqs::formatQueuesMessage(row.format, "/bin/app") == row.expected);
  }
}

TEST_CASE("collectives inferred from stack frames", "[mqshost]") {
  using mpidbg::ccs::proto::CollClass;
  using mpidbg::core::mqs::inferCollectiveFromFrames;
  struct Row {
    std::vector<std::string> frames;
    std::optional<CollClass> expected;
  };
  const std::vector<Row> rows = {
      {{"poll", "MPIDI_progress_test", "PMPI_Barrier", "MPI_Barrier", "main at d.c:9"},
       CollClass::Barrier},
      {{"MPI_Allreduce(sendbuf=0x1, ...) at wrap.c:3"}, CollClass::Allreduce},
      {{"#2  0x00007f01 in PMPI_Reduce_scatter (a=1) at x.c:1"}, CollClass::ReduceScatter},
      {{"mpi_bcast_", "MAIN__"}, CollClass::Bcast},
      {{"MPI_ALLGATHERV"}, CollClass::Allgatherv},
      {{"PMPI_Scatterv"}, CollClass::Scatterv},
      {{"MPI_Scan"}, CollClass::Scan},
      {{"MPI_Recv", "main"}, std::nullopt},
      {{"MPI_Ibarrier", "main"}, std::nullopt},  // nonblocking: not inside a collective
      {{"MPIR_Barrier_impl", "main"}, std::nullopt},
      {{"MPI_Barrierx"}, std::nullopt},
      {{}, std::nullopt},
  };
  for (const Row& row : rows) {
    INFO((row.frames.empty() ? std::string("(none)") : row.frames.front()));
    CHECK(inferCollectiveFromFrames(row.frames) == row.expected);
  }
}
