#pragma once

#include <string>
#include <string_view>

#include "debugger/cli/Commands.hpp"

namespace mpidbg::cli {

/// `set NAME = EXPR`: evaluates EXPR now and stores the set under NAME (the
/// value at definition time, like a gdb convenience variable); an empty set
/// is allowed. `set` alone lists the named sets. Errors, in this order: no
/// '=', NAME not an identifier or a reserved word (RankExpr::isValidName),
/// EXPR's syntax, no job, EXPR's evaluation errors.
CommandResult doSet(Context& ctx, const CommandArgs& args);

/// `unset NAME`: forgets a named set. Error when there is no such name.
CommandResult doUnset(Context& ctx, const CommandArgs& args);

/// `focus EXPR`: the ranks that commands taking an optional RANKS act on when
/// given none (computed now, kept as a fixed set); `focus all`, or any EXPR
/// naming every rank, clears it. `focus` alone shows it. Errors: EXPR's
/// syntax, no job, EXPR's evaluation errors, an empty result ("the set is
/// empty"; the focus is unchanged).
CommandResult doFocus(Context& ctx, const CommandArgs& args);

/// `unfocus`: clears the focus (commands act on every rank again).
CommandResult doUnfocus(Context& ctx, const CommandArgs& args);

/// The rank set a command acts on: `text` evaluated (RankExpr grammar), or
/// when `text` is blank the focus, or every rank when there is no focus.
/// Errors, in this order: the expression's syntax (job or not), no job
/// (kNoJob, also for a blank `text`), the evaluation's errors, and "the set
/// is empty" when it names no rank (so no command silently does nothing, or
/// everything). On success the session has a job.
Expected<core::RankSet> commandRanks(Context& ctx, std::string_view text);

/// True when `token` (a splitRankToken token) is a rank-set expression rather
/// than the next argument, for commands whose RANKS is optional and followed
/// by more (break [RANKS] TARGET): it starts with a digit or one of `[ ( ~ $`,
/// or is `all`, `focus`, a live-state word, `in`, `at`, `where`, or a defined
/// named set.
bool looksLikeRanks(const Context& ctx, std::string_view token);

/// The interactive prompt without its trailing blank: "(mpidbg)", or
/// "(mpidbg [2-3])" while a focus is set.
std::string promptFor(const SessionState& session);

}  // namespace mpidbg::cli
