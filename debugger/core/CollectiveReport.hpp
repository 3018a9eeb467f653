#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ccs/RankProtocol.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::core {

/// The stuck-collective report, per communicator, in the style of
/// ../shared/protocols/mqs.md ("A debugger's report"): for each collective
/// class that some rank is inside, the ranks grouped by call number
/// ("ranks [0-1,3] are in call 1 to MPI_Allreduce"), then every other member
/// with its own call count and what it is doing instead ("rank 2 has made 0
/// calls to MPI_Allreduce and is blocked in MPI_Recv(source=0, tag=99,
/// comm=MPI_COMM_WORLD)"). Communicators are keyed by (handle, world rank of
/// local rank 0, size), since handles can collide across processes.
/// Communicators of size 1 cannot hang a collective and are left out.
///
/// `views` holds every rank's status; `states` the collective counters of the
/// ranks that answered (by world rank).
std::string renderCollectives(const std::vector<RankView>& views,
                              const std::map<int, std::vector<ccs::proto::CommState>>& states,
                              std::chrono::milliseconds blockedAfter);

/// The same report as JSON (the `collectives` result of docs/json-schema.md):
/// {"communicators":[{"name","handle":"0x44000000","size",
///   "collectives":[{"collective":"MPI_Allreduce",
///     "inside":[{"ranks":"[0-1,3]","rank_list":[0,1,3],"call":1}],
///     "others":[{"ranks","rank_list","calls":0,"doing":"blocked in MPI_Recv(...)"}]}],
///   "unreported":{"count":0,"ranks":"[]","rank_list":[]}}],
///  "idle_communicators":N, "answered":bool}. Groups and their order are the
/// text's; "unreported" ranks are known for MPI_COMM_WORLD only.
nlohmann::json collectivesToJson(const std::vector<RankView>& views,
                                 const std::map<int, std::vector<ccs::proto::CommState>>& states,
                                 std::chrono::milliseconds blockedAfter);

/// The collective counters `renderCollectives` takes, from the queue state
/// of `queueStates()` (live ranks over CCS, held ranks from memory): each
/// rank's communicators with their worldRank set to it; ranks whose read
/// failed are left out.
std::map<int, std::vector<ccs::proto::CommState>> commStatesOf(const HangInput& input);

}  // namespace mpidbg::core
