#pragma once

// One line of a Linux process's memory map, /proc/PID/maps (proc(5)):
// "start-end perms offset dev inode [path]", addresses and offset in hex.

#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>

#include "mpidbg/Text.hpp"

namespace mpidbg {

/// A mapping of /proc/PID/maps that names a file or pseudo file.
struct MapsLine {
  std::string range;             ///< "start-end" as written (the name of its /proc/PID/map_files entry)
  std::uint64_t start = 0;       ///< first address
  std::uint64_t end = 0;         ///< one past the last address
  std::uint64_t fileOffset = 0;  ///< bytes into the file where `start` maps
  bool executable = false;       ///< perms has 'x'
  std::string path;              ///< the file ("[vdso]" for a pseudo file), " (deleted)" cut off
  bool deleted = false;          ///< the file was deleted since it was mapped
};

/// `line` parsed, or nullopt when it is not a maps line or names no file
/// (anonymous memory).
inline std::optional<MapsLine> parseMapsLine(std::string_view line) {
  std::istringstream fields{std::string(line)};
  std::string perms, offset, dev, inode;
  MapsLine m;
  if (!(fields >> m.range >> perms >> offset >> dev >> inode)) return std::nullopt;
  std::getline(fields >> std::ws, m.path);
  const std::size_t dash = m.range.find('-');
  if (dash == std::string::npos || m.path.empty()) return std::nullopt;
  const auto start = parseHex(std::string_view(m.range).substr(0, dash));
  const auto end = parseHex(std::string_view(m.range).substr(dash + 1));
  const auto fileOffset = parseHex(offset);
  if (!start || !end || !fileOffset) return std::nullopt;
  if (constexpr std::string_view kDeleted = " (deleted)"; m.path.ends_with(kDeleted)) {
    m.path.resize(m.path.size() - kDeleted.size());
    m.deleted = true;
  }
  m.start = *start;
  m.end = *end;
  m.fileOffset = *fileOffset;
  m.executable = perms.size() >= 3 && perms[2] == 'x';
  return m;
}

}  // namespace mpidbg
