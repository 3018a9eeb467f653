#pragma once

#include <optional>
#include <string_view>

namespace mpidbg::check {

/// The MPI thread levels in the standard's order (MPI 4.0 section 11.6):
/// each level allows everything the one before allows.
enum class ThreadLevel { Single = 0, Funneled = 1, Serialized = 2, Multiple = 3 };

/// "MPI_THREAD_SINGLE" .. "MPI_THREAD_MULTIPLE".
std::string_view levelName(ThreadLevel level) noexcept;

/// The level named `name` ("MPI_THREAD_FUNNELED"); nullopt for any other text.
std::optional<ThreadLevel> levelFromName(std::string_view name) noexcept;

/// The level of the constant `value` as MPICH numbers them (mpi.h: SINGLE 0,
/// FUNNELED 1, SERIALIZED 2, MULTIPLE 3); nullopt outside 0..3.
std::optional<ThreadLevel> levelFromValue(long long value) noexcept;

/// Whether the parallelism word `word` (letters P, S, M, B; see
/// ParallelismWord.hpp) is accepted by PARCOACH's automaton for `level`:
/// SINGLE {ε}; FUNNELED {ε} and (P B* M)+; SERIALIZED (P B* S | P B* M)*;
/// MULTIPLE every word. A letter other than P, S, M, B is never accepted
/// below MULTIPLE.
bool accepts(ThreadLevel level, std::string_view word) noexcept;

/// The lowest level whose automaton accepts `word`.
ThreadLevel neededLevel(std::string_view word) noexcept;

}  // namespace mpidbg::check
