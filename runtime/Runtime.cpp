#include "Runtime.hpp"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <array>
#include <thread>

#include "CallScope.hpp"
#include "Control.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "Handlers.hpp"
#include "Pmix.hpp"
#include "StackCapture.hpp"
#include "StartupSettings.hpp"
#include "ccs/transport/Auth.hpp"
#include "ccs/tree/Forwarder.hpp"
#include "ccs/transport/Frame.hpp"
#include "ccs/proto/QueueProtocol.hpp"
#include "ccs/proto/StackProtocol.hpp"
#include "ccs/proto/RecordProtocol.hpp"
#include "ccs/proto/ThreadLevelProtocol.hpp"
#include "runtime/HostName.hpp"

namespace mpidbg::rt {

std::atomic<Runtime*> gAttached{nullptr};

namespace {

using namespace std::chrono_literals;

constexpr auto kConnectTimeout = 10000ms;
constexpr auto kPollInterval = 100ms;
constexpr std::size_t kChallengeBytes = 32;

/// The communicator registry and the operation table of the process's one
/// runtime: 4,096 slots each, 1.9 MiB together. Static and constant-
/// initialized, they are laid out by the linker (the registry in .bss, the
/// table in .data as its empty records hold -1s): a page costs memory only
/// once a slot on it is used, where a heap member would be written, and so
/// touched, whole when the runtime is built (issue 9's memory per rank).
constinit CommRegistry gComms;
constinit OpTable gOps;

}  // namespace

constinit CurrentCall gCurrentCall;
constinit CollHistory gCollHistory;

Runtime::Runtime(std::int32_t rank, std::int32_t size, std::int32_t threadLevel)
    : rank_(rank),
      size_(size),
      threadLevel_(threadLevel),
      comms_(gComms),
      call_(gCurrentCall),
      ops_(gOps),
      history_(gCollHistory) {
  call_.setExclusive(threadLevel < MPI_THREAD_MULTIPLE);
}

void Runtime::startAfterInit(int providedThreadLevel) noexcept {
  const char* frontend = std::getenv("MPIDBG_FRONTEND");
  const bool launched = frontend && *frontend;
  const bool charm = startup::charmCompatible();
  const bool listen = !launched && (startup::envOr("MPIDBG_LISTEN", "0") != "0" || charm);
  if (launched && charm)
    std::fprintf(stderr, "mpidbg-rt: MPIDBG_CHARM and MPIDBG_CCS_SECURITY=sha1 serve Charm++'s clients in a job "
                         "started without mpidbg; ignored under mpidbg's front end\n");
  if ((!launched && !listen) || attached()) return;
  // Collective when "auto": before anything that can fail on one rank only.
  decideIdleWait();
  int rank = 0;
  int size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  startup::warnIfSingletonTask(size);
  if (listen) {
    startListening(providedThreadLevel, rank, size);
    return;
  }
  try {
    std::unique_ptr<Runtime> rt(new Runtime(rank, size, providedThreadLevel));
    if (auto started = rt->start(frontend); !started) {
      std::fprintf(stderr, "mpidbg-rt: rank %d: %s; running without the debugger\n", rank,
                   started.error().message.c_str());
      return;
    }
    goLive(std::move(rt), providedThreadLevel)->waitWhileFrozen();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: %s; running without the debugger\n", rank, e.what());
  } catch (...) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: internal error; running without the debugger\n", rank);
  }
}

Runtime* Runtime::goLive(std::unique_ptr<Runtime> rt, int providedThreadLevel) {
  rt->launchHelper();
  calibrateCallClock();
  // Idle waiting happens on the slow path (the PMPI call is replaced).
  const bool fastPath = gCallClockTsc && rt->currentCall().exclusive() && !gIdleWait;
  publishState(*rt, providedThreadLevel);
  // From here on the object lives until the process is gone.
  Runtime* raw = rt.release();
  gAttached.store(raw, std::memory_order_release);
  if (fastPath) __atomic_store_n(&gFastRuntime, raw, __ATOMIC_SEQ_CST);
  refreshFastGate();
  reportCallsBeforeInit(*raw);
  return raw;
}

Expected<void> Runtime::start(const std::string& frontend) {
  auto where = ccs::Endpoint::parse(frontend);
  if (!where) return fail("bad MPIDBG_FRONTEND '" + frontend + "': " + where.error().message);
  auto key = startup::readKey();
  if (!key) return std::unexpected(key.error());
  const std::string stopAtInit = startup::envOr("MPIDBG_STOP_AT_INIT", "1");
  if (auto started = startServer(*key, where->host); !started) return started;
  if (auto registered = registerWith(*where); !registered) return registered;
  frozen_.store(stopAtInit != "0", std::memory_order_release);
  return {};
}

Expected<void> Runtime::startServer(const std::vector<std::uint8_t>& key, const std::string& frontendHost) {
  key_ = key;
  std::array<char, 64> name{};
  for (MPI_Comm comm : {MPI_COMM_WORLD, MPI_COMM_SELF}) {
    CommInfo info = describeComm(comm);
    defaultCommName(comm, name);
    info.name = name.data();
    // MPI_COMM_SELF's handle, root and size already tell the processes'
    // apart; it has no uid.
    if (comm == MPI_COMM_WORLD) info.uid = kWorldUid;
    comms_.add(commKey(comm), info);
  }

  ccs::ServerOptions options;
  auto address = startup::bindAddress(frontendHost);
  if (!address) return std::unexpected(address.error());
  options.bindAddress = std::move(*address);
  options.port = 0;
  options.pe = rank_;
  // TLS 1.3 with the session key unless plain CCS was asked for explicitly
  // (MPIDBG_CCS_SECURITY=plain; mpidbg --ccs-plain). Plain is persistent too,
  // so the front end keeps one connection per rank either way.
  const std::string security = startup::envOr("MPIDBG_CCS_SECURITY", "tls");
  if (security == "tls" || security == "sha1") {  // sha1: Charm++'s clients on a listener of their own
    // OpenSSL frees its global state from an atexit handler by default. The
    // helper thread may be inside a handshake or a TLS read when the
    // application's main thread calls exit(); that cleanup then pulled the
    // ground from under it (a SIGSEGV at exit, about one job in fifteen of
    // tests/integration/cases/slurm.sh's Open MPI ring). The process is
    // ending anyway: leave OpenSSL's state to the kernel. Effective only if
    // nothing in the process initialised OpenSSL before.
    OPENSSL_init_ssl(OPENSSL_INIT_NO_ATEXIT, nullptr);
    options.security = ccs::Security{ccs::SecurityMode::Tls, key, "mpidbg-session"};
  } else if (security == "plain") {
    options.security = ccs::Security{ccs::SecurityMode::Plain, {}, "mpidbg-session"};
    options.persistent = true;
  } else {
    return fail("bad MPIDBG_CCS_SECURITY '" + security + "' (expected tls, plain or sha1)");
  }
  options.log = [this](const std::string& line) { tell(line); };  // the front end's, once it listens
  const ccs::Security serverSecurity = options.security;
  auto server = ccs::Server::create(std::move(options));
  if (!server) return fail("cannot start the CCS server: " + server.error().message);
  server_ = std::move(*server);
  registerHandlers(*server_, *this);
  return installForwarder(serverSecurity);
}

Expected<void> Runtime::registerWith(const ccs::Endpoint& where) {
  // No event may reach the hub before the registration: events stay off
  // until it is sent (a listening rank's MPI threads run meanwhile).
  events_.markLost();
  if (auto connected = events_.connect(where, kConnectTimeout); !connected) return connected;
  auto challenge = events_.receive(kChallengeBytes, kConnectTimeout);
  if (!challenge) return std::unexpected(challenge.error());

  ccs::proto::Registration reg;
  reg.rank = rank_;
  reg.size = size_;
  reg.host = thisHostName("unknown");
  reg.pid = static_cast<std::int32_t>(::getpid());
  reg.port = server_->endpoint().port;
  reg.address = server_->endpoint().host;
  reg.mpiLibrary = startup::mpiLibrary();
  reg.threadLevel = threadLevel_;
  // Under a PMIx server: its facts, and the endpoint published for tools.
  if (const PmixFacts pmix = readPmixFacts(); pmix.available) {
    reg.pmixNamespace = pmix.nspace;
    reg.pmixRank = pmix.rank;
    reg.node = pmix.node;
    const std::string why = publishPmixEndpoint(pmix, reg.host + ":" + std::to_string(reg.port));
    reg.pmixPublished = why.empty();
    if (!why.empty()) tell("PMIx: endpoint not published: " + why);
  }
  const std::string unsigned_ = ccs::proto::encode(reg, false);
  std::vector<std::uint8_t> macInput = *challenge;
  macInput.insert(macInput.end(), unsigned_.begin(), unsigned_.end());
  reg.mac = ccs::hmacSha256Hex(key_, macInput);

  ccs::Request request;
  request.pe = rank_;
  request.handler = std::string(ccs::proto::kRegisterHandler);
  const std::string body = ccs::proto::encode(reg);
  request.data.assign(body.begin(), body.end());
  auto frame = ccs::encodeRequest(request);
  if (!frame) return fail("cannot encode the registration: " + frame.error().message);
  if (auto sent = events_.sendAll(*frame); !sent) return sent;
  events_.revive();
  if (!hooksArmed_) {
    if (auto hooks = events_.armProcessHooks(rank_); !hooks) return hooks;
    hooksArmed_ = true;
  }

  channelClosed_ = false;
  watching_ = true;
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

Expected<void> Runtime::attachFrontend(const std::string& frontend) {
  if (!listening_) return fail("this job was launched by mpidbg: it has its front end already");
  if (watching_ && !events_.lost()) return fail("a debugger is attached already; detach it first");
  auto where = ccs::Endpoint::parse(frontend);
  if (!where) return fail("bad front end endpoint '" + frontend + "': " + where.error().message);
  if (watching_) {
    server_->unwatch(events_.fd());
    watching_ = false;
  }
  return registerWith(*where);
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
  options.log = [this](const std::string& line) { tell(line); };  // the front end's, once it listens
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
  for (;;) {
    try {
      server_->pollOnce(kPollInterval);
      if (watching_ && channelClosed_) {
        server_->unwatch(events_.fd());
        watching_ = false;
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

void Runtime::tell(const std::string& text) noexcept {
  if (events_.fd() >= 0 && !events_.lost()) {
    try {
      ccs::proto::Event event;
      event.kind = ccs::proto::Event::Kind::Notice;
      event.text = text;
      events_.send(rank_, event);
      if (!events_.lost()) return;
    } catch (...) {
    }
  }
  std::fprintf(stderr, "mpidbg-rt: rank %d: %s\n", rank_, text.c_str());
}

void tell(std::int32_t rank, const std::string& text) noexcept {
  if (Runtime* rt = gAttached.load(std::memory_order_acquire)) {
    rt->tell(text);
    return;
  }
  std::fprintf(stderr, "mpidbg-rt: rank %d: %s\n", rank, text.c_str());
}

void Runtime::markFinalized() noexcept {
  finalized_.store(true, std::memory_order_release);
  // Nobody can attach to a finalized job: its attach file goes.
  if (!attachFile_.empty()) ::unlink(attachFile_.c_str());
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
