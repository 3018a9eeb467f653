// The deciding paths of the wrappers (Record.hpp decided::): each asks the
// replay cursor (RecordState.hpp nextDecision, irecvMatch) what to decide
// and records what it decided (recordDecision).
#include <cinttypes>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "CommRegistry.hpp"
#include "RecordState.hpp"
#include "Runtime.hpp"

namespace mpidbg::rt {

namespace {

using record::Decision;
using record::DecisionKind;
using rec::Completions;
using rec::diverge;
using rec::irecvMatch;
using rec::match;
using rec::nextDecision;
using rec::recordDecision;
using rec::recording;
using rec::replaying;

/// The name of `comm` for a report: its registry name when attached, else
/// its handle.
std::string commText(MPI_Comm comm) {
  if (comm == MPI_COMM_WORLD) return "MPI_COMM_WORLD";
  if (Runtime* rt = Runtime::attached()) return rt->comms().nameOf(commKey(comm));
  char text[32];
  std::snprintf(text, sizeof text, "0x%" PRIx64, commKey(comm));
  return text;
}

std::string peerText(int rank) { return rank == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : std::to_string(rank); }
std::string tagText(int tag) { return tag == MPI_ANY_TAG ? "MPI_ANY_TAG" : std::to_string(tag); }

std::string receiveCall(std::string_view function, int source, int tag, MPI_Comm comm) {
  return std::string(function) + "(source=" + peerText(source) + ", tag=" + tagText(tag) + ", comm=" + commText(comm) +
         ")";
}

std::string requestsCall(std::string_view function, int count) {
  return std::string(function) + "(count=" + std::to_string(count) + ")";
}

bool isWildcard(int source, int tag) noexcept { return source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG; }

/// The wildcard arguments replaced by a recorded match; false (and a
/// divergence) when a given argument disagrees with the record.
bool applyMatch(const Decision& d, int& source, int& tag, const std::string& call) noexcept {
  if ((source != MPI_ANY_SOURCE && source != d.source) || (tag != MPI_ANY_TAG && tag != d.tag)) {
    diverge(call, "the record holds " + record::describe(d) + ", which this call cannot match");
    return false;
  }
  source = d.source;
  tag = d.tag;
  return true;
}

/// Replay: the recorded index `index` of `requests` must name an active
/// request; diverges (false) otherwise.
bool checkIndex(const MPI_Request* requests, int count, std::int64_t index, const Decision& d,
                const std::string& call) noexcept {
  if (index >= 0 && index < count && requests[index] != MPI_REQUEST_NULL) return true;
  diverge(call, "the record holds " + record::describe(d) + ", but that request is " +
                    (index >= 0 && index < count ? std::string("MPI_REQUEST_NULL") : std::string("out of range")));
  return false;
}

/// `count` null requests: a replayed MPI_Test* or MPI_Waitsome calls its
/// plain body on them first, so that its safe point (breakpoints, freeze,
/// step) and call count are the same as in the recorded run; MPI answers at
/// once. Falls back to none (count 0) when out of memory.
struct NullRequests {
  explicit NullRequests(int count) {
    try {
      requests.assign(static_cast<std::size_t>(count > 0 ? count : 0), MPI_REQUEST_NULL);
    } catch (...) {
    }
  }
  int count() const noexcept { return static_cast<int>(requests.size()); }
  MPI_Request* data() noexcept { return requests.empty() ? &none : requests.data(); }
  std::vector<MPI_Request> requests;
  MPI_Request none = MPI_REQUEST_NULL;
};

bool allNull(const MPI_Request* requests, int count) noexcept {
  for (int i = 0; i < count; ++i)
    if (requests[i] != MPI_REQUEST_NULL) return false;
  return true;
}

MPI_Status* statusAt(MPI_Status* statuses, int k) noexcept {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k];
}

}  // namespace

namespace decided {

namespace {

/// A blocking receive's decision (MPI_Recv, MPI_Recv_c): `receive(source,
/// tag, status)` is the wrapper's plain receive with the other arguments.
template <typename Receive>
int decidedReceive(const char* function, int source, int tag, MPI_Comm comm, MPI_Status* status,
                   Receive receive) noexcept {
  if (!isWildcard(source, tag)) return receive(source, tag, status);
  if (replaying()) {
    const std::string call = receiveCall(function, source, tag, comm);
    if (auto d = nextDecision(DecisionKind::RecvMatch, call)) applyMatch(*d, source, tag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = receive(source, tag, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::RecvMatch, *st));
  return rc;
}

}  // namespace

int recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status,
         RecvFn plain) noexcept {
  return decidedReceive("MPI_Recv", source, tag, comm, status, [&](int s, int t, MPI_Status* st) {
    return plain(buf, count, datatype, s, t, comm, st);
  });
}

#if MPI_VERSION >= 4
int recvC(void* buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status,
          RecvCFn plain) noexcept {
  return decidedReceive("MPI_Recv_c", source, tag, comm, status, [&](int s, int t, MPI_Status* st) {
    return plain(buf, count, datatype, s, t, comm, st);
  });
}
#endif

int sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status,
             SendrecvFn plain) noexcept {
  if (!isWildcard(source, recvtag))
    return plain(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm,
                 status);
  if (replaying()) {
    const std::string call = receiveCall("MPI_Sendrecv", source, recvtag, comm);
    if (auto d = nextDecision(DecisionKind::RecvMatch, call)) applyMatch(*d, source, recvtag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc =
      plain(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::RecvMatch, *st));
  return rc;
}

int sendrecvReplace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag,
                    MPI_Comm comm, MPI_Status* status, SendrecvReplaceFn plain) noexcept {
  if (!isWildcard(source, recvtag)) return plain(buf, count, datatype, dest, sendtag, source, recvtag, comm, status);
  if (replaying()) {
    const std::string call = receiveCall("MPI_Sendrecv_replace", source, recvtag, comm);
    if (auto d = nextDecision(DecisionKind::RecvMatch, call)) applyMatch(*d, source, recvtag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = plain(buf, count, datatype, dest, sendtag, source, recvtag, comm, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::RecvMatch, *st));
  return rc;
}

int probe(int source, int tag, MPI_Comm comm, MPI_Status* status, ProbeFn plain) noexcept {
  if (!isWildcard(source, tag)) return plain(source, tag, comm, status);
  if (replaying()) {
    const std::string call = receiveCall("MPI_Probe", source, tag, comm);
    if (auto d = nextDecision(DecisionKind::ProbeMatch, call)) applyMatch(*d, source, tag, call);
  }
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = plain(source, tag, comm, st);
  if (rc == MPI_SUCCESS && recording()) recordDecision(match(DecisionKind::ProbeMatch, *st));
  return rc;
}

int iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status, IprobeFn plain) noexcept {
  const bool wildcard = isWildcard(source, tag);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  int rc = MPI_SUCCESS;
  bool decided = false;
  if (replaying()) {
    const std::string call = receiveCall("MPI_Iprobe", source, tag, comm);
    if (auto d = nextDecision(DecisionKind::Iprobe, call)) {
      decided = true;
      if (!d->flag) {
        // The recorded probe found nothing: probe anyway (MPI makes progress
        // inside), and answer no.
        rc = plain(source, tag, comm, flag, st);
        if (flag) *flag = 0;
      } else if (!d->matched || applyMatch(*d, source, tag, call)) {
        // The recorded probe found a message: wait until it is there.
        rc = MPI_Probe(source, tag, comm, st);
        if (flag) *flag = 1;
      } else {
        rc = plain(source, tag, comm, flag, st);
      }
    }
  }
  if (!decided) rc = plain(source, tag, comm, flag, st);
  if (rc == MPI_SUCCESS && recording() && flag) {
    Decision d;
    d.kind = DecisionKind::Iprobe;
    d.flag = *flag != 0;
    if (d.flag && wildcard) {
      d.matched = true;
      d.source = st->MPI_SOURCE;
      d.tag = st->MPI_TAG;
    }
    recordDecision(d);
  }
  return rc;
}

int irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request* request,
          IrecvFn plain) noexcept {
  if (!isWildcard(source, tag)) return plain(buf, count, datatype, source, tag, comm, request);
  const std::int64_t ordinal = rec::nextIrecvOrdinal();
  if (replaying()) {
    const std::string call = receiveCall("MPI_Irecv", source, tag, comm);
    if (auto d = irecvMatch(ordinal)) applyMatch(*d, source, tag, call);
  }
  const int rc = plain(buf, count, datatype, source, tag, comm, request);
  if (rc == MPI_SUCCESS && request && *request != MPI_REQUEST_NULL && recording()) rec::irecvPosted(*request, ordinal);
  return rc;
}

int wait(MPI_Request* request, MPI_Status* status, WaitFn plain) noexcept {
  Completions done(request, 1, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(request, st);
  if (rc == MPI_SUCCESS) done.completed(0, 0);
  return rc;
}

int waitall(int count, MPI_Request* requests, MPI_Status* statuses, WaitallFn plain) noexcept {
  Completions done(requests, count, statuses, count);
  MPI_Status* st = done.statuses(statuses);
  const int rc = plain(count, requests, st);
  if (rc == MPI_SUCCESS)
    for (int i = 0; i < count; ++i) done.completed(i, i);
  return rc;
}

int waitany(int count, MPI_Request* requests, int* index, MPI_Status* status, WaitanyFn plain) noexcept {
  if (replaying()) {
    const std::string call = requestsCall("MPI_Waitany", count);
    if (auto d = nextDecision(DecisionKind::Waitany, call)) {
      if (d->index >= 0 && checkIndex(requests, count, d->index, *d, call)) {
        // MPI_Waitany itself (its safe point, its request tracking) over the
        // recorded request alone.
        const int i = static_cast<int>(d->index);
        std::vector<MPI_Request> masked;
        try {
          masked.assign(static_cast<std::size_t>(count), MPI_REQUEST_NULL);
        } catch (...) {
          return MPI_Wait(&requests[i], status);
        }
        masked[static_cast<std::size_t>(i)] = requests[i];
        Completions done(masked.data(), count, status, 1);
        int got = MPI_UNDEFINED;
        const int rc = plain(count, masked.data(), &got, done.statuses(status));
        requests[i] = masked[static_cast<std::size_t>(i)];
        if (rc == MPI_SUCCESS) {
          done.completed(got, 0);
          if (index) *index = got;
          if (recording()) recordDecision(*d);
        }
        return rc;
      }
      if (d->index < 0 && !allNull(requests, count))
        diverge(call, "the record holds " + record::describe(*d) + ", but a request is active");
    }
  }
  Completions done(requests, count, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(count, requests, index, st);
  if (rc == MPI_SUCCESS && index) {
    done.completed(*index, 0);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Waitany;
      d.index = *index == MPI_UNDEFINED ? -1 : *index;
      recordDecision(d);
    }
  }
  return rc;
}

namespace {

/// Replays Waitsome/Testsome `d`: waits for each recorded index in order.
/// Returns true with `rc` set when it did; false when the call must run as
/// the program asked (replay off or diverged).
bool replaySome(const Decision& d, int count, MPI_Request* requests, int* outcount, int* indices,
                MPI_Status* statuses, const std::string& call, int& rc) noexcept {
  if (d.someUndefined) {
    if (!allNull(requests, count)) {
      diverge(call, "the record holds " + record::describe(d) + ", but a request is active");
      return false;
    }
    if (outcount) *outcount = MPI_UNDEFINED;
    rc = MPI_SUCCESS;
    return true;
  }
  for (std::int32_t i : d.indices)
    if (!checkIndex(requests, count, i, d, call)) return false;
  rc = MPI_SUCCESS;
  int k = 0;
  for (std::int32_t i : d.indices) {
    rc = MPI_Wait(&requests[i], statusAt(statuses, k));
    if (rc != MPI_SUCCESS) break;
    if (indices) indices[k] = i;
    ++k;
  }
  if (outcount) *outcount = k;
  if (rc == MPI_SUCCESS && recording()) recordDecision(d);
  return true;
}

Decision someDecision(DecisionKind kind, const int* outcount, const int* indices) {
  Decision d;
  d.kind = kind;
  if (*outcount == MPI_UNDEFINED) {
    d.someUndefined = true;
  } else {
    for (int k = 0; k < *outcount; ++k) d.indices.push_back(indices[k]);
  }
  return d;
}

}  // namespace

namespace {

/// MPI_Waitsome and MPI_Testsome (the same signature): replays the recorded
/// index list (after passing the call's safe point on null requests), or
/// runs `plain` and records what it completed.
int some(DecisionKind kind, int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
         WaitsomeFn plain) noexcept {
  if (replaying()) {
    const std::string call = requestsCall(record::functionOf(kind), count);
    if (auto d = nextDecision(kind, call)) {
      NullRequests nulls(count);
      int out = 0;
      plain(nulls.count(), nulls.data(), &out, indices, MPI_STATUSES_IGNORE);
      int rc = MPI_SUCCESS;
      if (kind == DecisionKind::Waitsome && !d->someUndefined && d->indices.empty())
        diverge(call, "the record holds MPI_Waitsome with no index");
      else if (replaySome(*d, count, requests, outcount, indices, statuses, call, rc))
        return rc;
    }
  }
  Completions done(requests, count, statuses, count);
  MPI_Status* st = done.statuses(statuses);
  const int rc = plain(count, requests, outcount, indices, st);
  if (rc == MPI_SUCCESS && outcount && indices) {
    if (*outcount != MPI_UNDEFINED)
      for (int k = 0; k < *outcount; ++k) done.completed(indices[k], k);
    if (recording()) {
      try {
        recordDecision(someDecision(kind, outcount, indices));
      } catch (...) {
        // Out of memory: this decision goes unrecorded; replay reports where.
      }
    }
  }
  return rc;
}

}  // namespace

int waitsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
             WaitsomeFn plain) noexcept {
  return some(DecisionKind::Waitsome, count, requests, outcount, indices, statuses, plain);
}

int test(MPI_Request* request, int* flag, MPI_Status* status, TestFn plain) noexcept {
  if (replaying()) {
    if (auto d = nextDecision(DecisionKind::Test, requestsCall("MPI_Test", 1))) {
      int rc = MPI_SUCCESS;
      int done = 0;
      if (d->flag) {
        // Completed in the recorded run: it will here (MPI_Wait when the
        // test itself does not find it complete).
        Completions completion(request, 1, status, 1);
        rc = plain(request, &done, completion.statuses(status));
        if (rc == MPI_SUCCESS && done) completion.completed(0, 0);
        if (rc == MPI_SUCCESS && !done) rc = MPI_Wait(request, status);
      } else {
        // Not completed then: not now either (the test runs on a null
        // request for its safe point).
        MPI_Request none = MPI_REQUEST_NULL;
        plain(&none, &done, MPI_STATUS_IGNORE);
      }
      if (flag) *flag = d->flag ? 1 : 0;
      if (rc == MPI_SUCCESS && recording()) recordDecision(*d);
      return rc;
    }
  }
  Completions done(request, 1, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(request, flag, st);
  if (rc == MPI_SUCCESS && flag) {
    if (*flag) done.completed(0, 0);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Test;
      d.flag = *flag != 0;
      recordDecision(d);
    }
  }
  return rc;
}

int testall(int count, MPI_Request* requests, int* flag, MPI_Status* statuses, TestallFn plain) noexcept {
  if (replaying()) {
    if (auto d = nextDecision(DecisionKind::Testall, requestsCall("MPI_Testall", count))) {
      int rc = MPI_SUCCESS;
      NullRequests nulls(count);
      int done = 0;
      plain(nulls.count(), nulls.data(), &done, MPI_STATUSES_IGNORE);  // the safe point
      if (d->flag) rc = MPI_Waitall(count, requests, statuses);
      if (flag) *flag = d->flag ? 1 : 0;
      if (rc == MPI_SUCCESS && recording()) recordDecision(*d);
      return rc;
    }
  }
  Completions done(requests, count, statuses, count);
  MPI_Status* st = done.statuses(statuses);
  const int rc = plain(count, requests, flag, st);
  if (rc == MPI_SUCCESS && flag) {
    if (*flag)
      for (int i = 0; i < count; ++i) done.completed(i, i);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Testall;
      d.flag = *flag != 0;
      recordDecision(d);
    }
  }
  return rc;
}

int testany(int count, MPI_Request* requests, int* index, int* flag, MPI_Status* status, TestanyFn plain) noexcept {
  if (replaying()) {
    const std::string call = requestsCall("MPI_Testany", count);
    if (auto d = nextDecision(DecisionKind::Testany, call)) {
      {
        NullRequests nulls(count);
        int i = MPI_UNDEFINED, done = 0;
        plain(nulls.count(), nulls.data(), &i, &done, MPI_STATUS_IGNORE);  // the safe point
      }
      if (!d->flag) {
        if (flag) *flag = 0;
        if (index) *index = MPI_UNDEFINED;
        if (recording()) recordDecision(*d);
        return MPI_SUCCESS;
      }
      if (d->index >= 0 && checkIndex(requests, count, d->index, *d, call)) {
        const int i = static_cast<int>(d->index);
        const int rc = MPI_Wait(&requests[i], status);
        if (rc == MPI_SUCCESS) {
          if (index) *index = i;
          if (flag) *flag = 1;
          if (recording()) recordDecision(*d);
        }
        return rc;
      }
      if (d->index < 0 && !allNull(requests, count))
        diverge(call, "the record holds " + record::describe(*d) + ", but a request is active");
    }
  }
  Completions done(requests, count, status, 1);
  MPI_Status* st = done.statuses(status);
  const int rc = plain(count, requests, index, flag, st);
  if (rc == MPI_SUCCESS && flag && index) {
    if (*flag) done.completed(*index, 0);
    if (recording()) {
      Decision d;
      d.kind = DecisionKind::Testany;
      d.flag = *flag != 0;
      d.index = *flag && *index != MPI_UNDEFINED ? *index : -1;
      recordDecision(d);
    }
  }
  return rc;
}

int testsome(int count, MPI_Request* requests, int* outcount, int* indices, MPI_Status* statuses,
             TestsomeFn plain) noexcept {
  return some(DecisionKind::Testsome, count, requests, outcount, indices, statuses, plain);
}

}  // namespace decided

}  // namespace mpidbg::rt
