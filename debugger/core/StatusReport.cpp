#include "debugger/core/StatusReport.hpp"

#include <algorithm>

#include "ccs/proto/CollectiveRoot.hpp"
#include "ccs/condition/Condition.hpp"
#include "debugger/core/Grouping.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

std::string countedWith(const std::string& function) {
  const ccs::cond::FunctionInfo* info = ccs::cond::findFunction(function);
  // Window collectives are counted in the Barrier class of the window's own
  // record: nothing else is counted there, so the class needs no mention.
  if (!info || info->collClass < 0 || function.starts_with("MPI_Win_")) return "";
  const std::string_view counted = proto::collName(static_cast<proto::CollClass>(info->collClass));
  return counted == function ? "" : std::string(counted);
}

std::string describeCall(const proto::MpiCall& call) {
  std::string args;
  if (!call.peerRole.empty()) {
    const bool anySource = call.peer == -1 && call.peerRole == "source";
    const bool root = call.peerRole == "root";
    args = call.peerRole + "=" +
           (anySource                                  ? std::string("MPI_ANY_SOURCE")
            : root && call.peer == proto::kRootIsMe     ? std::string("MPI_ROOT")
            : root && call.peer == proto::kRootProcNull ? std::string("MPI_PROC_NULL")
                                                        : std::to_string(call.peer));
  }
  if (call.hasTag) {
    if (!args.empty()) args += ", ";
    args += "tag=" + (call.tag == -1 ? std::string("MPI_ANY_TAG") : std::to_string(call.tag));
  }
  if (call.collCall > 0) {
    std::string out = call.function;
    if (!args.empty()) out += "(" + args + ")";
    const std::string with = countedWith(call.function);
    return out + " (call " + std::to_string(call.collCall) + " on " + call.commName +
           (with.empty() ? "" : ", counted with " + with) + ")";
  }
  // A window call names its window (its "communicator": runtime/CommWrappers.cpp):
  // "MPI_Win_lock(target=2, win 0xa0000000)".
  if (!call.commName.empty() && call.function.starts_with("MPI_Win_"))
    args += (args.empty() ? "" : ", ") + call.commName;
  else if (!call.commName.empty() && !args.empty())
    args += ", comm=" + call.commName;
  return args.empty() ? call.function : call.function + "(" + args + ")";
}

bool waitsLong(const proto::MpiCall& call, std::chrono::milliseconds blockedAfter) {
  using std::chrono::microseconds;
  if (microseconds(call.elapsedUs) < blockedAfter) return false;
  return !call.polling || microseconds(call.sinceLastUs) < blockedAfter;
}

std::string pollPhrase(const proto::MpiCall& call, const std::string& what) {
  const std::uint64_t tenths = call.elapsedUs / 100000;
  return "polls " + describeCall(call) + what + " for " + std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) +
         " s";
}

std::string describeRankState(const RankView& view, std::chrono::milliseconds blockedAfter) {
  if (view.info.ended()) return view.info.describeEnd();
  if (view.info.heldByGdb) return view.heldCall ? "stopped by gdb in " + describeCall(*view.heldCall) : "stopped by gdb";
  if (view.info.noRuntime) return "alive, without the runtime ('where' or 'hang' shows what it does)";
  if (!view.status) return "not responding (" + view.queryError + ")";
  const auto& s = *view.status;
  switch (s.state) {
    case proto::RankState::Frozen:
      if (s.stop.empty()) return "frozen";
      if (s.stop.starts_with("breakpoint") || s.stop.starts_with("thread-level violation"))
        return "stopped at " + s.stop;
      if (s.stop.starts_with("frozen") || s.stop.starts_with("stepped")) return s.stop;
      return "frozen " + s.stop;
    case proto::RankState::Finalized: return "finalized";
    case proto::RankState::Running:
      if (s.call && s.call->polling && waitsLong(*s.call, blockedAfter)) return pollPhrase(*s.call);
      return "running";
    case proto::RankState::InMpi:
      if (!s.call) return "in MPI";
      if (waitsLong(*s.call, blockedAfter))
        return s.call->polling ? pollPhrase(*s.call) : "blocked in " + describeCall(*s.call);
      return "in " + describeCall(*s.call);
  }
  return "unknown";
}

bool isSettled(const RankView& view, std::chrono::milliseconds blockedAfter) {
  if (view.info.ended() || view.info.heldByGdb) return true;
  if (!view.status) return false;
  switch (view.status->state) {
    case proto::RankState::Frozen: return true;
    case proto::RankState::InMpi:
    case proto::RankState::Running:
      return view.status->call && waitsLong(*view.status->call, blockedAfter);
    default: return false;
  }
}

std::chrono::milliseconds untilSettled(const std::vector<RankView>& views, std::chrono::milliseconds blockedAfter) {
  using std::chrono::milliseconds;
  milliseconds longest{0};
  for (const auto& v : views) {
    if (isSettled(v, blockedAfter)) continue;
    milliseconds need = blockedAfter;
    if (!v.status) need = milliseconds(0);
    else if (v.status->call && (v.status->state == proto::RankState::InMpi || v.status->call->polling))
      need = blockedAfter - std::chrono::duration_cast<milliseconds>(std::chrono::microseconds(v.status->call->elapsedUs));
    longest = std::max(longest, need);
  }
  return longest;
}

std::string statusLine(const RankView& view, std::chrono::milliseconds blockedAfter,
                       const std::map<int, std::string>& callSites) {
  std::string line = describeRankState(view, blockedAfter);
  if (const auto site = callSites.find(view.info.rank); site != callSites.end()) line += " at " + site->second;
  return line;
}

std::string renderStatus(const std::vector<RankView>& views, std::chrono::milliseconds blockedAfter,
                         const std::map<int, std::string>& callSites) {
  std::map<int, std::string> byRank;
  for (const auto& v : views) byRank[v.info.rank] = statusLine(v, blockedAfter, callSites);
  return renderGroups(groupByText(byRank));
}

}  // namespace mpidbg::core
