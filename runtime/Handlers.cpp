#include "Handlers.hpp"

#include <time.h>

#include <string>

#include "CallClock.hpp"
#include "Control.hpp"
#include "ControlHandlers.hpp"
#include "GdbServerHandler.hpp"
#include "Lists.hpp"
#include "QueueHandler.hpp"
#include "Record.hpp"
#include "Runtime.hpp"
#include "StackCapture.hpp"
#include "ThreadLevel.hpp"
#include "TypedHandler.hpp"
#include "ccs/transport/Frame.hpp"
#include "ccs/proto/GdbServerProtocol.hpp"
#include "ccs/proto/NodeTable.hpp"

namespace mpidbg::rt {

namespace {

namespace proto = ccs::proto;

std::int64_t monotonicNs() noexcept {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

/// The rank's status: state, call counter, and the current call if any.
proto::RankStatus status(Runtime& rt) {
  proto::RankStatus s;
  s.rank = rt.rank();
  s.size = rt.size();
  s.mpiCalls = rt.mpiCalls();
  const std::optional<MpiCallRecord> call = rt.currentCall().read();
  s.state = rt.state(call.has_value());
  s.stop = stopTextOf(rt, &s.stopNumber);
  if (!s.stop.empty()) s.state = proto::RankState::Frozen;
  s.call = observedCall(rt, call);
  return s;
}

}  // namespace

proto::MpiCall wireCallOf(Runtime& rt, const MpiCallRecord& call) {
  proto::MpiCall m;
  m.function = std::string(functionName(call.function));
  m.peerRole = std::string(peerRoleName(call.peerRole));
  m.peer = call.peer;
  m.hasTag = call.hasTag;
  m.tag = call.tag;
  m.comm = call.comm;
  if (call.comm != 0) m.commName = rt.comms().nameOf(call.comm);
  m.collCall = call.collCall;
  const std::int64_t elapsed = monotonicNs() - callClockToNs(call.entryNs);
  m.elapsedUs = elapsed > 0 ? static_cast<std::uint64_t>(elapsed / 1000) : 0;
  m.seq = call.seq;
  return m;
}

std::optional<proto::MpiCall> observedCall(Runtime& rt, const std::optional<MpiCallRecord>& call,
                                           std::vector<std::uint64_t>* polledRequests) {
  const std::optional<PollWatch::Streak> streak = rt.polls().current();
  const bool inNextTest = streak && call && call->function == streak->function && call->seq == streak->lastSeq + 1;
  const bool between = streak && !call && rt.mpiCalls() == streak->lastSeq;
  if (!inNextTest && !between) {
    if (call) return wireCallOf(rt, *call);
    return std::nullopt;
  }
  MpiCallRecord polled;
  if (call) {
    polled = *call;
  } else {
    polled.function = streak->function;
    if (streak->function == MpiFunction::Iprobe || streak->function == MpiFunction::Improbe) {
      polled.peerRole = PeerRole::Source;
      polled.peer = streak->peer;
      polled.hasTag = true;
      polled.tag = streak->tag;
      polled.comm = streak->comm;
    }
    if (polledRequests)
      polledRequests->assign(streak->handles.begin(), streak->handles.begin() + streak->handleCount);
  }
  polled.entryNs = streak->firstEntryNs;
  // Consecutive call numbers: the first test's is fixed while the streak lasts.
  polled.seq = streak->lastSeq - (streak->tests - 1);
  proto::MpiCall m = wireCallOf(rt, polled);
  m.polling = true;
  if (!call) {
    const std::int64_t since = monotonicNs() - callClockToNs(streak->lastExitNs);
    m.sinceLastUs = since > 0 ? static_cast<std::uint64_t>(since / 1000) : 0;
  }
  return m;
}

void registerHandlers(ccs::Server& server, Runtime& runtime) {
  Runtime* rt = &runtime;
  // Ends with a record separator, so the replies of many ranks concatenate
  // (forwarding tree) into a record list.
  on<proto::NoData, proto::Listed<proto::RankStatus>>(server, proto::kStatusHandler, [rt](const proto::NoData&) {
    return proto::Listed<proto::RankStatus>{status(*rt)};
  });
  // Each communicator's record ends with a `--` line, so replies concatenate.
  on<proto::NoData, proto::Records<proto::CommState>>(server, proto::kCollectivesHandler, [rt](const proto::NoData&) {
    proto::Records<proto::CommState> reply{rt->comms().snapshot()};
    for (auto& state : reply.values) state.worldRank = rt->rank();
    return reply;
  });
  // Ends with the `==` terminator line (its encode()), so replies concatenate.
  on<proto::NoData, proto::RankQueues>(server, proto::kQueuesHandler,
                                       [rt](const proto::NoData&) { return queuesOf(*rt); });
  // One record ending with a `--` line (RankStacks is a list item), so
  // replies concatenate.
  on<proto::NoData, proto::RankStacks>(server, proto::kStacksHandler, [rt](const proto::NoData&) {
    StackCapture& capture = StackCapture::instance();
    capture.attach(rt->rank(), Control::instance().freezeSignal());
    return capture.capture(rt->rank());
  });
  // Empty data (older clients, `mpidbg-ccs`) releases any stop; a
  // ContinueRequest releases a breakpoint stop only if the front end saw it.
  on<std::optional<proto::ContinueRequest>, proto::NoData>(
      server, proto::kContinueHandler, [rt](const std::optional<proto::ContinueRequest>& continued) {
        if (!continued) {
          Control::instance().resume();
        } else {
          const auto seen = continued->seen.find(rt->rank());
          Control::instance().resumeSeen(seen == continued->seen.end() ? 0 : seen->second);
        }
        rt->resume();
        return proto::NoData{};
      });
  // Charm++'s job shape, for its own CCS clients: one PE per rank.
  on<proto::NoData, proto::NodeTable>(server, proto::kGetInfoHandler, [rt](const proto::NoData&) {
    return proto::NodeTable{std::vector<std::int32_t>(static_cast<std::size_t>(rt->size()), 1)};
  });
  registerGdbServerHandler(server, server.endpoint().host, runtime);
  registerListHandlers(server, runtime);
  registerControlHandlers(server, runtime);
  registerThreadLevelHandler(server, runtime);
  registerRecordHandler(server, runtime);
}

}  // namespace mpidbg::rt
