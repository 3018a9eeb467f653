#include "Runtime.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/ssl.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <algorithm>
#include <array>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

#include "CallScope.hpp"
#include "Control.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "CharmCompat.hpp"
#include "Handlers.hpp"
#include "Pmix.hpp"
#include "StackCapture.hpp"
#include "ccs/proto/AttachProtocol.hpp"
#include "ccs/transport/Auth.hpp"
#include "ccs/transport/CharmAuthServer.hpp"
#include "ccs/transport/CharmKeyFile.hpp"
#include "ccs/tree/Forwarder.hpp"
#include "ccs/transport/Frame.hpp"
#include "ccs/transport/HostAddress.hpp"
#include "ccs/proto/QueueProtocol.hpp"
#include "ccs/proto/StackProtocol.hpp"
#include "ccs/proto/RecordProtocol.hpp"
#include "ccs/proto/ThreadLevelProtocol.hpp"
#include "mpidbg/ScopedFd.hpp"
#include "runtime/HostName.hpp"

namespace mpidbg::rt {

std::atomic<Runtime*> gAttached{nullptr};

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
  auto key = fromHex(trim(text));
  if (!key || key->size() != kSessionKeyBytes)
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

/// The host this rank's launcher placed it on, by the name the launcher
/// uses: Hydra's MPIR_CVAR_CH3_INTERFACE_HOSTNAME (its -hosts entry for the
/// rank), Slurm's SLURMD_NODENAME, else this machine's host name.
std::string launcherHostName() {
  for (const char* name : {"MPIR_CVAR_CH3_INTERFACE_HOSTNAME", "SLURMD_NODENAME"})
    if (const char* value = std::getenv(name); value && *value) return value;
  return thisHostName("unknown");
}

/// The address the CCS server binds. MPIDBG_CCS_BIND names it: an address,
/// or "host" for the address of the host the launcher placed the rank on
/// (launcherHostName; a real interface when that is a cluster node). Unset:
/// when the front end (`frontendHost`, empty for a listening job) is on a
/// non-loopback address, the local address the route to it leaves from, so
/// a front end on another host can reach the server (mpidbg --listen);
/// otherwise loopback — the launcher's host when that is a loopback address
/// (Hydra's `-hosts localhost,127.0.0.2` on one machine), else 127.0.0.1.
Expected<std::string> bindAddress(const std::string& frontendHost) {
  const std::string asked = envOr("MPIDBG_CCS_BIND", "");
  if (asked == "host") {
    const std::string host = launcherHostName();
    auto address = ccs::ipv4Address(host);
    if (!address) return fail("MPIDBG_CCS_BIND=host: this rank's host: " + address.error().message);
    return address;
  }
  if (!asked.empty()) return asked;
  if (!frontendHost.empty()) {
    auto frontend = ccs::ipv4Address(frontendHost);
    if (!frontend) return fail("the front end's address (MPIDBG_FRONTEND): " + frontend.error().message);
    if (!ccs::isLoopbackIpv4(*frontend)) {
      auto source = ccs::sourceAddressFor(*frontend);
      if (!source) return fail("cannot choose an address the front end reaches: " + source.error().message);
      return source;
    }
  }
  if (const char* hydraHost = std::getenv("MPIR_CVAR_CH3_INTERFACE_HOSTNAME"); hydraHost && *hydraHost)
    if (auto address = ccs::ipv4Address(hydraHost); address && ccs::isLoopbackIpv4(*address)) return address;
  return std::string("127.0.0.1");
}

/// True for the Charm-compatible mode (Runtime::startAfterInit).
bool charmCompatible() {
  return envOr("MPIDBG_CHARM", "0") != "0" || envOr("MPIDBG_CCS_SECURITY", "tls") == "sha1";
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
  const bool charm = charmCompatible();
  const bool listen = !launched && (envOr("MPIDBG_LISTEN", "0") != "0" || charm);
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
  warnIfSingletonTask(size);
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
  auto key = readKey();
  if (!key) return std::unexpected(key.error());
  const std::string stopAtInit = envOr("MPIDBG_STOP_AT_INIT", "1");
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
  auto address = bindAddress(frontendHost);
  if (!address) return std::unexpected(address.error());
  options.bindAddress = std::move(*address);
  options.port = 0;
  options.pe = rank_;
  // TLS 1.3 with the session key unless plain CCS was asked for explicitly
  // (MPIDBG_CCS_SECURITY=plain; mpidbg --ccs-plain). Plain is persistent too,
  // so the front end keeps one connection per rank either way.
  const std::string security = envOr("MPIDBG_CCS_SECURITY", "tls");
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
  reg.mpiLibrary = mpiLibrary();
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

namespace {

/// Where rank 0 of a listening job writes its attach file: MPIDBG_ATTACH_FILE,
/// else $TMPDIR/mpidbg-UID/job-PID.attach in a directory only the user can
/// enter (created 0700; refused when it is someone else's or open to others).
Expected<std::string> attachFilePath() {
  if (const char* named = std::getenv("MPIDBG_ATTACH_FILE"); named && *named) return std::string(named);
  const char* tmp = std::getenv("TMPDIR");
  const std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/mpidbg-" + std::to_string(::getuid());
  if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    return fail("cannot create " + dir + ": " + std::strerror(errno));
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) return fail("cannot inspect " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode) || st.st_uid != ::getuid() || (st.st_mode & 077) != 0)
    return fail(dir + " is not a private directory of this user (want mode 0700); set MPIDBG_ATTACH_FILE");
  return dir + "/job-" + std::to_string(::getpid()) + ".attach";
}

/// Writes `text` to `path` with mode 0600, atomically (a temporary file in
/// the same directory, then rename): a reader never sees half a file.
Expected<void> writePrivateFile(const std::string& path, const std::string& text) {
  const std::string temporary = path + ".tmp-" + std::to_string(::getpid());
  ::unlink(temporary.c_str());
  ScopedFd fd(::open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd.valid()) return fail("cannot create " + temporary + ": " + std::strerror(errno));
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd.get(), text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::unlink(temporary.c_str());
      return fail("cannot write " + temporary + ": " + why);
    }
    done += static_cast<std::size_t>(n);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    ::unlink(temporary.c_str());
    return fail("cannot rename " + temporary + " to " + path + ": " + why);
  }
  return {};
}

/// One rank's endpoint in the gather of a listening job: "ADDRESS PORT PID
/// HOST CHARMPORT" (CHARMPORT 0 unless MPIDBG_CHARM), NUL-padded; all NUL for
/// a rank whose server did not start.
constexpr std::size_t kEndpointRecord = 320;

}  // namespace

Expected<std::uint16_t> Runtime::startCharmListener() {
  std::shared_ptr<ccs::CharmAuthServerState> auth;
  const std::string keyFile = envOr("MPIDBG_CHARM_KEY_FILE", "");
  if (!keyFile.empty()) {
    // Read as Charm++'s server reads ++server-auth files.
    auto table = ccs::loadCharmKeyFile(keyFile, ccs::KeyDigits::Decimal);
    if (!table) return fail("MPIDBG_CHARM_KEY_FILE: " + table.error().message);
    auth = std::make_shared<ccs::CharmAuthServerState>(std::move(*table));
  } else if (envOr("MPIDBG_CCS_SECURITY", "tls") == "sha1") {
    return fail("MPIDBG_CCS_SECURITY=sha1 needs MPIDBG_CHARM_KEY_FILE, a Charm++ key file (lines '<level> <key>')");
  }
  std::uint16_t port = 0;
  if (const std::string asked = envOr("MPIDBG_CHARM_PORT", ""); !asked.empty() && rank_ == 0) {
    char* end = nullptr;
    const long value = std::strtol(asked.c_str(), &end, 10);
    if (*end != '\0' || value < 0 || value > 65535)
      return fail("bad MPIDBG_CHARM_PORT '" + asked + "' (expected a port, 0-65535)");
    port = static_cast<std::uint16_t>(value);
  }
  auto endpoint = server_->addCharmListener(server_->endpoint().host, port, std::move(auth));
  if (!endpoint) return fail("cannot serve Charm++'s clients: " + endpoint.error().message);
  charmEndpoint_ = *endpoint;
  charmSecure_ = !keyFile.empty();
  registerCharmHandlers(*server_, *this);
  return endpoint->port;
}

void Runtime::adoptCharmPeers(const std::vector<char>& records, std::int32_t size) {
  std::vector<ccs::PeerEntry> table;
  std::int32_t serving = 0;
  for (std::int32_t r = 0; r < size; ++r) {
    const char* record = records.data() + kEndpointRecord * static_cast<std::size_t>(r);
    std::istringstream in(std::string(record, ::strnlen(record, kEndpointRecord)));
    std::string address, host;
    int port = 0, pid = 0, charmPort = 0;
    if (!(in >> address >> port >> pid >> host >> charmPort) || port <= 0 || port > 65535) continue;
    table.push_back(ccs::PeerEntry{r, address, static_cast<std::uint16_t>(port)});
    if (charmPort > 0) ++serving;
  }
  forwarder_->setPeerTable(std::move(table));
  if (rank_ != 0) return;
  // Charm++'s announcement, which its clients (CharmDebug) look for.
  std::fprintf(stdout, "ccs: Server IP = %s, Server port = %u $\n", charmEndpoint_.host.c_str(),
               static_cast<unsigned>(charmEndpoint_.port));
  std::fflush(stdout);
  std::fprintf(stderr,
               "mpidbg-rt: %d of %d ranks serve Charm++'s CCS clients (%s); rank 0 at %s (any rank answers "
               "for every PE)\n",
               static_cast<int>(serving), static_cast<int>(size),
               charmSecure_ ? "SHA-1 authenticated, MPIDBG_CHARM_KEY_FILE" : "plain, unauthenticated",
               charmEndpoint_.toString().c_str());
}

void Runtime::startListening(int providedThreadLevel, std::int32_t rank, std::int32_t size) noexcept {
  const bool charm = charmCompatible();
  // Collective from here to the gather: every rank takes part in the key
  // broadcast and the gather, whatever happened to it locally.
  std::string error;
  std::vector<std::uint8_t> key;
  if (const char* file = std::getenv("MPIDBG_KEY_FILE"); file && *file) {
    if (auto read = readKey()) key = std::move(*read);
    else error = read.error().message;
  } else {
    // [0] = 1 when rank 0 has a key, then the 32 key bytes.
    std::array<std::uint8_t, 1 + kSessionKeyBytes> shared{};
    if (rank == 0) {
      if (auto made = ccs::randomBytes(kSessionKeyBytes)) {
        shared[0] = 1;
        std::memcpy(shared.data() + 1, made->data(), made->size());
      }
    }
    PMPI_Bcast(shared.data(), static_cast<int>(shared.size()), MPI_BYTE, 0, MPI_COMM_WORLD);
    if (shared[0] == 1) key.assign(shared.begin() + 1, shared.end());
    else error = "rank 0 could not make a session key";
  }

  std::unique_ptr<Runtime> rt;
  std::array<char, kEndpointRecord> mine{};
  if (error.empty()) {
    try {
      rt.reset(new Runtime(rank, size, providedThreadLevel));
      if (auto started = rt->startServer(key); !started) {
        error = started.error().message;
      } else {
        std::string address = rt->server_->endpoint().host;
        if (address.empty() || address == "0.0.0.0" || address == "::") address = thisHostName("unknown");
        std::uint16_t charmPort = 0;
        if (charm) {
          if (auto started = rt->startCharmListener(); started) charmPort = *started;
          else error = started.error().message;
        }
        const std::string text = address + " " + std::to_string(rt->server_->endpoint().port) + " " +
                                 std::to_string(::getpid()) + " " + thisHostName("unknown") + " " +
                                 std::to_string(charmPort);
        if (error.empty()) std::memcpy(mine.data(), text.data(), std::min(text.size(), mine.size() - 1));
      }
    } catch (const std::exception& e) {
      error = e.what();
    } catch (...) {
      error = "internal error";
    }
  }
  // Charm++'s clients may ask any rank about any PE: every rank gets the table.
  std::vector<char> all(rank == 0 || charm ? kEndpointRecord * static_cast<std::size_t>(size) : 0);
  if (charm)
    PMPI_Allgather(mine.data(), static_cast<int>(kEndpointRecord), MPI_CHAR, all.data(),
                   static_cast<int>(kEndpointRecord), MPI_CHAR, MPI_COMM_WORLD);
  else
    PMPI_Gather(mine.data(), static_cast<int>(kEndpointRecord), MPI_CHAR, all.data(),
                static_cast<int>(kEndpointRecord), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (charm && error.empty() && rt) rt->adoptCharmPeers(all, size);

  std::string attachPath;
  if (rank == 0 && !key.empty()) {
    ccs::proto::AttachFile file;
    file.size = size;
    file.plain = envOr("MPIDBG_CCS_SECURITY", "tls") == "plain";
    file.key = key;
    file.mpiLibrary = mpiLibrary();
    for (std::int32_t r = 0; r < size; ++r) {
      const char* record = all.data() + kEndpointRecord * static_cast<std::size_t>(r);
      const std::string text(record, ::strnlen(record, kEndpointRecord));
      std::istringstream in(text);
      ccs::proto::AttachRank entry;
      entry.rank = r;
      if (in >> entry.address >> entry.port >> entry.pid >> entry.host) file.ranks.push_back(entry);
    }
    std::string why;
    if (auto path = attachFilePath()) {
      if (auto written = writePrivateFile(*path, ccs::proto::encode(file)); written) attachPath = *path;
      else why = written.error().message;
    } else {
      why = path.error().message;
    }
    if (!why.empty())
      std::fprintf(stderr, "mpidbg-rt: rank 0: no attach file: %s; a debugger cannot attach\n", why.c_str());
    else
      std::fprintf(stderr, "mpidbg-rt: %d of %d ranks listening for a debugger: mpidbg attach %s\n",
                   static_cast<int>(file.ranks.size()), size, attachPath.c_str());
  }
  if (!error.empty() || !rt) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: %s; running without the debugger\n", rank,
                 error.empty() ? "internal error" : error.c_str());
    return;
  }
  try {
    rt->listening_ = true;
    rt->attachFile_ = attachPath;
    goLive(std::move(rt), providedThreadLevel);
  } catch (...) {
    std::fprintf(stderr, "mpidbg-rt: rank %d: internal error; running without the debugger\n", rank);
  }
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
