#pragma once

// Reader for the CCS capture files in ../shared/vectors/ccs/ (format in that
// folder's README.md): "C>"/"S>" hex lines, "(close)" and other observations,
// "# ---- connection" separators.

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace mpidbg::ccs::test {

/// One TCP connection of a transcript: the client and server byte streams.
struct TranscriptConnection {
  std::vector<std::uint8_t> client;
  std::vector<std::uint8_t> server;
  /// The server closed the connection ("(close)" line).
  bool serverClosed = false;
};

/// Parsed transcript; `ok` is false when the file is missing or has bad hex.
struct Transcript {
  bool ok = false;
  std::string problem;
  std::vector<TranscriptConnection> connections;
};

/// Decodes lowercase/uppercase hex; false on a bad digit or odd length.
inline bool decodeHex(const std::string& hex, std::vector<std::uint8_t>& out) {
  if (hex.size() % 2 != 0) return false;
  auto digit = [](char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    int high = digit(hex[i]);
    int low = digit(hex[i + 1]);
    if (high < 0 || low < 0) return false;
    out.push_back(static_cast<std::uint8_t>(high << 4 | low));
  }
  return true;
}

/// Reads `name` from MPIDBG_VECTORS_DIR. A file without separators is one
/// connection; each "# ---- connection" line starts a new one (so "connection
/// 2 again" sections appear as their own, usually empty, connection).
inline Transcript readTranscript(const std::string& name) {
  Transcript t;
  std::ifstream in(std::string(MPIDBG_VECTORS_DIR) + "/" + name);
  if (!in) {
    t.problem = "cannot open " + name;
    return t;
  }
  t.connections.emplace_back();
  bool sawSeparator = false;
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with("# ---- connection")) {
      if (sawSeparator || !t.connections.back().client.empty()) t.connections.emplace_back();
      sawSeparator = true;
      continue;
    }
    if (line.starts_with("(close)")) {
      t.connections.back().serverClosed = true;
      continue;
    }
    if (!line.starts_with("C> ") && !line.starts_with("S> ")) continue;
    std::istringstream fields(line.substr(3));
    std::string hex;
    fields >> hex;
    auto& conn = t.connections.back();
    if (!decodeHex(hex, line[0] == 'C' ? conn.client : conn.server)) {
      t.problem = name + ": bad hex on line '" + line + "'";
      return t;
    }
  }
  t.ok = true;
  return t;
}

}  // namespace mpidbg::ccs::test
