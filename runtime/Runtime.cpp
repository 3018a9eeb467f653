#include "Runtime.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <thread>

#include "CallScope.hpp"
#include "Control.hpp"
#include "ccs/ControlProtocol.hpp"
#include "Handlers.hpp"
#include "Pmix.hpp"
#include "StackCapture.hpp"
#include "ccs/Auth.hpp"
#include "ccs/Forwarder.hpp"
#include "ccs/Frame.hpp"
#include "ccs/QueueProtocol.hpp"
#include "ccs/StackProtocol.hpp"
#include "ccs/RecordProtocol.hpp"
#include "ccs/ThreadLevelProtocol.hpp"

namespace mpidbg::rt {

std::atomic<Runtime*> gAttached{nullptr};
__thread int tCallDepth __attribute__((tls_model("initial-exec"))) = 0;

namespace {

using namespace std::chrono_literals;

constexpr auto kConnectTimeout = 10000ms;
constexpr auto kPollInterval = 100ms;
constexpr std::size_t kChallengeBytes = 32;

std::string envOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

/// The 256-bit session key from MPIDBG_KEY_FILE: 64 hex characters (surrounding
/// whitespace ignored) in a regular file that only its owner can access.
Expected<std::vector<std::uint8_t>> readKey() {
  const char* path = std::getenv("MPIDBG_KEY_FILE");
  if (!path || !*path) return fail("MPIDBG_FRONTEND is set but MPIDBG_KEY_FILE is not");
  struct stat st {};
  if (::stat(path, &st) != 0) return fail(std::string("cannot read key file ") + path + ": " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return fail(std::string("key file ") + path + " is not a regular file");
  if (st.st_mode & 077)
    return fail(std::string("key file ") + path + " is accessible by group or others (want mode 0600)");
  std::ifstream in(path);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) return fail(std::string("cannot read key file ") + path);
  auto key = ccs::fromHex(trim(text));
  if (!key || key->size() != ccs::kSessionKeyBytes)
    return fail(std::string("key file ") + path + " does not hold 64 hex characters");
  return key;
}

/// First line of MPI_Get_library_version, trimmed.
std::string mpiLibrary() {
  std::string text(MPI_MAX_LIBRARY_VERSION_STRING, '\0');
  int length = 0;
  if (PMPI_Get_library_version(text.data(), &length) != MPI_SUCCESS) return "unknown";
  text.resize(static_cast<std::size_t>(length));
  std::string_view v = text;
  v = trim(v);
  v = trim(v.substr(0, v.find('\n')));
  // "MPICH Version:\t4.0.2" -> "MPICH Version: 4.0.2": one space per blank run.
  std::string line;
  for (char c : v) {
    const bool blank = c == ' ' || c == '\t' || c == '\r';
    if (!blank) line += c;
    else if (line.empty() || line.back() != ' ') line += ' ';
  }
  return line;
}

std::string hostName() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

/// Under srun without an MPI plugin (no `--mpi=pmi2`; Slurm's own default is
/// MpiDefault=none) MPICH finds no PMI, so each task is a job of its own,
/// rank 0 of 1, and the front end sees one rank where srun started many.
/// Says so on stderr; does nothing outside Slurm or when the sizes agree.
void warnIfSingletonTask(int size) {
  const char* tasks = std::getenv("SLURM_STEP_NUM_TASKS");
  if (size != 1 || !tasks) return;
  const long count = std::strtol(tasks, nullptr, 10);
  if (count > 1)
    std::fprintf(stderr,
                 "mpidbg-rt: srun started %ld tasks but MPI_COMM_WORLD has size 1: MPI found no "
                 "Slurm PMI; run srun --mpi=pmi2\n",
                 count);
}

}  // namespace

Runtime::Runtime(std::int32_t rank, std::int32_t size, std::int32_t threadLevel)
    : rank_(rank), size_(size), threadLevel_(threadLevel) {
  call_.setExclusive(threadLevel < MPI_THREAD_MULTIPLE);
}

void Runtime::startAfterInit(int providedThreadLevel) noexcept {
  const char* frontend = std::getenv("MPIDBG_FRONTEND");
  if (!frontend || !*frontend || attached()) return;
  // Collective when "auto": before anything that can fail on one rank only.
  decideIdleWait();
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  warnIfSingletonTask(size);
  try {
    std::unique_ptr<Runtime> rt(new Runtime(rank, size, providedThreadLevel));
    if (auto started = rt->start(frontend); !started) {
      std::fprintf(stderr, "mpidbg-rt: rank %d: %s; running without the debugger\n", rank,
                   started.error().message.c_str());
      return;
    }
    rt->launchHelper();
    calibrateCallClock();
    // Idle waiting happens on the slow path (the PMPI call is replaced).
    gFastPath = gCallClockTsc && rt->currentCall().exclusive() && !gIdleWait;
    publishState(*rt, providedThreadLevel);
    // From here on the object lives until the process is gone.
    Runtime* raw = rt.release();
    gAttached.store(raw, std::memory_order_release);
    reportCallsBeforeInit(*raw);
    raw->waitWhileFrozen();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: %s; running without the debugger\n", rank, e.what());
  } catch (...) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: internal error; running without the debugger\n", rank);
  }
}

Expected<void> Runtime::start(const std::string& frontend) {
  auto where = ccs::Endpoint::parse(frontend);
  if (!where) return fail("bad MPIDBG_FRONTEND '" + frontend + "': " + where.error().message);
  auto key = readKey();
  if (!key) return std::unexpected(key.error());
  const std::string stopAtInit = envOr("MPIDBG_STOP_AT_INIT", "1");

  std::array<char, 64> name{};
  for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_SELF}) {
    CommInfo info = describeComm(comm);
    defaultCommName(comm, name);
    info.name = name.data();
    comms_.add(commKey(comm), info);
  }

  ccs::ServerOptions options;
  options.bindAddress = envOr("MPIDBG_CCS_BIND", "127.0.0.1");
  options.port = 0;
  options.pe = rank_;
  // TLS 1.3 with the session key unless plain CCS was asked for explicitly
  // (MPIDBG_CCS_SECURITY=plain; mpidbg --ccs-plain). Plain is persistent too,
  // so the front end keeps one connection per rank either way.
  const std::string security = envOr("MPIDBG_CCS_SECURITY", "tls");
  if (security == "tls") {
    options.security = ccs::Security{ccs::SecurityMode::Tls, *key, "mpidbg-session"};
  } else if (security == "plain") {
    options.security = ccs::Security{ccs::SecurityMode::Plain, {}, "mpidbg-session"};
    options.persistent = true;
  } else {
    return fail("bad MPIDBG_CCS_SECURITY '" + security + "' (expected tls or plain)");
  }
  options.log = [rank = rank_](const std::string& line) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: %s\n", rank, line.c_str());
  };
  const ccs::Security serverSecurity = options.security;
  auto server = ccs::Server::create(std::move(options));
  if (!server) return fail("cannot start the CCS server: " + server.error().message);
  server_ = std::move(*server);
  registerHandlers(*server_, *this);
  if (auto installed = installForwarder(serverSecurity); !installed) return installed;

  if (auto connected = events_.connect(*where, kConnectTimeout); !connected) return connected;
  auto challenge = events_.receive(kChallengeBytes, kConnectTimeout);
  if (!challenge) return std::unexpected(challenge.error());

  ccs::proto::Registration reg;
  reg.rank = rank_;
  reg.size = size_;
  reg.host = hostName();
  reg.pid = static_cast<std::int32_t>(::getpid());
  reg.port = server_->endpoint().port;
  reg.mpiLibrary = mpiLibrary();
  reg.threadLevel = threadLevel_;
  // Under a PMIx server: its facts, and the endpoint published for tools.
  if (const PmixFacts pmix = readPmixFacts(); pmix.available) {
    reg.pmixNamespace = pmix.nspace;
    reg.pmixRank = pmix.rank;
    reg.node = pmix.node;
    const std::string why = publishPmixEndpoint(pmix, reg.host + ":" + std::to_string(reg.port));
    reg.pmixPublished = why.empty();
    if (!why.empty()) std::fprintf(stderr, "mpidbg-rt: rank %d: PMIx: endpoint not published: %s\n", rank_, why.c_str());
  }
  const std::string unsigned_ = ccs::proto::encode(reg, false);
  std::vector<std::uint8_t> macInput = *challenge;
  macInput.insert(macInput.end(), unsigned_.begin(), unsigned_.end());
  reg.mac = ccs::hmacSha256Hex(*key, macInput);

  ccs::Request request;
  request.pe = rank_;
  request.handler = std::string(ccs::proto::kRegisterHandler);
  const std::string body = ccs::proto::encode(reg);
  request.data.assign(body.begin(), body.end());
  auto frame = ccs::encodeRequest(request);
  if (!frame) return fail("cannot encode the registration: " + frame.error().message);
  if (auto sent = events_.sendAll(*frame); !sent) return sent;
  if (auto hooks = events_.armProcessHooks(rank_); !hooks) return hooks;

  frozen_.store(stopAtInit != "0", std::memory_order_release);
  const int fd = events_.fd();
  server_->watch(fd, [this, fd](short revents) {
    char sink[256];
    const ssize_t got = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
    const bool retry = got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
    if (got == 0 || (got < 0 && !retry) || ((revents & (POLLHUP | POLLERR)) && got <= 0 && !retry))
      channelClosed_ = true;
  });
  return {};
}

Expected<void> Runtime::installForwarder(const ccs::Security& security) {
  ccs::ForwarderOptions options;
  options.pe = rank_;
  options.security = security;
  options.mergeTable = ccs::MergeTable::charmDebugDefaults();
  // mpidbg's handlers: records (each ending with a separator, or for queues
  // the `==` terminator) concatenate in rank order; continue answers empty.
  for (std::string_view handler : {ccs::proto::kStatusHandler, ccs::proto::kCollectivesHandler,
                                   ccs::proto::kQueuesHandler, ccs::proto::kContinueHandler,
                                   ccs::proto::kStacksHandler, ccs::proto::kThreadLevelHandler,
                                   ccs::proto::kRecordHandler})
    options.mergeTable.add(std::string(handler), ccs::MergeRule::Concatenate);
  for (std::string_view handler : ccs::proto::kControlHandlers)
    options.mergeTable.add(std::string(handler), ccs::MergeRule::Concatenate);
  // Children of one node are contacted in parallel: fan-out workers suffice.
  options.maxThreads = ccs::kDefaultFanOut + 1;
  options.log = [rank = rank_](const std::string& line) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: %s\n", rank, line.c_str());
  };
  auto forwarder = ccs::Forwarder::install(*server_, std::move(options));
  if (!forwarder) return fail("cannot start the forwarding tree: " + forwarder.error().message);
  forwarder_ = std::move(*forwarder);
  return {};
}

void Runtime::launchHelper() {
  // The helper thread takes no asynchronous signals: they stay with the
  // application's threads. The mask is inherited, so block around creation.
  sigset_t all;
  sigset_t previous;
  sigfillset(&all);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigdelset(&all, sig);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  try {
    std::thread([this] { helperLoop(); }).detach();
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

void Runtime::helperLoop() noexcept {
  // Named before it starts any thread: forwarding workers inherit the name,
  // so stack capture skips them all.
  StackCapture::markHelperThread();
  bool watching = true;
  for (;;) {
    try {
      server_->pollOnce(kPollInterval);
      if (watching && channelClosed_) {
        server_->unwatch(events_.fd());
        watching = false;
        onFrontendLost();
      }
    } catch (...) {
      // pollOnce never throws by contract; keep serving regardless.
    }
  }
}

void Runtime::onFrontendLost() noexcept {
  events_.markLost();
  Control::instance().detach();
  resume();
}

void Runtime::resume() noexcept {
  frozen_.store(false, std::memory_order_release);
  frozen_.notify_all();
}

void Runtime::waitWhileFrozen() noexcept {
  while (frozen_.load(std::memory_order_acquire)) frozen_.wait(true, std::memory_order_acquire);
}

void Runtime::markFinalized() noexcept {
  finalized_.store(true, std::memory_order_release);
  setPhase(MPIDBG_PHASE_FINALIZED);
  ccs::proto::Event event;
  event.kind = ccs::proto::Event::Kind::Finalized;
  events_.send(rank_, event);
}

ccs::proto::RankState Runtime::state(bool inCall) const noexcept {
  using ccs::proto::RankState;
  if (frozen_.load(std::memory_order_acquire)) return RankState::Frozen;
  if (inCall) return RankState::InMpi;
  if (finalized_.load(std::memory_order_acquire)) return RankState::Finalized;
  return RankState::Running;
}

}  // namespace mpidbg::rt
