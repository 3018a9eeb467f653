#include "debugger/core/mqs/QueueSources.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include "debugger/core/mqs/CoreFile.hpp"
#include "debugger/core/mqs/GdbMemory.hpp"
#include "debugger/core/mqs/MqsHost.hpp"
#include "debugger/core/mqs/ProcessMemory.hpp"
#include "debugger/core/mqs/QueueReader.hpp"
#include "debugger/core/mqs/RuntimeState.hpp"
#include "debugger/gdbmi/Session.hpp"

namespace mpidbg::core::mqs {

using ccs::proto::RankQueues;

namespace {

constexpr int kMaxFrames = 16;

Expected<RankQueues> readWith(int worldRank, TargetMemory& memory, SymbolSource& symbols,
                              const std::string& dllOverride, std::string source) {
  const std::string dll = chooseDll(dllOverride, memory, symbols);
  auto host = MqsHost::shared(dll);
  if (!host) return std::unexpected(host.error());
  Target target{worldRank, memory, symbols, {}, std::move(source)};
  return readRankQueues(**host, target);
}

/// "func at file:line" / "func" for each frame of gdb's current thread.
std::vector<std::string> framesOf(gdbmi::Session& gdb) {
  std::vector<std::string> frames;
  auto reply = gdb.command(fmt::format("-stack-list-frames 0 {}", kMaxFrames - 1),
                           std::chrono::milliseconds(5000));
  if (!reply || reply->isError()) return frames;
  const gdbmi::Value* stack = reply->results.get("stack");
  const gdbmi::List* list = stack ? stack->asList() : nullptr;
  if (!list) return frames;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const gdbmi::Value& frame = list->at(i);
    const gdbmi::Value* func = frame.get("func");
    std::string text = func && func->asString() ? *func->asString() : "??";
    const gdbmi::Value* file = frame.get("file");
    const gdbmi::Value* line = frame.get("line");
    if (file && file->asString() && line && line->asString()) {
      text += " at " + *file->asString() + ":" + *line->asString();
    }
    frames.push_back(std::move(text));
  }
  return frames;
}

}  // namespace

std::string defaultDllPath() {
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "libmpidbg-mqs.so";
  return (self.parent_path().parent_path() / "lib" / "libmpidbg-mqs.so").string();
}

std::string chooseDll(const std::string& dllOverride, TargetMemory& memory,
                      const SymbolSource& symbols) {
  if (!dllOverride.empty()) return dllOverride;
  if (auto named = readDllName(memory, symbols)) return *named;
  return defaultDllPath();
}

Expected<RankQueues> readLiveRank(int worldRank, pid_t pid, const std::string& dllOverride) {
  ProcessMemory memory(pid);
  auto symbols = SymbolSource::fromProcess(pid);
  if (!symbols) return std::unexpected(symbols.error());
  return readWith(worldRank, memory, *symbols, dllOverride, {});
}

Expected<RankQueues> readGdbRank(int worldRank, gdbmi::Session& gdb,
                                 const std::string& dllOverride) {
  const auto pid = gdb.attachedPid();
  if (!pid) return fail("the gdb session is not attached to a process");
  GdbMemory memory(gdb);
  auto symbols = SymbolSource::fromProcess(*pid);
  if (!symbols) return std::unexpected(symbols.error());
  auto queues = readWith(worldRank, memory, *symbols, dllOverride, {});
  if (queues && queues->frames.empty()) queues->frames = framesOf(gdb);
  return queues;
}

Expected<std::vector<RankQueues>> readCoreFiles(const std::vector<std::string>& cores,
                                                const std::string& dllOverride) {
  if (cores.empty()) return fail("no core files given");
  std::vector<RankQueues> out;
  for (const std::string& path : cores) {
    const std::string source = "core:" + path;
    auto queues = [&]() -> Expected<RankQueues> {
      auto core = CoreFile::open(path);
      if (!core) return std::unexpected(core.error());
      auto symbols = SymbolSource::fromCore(**core);
      if (!symbols) return std::unexpected(symbols.error());
      return readWith(-1, **core, *symbols, dllOverride, source);
    }();
    if (queues) {
      out.push_back(std::move(*queues));
    } else {
      RankQueues failed;
      failed.source = source;
      failed.error = queues.error().message;
      out.push_back(std::move(failed));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const RankQueues& a, const RankQueues& b) {
    return a.worldRank < b.worldRank;
  });
  return out;
}

}  // namespace mpidbg::core::mqs
