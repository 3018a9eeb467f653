#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/ControlProtocol.hpp"
#include "ccs/proto/RankProtocol.hpp"
#include "debugger/core/RankRouter.hpp"

namespace mpidbg::core {

// The requests and replies RankRouter::ask carries, adapted from ccs::proto's
// records and their encode/decode functions (ccs/proto/RankProtocol.hpp,
// ccs/proto/ControlProtocol.hpp): the wire formats stay there, these traits only
// say which handler a request goes to and how a merged reply splits by rank.

/// mpidbg/status (no data) -> one ccs::proto::RankStatus per rank.
struct StatusRequest {};
/// mpidbg/collectives (no data) -> the rank's ccs::proto::CommState records.
struct CollectivesRequest {};
/// Any control handler (ccs/proto/ControlProtocol.hpp: bp/set, bp/delete,
/// bp/enable, freeze, step, detach) with its already encoded record ->
/// ccs::proto::ControlReply per rank.
struct ControlRequest {
  std::string_view handler;  ///< one of ccs::proto::kControlHandlers
  std::string data;          ///< the encoded record ("" for none)
};

template <>
struct RequestCodec<StatusRequest> {
  static std::string_view handler(const StatusRequest&) { return ccs::proto::kStatusHandler; }
  static std::string encode(const StatusRequest&) { return {}; }
};

template <>
struct RequestCodec<CollectivesRequest> {
  static std::string_view handler(const CollectivesRequest&) { return ccs::proto::kCollectivesHandler; }
  static std::string encode(const CollectivesRequest&) { return {}; }
};

template <>
struct RequestCodec<ControlRequest> {
  static std::string_view handler(const ControlRequest& r) { return r.handler; }
  static std::string encode(const ControlRequest& r) { return r.data; }
};

/// RankStatus records name their rank (`rank`).
template <>
struct ReplyCodec<ccs::proto::RankStatus> {
  static constexpr std::string_view kWhat = "status";
  static Expected<std::map<int, ccs::proto::RankStatus>> decode(std::string_view text, int /*from*/) {
    auto statuses = ccs::proto::decodeRankStatuses(text);
    if (!statuses) return std::unexpected(statuses.error());
    std::map<int, ccs::proto::RankStatus> out;
    for (auto& s : *statuses) out.insert_or_assign(s.rank, std::move(s));
    return out;
  }
};

/// CommState records name their rank (`worldRank`) when the runtime knows
/// it; otherwise they are the answering rank's (`from`), or dropped from a
/// merged reply.
template <>
struct ReplyCodec<std::vector<ccs::proto::CommState>> {
  static constexpr std::string_view kWhat = "collectives";
  static Expected<std::map<int, std::vector<ccs::proto::CommState>>> decode(std::string_view text, int from) {
    auto states = ccs::proto::decodeCommStates(text);
    if (!states) return std::unexpected(states.error());
    std::map<int, std::vector<ccs::proto::CommState>> out;
    for (auto& state : *states) {
      const int rank = state.worldRank >= 0 ? state.worldRank : from;
      if (rank >= 0) out[rank].push_back(std::move(state));
    }
    return out;
  }
};

/// ControlReply records name their rank (`rank`; -1 records are dropped).
template <>
struct ReplyCodec<ccs::proto::ControlReply> {
  static constexpr std::string_view kWhat = "control";
  static Expected<std::map<int, ccs::proto::ControlReply>> decode(std::string_view text, int /*from*/) {
    auto replies = ccs::proto::decodeControlReplies(text);
    if (!replies) return std::unexpected(replies.error());
    std::map<int, ccs::proto::ControlReply> out;
    for (auto& r : *replies)
      if (r.rank >= 0) out.insert_or_assign(r.rank, std::move(r));
    return out;
  }
};

}  // namespace mpidbg::core
