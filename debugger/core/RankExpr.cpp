#include "debugger/core/RankExpr.hpp"

#include <array>
#include <utility>

namespace mpidbg::core {

namespace {

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool isIdentChar(char c) { return isIdentStart(c) || isDigit(c); }

constexpr std::array<std::pair<std::string_view, LiveState>, 5> kLiveStates = {{
    {"blocked", LiveState::Blocked},
    {"frozen", LiveState::Frozen},
    {"running", LiveState::Running},
    {"exited", LiveState::Exited},
    {"held", LiveState::Held},
}};

constexpr std::array<std::string_view, 11> kKeywords = {
    "all", "focus", "blocked", "frozen", "running", "exited", "held", "in", "at", "where", "entry"};

/// `c` as users read it in a message: 'x', or "the end".
std::string describeChar(std::string_view text, std::size_t pos) {
  if (pos >= text.size()) return "the end";
  const auto c = static_cast<unsigned char>(text[pos]);
  if (c < 0x20 || c >= 0x7f) {
    static const char* const hex = "0123456789abcdef";
    return std::string("byte 0x") + hex[c >> 4] + hex[c & 15];
  }
  return "'" + std::string(1, text[pos]) + "'";
}

}  // namespace

std::string_view liveStateName(LiveState state) {
  for (const auto& [name, s] : kLiveStates)
    if (s == state) return name;
  return "?";
}

bool RankExpr::isKeyword(std::string_view word) {
  for (auto k : kKeywords)
    if (k == word) return true;
  return false;
}

bool RankExpr::isValidName(std::string_view word) {
  if (word.empty() || !isIdentStart(word.front())) return false;
  for (char c : word)
    if (!isIdentChar(c)) return false;
  return !isKeyword(word) && !word.starts_with("MPI_");
}

/// Recursive-descent parser over the text; one instance per parse() call.
class RankExprParser {
 public:
  explicit RankExprParser(std::string_view text) : text_(text) {}

  Expected<RankExpr> run() {
    expr_.text_ = std::string(text_);
    if (text_.size() > RankExpr::kMaxLength)
      return failAt(RankExpr::kMaxLength, "too long (more than " + std::to_string(RankExpr::kMaxLength) + " bytes)");
    skipBlanks();
    if (pos_ == text_.size()) return fail("empty rank set (expected e.g. all, 3, 0-3,7, [0-3,7] or blocked & in MPI_Recv)");
    auto root = parseUnion();
    if (!root) return std::unexpected(root.error());
    skipBlanks();
    if (pos_ < text_.size()) {
      if (text_[pos_] == ')') return failAt(pos_, "unexpected ')' (no '(' to close)");
      return failAt(pos_, "expected an operator (| & -) or the end, got " + describeWord());
    }
    expr_.root_ = *root;
    return std::move(expr_);
  }

 private:
  using Kind = RankExpr::Kind;

  std::unexpected<Error> failAt(std::size_t pos, const std::string& problem) const {
    return fail("bad rank set '" + std::string(text_) + "': " + problem + " at column " + std::to_string(pos + 1));
  }

  void skipBlanks() {
    while (pos_ < text_.size() && isBlank(text_[pos_])) ++pos_;
  }

  /// The word (or character) at pos_, quoted, for "got ..." messages.
  std::string describeWord() const {
    if (pos_ < text_.size() && isIdentChar(text_[pos_])) {
      std::size_t end = pos_;
      while (end < text_.size() && isIdentChar(text_[end]) && end - pos_ < 40) ++end;
      return "'" + std::string(text_.substr(pos_, end - pos_)) + "'";
    }
    return describeChar(text_, pos_);
  }

  Expected<int> add(RankExpr::Node node) {
    if (expr_.nodes_.size() >= RankExpr::kMaxNodes)
      return failAt(node.column - 1, "too many operands (more than " + std::to_string(RankExpr::kMaxNodes) + ")");
    if (node.kind != Kind::Complement && node.kind != Kind::Union && node.kind != Kind::Intersection &&
        node.kind != Kind::Difference)
      ++expr_.operands_;
    expr_.nodes_.push_back(std::move(node));
    return static_cast<int>(expr_.nodes_.size() - 1);
  }

  /// One left-associative level: operand (OP operand)*.
  template <typename Next>
  Expected<int> parseLevel(char op, Kind kind, Next next) {
    auto left = next();
    if (!left) return left;
    while (true) {
      skipBlanks();
      if (pos_ >= text_.size() || text_[pos_] != op) return left;
      const std::size_t at = pos_++;
      skipBlanks();
      if (pos_ >= text_.size())
        return failAt(at, "'" + std::string(1, op) + "' needs a rank set after it");
      auto right = next();
      if (!right) return right;
      RankExpr::Node node;
      node.kind = kind;
      node.column = at + 1;
      node.left = *left;
      node.right = *right;
      left = add(std::move(node));
      if (!left) return left;
    }
  }

  Expected<int> parseUnion() {
    return parseLevel('|', Kind::Union, [this] { return parseIntersection(); });
  }
  Expected<int> parseIntersection() {
    return parseLevel('&', Kind::Intersection, [this] { return parseDifference(); });
  }
  Expected<int> parseDifference() {
    return parseLevel('-', Kind::Difference, [this] { return parseUnary(); });
  }

  Expected<int> parseUnary() {
    skipBlanks();
    if (pos_ < text_.size() && text_[pos_] == '~') {
      const std::size_t at = pos_++;
      if (++depth_ > RankExpr::kMaxDepth)
        return failAt(at, "nested deeper than " + std::to_string(RankExpr::kMaxDepth) + " levels");
      skipBlanks();
      if (pos_ >= text_.size()) return failAt(at, "'~' needs a rank set after it");
      auto operand = parseUnary();
      --depth_;
      if (!operand) return operand;
      RankExpr::Node node;
      node.kind = Kind::Complement;
      node.column = at + 1;
      node.left = *operand;
      return add(std::move(node));
    }
    return parsePrimary();
  }

  Expected<int> parsePrimary() {
    skipBlanks();
    if (pos_ >= text_.size()) return failAt(pos_, "expected a rank set, got the end");
    const char c = text_[pos_];
    const std::size_t start = pos_;
    if (c == '(') {
      if (++depth_ > RankExpr::kMaxDepth)
        return failAt(start, "nested deeper than " + std::to_string(RankExpr::kMaxDepth) + " levels");
      ++pos_;
      skipBlanks();
      if (pos_ < text_.size() && text_[pos_] == ')') return failAt(start, "'()' is empty");
      auto inner = parseUnion();
      if (!inner) return inner;
      skipBlanks();
      if (pos_ >= text_.size()) return failAt(start, "unbalanced parentheses: '(' is not closed");
      if (text_[pos_] != ')')
        return failAt(pos_, "expected an operator (| & -) or ')', got " + describeWord());
      ++pos_;
      --depth_;
      return inner;
    }
    if (c == '[') {
      const std::size_t close = text_.find(']', pos_);
      if (close == std::string_view::npos) return failAt(start, "'[' has no closing ']'");
      pos_ = close + 1;
      return literal(start);
    }
    if (isDigit(c)) return unbracketedLiteral(start);
    if (c == '$') return equiv(start);
    if (isIdentStart(c)) return word(start);
    if (c == ')') return failAt(start, "expected a rank set, got ')'");
    return failAt(start, "expected a rank set, got " + describeChar(text_, start));
  }

  Expected<int> literal(std::size_t start) {
    RankExpr::Node node;
    node.kind = Kind::Literal;
    node.column = start + 1;
    node.text = std::string(text_.substr(start, pos_ - start));
    return add(std::move(node));
  }

  void digits() {
    while (pos_ < text_.size() && isDigit(text_[pos_])) ++pos_;
  }

  /// `3`, `0-3`, `0-3,7`, `0-3, 7`: ranges need no blank around '-'; blanks
  /// may surround ','.
  Expected<int> unbracketedLiteral(std::size_t start) {
    digits();
    while (pos_ < text_.size()) {
      if (text_[pos_] == '-' && pos_ + 1 < text_.size() && isDigit(text_[pos_ + 1])) {
        ++pos_;
        digits();
        continue;
      }
      std::size_t look = pos_;
      while (look < text_.size() && isBlank(text_[look])) ++look;
      if (look < text_.size() && text_[look] == ',') {
        pos_ = look + 1;
        skipBlanks();
        if (pos_ >= text_.size() || !isDigit(text_[pos_])) return failAt(pos_, "expected a rank after ','");
        digits();
        continue;
      }
      break;
    }
    if (pos_ < text_.size() && isIdentStart(text_[pos_]))
      return failAt(pos_, "expected an operator (| & -) after the rank list, got " + describeWord());
    return literal(start);
  }

  std::string_view identifier() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && isIdentChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }

  Expected<int> equiv(std::size_t start) {
    ++pos_;
    const std::string_view name = identifier();
    if (name != "equiv")
      return failAt(start, "unknown variable '$" + std::string(name) + "' (only $equiv[N] exists)");
    if (pos_ >= text_.size() || text_[pos_] != '[')
      return failAt(pos_, "$equiv needs a class number: $equiv[N] (N = 1, 2, ... as `equiv` lists them)");
    ++pos_;
    const std::size_t numberAt = pos_;
    std::size_t n = 0;
    while (pos_ < text_.size() && isDigit(text_[pos_]) && pos_ - numberAt < 7)
      n = n * 10 + static_cast<std::size_t>(text_[pos_++] - '0');
    if (pos_ == numberAt || pos_ >= text_.size() || text_[pos_] != ']')
      return failAt(numberAt, "$equiv[N] needs a class number N and ']' (N = 1, 2, ... as `equiv` lists them)");
    ++pos_;
    if (n == 0) return failAt(numberAt, "there is no $equiv[0]: classes are numbered from 1");
    RankExpr::Node node;
    node.kind = Kind::Equiv;
    node.column = start + 1;
    node.equiv = n;
    return add(std::move(node));
  }

  Expected<int> word(std::size_t start) {
    const std::string_view w = identifier();
    RankExpr::Node node;
    node.column = start + 1;
    node.text = std::string(w);
    if (w == "all") {
      node.kind = Kind::All;
    } else if (w == "focus") {
      node.kind = Kind::Focus;
    } else if (w == "in") {
      skipBlanks();
      const std::string_view function = identifier();
      if (function.empty())
        return failAt(start, "'in' needs an MPI function name, e.g. 'in MPI_Allreduce' (in a command: "
                             "'(in MPI_Allreduce)')");
      node.kind = Kind::InCall;
      node.text = std::string(function);
    } else if (w == "at") {
      skipBlanks();
      if (identifier() != "entry")
        return failAt(start, "'at' needs 'entry NAME', e.g. 'at entry solver::step'");
      skipBlanks();
      auto name = entryName(start);
      if (!name) return std::unexpected(name.error());
      node.kind = Kind::AtEntry;
      node.text = std::move(*name);
    } else if (w == "where") {
      auto condition = objectCondition(start);
      if (!condition) return std::unexpected(condition.error());
      node.kind = Kind::Where;
      node.text = condition->path;
      node.condition = std::move(*condition);
    } else if (w == "entry") {
      return failAt(start, "'entry' is a keyword: write 'at entry NAME'");
    } else {
      node.kind = Kind::Name;
      for (const auto& [name, state] : kLiveStates) {
        if (name == w) {
          node.kind = Kind::Live;
          node.state = state;
        }
      }
    }
    return add(std::move(node));
  }

  /// A "quoted" string (no escapes) from pos_, quotes kept; error when not closed.
  Expected<std::string> quoted() {
    const std::size_t open = pos_;
    const std::size_t close = text_.find('"', open + 1);
    if (close == std::string_view::npos) return failAt(open, "'\"' is not closed");
    pos_ = close + 1;
    return std::string(text_.substr(open, pos_ - open));
  }

  Expected<std::string> entryName(std::size_t keywordAt) {
    if (pos_ < text_.size() && text_[pos_] == '"') {
      auto q = quoted();
      if (!q) return q;
      if (q->size() == 2) return failAt(keywordAt, "'at entry' needs a name, got \"\"");
      return q->substr(1, q->size() - 2);
    }
    const std::size_t start = pos_;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (isBlank(c) || c == '(' || c == ')' || c == '|' || c == '&' || c == '~' || c == '"') break;
      ++pos_;
    }
    if (pos_ == start) return failAt(keywordAt, "'at entry' needs an entry point name, e.g. 'at entry solver::step'");
    return std::string(text_.substr(start, pos_ - start));
  }

  Expected<ObjectCondition> objectCondition(std::size_t keywordAt) {
    ObjectCondition out;
    skipBlanks();
    // PATH: identifiers joined by '.', with [N] indices.
    if (pos_ >= text_.size() || !isIdentStart(text_[pos_]))
      return failAt(keywordAt, "'where' needs a condition on an object field, e.g. 'where grid.nx != 128'");
    while (true) {
      const std::string_view part = identifier();
      if (part.empty()) return failAt(pos_, "expected a field name after '.', got " + describeChar(text_, pos_));
      out.path += part;
      while (pos_ < text_.size() && text_[pos_] == '[') {
        const std::size_t open = pos_++;
        const std::size_t first = pos_;
        digits();
        if (pos_ == first || pos_ >= text_.size() || text_[pos_] != ']')
          return failAt(open, "an index is [N] with a number N");
        ++pos_;
        out.path += text_.substr(open, pos_ - open);
      }
      if (pos_ < text_.size() && text_[pos_] == '.') {
        out.path += '.';
        ++pos_;
        continue;
      }
      break;
    }
    skipBlanks();
    static constexpr std::array<std::string_view, 6> kOps = {"==", "!=", "<=", ">=", "<", ">"};
    for (auto op : kOps) {
      if (text_.substr(pos_).starts_with(op)) {
        out.op = std::string(op);
        pos_ += op.size();
        break;
      }
    }
    if (out.op.empty())
      return failAt(pos_, "expected a comparison (== != < <= > >=) after 'where " + out.path + "', got " +
                              describeChar(text_, pos_));
    skipBlanks();
    if (pos_ < text_.size() && text_[pos_] == '"') {
      auto q = quoted();
      if (!q) return std::unexpected(q.error());
      out.value = std::move(*q);
      return out;
    }
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() && (isIdentChar(text_[pos_]) || text_[pos_] == '.')) ++pos_;
    if (pos_ == start || text_.substr(start, pos_ - start) == "-")
      return failAt(start, "expected a value after '" + out.op + "', got " + describeChar(text_, start));
    out.value = std::string(text_.substr(start, pos_ - start));
    return out;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  RankExpr expr_;
};

Expected<RankExpr> RankExpr::parse(std::string_view text) { return RankExprParser(text).run(); }

bool RankExpr::usesLiveState() const {
  for (const auto& node : nodes_)
    if (node.kind == Kind::Live || node.kind == Kind::InCall || node.kind == Kind::AtEntry) return true;
  return false;
}

Expected<RankSet> RankExpr::evaluate(RankExprResolver& resolver) const {
  if (root_ < 0) return fail("empty rank set");
  return evaluateNode(root_, resolver);
}

Expected<RankSet> RankExpr::evaluateNode(int index, RankExprResolver& resolver) const {
  const Node& node = nodes_[static_cast<std::size_t>(index)];
  auto located = [&](Expected<RankSet> value) -> Expected<RankSet> {
    if (value || operands_ <= 1) return value;
    return fail(value.error().message + " (at column " + std::to_string(node.column) + " of '" + text_ + "')");
  };
  switch (node.kind) {
    case Kind::Literal: {
      auto set = RankSet::parse(node.text, resolver.jobSize());
      if (set) return set;
      return located(std::move(set));
    }
    case Kind::All: return RankSet::all(resolver.jobSize());
    case Kind::Focus: return located(resolver.focusSet());
    case Kind::Name: return located(resolver.namedSet(node.text));
    case Kind::Equiv: return located(resolver.equivalenceClass(node.equiv));
    case Kind::Live: return located(resolver.liveState(node.state));
    case Kind::InCall: return located(resolver.inCall(node.text));
    case Kind::AtEntry: return located(resolver.atEntry(node.text));
    case Kind::Where: return located(resolver.objectQuery(node.condition));
    case Kind::Complement: {
      auto operand = evaluateNode(node.left, resolver);
      if (!operand) return operand;
      return RankSet::all(resolver.jobSize()) - *operand;
    }
    case Kind::Union:
    case Kind::Intersection:
    case Kind::Difference: {
      auto left = evaluateNode(node.left, resolver);
      if (!left) return left;
      auto right = evaluateNode(node.right, resolver);
      if (!right) return right;
      if (node.kind == Kind::Union) return *left | *right;
      if (node.kind == Kind::Intersection) return *left & *right;
      return *left - *right;
    }
  }
  return fail("internal error: unknown rank set node");
}

std::string RankExpr::toString() const { return root_ < 0 ? std::string() : nodeText(root_); }

namespace {

/// How tightly `kind` binds: | 1, & 2, - 3, ~ and operands 4.
int precedence(RankExpr::Kind kind) {
  switch (kind) {
    case RankExpr::Kind::Union: return 1;
    case RankExpr::Kind::Intersection: return 2;
    case RankExpr::Kind::Difference: return 3;
    default: return 4;
  }
}

}  // namespace

std::string RankExpr::childText(int index, int minPrecedence) const {
  const std::string inner = nodeText(index);
  if (precedence(nodes_[static_cast<std::size_t>(index)].kind) >= minPrecedence) return inner;
  return "(" + inner + ")";
}

std::string RankExpr::nodeText(int index) const {
  const Node& node = nodes_[static_cast<std::size_t>(index)];
  switch (node.kind) {
    case Kind::Literal:
    case Kind::All:
    case Kind::Focus:
    case Kind::Name: return node.text;
    case Kind::Equiv: return "$equiv[" + std::to_string(node.equiv) + "]";
    case Kind::Live: return std::string(liveStateName(node.state));
    case Kind::InCall: return "in " + node.text;
    case Kind::AtEntry: {
      bool plain = !node.text.empty();
      for (char c : node.text)
        if (isBlank(c) || c == '(' || c == ')' || c == '|' || c == '&' || c == '~' || c == '"') plain = false;
      return "at entry " + (plain ? node.text : "\"" + node.text + "\"");
    }
    case Kind::Where: return "where " + node.condition.path + " " + node.condition.op + " " + node.condition.value;
    case Kind::Complement: return "~" + childText(node.left, 4);
    case Kind::Union: return childText(node.left, 1) + " | " + childText(node.right, 2);
    case Kind::Intersection: return childText(node.left, 2) + " & " + childText(node.right, 3);
    case Kind::Difference: return childText(node.left, 3) + " - " + childText(node.right, 4);
  }
  return "?";
}

}  // namespace mpidbg::core
