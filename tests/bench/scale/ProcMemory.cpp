#include "ProcMemory.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <string_view>

namespace mpidbg::bench {
namespace {

std::string procPath(pid_t pid, const char* file) {
  return (pid == 0 ? std::string("/proc/self/") : "/proc/" + std::to_string(pid) + "/") + file;
}

/// The value of a "Name:   123 kB" line, or nullopt when `line` is not `name`.
std::optional<double> kibField(std::string_view line, std::string_view name) {
  if (!line.starts_with(name) || line.size() <= name.size() || line[name.size()] != ':')
    return std::nullopt;
  std::istringstream in{std::string(line.substr(name.size() + 1))};
  double value = 0;
  if (!(in >> value)) return std::nullopt;
  return value;
}

/// Adds the Rss/Pss/Anonymous field of `line` to `into`, if it is one.
void addField(std::string_view line, MappingKiB& into) {
  if (auto v = kibField(line, "Rss"))
    into.rss += *v;
  else if (auto p = kibField(line, "Pss"))
    into.pss += *p;
  else if (auto a = kibField(line, "Anonymous"))
    into.anon += *a;
}

}  // namespace

std::optional<ResidentKiB> readResident(pid_t pid) {
  std::ifstream in(procPath(pid, "status"));
  ResidentKiB out;
  bool rss = false, hwm = false;
  for (std::string line; std::getline(in, line);) {
    if (auto v = kibField(line, "VmRSS")) out.rss = *v, rss = true;
    if (auto v = kibField(line, "VmHWM")) out.hwm = *v, hwm = true;
  }
  if (!rss || !hwm) return std::nullopt;
  return out;
}

bool resetPeakResident() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";
  out.flush();
  return static_cast<bool>(out);
}

std::optional<MappingKiB> readRollup(pid_t pid) {
  std::ifstream in(procPath(pid, "smaps_rollup"));
  if (!in) return std::nullopt;
  MappingKiB out;
  bool any = false;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with("Rss:")) any = true;
    addField(line, out);
  }
  if (!any) return std::nullopt;
  return out;
}

std::map<std::string, MappingKiB> readFileMappings(pid_t pid) {
  std::ifstream in(procPath(pid, "smaps"));
  std::map<std::string, MappingKiB> out;
  MappingKiB* current = nullptr;
  for (std::string line; std::getline(in, line);) {
    const auto space = line.find(' ');
    const std::string_view first = std::string_view(line).substr(0, space);
    if (!first.empty() && first.back() != ':') {
      // A mapping header: ADDR-ADDR PERMS OFFSET DEV INODE [PATH]
      std::istringstream header(line);
      std::string range, perms, offset, dev, inode, path;
      header >> range >> perms >> offset >> dev >> inode;
      std::getline(header >> std::ws, path);
      current = (!path.empty() && path.front() == '/') ? &out[path] : nullptr;
      continue;
    }
    if (current) addField(line, *current);
  }
  return out;
}

MappingKiB sumPaths(const std::map<std::string, MappingKiB>& mappings,
                    const std::set<std::string>& paths) {
  MappingKiB sum;
  for (const auto& [path, kib] : mappings) {
    if (!paths.contains(path)) continue;
    sum.rss += kib.rss;
    sum.pss += kib.pss;
    sum.anon += kib.anon;
  }
  return sum;
}

std::optional<double> readCpuMs(pid_t pid) {
  std::ifstream in(procPath(pid, "stat"));
  std::string text;
  if (!std::getline(in, text)) return std::nullopt;
  // The command name (field 2) may hold spaces: fields restart after the last ')'.
  const auto close = text.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(text.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  const double tick = static_cast<double>(::sysconf(_SC_CLK_TCK));
  return static_cast<double>(utime + stime) * 1000.0 / tick;
}

}  // namespace mpidbg::bench
