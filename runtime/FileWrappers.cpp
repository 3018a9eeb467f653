// Collective MPI-IO. MPI_File_open is a collective on its communicator, and
// so is every collective call on the file it makes: each is counted there
// like a communicator constructor (collSeq and a history record, no class:
// CallScope::commConstructor), so a rank in MPI_File_write_all waits, in the
// verdict, for the members of that communicator not yet at the same call,
// and a rank that skips one shows in the collective sequences. The file's
// communicator is remembered from MPI_File_open to MPI_File_close (a file
// opened before the runtime attached counts nothing). The nonblocking
// collective forms (MPI_File_iwrite_all, ...) count there at issue too, and
// their requests are recorded as collective operations in no class
// (RequestTracking.hpp recordCollective), as MPI_Iallreduce's are in its
// class: an MPI_Wait on one waits for the members not yet at that
// collective. The split collectives' _end calls and MPI_File_delete (not
// collective) are only published.
// MPI-4's large-count forms (MPI_File_write_all_c, ...; ROMIO in MPICH 4,
// not Open MPI 4.1) as their int forms.
#include <mpi.h>

#include <mutex>
#include <unordered_map>

#include "RequestTracking.hpp"

using mpidbg::rt::CallScope;
using mpidbg::rt::MpiFunction;

namespace {

std::uint64_t fileKey(MPI_File fh) noexcept { return mpidbg::rt::handleKey(fh); }

/// The communicator each open file was opened on, by file handle.
class OpenFiles {
 public:
  void add(MPI_File fh, MPI_Comm comm) noexcept {
    try {
      std::lock_guard lock(mutex_);
      comms_[fileKey(fh)] = comm;
    } catch (...) {
      // Out of memory: this file's collectives count nothing.
    }
  }
  void remove(std::uint64_t key) noexcept {
    std::lock_guard lock(mutex_);
    comms_.erase(key);
  }
  /// The file's communicator, or MPI_COMM_NULL when unknown.
  MPI_Comm commOf(MPI_File fh) noexcept {
    std::lock_guard lock(mutex_);
    const auto it = comms_.find(fileKey(fh));
    return it == comms_.end() ? MPI_COMM_NULL : it->second;
  }

 private:
  std::mutex mutex_;
  std::unordered_map<std::uint64_t, MPI_Comm> comms_;
};

OpenFiles& openFiles() noexcept {
  static OpenFiles* const files = new OpenFiles();  // never destroyed: files may close during exit
  return *files;
}

/// A collective on `fh`'s communicator (see the file's comment).
CallScope collectiveOn(MpiFunction function, MPI_File fh) noexcept {
  return CallScope::commConstructor(function, openFiles().commOf(fh));
}

/// The nonblocking collective `function` on `fh`'s communicator, of `count`
/// elements of `datatype` at `buffer`: counted at issue (collSeq, history),
/// runs `issue` (the PMPI call) and records the request it made.
template <typename Issue>
int nonblockingOn(MpiFunction function, MPI_File fh, int count, MPI_Datatype datatype, const void* buffer,
                  MPI_Request* request, Issue issue) {
  const MPI_Comm comm = openFiles().commOf(fh);
  CallScope::Issued issued;
  auto scope = CallScope::issueInNoClass(function, comm, count, issued);
  const int rc = issue();
  if (scope.outermost())
    mpidbg::rt::recordCollective(*scope.runtime(), function, std::nullopt, issued, comm, -1, count, datatype, buffer,
                                 rc == MPI_SUCCESS && request ? *request : MPI_REQUEST_NULL);
  return rc;
}

/// A call on `fh` that is only published, with its communicator.
CallScope seenOn(MpiFunction function, MPI_File fh) noexcept {
  return CallScope(function, openFiles().commOf(fh));
}

}  // namespace

MPIDBG_EXPORT int MPI_File_open(MPI_Comm comm, const char* filename, int amode, MPI_Info info, MPI_File* fh) {
  auto scope = CallScope::commConstructor(MpiFunction::FileOpen, comm);
  const int rc = PMPI_File_open(comm, filename, amode, info, fh);
  if (rc == MPI_SUCCESS && fh && scope.outermost()) openFiles().add(*fh, comm);
  return rc;
}

MPIDBG_EXPORT int MPI_File_close(MPI_File* fh) {
  const std::uint64_t key = fh ? fileKey(*fh) : 0;
  auto scope = CallScope::commConstructor(MpiFunction::FileClose, fh ? openFiles().commOf(*fh) : MPI_COMM_NULL);
  const int rc = PMPI_File_close(fh);
  if (rc == MPI_SUCCESS && key != 0) openFiles().remove(key);
  return rc;
}

MPIDBG_EXPORT int MPI_File_delete(const char* filename, MPI_Info info) {
  CallScope scope(MpiFunction::FileDelete, MPI_COMM_NULL);
  return PMPI_File_delete(filename, info);
}

MPIDBG_EXPORT int MPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                                    const char* datarep, MPI_Info info) {
  auto scope = collectiveOn(MpiFunction::FileSetView, fh);
  return PMPI_File_set_view(fh, disp, etype, filetype, datarep, info);
}

MPIDBG_EXPORT int MPI_File_set_size(MPI_File fh, MPI_Offset size) {
  auto scope = collectiveOn(MpiFunction::FileSetSize, fh);
  return PMPI_File_set_size(fh, size);
}

MPIDBG_EXPORT int MPI_File_preallocate(MPI_File fh, MPI_Offset size) {
  auto scope = collectiveOn(MpiFunction::FilePreallocate, fh);
  return PMPI_File_preallocate(fh, size);
}

MPIDBG_EXPORT int MPI_File_sync(MPI_File fh) {
  auto scope = collectiveOn(MpiFunction::FileSync, fh);
  return PMPI_File_sync(fh);
}

MPIDBG_EXPORT int MPI_File_read_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileReadAll, fh);
  return PMPI_File_read_all(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_write_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                     MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileWriteAll, fh);
  return PMPI_File_write_all(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                       MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileReadAtAll, fh);
  return PMPI_File_read_at_all(fh, offset, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                        MPI_Datatype datatype, MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileWriteAtAll, fh);
  return PMPI_File_write_at_all(fh, offset, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_read_ordered(MPI_File fh, void* buf, int count, MPI_Datatype datatype,
                                        MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileReadOrdered, fh);
  return PMPI_File_read_ordered(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_write_ordered(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                         MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileWriteOrdered, fh);
  return PMPI_File_write_ordered(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_read_all_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileReadAllBegin, fh);
  return PMPI_File_read_all_begin(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_write_all_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileWriteAllBegin, fh);
  return PMPI_File_write_all_begin(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void* buf, int count,
                                             MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileReadAtAllBegin, fh);
  return PMPI_File_read_at_all_begin(fh, offset, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                              MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileWriteAtAllBegin, fh);
  return PMPI_File_write_at_all_begin(fh, offset, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_read_ordered_begin(MPI_File fh, void* buf, int count, MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileReadOrderedBegin, fh);
  return PMPI_File_read_ordered_begin(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_write_ordered_begin(MPI_File fh, const void* buf, int count, MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileWriteOrderedBegin, fh);
  return PMPI_File_write_ordered_begin(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_read_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  auto scope = seenOn(MpiFunction::FileReadAllEnd, fh);
  return PMPI_File_read_all_end(fh, buf, status);
}

MPIDBG_EXPORT int MPI_File_write_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  auto scope = seenOn(MpiFunction::FileWriteAllEnd, fh);
  return PMPI_File_write_all_end(fh, buf, status);
}

MPIDBG_EXPORT int MPI_File_read_at_all_end(MPI_File fh, void* buf, MPI_Status* status) {
  auto scope = seenOn(MpiFunction::FileReadAtAllEnd, fh);
  return PMPI_File_read_at_all_end(fh, buf, status);
}

MPIDBG_EXPORT int MPI_File_write_at_all_end(MPI_File fh, const void* buf, MPI_Status* status) {
  auto scope = seenOn(MpiFunction::FileWriteAtAllEnd, fh);
  return PMPI_File_write_at_all_end(fh, buf, status);
}

MPIDBG_EXPORT int MPI_File_read_ordered_end(MPI_File fh, void* buf, MPI_Status* status) {
  auto scope = seenOn(MpiFunction::FileReadOrderedEnd, fh);
  return PMPI_File_read_ordered_end(fh, buf, status);
}

MPIDBG_EXPORT int MPI_File_write_ordered_end(MPI_File fh, const void* buf, MPI_Status* status) {
  auto scope = seenOn(MpiFunction::FileWriteOrderedEnd, fh);
  return PMPI_File_write_ordered_end(fh, buf, status);
}

MPIDBG_EXPORT int MPI_File_iread_all(MPI_File fh, void* buf, int count, MPI_Datatype datatype, MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIreadAll, fh, count, datatype, buf, request,
                       [&] { return PMPI_File_iread_all(fh, buf, count, datatype, request); });
}

MPIDBG_EXPORT int MPI_File_iwrite_all(MPI_File fh, const void* buf, int count, MPI_Datatype datatype,
                                      MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIwriteAll, fh, count, datatype, buf, request,
                       [&] { return PMPI_File_iwrite_all(fh, buf, count, datatype, request); });
}

MPIDBG_EXPORT int MPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void* buf, int count, MPI_Datatype datatype,
                                        MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIreadAtAll, fh, count, datatype, buf, request,
                       [&] { return PMPI_File_iread_at_all(fh, offset, buf, count, datatype, request); });
}

MPIDBG_EXPORT int MPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void* buf, int count,
                                         MPI_Datatype datatype, MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIwriteAtAll, fh, count, datatype, buf, request,
                       [&] { return PMPI_File_iwrite_at_all(fh, offset, buf, count, datatype, request); });
}

#if MPI_VERSION >= 4
// The large-count forms: counted and published as their int forms; the count
// a condition sees (nonblocking forms) is -1 past INT_MAX.
using mpidbg::rt::smallCount;

MPIDBG_EXPORT int MPI_File_read_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                      MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileReadAllC, fh);
  return PMPI_File_read_all_c(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_write_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                       MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileWriteAllC, fh);
  return PMPI_File_write_all_c(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_read_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                         MPI_Datatype datatype, MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileReadAtAllC, fh);
  return PMPI_File_read_at_all_c(fh, offset, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_write_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                          MPI_Datatype datatype, MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileWriteAtAllC, fh);
  return PMPI_File_write_at_all_c(fh, offset, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_read_ordered_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                          MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileReadOrderedC, fh);
  return PMPI_File_read_ordered_c(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_write_ordered_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                           MPI_Status* status) {
  auto scope = collectiveOn(MpiFunction::FileWriteOrderedC, fh);
  return PMPI_File_write_ordered_c(fh, buf, count, datatype, status);
}

MPIDBG_EXPORT int MPI_File_read_all_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileReadAllBeginC, fh);
  return PMPI_File_read_all_begin_c(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_write_all_begin_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileWriteAllBeginC, fh);
  return PMPI_File_write_all_begin_c(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_read_at_all_begin_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                               MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileReadAtAllBeginC, fh);
  return PMPI_File_read_at_all_begin_c(fh, offset, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_write_at_all_begin_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                                MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileWriteAtAllBeginC, fh);
  return PMPI_File_write_at_all_begin_c(fh, offset, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_read_ordered_begin_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileReadOrderedBeginC, fh);
  return PMPI_File_read_ordered_begin_c(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_write_ordered_begin_c(MPI_File fh, const void* buf, MPI_Count count,
                                                 MPI_Datatype datatype) {
  auto scope = collectiveOn(MpiFunction::FileWriteOrderedBeginC, fh);
  return PMPI_File_write_ordered_begin_c(fh, buf, count, datatype);
}

MPIDBG_EXPORT int MPI_File_iread_all_c(MPI_File fh, void* buf, MPI_Count count, MPI_Datatype datatype,
                                       MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIreadAllC, fh, smallCount(count), datatype, buf, request,
                       [&] { return PMPI_File_iread_all_c(fh, buf, count, datatype, request); });
}

MPIDBG_EXPORT int MPI_File_iwrite_all_c(MPI_File fh, const void* buf, MPI_Count count, MPI_Datatype datatype,
                                        MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIwriteAllC, fh, smallCount(count), datatype, buf, request,
                       [&] { return PMPI_File_iwrite_all_c(fh, buf, count, datatype, request); });
}

MPIDBG_EXPORT int MPI_File_iread_at_all_c(MPI_File fh, MPI_Offset offset, void* buf, MPI_Count count,
                                          MPI_Datatype datatype, MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIreadAtAllC, fh, smallCount(count), datatype, buf, request,
                       [&] { return PMPI_File_iread_at_all_c(fh, offset, buf, count, datatype, request); });
}

MPIDBG_EXPORT int MPI_File_iwrite_at_all_c(MPI_File fh, MPI_Offset offset, const void* buf, MPI_Count count,
                                           MPI_Datatype datatype, MPI_Request* request) {
  return nonblockingOn(MpiFunction::FileIwriteAtAllC, fh, smallCount(count), datatype, buf, request,
                       [&] { return PMPI_File_iwrite_at_all_c(fh, offset, buf, count, datatype, request); });
}
#endif
