#include "check/core/ThreadLevel.hpp"

#include <array>

namespace mpidbg::check {

namespace {

constexpr std::array<std::string_view, 4> kNames{"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                                 "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE"};

/// Whether `word` is a sequence of blocks `P B* X` with X in `ends`
/// (consumes the whole word; the empty word is zero blocks).
bool blocksEndingIn(std::string_view word, std::string_view ends) noexcept {
  std::size_t i = 0;
  while (i < word.size()) {
    if (word[i] != 'P') return false;
    ++i;
    while (i < word.size() && word[i] == 'B') ++i;
    if (i == word.size() || ends.find(word[i]) == std::string_view::npos) return false;
    ++i;
  }
  return true;
}

}  // namespace

std::string_view levelName(ThreadLevel level) noexcept {
  return kNames[static_cast<std::size_t>(level)];
}

std::optional<ThreadLevel> levelFromName(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<ThreadLevel>(i);
  return std::nullopt;
}

std::optional<ThreadLevel> levelFromValue(long long value) noexcept {
  if (value < 0 || value > 3) return std::nullopt;
  return static_cast<ThreadLevel>(value);
}

bool accepts(ThreadLevel level, std::string_view word) noexcept {
  switch (level) {
    case ThreadLevel::Single:
      return word.empty();
    case ThreadLevel::Funneled:
      return blocksEndingIn(word, "M");
    case ThreadLevel::Serialized:
      return blocksEndingIn(word, "SM");
    case ThreadLevel::Multiple:
      return true;
  }
  return true;
}

ThreadLevel neededLevel(std::string_view word) noexcept {
  for (ThreadLevel level : {ThreadLevel::Single, ThreadLevel::Funneled, ThreadLevel::Serialized})
    if (accepts(level, word)) return level;
  return ThreadLevel::Multiple;
}

}  // namespace mpidbg::check
