#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// Record and replay as a rank's runtime is doing it (issue 11; the decision
/// log itself is common/include/mpidbg/DecisionLog.hpp). Same text record
/// format as ccs/proto/RankProtocol.hpp: `key=value` lines, each record followed by
/// a `--` line, so the replies of many ranks concatenate
/// (MergeRule::Concatenate in the forwarding tree).

/// No data -> one RecordInfo record (followed by `--`) per rank.
inline constexpr std::string_view kRecordHandler = "mpidbg/record";

/// One rank's record/replay state. Keys: rank, recording, record_path,
/// recorded, record_bytes, by_kind, replaying, replay_path, replayed,
/// replay_total, replay_complete, diverged.
struct RecordInfo {
  std::int32_t rank = 0;
  bool recording = false;
  std::string recordPath;      ///< the log being written ("" when not recording)
  std::uint64_t recorded = 0;  ///< decisions recorded so far
  std::uint64_t recordBytes = 0;  ///< bytes written to the log so far (the last run may be held back)
  /// Decisions recorded per MPI function, "MPI_Recv:40,MPI_Waitany:12"
  /// (functions with none left out).
  std::string byKind;
  bool replaying = false;
  std::string replayPath;       ///< the log being replayed ("" when not replaying)
  std::uint64_t replayed = 0;   ///< decisions replayed so far
  std::uint64_t replayTotal = 0;  ///< decisions in the log
  bool replayComplete = false;  ///< the log has its end marker (the recorded run finished)
  /// Why replay stopped ("" while it goes on): the divergence report.
  std::string diverged;

  /// The message in errors ("bad record/replay record ...").
  static constexpr std::string_view kName = "record/replay record";
  /// One per rank, followed by `--` (ccs/proto/Message.hpp ListItem).
  static constexpr bool kListItem = true;
  /// The wire form (ccs/proto/Message.hpp).
  static constexpr auto fields() {
    using T = RecordInfo;
    return std::tuple{field("rank", &T::rank),
                      field("recording", &T::recording),
                      field("record_path", &T::recordPath),
                      field("recorded", &T::recorded),
                      field("record_bytes", &T::recordBytes),
                      field("by_kind", &T::byKind),
                      field("replaying", &T::replaying),
                      field("replay_path", &T::replayPath),
                      field("replayed", &T::replayed),
                      field("replay_total", &T::replayTotal),
                      field("replay_complete", &T::replayComplete),
                      field("diverged", &T::diverged)};
  }
};

/// Every record, each followed by a `--` line.
std::string encode(std::span<const RecordInfo> infos);
/// The records of a (merged) reply. Errors name the record and key.
Expected<std::vector<RecordInfo>> decodeRecordInfos(std::string_view text);

}  // namespace mpidbg::ccs::proto
