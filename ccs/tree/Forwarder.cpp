// Forwarding along the k-ary tree with merging on the way up (see Forwarder.hpp).
#include "ccs/tree/Forwarder.hpp"

#include <algorithm>
#include <functional>
#include <mutex>

#include "ccs/transport/ConnectionCache.hpp"
#include "ccs/tree/WorkerPool.hpp"
#include "mpidbg/Deadline.hpp"

namespace mpidbg::ccs {
namespace {

using Clock = std::chrono::steady_clock;
using Millis = std::chrono::milliseconds;
using Bytes = std::vector<std::uint8_t>;

/// What one part of a job produced: this PE's reply, or a child's subtree.
struct Outcome {
  std::uint32_t answered = 0;
  std::vector<MissingPe> missing;
  std::optional<std::string> error;
  Bytes payload;
};

/// Every PE of `slice` missing; the slice's root with `reason`, the others
/// as unreachable through it.
Outcome allMissing(std::span<const PeerEntry> slice, const std::string& reason) {
  Outcome out;
  for (std::size_t i = 0; i < slice.size(); ++i)
    out.missing.push_back(MissingPe{
        slice[i].pe, i == 0 ? reason : "behind PE " + std::to_string(slice[0].pe) + ": " + reason});
  return out;
}

/// One forward in progress: the parts (this PE first, then each child's
/// subtree) are filled by worker tasks; the last one merges and answers.
struct Job {
  ForwardRequest request;
  MergeRule rule = MergeRule::Concatenate;
  std::move_only_function<void(ForwardReply)> done;
  std::mutex mutex;
  std::vector<Outcome> outcomes;
  std::vector<std::string> labels;  // what each part is, for merge errors
  std::size_t remaining = 0;

  void finish(std::size_t index, Outcome outcome) {
    {
      std::lock_guard lock(mutex);
      outcomes[index] = std::move(outcome);
      if (--remaining != 0) return;
    }
    done(combine());
  }

  ForwardReply combine() {
    ForwardReply reply;
    std::vector<Bytes> parts;
    std::string partNames;
    for (std::size_t i = 0; i < outcomes.size(); ++i) {
      Outcome& o = outcomes[i];
      reply.answered += o.answered;
      for (auto& m : o.missing) reply.missing.push_back(std::move(m));
      if (o.error && !reply.error) reply.error = std::move(o.error);
      if (o.answered == 0) continue;
      partNames += (parts.empty() ? "" : ", ") + std::string("part ") +
                   std::to_string(parts.size()) + " = " + labels[i];
      parts.push_back(std::move(o.payload));
    }
    if (reply.error) return reply;
    auto merged = merge(rule, parts);
    if (merged)
      reply.payload = std::move(*merged);
    else
      reply.error = merged.error().message + " (" + partNames + ")";
    return reply;
  }
};

}  // namespace

struct Forwarder::Shared {
  ForwarderOptions options;
  Endpoint self;
  Server* server = nullptr;  ///< runs this PE's part (invokeLocal, on its poll thread)
  ConnectionCache connections;
  std::mutex poolMutex;
  std::unique_ptr<WorkerPool> pool;  // null once the Forwarder is gone
  std::mutex peersMutex;
  std::vector<PeerEntry> peers;  // sorted by PE, unique

  Shared(ForwarderOptions o, Endpoint selfEndpoint)
      : options(std::move(o)),
        self(std::move(selfEndpoint)),
        connections(options.security, options.connectTimeout),
        pool(std::make_unique<WorkerPool>(options.maxThreads)) {}

  void log(const std::string& line) const {
    if (options.log) options.log("forward: PE " + std::to_string(options.pe) + ": " + line);
  }

  bool submit(std::function<void()> task) {
    std::lock_guard lock(poolMutex);
    return pool && pool->submit(std::move(task));
  }

  /// Runs `job` for `request`: this PE's part and one sub-envelope per child.
  void start(ForwardRequest request, MergeRule rule,
             std::move_only_function<void(ForwardReply)> done, const std::shared_ptr<Shared>& me);
  void runLocal(const std::shared_ptr<Job>& job, Clock::time_point replyBy);
  void runChild(const std::shared_ptr<Job>& job, std::size_t index, Slice slice,
                Clock::time_point childBy, Clock::time_point replyBy);
  void onForward(const Request& request, Responder responder, const std::shared_ptr<Shared>& me);
  void onRoute(const Request& request, Responder responder, const std::shared_ptr<Shared>& me);
};

void Forwarder::Shared::start(ForwardRequest request, MergeRule rule,
                              std::move_only_function<void(ForwardReply)> done,
                              const std::shared_ptr<Shared>& me) {
  Clock::time_point received = Clock::now();
  Millis margin = std::max(options.minLevelMargin, request.deadline / 8);
  Clock::time_point childBy = received + request.deadline - margin;
  Clock::time_point replyBy = received + request.deadline - margin / 2;

  auto job = std::make_shared<Job>();
  Tree tree(request.fanOut);
  std::vector<Slice> children = tree.children(Slice{0, request.table.size()});
  job->rule = rule;
  job->done = std::move(done);
  job->outcomes.resize(1 + children.size());
  job->remaining = job->outcomes.size();
  job->labels.push_back("PE " + std::to_string(request.table[0].pe));
  for (const Slice& c : children)
    job->labels.push_back("subtree of PE " + std::to_string(request.table[c.begin].pe));
  job->request = std::move(request);

  // Children first (they run on workers), then this PE's part right here on
  // the server's thread; a local handler that answers later finishes it then.
  for (std::size_t i = 0; i < children.size(); ++i) {
    Slice slice = children[i];
    if (!submit([me, job, i, slice, childBy, replyBy] {
          me->runChild(job, i + 1, slice, childBy, replyBy);
        }))
      job->finish(i + 1,
                  allMissing(std::span(job->request.table).subspan(slice.begin, slice.size()),
                             "forwarder stopped"));
  }
  runLocal(job, replyBy);
}

void Forwarder::Shared::runLocal(const std::shared_ptr<Job>& job, Clock::time_point) {
  Request local = job->request.inner;
  local.pe = options.pe;
  local.multicastPes.clear();
  const std::int32_t pe = options.pe;
  server->invokeLocal(local, Responder::toCallback(
                                 [job, pe](std::optional<std::vector<std::uint8_t>> reply) {
                                   Outcome out;
                                   if (reply) {
                                     out.answered = 1;
                                     out.payload = std::move(*reply);
                                   } else {
                                     out.missing.push_back(
                                         MissingPe{pe, "local handler gave no reply"});
                                   }
                                   job->finish(0, std::move(out));
                                 }));
}

void Forwarder::Shared::runChild(const std::shared_ptr<Job>& job, std::size_t index, Slice slice,
                                 Clock::time_point childBy, Clock::time_point replyBy) {
  auto table = std::span(job->request.table).subspan(slice.begin, slice.size());
  const PeerEntry& child = table.front();
  Millis childDeadline = timeLeft(childBy);
  if (childDeadline < Millis(1)) {
    job->finish(index, allMissing(table, "deadline too short to forward"));
    return;
  }
  ForwardRequest sub;
  sub.deadline = std::min(childDeadline, Millis(kMaxForwardDeadlineMs));
  sub.fanOut = job->request.fanOut;
  sub.inner = job->request.inner;
  sub.table.assign(table.begin(), table.end());
  auto ccsRequest = makeForwardCcsRequest(sub);
  if (!ccsRequest) {
    job->finish(index, allMissing(table, ccsRequest.error().message));
    return;
  }
  auto reply = connections.call(child.endpoint(), *ccsRequest, timeLeft(replyBy));
  if (!reply) {
    // Not logged: the reply's missing entries carry it to whoever asked, and
    // a rank's log is the application's stderr (ranks exiting at the end of
    // a job made this line there every time).
    job->finish(index, allMissing(table, reply.error().message));
    return;
  }
  auto decoded = decodeForwardReply(*reply);
  if (!decoded) {
    job->finish(index, allMissing(table, "malformed reply envelope: " + decoded.error().message));
    return;
  }
  Outcome out;
  out.answered = decoded->answered;
  out.missing = std::move(decoded->missing);
  if (decoded->error)
    out.error = "subtree of PE " + std::to_string(child.pe) + ": " + *decoded->error;
  out.payload = std::move(decoded->payload);
  job->finish(index, std::move(out));
}

void Forwarder::Shared::onForward(const Request& request, Responder responder,
                                  const std::shared_ptr<Shared>& me) {
  auto refuse = [&](const std::string& message) {
    log("refused forward envelope: " + message);
    ForwardReply reply;
    reply.error = message;
    responder.reply(encodeForwardReply(reply));
  };
  auto decoded = decodeForwardRequest(request.data);
  if (!decoded) return refuse(decoded.error().message);
  if (decoded->table.front().pe != options.pe)
    return refuse("forward envelope is for PE " + std::to_string(decoded->table.front().pe) +
                  " but this is PE " + std::to_string(options.pe));
  auto rule = options.mergeTable.ruleFor(decoded->inner.handler);
  if (!rule) return refuse(rule.error().message);
  {
    std::lock_guard lock(poolMutex);
    if (!pool) return refuse("the forwarder of PE " + std::to_string(options.pe) + " is stopped");
  }
  start(
      std::move(*decoded), *rule,
      [responder = std::move(responder)](ForwardReply reply) mutable {
        responder.reply(encodeForwardReply(reply));
      },
      me);
}

void Forwarder::Shared::onRoute(const Request& request, Responder responder,
                                const std::shared_ptr<Shared>& me) {
  auto unroutable = [&](const std::string& why) {
    log("empty reply to '" + request.handler + "' for pe " + std::to_string(request.pe) + ": " +
        why);
    responder.reply({});
  };
  std::vector<PeerEntry> table;
  {
    std::lock_guard lock(peersMutex);
    table = peers;
  }
  if (table.empty()) return unroutable("no PE table is known on this node");
  auto find = [&](std::int32_t pe) -> const PeerEntry* {
    auto at = std::lower_bound(table.begin(), table.end(), pe,
                               [](const PeerEntry& e, std::int32_t p) { return e.pe < p; });
    return at != table.end() && at->pe == pe ? &*at : nullptr;
  };
  Millis deadline = options.defaultDeadline;

  if (request.pe >= 0) {  // point-to-point to another PE: relay it
    const PeerEntry* target = find(request.pe);
    if (!target) return unroutable("PE " + std::to_string(request.pe) + " is not in the table");
    auto shared = std::make_shared<Responder>(std::move(responder));
    bool queued = submit([me, shared, copy = request, to = *target, deadline] {
      auto reply = me->connections.call(to.endpoint(), copy, deadline);
      if (!reply) me->log("relay to PE " + std::to_string(to.pe) + ": " + reply.error().message);
      shared->reply(reply ? std::move(*reply) : Bytes{});
    });
    if (!queued) shared->reply({});
    return;
  }

  ForwardRequest forward;
  forward.deadline = deadline;
  forward.fanOut = options.defaultFanOut;
  forward.inner = request;
  if (request.pe == kBroadcastPe) {
    forward.table = std::move(table);
  } else {
    for (std::int32_t pe : request.multicastPes) {
      const PeerEntry* entry = find(pe);
      if (!entry) return unroutable("multicast PE " + std::to_string(pe) + " is not in the table");
      forward.table.push_back(*entry);
    }
  }
  if (forward.table.empty()) return unroutable("empty multicast PE list");
  auto rule = options.mergeTable.ruleFor(request.handler);
  if (!rule) return unroutable(rule.error().message);

  auto done = [me, responder = std::move(responder)](ForwardReply reply) mutable {
    for (const auto& m : reply.missing)
      me->log("PE " + std::to_string(m.pe) + " missing from a broadcast: " + m.reason);
    if (reply.error) me->log("broadcast not merged: " + *reply.error);
    responder.reply(reply.error ? Bytes{} : std::move(reply.payload));
  };
  if (forward.table.front().pe == options.pe)
    return start(std::move(forward), *rule, std::move(done), me);

  // Rooted at another PE (Charm++: PE 0, or the first listed): one envelope there.
  auto pending = std::make_shared<decltype(done)>(std::move(done));
  bool queued = submit([me, pending, forward = std::move(forward)] {
    auto ccsRequest = makeForwardCcsRequest(forward);
    Expected<ForwardReply> reply = std::unexpected(Error{});
    if (!ccsRequest)
      reply = std::unexpected(ccsRequest.error());
    else if (auto bytes = me->connections.call(forward.table.front().endpoint(), *ccsRequest,
                                               forward.deadline + forward.deadline / 8))
      reply = decodeForwardReply(*bytes);
    else
      reply = std::unexpected(bytes.error());
    if (!reply) {
      ForwardReply failed;
      failed.error =
          "root PE " + std::to_string(forward.table.front().pe) + ": " + reply.error().message;
      return (*pending)(std::move(failed));
    }
    (*pending)(std::move(*reply));
  });
  if (!queued) {
    ForwardReply stopped;
    stopped.error = "forwarder stopped";
    (*pending)(std::move(stopped));
  }
}

Forwarder::Forwarder(std::shared_ptr<Shared> shared) : shared_(std::move(shared)) {}

Forwarder::~Forwarder() {
  std::unique_ptr<WorkerPool> pool;
  {
    std::lock_guard lock(shared_->poolMutex);
    pool = std::move(shared_->pool);
  }
  pool.reset();  // joins the workers outside the lock
  shared_->connections.clear();
}

void Forwarder::setPeerTable(std::vector<PeerEntry> table) {
  std::stable_sort(table.begin(), table.end(),
                   [](const PeerEntry& a, const PeerEntry& b) { return a.pe < b.pe; });
  table.erase(std::unique(table.begin(), table.end(),
                          [](const PeerEntry& a, const PeerEntry& b) { return a.pe == b.pe; }),
              table.end());
  std::lock_guard lock(shared_->peersMutex);
  shared_->peers = std::move(table);
}

Expected<std::unique_ptr<Forwarder>> Forwarder::install(Server& server, ForwarderOptions options) {
  if (options.maxThreads == 0) return fail("forwarder needs at least one worker thread");
  if (options.defaultFanOut < 1 || options.defaultFanOut > kMaxFanOut)
    return fail("forwarder fan-out " + std::to_string(options.defaultFanOut) + " is outside 1.." +
                std::to_string(kMaxFanOut));
  if (options.defaultDeadline.count() < 1 ||
      options.defaultDeadline.count() > kMaxForwardDeadlineMs)
    return fail("forwarder deadline of " + std::to_string(options.defaultDeadline.count()) +
                " ms is outside 1.." + std::to_string(kMaxForwardDeadlineMs));
  Endpoint self = server.endpoint();
  if (self.host == "0.0.0.0" || self.host.empty()) self.host = "127.0.0.1";
  if (self.host == "::") self.host = "::1";
  auto shared = std::make_shared<Shared>(std::move(options), std::move(self));
  shared->server = &server;
  server.addAsyncHandler(std::string(kForwardHandler),
                         [shared](const Request& request, Responder responder) {
                           shared->onForward(request, std::move(responder), shared);
                         });
  server.setRoutingHook([shared](const Request& request, Responder responder) {
    shared->onRoute(request, std::move(responder), shared);
  });
  return std::unique_ptr<Forwarder>(new Forwarder(std::move(shared)));
}

Expected<ForwardReply> callForward(Connection& connection, const ForwardRequest& request,
                                   std::chrono::milliseconds slack) {
  auto ccsRequest = makeForwardCcsRequest(request);
  if (!ccsRequest) return std::unexpected(ccsRequest.error());
  auto reply = connection.call(*ccsRequest, request.deadline + slack);
  if (!reply) return std::unexpected(reply.error());
  auto decoded = decodeForwardReply(*reply);
  if (!decoded)
    return fail("malformed forward reply from " + connection.endpoint().toString() + ": " +
                decoded.error().message);
  return decoded;
}

}  // namespace mpidbg::ccs
