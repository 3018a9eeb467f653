#include "debugger/core/charm/CharmOutput.hpp"

#include <charconv>

namespace mpidbg::core::charm {

namespace {

/// A decimal int at the front of `text` (a leading '-' allowed); advances
/// past it and one following blank.
std::optional<int> takeInt(std::string_view& text) {
  int value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data()) return std::nullopt;
  text.remove_prefix(static_cast<std::size_t>(end - text.data()));
  if (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  return value;
}

bool takeWord(std::string_view& text, std::string_view word) {
  if (!text.starts_with(word)) return false;
  text.remove_prefix(word.size());
  return true;
}

}  // namespace

std::optional<CharmNotice> parseCharmLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  CharmNotice notice;
  if (takeWord(line, "ccs: Server IP = ")) {
    // ccs-server.C: "ccs: Server IP = %s, Server port = %u $"
    const auto comma = line.find(", Server port = ");
    if (comma == std::string_view::npos) return std::nullopt;
    notice.kind = CharmNotice::Kind::ServerPort;
    notice.text = std::string(line.substr(0, comma));
    line.remove_prefix(comma + 16);
    auto port = takeInt(line);
    if (!port || *port <= 0 || *port > 65535) return std::nullopt;
    notice.number = *port;
    return notice;
  }
  if (!takeWord(line, "CPD: ")) return std::nullopt;
  auto pe = takeInt(line);
  if (!pe || *pe < 0) return std::nullopt;
  notice.pe = *pe;
  if (takeWord(line, "Freeze ")) {
    auto pid = takeInt(line);
    if (!pid) return std::nullopt;
    notice.kind = CharmNotice::Kind::Freeze;
    notice.pid = *pid;
    return notice;
  }
  if (takeWord(line, "BP ")) {
    notice.kind = CharmNotice::Kind::Breakpoint;
    notice.text = std::string(line);
    return notice;
  }
  if (takeWord(line, "Abort ")) {
    notice.kind = CharmNotice::Kind::Abort;
    notice.text = std::string(line);
    return notice;
  }
  if (takeWord(line, "Signal ")) {
    auto signal = takeInt(line);
    if (!signal) return std::nullopt;
    notice.kind = CharmNotice::Kind::Signal;
    notice.number = *signal;
    return notice;
  }
  return std::nullopt;
}

}  // namespace mpidbg::core::charm
