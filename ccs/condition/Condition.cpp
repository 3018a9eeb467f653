// Breakpoint conditions: tokenizer, recursive-descent parser, evaluation and
// the call descriptions shown in breakpoint events (grammar in Condition.hpp).
#include "ccs/condition/Condition.hpp"

#include "ccs/proto/RankProtocol.hpp"
#include "ccs/proto/TextRecord.hpp"
#include "mpidbg/MpiFunctions.hpp"
#include "mpidbg/Text.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace mpidbg::ccs::cond {

namespace {

constexpr std::array<std::string_view, kFieldCount> kFieldNames = {"dest",  "source", "tag",  "root",  "count",
                                                                   "comm",  "rank",   "size", "target"};

constexpr FieldSet D = bit(Field::Dest), S = bit(Field::Source), T = bit(Field::Tag), R = bit(Field::Root),
                   N = bit(Field::Count), C = bit(Field::Comm), G = bit(Field::Target);

/// The CLASS column of the function table as FunctionInfo::collClass: the
/// table names a proto::CollClass enumerator or None.
namespace table {
using enum proto::CollClass;
struct NoClass {};
constexpr NoClass None{};
constexpr int classIndex(proto::CollClass c) { return static_cast<int>(c); }
constexpr int classIndex(NoClass) { return -1; }
}  // namespace table

/// Every breakpoint target: the MPI functions the runtime interposes, from
/// their one table (mpidbg/MpiFunctions.hpp), with the arguments a
/// condition may test.
constexpr auto kFunctions = std::to_array<FunctionInfo>({
#define MPIDBG_TARGET(name, text, collClass, fields, role, group) {text, (fields) | kAlways, table::classIndex(table::collClass)},
    MPIDBG_MPI_FUNCTIONS(MPIDBG_TARGET)
#undef MPIDBG_TARGET
});

/// A token or name as it may appear in an error message (40 characters at most).
std::string printable(std::string_view text) { return proto::shorten(text, 40); }

std::string fieldList(FieldSet fields) {
  std::string out;
  for (std::size_t i = 0; i < kFieldCount; ++i) {
    if (!(fields & (1u << i))) continue;
    if (!out.empty()) out += ", ";
    out += kFieldNames[i];
  }
  return out;
}

bool compare(std::int64_t lhs, Op op, std::int64_t rhs) noexcept {
  switch (op) {
    case Op::Eq: return lhs == rhs;
    case Op::Ne: return lhs != rhs;
    case Op::Lt: return lhs < rhs;
    case Op::Le: return lhs <= rhs;
    case Op::Gt: return lhs > rhs;
    case Op::Ge: return lhs >= rhs;
  }
  return false;
}

bool clauseHolds(const Clause& c, const CallArgs& args) noexcept {
  if (!(args.has & bit(c.field))) return false;
  const std::int64_t actual = args.value[static_cast<std::size_t>(c.field)];
  if (c.field != Field::Comm || c.kind == Clause::Value::Number) return compare(actual, c.op, c.number);
  bool same = false;
  switch (c.kind) {
    case Clause::Value::World: same = args.predefined == CallArgs::Predefined::World; break;
    case Clause::Value::Self: same = args.predefined == CallArgs::Predefined::Self; break;
    case Clause::Value::Name: same = args.commName == c.name; break;
    case Clause::Value::Number: break;
  }
  return c.op == Op::Ne ? !same : same;
}

void appendPeer(std::string& out, Field f, std::int64_t v) {
  if ((f == Field::Dest || f == Field::Source || f == Field::Target) && v == -2) out += "MPI_PROC_NULL";
  else if (f == Field::Source && v == -1) out += "MPI_ANY_SOURCE";
  else if (f == Field::Tag && v == -1) out += "MPI_ANY_TAG";
  else out += std::to_string(v);
}

}  // namespace

std::string_view fieldName(Field f) noexcept {
  const auto i = static_cast<std::size_t>(f);
  return i < kFieldNames.size() ? kFieldNames[i] : std::string_view{};
}

std::span<const FunctionInfo> functions() noexcept { return kFunctions; }

const FunctionInfo* findFunction(std::string_view name) noexcept {
  for (const FunctionInfo& f : kFunctions)
    if (f.name == name) return &f;
  return nullptr;
}

Error unknownFunction(std::string_view name) {
  const FunctionInfo* best = nullptr;
  std::size_t bestDistance = 4;
  for (const FunctionInfo& f : kFunctions) {
    const std::size_t d = editDistance(name, f.name, /*ignoreCase=*/true);
    if (d < bestDistance) {
      bestDistance = d;
      best = &f;
    }
  }
  std::string message = "unknown MPI function '" + printable(name) + "'";
  if (best) return Error{message + " (did you mean " + std::string(best->name) + "?)"};
  return Error{message + "; breakpoints work on the interposed functions: MPI_Send, MPI_Recv, MPI_Bcast, "
                         "MPI_Allreduce, MPI_Isend, ... (see docs/commands.md, \"Breakpoint conditions\")"};
}

/// Tokenizer and recursive-descent parser for Condition::parse. Every error
/// names the 1-based column and the offending token.
class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expected<Condition> run() {
    if (auto first = advance(); !first) return std::unexpected(first.error());
    if (token_.kind == Token::End) return fail("empty condition");
    auto root = parseOr(0);
    if (!root) return std::unexpected(root.error());
    if (token_.kind != Token::End)
      return here("expected &&, || or the end of the condition, got '" + printable(token_.text) + "'");
    return std::move(out_);
  }

 private:
  struct Token {
    enum Kind { End, Name, Number, String, Operator, And, Or, LParen, RParen } kind = End;
    std::string_view text;
    std::size_t column = 0;  ///< 1-based
  };

  std::unexpected<Error> here(const std::string& what) const {
    return fail("at column " + std::to_string(token_.column) + ": " + what);
  }

  static bool nameStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool nameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '.' || c == '-';
  }

  /// Reads the next token into token_.
  Expected<void> advance() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t')) ++pos_;
    token_ = Token{Token::End, {}, pos_ + 1};
    if (pos_ >= text_.size()) return {};
    const std::size_t start = pos_;
    const char c = text_[pos_];
    const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
    auto take = [&](Token::Kind kind, std::size_t n) {
      pos_ += n;
      token_.kind = kind;
      token_.text = text_.substr(start, n);
    };
    if (c == '&' && next == '&') take(Token::And, 2);
    else if (c == '|' && next == '|') take(Token::Or, 2);
    else if (c == '(') take(Token::LParen, 1);
    else if (c == ')') take(Token::RParen, 1);
    else if ((c == '=' || c == '!' || c == '<' || c == '>') && next == '=') take(Token::Operator, 2);
    else if (c == '=' || c == '<' || c == '>') take(Token::Operator, 1);
    else if (std::isdigit(static_cast<unsigned char>(c)) || (c == '-' && std::isdigit(static_cast<unsigned char>(next)))) {
      std::size_t end = pos_ + 1;
      while (end < text_.size() && std::isalnum(static_cast<unsigned char>(text_[end]))) ++end;
      take(Token::Number, end - pos_);
    } else if (nameStart(c)) {
      std::size_t end = pos_ + 1;
      while (end < text_.size() && nameChar(text_[end])) ++end;
      take(Token::Name, end - pos_);
    } else if (c == '"') {
      const std::size_t close = text_.find('"', pos_ + 1);
      if (close == std::string_view::npos) return here("unterminated string");
      take(Token::String, close + 1 - pos_);
      token_.text = text_.substr(start + 1, close - start - 1);
    } else {
      return here("unexpected character '" + printable(text_.substr(pos_, 1)) + "'");
    }
    return {};
  }

  Expected<std::uint16_t> addNode(Condition::Node node) {
    out_.nodes_.push_back(node);
    return static_cast<std::uint16_t>(out_.nodes_.size() - 1);
  }

  Expected<std::uint16_t> parseOr(int depth) {
    auto left = parseAnd(depth);
    while (left && token_.kind == Token::Or) {
      if (auto moved = advance(); !moved) return std::unexpected(moved.error());
      auto right = parseAnd(depth);
      if (!right) return right;
      left = addNode({Condition::Node::Kind::Or, *left, *right});
    }
    return left;
  }

  Expected<std::uint16_t> parseAnd(int depth) {
    auto left = parsePrimary(depth);
    while (left && token_.kind == Token::And) {
      if (auto moved = advance(); !moved) return std::unexpected(moved.error());
      auto right = parsePrimary(depth);
      if (!right) return right;
      left = addNode({Condition::Node::Kind::And, *left, *right});
    }
    return left;
  }

  Expected<std::uint16_t> parsePrimary(int depth) {
    if (token_.kind != Token::LParen) return parseClause();
    if (depth + 1 > kMaxDepth) return here("parentheses nested deeper than " + std::to_string(kMaxDepth));
    if (auto moved = advance(); !moved) return std::unexpected(moved.error());
    auto inner = parseOr(depth + 1);
    if (!inner) return inner;
    if (token_.kind != Token::RParen)
      return here("expected ')', got " + (token_.kind == Token::End ? std::string("the end") : "'" + printable(token_.text) + "'"));
    if (auto moved = advance(); !moved) return std::unexpected(moved.error());
    return inner;
  }

  Expected<std::uint16_t> parseClause() {
    if (token_.kind != Token::Name)
      return here(token_.kind == Token::End ? std::string("expected an argument name, got the end")
                                            : "expected an argument name, got '" + printable(token_.text) + "'");
    Clause clause;
    const auto found = std::find(kFieldNames.begin(), kFieldNames.end(), token_.text);
    if (found == kFieldNames.end())
      return here("unknown argument '" + printable(token_.text) + "' (expected one of " + fieldList(0xff) + ")");
    clause.field = static_cast<Field>(found - kFieldNames.begin());
    const std::string fieldText(token_.text);
    if (auto moved = advance(); !moved) return std::unexpected(moved.error());
    if (token_.kind != Token::Operator)
      return here("expected an operator (==, !=, <, <=, >, >=) after '" + fieldText + "'" +
                  (token_.kind == Token::End ? std::string(", got the end") : ", got '" + printable(token_.text) + "'"));
    static constexpr std::array<std::pair<std::string_view, Op>, 7> kOps = {{
        {"==", Op::Eq}, {"=", Op::Eq}, {"!=", Op::Ne}, {"<", Op::Lt}, {"<=", Op::Le}, {">", Op::Gt}, {">=", Op::Ge}}};
    for (const auto& [spelling, op] : kOps)
      if (spelling == token_.text) clause.op = op;
    if (clause.field == Field::Comm && clause.op != Op::Eq && clause.op != Op::Ne)
      return here("communicators compare only with == or !=, not '" + std::string(token_.text) + "'");
    if (auto moved = advance(); !moved) return std::unexpected(moved.error());
    if (auto valued = parseValue(clause, fieldText); !valued) return std::unexpected(valued.error());
    if (out_.clauses_.size() >= kMaxClauses) return here("more than " + std::to_string(kMaxClauses) + " clauses");
    if (clause.kind == Clause::Value::Name) out_.needsCommName_ = true;
    out_.clauses_.push_back(std::move(clause));
    if (auto moved = advance(); !moved) return std::unexpected(moved.error());
    return addNode({Condition::Node::Kind::Leaf, static_cast<std::uint16_t>(out_.clauses_.size() - 1), 0});
  }

  /// Fills clause.kind/number/name from token_ (not consumed).
  Expected<void> parseValue(Clause& clause, const std::string& fieldText) {
    const std::string_view t = token_.text;
    if (token_.kind == Token::Number) {
      std::string_view digits = t;
      bool negative = false;
      if (digits.starts_with('-')) {
        negative = true;
        digits.remove_prefix(1);
      }
      int base = 10;
      if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        digits.remove_prefix(2);
        base = 16;
      }
      std::int64_t v = 0;
      auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
      if (ec != std::errc{} || end != digits.data() + digits.size() || digits.empty())
        return here("bad number '" + printable(t) + "'");
      clause.number = negative ? -v : v;
      return {};
    }
    const bool isComm = clause.field == Field::Comm;
    if (token_.kind == Token::String && isComm) {
      clause.kind = Clause::Value::Name;
      clause.name = std::string(t);
      return {};
    }
    if (token_.kind == Token::Name) {
      if (isComm) {
        if (t == "WORLD" || t == "MPI_COMM_WORLD") clause.kind = Clause::Value::World;
        else if (t == "SELF" || t == "MPI_COMM_SELF") clause.kind = Clause::Value::Self;
        else {
          clause.kind = Clause::Value::Name;
          clause.name = std::string(t);
        }
        return {};
      }
      const Field f = clause.field;
      if (t == "MPI_ANY_SOURCE" && f == Field::Source) clause.number = -1;
      else if (t == "MPI_ANY_TAG" && f == Field::Tag) clause.number = -1;
      else if (t == "MPI_PROC_NULL" && (f == Field::Dest || f == Field::Source)) clause.number = -2;
      else return here("expected a number for '" + fieldText + "', got '" + printable(t) + "'");
      return {};
    }
    if (token_.kind == Token::End) return here("expected a value after '" + fieldText + "', got the end");
    return here("expected a value for '" + fieldText + "', got '" + printable(t) + "'");
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  Token token_;
  Condition out_;
};

Expected<Condition> Condition::parse(std::string_view text) {
  if (text.size() > kMaxText) return fail("condition is longer than " + std::to_string(kMaxText) + " bytes");
  return Parser(text).run();
}

Expected<void> Condition::validateFor(FieldSet fields, std::string_view what) const {
  for (const Clause& c : clauses_)
    if (!(fields & bit(c.field)))
      return fail(std::string(what) + " has no argument '" + std::string(fieldName(c.field)) + "' (it has " +
                  fieldList(fields) + ")");
  return {};
}

Expected<void> Condition::validateFor(std::string_view function) const {
  const FunctionInfo* f = findFunction(function);
  if (!f) return std::unexpected(unknownFunction(function));
  return validateFor(f->fields, f->name);
}

bool Condition::evaluate(const CallArgs& args) const noexcept {
  return nodes_.empty() || evaluateNode(nodes_.size() - 1, args);
}

bool Condition::evaluateNode(std::size_t node, const CallArgs& args) const noexcept {
  const Node& n = nodes_[node];
  switch (n.kind) {
    case Node::Kind::Leaf: return clauseHolds(clauses_[n.a], args);
    case Node::Kind::And: return evaluateNode(n.a, args) && evaluateNode(n.b, args);
    case Node::Kind::Or: return evaluateNode(n.a, args) || evaluateNode(n.b, args);
  }
  return false;
}

std::string describeCall(std::string_view function, const CallArgs& args, std::string_view commName) {
  std::string out(function);
  out += '(';
  bool first = true;
  for (Field f : {Field::Dest, Field::Source, Field::Target, Field::Tag, Field::Root, Field::Count, Field::Comm}) {
    if (!(args.has & bit(f))) continue;
    if (!first) out += ", ";
    first = false;
    out += fieldName(f);
    out += '=';
    if (f == Field::Comm) out += commName;
    else appendPeer(out, f, args.value[static_cast<std::size_t>(f)]);
  }
  out += ')';
  return out;
}

}  // namespace mpidbg::ccs::cond
