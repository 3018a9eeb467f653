// Debugger::stacks and the merged tree built from it: what `where` and
// `equiv` read.
#include "debugger/core/StackQuery.hpp"

#include <algorithm>
#include <future>
#include <mutex>
#include <optional>

#include "debugger/core/Debugger.hpp"
#include "debugger/core/stacks/Machinery.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::core {

namespace proto = ccs::proto;

namespace {

/// How gdb is asked for a process's stacks: every thread, a pc on every
/// frame (inlined ones included), so the frames can be symbolized as the
/// runtime's captures are (symbolizeGdbThread).
constexpr std::string_view kGdbStacksCommand = "thread apply all bt -frame-info location-and-address";

/// The MPI function a frame's function is an entry of: "MPI_Send" for
/// MPI_Send, PMPI_Send and the runtime's "(anonymous namespace)::MPI_Send_slow"
/// (the out-of-line half of its wrapper); empty for any other function.
std::string mpiEntryOf(std::string_view function) {
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  if (function.starts_with(kAnonymous)) function.remove_prefix(kAnonymous.size());
  if (function.starts_with("PMPI_")) function.remove_prefix(1);
  if (!function.starts_with("MPI_")) return {};
  if (function.ends_with("_slow")) function.remove_suffix(5);
  return std::string(function);
}

/// gdb's frame as a tree frame.
stacks::SymbolFrame fromGdb(const GdbFrame& g) {
  stacks::SymbolFrame f;
  f.function = g.function.empty() ? "??" : g.function;
  f.file = g.file;
  f.line = g.line;
  f.module = g.module;
  f.source = !g.file.empty() ? stacks::SymbolSource::Dwarf
             : f.function != "??" ? stacks::SymbolSource::Symtab
                                  : stacks::SymbolSource::None;
  return f;
}

/// The modules of `rank`'s process when they were read, else nullptr.
const stacks::ProcessModules* modulesOf(const StackInput& input, int rank) {
  const auto it = input.gdbModules.find(rank);
  return it == input.gdbModules.end() ? nullptr : &it->second;
}

/// Whether the roles of a thread's frames make it the machinery's own
/// thread (see ThreadChoice::Application); `roles` is empty for an unknown
/// object.
bool machineryThread(const std::vector<std::optional<stacks::ObjectRole>>& roles) {
  bool ours = false;
  for (const auto& role : roles) {
    if (!role || *role == stacks::ObjectRole::Application) return false;
    ours = ours || *role == stacks::ObjectRole::Runtime || *role == stacks::ObjectRole::MpiLibrary;
  }
  return ours;
}

bool machineryThread(const proto::RankStacks& rank, const proto::ThreadStack& thread) {
  if (thread.mainThread) return false;
  std::vector<std::optional<stacks::ObjectRole>> roles;
  for (const proto::StackFrame& f : thread.frames) {
    if (f.module < 0 || static_cast<std::size_t>(f.module) >= rank.modules.size()) roles.emplace_back();
    else roles.emplace_back(stacks::objectRole(rank.modules[static_cast<std::size_t>(f.module)].path));
  }
  return machineryThread(roles);
}

bool machineryThread(const GdbThread& thread, const std::vector<stacks::SymbolFrame>& frames) {
  if (thread.number == 1) return false;  // gdb's thread 1 is the main thread
  std::vector<std::optional<stacks::ObjectRole>> roles;
  for (const stacks::SymbolFrame& f : frames) {
    if (f.module.empty()) roles.emplace_back();
    else roles.emplace_back(stacks::objectRole(f.module));
  }
  return machineryThread(roles);
}

}  // namespace

std::vector<stacks::SymbolFrame> symbolizeGdbThread(const GdbThread& thread, const stacks::ProcessModules* modules,
                                                    stacks::Symbolizer& symbolizer) {
  std::vector<stacks::SymbolFrame> out;
  const std::vector<GdbFrame>& frames = thread.frames;
  bool exact = true;  // frame 0's pc is the interrupted instruction, as is the pc past a signal trampoline
  for (std::size_t i = 0; i < frames.size();) {
    const GdbFrame& g = frames[i];
    const bool trampoline = g.function == "<signal handler called>";
    if (!modules || g.pc == 0 || trampoline) {
      out.push_back(fromGdb(g));
      exact = trampoline;
      ++i;
      continue;
    }
    const ccs::proto::StackFrame machine = modules->locate(g.pc, exact);
    static const ccs::proto::StackModule kNoModule;
    const ccs::proto::StackModule& module =
        machine.module >= 0 ? modules->modules()[static_cast<std::size_t>(machine.module)] : kNoModule;
    std::vector<stacks::SymbolFrame> symbolized = symbolizer.symbolize(module, machine.offset, exact).frames;
    // gdb printed each function of an inlined chain as a frame of the same
    // pc; the symbolizer expands the chain from that one pc.
    std::size_t n = 1;
    while (n < symbolized.size() && i + n < frames.size() && frames[i + n].pc == g.pc) ++n;
    // A name gdb found where the module's own tables have none (gdb reads
    // more debug-information sources) is kept, with the module and offset.
    if (symbolized.size() == 1 && symbolized[0].function == "??" && !g.function.empty() && g.function != "??") {
      stacks::SymbolFrame named = fromGdb(g);
      named.module = symbolized[0].module;
      named.offset = symbolized[0].offset;
      symbolized[0] = std::move(named);
    }
    out.insert(out.end(), symbolized.begin(), symbolized.end());
    exact = false;
    i += n;
  }
  return out;
}

std::vector<stacks::SymbolFrame> nameMain(std::vector<stacks::SymbolFrame> frames) {
  for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
    const std::string& caller = frames[i + 1].function;
    if (frames[i].function == "??" && (caller == "__libc_start_call_main" || caller == "__libc_start_main"))
      frames[i].function = "main";
  }
  return frames;
}

std::vector<stacks::SymbolFrame> foldUnknownRuns(std::vector<stacks::SymbolFrame> frames) {
  std::vector<stacks::SymbolFrame> out;
  for (std::size_t i = 0; i < frames.size();) {
    std::size_t j = i + 1;
    if (frames[i].function == "??")
      while (j < frames.size() && frames[j].function == "??" && frames[j].module == frames[i].module) ++j;
    out.push_back(std::move(frames[i]));
    if (j - i >= 2) out.back().function = "?? x" + std::to_string(j - i);
    i = j;
  }
  return out;
}

std::vector<stacks::SymbolFrame> cutAtMpiCall(std::vector<stacks::SymbolFrame> frames) {
  // Innermost first: the outermost MPI entry is the last one.
  for (std::size_t i = frames.size(); i-- > 0;) {
    std::string entry = mpiEntryOf(frames[i].function);
    if (entry.empty()) continue;
    frames.erase(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(i));
    frames.front().function = std::move(entry);
    break;
  }
  return frames;
}

std::vector<stacks::SymbolFrame> cutRuntimeHandler(std::vector<stacks::SymbolFrame> frames) {
  // Innermost first: the handler's frames lie inside the first trampoline.
  bool runtime = false;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    const std::string& f = frames[i].function;
    if (f == "__restore_rt" || f == "<signal handler called>") {
      if (runtime) frames.erase(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(i) + 1);
      break;
    }
    runtime = runtime || f.starts_with("mpidbg::rt::");
  }
  return frames;
}

std::vector<stacks::SymbolFrame> cutAboveMain(std::vector<stacks::SymbolFrame> frames) {
  // Innermost first: the outermost `main` or `start_thread` is the last one.
  for (std::size_t i = frames.size(); i-- > 0;) {
    const std::string& f = frames[i].function;
    if (f != "main" && f != "start_thread") continue;
    frames.resize(i + 1);
    break;
  }
  return frames;
}

stacks::StackTree buildStackTree(const StackInput& input, stacks::NodeKey key, StackDepth depth,
                                 stacks::Symbolizer& symbolizer, ThreadChoice threads, HiddenThreads* hidden) {
  stacks::StackTree tree(key);
  const std::function<std::vector<stacks::SymbolFrame>(std::vector<stacks::SymbolFrame>)> filter =
      [depth, key](std::vector<stacks::SymbolFrame> frames) {
        frames = nameMain(std::move(frames));
        if (depth == StackDepth::ToMpiCall) frames = cutAboveMain(cutAtMpiCall(cutRuntimeHandler(std::move(frames))));
        if (key == stacks::NodeKey::Function) frames = foldUnknownRuns(std::move(frames));
        return frames;
      };
  auto hide = [&](int rank) {
    if (!hidden) return;
    hidden->ranks.insert(rank);
    ++hidden->threads;
  };
  for (const auto& rank : input.captured) {
    if (threads == ThreadChoice::All) {
      tree.addRank(rank, symbolizer, filter);
      continue;
    }
    proto::RankStacks kept = rank;
    kept.threads.clear();
    for (const auto& thread : rank.threads) {
      if (machineryThread(rank, thread)) hide(rank.worldRank);
      else kept.threads.push_back(thread);
    }
    tree.addRank(kept, symbolizer, filter);
  }
  for (const auto& [rank, gdbThreads] : input.viaGdb) {
    bool any = false;
    for (const auto& thread : gdbThreads) {
      if (thread.name.starts_with("mpidbg-")) continue;  // the runtime's helper threads
      std::vector<stacks::SymbolFrame> frames = symbolizeGdbThread(thread, modulesOf(input, rank), symbolizer);
      if (threads == ThreadChoice::Application && machineryThread(thread, frames)) {
        hide(rank);
        continue;
      }
      frames = filter(std::move(frames));
      tree.addThread(rank, frames);
      any = true;
    }
    if (!any) tree.addFailure(rank, "gdb printed no thread");
  }
  for (const auto& [rank, why] : input.failed) tree.addFailure(rank, why);
  return tree;
}

StackInput Debugger::stacks(const RankSet& wanted) {
  StackInput input;
  const RankSet ranks = wanted.empty() ? RankSet::all(session_.job().size()) : wanted;
  session_.refreshProcesses();
  RankSort sorted = session_.router().sort(ranks);
  RankSet reachable, held;
  std::map<int, RankInfo>& infos = sorted.infos;
  // Ranks whose runtime cannot answer, and why: they are asked through gdb.
  std::map<int, std::string> viaGdb;
  for (const auto& info : sorted.reachable) reachable.insert(info.rank);
  for (const auto& [rank, reach] : sorted.refused) {
    switch (reach) {
      case RankReach::Reachable: break;
      case RankReach::NotRegistered: input.failed[rank] = "not registered"; break;
      case RankReach::Ended: input.failed[rank] = infos.at(rank).describeEnd(); break;
      case RankReach::HeldByGdb: held.insert(rank); break;
      case RankReach::NoRuntime: viaGdb[rank] = "no mpidbg runtime"; break;
    }
  }

  if (!reachable.empty()) {
    auto [text, missing] = collect(reachable, proto::kStacksHandler);
    auto decoded = proto::decodeRankStacksList(text);
    if (!decoded) {
      for (int r : reachable) viaGdb[r] = "bad mpidbg/stacks reply: " + decoded.error().message;
    } else {
      RankSet answered;
      for (auto& s : *decoded) {
        if (!reachable.contains(s.worldRank) || answered.contains(s.worldRank)) continue;
        answered.insert(s.worldRank);
        input.captured.push_back(std::move(s));
      }
      for (int r : reachable)
        if (!answered.contains(r)) viaGdb[r] = "runtime did not answer";
    }
    for (const auto& [rank, why] : missing) viaGdb[rank] = "runtime did not answer: " + why;
  }

  // The modules of a process on this host, for symbolizing gdb's pcs as the
  // runtime's captures are; elsewhere gdb's own names are used.
  auto readModules = [&](int rank) {
    const RankInfo& info = infos[rank];
    if (info.pid <= 0 || !isThisHost(info.host)) return;
    if (auto modules = stacks::ProcessModules::read(info.pid)) input.gdbModules[rank] = std::move(*modules);
  };

  // Held ranks: their gdb session prints the threads (gdb already stops them).
  if (!held.empty()) {
    for (auto& [rank, out] : session_.gdb().run(held, std::string(kGdbStacksCommand) + " -no-filters")) {
      if (!out) {
        input.failed[rank] = std::string(RankRouter::kHeldByGdb) + ", which failed: " + out.error().message;
        continue;
      }
      input.viaGdb[rank] = parseAllThreads(*out);
      input.gdbReason[rank] = std::string(RankRouter::kHeldByGdb);
      readModules(rank);
    }
  }

  // Silent runtimes: a one-shot gdb per rank on this host, two at a time.
  std::vector<std::pair<int, std::future<Expected<std::string>>>> running;
  auto finish = [&](std::pair<int, std::future<Expected<std::string>>>& job) {
    auto out = job.second.get();
    const int rank = job.first;
    if (!out) {
      input.failed[rank] = viaGdb[rank] + "; gdb: " + out.error().message;
      return;
    }
    input.viaGdb[rank] = parseAllThreads(*out);
    input.gdbReason[rank] = viaGdb[rank];
    readModules(rank);
  };
  for (const auto& [rank, why] : viaGdb) {
    const RankInfo& info = infos[rank];
    if (info.pid <= 0 || !isThisHost(info.host)) {
      input.failed[rank] = why + " (and it runs on " + info.host + ", out of a one-shot gdb's reach)";
      continue;
    }
    if (running.size() >= 2) {
      finish(running.front());
      running.erase(running.begin());
    }
    running.emplace_back(rank, std::async(std::launch::async, [path = session_.gdb().gdbPath, pid = info.pid] {
                           return oneShotGdb(path, pid, std::string(kGdbStacksCommand), std::chrono::seconds(60));
                         }));
  }
  for (auto& job : running) finish(job);
  return input;
}

namespace {

/// "deadlock.c:19 in main" for the caller of the MPI call in `frames`
/// (innermost first, already cut at the MPI call), or "" when there is none.
/// With no MPI call on top (a polling rank between two tests), the first
/// frame of the application's own code, or "" when there is none.
std::string callSiteOf(const std::vector<stacks::SymbolFrame>& frames) {
  if (frames.empty()) return "";
  std::size_t i = 0;
  if (mpiEntryOf(frames[0].function).empty()) {
    // gdb names no object for frames with line information.
    auto ownCode = [](const stacks::SymbolFrame& f) {
      return f.module.empty() ? !f.file.empty() : stacks::objectRole(f.module) == stacks::ObjectRole::Application;
    };
    while (i < frames.size() && !ownCode(frames[i])) ++i;
    if (i == frames.size()) return "";
  } else {
    if (frames.size() < 2) return "";
    // The caller, past the runtime's and the MPI library's own frames (a
    // wrapper that tail-calls its helper leaves the helper as the caller).
    i = 1;
    while (i + 1 < frames.size() && !frames[i].module.empty() &&
           stacks::objectRole(frames[i].module) != stacks::ObjectRole::Application &&
           stacks::objectRole(frames[i].module) != stacks::ObjectRole::System)
      ++i;
  }
  const stacks::SymbolFrame& caller = frames[i];
  if (!caller.file.empty() && caller.line > 0)
    return caller.file.substr(caller.file.rfind('/') + 1) + ":" + std::to_string(caller.line) + " in " + caller.function;
  if (caller.module.empty()) return caller.function;
  const std::string object = caller.module.substr(caller.module.rfind('/') + 1);
  // gdb's frames carry the object but no offset.
  if (caller.offset == 0) return caller.function + " (" + object + ")";
  return object + "+" + hexText(caller.offset) + " in " + caller.function;
}

}  // namespace

std::map<int, std::string> mpiCallSites(const StackInput& input, stacks::Symbolizer& symbolizer) {
  std::map<int, std::string> sites;
  // One rank's threads, main thread first: the first in an MPI call wins;
  // without one, the main thread's own innermost frame.
  struct Pick {
    std::string inMpi, mainOwn;
    void consider(std::vector<stacks::SymbolFrame> frames, bool main) {
      if (!inMpi.empty()) return;
      frames = cutAtMpiCall(cutRuntimeHandler(nameMain(std::move(frames))));
      const bool mpi = !frames.empty() && !mpiEntryOf(frames.front().function).empty();
      if (!mpi && !main) return;
      std::string site = callSiteOf(frames);
      (mpi ? inMpi : mainOwn) = std::move(site);
    }
    void into(std::map<int, std::string>& out, int rank) {
      std::string& site = inMpi.empty() ? mainOwn : inMpi;
      if (!site.empty()) out[rank] = std::move(site);
    }
  };
  for (const proto::RankStacks& rank : input.captured) {
    Pick pick;
    for (bool main : {true, false})
      for (const proto::ThreadStack& t : rank.threads) {
        if (t.mainThread != main || !t.error.empty()) continue;
        std::vector<stacks::SymbolFrame> frames;
        for (const proto::StackFrame& f : t.frames) {
          const stacks::Symbolized& s = symbolizer.symbolize(rank, f);
          frames.insert(frames.end(), s.frames.begin(), s.frames.end());
        }
        pick.consider(std::move(frames), main);
      }
    pick.into(sites, rank.worldRank);
  }
  for (const auto& [rank, threads] : input.viaGdb) {
    if (threads.empty()) continue;
    // gdb's thread 1 is the main thread; `thread apply all bt` prints it last.
    const auto found = std::find_if(threads.begin(), threads.end(), [](const GdbThread& t) { return t.number == 1; });
    const GdbThread* mainThread = found != threads.end() ? &*found : &threads.front();
    Pick pick;
    pick.consider(symbolizeGdbThread(*mainThread, modulesOf(input, rank), symbolizer), true);
    for (const GdbThread& thread : threads)
      if (&thread != mainThread) pick.consider(symbolizeGdbThread(thread, modulesOf(input, rank), symbolizer), false);
    pick.into(sites, rank);
  }
  return sites;
}

ViolationStacks renderViolationStacks(const std::string& encoded) {
  if (encoded.empty()) return {};
  auto decoded = proto::decodeRankStacksList(encoded);
  if (!decoded || decoded->size() != 1)
    return {"    (stacks unreadable: " + (decoded ? std::string("not one rank") : decoded.error().message) + ")", {}};
  static std::mutex mutex;
  static stacks::Symbolizer* symbolizer = new stacks::Symbolizer;  // kept: module files stay open for later events
  std::lock_guard lock(mutex);
  const proto::RankStacks& rank = decoded->front();
  ViolationStacks out;
  for (const proto::ThreadStack& t : rank.threads) {
    if (!out.text.empty()) out.text += "\n";
    out.text += "    thread " + std::to_string(t.tid) + (t.name.empty() ? std::string() : " (" + t.name + ")") + ": ";
    out.sites.emplace_back();
    if (!t.error.empty() && t.frames.empty()) {
      out.text += t.error;
      continue;
    }
    std::vector<stacks::SymbolFrame> frames;
    for (const proto::StackFrame& f : t.frames) {
      const stacks::Symbolized& s = symbolizer->symbolize(rank, f);
      frames.insert(frames.end(), s.frames.begin(), s.frames.end());
    }
    frames = cutAboveMain(cutAtMpiCall(cutRuntimeHandler(std::move(frames))));
    for (std::size_t i = frames.size(); i-- > 0;) {
      out.text += frames[i].function;
      if (i > 0) out.text += " > ";
    }
    // Where the MPI call was made: its caller's line.
    if (frames.size() >= 2 && !frames[1].file.empty() && frames[1].line > 0) {
      const std::string& file = frames[1].file;
      out.sites.back() = file.substr(file.rfind('/') + 1) + ":" + std::to_string(frames[1].line);
      out.text += " (" + out.sites.back() + ")";
    }
  }
  return out;
}

}  // namespace mpidbg::core
