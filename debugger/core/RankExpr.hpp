#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/core/RankSet.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// A state of a rank right now, as `status` reports it (StatusReport.hpp).
enum class LiveState {
  Blocked,  ///< inside one MPI call for at least --blocked-after
  Frozen,   ///< stopped by the runtime: at MPI_Init, a breakpoint, freeze or step
  Running,  ///< answering and not frozen: in application code, or in MPI not yet blocked
  Exited,   ///< ended in any way (exit code, signal, MPI_Abort, lost)
  Held,     ///< held by a gdb session (all threads stopped)
};

/// The name an expression uses for `state`: "blocked", "frozen", ...
std::string_view liveStateName(LiveState state);

/// `where PATH OP VALUE` as written: a condition on a registered object's
/// field (issue 8), e.g. {"grid.nx", "!=", "128"}.
struct ObjectCondition {
  std::string path;   ///< identifiers joined by '.', with [N] indices
  std::string op;     ///< one of == != < <= > >=
  std::string value;  ///< a number, an identifier, or a "quoted" string (quotes kept)
};

/// The names a rank-set expression may use that the session, not the job,
/// defines (the CLI keeps them: cli::SessionState). Each member points at
/// the caller's current value and must outlive the evaluation; a null member
/// is "none defined": no named sets, no equivalence classes, no focus (so
/// `focus` is every rank).
struct RankNames {
  /// The focus (`focus EXPR`): nullopt when there is none.
  const std::optional<RankSet>* focus = nullptr;
  /// Sets named with `set NAME = EXPR`, by name.
  const std::map<std::string, RankSet>* sets = nullptr;
  /// The equivalence classes of the last `where`/`equiv`, largest first
  /// (`$equiv[N]` is element N-1).
  const std::vector<RankSet>* equivalenceClasses = nullptr;
};

/// What an expression's operands stand for, supplied by whoever evaluates it
/// (the debugger for a job; a fake in tests). An error returned by a method
/// is reported with the operand's column appended.
class RankExprResolver {
 public:
  virtual ~RankExprResolver() = default;
  /// Ranks of the job: `all` and `~S` are relative to 0..jobSize()-1, and
  /// literals are checked against it.
  virtual int jobSize() const = 0;
  /// The set defined by `set NAME = EXPR`. Error when no such name.
  virtual Expected<RankSet> namedSet(std::string_view name) = 0;
  /// `$equiv[n]` (n >= 1): class n of the last `where`/`equiv`.
  virtual Expected<RankSet> equivalenceClass(std::size_t n) = 0;
  /// `focus`: the focus set, or every rank when there is none.
  virtual Expected<RankSet> focusSet() = 0;
  /// The ranks in `state` now.
  virtual Expected<RankSet> liveState(LiveState state) = 0;
  /// `in FUNCTION`: the ranks inside MPI function `function` now (blocked or not).
  virtual Expected<RankSet> inCall(std::string_view function) = 0;
  /// `at entry NAME`: the ranks stopped at entry point `entry`.
  virtual Expected<RankSet> atEntry(std::string_view entry) = 0;
  /// `where PATH OP VALUE`: the ranks whose object satisfies the condition.
  virtual Expected<RankSet> objectQuery(const ObjectCondition& condition) = 0;
};

/// A parsed rank-set expression (docs/commands.md "Rank sets"). Grammar,
/// loosest binding first, binary operators left-associative:
///
///     expr    := inter ( '|' inter )*          union
///     inter   := diff ( '&' diff )*            intersection
///     diff    := unary ( '-' unary )*          difference
///     unary   := '~' unary | primary           complement within the job
///     primary := '(' expr ')' | LITERAL | '$equiv[' N ']' | NAME
///              | all | focus | blocked | frozen | running | exited | held
///              | in FUNCTION | at entry ENTRY | where PATH OP VALUE
///
/// LITERAL is `[...]` (anything up to the first ']', read by RankSet::parse)
/// or an unbracketed list starting with a digit: `3`, `0-3`, `0-3,7` (a '-'
/// between two digits with no blank is a range; `0-3 - 1` is a difference).
/// NAME and FUNCTION are identifiers ([A-Za-z_][A-Za-z0-9_]*); ENTRY runs to
/// the next blank, parenthesis or | & ~ (or is "quoted"); PATH is identifiers
/// joined by '.' with [N] indices; OP is one of == != < <= > >=; VALUE an
/// optionally negative number, an identifier or a "quoted" string.
/// Blanks between tokens are free.
class RankExpr {
 public:
  /// Longest text accepted, in bytes.
  static constexpr std::size_t kMaxLength = 4096;
  /// Deepest nesting of parentheses and '~' accepted.
  static constexpr int kMaxDepth = 64;
  /// Most operands and operators in one expression.
  static constexpr std::size_t kMaxNodes = 1024;

  /// Parses `text`. Errors say what is wrong and where, as "bad rank set
  /// 'TEXT': PROBLEM at column N" (1-based): empty text, an unexpected
  /// character or token, '(' not closed, ')' without '(', '[' without ']',
  /// an operator without an operand, `in`/`at entry`/`where` without their
  /// arguments, `$` other than $equiv[N], too long or too deep.
  static Expected<RankExpr> parse(std::string_view text);

  /// Computes the set, asking `resolver` for each operand that needs it, left
  /// to right. An empty result is a valid set, not an error. Errors: a
  /// literal rejected by RankSet::parse (its message, unchanged), or a
  /// resolver error, with " (at column N of 'TEXT')" appended when the
  /// expression has more than one operand.
  Expected<RankSet> evaluate(RankExprResolver& resolver) const;

  /// True when an operand depends on the ranks' state now (blocked, frozen,
  /// running, exited, held, in, at entry).
  bool usesLiveState() const;

  /// The canonical text: one blank around binary operators, parentheses only
  /// where precedence needs them. parse(toString()) succeeds and prints the
  /// same text, unless the added blanks make it longer than kMaxLength.
  std::string toString() const;

  /// The source text as given to parse().
  const std::string& text() const { return text_; }

  /// True for words an expression reserves: all, focus, blocked, frozen,
  /// running, exited, held, in, at, where, entry.
  static bool isKeyword(std::string_view word);
  /// True when `word` can name a set: an identifier that is not a keyword
  /// and does not start with "MPI_" (those are MPI functions).
  static bool isValidName(std::string_view word);

  /// The kinds of node in the tree (public for the parser in RankExpr.cpp).
  enum class Kind { Literal, All, Focus, Name, Equiv, Live, InCall, AtEntry, Where, Complement, Union, Intersection, Difference };
  /// One node; children are indices into the node vector (-1 = none).
  struct Node {
    Kind kind = Kind::Literal;
    std::size_t column = 1;  ///< 1-based column of the operand or operator
    std::string text;        ///< literal, name, function, entry, or object path
    LiveState state = LiveState::Blocked;
    std::size_t equiv = 0;   ///< N of $equiv[N]
    ObjectCondition condition;
    int left = -1;
    int right = -1;
  };

 private:
  friend class RankExprParser;
  Expected<RankSet> evaluateNode(int index, RankExprResolver& resolver) const;
  std::string nodeText(int index) const;
  /// nodeText, parenthesised when the node binds looser than `minPrecedence`.
  std::string childText(int index, int minPrecedence) const;
  std::string text_;
  std::vector<Node> nodes_;
  int root_ = -1;
  std::size_t operands_ = 0;
};

}  // namespace mpidbg::core
