#include "debugger/core/stacks/StackTree.hpp"

#include <algorithm>
#include <cstdio>
#include <utility>

#include "mpidbg/Text.hpp"

namespace mpidbg::core::stacks {

namespace {

std::string baseName(const std::string& path) {
  auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}


bool childBefore(const StackNode& a, const StackNode& b) {
  if (a.ranks.first() != b.ranks.first()) return a.ranks.first() < b.ranks.first();
  return a.label < b.label;
}

}  // namespace

std::string frameLabel(const SymbolFrame& frame, NodeKey key) {
  const bool full = key == NodeKey::FunctionAndLine;
  // "??" or, for a folded run (foldUnknownRuns), "?? x17".
  if (frame.function.empty() || frame.function.starts_with("??")) {
    const std::string unknown = frame.function.empty() ? "??" : frame.function;
    if (frame.module.empty()) return full ? unknown + " (" + hexText(frame.offset) + ")" : unknown;
    std::string where = baseName(frame.module);
    if (full) where += "+" + hexText(frame.offset);
    return unknown + " (" + where + ")";
  }
  if (!full) return frame.function;
  if (!frame.file.empty() && frame.line > 0)
    return frame.function + " (" + baseName(frame.file) + ":" + std::to_string(frame.line) + ")";
  if (frame.source == SymbolSource::Symtab)
    return frame.function + "+" + hexText(frame.symbolOffset) + " (" + baseName(frame.module) +
           ")";
  return frame.function;
}

StackTree::StackTree(NodeKey key) : key_(key) {}

void StackTree::addRank(const ccs::proto::RankStacks& stacks, Symbolizer& symbolizer,
                        const std::function<std::vector<SymbolFrame>(std::vector<SymbolFrame>)>& filter) {
  const int rank = stacks.worldRank;
  for (const auto& thread : stacks.threads) {
    if (!thread.error.empty()) {
      // Named, not numbered, so that the same failure on many ranks groups.
      std::string who = thread.mainThread ? "main thread" : "thread";
      if (!thread.name.empty()) who += " '" + thread.name + "'";
      failures_[rank].push_back(who + ": " + thread.error);
      continue;
    }
    std::vector<SymbolFrame> frames;
    for (const auto& machineFrame : thread.frames) {
      const Symbolized& symbolized = symbolizer.symbolize(stacks, machineFrame);
      if (!symbolized.warning.empty()) warnings_.insert(symbolized.warning);
      frames.insert(frames.end(), symbolized.frames.begin(), symbolized.frames.end());
    }
    if (filter) frames = filter(std::move(frames));
    addThread(rank, frames, thread.truncated);
  }
  if (stacks.threads.empty()) failures_[rank].push_back("no application threads reported");
}

void StackTree::addThread(int rank, std::span<const SymbolFrame> innermostFirst, bool truncated) {
  std::vector<const SymbolFrame*> path;  // outermost first
  for (auto it = innermostFirst.rbegin(); it != innermostFirst.rend(); ++it)
    if (it->function != "__restore_rt") path.push_back(&*it);
  SymbolFrame truncatedFrame;
  truncatedFrame.function = "[truncated]";
  truncatedFrame.source = SymbolSource::Pseudo;
  if (truncated) path.insert(path.begin(), &truncatedFrame);

  root_.ranks.insert(rank);
  root_.threads += 1;
  std::vector<std::string> labels;
  // Nodes whose children may need re-sorting, outermost first.
  std::vector<StackNode*> visited{&root_};
  bool reorder = false;
  StackNode* node = &root_;
  for (const SymbolFrame* frame : path) {
    std::string label = frameLabel(*frame, key_);
    labels.push_back(label);
    auto child = std::find_if(node->children.begin(), node->children.end(),
                              [&](const StackNode& c) { return c.label == label; });
    if (child == node->children.end()) {
      StackNode fresh;
      fresh.label = std::move(label);
      fresh.frame = *frame;
      node->children.push_back(std::move(fresh));
      child = node->children.end() - 1;
      reorder = true;
    } else if (rank < child->ranks.first()) {
      reorder = true;
    }
    child->ranks.insert(rank);
    child->threads += 1;
    node = &*child;
    visited.push_back(node);
  }
  node->endRanks.insert(rank);
  node->endThreads += 1;
  paths_[rank].push_back(std::move(labels));
  // Sort deepest first: sorting a parent moves its children, so the pointers
  // to deeper nodes must no longer be needed.
  if (reorder)
    for (auto it = visited.rbegin(); it != visited.rend(); ++it)
      std::stable_sort((*it)->children.begin(), (*it)->children.end(), childBefore);
}

void StackTree::addFailure(int rank, const std::string& reason) {
  failures_[rank].push_back(reason);
}

std::vector<EquivalenceClass> StackTree::equivalenceClasses() const {
  using Signature = std::set<std::vector<std::string>>;
  std::map<Signature, EquivalenceClass> bySignature;
  for (const auto& [rank, threads] : paths_) {
    Signature signature(threads.begin(), threads.end());
    auto& cls = bySignature[signature];
    if (cls.ranks.empty()) {
      // paths_ is ordered by rank: the first rank seen is the lowest.
      for (const auto& path : threads)
        if (std::find(cls.paths.begin(), cls.paths.end(), path) == cls.paths.end())
          cls.paths.push_back(path);
    }
    cls.ranks.insert(rank);
  }
  std::vector<EquivalenceClass> classes;
  for (auto& [signature, cls] : bySignature) classes.push_back(std::move(cls));
  std::sort(classes.begin(), classes.end(), [](const auto& a, const auto& b) {
    if (a.ranks.size() != b.ranks.size()) return a.ranks.size() > b.ranks.size();
    return a.ranks.first() < b.ranks.first();
  });
  return classes;
}

std::vector<StackFailure> StackTree::failures() const {
  std::map<std::string, RankSet> byReason;
  for (const auto& [rank, reasons] : failures_)
    for (const auto& reason : reasons) byReason[reason].insert(rank);
  std::vector<StackFailure> out;
  for (auto& [reason, ranks] : byReason) out.push_back({std::move(ranks), reason});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    if (a.ranks.first() != b.ranks.first()) return a.ranks.first() < b.ranks.first();
    return a.reason < b.reason;
  });
  return out;
}

}  // namespace mpidbg::core::stacks
