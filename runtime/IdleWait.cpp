#include "IdleWait.hpp"

#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string_view>

namespace mpidbg::rt {

bool gIdleWait = false;

namespace {

/// Polls before the first sleep: a call that completes within a few
/// microseconds costs no sleep at all.
constexpr int kSpins = 64;
/// The first pause, doubled after each sleep up to kMaxPause.
constexpr long kFirstPauseNs = 20'000;
/// The longest pause of a short wait: the most a completed call waits to
/// be noticed.
constexpr long kMaxPauseNs = 500'000;
/// A call blocked for this long (in sleeps) is probably a hang or a wait on
/// a rank that is stopped: its pause may grow to kLongMaxPauseNs, leaving
/// the oversubscribed cores to the runtimes' helper threads (scale_bench:
/// 256 blocked ranks kept 1.8 of 2 cores busy with 0.5 ms pauses).
constexpr long kLongWaitNs = 1'000'000'000;
/// The longest pause of a long wait.
constexpr long kLongMaxPauseNs = 20'000'000;

/// Spins kSpins times, then sleeps with a growing pause.
class Backoff {
 public:
  void pause() noexcept {
    if (spins_ < kSpins) {
      ++spins_;
      return;
    }
    timespec ts{0, pauseNs_};
    ::nanosleep(&ts, nullptr);
    sleptNs_ += pauseNs_;
    pauseNs_ = std::min(pauseNs_ * 2, sleptNs_ >= kLongWaitNs ? kLongMaxPauseNs : kMaxPauseNs);
  }

 private:
  int spins_ = 0;
  long pauseNs_ = kFirstPauseNs;
  long long sleptNs_ = 0;
};

/// Completes the request a nonblocking call just posted (`rc` its result).
int completePosted(int rc, MPI_Request* request, MPI_Status* status) noexcept {
  if (rc != MPI_SUCCESS) return rc;
  return idle::wait(request, status);
}

}  // namespace

bool decideIdleWait() noexcept {
  const char* value = std::getenv("MPIDBG_IDLE_WAIT");
  const std::string_view mode = value && *value ? value : "auto";
  if (mode == "0" || mode == "off") return gIdleWait = false;
  if (mode == "1" || mode == "on") return gIdleWait = true;
  // auto: more ranks on some node than it has online CPUs.
  int nodeRanks = 1;
  MPI_Comm node = MPI_COMM_NULL;
  if (PMPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS &&
      node != MPI_COMM_NULL) {
    PMPI_Comm_size(node, &nodeRanks);
    PMPI_Comm_free(&node);
  }
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  int oversubscribed = cpus > 0 && nodeRanks > cpus ? 1 : 0;
  int anywhere = 0;
  if (PMPI_Allreduce(&oversubscribed, &anywhere, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD) != MPI_SUCCESS) anywhere = 0;
  return gIdleWait = anywhere != 0;
}

namespace idle {

int wait(MPI_Request* request, MPI_Status* status) noexcept {
  Backoff backoff;
  for (;;) {
    int done = 0;
    if (const int rc = PMPI_Test(request, &done, status); rc != MPI_SUCCESS || done) return rc;
    backoff.pause();
  }
}

int waitall(int count, MPI_Request requests[], MPI_Status statuses[]) noexcept {
  Backoff backoff;
  for (;;) {
    int done = 0;
    if (const int rc = PMPI_Testall(count, requests, &done, statuses); rc != MPI_SUCCESS || done) return rc;
    backoff.pause();
  }
}

int waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) noexcept {
  Backoff backoff;
  for (;;) {
    int done = 0;
    if (const int rc = PMPI_Testany(count, requests, index, &done, status); rc != MPI_SUCCESS || done) return rc;
    backoff.pause();
  }
}

int waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) noexcept {
  Backoff backoff;
  for (;;) {
    const int rc = PMPI_Testsome(incount, requests, outcount, indices, statuses);
    // MPI_UNDEFINED (no active request) ends MPI_Waitsome as well.
    if (rc != MPI_SUCCESS || *outcount != 0) return rc;
    backoff.pause();
  }
}

int probe(int source, int tag, MPI_Comm comm, MPI_Status* status) noexcept {
  Backoff backoff;
  for (;;) {
    int found = 0;
    if (const int rc = PMPI_Iprobe(source, tag, comm, &found, status); rc != MPI_SUCCESS || found) return rc;
    backoff.pause();
  }
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Isend(buf, count, type, dest, tag, comm, &request), &request, MPI_STATUS_IGNORE);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Issend(buf, count, type, dest, tag, comm, &request), &request, MPI_STATUS_IGNORE);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Irsend(buf, count, type, dest, tag, comm, &request), &request, MPI_STATUS_IGNORE);
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) noexcept {
  return PMPI_Bsend(buf, count, type, dest, tag, comm);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Irecv(buf, count, type, source, tag, comm, &request), &request, status);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status* status) noexcept {
#if MPI_VERSION >= 4
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Isendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                                       source, recvtag, comm, &request),
                        &request, status);
#else
  return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype, source, recvtag,
                       comm, status);
#endif
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source, int recvtag,
                         MPI_Comm comm, MPI_Status* status) noexcept {
#if MPI_VERSION >= 4
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Isendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, &request), &request, status);
#else
  return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status);
#endif
}

int MPI_Barrier(MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Ibarrier(comm, &request), &request, MPI_STATUS_IGNORE);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Ibcast(buffer, count, type, root, comm, &request), &request, MPI_STATUS_IGNORE);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Iallgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &request), &request,
      MPI_STATUS_IGNORE);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                   const int displs[], MPI_Datatype recvtype, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Iallgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, &request),
      &request, MPI_STATUS_IGNORE);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Iallreduce(sendbuf, recvbuf, count, type, op, comm, &request), &request,
                        MPI_STATUS_IGNORE);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Ialltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, &request), &request,
      MPI_STATUS_IGNORE);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Ialltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                                        recvtype, comm, &request),
                        &request, MPI_STATUS_IGNORE);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Ireduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm, &request), &request,
                        MPI_STATUS_IGNORE);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Ireduce(sendbuf, recvbuf, count, type, op, root, comm, &request), &request,
                        MPI_STATUS_IGNORE);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Igather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &request), &request,
      MPI_STATUS_IGNORE);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[],
                const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Igatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, &request),
      &request, MPI_STATUS_IGNORE);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(PMPI_Iscan(sendbuf, recvbuf, count, type, op, comm, &request), &request,
                        MPI_STATUS_IGNORE);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Iscatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, &request), &request,
      MPI_STATUS_IGNORE);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) noexcept {
  MPI_Request request = MPI_REQUEST_NULL;
  return completePosted(
      PMPI_Iscatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, &request),
      &request, MPI_STATUS_IGNORE);
}

}  // namespace idle

}  // namespace mpidbg::rt
