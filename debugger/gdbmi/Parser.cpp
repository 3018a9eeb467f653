#include "debugger/gdbmi/Parser.hpp"

#include <cctype>
#include <limits>
#include <string>
#include <utility>

namespace mpidbg::gdbmi {
namespace {

/// Recursive-descent reader over one line; every failure names its offset.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  std::size_t pos() const { return pos_; }
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }

  std::unexpected<Error> error(std::string_view what) const { return errorAt(pos_, what); }
  std::unexpected<Error> errorAt(std::size_t at, std::string_view what) const {
    return fail("MI parse error at offset " + std::to_string(at) + ": " + std::string(what));
  }

  bool consume(char c) {
    if (peek() != c || atEnd()) return false;
    ++pos_;
    return true;
  }

  /// token -> any sequence of digits.
  Expected<std::optional<std::uint64_t>> token() {
    if (!std::isdigit(static_cast<unsigned char>(peek()))) return std::nullopt;
    std::uint64_t value = 0;
    const std::size_t start = pos_;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const auto digit = static_cast<std::uint64_t>(text_[pos_] - '0');
      if (value > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) {
        return errorAt(start, "token does not fit in 64 bits");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    return value;
  }

  /// A result class, async class or variable name: up to ',', '=' or a bracket.
  std::string_view word() {
    const std::size_t start = pos_;
    while (!atEnd()) {
      const char c = text_[pos_];
      if (c == ',' || c == '=' || c == '{' || c == '}' || c == '[' || c == ']' || c == '"' ||
          std::isspace(static_cast<unsigned char>(c))) {
        break;
      }
      ++pos_;
    }
    return text_.substr(start, pos_ - start);
  }

  /// c-string -> '"' seven-bit-iso-c-string-content '"'
  Expected<std::string> cstring() {
    const std::size_t start = pos_;
    if (!consume('"')) return error("expected '\"' to start a c-string");
    std::string out;
    while (true) {
      if (atEnd()) return errorAt(start, "unterminated c-string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd()) return errorAt(start, "unterminated c-string (ends in a backslash)");
      const std::size_t escapeAt = pos_ - 1;
      const char e = text_[pos_++];
      switch (e) {
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'v':
          out += '\v';
          break;
        case 'e':
          out += '\033';
          break;
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '\'':
          out += '\'';
          break;
        case '?':
          out += '?';
          break;
        case 'x': {
          // \xHH: one or two hex digits (C allows more; MI never needs them).
          unsigned value = 0;
          int digits = 0;
          while (digits < 2 && !atEnd() && std::isxdigit(static_cast<unsigned char>(peek()))) {
            const char h = text_[pos_++];
            value = value * 16 + static_cast<unsigned>(std::isdigit(static_cast<unsigned char>(h))
                                                           ? h - '0'
                                                           : std::tolower(h) - 'a' + 10);
            ++digits;
          }
          if (digits == 0) return errorAt(escapeAt, "'\\x' without hex digits in c-string");
          out += static_cast<char>(value);
          break;
        }
        default: {
          if (e < '0' || e > '7') {
            return errorAt(escapeAt,
                           std::string("bad escape '\\") + printable(e) + "' in c-string");
          }
          unsigned value = static_cast<unsigned>(e - '0');
          for (int i = 0; i < 2 && peek() >= '0' && peek() <= '7' && !atEnd(); ++i) {
            value = value * 8 + static_cast<unsigned>(text_[pos_++] - '0');
          }
          if (value > 0xff) return errorAt(escapeAt, "octal escape above \\377 in c-string");
          out += static_cast<char>(value);
        }
      }
    }
  }

  /// value -> const | tuple | list
  Expected<Value> value(std::size_t depth) {
    switch (peek()) {
      case '"': {
        auto s = cstring();
        if (!s) return std::unexpected(s.error());
        return Value{std::move(*s)};
      }
      case '{': {
        auto t = tuple(depth + 1);
        if (!t) return std::unexpected(t.error());
        return Value{std::move(*t)};
      }
      case '[': {
        auto l = list(depth + 1);
        if (!l) return std::unexpected(l.error());
        return Value{std::move(*l)};
      }
      default:
        if (atEnd()) return error("expected a value, found end of line");
        return error(std::string("expected a value ('\"', '{' or '['), found '") +
                     printable(peek()) + "'");
    }
  }

  /// result -> variable "=" value
  Expected<Result> result(std::size_t depth) {
    const std::string_view name = word();
    if (name.empty()) {
      if (atEnd()) return error("expected a result name, found end of line");
      return error(std::string("expected a result name, found '") + printable(peek()) + "'");
    }
    if (!consume('=')) {
      return error("missing '=' after result name \"" + std::string(name) + "\"");
    }
    auto v = value(depth);
    if (!v) return std::unexpected(v.error());
    return Result{std::string(name), std::move(*v)};
  }

  /// tuple -> "{}" | "{" result ( "," result )* "}"
  Expected<Tuple> tuple(std::size_t depth) {
    if (depth > Parser::kMaxDepth) return error("nesting deeper than the limit");
    const std::size_t open = pos_;
    consume('{');
    Tuple out;
    if (consume('}')) return out;
    if (atEnd()) return errorAt(open, "unbalanced '{': no matching '}'");
    while (true) {
      auto r = result(depth);
      if (!r) return std::unexpected(r.error());
      out.results.push_back(std::move(*r));
      if (consume(',')) continue;
      if (consume('}')) return out;
      if (atEnd()) return errorAt(open, "unbalanced '{': no matching '}'");
      return error(std::string("expected ',' or '}' in tuple, found '") + printable(peek()) + "'");
    }
  }

  /// list -> "[]" | "[" value ( "," value )* "]" | "[" result ( "," result )* "]"
  Expected<List> list(std::size_t depth) {
    if (depth > Parser::kMaxDepth) return error("nesting deeper than the limit");
    const std::size_t open = pos_;
    consume('[');
    List out;
    if (consume(']')) return out;
    if (atEnd()) return errorAt(open, "unbalanced '[': no matching ']'");
    const char first = peek();
    const bool ofValues = first == '"' || first == '{' || first == '[';
    while (true) {
      if (ofValues) {
        auto v = value(depth);
        if (!v) return std::unexpected(v.error());
        out.items.push_back(Result{std::string(), std::move(*v)});
      } else {
        auto r = result(depth);
        if (!r) return std::unexpected(r.error());
        out.items.push_back(std::move(*r));
      }
      if (consume(',')) continue;
      if (consume(']')) return out;
      if (atEnd()) return errorAt(open, "unbalanced '[': no matching ']'");
      return error(std::string("expected ',' or ']' in list, found '") + printable(peek()) + "'");
    }
  }

  /// ( "," result )* up to the end of the line.
  Expected<Tuple> trailingResults() {
    Tuple out;
    while (!atEnd()) {
      if (!consume(',')) {
        return error(std::string("expected ',' before a result, found '") + printable(peek()) +
                     "'");
      }
      // gdb's +download records carry a bare tuple ("+download,{...}"),
      // outside the grammar; keep it as a result with an empty name.
      if (peek() == '{' || peek() == '[' || peek() == '"') {
        auto v = value(0);
        if (!v) return std::unexpected(v.error());
        out.results.push_back(Result{std::string(), std::move(*v)});
        continue;
      }
      auto r = result(0);
      if (!r) return std::unexpected(r.error());
      out.results.push_back(std::move(*r));
    }
    return out;
  }

  static std::string printable(char c) {
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f) return std::string(1, c);
    static constexpr char kHex[] = "0123456789abcdef";
    return std::string("\\x") + kHex[u >> 4] + kHex[u & 15];
  }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

std::string_view trimLineEnd(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  return line;
}

bool isPrompt(std::string_view line) {
  if (!line.starts_with("(gdb)")) return false;
  for (char c : line.substr(5)) {
    if (c != ' ' && c != '\t') return false;
  }
  return true;
}

}  // namespace

Expected<Record> Parser::parse(std::string_view rawLine) {
  const std::string_view line = trimLineEnd(rawLine);
  Reader in(line);
  if (line.empty()) return in.error("empty line");
  Record record;
  if (isPrompt(line)) {
    record.kind = RecordKind::Prompt;
    return record;
  }
  const char first = line.front();
  if (first == '~' || first == '@' || first == '&') {
    record.kind = first == '~'   ? RecordKind::ConsoleStream
                  : first == '@' ? RecordKind::TargetStream
                                 : RecordKind::LogStream;
    in.consume(first);
    if (in.peek() != '"') {
      // "string-output: either raw text (with an implicit new line) or a
      // quoted C string" (GDB manual, "GDB/MI Stream Records").
      record.text = std::string(line.substr(1)) + "\n";
      return record;
    }
    auto text = in.cstring();
    if (!text) return std::unexpected(text.error());
    if (!in.atEnd()) return in.error("unexpected text after the stream c-string");
    record.text = std::move(*text);
    return record;
  }
  auto token = in.token();
  if (!token) return std::unexpected(token.error());
  record.token = *token;
  switch (in.peek()) {
    case '^':
      record.kind = RecordKind::Result;
      break;
    case '*':
      record.kind = RecordKind::ExecAsync;
      break;
    case '+':
      record.kind = RecordKind::StatusAsync;
      break;
    case '=':
      record.kind = RecordKind::NotifyAsync;
      break;
    default:
      if (in.atEnd()) return in.error("expected a record prefix after the token");
      return in.error(std::string("not an MI record: unexpected '") + Reader::printable(in.peek()) +
                      "'");
  }
  in.consume(in.peek());
  const std::string_view recordClass = in.word();
  if (recordClass.empty()) return in.error("missing record class");
  record.recordClass = std::string(recordClass);
  auto results = in.trailingResults();
  if (!results) return std::unexpected(results.error());
  record.results = std::move(*results);
  return record;
}

}  // namespace mpidbg::gdbmi
