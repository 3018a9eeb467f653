#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/ControlProtocol.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::cond {

/// Breakpoint conditions (issue 4): parsed by the front end, for errors at
/// `break` time, and again by the rank from the shipped text, where they are
/// evaluated against each matching call's arguments. Both sides use this code.
///
/// Grammar (`&&` binds tighter than `||`; parentheses group):
///   condition := or
///   or        := and ( "||" and )*
///   and       := primary ( "&&" primary )*
///   primary   := "(" or ")" | clause
///   clause    := NAME OP VALUE
///   NAME      := dest | source | tag | root | count | comm | rank | size
///   OP        := == | != | < | <= | > | >= | =      ("=" means "==")
///   VALUE     := integer (decimal, optional '-', or 0x hex)
///              | MPI_ANY_SOURCE (-1) | MPI_ANY_TAG (-1) | MPI_PROC_NULL (-2)
///              | WORLD | MPI_COMM_WORLD | SELF | MPI_COMM_SELF   (comm only)
///              | a communicator name: an identifier or a "quoted string"
///                (comm only; the name set with MPI_Comm_set_name)
/// `rank` and `size` are the world rank and size of the process; the others
/// are the call's arguments, with peers and tags in the wire convention of
/// ccs/proto/RankProtocol.hpp (-1 any source/tag, -2 MPI_PROC_NULL). A comm compared
/// with an integer compares the handle value. Communicators take only == and
/// !=. Input is bounded: kMaxText bytes, kMaxClauses clauses, kMaxDepth nested
/// parentheses; anything else is an error naming the 1-based column and token.

/// Longest accepted condition text, in bytes: what a breakpoint record
/// carries (ccs/proto/ControlProtocol.hpp).
inline constexpr std::size_t kMaxText = proto::kMaxConditionBytes;
/// Most clauses in one condition.
inline constexpr std::size_t kMaxClauses = 64;
/// Deepest nesting of parentheses.
inline constexpr int kMaxDepth = 16;

/// What a clause can test.
/// Target: the rank of a window's group that a one-sided call (MPI_Put, ...)
/// or a lock or flush names.
enum class Field : std::uint8_t { Dest, Source, Tag, Root, Count, Comm, Rank, Size, Target };
inline constexpr std::size_t kFieldCount = 9;

/// "dest", "source", ... (the spelling in conditions and call descriptions).
std::string_view fieldName(Field f) noexcept;

/// A set of Fields, one bit each (bit i = Field i).
using FieldSet = std::uint16_t;
/// The bit of `f` in a FieldSet.
constexpr FieldSet bit(Field f) noexcept { return static_cast<FieldSet>(1u << static_cast<unsigned>(f)); }
/// rank and size: what every safe point (MPI call or entry point) has.
inline constexpr FieldSet kAlways = bit(Field::Rank) | bit(Field::Size);

/// The MPI functions the runtime interposes (the targets of `break MPI_...`),
/// each with the arguments a condition may name. For MPI_Sendrecv* `tag` is
/// the receive tag and `count` the send count; for gathers the send count,
/// for scatters the receive count; for MPI_Wait{all,any,some},
/// MPI_Test{all,any,some} and MPI_Startall `count` is the number of
/// requests; for a communicator constructor `comm` is the parent.
struct FunctionInfo {
  std::string_view name;  ///< "MPI_Bcast"
  FieldSet fields;        ///< includes kAlways
  /// The collective class (RankProtocol.hpp CollClass, 0..13) a collective
  /// counts in, blocking or not: MPI_Exscan counts as MPI_Scan. -1 for the
  /// other functions.
  int collClass = -1;
};

/// Every interposed MPI function (runtime/CurrentCall.hpp MpiFunction,
/// skipping None), blocking ones first in MpiFunction order; the runtime
/// matches them to its functions by name.
std::span<const FunctionInfo> functions() noexcept;

/// The function named `name` exactly, or nullptr.
const FunctionInfo* findFunction(std::string_view name) noexcept;

/// An error for an unknown function: "unknown MPI function 'MPI_Bcats' (did
/// you mean MPI_Bcast?)", or listing that breakpoints work on the interposed
/// functions when nothing is close.
Error unknownFunction(std::string_view name);

/// The arguments of one call as the rank sees them: `has` says which are
/// present; `value[f]` holds Field f (for Comm: the handle value).
struct CallArgs {
  FieldSet has = kAlways;
  std::array<std::int64_t, kFieldCount> value{};
  /// Which predefined communicator `comm` is.
  enum class Predefined : std::uint8_t { None, World, Self } predefined = Predefined::None;
  /// The communicator's registry name; only needed when Condition::needsCommName().
  std::string_view commName;

  /// Sets Field `f` to `v` and marks it present.
  void set(Field f, std::int64_t v) noexcept {
    has |= bit(f);
    value[static_cast<std::size_t>(f)] = v;
  }
};

/// Relational operators.
enum class Op : std::uint8_t { Eq, Ne, Lt, Le, Gt, Ge };

/// One `NAME OP VALUE` test.
struct Clause {
  Field field = Field::Dest;
  Op op = Op::Eq;
  /// How the value is given: a number, a predefined communicator, or a name.
  enum class Value : std::uint8_t { Number, World, Self, Name } kind = Value::Number;
  std::int64_t number = 0;
  std::string name;  ///< communicator name when kind == Name
};

/// A parsed condition. Evaluation never allocates and never throws.
class Condition {
 public:
  /// Parses `text` (see the grammar above). Errors: "condition is longer than
  /// 1024 bytes", "empty condition", or "at column C: <what> ('<token>')".
  static Expected<Condition> parse(std::string_view text);

  /// An error when a clause names an argument outside `fields`:
  /// "MPI_Recv has no argument 'dest' (it has source, tag, count, comm, rank,
  /// size)"; `what` names the target ("MPI_Recv", "entry solver::step").
  Expected<void> validateFor(FieldSet fields, std::string_view what) const;
  /// validateFor with the arguments of MPI function `function`; an unknown
  /// function is an error (see unknownFunction).
  Expected<void> validateFor(std::string_view function) const;

  /// True when the call satisfies the condition. A clause on an argument the
  /// call lacks is false.
  bool evaluate(const CallArgs& args) const noexcept;

  /// True when some clause compares a communicator by name.
  bool needsCommName() const noexcept { return needsCommName_; }
  /// The clauses (for tests and listings).
  std::span<const Clause> clauses() const noexcept { return clauses_; }

 private:
  /// A node of the expression tree: a clause (index into clauses_) or an
  /// and/or of two earlier nodes. The root is the last node.
  struct Node {
    enum class Kind : std::uint8_t { Leaf, And, Or } kind = Kind::Leaf;
    std::uint16_t a = 0;  ///< Leaf: clause index; And/Or: left node
    std::uint16_t b = 0;  ///< And/Or: right node
  };
  bool evaluateNode(std::size_t node, const CallArgs& args) const noexcept;
  friend class Parser;

  std::vector<Clause> clauses_;
  std::vector<Node> nodes_;
  bool needsCommName_ = false;
};

/// "MPI_Bcast(root=0, count=16, comm=MPI_COMM_WORLD)": the function and the
/// present arguments among dest, source, target, tag, root, count, comm, in that
/// order, with -1/-2 peers and tags spelled MPI_ANY_SOURCE, MPI_ANY_TAG,
/// MPI_PROC_NULL and comm shown as `commName`.
std::string describeCall(std::string_view function, const CallArgs& args, std::string_view commName);

}  // namespace mpidbg::ccs::cond
