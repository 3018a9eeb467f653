// The attach file of a listening job (format in ccs/proto/AttachProtocol.hpp).
#include "ccs/proto/AttachProtocol.hpp"

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "mpidbg/SessionKey.hpp"

namespace mpidbg::ccs::proto {

namespace {

/// Splits `line` at single spaces into at most `max` fields; the last field
/// keeps the rest of the line.
std::vector<std::string_view> fields(std::string_view line, std::size_t max) {
  std::vector<std::string_view> out;
  while (!line.empty() && out.size() + 1 < max) {
    const auto space = line.find(' ');
    if (space == std::string_view::npos) break;
    out.push_back(line.substr(0, space));
    line.remove_prefix(space + 1);
  }
  out.push_back(line);
  return out;
}

template <typename Int>
bool number(std::string_view text, Int& out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

}  // namespace

std::string encode(const AttachFile& file) {
  std::string out;
  out += kAttachMagic;
  out += "\n# A job listening for mpidbg: connect with `mpidbg attach THIS_FILE`.\n"
         "# Private: it holds the job's session key (keep it mode 0600).\n";
  out += "size " + std::to_string(file.size) + "\n";
  out += std::string("security ") + (file.plain ? "plain" : "tls") + "\n";
  out += "key " + toHex(file.key) + "\n";
  if (!file.mpiLibrary.empty()) out += "mpi " + file.mpiLibrary + "\n";
  for (const AttachRank& r : file.ranks)
    out += "rank " + std::to_string(r.rank) + " " + r.address + " " + std::to_string(r.port) + " " +
           std::to_string(r.pid) + " " + r.host + "\n";
  out += "end\n";
  return out;
}

Expected<AttachFile> decodeAttachFile(std::string_view text) {
  AttachFile file;
  bool sawMagic = false, sawSize = false, sawKey = false, sawEnd = false;
  std::set<std::int32_t> seen;
  std::size_t lineNo = 0;
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text.remove_prefix(newline == std::string_view::npos ? text.size() : newline + 1);
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::string where = "line " + std::to_string(lineNo) + ": ";
    if (!sawMagic) {
      if (line != kAttachMagic)
        return fail(where + "not an mpidbg attach file (expected '" + std::string(kAttachMagic) + "')");
      sawMagic = true;
      continue;
    }
    if (line.empty() || line.front() == '#') continue;
    if (sawEnd) return fail(where + "text after 'end'");
    const auto f = fields(line, 6);
    const std::string_view key = f[0];
    if (key == "end" && f.size() == 1) {
      sawEnd = true;
    } else if (key == "size" && f.size() == 2) {
      if (!number(f[1], file.size) || file.size <= 0) return fail(where + "bad size '" + std::string(f[1]) + "'");
      sawSize = true;
    } else if (key == "security" && f.size() == 2) {
      if (f[1] != "tls" && f[1] != "plain")
        return fail(where + "unknown security '" + std::string(f[1]) + "' (expected tls or plain)");
      file.plain = f[1] == "plain";
    } else if (key == "key" && f.size() == 2) {
      auto bytes = fromHex(f[1]);
      if (!bytes || bytes->size() != kSessionKeyBytes) return fail(where + "the key is not 64 hex digits");
      file.key = std::move(*bytes);
      sawKey = true;
    } else if (key == "mpi") {
      file.mpiLibrary = line.size() > 4 ? std::string(line.substr(4)) : std::string();
    } else if (key == "rank" && f.size() == 6) {
      if (!sawSize) return fail(where + "a rank before the size");
      AttachRank r;
      if (!number(f[1], r.rank) || r.rank < 0 || r.rank >= file.size)
        return fail(where + "bad rank '" + std::string(f[1]) + "' (job size " + std::to_string(file.size) + ")");
      if (!seen.insert(r.rank).second) return fail(where + "rank " + std::to_string(r.rank) + " named twice");
      if (f[2].empty()) return fail(where + "rank " + std::to_string(r.rank) + " has no address");
      r.address = std::string(f[2]);
      if (!number(f[3], r.port) || r.port == 0) return fail(where + "bad port '" + std::string(f[3]) + "'");
      if (!number(f[4], r.pid) || r.pid <= 0) return fail(where + "bad pid '" + std::string(f[4]) + "'");
      r.host = std::string(f[5]);
      file.ranks.push_back(std::move(r));
    } else {
      return fail(where + "unexpected '" + std::string(line.substr(0, 40)) + "'");
    }
  }
  if (!sawMagic) return fail("empty file: not an mpidbg attach file");
  if (!sawSize) return fail("no 'size' line");
  if (!sawKey) return fail("no 'key' line");
  if (!sawEnd) return fail("no 'end' line: the file was cut short (is the job still starting?)");
  std::sort(file.ranks.begin(), file.ranks.end(),
            [](const AttachRank& a, const AttachRank& b) { return a.rank < b.rank; });
  return file;
}

}  // namespace mpidbg::ccs::proto
