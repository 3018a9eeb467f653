#include "debugger/core/mqs/RuntimeState.hpp"

#include <fmt/format.h>

#include <cstring>
#include <memory>
#include <optional>

#include "mpidbg/StateLayout.h"

namespace mpidbg::core::mqs {

namespace {

std::string bounded(const char* text, std::size_t size) {
  return std::string(text, strnlen(text, size));
}

/// The (offset, size) of `type`.`field` in the table, if listed.
std::optional<std::pair<std::uint32_t, std::uint32_t>> row(const mpidbg_layout_table& table,
                                                           std::string_view type,
                                                           std::string_view field) {
  for (std::uint32_t i = 0; i < table.count; ++i) {
    const mpidbg_layout_field& f = table.fields[i];
    if (bounded(f.type, sizeof f.type) == type && bounded(f.field, sizeof f.field) == field) {
      return std::pair{f.offset, f.size};
    }
  }
  return std::nullopt;
}

template <typename T>
Expected<T> readField(TargetMemory& memory, std::uint64_t base, const mpidbg_layout_table& table,
                      std::string_view field) {
  const auto where = row(table, "root", field);
  if (!where) return fail(fmt::format("the runtime's layout table has no root.{}", field));
  if (where->second != sizeof(T)) {
    return fail(fmt::format("root.{} is {} bytes in the layout table, expected {}", field,
                            where->second, sizeof(T)));
  }
  T value{};
  if (auto ok = memory.read(base + where->first, std::as_writable_bytes(std::span(&value, 1)));
      !ok) {
    return std::unexpected(ok.error());
  }
  return value;
}

}  // namespace

Expected<std::int32_t> readWorldRank(TargetMemory& memory, const SymbolSource& symbols) {
  const auto layoutAddr = symbols.findSymbol("mpidbg_layout");
  const auto stateAddr = symbols.findSymbol("mpidbg_state");
  if (!layoutAddr || !stateAddr) {
    return fail(fmt::format("no mpidbg runtime in {} (symbol {} not found)", memory.describe(),
                            layoutAddr ? "mpidbg_state" : "mpidbg_layout"));
  }
  auto table = std::make_unique<mpidbg_layout_table>();
  if (auto ok = memory.read(*layoutAddr, std::as_writable_bytes(std::span(table.get(), 1))); !ok) {
    return std::unexpected(ok.error());
  }
  if (table->magic != MPIDBG_LAYOUT_MAGIC || table->version != MPIDBG_LAYOUT_VERSION ||
      table->count > MPIDBG_LAYOUT_MAX_FIELDS) {
    return fail(
        fmt::format("the runtime's layout table in {} is not valid (magic {:#x}, version "
                    "{}, {} rows)",
                    memory.describe(), table->magic, table->version, table->count));
  }
  auto magic = readField<std::uint64_t>(memory, *stateAddr, *table, "magic");
  if (!magic) return std::unexpected(magic.error());
  if (*magic != MPIDBG_LAYOUT_MAGIC) {
    return fail(fmt::format("the runtime in {} has not attached yet (root.magic is {:#x})",
                            memory.describe(), *magic));
  }
  return readField<std::int32_t>(memory, *stateAddr, *table, "world_rank");
}

Expected<std::string> readDllName(TargetMemory& memory, const SymbolSource& symbols) {
  const auto addr = symbols.findSymbol("MPIR_dll_name");
  if (!addr) return fail(fmt::format("{} has no MPIR_dll_name", memory.describe()));
  auto name = readCString(memory, *addr, 4096);
  if (!name) return std::unexpected(name.error());
  if (name->empty()) return fail(fmt::format("MPIR_dll_name in {} is empty", memory.describe()));
  return name;
}

}  // namespace mpidbg::core::mqs
