// ControlService: the session's breakpoint table and the control requests
// (bp/set, bp/delete, bp/enable, bp/list, freeze, step, entries,
// threadlevel, record) encoded and decoded here, so commands deal in typed
// values only.
#include "debugger/core/ControlService.hpp"

#include <algorithm>

namespace mpidbg::core {

namespace proto = ccs::proto;

ControlService::ControlService(ControlChannel channel) : channel_(std::move(channel)) {}

const BreakpointEntry* ControlService::find(int id) const {
  const auto it = table_.find(id);
  return it == table_.end() ? nullptr : &it->second;
}

BreakpointSet ControlService::set(const RankSet& ranks, proto::Breakpoint spec) {
  BreakpointSet out;
  spec.id = nextId_++;
  out.outcomes = channel_.send(ranks, proto::kBreakSetHandler, proto::encode(spec));
  for (const auto& [rank, o] : out.outcomes)
    if (o.ok) out.ranks.insert(rank);
  if (!out.ranks.empty()) table_[spec.id] = {spec.id, out.ranks, spec};
  out.spec = std::move(spec);
  return out;
}

Expected<ControlOutcomes> ControlService::remove(int id) {
  const auto it = table_.find(id);
  if (it == table_.end()) return fail("no breakpoint " + std::to_string(id));
  auto outcomes = channel_.send(it->second.ranks, proto::kBreakDeleteHandler, proto::encode(proto::BreakpointRef{id}));
  table_.erase(id);
  return outcomes;
}

Expected<ControlOutcomes> ControlService::setEnabled(int id, bool enabled) {
  const auto it = table_.find(id);
  if (it == table_.end()) return fail("no breakpoint " + std::to_string(id));
  auto outcomes =
      channel_.send(it->second.ranks, proto::kBreakEnableHandler, proto::encode(proto::BreakpointEnable{id, enabled}));
  it->second.spec.enabled = enabled;
  return outcomes;
}

std::map<int, std::map<int, std::uint64_t>> ControlService::hits(const RankSet& ranks) {
  std::map<int, std::map<int, std::uint64_t>> out;  // id -> rank -> hits
  auto [text, missing] = channel_.collect(ranks, proto::kBreakListHandler);
  if (auto list = proto::decodeBreakpoints(text))
    for (const auto& b : *list) out[b.id][b.rank] = b.hits;
  return out;
}

ControlOutcomes ControlService::freeze(const RankSet& ranks, bool now) {
  proto::FreezeRequest request;
  request.now = now;
  return channel_.send(ranks, proto::kFreezeHandler, proto::encode(request));
}

ControlOutcomes ControlService::step(const RankSet& ranks, std::uint64_t count) {
  proto::StepRequest request;
  request.count = count;
  return channel_.send(ranks, proto::kStepHandler, proto::encode(request));
}

template <typename Item, typename Decode>
Expected<RankReport<Item>> ControlService::report(const RankSet& ranks, std::string_view handler, Decode decode) {
  auto [text, missing] = channel_.collect(ranks, handler);
  Expected<std::vector<Item>> items = decode(text);
  if (!items) return std::unexpected(items.error());
  return RankReport<Item>{std::move(*items), std::move(missing)};
}

Expected<RankReport<proto::EntryInfo>> ControlService::entries(const RankSet& ranks) {
  return report<proto::EntryInfo>(ranks, proto::kEntriesHandler, proto::decodeEntries);
}

Expected<RankReport<proto::ThreadLevelInfo>> ControlService::threadLevels(const RankSet& ranks) {
  return report<proto::ThreadLevelInfo>(ranks, proto::kThreadLevelHandler, proto::decodeThreadLevels);
}

Expected<RankReport<proto::RecordInfo>> ControlService::records(const RankSet& ranks) {
  return report<proto::RecordInfo>(ranks, proto::kRecordHandler, proto::decodeRecordInfos);
}

void ControlService::restore(BreakpointEntry entry) {
  nextId_ = std::max(nextId_, entry.id + 1);
  const int id = entry.id;
  table_[id] = std::move(entry);
}

}  // namespace mpidbg::core
