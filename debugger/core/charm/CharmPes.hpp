#pragma once

// The PEs of a Charm++ program as a RankBackend: what RankRouter sorts and
// sends through for CharmJob, as RuntimeRanks is for an mpidbg job.

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/core/Job.hpp"
#include "debugger/core/RankBackend.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core::charm {

class CharmLink;

/// What CharmPes reads of the program it serves, at the time of a request.
struct CharmProgram {
  std::function<CharmLink*()> link;  ///< the CCS link; nullptr before a launch or attach
  std::function<int()> size;         ///< the number of PEs
  std::function<bool()> ended;       ///< true once the program as a whole has ended (charmrun)
};

/// The back end of a Charm++ program: each PE through Charm++'s own CCS
/// debug handlers on the program's CCS server, one request per PE (Charm++
/// merges no replies, and aborts on a broadcast of ccs_getinfo or a list
/// request). Every PE 0..size-1 is a process: the session's Job holds those
/// whose process mpidbg attached by pid (for gdb and `where`), with whether
/// gdb holds it or it ended; the others are live while the program runs.
/// None is "without runtime": Charm++'s scheduler serves the debugger.
class CharmPes final : public RankBackend {
 public:
  /// How long a debug/converse/status request waits: a PE busy in an entry
  /// method answers only when it returns, and status asks every PE.
  static constexpr std::chrono::milliseconds kStatusTimeout{1500};

  CharmPes(Job& job, CharmProgram program) : job_(job), program_(std::move(program)) {}

  /// PE 0..size-1: the Job's entry for the PE (noRuntime cleared) or a live
  /// one; every PE not yet ended is lost once the program has ended.
  std::vector<RankInfo> processes() override;
  /// One request per PE (each()): the replies stay each PE's (byRank).
  Gathered gather(const std::vector<RankInfo>& targets, std::string_view handler,
                  const std::vector<std::uint8_t>& data) override;
  /// CharmLink::call to each PE in turn, bounded by kStatusTimeout for
  /// debug/converse/status and by the link's timeout otherwise.
  std::map<int, Expected<std::vector<std::uint8_t>>> each(const std::vector<RankInfo>& targets,
                                                          std::string_view handler,
                                                          const std::vector<std::uint8_t>& data) override;
  /// CharmLink::send to each PE in turn.
  std::map<int, Expected<void>> post(const std::vector<RankInfo>& targets, std::string_view handler,
                                     const std::vector<std::uint8_t>& data) override;
  /// The PEs of `missing` that processes() shows ended, polled for up to a second.
  std::map<int, std::string> endedMeanwhile(const std::map<int, std::string>& missing) override;

 private:
  Job& job_;
  CharmProgram program_;
};

}  // namespace mpidbg::core::charm
