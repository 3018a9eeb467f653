// The Debugger: a Session (Session.cpp) with the execution control on top.
// Rank-set expressions are resolved in DebuggerRanks.cpp, the ranks asked and
// told in DebuggerQuery.cpp, message queues read in QueueQuery.cpp and stacks
// in StackQuery.cpp.
#include "debugger/core/Debugger.hpp"

namespace mpidbg::core {

Debugger::Debugger(std::function<void(const std::string&)> notify, RouteSettings routing)
    : session_(std::move(notify), routing) {
  ControlChannel channel;
  channel.send = [this](const RankSet& ranks, std::string_view handler, const std::string& data) {
    return control(ranks, handler, data);
  };
  channel.collect = [this](const RankSet& ranks, std::string_view handler) { return collect(ranks, handler); };
  controls_ = std::make_unique<ControlService>(std::move(channel));
}

void Debugger::detach() {
  const bool hadJob = session_.hasJob();
  session_.detach();
  if (hadJob) controls_->clear();
}

}  // namespace mpidbg::core
