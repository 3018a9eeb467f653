// Stack capture in the rank (see StackCapture.hpp): the signal handler that
// unwinds one thread into its slot, and the helper-thread side that signals,
// waits, and maps pcs to modules.
//
// Signal choice: SIGRTMIN+7, next to the freeze signal (SIGRTMIN+6,
// FreezeSignal.cpp); MPIDBG_STACK_SIGNAL=N picks another one. If the
// application already handles it, capture is unavailable (every thread is
// answered with the reason) rather than taking the signal away.
//
// libunwind runs with caching off (UNW_CACHE_NONE): the global cache takes a
// mutex and the per-thread cache lives in TLS that may be set up lazily; with
// no cache, local unwinding uses only the stack and dl_iterate_phdr (whose
// loader lock is recursive, so a thread interrupted inside the loader can
// still unwind itself).
#include "StackCapture.hpp"
#include "runtime/HostName.hpp"

#define UNW_LOCAL_ONLY
#include <libunwind.h>

#include <dirent.h>
#include <elf.h>
#include <link.h>
#include <linux/futex.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <new>
#include <vector>

namespace mpidbg::rt {

namespace proto = ccs::proto;

namespace {

/// Offset of the default stack signal from SIGRTMIN.
constexpr int kStackSignalOffset = 7;
/// Slot phases (low two bits of Slot::state; the rest is the request's generation).
constexpr std::uint64_t kIdle = 0, kRequested = 1, kWriting = 2, kDone = 3, kPhaseMask = 3;
/// Slot::error when unwinding never reached a signal trampoline.
constexpr int kNoTrampoline = 1;

/// One thread's answer, written by that thread's signal handler only while
/// the phase is kWriting.
struct Slot {
  std::atomic<std::uint64_t> state{kIdle};
  std::atomic<std::int32_t> tid{0};
  int error = 0;  ///< 0, kNoTrampoline, or a negative libunwind code
  std::uint32_t count = 0;
  bool truncated = false;
  std::uint64_t pcs[StackCapture::kMaxFrames];
  bool exact[StackCapture::kMaxFrames];
};

std::atomic<Slot*> gStackSlots{nullptr};
/// Incremented (and futex-woken) by every handler that finished a slot.
std::atomic<std::uint32_t> gFinished{0};
std::atomic<std::int32_t> gHelperTid{0};

std::int32_t currentTid() noexcept { return static_cast<std::int32_t>(::syscall(SYS_gettid)); }

std::uint32_t* futexWord(std::atomic<std::uint32_t>& word) noexcept { return reinterpret_cast<std::uint32_t*>(&word); }

/// The pc the signal interrupted, from the handler's ucontext; 0 when this
/// architecture is not known here.
std::uint64_t interruptedPc(const void* context) noexcept {
  const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
  return static_cast<std::uint64_t>(uc->uc_mcontext.gregs[REG_RIP]);
#elif defined(__aarch64__)
  return static_cast<std::uint64_t>(uc->uc_mcontext.pc);
#else
  (void)uc;
  return 0;
#endif
}

/// Unwinds the calling thread (inside the stack signal handler) into `slot`.
/// The handler's own frames up to and including the signal trampoline are
/// skipped: the first frame kept is the one at `interrupted` (the pc from the
/// ucontext), or, on an architecture without it here, the first frame
/// libunwind calls a signal frame.
/// The interrupted pc, trampolines further out (a freeze --now handler) and
/// the frames they interrupted are exact. Async-signal-safe.
///
/// unw_is_signal_frame() differs between libunwind versions: 1.6 flags the
/// frame reached through a trampoline (the interrupted one), others flag the
/// trampoline itself. Which one applies is read off the first trampoline,
/// whose position the ucontext pins down.
void unwindInto(Slot& slot, std::uint64_t interrupted) noexcept {
  slot.error = 0;
  slot.count = 0;
  slot.truncated = false;
  unw_context_t context;
  unw_cursor_t cursor;
  if (unw_getcontext(&context) != 0) {
    slot.error = -UNW_EUNSPEC;
    return;
  }
  if (const int rc = unw_init_local(&cursor, &context); rc < 0) {
    slot.error = rc;
    return;
  }
  bool skipping = true;
  bool flagsInterrupted = true;  // libunwind 1.6 semantics until shown otherwise
  bool previousFlag = false;     // unw_is_signal_frame of the previous frame
  for (;;) {
    unw_word_t ip = 0;
    if (unw_get_reg(&cursor, UNW_REG_IP, &ip) < 0) break;
    const bool flag = unw_is_signal_frame(&cursor) > 0;
    bool keep = !skipping;
    bool exact = false;
    if (skipping && (interrupted != 0 ? ip == interrupted : flag)) {
      skipping = false;
      keep = true;
      exact = true;
      flagsInterrupted = flag || !previousFlag;
    } else if (keep) {
      exact = flagsInterrupted ? flag : flag || previousFlag;
      // With 1.6 semantics a flagged frame's predecessor was a trampoline: no return address either.
      if (flagsInterrupted && flag && slot.count > 0) slot.exact[slot.count - 1] = true;
    }
    if (keep) {
      if (slot.count == StackCapture::kMaxFrames) {
        slot.truncated = true;
        break;
      }
      slot.pcs[slot.count] = ip;
      slot.exact[slot.count] = exact;
      ++slot.count;
    }
    previousFlag = flag;
    if (unw_step(&cursor) <= 0) break;  // the outermost frame, or no unwind info further out
  }
  if (skipping) slot.error = kNoTrampoline;
}

/// The stack signal handler: finds the slot requested for this thread (none:
/// a stale or stray signal, ignored), fills it, and wakes the helper.
void onStackSignal(int, siginfo_t*, void* context) noexcept {
  const int savedErrno = errno;
  if (Slot* slots = gStackSlots.load(std::memory_order_acquire)) {
    const std::int32_t me = currentTid();
    for (std::size_t i = 0; i < StackCapture::kMaxThreads; ++i) {
      Slot& slot = slots[i];
      std::uint64_t state = slot.state.load(std::memory_order_acquire);
      if ((state & kPhaseMask) != kRequested || slot.tid.load(std::memory_order_relaxed) != me) continue;
      const std::uint64_t generation = state & ~kPhaseMask;
      if (!slot.state.compare_exchange_strong(state, generation | kWriting, std::memory_order_acq_rel)) continue;
      unwindInto(slot, interruptedPc(context));
      slot.state.store(generation | kDone, std::memory_order_release);
      gFinished.fetch_add(1, std::memory_order_release);
      ::syscall(SYS_futex, futexWord(gFinished), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
      break;
    }
  }
  errno = savedErrno;
}

/// The first line of a small /proc file, without its newline; empty when unreadable.
std::string firstLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

/// Bit `sig` of the hex signal set on line `key` ("SigBlk:") of a /proc status text.
bool signalInSet(const std::string& status, std::string_view key, int sig) {
  const auto at = status.find(key);
  if (at == std::string::npos) return false;
  const unsigned long long set = std::strtoull(status.c_str() + at + key.size(), nullptr, 16);
  return sig >= 1 && sig <= 64 && ((set >> (sig - 1)) & 1u) != 0;
}

/// An application thread to capture.
struct Target {
  proto::ThreadStack stack;
  Slot* slot = nullptr;  ///< null: not signalled (stack.error says why)
  bool gone = false;     ///< exited meanwhile: left out of the answer
};

/// The application threads: every task but the caller and the helper threads.
std::vector<Target> applicationThreads() {
  std::vector<Target> out;
  const std::int32_t self = currentTid();
  const std::int32_t helper = gHelperTid.load(std::memory_order_relaxed);
  const std::int32_t pid = static_cast<std::int32_t>(::getpid());
  DIR* dir = ::opendir("/proc/self/task");
  if (!dir) return out;
  while (const dirent* entry = ::readdir(dir)) {
    char* end = nullptr;
    const long tid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || tid <= 0 || tid == self || tid == helper) continue;
    Target t;
    t.stack.tid = static_cast<std::int32_t>(tid);
    t.stack.name = firstLine("/proc/self/task/" + std::to_string(tid) + "/comm");
    if (t.stack.name == StackCapture::kHelperThreadName) continue;
    t.stack.mainThread = tid == pid;
    out.push_back(std::move(t));
  }
  ::closedir(dir);
  std::sort(out.begin(), out.end(), [](const Target& a, const Target& b) {
    if (a.stack.mainThread != b.stack.mainThread) return a.stack.mainThread;
    return a.stack.tid < b.stack.tid;
  });
  return out;
}

// ---- pcs to modules (helper thread, outside any signal handler) ----

/// A loaded ELF object as dl_iterate_phdr reports it.
struct LoadedObject {
  std::string path;
  std::uint64_t bias = 0;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;  ///< PT_LOAD [begin, end) in memory
  std::string buildId;
};

std::string hexOf(const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

/// The NT_GNU_BUILD_ID in the note segment [notes, notes + size) in memory.
std::string buildIdIn(const unsigned char* notes, std::uint64_t size, std::uint64_t align) {
  const auto up = [align](std::uint64_t n) { return (n + align - 1) & ~(align - 1); };
  std::uint64_t offset = 0;
  while (offset + sizeof(ElfW(Nhdr)) <= size) {
    ElfW(Nhdr) header;
    std::memcpy(&header, notes + offset, sizeof header);
    const std::uint64_t name = offset + sizeof header;
    const std::uint64_t desc = up(name + header.n_namesz);
    const std::uint64_t next = up(desc + header.n_descsz);
    if (desc + header.n_descsz > size || next <= offset) break;
    if (header.n_type == NT_GNU_BUILD_ID && header.n_namesz == 4 && std::memcmp(notes + name, "GNU", 4) == 0)
      return hexOf(notes + desc, header.n_descsz);
    offset = next;
  }
  return {};
}

int collectObject(dl_phdr_info* info, std::size_t, void* data) {
  auto& objects = *static_cast<std::vector<LoadedObject>*>(data);
  LoadedObject o;
  o.bias = info->dlpi_addr;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type == PT_LOAD) o.ranges.emplace_back(o.bias + ph.p_vaddr, o.bias + ph.p_vaddr + ph.p_memsz);
  }
  for (int i = 0; i < info->dlpi_phnum && o.buildId.empty(); ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_NOTE) continue;
    const std::uint64_t begin = o.bias + ph.p_vaddr;
    const bool mapped = std::any_of(o.ranges.begin(), o.ranges.end(), [&](const auto& r) {
      return begin >= r.first && begin + ph.p_filesz <= r.second;
    });
    if (mapped)
      o.buildId = buildIdIn(reinterpret_cast<const unsigned char*>(begin), ph.p_filesz, ph.p_align == 8 ? 8 : 4);
  }
  const std::uint64_t vdso = ::getauxval(AT_SYSINFO_EHDR);
  const bool isVdso = vdso != 0 && std::any_of(o.ranges.begin(), o.ranges.end(), [vdso](const auto& r) {
                        return vdso >= r.first && vdso < r.second;
                      });
  if (isVdso) {
    o.path = "[vdso]";
  } else if (info->dlpi_name && *info->dlpi_name) {
    o.path = info->dlpi_name;
  } else if (objects.empty()) {  // the main program comes first, with an empty name
    char exe[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
    o.path = n > 0 ? std::string(exe, static_cast<std::size_t>(n)) : "[exe]";
  } else {
    o.path = "[unnamed]";
  }
  objects.push_back(std::move(o));
  return 0;
}

/// Fills `stacks.modules` and the frames of `t` from the raw pcs of `slot`.
class ModuleMapper {
 public:
  explicit ModuleMapper(proto::RankStacks& stacks) : stacks_(stacks) {
    ::dl_iterate_phdr(collectObject, &objects_);
    moduleOf_.assign(objects_.size(), -1);
  }

  proto::StackFrame frame(std::uint64_t pc, bool exact) {
    // A return address may be one past its call at the very end of a mapping.
    const std::uint64_t probe = exact || pc == 0 ? pc : pc - 1;
    for (std::size_t i = 0; i < objects_.size(); ++i) {
      const LoadedObject& o = objects_[i];
      const bool inside = std::any_of(o.ranges.begin(), o.ranges.end(), [probe](const auto& r) {
        return probe >= r.first && probe < r.second;
      });
      if (!inside) continue;
      if (moduleOf_[i] < 0) {
        moduleOf_[i] = static_cast<std::int32_t>(stacks_.modules.size());
        stacks_.modules.push_back({o.path, o.buildId});
      }
      return {moduleOf_[i], pc - o.bias, exact};
    }
    return {-1, pc, exact};
  }

 private:
  proto::RankStacks& stacks_;
  std::vector<LoadedObject> objects_;
  std::vector<std::int32_t> moduleOf_;  ///< object index -> module index, -1 until a frame refers to it
};

}  // namespace

StackCapture& StackCapture::instance() noexcept {
  static StackCapture* capture = new StackCapture();  // never destroyed: handlers may run at exit
  return *capture;
}

void StackCapture::markHelperThread() noexcept {
  const std::string name(kHelperThreadName);
  ::prctl(PR_SET_NAME, name.c_str(), 0, 0, 0);
  gHelperTid.store(currentTid(), std::memory_order_relaxed);
}

void StackCapture::attach(std::int32_t rank, int freezeSignal) noexcept {
  std::lock_guard lock(mutex_);
  if (attached_) return;
  attached_ = true;
  int sig = SIGRTMIN + kStackSignalOffset;
  if (const char* chosen = std::getenv("MPIDBG_STACK_SIGNAL"); chosen && *chosen) {
    char* end = nullptr;
    const long n = std::strtol(chosen, &end, 10);
    if (*end == '\0' && n >= SIGRTMIN && n <= SIGRTMAX) sig = static_cast<int>(n);
    else std::fprintf(stderr, "mpidbg-rt: rank %d: ignoring MPIDBG_STACK_SIGNAL=%s (want %d..%d)\n", rank, chosen,
                      SIGRTMIN, SIGRTMAX);
  }
  try {
    if (sig == freezeSignal) {
      unavailable_ = "stack capture is unavailable: signal " + std::to_string(sig) +
                     " is also the freeze signal; set MPIDBG_STACK_SIGNAL to another real-time signal";
      std::fprintf(stderr, "mpidbg-rt: rank %d: %s\n", rank, unavailable_.c_str());
      return;
    }
    struct sigaction previous {};
    ::sigaction(sig, nullptr, &previous);
    const bool inUse = (previous.sa_flags & SA_SIGINFO) ? previous.sa_sigaction != nullptr
                                                         : previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN;
    if (inUse) {
      unavailable_ = "stack capture is unavailable: signal " + std::to_string(sig) +
                     " is handled by the application; set MPIDBG_STACK_SIGNAL to a free real-time signal";
      std::fprintf(stderr, "mpidbg-rt: rank %d: %s\n", rank, unavailable_.c_str());
      return;
    }
    Slot* slots = new (std::nothrow) Slot[kMaxThreads];
    if (!slots) {
      unavailable_ = "stack capture is unavailable: out of memory for the frame buffers";
      return;
    }
    gStackSlots.store(slots, std::memory_order_release);
    // Set up libunwind here, outside any handler (its first use initialises state).
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE);
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) == 0 && unw_init_local(&cursor, &context) == 0) (void)unw_step(&cursor);

    struct sigaction action {};
    action.sa_sigaction = onStackSignal;
    // No other asynchronous signal (freeze --now in particular) may stop a
    // thread half-way through its unwinding.
    sigfillset(&action.sa_mask);
    for (int sync : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT}) sigdelset(&action.sa_mask, sync);
    action.sa_flags = SA_RESTART | SA_SIGINFO;
    if (::sigaction(sig, &action, nullptr) != 0) {
      unavailable_ = "stack capture is unavailable: cannot install the signal handler: " +
                     std::string(std::strerror(errno));
      return;
    }
    sigset_t mine;
    sigemptyset(&mine);
    sigaddset(&mine, sig);
    ::pthread_sigmask(SIG_UNBLOCK, &mine, nullptr);
    signal_ = sig;
    unavailable_.clear();
  } catch (...) {
    // Out of memory for a message: capture stays unavailable.
  }
}

proto::RankStacks StackCapture::capture(std::int32_t worldRank) { return captureTargets(worldRank, nullptr, false); }

proto::RankStacks StackCapture::captureSelfAnd(std::int32_t worldRank, const std::vector<std::int32_t>& others) {
  return captureTargets(worldRank, &others, true);
}

proto::RankStacks StackCapture::captureTargets(std::int32_t worldRank, const std::vector<std::int32_t>* only,
                                               bool self) {
  // The calling thread's own pcs, unwound here (not in a handler): the
  // first is where unw_getcontext was called (exact), the rest return
  // addresses.
  std::vector<std::pair<std::uint64_t, bool>> ownPcs;
  if (self) {
    unw_context_t context;
    unw_cursor_t cursor;
    if (unw_getcontext(&context) == 0 && unw_init_local(&cursor, &context) == 0) {
      do {
        unw_word_t ip = 0;
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0 || ip == 0) break;
        ownPcs.emplace_back(static_cast<std::uint64_t>(ip), ownPcs.empty());
      } while (ownPcs.size() < kMaxFrames && unw_step(&cursor) > 0);
    }
  }
  std::lock_guard lock(mutex_);
  proto::RankStacks out;
  out.worldRank = worldRank;
  out.pid = static_cast<std::int32_t>(::getpid());
  out.host = thisHostName("unknown");
  std::vector<Target> targets = applicationThreads();
  if (only)
    std::erase_if(targets, [only](const Target& t) {
      return std::find(only->begin(), only->end(), t.stack.tid) == only->end();
    });
  Slot* slots = gStackSlots.load(std::memory_order_acquire);
  if (signal_ == 0 || !slots) {
    for (Target& t : targets) {
      t.stack.error = unavailable_;
      out.threads.push_back(std::move(t.stack));
    }
    return out;
  }

  const std::uint64_t generation = ++generation_ << 2;
  const std::string signalText = "signal " + std::to_string(signal_);
  const pid_t pid = ::getpid();
  std::size_t nextSlot = 0;
  std::size_t requested = 0;
  for (Target& t : targets) {
    // A slot still being written by a handler that missed an earlier deadline is not reused.
    while (nextSlot < kMaxThreads && (slots[nextSlot].state.load(std::memory_order_acquire) & kPhaseMask) == kWriting)
      ++nextSlot;
    if (nextSlot == kMaxThreads) {
      t.stack.error = "not captured: more than " + std::to_string(kMaxThreads) + " threads";
      continue;
    }
    std::ifstream in("/proc/self/task/" + std::to_string(t.stack.tid) + "/status");
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.empty()) {
      t.gone = true;
      continue;
    }
    if (signalInSet(text, "SigBlk:", signal_)) {
      t.stack.error = "not captured: the thread blocks " + signalText + " (the stack signal)";
      continue;
    }
    Slot& slot = slots[nextSlot++];
    slot.tid.store(t.stack.tid, std::memory_order_relaxed);
    slot.state.store(generation | kRequested, std::memory_order_release);
    t.slot = &slot;
    ++requested;
    // A signal still pending from an earlier request answers this one: no second one.
    if (signalInSet(text, "SigPnd:", signal_)) continue;
    if (::syscall(SYS_tgkill, pid, t.stack.tid, signal_) != 0) {
      const int error = errno;
      std::uint64_t expected = generation | kRequested;
      slot.state.compare_exchange_strong(expected, generation | kIdle, std::memory_order_acq_rel);
      t.slot = nullptr;
      --requested;
      if (error == ESRCH) t.gone = true;
      else t.stack.error = "cannot send " + signalText + ": " + std::strerror(error);
    }
  }

  // Wait for the answers, kDeadlineMs for all of them together.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kDeadlineMs);
  for (;;) {
    const std::uint32_t seen = gFinished.load(std::memory_order_acquire);
    const std::size_t done = static_cast<std::size_t>(std::count_if(targets.begin(), targets.end(), [&](const Target& t) {
      return t.slot && t.slot->state.load(std::memory_order_acquire) == (generation | kDone);
    }));
    const auto now = std::chrono::steady_clock::now();
    if (done == requested || now >= deadline) break;
    const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - now).count();
    timespec slice{0, static_cast<long>(std::min<long long>(left, 10'000'000))};
    ::syscall(SYS_futex, futexWord(gFinished), FUTEX_WAIT_PRIVATE, seen, &slice, nullptr, 0);
  }

  ModuleMapper mapper(out);
  for (Target& t : targets) {
    if (Slot* slot = t.slot) {
      std::uint64_t state = generation | kRequested;
      // Withdraw a request nobody took; a late signal then finds nothing to do.
      if (slot->state.compare_exchange_strong(state, generation | kIdle, std::memory_order_acq_rel)) {
        if (::access(("/proc/self/task/" + std::to_string(t.stack.tid)).c_str(), F_OK) != 0) t.gone = true;
        else t.stack.error = "did not answer within " + std::to_string(kDeadlineMs) + " ms";
      } else if (state == (generation | kWriting)) {
        t.stack.error = "did not finish unwinding within " + std::to_string(kDeadlineMs) + " ms";
      } else if (state == (generation | kDone)) {
        if (slot->error == kNoTrampoline)
          t.stack.error = "unwinding failed: the interrupted frame was not found above the signal handler";
        else if (slot->error < 0) t.stack.error = std::string("unwinding failed: ") + unw_strerror(slot->error);
        const std::uint32_t count = std::min<std::uint32_t>(slot->count, kMaxFrames);
        for (std::uint32_t i = 0; i < count; ++i) t.stack.frames.push_back(mapper.frame(slot->pcs[i], slot->exact[i]));
        t.stack.truncated = slot->truncated;
      }
    }
    if (!t.gone) out.threads.push_back(std::move(t.stack));
  }
  if (self) {
    proto::ThreadStack own;
    own.tid = currentTid();
    own.name = firstLine("/proc/self/task/" + std::to_string(own.tid) + "/comm");
    own.mainThread = own.tid == static_cast<std::int32_t>(::getpid());
    own.truncated = ownPcs.size() == kMaxFrames;
    if (ownPcs.empty()) own.error = "unwinding failed";
    for (const auto& [pc, exact] : ownPcs) own.frames.push_back(mapper.frame(pc, exact));
    out.threads.insert(out.threads.begin(), std::move(own));
  }
  return out;
}

}  // namespace mpidbg::rt
