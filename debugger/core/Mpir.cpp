// Reading a launcher's MPIR process table (srun, Open MPI's mpirun) from
// outside: its symbols from the ELF objects it maps, its memory through
// process_vm_readv. The launcher keeps running.
#include "debugger/core/Mpir.hpp"

#include <elf.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>

#include "debugger/core/mqs/ProcessMemory.hpp"
#include "debugger/core/mqs/SymbolSource.hpp"
#include "debugger/core/mqs/TargetMemory.hpp"

namespace mpidbg::core {

namespace {

constexpr std::uint64_t kMaxEntries = std::uint64_t{1} << 22;
/// sizeof(MPIR_PROCDESC) on LP64: two pointers, an int, padding to 8.
constexpr std::size_t kEntryBytes = 24;
constexpr std::size_t kPidOffset = 16;

template <typename T>
Expected<T> readValue(mqs::TargetMemory& memory, std::uint64_t addr, const char* what) {
  T value{};
  if (auto ok = memory.read(addr, std::as_writable_bytes(std::span(&value, 1))); !ok)
    return fail(std::string("cannot read ") + what + ": " + ok.error().message);
  return value;
}

}  // namespace

Expected<std::vector<MpirProcess>> readMpirProctable(mqs::TargetMemory& memory, const mqs::SymbolSource& symbols) {
  const auto tableAt = symbols.findSymbol("MPIR_proctable");
  const auto sizeAt = symbols.findSymbol("MPIR_proctable_size");
  if (!tableAt || !sizeAt)
    return fail(memory.describe() + " has no MPIR_proctable: its launcher does not offer the MPIR interface");
  if (symbols.executable().object->elfClass() != ELFCLASS64)
    return fail(memory.describe() + " is a 32-bit program; only 64-bit launchers' MPIR tables are read");
  auto size = readValue<std::int32_t>(memory, *sizeAt, "MPIR_proctable_size");
  if (!size) return std::unexpected(size.error());
  auto table = readValue<std::uint64_t>(memory, *tableAt, "MPIR_proctable");
  if (!table) return std::unexpected(table.error());
  if (*size <= 0 || *table == 0) {
    std::string state;
    if (const auto stateAt = symbols.findSymbol("MPIR_debug_state"))
      if (auto value = readValue<std::int32_t>(memory, *stateAt, "MPIR_debug_state"))
        state = ", MPIR_debug_state " + std::to_string(*value);
    return fail("the MPIR_proctable of " + memory.describe() + " is empty (size " + std::to_string(*size) + state +
                "): the launcher has not started the job, or fills the table only for a job started under a "
                "debugger (Open MPI's mpirun)");
  }
  if (static_cast<std::uint64_t>(*size) > kMaxEntries)
    return fail("the MPIR_proctable of " + memory.describe() + " claims " + std::to_string(*size) +
                " entries (more than " + std::to_string(kMaxEntries) + ")");
  std::vector<std::byte> raw(static_cast<std::size_t>(*size) * kEntryBytes);
  if (auto ok = memory.read(*table, raw); !ok)
    return fail("cannot read the MPIR_proctable of " + memory.describe() + ": " + ok.error().message);
  std::vector<MpirProcess> processes;
  processes.reserve(static_cast<std::size_t>(*size));
  for (std::size_t i = 0; i < static_cast<std::size_t>(*size); ++i) {
    const std::byte* entry = raw.data() + i * kEntryBytes;
    std::uint64_t hostAt = 0, executableAt = 0;
    std::int32_t pid = 0;
    std::memcpy(&hostAt, entry, 8);
    std::memcpy(&executableAt, entry + 8, 8);
    std::memcpy(&pid, entry + kPidOffset, 4);
    const std::string where = "MPIR_proctable[" + std::to_string(i) + "] of " + memory.describe();
    if (hostAt == 0) return fail(where + " has no host name");
    if (pid <= 0) return fail(where + " has pid " + std::to_string(pid));
    MpirProcess process;
    auto host = mqs::readCString(memory, hostAt, 1024);
    if (!host) return fail(where + ": " + host.error().message);
    process.host = std::move(*host);
    if (executableAt != 0) {
      auto executable = mqs::readCString(memory, executableAt, 4096);
      if (!executable) return fail(where + ": " + executable.error().message);
      process.executable = std::move(*executable);
    }
    process.pid = pid;
    processes.push_back(std::move(process));
  }
  return processes;
}

Expected<std::vector<MpirProcess>> readMpirProctable(pid_t launcher) {
  auto symbols = mqs::SymbolSource::fromProcess(launcher);
  if (!symbols) return fail("cannot read the symbols of pid " + std::to_string(launcher) + ": " + symbols.error().message);
  mqs::ProcessMemory memory(launcher);
  return readMpirProctable(memory, *symbols);
}

}  // namespace mpidbg::core
