#pragma once

// The gdb/MI value model: c-strings, tuples and lists, as defined by the GDB
// manual, section "GDB/MI Output Syntax" (value -> const | tuple | list).

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mpidbg::gdbmi {

struct Result;
struct Value;

/// An MI tuple `{name=value,...}`. Names may repeat (gdb emits that for some
/// commands); lookups return the first match. Order is preserved.
struct Tuple {
  std::vector<Result> results;

  /// The value of the first result called `name`, or nullptr if there is none.
  const Value* get(std::string_view name) const;
  /// The string value of the first result called `name`, or nullptr if there
  /// is none or it is not a c-string.
  const std::string* getString(std::string_view name) const;
  /// Every value whose result is called `name`, in order (empty if none).
  std::vector<const Value*> getAll(std::string_view name) const;
  /// True when the tuple has no results (`{}` or a bare `^done`).
  bool empty() const;

  /// Item-by-item equality, names included.
  friend bool operator==(const Tuple&, const Tuple&) = default;
};

/// An MI list. Per the grammar a list holds either bare values
/// (`["i1","i2"]`) or results (`[frame={...},frame={...}]`); `items` keeps
/// both shapes: for a list of values every item's name is empty.
struct List {
  std::vector<Result> items;

  /// True when the list was written as a list of results (`name=value`).
  bool ofResults() const;
  /// Number of items.
  std::size_t size() const;
  /// True for `[]`.
  bool empty() const;
  /// The value of item `index`; `index` must be < size().
  const Value& at(std::size_t index) const;

  /// Item-by-item equality, names included.
  friend bool operator==(const List&, const List&) = default;
};

/// One MI value: a c-string (already unescaped), a tuple or a list.
struct Value {
  std::variant<std::string, Tuple, List> data;

  /// True when the value is a c-string.
  bool isString() const { return std::holds_alternative<std::string>(data); }
  /// True when the value is a tuple.
  bool isTuple() const { return std::holds_alternative<Tuple>(data); }
  /// True when the value is a list.
  bool isList() const { return std::holds_alternative<List>(data); }
  /// The c-string, or nullptr if the value is not one.
  const std::string* asString() const { return std::get_if<std::string>(&data); }
  /// The tuple, or nullptr if the value is not one.
  const Tuple* asTuple() const { return std::get_if<Tuple>(&data); }
  /// The list, or nullptr if the value is not one.
  const List* asList() const { return std::get_if<List>(&data); }
  /// Shorthand for asTuple()->get(name); nullptr if not a tuple or no match.
  const Value* get(std::string_view name) const;
  /// Renders the value back in MI syntax (strings re-escaped); parsing the
  /// rendering gives an equal value. Used by tests and logs.
  std::string toMi() const;

  friend bool operator==(const Value&, const Value&) = default;
};

/// One `name=value` pair. In lists of values `name` is empty.
struct Result {
  std::string name;
  Value value;

  friend bool operator==(const Result&, const Result&) = default;
};

// Defined here, where Result is complete (clang instantiates std::vector's
// constexpr members eagerly and rejects them on an incomplete type).
inline bool Tuple::empty() const { return results.empty(); }
inline std::size_t List::size() const { return items.size(); }
inline bool List::empty() const { return items.empty(); }

/// Renders a tuple's results as `a=..,b=..` (no braces), as they follow the
/// class in a record. Empty tuple gives "".
std::string resultsToMi(const Tuple& tuple);

}  // namespace mpidbg::gdbmi
