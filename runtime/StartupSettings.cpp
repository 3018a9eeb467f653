// What a rank's runtime reads when it starts (StartupSettings.hpp).
#include "StartupSettings.hpp"

#include <mpi.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fstream>
#include <iterator>
#include <string_view>

#include "ccs/transport/Auth.hpp"
#include "ccs/transport/HostAddress.hpp"
#include "runtime/HostName.hpp"

namespace mpidbg::rt::startup {

namespace {

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  const auto last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

/// The host this rank's launcher placed it on, by the name the launcher
/// uses: Hydra's MPIR_CVAR_CH3_INTERFACE_HOSTNAME (its -hosts entry for the
/// rank), Slurm's SLURMD_NODENAME, else this machine's host name.
std::string launcherHostName() {
  for (const char* name : {"MPIR_CVAR_CH3_INTERFACE_HOSTNAME", "SLURMD_NODENAME"})
    if (const char* value = std::getenv(name); value && *value) return value;
  return thisHostName("unknown");
}

}  // namespace

std::string envOr(const char* name, const char* fallback) {
  const char* value = std::getenv(name);
  return value && *value ? value : fallback;
}

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

bool charmCompatible() {
  return envOr("MPIDBG_CHARM", "0") != "0" || envOr("MPIDBG_CCS_SECURITY", "tls") == "sha1";
}

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

}  // namespace mpidbg::rt::startup
