// The text record format of mpidbg's protocols (see ccs/proto/TextRecord.hpp).
#include "ccs/proto/TextRecord.hpp"

#include "mpidbg/Text.hpp"

namespace mpidbg::ccs::proto {

std::string shorten(std::string_view text, std::size_t maxChars) {
  std::string out(text.substr(0, maxChars));
  for (char& ch : out)
    if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) >= 0x7f) ch = '?';
  return text.size() > maxChars ? out + "..." : out;
}

void putHex(std::string& out, std::string_view key, std::uint64_t value) {
  put(out, key, hexText(value));
}

void put(std::string& out, std::string_view key, std::string_view value) {
  out += key;
  out += '=';
  for (char ch : value) {
    if (ch == '\\') out += "\\\\";
    else if (ch == '\n') out += "\\n";
    else if (ch == '\r') out += "\\r";  // a raw CR before the newline would read as CRLF
    else out += ch;
  }
  out += '\n';
}

Expected<void> Record::add(std::string_view line) {
  const auto equals = line.find('=');
  if (equals == std::string_view::npos) return fail("malformed record line '" + shorten(line) + "': no '='");
  const std::string_view key = line.substr(0, equals);
  if (key.empty()) return fail("malformed record line '" + shorten(line) + "': empty key");
  std::string value;
  const std::string_view raw = line.substr(equals + 1);
  value.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '\\') {
      value += raw[i];
      continue;
    }
    const char next = i + 1 < raw.size() ? raw[i + 1] : '\0';
    if (next != '\\' && next != 'n' && next != 'r') return fail("bad escape in value of key '" + shorten(key) + "'");
    value += next == 'n' ? '\n' : next == 'r' ? '\r' : '\\';
    ++i;
  }
  if (!values_.emplace(std::string(key), std::move(value)).second)
    return fail("duplicate key '" + shorten(key) + "' in record");
  return {};
}

Expected<std::string> Record::text(std::string_view key) const {
  const auto found = values_.find(key);
  if (found == values_.end()) return fail("record is missing key '" + std::string(key) + "'");
  return found->second;
}

std::string Record::text(std::string_view key, std::string_view fallback) const {
  const auto found = values_.find(key);
  return found == values_.end() ? std::string(fallback) : found->second;
}

Expected<bool> Record::flag(std::string_view key) const {
  auto value = integer<int>(key);
  if (!value) return std::unexpected(value.error());
  if (*value != 0 && *value != 1) return fail("key '" + std::string(key) + "' must be 0 or 1");
  return *value == 1;
}

std::unexpected<Error> Record::badInt(std::string_view key, std::string_view value) {
  return fail("key '" + std::string(key) + "' has a bad integer value '" + shorten(value) + "'");
}

Expected<std::vector<Record>> parseRecords(std::string_view text) {
  std::vector<Record> records(1);
  while (!text.empty()) {
    const auto newline = text.find('\n');
    std::string_view line = text.substr(0, newline);
    text = newline == std::string_view::npos ? std::string_view{} : text.substr(newline + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) continue;
    if (line == kRecordSeparator) {
      if (!records.back().empty()) records.emplace_back();
      continue;
    }
    if (auto added = records.back().add(line); !added) return std::unexpected(added.error());
  }
  if (records.back().empty()) records.pop_back();
  return records;
}

Expected<Record> parseOne(std::string_view text, std::string_view what, bool emptyOk) {
  auto records = parseRecords(text);
  if (!records) return fail("bad " + std::string(what) + ": " + records.error().message);
  if (records->empty() && emptyOk) return Record{};
  if (records->size() != 1)
    return fail("bad " + std::string(what) + ": expected one record, got " + std::to_string(records->size()));
  return std::move(records->front());
}

std::string_view nextLine(std::string_view text, std::size_t& pos) {
  const std::size_t newline = text.find('\n', pos);
  std::string_view line = text.substr(pos, newline == std::string_view::npos ? std::string_view::npos : newline - pos);
  pos = newline == std::string_view::npos ? text.size() : newline + 1;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

}  // namespace mpidbg::ccs::proto
