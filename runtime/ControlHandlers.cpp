// CCS handlers of execution control (ccs/proto/ControlProtocol.hpp): breakpoints,
// freeze, step, entry points, detach. They run on the helper thread as typed
// handlers (TypedHandler.hpp): the request arrives decoded, the ControlReply
// returned is stamped with this rank; bad requests get an error reply the
// front end prints.
#include "ControlHandlers.hpp"

#include "TypedHandler.hpp"

#include <string>

#include "Control.hpp"
#include "EntryPoints.hpp"
#include "Runtime.hpp"
#include "ccs/condition/Condition.hpp"
#include "ccs/proto/AttachProtocol.hpp"
#include "ccs/proto/ControlProtocol.hpp"

namespace mpidbg::rt {

namespace {

namespace proto = ccs::proto;

/// This process's world rank, stamped on every reply record.
std::int32_t gRank = -1;

/// `r` stamped with this rank.
proto::ControlReply stamped(proto::ControlReply r) {
  r.rank = gRank;
  return r;
}

/// The reply to a request that does not decode, or a handler that threw.
proto::ControlReply errorReply(std::string message) { return stamped({false, std::move(message), -1}); }

/// Registers a handler answering a ControlReply: `fn(const Request&)`
/// returns it, stamped here; bad requests and exceptions answer errorReply.
template <typename Request, typename Fn>
void onControl(ccs::Server& server, std::string_view name, Fn fn) {
  on<Request, proto::ControlReply>(
      server, name, [fn = std::move(fn)](const Request& request) { return stamped(fn(request)); }, errorReply);
}

/// True while the rank is held at the end of MPI_Init.
bool heldAtInit(Runtime& rt) { return rt.state(false) == proto::RankState::Frozen; }

/// The note of a bp/set reply when the rank's MPI thread is inside a call of
/// the breakpoint's MPI function right now ("already inside
/// MPI_Allreduce(comm=MPI_COMM_WORLD) call #99: the breakpoint stops its next
/// call, not this one"), else empty. That call's safe point has passed, so
/// the breakpoint cannot stop it; the rank stops at its next matching call,
/// and a collective's peers stopped at this call's entry leave it waiting
/// inside. The record is read while the rank runs: the note tells what was so
/// just after the breakpoint was armed.
std::string insideNote(Runtime& rt, const proto::Breakpoint& b) {
  if (b.kind != proto::BreakKind::Mpi) return {};
  const ccs::cond::FunctionInfo* info = ccs::cond::findFunction(b.target);
  const auto call = rt.currentCall().read();
  if (!info || !call || functionName(call->function) != info->name) return {};
  return "already inside " + describeSafePoint(rt, call->function, {}, argsOfRecord(rt, *call), call->collCall) +
         ": the breakpoint stops its next call, not this one";
}

}  // namespace

void registerControlHandlers(ccs::Server& server, Runtime& runtime) {
  Runtime* rt = &runtime;
  gRank = runtime.rank();
  Control& control = Control::instance();
  control.attach(runtime, server);
  Control* c = &control;

  onControl<proto::Breakpoint>(server, proto::kBreakSetHandler, [c, rt](const proto::Breakpoint& b) {
    proto::ControlReply r = c->set(b);
    if (r.ok) r.message = insideNote(*rt, b);
    return r;
  });
  onControl<proto::BreakpointRef>(server, proto::kBreakDeleteHandler,
                                  [c](const proto::BreakpointRef& ref) { return c->remove(ref.id); });
  onControl<proto::BreakpointEnable>(server, proto::kBreakEnableHandler, [c](const proto::BreakpointEnable& ref) {
    return c->enable(ref.id, ref.enabled);
  });
  on<proto::NoData, proto::Records<proto::Breakpoint>>(server, proto::kBreakListHandler, [c](const proto::NoData&) {
    auto list = c->list();
    for (proto::Breakpoint& b : list) b.rank = gRank;
    return proto::Records<proto::Breakpoint>{std::move(list)};
  });
  onControl<proto::FreezeRequest>(server, proto::kFreezeHandler, [c, rt](const proto::FreezeRequest& freeze) {
    return c->freeze(freeze.now, heldAtInit(*rt));
  });
  onControl<proto::StepRequest>(server, proto::kStepHandler, [c, rt](const proto::StepRequest& step) {
    c->step(step.count);
    rt->resume();
    return proto::ControlReply{true, {}, -1};
  });
  on<proto::NoData, proto::Records<proto::EntryInfo>>(server, proto::kEntriesHandler, [](const proto::NoData&) {
    auto entries = entryPoints();
    for (proto::EntryInfo& e : entries) e.rank = gRank;
    return proto::Records<proto::EntryInfo>{std::move(entries)};
  });
  // A listening job: register with the attaching front end.
  onControl<proto::AttachRequest>(server, proto::kAttachHandler, [rt](const proto::AttachRequest& request) {
    auto attached = rt->attachFrontend(request.frontend);
    return attached ? proto::ControlReply{} : proto::ControlReply{false, attached.error().message, -1};
  });
  onControl<proto::NoData>(server, proto::kDetachHandler, [c, rt](const proto::NoData&) {
    c->detach();
    rt->resume();
    return proto::ControlReply{true, {}, -1};
  });
}

std::string stopTextOf(Runtime& rt, std::uint32_t* number) {
  Control& control = Control::instance();
  if (number) *number = 0;
  if (control.stopped()) return control.stopText(rt, number);
  if (heldAtInit(rt)) return "at the end of MPI_Init";
  return {};
}

}  // namespace mpidbg::rt
