#include "debugger/core/mqs/GdbMemory.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "debugger/gdbmi/Session.hpp"

namespace mpidbg::core::mqs {

namespace {

constexpr std::size_t kChunk = 64 * 1024;

std::optional<std::uint64_t> parseNumber(const std::string* text) {
  if (!text) return std::nullopt;
  std::string_view s = *text;
  int base = 10;
  if (s.starts_with("0x") || s.starts_with("0X")) {
    s.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return value;
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string GdbMemory::describe() const {
  if (const auto pid = session_.attachedPid()) return fmt::format("gdb (pid {})", *pid);
  return "gdb";
}

Expected<void> GdbMemory::read(std::uint64_t addr, std::span<std::byte> out) {
  for (std::size_t done = 0; done < out.size(); done += kChunk) {
    const std::size_t n = std::min(kChunk, out.size() - done);
    if (auto ok = readChunk(addr + done, out.subspan(done, n)); !ok) return ok;
  }
  return {};
}

Expected<void> GdbMemory::readChunk(std::uint64_t addr, std::span<std::byte> out) {
  const std::string what =
      fmt::format("cannot read {} bytes at {:#x} through {}", out.size(), addr, describe());
  auto reply =
      session_.command(fmt::format("-data-read-memory-bytes {:#x} {}", addr, out.size()), timeout_);
  if (!reply) return fail(what + ": " + reply.error().message);
  if (reply->isError()) return fail(what + ": " + reply->errorMessage());
  const gdbmi::Value* memory = reply->results.get("memory");
  const gdbmi::List* blocks = memory ? memory->asList() : nullptr;
  if (!blocks) return fail(what + ": gdb's reply has no memory list");
  // Blocks cover the readable parts of the range; every byte must be covered.
  std::vector<bool> covered(out.size(), false);
  for (std::size_t b = 0; b < blocks->size(); ++b) {
    const gdbmi::Value& block = blocks->at(b);
    const auto begin = parseNumber(block.get("begin") ? block.get("begin")->asString() : nullptr);
    const std::string* contents =
        block.get("contents") ? block.get("contents")->asString() : nullptr;
    if (!begin || !contents || contents->size() % 2 != 0) {
      return fail(what + ": malformed memory block in gdb's reply");
    }
    // `begin` is absolute; `offset` (begin - addr) is redundant.
    const std::uint64_t start = *begin;
    const std::size_t bytes = contents->size() / 2;
    if (start < addr || start - addr > out.size() || bytes > out.size() - (start - addr)) {
      return fail(what + ": gdb answered for a range outside the request");
    }
    const std::size_t at = static_cast<std::size_t>(start - addr);
    for (std::size_t i = 0; i < bytes; ++i) {
      const int hi = hexDigit((*contents)[2 * i]);
      const int lo = hexDigit((*contents)[2 * i + 1]);
      if (hi < 0 || lo < 0) return fail(what + ": malformed hex in gdb's reply");
      out[at + i] = static_cast<std::byte>(hi * 16 + lo);
      covered[at + i] = true;
    }
  }
  if (auto gap = std::find(covered.begin(), covered.end(), false); gap != covered.end()) {
    return fail(fmt::format("{}: byte at {:#x} is not readable", what,
                            addr + static_cast<std::uint64_t>(gap - covered.begin())));
  }
  return {};
}

}  // namespace mpidbg::core::mqs
