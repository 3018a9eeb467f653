#pragma once

// Charm++'s own CCS debug handlers (+cpd builds: src/conv-core/debug-conv.C,
// src/ck-core/debug-charm.C), declared once for both of mpidbg's sides: the
// front end speaks them to a Charm++ program (debugger/core/charm), and the
// runtime serves them to Charm++'s clients in Charm-compatible mode
// (runtime/CharmCompat.cpp). The front end sends them one PE at a time; a
// broadcast through the forwarding tree merges the replies by Charm++'s
// rules (ccs/tree/Merge.cpp, MergeTable::charmDebugDefaults).

#include <cstdint>
#include <string_view>
#include <tuple>

#include "ccs/proto/BinaryMessage.hpp"

namespace mpidbg::ccs::proto {

/// Whether a PE is frozen. Data: none. Reply: CharmPeStatus.
inline constexpr std::string_view kCharmStatusHandler = "debug/converse/status";
/// Freezes a PE (once its entry method returns). Data: none. No reply.
inline constexpr std::string_view kCharmFreezeHandler = "debug/converse/freeze";
/// Continues a frozen PE: the message it stopped at is delivered. Data: none. No reply.
inline constexpr std::string_view kCharmContinueHandler = "debug/charm/continue";
/// Delivers one message on a frozen PE, which stays frozen. Data: none. No reply.
inline constexpr std::string_view kCharmNextHandler = "debug/charm/next";
/// Sets a breakpoint on an entry method. Data: CharmEntryIndex. Reply: CharmBreakReply.
inline constexpr std::string_view kCharmBreakSetHandler = "debug/charm/bp/set";
/// Removes a breakpoint. Data: CharmEntryIndex. Reply: CharmBreakReply.
inline constexpr std::string_view kCharmBreakRemoveHandler = "debug/charm/bp/remove";
/// Removes every breakpoint. Data: none. Reply: CharmBreakReply (1).
inline constexpr std::string_view kCharmBreakRemoveAllHandler = "debug/charm/bp/removeall";
/// Continues from a breakpoint and ends the program (CpdQuitDebug). Data: none. No reply.
inline constexpr std::string_view kCharmQuitHandler = "debug/converse/quit";

/// The debug/converse/status reply (CpdDebugHandlerStatus): two big-endian
/// int32s (ChMessageInt_t), the PE and 1 when it runs, 0 when frozen.
struct CharmPeStatus {
  static constexpr std::string_view kName = "debug/converse/status reply";
  std::int32_t pe = 0;
  std::int32_t running = 0;

  static constexpr auto parts() {
    return std::tuple{int32Part("the PE", &CharmPeStatus::pe),
                      int32Part("the running flag", &CharmPeStatus::running).checked(+[](const CharmPeStatus& s) -> Expected<void> {
                        if (s.running == 0 || s.running == 1) return {};
                        return fail("running flag " + std::to_string(s.running) + " (0 or 1)");
                      })};
  }
};

/// The request of debug/charm/bp/set and bp/remove: the entry index (as
/// charm/entries numbers it) as decimal text ended by a NUL, which
/// CpdSetBreakPoint reads with sscanf("%s") and atoi.
struct CharmEntryIndex {
  static constexpr std::string_view kName = "breakpoint request";
  std::int32_t index = 0;

  static constexpr auto parts() { return std::tuple{decimalPart("entry index", &CharmEntryIndex::index)}; }
};

/// The reply of debug/charm/bp/set, bp/remove and bp/removeall: a native
/// int (CcsSendReply(sizeof(int), &reply)): ~0 done, 0 refused (set already,
/// or no such entry); removeall answers 1.
struct CharmBreakReply {
  static constexpr std::string_view kName = "breakpoint reply";
  std::int32_t outcome = 0;

  /// True when Charm++ did what was asked.
  bool done() const { return outcome != 0; }
  static constexpr auto parts() { return std::tuple{nativeInt32Part("the outcome", &CharmBreakReply::outcome)}; }
};

}  // namespace mpidbg::ccs::proto
