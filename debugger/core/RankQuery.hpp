#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string_view>
#include <vector>

#include "debugger/core/Job.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// Sends one CCS request to each of several ranks directly (one connection
/// per rank, Charm++'s plain mode), at most `parallel` at a time, and collects
/// the replies by rank. A rank that refuses, times out or closes gets an
/// Error for its entry; the others are unaffected.
/// (The forwarding tree of the CCS issue will replace the direct fan-out.)
std::map<int, Expected<std::vector<std::uint8_t>>> queryRanks(
    const std::vector<RankInfo>& ranks, std::string_view handler,
    std::chrono::milliseconds timeout, std::size_t parallel = 16);

}  // namespace mpidbg::core
