// The replay cursor (ReplayCursor.hpp; log format in
// common/include/mpidbg/DecisionLog.hpp).
#include "ReplayCursor.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace mpidbg::rt {

using record::Decision;
using record::DecisionKind;

void ReplayCursor::open(std::string path, std::int32_t rank, std::int32_t size) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) {
    path_ = std::move(path);
    replaying_ = true;
    broken_ = "cannot read " + path_ + ": " + std::strerror(errno);
    return;
  }
  std::string bytes;
  char chunk[65536];
  for (std::size_t n; (n = std::fread(chunk, 1, sizeof chunk, f)) > 0;) bytes.append(chunk, n);
  std::fclose(f);
  load(std::move(path), bytes, rank, size);
}

void ReplayCursor::load(std::string path, std::string_view bytes, std::int32_t rank, std::int32_t size) {
  path_ = std::move(path);
  replaying_ = true;
  auto log = record::decode(bytes);
  if (!log) {
    broken_ = path_ + ": " + log.error().message;
    return;
  }
  if (log->rank != rank || log->size != size) {
    broken_ = path_ + " was recorded as rank " + std::to_string(log->rank) + " of " + std::to_string(log->size) +
              ", this is rank " + std::to_string(rank) + " of " + std::to_string(size);
    return;
  }
  total_ = log->decisions;
  complete_ = log->complete;
  for (record::Run& r : log->runs) {
    if (r.decision.kind == DecisionKind::IrecvMatch) irecvMatches_.emplace(r.decision.index, r.decision);
    else runs_.push_back(std::move(r));
  }
}

ReplayStep ReplayCursor::next(DecisionKind kind) {
  ReplayStep step;
  if (!replaying_) return step;
  if (!broken_.empty()) {
    step.why = "the record cannot be replayed: " + broken_;
  } else if (run_ >= runs_.size()) {
    step.why = "the program asks for " + std::string(record::functionOf(kind)) + " but the record ends after " +
               std::to_string(replayed_) + " decisions" +
               (complete_ ? " (the recorded run made no more)" : " (the recorded run was cut short)");
  } else {
    const Decision& next = runs_[run_].decision;
    if (next.kind != kind) {
      step.why = "the program asks for " + std::string(record::functionOf(kind)) + " but the record holds " +
                 record::describe(next);
    } else {
      step.decision = next;
      if (++usedInRun_ == runs_[run_].count) {
        ++run_;
        usedInRun_ = 0;
      }
      ++replayed_;
    }
  }
  return step;
}

std::optional<Decision> ReplayCursor::irecvMatch(std::int64_t ordinal) {
  if (!replaying_ || !broken_.empty()) return std::nullopt;
  auto it = irecvMatches_.find(ordinal);
  if (it == irecvMatches_.end()) return std::nullopt;
  ++replayed_;
  return it->second;
}

std::optional<std::string> ReplayCursor::diverge(const std::string& why) {
  if (!replaying_) return std::nullopt;
  replaying_ = false;
  diverged_ = "decision #" + std::to_string(replayed_ + 1) + ": " + why;
  return diverged_;
}

}  // namespace mpidbg::rt
