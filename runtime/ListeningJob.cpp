// A job started without mpidbg that listens for a debugger to attach
// (MPIDBG_LISTEN, or Charm-compatible mode: MPIDBG_CHARM): the session key
// shared by broadcast, the gather of the ranks' endpoints, rank 0's attach
// file, and the listener for Charm++'s own CCS clients.
#include "Runtime.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <algorithm>
#include <array>
#include <sstream>

#include "CharmCompat.hpp"
#include "StartupSettings.hpp"
#include "ccs/proto/AttachProtocol.hpp"
#include "ccs/transport/Auth.hpp"
#include "ccs/transport/CharmAuthServer.hpp"
#include "ccs/transport/CharmKeyFile.hpp"
#include "mpidbg/ScopedFd.hpp"
#include "runtime/HostName.hpp"

namespace mpidbg::rt {

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
  const std::string keyFile = startup::envOr("MPIDBG_CHARM_KEY_FILE", "");
  if (!keyFile.empty()) {
    // Read as Charm++'s server reads ++server-auth files.
    auto table = ccs::loadCharmKeyFile(keyFile, ccs::KeyDigits::Decimal);
    if (!table) return fail("MPIDBG_CHARM_KEY_FILE: " + table.error().message);
    auth = std::make_shared<ccs::CharmAuthServerState>(std::move(*table));
  } else if (startup::envOr("MPIDBG_CCS_SECURITY", "tls") == "sha1") {
    return fail("MPIDBG_CCS_SECURITY=sha1 needs MPIDBG_CHARM_KEY_FILE, a Charm++ key file (lines '<level> <key>')");
  }
  std::uint16_t port = 0;
  if (const std::string asked = startup::envOr("MPIDBG_CHARM_PORT", ""); !asked.empty() && rank_ == 0) {
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
  const bool charm = startup::charmCompatible();
  // Collective from here to the gather: every rank takes part in the key
  // broadcast and the gather, whatever happened to it locally.
  std::string error;
  std::vector<std::uint8_t> key;
  if (const char* file = std::getenv("MPIDBG_KEY_FILE"); file && *file) {
    if (auto read = startup::readKey()) key = std::move(*read);
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
    file.plain = startup::envOr("MPIDBG_CCS_SECURITY", "tls") == "plain";
    file.key = key;
    file.mpiLibrary = startup::mpiLibrary();
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

}  // namespace mpidbg::rt
