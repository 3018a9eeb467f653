#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "mpidbg/Error.hpp"

namespace mpidbg::ccs {

/// How the replies of one handler from many PEs are combined into one reply,
/// as Charm++ registers a merge function per handler (CcsSetMergeFn with
/// CcsMerge_concat, CcsMerge_logical_and, ...; ../shared/protocols/ccs.md,
/// "Forwarding and merging").
///
/// Integer rules work element-wise on arrays of NATIVE 32-bit ints (host byte
/// order, as Charm++ handlers write a C int with CcsSendReply): every part
/// must have the same length, a multiple of 4. Checked against capture 06c/06d
/// (../shared/vectors/ccs/): two PEs answer ffffffff to bp/set, the
/// logical-AND merge writes native int 1 (01000000 on x86-64).
/// Differences from Charm++, on purpose:
///  - logical rules always write 0 or 1, also for a single part (Charm++ only
///    normalises when it actually merges a remote reply, so a broadcast on
///    one PE returns the handler's raw int);
///  - Sum and Product wrap around (two's complement) instead of signed
///    overflow;
///  - parts of different lengths are an Error (Charm++ reads past the end).
enum class MergeRule {
  Concatenate,  ///< bytes of every part, in PE order (capture 03b)
  LogicalAnd,   ///< 1 where every part is non-zero, else 0
  LogicalOr,    ///< 1 where some part is non-zero, else 0
  BitwiseAnd,   ///< bitwise AND of the ints
  BitwiseOr,    ///< bitwise OR of the ints
  Sum,          ///< sum of the ints, wrapping
  Product,      ///< product of the ints, wrapping
  Max,          ///< largest signed int
  Min,          ///< smallest signed int
  PickAny,      ///< the first part (the subtree root's reply, as Charm++ keeps its local one)
};

/// "concatenate", "logical-and", ... (for logs and messages).
std::string_view mergeRuleName(MergeRule rule);

/// True for the rules that work on arrays of native 32-bit ints.
bool isElementWise(MergeRule rule);

/// Merges `parts` (one per answering PE, in PE order) with `rule`.
/// Zero parts give an empty result. Errors (never aborts): for element-wise
/// rules, a part whose length is not a multiple of 4, or parts of different
/// lengths (the message names the part index and both lengths).
Expected<std::vector<std::uint8_t>> merge(MergeRule rule,
                                          std::span<const std::vector<std::uint8_t>> parts);

/// Handler name -> merge rule. A broadcast or multicast to a handler without
/// a rule cannot be merged: Charm++ aborts the program there; mpidbg answers
/// with an error (see ruleFor). Copyable value type; not synchronised (fill
/// it before handing it to a Forwarder).
class MergeTable {
 public:
  /// Sets (or replaces) the rule of `handler`.
  void add(std::string handler, MergeRule rule);

  /// The rule of `handler`, or nullopt when none is registered.
  std::optional<MergeRule> lookup(std::string_view handler) const;

  /// The rule of `handler`, or an Error "handler 'x' has no merge rule, so a
  /// reply from many PEs cannot be merged" that callers send back as an error
  /// reply.
  Expected<MergeRule> ruleFor(std::string_view handler) const;

  /// Number of handlers with a rule.
  std::size_t size() const { return rules_.size(); }

  /// The rules Charm++'s debug support registers for the handlers CharmDebug
  /// broadcasts (../shared/protocols/ccs.md, handler table):
  /// debug/converse/status concatenate; debug/charm/bp/set, bp/remove and
  /// bp/removeall logical-AND; debug/charm/continue, debug/charm/next,
  /// debug/converse/quit concatenate (empty replies).
  static MergeTable charmDebugDefaults();

 private:
  std::map<std::string, MergeRule, std::less<>> rules_;
};

}  // namespace mpidbg::ccs
