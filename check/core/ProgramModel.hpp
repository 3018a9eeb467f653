#pragma once

#include <optional>
#include <string>
#include <vector>

#include "check/core/ThreadLevel.hpp"

namespace mpidbg::check {

/// A place in a source file: the path as the compilation database names it
/// (absolute when it is), 1-based line and column. Line 0 means unknown.
struct SourceLoc {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  auto operator<=>(const SourceLoc&) const = default;
};

/// "file:line:col" (the compiler's format).
std::string formatLoc(const SourceLoc& loc);
/// "file:line".
std::string formatLine(const SourceLoc& loc);

/// How an OpenMP construct changes which threads run the code it encloses.
enum class RegionKind {
  Parallel,     ///< a team of threads (letter P)
  Inactive,     ///< a parallel region of one thread: num_threads(1), if(0); no letter
  Worksharing,  ///< for, sections, loop: the enclosing team shares it; no letter
  Single,       ///< single, section, task, masked filter(n != 0): one thread of the team (S)
  Master,       ///< master, masked without filter: the team's primary thread (M)
  Critical,     ///< critical: every thread, one at a time (S; mutually exclusive by name)
};

/// The parallelism letter of `kind` ('P', 'S', 'M') or '\0' (none).
char letterOf(RegionKind kind) noexcept;

/// A condition that decides whether code runs, whose value flows from the
/// rank (MPI_Comm_rank's output).
struct RankCondition {
  SourceLoc condition;  ///< the condition's expression
  SourceLoc rankCall;   ///< the MPI_Comm_rank call its value comes from
};

/// One element of a function body, in source order: an OpenMP construct with
/// the elements it encloses, a thread barrier, an MPI call, or a call to
/// another function. The clang front end (check/clang) fills these; the
/// analysis (Analysis.hpp) reads them.
struct Item {
  enum class Kind { Region, Barrier, MpiCall, Call };
  Kind kind = Kind::Call;
  SourceLoc loc;
  // Region
  RegionKind region = RegionKind::Parallel;
  std::string construct;      ///< the directive as written: "parallel for", "single", ...
  bool barrierAfter = false;  ///< implicit barrier at its end (no nowait)
  std::string criticalName;   ///< critical: its name ("" unnamed)
  std::vector<Item> body;
  // MpiCall, Call
  std::string callee;  ///< MPI function ("MPI_Reduce"), or the callee's key (FunctionModel::key)
  std::string communicator;  ///< MpiCall: the communicator argument as written, "" when none
  bool initCall = false;     ///< MpiCall: MPI_Init or MPI_Init_thread
  /// MpiCall of MPI_Init_thread: the required level when it is a constant;
  /// MPI_Init: SINGLE.
  std::optional<ThreadLevel> requested;
  /// Enclosing conditions (in this function) that depend on the rank.
  std::vector<RankCondition> rankConditions;
};

/// One function with a body: its key (unique over the program: Clang's USR),
/// its name for messages, and its body.
struct FunctionModel {
  std::string key;
  std::string name;
  SourceLoc loc;
  std::vector<Item> body;
};

/// What the front end saw in all the files: functions (a function defined in
/// two files, such as a static one, appears once per file with distinct keys)
/// and the files it could not check, with why.
struct ProgramModel {
  std::vector<FunctionModel> functions;
  std::vector<std::string> problems;
  std::vector<std::string> files;  ///< the files checked
};

}  // namespace mpidbg::check
