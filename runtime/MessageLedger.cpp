// The message ledger's slow paths (see MessageLedger.hpp).
#include "MessageLedger.hpp"

#include <map>
#include <tuple>

namespace mpidbg::rt {

MessageLedger gMessages;

void MessageLedger::unattributed(std::uint64_t comm, int tag) noexcept {
  (void)countSlow(comm, envelope(-1, tag < 0 ? -1 : tag), Side::Received, MpiFunction::None);
}

MessageLedger::Slot* MessageLedger::countSlow(std::uint64_t comm, std::uint64_t env, Side side,
                                              MpiFunction function) noexcept {
  const std::size_t start = home(comm, env);
  for (std::size_t i = 0; i < kSlots; ++i) {
    Slot& s = slots_[(start + i) & (kSlots - 1)];
    std::uint64_t seen = s.envelope.load(std::memory_order_acquire);
    if (seen == 0) {
      if (s.envelope.compare_exchange_strong(seen, kClaimed, std::memory_order_acq_rel)) {
        s.comm.store(comm, std::memory_order_relaxed);
        s.function.store(static_cast<std::uint32_t>(function), std::memory_order_relaxed);
        (side == Side::Sent ? s.sent : s.received).fetch_add(1, std::memory_order_relaxed);
        s.envelope.store(env, std::memory_order_release);
        return &s;
      }
      // Another thread claimed it meanwhile: `seen` is what it wrote.
    }
    if (seen == env && s.comm.load(std::memory_order_relaxed) == comm) {
      if (side == Side::Sent && s.function.load(std::memory_order_relaxed) == 0)
        s.function.store(static_cast<std::uint32_t>(function), std::memory_order_relaxed);
      (side == Side::Sent ? s.sent : s.received).fetch_add(1, std::memory_order_relaxed);
      return &s;
    }
    // A slot being claimed (kClaimed) may be for this key: going on may
    // give the key a second slot, which snapshot() sums.
  }
  partial_.store(true, std::memory_order_relaxed);
  return nullptr;
}

std::vector<ccs::proto::MessageCount> MessageLedger::snapshot(bool* partial) const {
  std::map<std::tuple<std::uint64_t, std::int32_t, std::int32_t>, ccs::proto::MessageCount> byKey;
  for (const Slot& s : slots_) {
    const std::uint64_t env = s.envelope.load(std::memory_order_acquire);
    if ((env & kReady) == 0) continue;
    const std::uint64_t comm = s.comm.load(std::memory_order_relaxed);
    const auto peer = static_cast<std::int32_t>((env >> 32) & 0x3fffffffu) - 1;
    const auto tag = static_cast<std::int32_t>(static_cast<std::uint32_t>(env & 0xffffffffu));
    ccs::proto::MessageCount& m = byKey[{comm, peer, tag}];
    m.comm = comm;
    m.peer = peer;
    m.tag = tag;
    m.sent += s.sent.load(std::memory_order_relaxed);
    m.received += s.received.load(std::memory_order_relaxed);
    const auto f = static_cast<MpiFunction>(s.function.load(std::memory_order_relaxed));
    if (m.function.empty() && f != MpiFunction::None) m.function = std::string(functionName(f));
  }
  std::vector<ccs::proto::MessageCount> out;
  out.reserve(byKey.size());
  for (auto& [key, m] : byKey) out.push_back(std::move(m));
  if (partial) *partial = partial_.load(std::memory_order_relaxed);
  return out;
}

}  // namespace mpidbg::rt
