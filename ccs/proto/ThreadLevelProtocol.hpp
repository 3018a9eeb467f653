#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// MPI thread-level compliance as a rank's runtime observed it (issue 12).
/// Same text record format as ccs/proto/RankProtocol.hpp: `key=value` lines, each
/// record followed by a `--` line, so the replies of many ranks concatenate
/// (MergeRule::Concatenate in the forwarding tree). Violations themselves
/// travel as Event kind `violation` on the event channel (RankProtocol.hpp).

/// No data -> one ThreadLevelInfo record (followed by `--`) per rank.
inline constexpr std::string_view kThreadLevelHandler = "mpidbg/threadlevel";

/// Levels are MPI's: 0 = MPI_THREAD_SINGLE, 1 = FUNNELED, 2 = SERIALIZED,
/// 3 = MULTIPLE (MPICH's values, and the order the standard defines).
/// kThreadLevelDistinctComms (4) is a requirement above every level: what
/// two threads in collectives on one communicator at once need (MPI_THREAD_
/// MULTIPLE and distinct communicators).
inline constexpr std::int32_t kThreadLevelDistinctComms = 4;
/// MPI_THREAD_MULTIPLE in this numbering: a violation needing it or more had
/// two threads inside MPI at once.
inline constexpr std::int32_t kThreadLevelMultiple = 3;

/// "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
/// "MPI_THREAD_MULTIPLE", "MPI_THREAD_MULTIPLE and distinct communicators"
/// (level 4); "level N" for anything else.
std::string threadLevelName(std::int32_t level);

/// One rank's thread levels. Keys: rank, requested, provided, required,
/// violations.
struct ThreadLevelInfo {
  std::int32_t rank = 0;
  /// What MPI_Init_thread asked for (MPI_Init: MPI_THREAD_SINGLE).
  std::int32_t requested = 0;
  /// What the MPI library provided.
  std::int32_t provided = 0;
  /// The lowest level the calls seen so far need (0..4; 0 until a thread
  /// other than the initializing one calls MPI).
  std::int32_t required = 0;
  /// Violations seen so far (every occurrence, not only the reported ones).
  std::uint64_t violations = 0;

  /// The message in errors ("bad thread-level record ...").
  static constexpr std::string_view kName = "thread-level record";
  /// One per rank, followed by `--` (ccs/proto/Message.hpp ListItem).
  static constexpr bool kListItem = true;
  /// The wire form (ccs/proto/Message.hpp); levels 0..3, required 0..4.
  static constexpr auto fields() {
    using T = ThreadLevelInfo;
    return std::tuple{field("rank", &T::rank), field("requested", &T::requested).between(0, kThreadLevelMultiple),
                      field("provided", &T::provided).between(0, kThreadLevelMultiple),
                      field("required", &T::required).between(0, kThreadLevelDistinctComms),
                      field("violations", &T::violations)};
  }
};

/// Every record, each followed by a `--` line (encodeRecords).
std::string encode(std::span<const ThreadLevelInfo> infos);
/// The records of a (merged) reply. Errors name the record and key; levels
/// must be 0..3 (required 0..4).
Expected<std::vector<ThreadLevelInfo>> decodeThreadLevels(std::string_view text);

}  // namespace mpidbg::ccs::proto
