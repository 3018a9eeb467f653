#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "debugger/core/Job.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

class RankChannels;

/// What the processes of one request sent to many ranks answered: either one
/// merged payload (through the forwarding tree: the ranks' records
/// concatenated in rank order) or one reply per rank (direct connections),
/// plus, per rank that did not answer, why ("timed out after 3000 ms").
struct Gathered {
  std::vector<std::uint8_t> payload;                ///< tree: merged records
  std::map<int, std::vector<std::uint8_t>> byRank;  ///< direct: each rank's reply
  std::map<int, std::string> missing;               ///< rank -> why it did not answer
};

/// The back-end seam of RankRouter: "the processes of the job", whatever
/// speaks to them. It reports each process's state (RankInfo: registered,
/// held by gdb, ended, without runtime) and carries a named request with its
/// bytes to processes the router found reachable; it never decides which
/// processes may be asked (RankRouter does, once). Today one implementation,
/// RuntimeRanks (an mpidbg rank's runtime over CCS) and CharmPes (a Charm++
/// PE spoken to through Charm++'s own CCS debug handlers,
/// debugger/core/charm/CharmPes.hpp).
class RankBackend {
 public:
  virtual ~RankBackend() = default;

  /// The processes of the job as known now, by rank, registered ones only.
  virtual std::vector<RankInfo> processes() = 0;

  /// Sends `handler` with `data` to every process of `targets` (all
  /// reachable, sorted by rank) and gathers the answers; never fails as a
  /// whole: a process that does not answer is listed in `missing`.
  virtual Gathered gather(const std::vector<RankInfo>& targets, std::string_view handler,
                          const std::vector<std::uint8_t>& data) = 0;

  /// Sends `handler` with `data` to each process of `targets` on its own
  /// (each reply stays its process's), returning every target's reply or
  /// why there is none.
  virtual std::map<int, Expected<std::vector<std::uint8_t>>> each(const std::vector<RankInfo>& targets,
                                                                  std::string_view handler,
                                                                  const std::vector<std::uint8_t>& data) = 0;

  /// Sends `handler` with `data` to each process of `targets` without waiting
  /// for an answer (Charm++'s debug/converse/freeze, debug/charm/continue and
  /// debug/charm/next answer nothing). Every target gets an entry: sent, or
  /// why not.
  virtual std::map<int, Expected<void>> post(const std::vector<RankInfo>& targets, std::string_view handler,
                                             const std::vector<std::uint8_t>& data) = 0;

  /// Of `missing` (rank -> why it did not answer), the processes known to
  /// have ended, with how (RankInfo::endedPhrase), after waiting a short
  /// while (at most a second) for every one of them to be reported ended: a
  /// process that dies during the exchange refuses before its end is known.
  virtual std::map<int, std::string> endedMeanwhile(const std::map<int, std::string>& missing) = 0;
};

/// How RuntimeRanks routes requests (Session::routing(), given at its
/// construction).
struct RouteSettings {
  bool useTree = true;                        ///< through the forwarding tree for more than one rank
  std::size_t fanOut = 0;                     ///< fan-out of the tree
  std::chrono::milliseconds requestTimeout{3000};  ///< one CCS request
};

/// The back end of an mpidbg job: each rank's runtime (libmpidbg-rt) over
/// CCS, through the persistent RankChannels; requests for many ranks go
/// through the ranks' forwarding tree (../shared/DESIGN.md data flow 3: one
/// request to the lowest rank), with direct connections as the fallback when
/// the gateway fails.
class RuntimeRanks final : public RankBackend {
 public:
  /// `channels` gives the current connections (nullptr before a launch or
  /// attach); `settings` the routing options at the time of a request;
  /// `notify` receives a notice when the tree fails and direct connections
  /// take over.
  RuntimeRanks(Job& job, std::function<RankChannels*()> channels, std::function<RouteSettings()> settings,
               std::function<void(const std::string&)> notify)
      : job_(job), channels_(std::move(channels)), settings_(std::move(settings)), notify_(std::move(notify)) {}

  std::vector<RankInfo> processes() override { return job_.snapshot(); }
  Gathered gather(const std::vector<RankInfo>& targets, std::string_view handler,
                  const std::vector<std::uint8_t>& data) override;
  std::map<int, Expected<std::vector<std::uint8_t>>> each(const std::vector<RankInfo>& targets,
                                                          std::string_view handler,
                                                          const std::vector<std::uint8_t>& data) override;
  /// The runtime answers every request: sent on each rank's connection like
  /// each(), the replies dropped (an error reply is a failure).
  std::map<int, Expected<void>> post(const std::vector<RankInfo>& targets, std::string_view handler,
                                     const std::vector<std::uint8_t>& data) override;
  std::map<int, std::string> endedMeanwhile(const std::map<int, std::string>& missing) override;

 private:
  Job& job_;
  std::function<RankChannels*()> channels_;
  std::function<RouteSettings()> settings_;
  std::function<void(const std::string&)> notify_;
};

}  // namespace mpidbg::core
