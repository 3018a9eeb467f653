// CharmPes: a Charm++ program's PEs as a RankBackend (CharmPes.hpp).
#include "debugger/core/charm/CharmPes.hpp"

#include <thread>
#include <utility>

#include "ccs/proto/CharmDebug.hpp"
#include "debugger/core/charm/CharmLink.hpp"

namespace mpidbg::core::charm {

std::vector<RankInfo> CharmPes::processes() {
  std::map<int, RankInfo> known;
  for (auto& info : job_.snapshot()) known.emplace(info.rank, std::move(info));
  const bool programEnded = program_.ended();
  std::vector<RankInfo> out;
  const int size = program_.size();
  for (int pe = 0; pe < size; ++pe) {
    RankInfo info;
    if (auto it = known.find(pe); it != known.end()) info = std::move(it->second);
    info.rank = pe;
    info.noRuntime = false;  // attached by pid for gdb, but Charm++'s scheduler serves the debugger
    if (programEnded && !info.ended()) info.life = RankLife::Lost;
    out.push_back(std::move(info));
  }
  return out;
}

Gathered CharmPes::gather(const std::vector<RankInfo>& targets, std::string_view handler,
                          const std::vector<std::uint8_t>& data) {
  Gathered out;
  for (auto& [pe, reply] : each(targets, handler, data)) {
    if (reply) out.byRank.emplace(pe, std::move(*reply));
    else out.missing.emplace(pe, reply.error().message);
  }
  return out;
}

std::map<int, Expected<std::vector<std::uint8_t>>> CharmPes::each(const std::vector<RankInfo>& targets,
                                                                  std::string_view handler,
                                                                  const std::vector<std::uint8_t>& data) {
  std::map<int, Expected<std::vector<std::uint8_t>>> out;
  CharmLink* link = program_.link();
  for (const auto& info : targets) {
    if (link == nullptr) out.emplace(info.rank, fail("no program"));
    else if (handler == ccs::proto::kCharmStatusHandler) out.emplace(info.rank, link->call(handler, info.rank, data, kStatusTimeout));
    else out.emplace(info.rank, link->call(handler, info.rank, data));
  }
  return out;
}

std::map<int, Expected<void>> CharmPes::post(const std::vector<RankInfo>& targets, std::string_view handler,
                                             const std::vector<std::uint8_t>& data) {
  std::map<int, Expected<void>> out;
  CharmLink* link = program_.link();
  for (const auto& info : targets) {
    if (link == nullptr) out.emplace(info.rank, fail("no program"));
    else out.emplace(info.rank, link->send(handler, info.rank, data));
  }
  return out;
}

std::map<int, std::string> CharmPes::endedMeanwhile(const std::map<int, std::string>& missing) {
  using namespace std::chrono_literals;
  std::map<int, std::string> ended;
  if (missing.empty()) return ended;
  // Charm++ reports no end per PE: the program's end (charmrun) and the
  // attached PE processes are polled.
  const auto deadline = std::chrono::steady_clock::now() + 1s;
  for (;;) {
    ended.clear();
    for (const auto& info : processes())
      if (missing.contains(info.rank) && info.ended()) ended[info.rank] = info.endedPhrase();
    if (ended.size() == missing.size() || std::chrono::steady_clock::now() >= deadline) return ended;
    std::this_thread::sleep_for(50ms);
  }
}

}  // namespace mpidbg::core::charm
