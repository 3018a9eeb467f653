#include "debugger/core/mqs/TargetMemory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace mpidbg::core::mqs {

Expected<std::string> readCString(TargetMemory& memory, std::uint64_t addr, std::size_t maxBytes) {
  constexpr std::uint64_t kPage = 4096;
  std::string text;
  std::array<std::byte, kPage> chunk{};
  std::uint64_t at = addr;
  while (text.size() <= maxBytes) {
    const std::size_t toPageEnd = kPage - (at % kPage);
    const std::size_t want = std::min<std::size_t>(toPageEnd, maxBytes + 1 - text.size());
    if (auto ok = memory.read(at, std::span(chunk).first(want)); !ok) {
      return fail(fmt::format("cannot read the string at {:#x}: {}", addr, ok.error().message));
    }
    for (std::size_t i = 0; i < want; ++i) {
      const char c = static_cast<char>(chunk[i]);
      if (c == '\0') return text;
      text.push_back(c);
    }
    at += want;
  }
  return fail(fmt::format("the string at {:#x} in {} is longer than {} bytes", addr,
                          memory.describe(), maxBytes));
}

}  // namespace mpidbg::core::mqs
