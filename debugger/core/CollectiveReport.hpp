#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/HangReport.hpp"
#include "debugger/core/StatusReport.hpp"

namespace mpidbg::core {

/// The nonblocking collectives each rank has issued and not completed
/// (MPI_Iallreduce, MPI_Ibarrier, ...): by world rank, then by communicator
/// (identity, as proto::identityOf), the pending operations of
/// RankQueues::comms[].collectives (function, root, collective #k).
using PendingCollectives = std::map<int, std::map<ccs::proto::CommIdentity, std::vector<ccs::proto::PendingOp>>>;

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
/// ranks that answered (by world rank). The runtime counts a nonblocking
/// collective in its blocking one's class until it completes; `pending`
/// tells them apart: a rank whose class is active only through pending
/// nonblocking operations (it is not in that blocking call) is not "in call
/// N to MPI_Allreduce"; its operations are listed by their own name and
/// their position in the communicator's collective sequence: "Rank 0 has not
/// completed MPI_Iallreduce (collective #2 on the communicator)."
///
/// `callSites` (mpiCallSites of the ranks that wait) adds where ranks made
/// their calls: "Ranks [0-1,3] are in call 1 to MPI_Allreduce at solver.c:88
/// in step." and "... is blocked in MPI_Recv(...) at halo.c:40 in exchange".
std::string renderCollectives(const std::vector<RankView>& views,
                              const std::map<int, std::vector<ccs::proto::CommState>>& states,
                              std::chrono::milliseconds blockedAfter, const PendingCollectives& pending = {},
                              const std::map<int, std::string>& callSites = {});

/// The same report as JSON (the `collectives` result of docs/json-schema.md):
/// {"communicators":[{"name","handle":"0x44000000","size",
///   "collectives":[{"collective":"MPI_Allreduce",
///     "inside":[{"ranks":"[0-1,3]","rank_list":[0,1,3],"call":1,
///                "call_site":"solver.c:88 in step"|null}],
///     "others":[{"ranks","rank_list","calls":0,"doing":"blocked in MPI_Recv(...)"}]}],
///   "unreported":{"count":0,"ranks":"[]","rank_list":[]},
///   "nonblocking":[{"collective":"MPI_Iallreduce","seq":2,"ranks","rank_list"}]}],
///  "idle_communicators":N, "answered":bool}. Groups and their order are the
/// text's; "unreported" ranks are known for MPI_COMM_WORLD only.
nlohmann::json collectivesToJson(const std::vector<RankView>& views,
                                 const std::map<int, std::vector<ccs::proto::CommState>>& states,
                                 std::chrono::milliseconds blockedAfter, const PendingCollectives& pending = {},
                                 const std::map<int, std::string>& callSites = {});

/// The collective counters `renderCollectives` takes, from the queue state
/// of `queueStates()` (live ranks over CCS, held ranks from memory): each
/// rank's communicators with their worldRank set to it; ranks whose read
/// failed are left out. An intercommunicator, which the runtime describes
/// by its remote group, is one communicator of both its groups (its size
/// theirs, its rank 0 the lowest world rank of either) when a member of the
/// remote group answered.
std::map<int, std::vector<ccs::proto::CommState>> commStatesOf(const HangInput& input);

/// The nonblocking collectives `renderCollectives` takes, from the same
/// queue state, keyed as commStatesOf's communicators; ranks whose read
/// failed are left out.
PendingCollectives pendingCollectivesOf(const HangInput& input);

}  // namespace mpidbg::core
