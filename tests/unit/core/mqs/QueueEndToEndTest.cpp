// End to end (hidden tag [.e2e]; run with `mpidbg_unit_tests "[.e2e]"`):
// a real 4-rank MPICH job of examples/deadlock under the real mpidbg (which
// preloads the runtime), then every rank's queues read from outside through
// the mqs DLL the runtime names in MPIR_dll_name: live (process_vm_readv),
// SIGSTOPped, held by gdb, and from a gcore core file. Ranks 0, 1 and 3 are
// in call 1 to MPI_Allreduce on MPI_COMM_WORLD; rank 2 is in MPI_Recv from
// rank 0, tag 99.

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include "ForkedChild.hpp"
#include "debugger/core/mqs/QueueReader.hpp"
#include "debugger/core/mqs/QueueSources.hpp"
#include "debugger/gdbmi/Session.hpp"

using mpidbg::ccs::proto::CollClass;
using mpidbg::ccs::proto::CommQueues;
using mpidbg::ccs::proto::RankQueues;
using mqs_test::why;
using namespace std::chrono_literals;

namespace {

constexpr std::size_t kAllreduce = static_cast<std::size_t>(CollClass::Allreduce);

std::filesystem::path buildDir() {
  return std::filesystem::read_symlink("/proc/self/exe").parent_path().parent_path();
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Processes whose environment carries MPIDBG_MQSHOST_E2E=<marker> and whose
/// executable is `exe` ("" = any).
std::vector<pid_t> markedProcesses(const std::string& marker, const std::string& exe) {
  std::vector<pid_t> out;
  const std::string needle = "MPIDBG_MQSHOST_E2E=" + marker;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    const std::string env = readFile(entry.path().string() + "/environ");
    bool found = false;
    for (std::size_t at = 0; at < env.size();) {
      const std::size_t end = env.find('\0', at);
      if (env.compare(at, end - at, needle) == 0) found = true;
      if (end == std::string::npos) break;
      at = end + 1;
    }
    if (!found) continue;
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(entry.path() / "exe", ec);
    if (!exe.empty() && (ec || target.string() != exe)) continue;
    out.push_back(static_cast<pid_t>(std::stoi(name)));
  }
  return out;
}

/// mpidbg running a job, stdin from a fifo; the job and mpidbg are ended
/// (kill + quit, then SIGKILL by pid of what is left) on scope exit.
class MpidbgSession {
 public:
  MpidbgSession(const std::string& dir, const std::vector<std::string>& args) : dir_(dir) {
    const std::string fifo = dir + "/stdin";
    REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      ::setenv("MPIDBG_MQSHOST_E2E", dir.c_str(), 1);
      const int in = ::open(fifo.c_str(), O_RDONLY);
      const int out = ::open((dir + "/out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      const int err = ::open((dir + "/err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
      ::dup2(in, 0);
      ::dup2(out, 1);
      ::dup2(err, 2);
      std::vector<char*> argv;
      for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execvp(argv[0], argv.data());
      ::_exit(127);
    }
    input_ = ::open(fifo.c_str(), O_WRONLY);
    REQUIRE(input_ >= 0);
  }
  ~MpidbgSession() {
    send("kill\nquit\n");
    ::close(input_);
    for (int i = 0; i < 100 && ::waitpid(pid_, nullptr, WNOHANG) == 0; ++i) {
      std::this_thread::sleep_for(100ms);
    }
    if (::waitpid(pid_, nullptr, WNOHANG) == 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    for (pid_t left : markedProcesses(dir_, "")) ::kill(left, SIGKILL);
  }
  MpidbgSession(const MpidbgSession&) = delete;
  MpidbgSession& operator=(const MpidbgSession&) = delete;

  void send(const std::string& text) {
    if (input_ >= 0) (void)!::write(input_, text.data(), text.size());
  }
  /// Waits up to `limit` for `needle` in mpidbg's stdout.
  bool waitForOutput(const std::string& needle, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      if (readFile(dir_ + "/out").find(needle) != std::string::npos) return true;
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }
  std::string output() const { return readFile(dir_ + "/out") + readFile(dir_ + "/err"); }

 private:
  std::string dir_;
  pid_t pid_ = -1;
  int input_ = -1;
};

const CommQueues* world(const RankQueues& q) {
  for (const CommQueues& c : q.comms) {
    if (c.state.name == "MPI_COMM_WORLD") return &c;
  }
  return nullptr;
}

/// The deadlock's expected state of one rank.
void checkDeadlockRank(const RankQueues& q) {
  INFO("rank " << q.worldRank << " source " << q.source);
  REQUIRE(q.error.empty());
  CHECK_FALSE(mpidbg::core::mqs::collectivesFromFrames(q));
  REQUIRE(q.call);
  const CommQueues* w = world(q);
  REQUIRE(w);
  CHECK(w->state.size == 4);
  CHECK(w->state.localRank == q.worldRank);
  CHECK(w->worldRanks == std::vector<std::int32_t>{0, 1, 2, 3});
  if (q.worldRank == 2) {
    CHECK(q.call->function == "MPI_Recv");
    CHECK(q.call->peerRole == "source");
    CHECK(q.call->peer == 0);
    CHECK(q.call->tag == 99);
    CHECK(q.call->commName == "MPI_COMM_WORLD");
    CHECK(w->state.counts[kAllreduce] == 0);
    CHECK_FALSE(w->state.active[kAllreduce]);
    // The blocking receive is a pending receive from 0, tag 99.
    bool sawRecv = false;
    for (const auto& op : w->recvs) {
      if (op.peer == 0 && op.tag == 99) sawRecv = true;
    }
    CHECK(sawRecv);
  } else {
    CHECK(q.call->function == "MPI_Allreduce");
    CHECK(q.call->collCall == 1);
    CHECK(w->state.counts[kAllreduce] == 1);
    CHECK(w->state.active[kAllreduce]);
  }
}

}  // namespace

TEST_CASE("queues of a deadlocked MPICH job, read from outside", "[.e2e][mqshost_e2e]") {
  const auto build = buildDir();
  const std::string deadlock = (build / "examples" / "deadlock").string();
  REQUIRE(std::filesystem::exists(build / "bin" / "mpidbg"));
  REQUIRE(std::filesystem::exists(build / "lib" / "libmpidbg-rt.so"));
  REQUIRE(std::filesystem::exists(build / "lib" / "libmpidbg-mqs.so"));
  mqs_test::TempDir dir;
  MpidbgSession session(dir.path(),
                        {"timeout", "-k", "5", "300", (build / "bin" / "mpidbg").string(), "--",
                         "mpiexec.mpich", "-n", "4", deadlock});
  INFO(session.output());
  REQUIRE(session.waitForOutput("Job started", 60s));
  session.send("run\n");

  // The four ranks, once each has entered its blocking call.
  std::map<int, pid_t> pids;
  std::map<int, RankQueues> live;
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (std::chrono::steady_clock::now() < deadline) {
    pids.clear();
    live.clear();
    for (pid_t pid : markedProcesses(dir.path(), deadlock)) {
      auto q = mpidbg::core::mqs::readLiveRank(-1, pid, "");
      if (q && q->call &&
          (q->call->function == "MPI_Recv" || q->call->function == "MPI_Allreduce")) {
        pids[q->worldRank] = pid;
        live[q->worldRank] = std::move(*q);
      }
    }
    if (live.size() == 4) break;
    std::this_thread::sleep_for(200ms);
  }
  REQUIRE(live.size() == 4);

  SECTION("live, with process_vm_readv, the DLL named by MPIR_dll_name") {
    for (const auto& [rank, q] : live) {
      CHECK(q.source == "mqs:libmpidbg-mqs.so");
      checkDeadlockRank(q);
    }
  }

  SECTION("stopped with SIGSTOP") {
    const pid_t pid = pids.at(2);
    REQUIRE(::kill(pid, SIGSTOP) == 0);
    auto q = mpidbg::core::mqs::readLiveRank(2, pid, "");
    ::kill(pid, SIGCONT);
    INFO(why(q));
    REQUIRE(q);
    checkDeadlockRank(*q);
  }

  SECTION("held by gdb, through gdb/MI, with frames") {
    mpidbg::gdbmi::SessionOptions options;
    options.startTimeout = 30000ms;
    auto gdb = mpidbg::gdbmi::Session::start(options);
    REQUIRE(gdb);
    REQUIRE((*gdb)->attach(pids.at(0), 60000ms));
    auto q = mpidbg::core::mqs::readGdbRank(0, **gdb, "");
    INFO(why(q));
    REQUIRE(q);
    checkDeadlockRank(*q);
    CHECK_FALSE(q->frames.empty());
    CHECK(mpidbg::core::mqs::inferCollectiveFromFrames(q->frames) == CollClass::Allreduce);
    (void)(*gdb)->detach(10000ms);
  }

  SECTION("from gcore core files of every rank") {
    std::vector<std::string> cores;
    for (const auto& [rank, pid] : pids) {
      const std::string core = mqs_test::makeCore(pid, dir.path());
      REQUIRE_FALSE(core.empty());
      cores.push_back(core);
    }
    auto ranks = mpidbg::core::mqs::readCoreFiles(cores, "");
    REQUIRE(ranks);
    REQUIRE(ranks->size() == 4);
    for (std::size_t i = 0; i < ranks->size(); ++i) {
      const RankQueues& q = (*ranks)[i];
      INFO(q.error);
      CHECK(q.worldRank == static_cast<int>(i));
      CHECK(q.source == "core:" + cores[i]);
      checkDeadlockRank(q);
    }
  }
}
