// mpidbg's text records between the runtime and the front end
// (format described in ccs/proto/RankProtocol.hpp).
#include "ccs/proto/RankProtocol.hpp"

#include "ccs/proto/Message.hpp"
#include "ccs/proto/TextRecord.hpp"

#include <charconv>
#include <limits>
#include <map>

namespace mpidbg::ccs::proto {
namespace rankproto {

constexpr std::array<std::string_view, kCollClassCount> kCollNames = {
    "MPI_Barrier",  "MPI_Bcast",     "MPI_Allgather",      "MPI_Allgatherv", "MPI_Allreduce",
    "MPI_Alltoall", "MPI_Alltoallv", "MPI_Reduce_scatter", "MPI_Reduce",     "MPI_Gather",
    "MPI_Gatherv",  "MPI_Scan",      "MPI_Scatter",        "MPI_Scatterv"};

}  // namespace rankproto

std::string_view collName(CollClass c) {
  auto index = static_cast<std::size_t>(c);
  return index < rankproto::kCollNames.size() ? rankproto::kCollNames[index] : "MPI_unknown_collective";
}

std::string_view stateName(RankState s) {
  auto index = static_cast<std::size_t>(s);
  return index < kRankStateNames.size() ? kRankStateNames[index] : "unknown";
}

// ---- RankStatus ----

std::string encode(const RankStatus& s) { return encodeRecord(s); }

void appendCall(std::string& w, const MpiCall& c) { putFields(w, c, Scope{"call.", ""}); }

Expected<std::optional<MpiCall>> callFrom(const Record& r) {
  if (!r.has("call.function")) return std::optional<MpiCall>{};
  MpiCall c;
  if (auto filled = getFields(r, c, Scope{"call.", ""}); !filled) return std::unexpected(filled.error());
  return std::optional<MpiCall>(std::move(c));
}

Expected<RankStatus> decodeRankStatus(std::string_view text) {
  auto record = parseOne(text, RankStatus::kName);
  if (!record) return std::unexpected(record.error());
  return fromRecord<RankStatus>(*record);
}

Expected<std::vector<RankStatus>> decodeRankStatuses(std::string_view text) {
  // Errors "bad rank status: ..." name no record (decodeRecords would).
  auto records = parseRecords(text);
  if (!records) return fail("bad rank status: " + records.error().message);
  std::vector<RankStatus> out;
  out.reserve(records->size());
  for (const Record& r : *records) {
    auto s = fromRecord<RankStatus>(r);
    if (!s) return std::unexpected(s.error());
    out.push_back(std::move(*s));
  }
  return out;
}

// ---- CommState ----

void appendCommState(std::string& w, std::string_view keyPrefix, const CommState& c) {
  putFields(w, c, Scope{std::string(keyPrefix), ""});
}

Expected<CommState> commStateFrom(const Record& r, std::string_view keyPrefix) {
  CommState c;
  if (auto filled = getFields(r, c, Scope{std::string(keyPrefix), ""}); !filled) return std::unexpected(filled.error());
  return c;
}

std::string encode(std::span<const CommState> states) {
  std::string out;
  for (std::size_t i = 0; i < states.size(); ++i) {
    if (i > 0) out += "--\n";
    putFields(out, states[i]);
  }
  return out;
}

Expected<std::vector<CommState>> decodeCommStates(std::string_view text) {
  return decodeRecords<CommState>(text, "communicator state");
}

// ---- Registration ----

std::string encode(const Registration& r, bool withMac) {
  std::string w = encodeRecord(r);
  if (withMac) put(w, "mac", r.mac);
  return w;
}

Expected<Registration> decodeRegistration(std::string_view text) {
  auto record = parseOne(text, Registration::kName);
  if (!record) return std::unexpected(record.error());
  auto g = fromRecord<Registration>(*record);
  if (g) g->mac = record->text("mac", "");  // optional here; the front end rejects a missing MAC
  return g;
}

// ---- Event ----

std::string encode(const Event& e) { return encodeRecord(e); }

Expected<Event> decodeEvent(std::string_view text) {
  auto record = parseOne(text, Event::kName);
  if (!record) return std::unexpected(record.error());
  return fromRecord<Event>(*record);
}

// ---- ContinueRequest ----

std::string encode(const ContinueRequest& c) { return encodeRecord(c); }

Expected<ContinueRequest> decodeContinueRequest(std::string_view text) { return decodeRecord<ContinueRequest>(text); }

}  // namespace mpidbg::ccs::proto
