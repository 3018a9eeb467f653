// CCS handlers of execution control (ccs/proto/ControlProtocol.hpp): breakpoints,
// freeze, step, entry points, detach. They run on the helper thread, decode
// the request, call Control, and encode the reply; bad requests get an error
// reply the front end prints.
#include "ControlHandlers.hpp"

#include "Guarded.hpp"

#include <string>

#include "Control.hpp"
#include "EntryPoints.hpp"
#include "Runtime.hpp"
#include "ccs/condition/Condition.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::rt {

namespace {

namespace proto = ccs::proto;

std::string_view textOf(const ccs::Request& request) {
  return {reinterpret_cast<const char*>(request.data.data()), request.data.size()};
}

/// This process's world rank, stamped on every reply record.
std::int32_t gRank = -1;

ccs::HandlerResult reply(proto::ControlReply r) {
  r.rank = gRank;
  return bytesOf(proto::encode(r));
}

ccs::HandlerResult errorReply(const std::string& message) { return reply({false, message, -1}); }

/// A handler whose exceptions become a ControlReply error record.
template <typename Body>
ccs::Handler guarded(Body body) {
  return guardedWith(std::move(body), [](const std::string& message) { return errorReply(message); });
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

  server.addHandler(std::string(proto::kBreakSetHandler), guarded([c, rt](const ccs::Request& request) {
                      auto b = proto::decodeBreakpoint(textOf(request));
                      if (!b) return errorReply(b.error().message);
                      proto::ControlReply r = c->set(*b);
                      if (r.ok) r.message = insideNote(*rt, *b);
                      return reply(std::move(r));
                    }));
  server.addHandler(std::string(proto::kBreakDeleteHandler), guarded([c](const ccs::Request& request) {
                      auto ref = proto::decodeBreakpointRef(textOf(request), false);
                      if (!ref) return errorReply(ref.error().message);
                      return reply(c->remove(ref->id));
                    }));
  server.addHandler(std::string(proto::kBreakEnableHandler), guarded([c](const ccs::Request& request) {
                      auto ref = proto::decodeBreakpointRef(textOf(request), true);
                      if (!ref) return errorReply(ref.error().message);
                      return reply(c->enable(ref->id, ref->enabled));
                    }));
  server.addHandler(std::string(proto::kBreakListHandler),
                    guarded([c](const ccs::Request&) -> ccs::HandlerResult {
                      auto list = c->list();
                      for (proto::Breakpoint& b : list) b.rank = gRank;
                      return bytesOf(proto::encode(std::span<const proto::Breakpoint>(list)));
                    }));
  server.addHandler(std::string(proto::kFreezeHandler), guarded([c, rt](const ccs::Request& request) {
                      auto freeze = proto::decodeFreezeRequest(textOf(request));
                      if (!freeze) return errorReply(freeze.error().message);
                      return reply(c->freeze(freeze->now, heldAtInit(*rt)));
                    }));
  server.addHandler(std::string(proto::kStepHandler), guarded([c, rt](const ccs::Request& request) {
                      auto step = proto::decodeStepRequest(textOf(request));
                      if (!step) return errorReply(step.error().message);
                      c->step(step->count);
                      rt->resume();
                      return reply({true, {}, -1});
                    }));
  server.addHandler(std::string(proto::kEntriesHandler),
                    guarded([](const ccs::Request&) -> ccs::HandlerResult {
                      auto entries = entryPoints();
                      for (proto::EntryInfo& e : entries) e.rank = gRank;
                      return bytesOf(proto::encode(std::span<const proto::EntryInfo>(entries)));
                    }));
  server.addHandler(std::string(proto::kDetachHandler), guarded([c, rt](const ccs::Request&) {
                      c->detach();
                      rt->resume();
                      return reply({true, {}, -1});
                    }));
}

std::string stopTextOf(Runtime& rt, std::uint32_t* number) {
  Control& control = Control::instance();
  if (number) *number = 0;
  if (control.stopped()) return control.stopText(rt, number);
  if (heldAtInit(rt)) return "at the end of MPI_Init";
  return {};
}

}  // namespace mpidbg::rt
