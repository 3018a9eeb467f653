#include "debugger/core/stacks/CoreStacks.hpp"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>

#include "mpidbg/ScopedFd.hpp"

namespace mpidbg::core::stacks {

namespace {

const Dwfl_Callbacks kCoreCallbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = nullptr,
    .debuginfo_path = nullptr,
};

/// Frames deeper than this end a thread's stack (a corrupt stack can loop).
constexpr std::size_t kMaxFrames = 256;

struct Unwind {
  Dwfl* dwfl = nullptr;
  ccs::proto::RankStacks stacks;
  /// Each module met so far: its index in stacks.modules and its load bias.
  struct Module {
    std::int32_t index = -1;
    Dwarf_Addr bias = 0;
  };
  std::map<Dwfl_Module*, Module> modules;
  std::size_t thread = 0;  ///< index in stacks.threads of the thread being unwound
};

std::string dwflError() { return dwfl_errmsg(-1) ? dwfl_errmsg(-1) : "unknown libdwfl error"; }

/// The frame of `pc`: its module's index in stacks.modules (added on first
/// use) and pc minus the module's load bias.
ccs::proto::StackFrame frameOf(Unwind& u, Dwarf_Addr pc, bool exact) {
  ccs::proto::StackFrame frame;
  frame.exact = exact;
  frame.offset = pc;
  // A return address may be one past its call's function: look up pc - 1.
  Dwfl_Module* module = dwfl_addrmodule(u.dwfl, exact || pc == 0 ? pc : pc - 1);
  if (!module) return frame;
  auto [it, fresh] = u.modules.try_emplace(module);
  if (fresh) {
    // The module is named by its file's path once libdwfl found the file
    // (its own name is only the base name); without the file, the bias is
    // the module's lowest address.
    Dwarf_Addr bias = 0;
    const bool haveFile = dwfl_module_getelf(module, &bias) != nullptr;
    Dwarf_Addr low = 0;
    const char* mainFile = nullptr;
    const char* name = dwfl_module_info(module, nullptr, &low, nullptr, nullptr, nullptr, &mainFile, nullptr);
    it->second = {static_cast<std::int32_t>(u.stacks.modules.size()), haveFile ? bias : low};
    u.stacks.modules.push_back({mainFile ? mainFile : (name ? name : "??"), ""});
  }
  frame.module = it->second.index;
  frame.offset = pc - it->second.bias;
  return frame;
}

int onFrame(Dwfl_Frame* state, void* arg) {
  auto& u = *static_cast<Unwind*>(arg);
  Dwarf_Addr pc = 0;
  bool activation = false;
  if (!dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
  auto& frames = u.stacks.threads[u.thread].frames;
  frames.push_back(frameOf(u, pc, activation));
  return frames.size() >= kMaxFrames ? DWARF_CB_ABORT : DWARF_CB_OK;
}

int onThread(Dwfl_Thread* thread, void* arg) {
  auto& u = *static_cast<Unwind*>(arg);
  u.thread = u.stacks.threads.size();
  u.stacks.threads.emplace_back();
  u.stacks.threads.back().tid = dwfl_thread_tid(thread);
  u.stacks.threads.back().mainThread = u.stacks.threads.back().tid == u.stacks.pid;
  // Unwinding ends with an error at the outermost frame (no return address
  // past _start or clone3): only an error before any frame is one.
  const int rc = dwfl_thread_getframes(thread, onFrame, arg);
  ccs::proto::ThreadStack& t = u.stacks.threads.back();
  if (rc != 0 && t.frames.empty()) t.error = dwflError();
  t.truncated = t.frames.size() >= kMaxFrames;
  return DWARF_CB_OK;
}

}  // namespace

Expected<ccs::proto::RankStacks> readCoreStacks(const std::string& corePath, const std::string& executable) {
  ScopedFd fd(::open(corePath.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) return fail("cannot open " + corePath + ": " + std::strerror(errno));
  elf_version(EV_CURRENT);
  std::unique_ptr<Elf, decltype(&elf_end)> elf(elf_begin(fd.get(), ELF_C_READ_MMAP, nullptr), &elf_end);
  GElf_Ehdr ehdr;
  if (!elf || !gelf_getehdr(elf.get(), &ehdr) || ehdr.e_type != ET_CORE) return fail(corePath + ": not a core file");
  std::unique_ptr<Dwfl, decltype(&dwfl_end)> dwfl(dwfl_begin(&kCoreCallbacks), &dwfl_end);
  if (!dwfl) return fail(corePath + ": " + dwflError());
  if (dwfl_core_file_report(dwfl.get(), elf.get(), executable.empty() ? nullptr : executable.c_str()) < 0)
    return fail(corePath + ": " + dwflError());
  dwfl_report_end(dwfl.get(), nullptr, nullptr);
  if (dwfl_core_file_attach(dwfl.get(), elf.get()) < 0) return fail(corePath + ": " + dwflError());
  Unwind u;
  u.dwfl = dwfl.get();
  u.stacks.pid = dwfl_pid(dwfl.get());
  if (dwfl_getthreads(dwfl.get(), onThread, &u) != 0 && u.stacks.threads.empty())
    return fail(corePath + ": " + dwflError());
  // The main thread first, as the runtime sends it.
  std::stable_partition(u.stacks.threads.begin(), u.stacks.threads.end(),
                        [](const ccs::proto::ThreadStack& t) { return t.mainThread; });
  return std::move(u.stacks);
}

}  // namespace mpidbg::core::stacks
