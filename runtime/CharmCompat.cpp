#include "CharmCompat.hpp"

#include <unistd.h>

#include <cstdio>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "Control.hpp"
#include "ControlHandlers.hpp"
#include "CurrentCall.hpp"
#include "EntryPoints.hpp"
#include "Lists.hpp"
#include "Runtime.hpp"
#include "TypedHandler.hpp"
#include "ccs/proto/CharmDebug.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "mpidbg/pup.hpp"

namespace mpidbg::rt {

namespace {

namespace proto = ccs::proto;

/// Chare numbers of charm/chares.
constexpr std::int32_t kMpiChare = 0;
constexpr std::int32_t kEntryChare = 1;

/// One row of charm/entries.
struct CharmEntryRow {
  std::string name;
  std::int32_t index = 0;
  std::int32_t chareIdx = 0;
  bool inCharm = false;
};

/// charm/entries on this rank: the MPI functions, then the entry points
/// reached so far (sorted by name).
std::vector<CharmEntryRow> entryRows() {
  std::vector<CharmEntryRow> rows;
  for (std::size_t f = 1; f < kFunctionCount; ++f)
    rows.push_back({std::string(functionName(static_cast<MpiFunction>(f))), static_cast<std::int32_t>(f), kMpiChare,
                    true});
  for (const proto::EntryInfo& e : entryPoints()) rows.push_back({e.name, charmEntryIndexOf(e.name), kEntryChare, false});
  return rows;
}

/// The charm/entries index of the Charm++ breakpoint this rank is stopped
/// at (its stop text is "breakpoint ID at ..."), or nullopt.
std::optional<std::int32_t> stoppedAtEntry(Runtime& rt) {
  const std::string text = stopTextOf(rt);
  long id = 0;
  if (std::sscanf(text.c_str(), "breakpoint %ld at ", &id) != 1 || id < kCharmBreakpointIdBase || id > INT32_MAX)
    return std::nullopt;
  return static_cast<std::int32_t>(id - kCharmBreakpointIdBase);
}

/// What converse/localqueue holds at a breakpoint: Charm++ keeps the message
/// it stopped at first, named "Breakpoint", with the entry in charmMsg.ep
/// (CpdList_localQ, src/ck-core/debug-charm.C).
struct HeldMessage {
  std::int32_t ep = 0;
  void pup(PUP::er& p) { PUP(ep); }
};

bool hasBreakpoint(std::int32_t id) {
  for (const proto::Breakpoint& b : Control::instance().list())
    if (b.id == id) return true;
  return false;
}

}  // namespace

std::int32_t charmEntryIndexOf(const std::string& name) noexcept {
  // FNV-1a, 32 bits (http://www.isthe.com/chongo/tech/comp/fnv/).
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : name) {
    hash ^= c;
    hash *= 16777619u;
  }
  return kCharmEntryIndexBase + static_cast<std::int32_t>(hash & 0xFFFFFu);
}

std::optional<CharmEntryTarget> charmEntryTarget(std::int32_t index) {
  if (index >= 1 && static_cast<std::size_t>(index) < kFunctionCount)
    return CharmEntryTarget{true, std::string(functionName(static_cast<MpiFunction>(index)))};
  if (index < kCharmEntryIndexBase) return std::nullopt;
  for (const proto::EntryInfo& e : entryPoints())
    if (charmEntryIndexOf(e.name) == index) return CharmEntryTarget{false, e.name};
  return std::nullopt;
}

void registerCharmHandlers(ccs::Server& server, Runtime& runtime) {
  Runtime* rt = &runtime;
  Control::instance().setCharmNotices(true);
  using proto::CharmBreakReply;
  using proto::CharmEntryIndex;
  using proto::NoData;
  // Charm++ answers a breakpoint request it cannot read with 0 (refused).
  auto refused = [rt](std::string_view handler) {
    return [rt, handler](const std::string& message) {
      rt->tell(std::string(handler) + ": " + message);
      return CharmBreakReply{0};
    };
  };

  on<NoData, proto::CharmPeStatus>(server, proto::kCharmStatusHandler, [rt](const NoData&) {
    return proto::CharmPeStatus{rt->rank(), stopTextOf(*rt).empty() ? 1 : 0};
  });
  on<NoData, NoData>(server, proto::kCharmFreezeHandler, [rt](const NoData&) {
    Control::instance().freeze(false, !stopTextOf(*rt).empty());
    return NoData{};
  });
  on<NoData, NoData>(server, proto::kCharmContinueHandler, [rt](const NoData&) {
    Control::instance().resume();
    rt->resume();
    return NoData{};
  });
  on<NoData, NoData>(server, proto::kCharmNextHandler, [rt](const NoData&) {
    Control::instance().step(1);
    rt->resume();
    return NoData{};
  });
  on<CharmEntryIndex, CharmBreakReply>(
      server, proto::kCharmBreakSetHandler,
      [rt](const CharmEntryIndex& request) {
        const auto target = charmEntryTarget(request.index);
        if (!target) {
          rt->tell(std::string(proto::kCharmBreakSetHandler) + ": entry index '" + std::to_string(request.index) +
                   "' is neither an MPI function nor an entry point this rank has reached");
          return CharmBreakReply{0};
        }
        const std::int32_t id = kCharmBreakpointIdBase + request.index;
        if (hasBreakpoint(id)) return CharmBreakReply{0};  // as Charm++: set already
        proto::Breakpoint b;
        b.id = id;
        b.kind = target->mpi ? proto::BreakKind::Mpi : proto::BreakKind::Entry;
        b.target = target->name;
        const proto::ControlReply reply = Control::instance().set(b);
        if (!reply.ok) rt->tell(std::string(proto::kCharmBreakSetHandler) + " " + target->name + ": " + reply.message);
        return CharmBreakReply{reply.ok ? ~0 : 0};
      },
      refused(proto::kCharmBreakSetHandler));
  on<CharmEntryIndex, CharmBreakReply>(
      server, proto::kCharmBreakRemoveHandler,
      [](const CharmEntryIndex& request) {
        if (request.index > INT32_MAX - kCharmBreakpointIdBase) return CharmBreakReply{0};
        return CharmBreakReply{Control::instance().remove(kCharmBreakpointIdBase + request.index).ok ? ~0 : 0};
      },
      refused(proto::kCharmBreakRemoveHandler));
  on<NoData, CharmBreakReply>(
      server, proto::kCharmBreakRemoveAllHandler,
      [](const NoData&) {
        for (const proto::Breakpoint& b : Control::instance().list())
          if (b.id >= kCharmBreakpointIdBase) Control::instance().remove(b.id);
        return CharmBreakReply{1};
      },
      refused(proto::kCharmBreakRemoveAllHandler));

  ListRegistry& registry = ListRegistry::instance();
  registry.add(pupList(
      "charm/entries", false, [] { return static_cast<std::int32_t>(entryRows().size()); },
      [](std::int32_t at, PUP::er& p) {
        auto rows = entryRows();
        if (at < 0 || static_cast<std::size_t>(at) >= rows.size()) return;
        CharmEntryRow& row = rows[static_cast<std::size_t>(at)];
        // Charm++'s pupEntry order and labels (src/ck-core/register.C).
        std::string name = row.name;
        std::int32_t index = row.index, msgIdx = -1, chareIdx = row.chareIdx;
        bool inCharm = row.inCharm;
        PUP(name);
        PUP(index);
        PUP(msgIdx);
        PUP(chareIdx);
        PUP(inCharm);
      }));
  registry.add(pupList(
      "converse/localqueue", false, [rt] { return static_cast<std::int32_t>(stoppedAtEntry(*rt) ? 1 : 0); },
      [rt](std::int32_t at, PUP::er& p) {
        const auto ep = stoppedAtEntry(*rt);
        if (at != 0 || !ep) return;
        std::string name = "Breakpoint";
        HeldMessage charmMsg{*ep};
        PUP(name);
        PUP(charmMsg);
      }));
  registry.add(pupList(
      "charm/chares", false, [] { return static_cast<std::int32_t>(2); },
      [](std::int32_t at, PUP::er& p) {
        if (at != kMpiChare && at != kEntryChare) return;
        // Charm++'s pupChare order and labels, without base classes.
        std::string name = at == kMpiChare ? "MPI" : "MPIDBG_ENTRY";
        std::int32_t size = 0, defCtor = -1, migCtor = -1, numbases = 0;
        bool inCharm = at == kMpiChare;
        PUP(name);
        PUP(size);
        PUP(defCtor);
        PUP(migCtor);
        PUP(numbases);
        PUP(inCharm);
      }));
}

}  // namespace mpidbg::rt
