#pragma once

// The --json output of a session: one JSON object per line, each either a
// command's envelope or an event. The format is docs/json-schema.md, checked
// by docs/json-schema.json (tests/integration/cases/json.sh).

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/Grouping.hpp"
#include "debugger/core/RankSet.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::gdbmi {
/// One gdb/MI value (debugger/gdbmi/Value.hpp).
struct Value;
}  // namespace mpidbg::gdbmi

namespace mpidbg::cli {

/// What a command produced (debugger/cli/Commands.hpp).
struct CommandResult;

/// The schema identifier every JSON line carries in "schema". The number is
/// raised only for changes that break a reader (docs/json-schema.md, "Versioning").
inline constexpr std::string_view kJsonSchema = "mpidbg/1";

/// A rank set as JSON, the one convention of every --json result:
/// {"ranks":"[0-3,7]","rank_list":[0,1,2,3,7]} (RankSet::toString, "[]" when
/// empty, and the ranks in increasing order).
nlohmann::json rankSetJson(const core::RankSet& ranks);

/// `object` (a JSON object) with the two fields of rankSetJson(ranks) added:
/// how an entry that is about a group of ranks names them.
nlohmann::json withRanks(nlohmann::json object, const core::RankSet& ranks);

/// Identical texts grouped by rank set (core::groupByText), as an array of
/// {"ranks","rank_list",<field>:text}, ordered by each group's lowest rank.
nlohmann::json groupsJson(const std::map<int, std::string>& textByRank, const std::string& field);

/// The MPI call a rank is inside: {"function":"MPI_Recv","description":
/// describeCall(call),"comm":"MPI_COMM_WORLD","peer_role":"source"|"dest"|
/// "root"|"","peer":0,"tag":99|null,"collective_call":0,"elapsed_ms":1520}.
/// peer is a rank of comm (-1 for MPI_ANY_SOURCE), tag -1 for MPI_ANY_TAG and
/// null when the call has none, collective_call the 1-based call number of a
/// collective on comm (0 for other calls).
nlohmann::json callJson(const ccs::proto::MpiCall& call);

/// The `status` result without "size": {"groups":[{"ranks","rank_list",
/// "state"}] (the text's lines, statusLine), "per_rank":[{"rank","state",
/// "runtime_state","blocked","settled","held","ended","mpi_calls","call",
/// "call_site","error"}]}; state is describeRankState, runtime_state the
/// runtime's own word ("running", "frozen", "in-mpi", "finalized") or null
/// when it did not answer, call_site `callSites`' entry or null.
nlohmann::json statusJson(const std::vector<core::RankView>& views, std::chrono::milliseconds blockedAfter,
                          const std::map<int, std::string>& callSites = {});

/// A gdb/MI value as JSON: a c-string as a string, a tuple as an object (a
/// repeated name keeps its first value, as Tuple::get does), a list as an
/// array of its values (the names of a list of results are dropped).
nlohmann::json miValueJson(const gdbmi::Value& value);

/// The name of the command `line` runs: the command table's name for the
/// first word (so "bt" and "w" give "where", "sta" gives "status"), else the
/// first word as typed. Empty for a blank line or a '#' comment.
std::string commandNameOf(std::string_view line);

/// The envelope of one executed command line, keys in this order:
/// {"schema":"mpidbg/1","command":NAME,"line":LINE,"ok":true,"result":DATA}
/// or with "ok":false and "error":MESSAGE after "result". LINE is the line
/// without surrounding blanks; DATA is result.data (null when empty).
nlohmann::ordered_json commandJson(std::string_view line, const CommandResult& result);

/// An asynchronous notice as an event line: {"schema":"mpidbg/1",
/// "event":KIND,"ranks":..,"rank_list":..,"text":TEXT} where KIND comes from
/// the text: "breakpoint" ("hit breakpoint N: ...", with "breakpoint":N),
/// "stopped" ("stopped at ..."), "violation" ("MPI_THREAD_... violated: ...",
/// "MPI lifecycle violated: ..."), "ended" (exited, signal, MPI_Abort, lost,
/// killed, finalized), else "notice". `ranks` is null for a notice that is
/// not about ranks ("ranks"/"rank_list" are then left out).
nlohmann::ordered_json noticeJson(const std::string& text, const core::RankSet* ranks);

/// A session event of the front end itself: {"schema":"mpidbg/1",
/// "event":KIND,"text":TEXT} followed by the fields of `fields` (an object).
/// Kinds: "started" (the job registered), "killed" (still running at the end
/// of the commands). See docs/json-schema.md, "Events".
nlohmann::ordered_json sessionEventJson(std::string_view kind, const std::string& text,
                                        const nlohmann::json& fields = nlohmann::json::object());

/// `j` on one line, compact, without a newline. Bytes that are not UTF-8 (a
/// rank's or gdb's output may have them) become U+FFFD instead of throwing.
std::string jsonLine(const nlohmann::ordered_json& j);

}  // namespace mpidbg::cli
