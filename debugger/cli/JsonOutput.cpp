#include "debugger/cli/JsonOutput.hpp"

#include <charconv>

#include "debugger/cli/Commands.hpp"
#include "debugger/gdbmi/Value.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::cli {

nlohmann::json rankSetJson(const core::RankSet& ranks) {
  return {{"ranks", ranks.toString()}, {"rank_list", ranks.toVector()}};
}

nlohmann::json withRanks(nlohmann::json object, const core::RankSet& ranks) {
  object["ranks"] = ranks.toString();
  object["rank_list"] = ranks.toVector();
  return object;
}

nlohmann::json groupsJson(const std::map<int, std::string>& textByRank, const std::string& field) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& g : core::groupByText(textByRank))
    groups.push_back(withRanks({{field, g.text}}, g.ranks));
  return groups;
}

nlohmann::json callJson(const ccs::proto::MpiCall& call) {
  return {{"function", call.function},
          {"description", core::describeCall(call)},
          {"comm", call.commName},
          {"peer_role", call.peerRole},
          {"peer", call.peer},
          {"tag", call.hasTag ? nlohmann::json(call.tag) : nlohmann::json(nullptr)},
          {"collective_call", call.collCall},
          {"elapsed_ms", call.elapsedUs / 1000},
          {"polling", call.polling}};
}

nlohmann::json statusJson(const std::vector<core::RankView>& views, std::chrono::milliseconds blockedAfter,
                          const std::map<int, std::string>& callSites) {
  std::map<int, std::string> byRank;
  nlohmann::json perRank = nlohmann::json::array();
  for (const auto& v : views) {
    const std::string state = core::describeRankState(v, blockedAfter);
    byRank[v.info.rank] = core::statusLine(v, blockedAfter, callSites);
    const auto site = callSites.find(v.info.rank);
    const auto& s = v.status;
    const bool answered = s.has_value() && !v.info.ended() && !v.info.heldByGdb;
    // In a call, or polling between two tests (state running).
    const bool inCall = answered && s->call.has_value() &&
                        (s->state == ccs::proto::RankState::InMpi || s->call->polling);
    perRank.push_back(
        {{"rank", v.info.rank},
         {"state", state},
         {"runtime_state", answered ? nlohmann::json(std::string(ccs::proto::stateName(s->state)))
                                    : nlohmann::json(nullptr)},
         {"blocked", inCall && core::waitsLong(*s->call, blockedAfter)},
         {"settled", core::isSettled(v, blockedAfter)},
         {"held", v.info.heldByGdb},
         {"ended", v.info.ended()},
         {"mpi_calls", answered ? nlohmann::json(s->mpiCalls) : nlohmann::json(nullptr)},
         {"call", inCall ? callJson(*s->call) : v.heldCall ? callJson(*v.heldCall) : nlohmann::json(nullptr)},
         {"call_site", site == callSites.end() ? nlohmann::json(nullptr) : nlohmann::json(site->second)},
         {"error", v.queryError.empty() ? nlohmann::json(nullptr) : nlohmann::json(v.queryError)}});
  }
  return {{"groups", groupsJson(byRank, "state")}, {"per_rank", std::move(perRank)}};
}

nlohmann::json miValueJson(const gdbmi::Value& value) {
  if (const auto* text = value.asString()) return *text;
  if (const auto* tuple = value.asTuple()) {
    nlohmann::json object = nlohmann::json::object();
    for (const auto& r : tuple->results)
      if (!object.contains(r.name)) object[r.name] = miValueJson(r.value);
    return object;
  }
  nlohmann::json array = nlohmann::json::array();
  for (const auto& item : value.asList()->items) array.push_back(miValueJson(item.value));
  return array;
}

std::string commandNameOf(std::string_view line) {
  line = trim(line);
  if (line.empty() || line.front() == '#') return {};
  const std::string_view word = line.substr(0, line.find_first_of(" \t"));
  const Command* cmd = findCommand(word);
  return cmd != nullptr ? cmd->name : std::string(word);
}

nlohmann::ordered_json commandJson(std::string_view line, const CommandResult& result) {
  nlohmann::ordered_json j;
  j["schema"] = kJsonSchema;
  j["command"] = commandNameOf(line);
  j["line"] = std::string(trim(line));
  j["ok"] = result.ok;
  j["result"] = nlohmann::ordered_json(result.data);
  if (!result.ok) j["error"] = result.error;
  return j;
}

namespace {

/// The event kind of a rank notice's text (Job::applyEvent, Job::channelClosed).
std::string_view noticeKind(std::string_view text) {
  if (text.starts_with("hit breakpoint ")) return "breakpoint";
  if (text.starts_with("stopped at ")) return "stopped";
  // Job::applyEvent, Event kind violation: "MPI_THREAD_FUNNELED violated: ...",
  // "MPI lifecycle violated: ...".
  if (text.starts_with("MPI_") || text.starts_with("MPI lifecycle"))
    if (text.find(" violated: ") != std::string_view::npos) return "violation";
  for (std::string_view ended :
       {"exited with ", "called ", "lost", "killed by mpidbg", "finalized"})
    if (text.starts_with(ended)) return "ended";
  return "notice";
}

}  // namespace

nlohmann::ordered_json noticeJson(const std::string& text, const core::RankSet* ranks) {
  nlohmann::ordered_json j;
  j["schema"] = kJsonSchema;
  const std::string_view kind = ranks != nullptr ? noticeKind(text) : "notice";
  j["event"] = kind;
  if (ranks != nullptr) {
    j["ranks"] = ranks->toString();
    j["rank_list"] = ranks->toVector();
  }
  j["text"] = text;
  if (kind == "breakpoint") {
    // "hit breakpoint 12: MPI_Bcast(...)": the number runs up to the colon.
    const std::string_view rest = std::string_view(text).substr(15);
    int id = 0;
    const auto [ptr, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), id);
    if (ec == std::errc() && ptr != rest.data()) j["breakpoint"] = id;
  }
  return j;
}

std::string jsonLine(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

nlohmann::ordered_json sessionEventJson(std::string_view kind, const std::string& text,
                                        const nlohmann::json& fields) {
  nlohmann::ordered_json j;
  j["schema"] = kJsonSchema;
  j["event"] = kind;
  j["text"] = text;
  for (const auto& [key, value] : fields.items()) j[key] = nlohmann::ordered_json(value);
  return j;
}

}  // namespace mpidbg::cli
