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
#include "Guarded.hpp"
#include "Lists.hpp"
#include "Runtime.hpp"
#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/transport/Frame.hpp"
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

/// Charm++'s bp/set and bp/remove reply: a native int, ~0 done, 0 refused
/// (CpdSetBreakPoint, src/ck-core/debug-charm.C).
std::vector<std::uint8_t> nativeInt(std::int32_t value) {
  std::vector<std::uint8_t> out(sizeof value);
  std::memcpy(out.data(), &value, sizeof value);
  return out;
}

/// The entry index of a bp/set request, read as CpdSetBreakPoint's sscanf("%d")
/// reads it; nullopt when it does not start with a number.
std::optional<std::int32_t> requestIndex(const ccs::Request& request) {
  std::string text(request.data.begin(), request.data.end());
  text = text.c_str();  // up to the NUL Charm++'s clients send
  char* end = nullptr;
  const long value = std::strtol(text.c_str(), &end, 10);
  if (end == text.c_str() || value < 0 || value > INT32_MAX) return std::nullopt;
  return static_cast<std::int32_t>(value);
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
  auto empty = [](const std::string&) -> ccs::HandlerResult { return std::vector<std::uint8_t>{}; };
  auto refused = [](const std::string&) -> ccs::HandlerResult { return nativeInt(0); };

  server.addHandler("debug/converse/status", guardedWith(
      [rt](const ccs::Request&) -> ccs::HandlerResult {
        std::vector<std::uint8_t> out;
        ccs::appendBigEndian32(out, rt->rank());
        ccs::appendBigEndian32(out, stopTextOf(*rt).empty() ? 1 : 0);
        return out;
      },
      empty));
  server.addHandler("debug/converse/freeze", guardedWith(
      [rt](const ccs::Request&) -> ccs::HandlerResult {
        Control::instance().freeze(false, !stopTextOf(*rt).empty());
        return std::vector<std::uint8_t>{};
      },
      empty));
  server.addHandler("debug/charm/continue", guardedWith(
      [rt](const ccs::Request&) -> ccs::HandlerResult {
        Control::instance().resume();
        rt->resume();
        return std::vector<std::uint8_t>{};
      },
      empty));
  server.addHandler("debug/charm/next", guardedWith(
      [rt](const ccs::Request&) -> ccs::HandlerResult {
        Control::instance().step(1);
        rt->resume();
        return std::vector<std::uint8_t>{};
      },
      empty));
  server.addHandler("debug/charm/bp/set", guardedWith(
      [rt](const ccs::Request& request) -> ccs::HandlerResult {
        const auto index = requestIndex(request);
        const auto target = index ? charmEntryTarget(*index) : std::nullopt;
        if (!target) {
          const std::string asked(std::string(request.data.begin(), request.data.end()).c_str());
          rt->tell("debug/charm/bp/set: entry index '" + asked +
                   "' is neither an MPI function nor an entry point this rank has reached");
          return nativeInt(0);
        }
        const std::int32_t id = kCharmBreakpointIdBase + *index;
        if (hasBreakpoint(id)) return nativeInt(0);  // as Charm++: set already
        proto::Breakpoint b;
        b.id = id;
        b.kind = target->mpi ? proto::BreakKind::Mpi : proto::BreakKind::Entry;
        b.target = target->name;
        const proto::ControlReply reply = Control::instance().set(b);
        if (!reply.ok) rt->tell("debug/charm/bp/set " + target->name + ": " + reply.message);
        return nativeInt(reply.ok ? ~0 : 0);
      },
      refused));
  server.addHandler("debug/charm/bp/remove", guardedWith(
      [](const ccs::Request& request) -> ccs::HandlerResult {
        const auto index = requestIndex(request);
        if (!index || *index > INT32_MAX - kCharmBreakpointIdBase) return nativeInt(0);
        return nativeInt(Control::instance().remove(kCharmBreakpointIdBase + *index).ok ? ~0 : 0);
      },
      refused));
  server.addHandler("debug/charm/bp/removeall", guardedWith(
      [](const ccs::Request&) -> ccs::HandlerResult {
        for (const proto::Breakpoint& b : Control::instance().list())
          if (b.id >= kCharmBreakpointIdBase) Control::instance().remove(b.id);
        return nativeInt(1);
      },
      refused));

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
