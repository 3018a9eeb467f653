#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "debugger/core/Job.hpp"
#include "debugger/core/RankBackend.hpp"
#include "debugger/core/RankSet.hpp"
#include "mpidbg/Error.hpp"

namespace mpidbg::core {

/// Whether a rank's runtime can be asked now, and if not, why. The order of
/// the checks (RankRouter::reachOf) is the order of the enumerators after
/// Reachable: an ended rank counts as ended even while gdb still holds it.
enum class RankReach : std::uint8_t {
  Reachable,      ///< live (or finalized), not held, with a runtime: asked
  NotRegistered,  ///< never registered with the front end
  Ended,          ///< exited, aborted, killed or lost (RankInfo::ended)
  HeldByGdb,      ///< a gdb session holds it: its CCS thread is stopped
  NoRuntime,      ///< attached by pid: no mpidbg runtime serves it
};

/// The ranks of one request, sorted by RankRouter::sort.
struct RankSort {
  std::vector<RankInfo> reachable;    ///< the ranks to ask, in rank order
  std::map<int, RankReach> refused;   ///< every other rank of the request, and why (never Reachable)
  std::map<int, std::string> why;     ///< refused rank -> RankRouter::refusal's phrase
  std::map<int, RankInfo> infos;      ///< every registered rank of the request
};

/// How a request type becomes a named request with bytes: specialize with
///   static std::string_view handler(const Request&);  // the CCS handler
///   static std::string encode(const Request&);         // its data
/// (adapters of ccs::proto's encode functions: RankRequests.hpp).
template <typename Request>
struct RequestCodec;

/// How a reply type is read from a handler's answer: specialize with
///   static constexpr std::string_view kWhat;  // for "bad status reply: ..."
///   static Expected<std::map<int, Reply>> decode(std::string_view text, int from);
/// which decodes one payload into replies by rank: a direct reply of rank
/// `from`, or the forwarding tree's merged records of many ranks (`from` -1,
/// each record naming its rank). RankRequests.hpp.
template <typename Reply>
struct ReplyCodec;

/// The answers to one typed request (RankRouter::ask).
template <typename Reply>
struct Answers {
  /// Every rank of the request: its reply, or why it has none, as a phrase
  /// after "rank N" ("is held by gdb (release it with: gdb detach 3)", "has
  /// exited with code 0", "did not answer: timed out after 3000 ms", "sent
  /// no reply", "bad mpidbg/status reply: ...").
  std::map<int, Expected<Reply>> replies;
  /// How the ranks were sorted before anything was sent.
  RankSort sort;
  /// The ranks asked that did not answer, with the transport's own reason
  /// (without "did not answer: ").
  std::map<int, std::string> silent;
  /// The payloads that could not be decoded, by the rank that sent them (-1:
  /// the tree's merged payload), with the decoder's error.
  std::map<int, std::string> unreadable;
};

/// The one place that decides which ranks of a request can be asked (sort),
/// says why the others cannot (refusal: each message written once here), and
/// sends requests to the reachable ones through a RankBackend. Commands and
/// queries ask typed questions with ask<Reply>(ranks, request); the raw forms
/// (gather, askEach, collect) serve list handlers whose merged text a caller
/// decodes itself. Not thread-safe beyond what the backend is.
class RankRouter {
 public:
  explicit RankRouter(RankBackend& backend) : backend_(backend) {}

  /// The short state of a rank gdb holds, as control outcomes carry it
  /// (the CLI adds "(release with: gdb detach RANKS)" per group).
  static constexpr std::string_view kHeldByGdb = "held by gdb";
  /// Why a rank attached by pid cannot do what the runtime does.
  static constexpr std::string_view kNoRuntime =
      "has no mpidbg runtime (attached by pid): breakpoints, freeze, step and objects need one "
      "(start the job with the runtime preloaded and MPIDBG_LISTEN=1, then mpidbg attach FILE)";

  /// How `info` can be reached now: Ended, else HeldByGdb, else NoRuntime,
  /// else Reachable (never NotRegistered: `info` is a registered rank).
  static RankReach reachOf(const RankInfo& info);
  /// Why `info` (with reach `reach`) is not asked, as a phrase after "rank N"
  /// or "[N]": "has not registered", RankInfo::endedPhrase, "is held by gdb
  /// (release it with: gdb detach N)", kNoRuntime; "" for Reachable.
  static std::string refusal(RankReach reach, const RankInfo& info);
  /// The error of a request not sent to rank `rank`: "rank N WHY", WHY a
  /// refusal() phrase.
  static Error refusedError(int rank, std::string_view why) { return Error{"rank " + std::to_string(rank) + " " + std::string(why)}; }
  /// A rank asked that did not answer, `why` being the transport's reason.
  static std::string notAnswered(std::string_view why) { return "did not answer: " + std::string(why); }

  /// Sorts the ranks of `ranks` (exactly those; pass RankSet::all for every
  /// rank) by the backend's current view of the processes.
  RankSort sort(const RankSet& ranks);

  /// The typed question: `request` (RequestCodec<Request>) to every
  /// reachable rank of `ranks` in one gather (the tree when the backend uses
  /// one), the answers decoded by ReplyCodec<Reply>. With `waitForEnds`, a
  /// rank that did not answer because it ended meanwhile is reported with
  /// how it ended (RankBackend::endedMeanwhile waits up to a second) instead
  /// of "did not answer". Never fails as a whole.
  template <typename Reply, typename Request>
  Answers<Reply> ask(const RankSet& ranks, const Request& request, bool waitForEnds = true);

  /// `handler` with `data` to each rank of `ranks` on its own connection
  /// (each reply stays its rank's, for replies that do not name their rank).
  /// Every rank of `ranks` gets an entry; the ranks not asked an Error
  /// "rank N <refusal>", the others the backend's reply or error.
  std::map<int, Expected<std::vector<std::uint8_t>>> askEach(const RankSet& ranks, std::string_view handler,
                                                             const std::vector<std::uint8_t>& data);

  /// The merged text of `handler` (no data; list handlers: bp/list,
  /// entries, queues, stacks) from the reachable ranks of `ranks`, plus the
  /// ranks that did not answer with the transport's reason.
  std::pair<std::string, std::map<int, std::string>> collect(const RankSet& ranks, std::string_view handler);

  /// The backend the router sends through.
  RankBackend& backend() { return backend_; }

 private:
  /// Fills `answers.replies` of the asked ranks from what `gathered` holds.
  template <typename Reply>
  void take(Answers<Reply>& answers, const Gathered& gathered, bool waitForEnds);

  RankBackend& backend_;
};

/// A payload's bytes as text (the runtime's replies are text records).
inline std::string_view textOf(const std::vector<std::uint8_t>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

template <typename Reply, typename Request>
Answers<Reply> RankRouter::ask(const RankSet& ranks, const Request& request, bool waitForEnds) {
  Answers<Reply> answers;
  answers.sort = sort(ranks);
  for (const auto& [rank, why] : answers.sort.why) answers.replies.emplace(rank, fail(why));
  if (answers.sort.reachable.empty()) return answers;
  const std::string_view handler = RequestCodec<Request>::handler(request);
  const std::string data = RequestCodec<Request>::encode(request);
  const Gathered gathered =
      backend_.gather(answers.sort.reachable, handler, std::vector<std::uint8_t>(data.begin(), data.end()));
  take(answers, gathered, waitForEnds);
  return answers;
}

template <typename Reply>
void RankRouter::take(Answers<Reply>& answers, const Gathered& gathered, bool waitForEnds) {
  std::map<int, Reply> decoded;
  std::map<int, std::string>& bad = answers.unreadable;
  auto read = [&](const std::vector<std::uint8_t>& bytes, int from) {
    auto replies = ReplyCodec<Reply>::decode(textOf(bytes), from);
    if (!replies) {
      bad[from] = replies.error().message;
      return;
    }
    for (auto& [rank, reply] : *replies) decoded.insert_or_assign(rank, std::move(reply));
  };
  if (!gathered.payload.empty()) read(gathered.payload, -1);
  for (const auto& [rank, bytes] : gathered.byRank) read(bytes, rank);
  const auto ended = waitForEnds ? backend_.endedMeanwhile(gathered.missing) : std::map<int, std::string>{};
  for (const auto& info : answers.sort.reachable) {
    const int r = info.rank;
    if (auto d = decoded.find(r); d != decoded.end()) {
      answers.replies.emplace(r, std::move(d->second));
    } else if (auto m = gathered.missing.find(r); m != gathered.missing.end()) {
      answers.silent[r] = m->second;
      answers.replies.emplace(r, fail(ended.count(r) ? ended.at(r) : notAnswered(m->second)));
    } else if (auto b = bad.find(r); b != bad.end()) {
      answers.replies.emplace(r, fail("bad " + std::string(ReplyCodec<Reply>::kWhat) + " reply: " + b->second));
    } else if (auto all = bad.find(-1); all != bad.end()) {
      answers.replies.emplace(r, fail("bad " + std::string(ReplyCodec<Reply>::kWhat) + " reply: " + all->second));
    } else {
      answers.replies.emplace(r, fail("sent no reply"));
    }
  }
}

}  // namespace mpidbg::core
