#include "debugger/core/mqs/QueueReader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "debugger/core/mqs/MqsCallbacks.hpp"
#include "debugger/core/mqs/RuntimeState.hpp"
#include "mpidbg/StateLayout.h"

namespace mpidbg::core::mqs {

using ccs::proto::CollClass;
using ccs::proto::CollRecord;
using ccs::proto::CommQueues;
using ccs::proto::MpiCall;
using ccs::proto::MpiPhase;
using ccs::proto::PendingOp;
using ccs::proto::RankQueues;

namespace {

constexpr int kMaxCommunicators = 65536;
constexpr int kMaxOperations = 1 << 20;  // per class and communicator
constexpr long kMaxGroupSize = 1 << 24;
constexpr int kMaxHistory = 1 << 16;
constexpr std::size_t kMaxWaitRequests = 64;
/// MPICH's MPI_REQUEST_NULL handle value (mpi.h: ((MPI_Request)0x2c000000)),
/// left out of waitingOn like 0.
constexpr std::uint64_t kMpichRequestNull = 0x2c000000;

template <std::size_t N>
std::string fixed(const char (&text)[N]) {
  return std::string(text, strnlen(text, N));
}

/// The DLL's image and process for one target, destroyed on scope exit.
class DllSession {
 public:
  DllSession(MqsHost& host, SymbolSource& symbols, TargetMemory& memory, std::string imageName,
             long worldRank)
      : fn_(host.functions()), host_(host) {
    const ElfObject& exe = *symbols.executable().object;
    image_.symbols = &symbols;
    image_.name = std::move(imageName);
    image_.elfClass = exe.elfClass();
    image_.bigEndian = exe.bigEndian();
    process_.image = &image_;
    process_.memory = &memory;
    process_.worldRank = worldRank;
  }
  ~DllSession() {
    if (process_.info) fn_.destroyProcessInfo(process_.info);
    if (image_.info) fn_.destroyImageInfo(image_.info);
  }
  DllSession(const DllSession&) = delete;
  DllSession& operator=(const DllSession&) = delete;

  mqs_image* image() { return toMqs(&image_); }
  mqs_process* process() { return toMqs(&process_); }
  const std::string& imageName() const { return image_.name; }

  /// Runs one DLL call with a fresh callback-failure note.
  template <typename F, typename... Args>
  int call(F f, Args... args) {
    process_.lastError.clear();
    return f(args...);
  }
  /// Text for a failing code: the DLL's words, then what our callback saw.
  std::string why(int code) const {
    std::string text = host_.errorText(code);
    if (!process_.lastError.empty()) text += ": " + process_.lastError;
    return text;
  }
  /// "; no DWARF type T1, T2 in the target" when type lookups failed.
  std::string missingTypes() const {
    if (image_.missingTypes.empty()) return {};
    std::string text = "; the target has no DWARF for type";
    if (image_.missingTypes.size() > 1) text += "s";
    for (std::size_t i = 0; i < image_.missingTypes.size(); ++i) {
      text += (i == 0 ? " " : ", ") + image_.missingTypes[i];
    }
    return text + " (a stripped MPI library?)";
  }

 private:
  const MqsFunctions& fn_;
  MqsHost& host_;
  ImageHandle image_;
  ProcessHandle process_;
};

PendingOp::Kind kindOf(int opClass) {
  switch (opClass) {
    case mqs_pending_receives:
      return PendingOp::Kind::Recv;
    case MPIDBG_MQS_PENDING_COLLECTIVES:
      return PendingOp::Kind::Collective;
    default:  // sends, and unexpected messages (sends that arrived)
      return PendingOp::Kind::Send;
  }
}

std::int32_t clampRank(mqs_tword_t v) {
  return static_cast<std::int32_t>(std::clamp<mqs_tword_t>(v, INT32_MIN, INT32_MAX));
}

PendingOp toPendingOp(const mqs_pending_operation& op, int opClass, std::uint64_t comm,
                      const mpidbg_mqs_op_detail* detail) {
  PendingOp out;
  out.kind = kindOf(opClass);
  out.comm = comm;
  const bool unexpected = opClass == mqs_unexpected_messages;
  out.peer = clampRank(unexpected ? op.actual_local_rank : op.desired_local_rank);
  if (unexpected) {
    out.tag = clampRank(op.actual_tag);
    out.bytes = op.actual_length;
  } else {
    out.tag = op.tag_wild ? -1 : clampRank(op.desired_tag);
    out.bytes = op.desired_length;
  }
  out.buffer = op.buffer;
  if (detail) {
    out.function = fixed(detail->function);
    out.blocking = detail->blocking != 0;
    out.persistent = (detail->flags & MPIDBG_OP_PERSISTENT) != 0;
    out.active = !out.persistent || (detail->flags & MPIDBG_OP_ACTIVE) != 0;
    out.waited = (detail->flags & MPIDBG_OP_WAITED) != 0;
    out.synchronous = (detail->flags & MPIDBG_OP_SYNCHRONOUS) != 0;
    out.request = detail->request;
    out.collClass = detail->coll_class;
    out.collCall = detail->coll_call;
    out.collSeq = detail->coll_seq;
    out.count = detail->count;
  } else if (std::string first = fixed(op.extra_text[0]); first.starts_with("MPI_")) {
    out.function = first.substr(0, first.find_first_of(" ("));
  }
  return out;
}

MpiPhase phaseOf(int phase) {
  switch (phase) {
    case MPIDBG_PHASE_NOT_INITIALIZED:
      return MpiPhase::NotInitialized;
    case MPIDBG_PHASE_FINALIZING:
      return MpiPhase::Finalizing;
    case MPIDBG_PHASE_FINALIZED:
      return MpiPhase::Finalized;
    default:
      return MpiPhase::Running;
  }
}

std::string peerRoleOf(int role) {
  switch (role) {
    case 1:
      return "source";
    case 2:
      return "dest";
    case 3:
      return "root";
    case 4:  // runtime/CurrentCall.hpp PeerRole::Target
      return "target";
    default:
      return "";
  }
}

/// Reads everything about the DLL's current communicator.
class CommunicatorReader {
 public:
  CommunicatorReader(MqsHost& host, DllSession& session, std::int32_t worldRank)
      : host_(host), fn_(host.functions()), s_(session), worldRank_(worldRank) {}

  Expected<CommQueues> read(const mqs_communicator& c);
  bool sawCollState() const { return sawCollState_; }

 private:
  Expected<void> readOperations(int opClass, CommQueues& cq);
  Expected<void> readCollState(CommQueues& cq);
  std::string failure(std::string_view what, const CommQueues& cq, int rc) const {
    return fmt::format("{}: {} failed on communicator {}: {}", host_.fileName(), what,
                       cq.state.name, s_.why(rc));
  }

  MqsHost& host_;
  const MqsFunctions& fn_;
  DllSession& s_;
  std::int32_t worldRank_;
  bool sawCollState_ = false;
};

Expected<CommQueues> CommunicatorReader::read(const mqs_communicator& c) {
  CommQueues cq;
  cq.state.handle = c.unique_id;
  cq.state.size = clampRank(c.size);
  cq.state.localRank = clampRank(c.local_rank);
  cq.state.name = fixed(c.name);
  if (cq.state.name.empty()) cq.state.name = fmt::format("comm {:#x}", c.unique_id);
  cq.state.worldRank = worldRank_;
  cq.state.rootWorldRank = c.local_rank == 0 ? worldRank_ : -1;
  if (fn_.getCommGroup && c.size > 0 && c.size <= kMaxGroupSize) {
    std::vector<int> ranks(static_cast<std::size_t>(c.size), -1);
    if (s_.call(fn_.getCommGroup, s_.process(), ranks.data()) == mqs_ok) {
      cq.worldRanks.assign(ranks.begin(), ranks.end());
      cq.state.rootWorldRank = ranks.front();
    }
  }
  std::vector<int> classes = {mqs_pending_sends, mqs_pending_receives, mqs_unexpected_messages};
  if (host_.hasMpidbgExtensions()) classes.push_back(MPIDBG_MQS_PENDING_COLLECTIVES);
  for (int opClass : classes) {
    if (auto ok = readOperations(opClass, cq); !ok) return std::unexpected(ok.error());
  }
  if (auto ok = readCollState(cq); !ok) return std::unexpected(ok.error());
  if (fn_.getCommCollSeq) {
    mqs_taddr_t seq = 0;
    if (s_.call(fn_.getCommCollSeq, s_.process(), &seq) == mqs_ok) cq.collSeq = seq;
  }
  if (fn_.getCommUid) {
    mqs_taddr_t uid = 0;
    if (s_.call(fn_.getCommUid, s_.process(), &uid) == mqs_ok) cq.state.uid = uid;
  }
  return cq;
}

Expected<void> CommunicatorReader::readOperations(int opClass, CommQueues& cq) {
  int rc = s_.call(fn_.setupOperationIterator, s_.process(), opClass);
  if (rc == mqs_no_information) return {};  // the DLL cannot see this queue
  if (rc != mqs_ok) {
    return fail(failure(fmt::format("mqs_setup_operation_iterator({})", opClass), cq, rc));
  }
  std::vector<PendingOp>& out = opClass == mqs_pending_sends         ? cq.sends
                                : opClass == mqs_pending_receives    ? cq.recvs
                                : opClass == mqs_unexpected_messages ? cq.unexpected
                                                                     : cq.collectives;
  for (int n = 0;; ++n) {
    if (n >= kMaxOperations) {
      return fail(fmt::format("{}: more than {} operations of class {} on communicator {}",
                              host_.fileName(), kMaxOperations, opClass, cq.state.name));
    }
    mqs_pending_operation op{};
    rc = s_.call(fn_.nextOperation, s_.process(), &op);
    if (rc == mqs_end_of_list) return {};
    if (rc != mqs_ok) return fail(failure("mqs_next_operation", cq, rc));
    mpidbg_mqs_op_detail detail{};
    const bool haveDetail = fn_.lastOperationDetail &&
                            s_.call(fn_.lastOperationDetail, s_.process(), &detail) == mqs_ok;
    out.push_back(toPendingOp(op, opClass, cq.state.handle, haveDetail ? &detail : nullptr));
  }
}

Expected<void> CommunicatorReader::readCollState(CommQueues& cq) {
  if (!fn_.getCommCollState) return {};
  for (std::size_t cls = 0; cls < ccs::proto::kCollClassCount; ++cls) {
    int count = 0;
    int active = 0;
    const int rc =
        s_.call(fn_.getCommCollState, s_.process(), static_cast<int>(cls), &count, &active);
    if (rc == mqs_no_information) continue;
    if (rc != mqs_ok) return fail(failure("mqs_get_comm_coll_state", cq, rc));
    cq.state.counts[cls] = count > 0 ? static_cast<std::uint64_t>(count) : 0;
    cq.state.active[cls] = active != 0;
    sawCollState_ = true;
  }
  return {};
}

}  // namespace

std::string formatQueuesMessage(std::string_view format, std::string_view image) {
  std::string out;
  bool substituted = false;
  for (std::size_t i = 0; i < format.size(); ++i) {
    const char c = format[i];
    const char next = i + 1 < format.size() ? format[i + 1] : '\0';
    if (c == '%' && next == '%') {
      out += '%';
      ++i;
    } else if (c == '%' && next == 's' && !substituted) {
      out += image;
      substituted = true;
      ++i;
    } else {
      out += c;
    }
  }
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

bool collectivesFromFrames(const RankQueues& q) {
  return q.source.ends_with(kCollectivesFromFrames);
}

Expected<RankQueues> readRankQueues(MqsHost& host, Target& target) {
  auto lock = host.lock();
  DebugLogScope logScope(host);
  const MqsFunctions& fn = host.functions();
  const std::string dll = host.fileName();

  RankQueues q;
  q.worldRank = target.worldRank;
  if (q.worldRank < 0) {
    if (auto rank = readWorldRank(target.memory, target.symbols)) {
      q.worldRank = *rank;
    } else {
      host.logDebug("world rank unknown: " + rank.error().message);
    }
  }
  q.source = target.source.empty() ? "mqs:" + dll : target.source;
  const std::string imageName =
      target.executable.empty() ? target.symbols.executable().object->path() : target.executable;
  DllSession s(host, target.symbols, target.memory, imageName, q.worldRank);

  auto hasQueues = [&](int rc, const char* message, std::string_view what) -> Expected<void> {
    if (rc == mqs_ok) {
      if (message) host.logDebug(formatQueuesMessage(message, imageName));
      return {};
    }
    std::string text = fmt::format("{}: no message queues in {}", dll, what);
    if (message) text += ": " + formatQueuesMessage(message, imageName);
    return fail(text + " [" + s.why(rc) + "]" + s.missingTypes());
  };

  if (int rc = s.call(fn.setupImage, s.image(), imageCallbacks()); rc != mqs_ok) {
    return fail(fmt::format("{}: mqs_setup_image failed for {}: {}", dll, imageName, s.why(rc)));
  }
  char* message = nullptr;
  int rc = s.call(fn.imageHasQueues, s.image(), &message);
  if (auto ok = hasQueues(rc, message, imageName); !ok) return std::unexpected(ok.error());

  if (rc = s.call(fn.setupProcess, s.process(), processCallbacks()); rc != mqs_ok) {
    return fail(fmt::format("{}: mqs_setup_process failed for {}: {}", dll,
                            target.memory.describe(), s.why(rc)));
  }
  message = nullptr;
  rc = s.call(fn.processHasQueues, s.process(), &message);
  if (auto ok = hasQueues(rc, message, target.memory.describe()); !ok) {
    return std::unexpected(ok.error());
  }

  rc = s.call(fn.updateCommunicatorList, s.process());
  if (rc != mqs_ok && rc != mqs_no_information) {
    return fail(fmt::format("{}: mqs_update_communicator_list failed: {}", dll, s.why(rc)));
  }
  CommunicatorReader comms(host, s, q.worldRank);
  rc = s.call(fn.setupCommunicatorIterator, s.process());
  for (int n = 0; rc == mqs_ok; ++n) {
    if (n >= kMaxCommunicators) {
      return fail(fmt::format("{}: more than {} communicators in {}", dll, kMaxCommunicators,
                              target.memory.describe()));
    }
    mqs_communicator c{};
    if (int got = s.call(fn.getCommunicator, s.process(), &c); got != mqs_ok) {
      return fail(fmt::format("{}: mqs_get_communicator failed: {}", dll, s.why(got)));
    }
    auto cq = comms.read(c);
    if (!cq) return std::unexpected(cq.error());
    q.comms.push_back(std::move(*cq));
    rc = s.call(fn.nextCommunicator, s.process());
  }
  if (rc != mqs_end_of_list) {
    return fail(fmt::format("{}: walking the communicators failed: {}", dll, s.why(rc)));
  }
  if (!comms.sawCollState()) q.source += kCollectivesFromFrames;

  if (fn.getCall) {
    mpidbg_mqs_call call{};
    if (s.call(fn.getCall, s.process(), &call) == mqs_ok) {
      q.phase = phaseOf(call.phase);
      if (std::string function = fixed(call.function); !function.empty()) {
        MpiCall m;
        m.function = std::move(function);
        m.peerRole = peerRoleOf(call.peer_role);
        m.peer = call.peer;
        m.hasTag = call.has_tag != 0;
        m.tag = call.tag;
        m.comm = call.comm;
        m.collCall = call.coll_call;
        m.seq = call.seq;
        for (const CommQueues& cq : q.comms) {
          if (cq.state.handle == call.comm) m.commName = cq.state.name;
        }
        q.call = std::move(m);
      }
      const std::size_t n = std::min<std::size_t>(
          static_cast<std::size_t>(std::max(call.request_count, 0)), kMaxWaitRequests);
      for (std::size_t i = 0; i < n; ++i) {
        if (call.requests[i] != 0 && call.requests[i] != kMpichRequestNull) {
          q.waitingOn.push_back(call.requests[i]);
        }
      }
    }
  }

  if (fn.setupCollHistory && fn.nextCollRecord &&
      s.call(fn.setupCollHistory, s.process()) == mqs_ok) {
    for (int n = 0; n < kMaxHistory; ++n) {
      mpidbg_mqs_coll_record record{};
      if (s.call(fn.nextCollRecord, s.process(), &record) != mqs_ok) break;
      q.history.push_back(
          CollRecord{record.comm, record.seq, fixed(record.function), record.root, record.count});
    }
  }
  return q;
}

std::optional<CollClass> inferCollectiveFromFrames(const std::vector<std::string>& frames) {
  static constexpr std::array<std::string_view, ccs::proto::kCollClassCount> kNames = {
      "barrier",        "bcast",  "allgather", "allgatherv", "allreduce", "alltoall", "alltoallv",
      "reduce_scatter", "reduce", "gather",    "gatherv",    "scan",      "scatter",  "scatterv"};
  for (const std::string& frame : frames) {
    std::string_view text = frame;
    // "#3  0x00007f... in MPI_Barrier (comm=...) at f.c:3" -> after " in ".
    if (text.starts_with("#")) {
      if (const auto in = text.find(" in "); in != std::string_view::npos) {
        text.remove_prefix(in + 4);
      }
    }
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) {
      text.remove_prefix(1);
    }
    text = text.substr(0, text.find_first_of(" (\t"));
    std::string name(text);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (name.starts_with("pmpi_")) {
      name.erase(0, 5);
    } else if (name.starts_with("mpi_")) {
      name.erase(0, 4);
    } else {
      continue;
    }
    while (name.ends_with("_")) name.pop_back();  // Fortran mpi_barrier_ / mpi_barrier__
    for (std::size_t i = 0; i < kNames.size(); ++i) {
      if (name == kNames[i]) return static_cast<CollClass>(i);
    }
  }
  return std::nullopt;
}

}  // namespace mpidbg::core::mqs
