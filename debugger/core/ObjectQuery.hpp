#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "ccs/proto/PupFmt.hpp"
#include "debugger/core/RankExpr.hpp"
#include "debugger/core/RankSet.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

class Debugger;

/// One list a process serves: "object" (a watched object) or "list", and
/// its length in items.
struct ListEntry {
  std::string kind;
  std::int32_t length = 0;
};

/// The processes of a job as servers of Charm++'s list protocol
/// (ccs_list_len, ccs_list_items.fmt; ../shared/protocols/ccs.md): the
/// back-end seam of `print`, `lists` and `where`. Two implementations: the
/// mpidbg ranks of a Debugger (rankListServers) and the PEs of a Charm++
/// program (charm/CharmJob.hpp). Processes are numbered 0..size()-1 (ranks or
/// PEs).
class ListServers {
 public:
  virtual ~ListServers() = default;
  /// Sends `handler` with `data` to each process of `ranks`, each reply its
  /// own; a process that cannot answer gets an Error saying why.
  virtual std::map<int, Expected<std::vector<std::uint8_t>>> ask(const RankSet& ranks, std::string_view handler,
                                                                 const std::vector<std::uint8_t>& data) = 0;
  /// The lists each process of `ranks` serves, by name, or why not.
  virtual std::map<int, Expected<std::map<std::string, ListEntry>>> directory(const RankSet& ranks) = 0;
  /// Of `ranks`, those running application code now (values read from them
  /// are best effort).
  virtual RankSet running(const RankSet& ranks) = 0;
  /// The lowest process that can answer now (completion asks only it).
  virtual std::optional<int> firstReachable() = 0;
  /// How many processes the job has.
  virtual int size() = 0;
  /// Rewrites the decoded items of `list` that process `rank` sent before
  /// they are merged (a back end that knows more about an item than its
  /// bytes say; the Charm++ one decodes raw object memory by DWARF). The
  /// default leaves them as they are.
  virtual void refine(int rank, const std::string& list, std::vector<ccs::pupfmt::Node>& items) {
    (void)rank, (void)list, (void)items;
  }
};

/// The mpidbg ranks of `debugger` as list servers (their runtimes name their
/// lists in mpidbg/lists). Valid while `debugger` is.
std::unique_ptr<ListServers> rankListServers(Debugger& debugger);

/// What `print` names: a list (an object the application watches, or one of
/// the runtime's lists), optionally items of it, optionally a field inside.
///
///     grid                 the whole object
///     grid.tile.nx         one field (and what lies under it)
///     particles[3]         item 3;   particles[0:10]  items 0..9
///     particles[2].x       field x of item 2
///     mpi/pending          a runtime list (names are identifiers joined by '/')
struct ObjectTarget {
  std::string list;                         ///< "grid", "mpi/pending"
  std::optional<std::int32_t> lo, hiPlus1;  ///< the item range, when given
  std::string field;                        ///< ".tile.nx", "[3]", ".x"; empty: everything
};

/// Parses a `print` target. Errors name the problem: empty, a bad name
/// character, '[' without ']', a bad index or range (negative, b <= a),
/// a bad field path.
Expected<ObjectTarget> parseObjectTarget(std::string_view text);

/// One field's values across ranks, the most common value first (ties: the
/// value of the lowest rank first).
struct MergedField {
  std::string path;                                       ///< "grid.nx", "particles[3].x"
  std::vector<std::pair<std::string, RankSet>> values;    ///< value -> ranks holding it
};

/// Merges each rank's (path, value) pairs: fields in order of first
/// appearance (lowest rank first); a rank lacking a field is simply absent
/// from that field's sets.
std::vector<MergedField> mergeFields(const std::map<int, std::vector<std::pair<std::string, std::string>>>& byRank);

/// Joins runs of array elements that hold the same values on the same ranks:
/// `cells[0] = 0`, ..., `cells[127] = 0` become `cells[0-127] = 0`. Only
/// leaves whose path ends in `[N]` with consecutive N are joined.
std::vector<MergedField> compressRuns(std::vector<MergedField> fields);

/// What `print` found.
struct ObjectReport {
  std::string target;                 ///< as the user wrote it
  std::vector<MergedField> fields;    ///< runs joined (compressRuns), at most the limit given to printObject
  std::size_t omitted = 0;            ///< fields left out beyond the limit
  RankSet answered;                   ///< ranks whose values are shown
  std::map<int, std::string> failed;  ///< rank -> why it shows nothing
  /// Ranks that were running application code when read: their values were
  /// read while they changed (best effort). Frozen ranks, ranks stopped at a
  /// breakpoint and ranks inside MPI calls are read consistently.
  RankSet running;
};

/// Most items one `print` reads from a rank.
inline constexpr std::int32_t kMaxPrintItems = 1000;

/// Reads `target` from `ranks` (ccs_list_items.fmt through each rank's
/// runtime) and merges the values as "majority plus exceptions". Never
/// fails as a whole: ranks that cannot answer are listed in `failed`.
ObjectReport printObject(Debugger& debugger, const RankSet& ranks, std::string_view text,
                         const ObjectTarget& target, std::size_t fieldLimit = 200);
/// printObject on any back end's processes.
ObjectReport printObject(ListServers& servers, const RankSet& ranks, std::string_view text,
                         const ObjectTarget& target, std::size_t fieldLimit = 200);

/// The report as text: one line per field, `grid.nx = 128` when every
/// answering rank agrees, else `grid.nx = 128 on [0-62]; 127 on [63]`; then
/// one line per failed rank group and a best-effort note for running ranks.
std::string renderObjectReport(const ObjectReport& report);
/// The report as JSON (docs/json-schema.md, "print"): target, answered
/// {ranks, rank_list}, fields [{path, values [{value, ranks, rank_list}]}],
/// omitted, failed [{error, ranks, rank_list}], running {ranks, rank_list}.
nlohmann::json objectReportToJson(const ObjectReport& report);

/// One row of `lists`: a list some ranks offer.
struct ListRow {
  std::string name;
  std::string kind;  ///< "object" or "list"
  RankSet ranks;     ///< ranks offering it
  std::vector<std::pair<std::string, RankSet>> lengths;  ///< length -> ranks (lists only)
};

/// What `lists` found.
struct ListsReport {
  std::vector<ListRow> rows;          ///< application lists first, then mpi/, then mpidbg/; by name
  std::map<int, std::string> failed;  ///< rank -> why it did not answer
};

/// The lists each rank of `ranks` serves (its mpidbg/lists list).
ListsReport listLists(Debugger& debugger, const RankSet& ranks);
/// listLists on any back end's processes.
ListsReport listLists(ListServers& servers, const RankSet& ranks);
/// `lists` as text: name, kind, ranks, and lengths.
std::string renderListsReport(const ListsReport& report);
/// `lists` as JSON (docs/json-schema.md, "lists"): lists [{name, kind,
/// ranks, rank_list, lengths [{length, ranks, rank_list}]}], failed.
nlohmann::json listsReportToJson(const ListsReport& report);

/// Tab completion of `word` as a print target: list names (from the
/// mpidbg/lists of the lowest answering rank) while `word` is a bare name,
/// else the paths one step below what `word` names, read from that rank
/// (`grid.` -> `grid.nx`, `grid.cells[`, ...). Empty when no rank answers.
std::vector<std::string> objectCompletions(Debugger& debugger, std::string_view word);
/// objectCompletions on any back end's processes.
std::vector<std::string> objectCompletions(ListServers& servers, std::string_view word);

/// True when `value` OP `literal` holds: numerically when both are numbers
/// (ints, floats, true/false as 1/0), else as strings (a "quoted" literal
/// has its quotes removed). OP is one of == != < <= > >=.
bool conditionHolds(std::string_view value, std::string_view op, std::string_view literal);

/// `where PATH OP VALUE`: the ranks of the job whose object field PATH
/// (first component: the list name) satisfies the condition. Ranks that
/// lack the field or cannot be read are not in the set. Error when no rank
/// could be read at all, naming why (e.g. no rank watches that name).
Expected<RankSet> ranksWhere(Debugger& debugger, const ObjectCondition& condition);
/// ranksWhere on any back end's processes.
Expected<RankSet> ranksWhere(ListServers& servers, const ObjectCondition& condition);

}  // namespace mpidbg::core
