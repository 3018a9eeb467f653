#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ccs/proto/Field.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::ccs::proto {

/// Stacks of a rank's application threads, captured in the rank (the runtime
/// signals each thread and unwinds it with libunwind in the signal handler)
/// and symbolized in the front end (elfutils libdw), STAT-style: the rank
/// sends no names, only modules and offsets, so every distinct address is
/// symbolized once for the whole job. Text encoding as in RankProtocol.hpp
/// (key=value lines, `--` between records); replies of many ranks
/// concatenate through the forwarding tree (merge rule Concatenate).

/// All application threads' stacks (no data) -> one RankStacks encoding.
inline constexpr std::string_view kStacksHandler = "mpidbg/stacks";

/// A loaded ELF object of the rank (the executable, a shared library, the
/// vDSO).
struct StackModule {
  std::string path;     ///< as the dynamic linker loaded it (dl_iterate_phdr's dlpi_name; the executable's /proc/self/exe target); "[vdso]" for the vDSO
  std::string buildId;  ///< NT_GNU_BUILD_ID note as lowercase hex; empty when the object has none

  /// Keys under "module.I.": path, buildid (both required, may be empty).
  static constexpr auto fields() {
    using T = StackModule;
    return std::tuple{field("path", &T::path), field("buildid", &T::buildId)};
  }
};

/// One frame: a program counter as (module, offset).
struct StackFrame {
  std::int32_t module = -1;  ///< index into RankStacks::modules; -1 when the pc lies in no known module
  /// pc minus the module's load bias (dlpi_addr): an address in the ELF
  /// file's own virtual address space, what libdw looks up after adding the
  /// bias it chose. When module is -1, the absolute pc.
  std::uint64_t offset = 0;
  /// true for the interrupted pc (the frame the signal landed in) and for
  /// frames above a signal trampoline: the exact instruction. false for a
  /// return address, which the symbolizer looks up at offset - 1 so a call
  /// at the end of a function is attributed to its caller's line.
  bool exact = false;

  /// "M,0xOFFSET,E": module index (decimal), offset (hex), exact (0/1).
  static std::string toText(const StackFrame& f);
  /// Parses toText's form of key `key`. Errors: not three comma-separated
  /// parts, a bad integer, an exact flag other than 0 or 1. The module
  /// index is checked against the record's modules by the record's decoder.
  static Expected<StackFrame> fromText(std::string_view key, std::string_view text);
};

/// Most modules, threads, and frames per thread a decoded stacks record may
/// claim. The runtime sends at most 128 frames per thread; the bounds only
/// keep a hostile count from driving reservations or loops.
inline constexpr std::size_t kMaxStackModules = 1u << 16;
inline constexpr std::size_t kMaxStackThreads = 1u << 16;
inline constexpr std::size_t kMaxStackFrames = 1u << 16;

/// One application thread's stack, innermost frame first.
struct ThreadStack {
  std::int32_t tid = 0;              ///< kernel thread id
  std::string name;                  ///< /proc/self/task/TID/comm
  bool mainThread = false;           ///< tid == pid
  std::vector<StackFrame> frames;    ///< innermost first; the runtime's own signal-handler frames removed
  bool truncated = false;            ///< the frame buffer filled up (deeper frames dropped)
  std::string error;                 ///< non-empty when this thread could not be captured ("did not answer within 1000 ms", "unwinding failed: ...")

  /// Keys under "thread.T." (see encode(const RankStacks&)); the frames as
  /// "frame.T.F" lines.
  static constexpr auto fields() {
    using T = ThreadStack;
    return std::tuple{field("tid", &T::tid),
                      field("name", &T::name),
                      field("main", &T::mainThread),
                      field("truncated", &T::truncated),
                      field("error", &T::error).when(+[](const T& t) { return !t.error.empty(); }),
                      items("frames", "frame", &T::frames, kMaxStackFrames).keyedByIndices()};
  }
};

/// Everything one rank answers to kStacksHandler.
struct RankStacks {
  std::int32_t worldRank = -1;
  std::int32_t pid = 0;
  std::string host;                  ///< gethostname() of the rank
  std::vector<StackModule> modules;  ///< only the modules frames refer to
  std::vector<ThreadStack> threads;  ///< application threads (the runtime's helper threads excluded), main thread first

  /// The record in errors.
  static constexpr std::string_view kName = "stacks record";
  /// One record per rank, ending with a `--` line (replies concatenate).
  static constexpr bool kListItem = true;
  /// The keys of encode(const RankStacks&), in wire order.
  static constexpr auto fields() {
    using T = RankStacks;
    return std::tuple{field("world", &T::worldRank),
                      field("pid", &T::pid),
                      field("host", &T::host),
                      items("modules", "module", &T::modules, kMaxStackModules),
                      items("threads", "thread", &T::threads, kMaxStackThreads)};
  }
};

/// Encodes one rank's stacks as one record ending with a `--` line, so the
/// replies of many ranks concatenate into a list. Keys (values escaped as in
/// ccs/proto/TextRecord.hpp; T = thread index, F = frame index, both 0-based):
///
///     world=3  pid=4242  host=node1
///     modules=N                then module.I.path, module.I.buildid (may be empty)
///     threads=N                then per thread T: thread.T.tid, thread.T.name,
///                              thread.T.main (0/1), thread.T.truncated (0/1),
///                              thread.T.error (only when set), thread.T.frames=M,
///                              and frame.T.F=<module>,0x<offset hex>,<exact 0/1>
///     --
///
/// Every key is required except thread.T.error; unknown keys are ignored.
/// Counts are bounded (65536 modules, threads, frames per thread). Derived
/// from the field lists above (ccs/proto/Message.hpp encodeRecord).
std::string encode(const RankStacks& stacks);

/// Decodes a concatenation of encode() outputs (empty text -> empty list).
/// Errors name the record and key: "stacks record 3: key 'frame.2.1' ...".
/// A frame naming a module index that the record does not define is an
/// Error, never an out-of-range access.
Expected<std::vector<RankStacks>> decodeRankStacksList(std::string_view text);

}  // namespace mpidbg::ccs::proto
