/* mpidbg's own extensions to the message-queue DLL interface.
 *
 * Optional functions a host looks up with dlsym after loading a DLL; a DLL
 * without them (Open MPI's, MPICH's) still gives communicators, queues and,
 * where it has mqs_get_comm_coll_state, collective counts. libmpidbg-mqs.so
 * implements all of them over the runtime's exported state
 * (common/include/mpidbg/StateLayout.h). Return codes are the interface's
 * (mqs_ok, mqs_no_information, mqs_end_of_list) or the DLL's own (>= 100,
 * explained by mqs_dll_error_string).
 */
#ifndef MPIDBG_MQS_H
#define MPIDBG_MQS_H

#include "mpi_interface.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The call a process is inside and where it is in MPI's life. */
struct mpidbg_mqs_call {
  int phase;            /**< enum mpidbg_phase of StateLayout.h */
  char function[32];    /**< "MPI_Recv", ...; "" when not inside a call */
  int peer_role;        /**< 0 none, 1 source, 2 dest, 3 root */
  int peer;             /**< rank in comm; -1 any source, -2 MPI_PROC_NULL */
  int has_tag;
  int tag;              /**< -1 any tag */
  mqs_taddr_t comm;     /**< communicator handle value; 0 for none */
  mqs_taddr_t coll_call; /**< per-class call number of a collective; 0 otherwise */
  mqs_taddr_t seq;      /**< the process's intercepted-call count at entry */
  int request_count;    /**< entries of `requests` filled: the MPI_Wait* array's
                             length, clamped to 64 */
  mqs_taddr_t requests[64]; /**< their handle values (MPI_Request zero-extended) */
};

/** Fills `call` for `process`: mqs_ok (function "" when the process is not
 *  inside an MPI call), mqs_no_information when the process has no (attached)
 *  runtime, or a DLL error code (the record kept changing, memory unreadable). */
typedef int (*mpidbg_mqs_get_call_t)(mqs_process *process, struct mpidbg_mqs_call *call);
int mpidbg_mqs_get_call(mqs_process *process, struct mpidbg_mqs_call *call);

/** Details of the operation the last mqs_next_operation returned (the
 *  standard mqs_pending_operation has no room for them). */
struct mpidbg_mqs_op_detail {
  char function[32];    /**< "MPI_Isend", "MPI_Recv" (blocking), "MPI_Iallreduce", ... */
  int blocking;         /**< the blocking call the process is inside */
  unsigned flags;       /**< enum mpidbg_op_flags of StateLayout.h */
  mqs_taddr_t request;  /**< MPI_Request handle value; 0 for a blocking call */
  int coll_class;       /**< mqs_comm_class of a collective; -1 for point to point */
  mqs_taddr_t coll_call;
  mqs_taddr_t coll_seq;
  long count;           /**< elements; -1 unknown */
};
/** Fills `detail` for the operation mqs_next_operation returned last: mqs_ok,
 *  or mqs_no_information when that call returned no operation (or none was
 *  made since mqs_setup_operation_iterator). */
typedef int (*mpidbg_mqs_last_operation_detail_t)(mqs_process *process, struct mpidbg_mqs_op_detail *detail);
int mpidbg_mqs_last_operation_detail(mqs_process *process, struct mpidbg_mqs_op_detail *detail);

/** Operation class for mqs_setup_operation_iterator, beyond the standard
 *  three: the current communicator's pending nonblocking collectives (each
 *  reported as an mqs_pending_operation with desired_local_rank = root or
 *  -1, and details through mpidbg_mqs_last_operation_detail). */
#define MPIDBG_MQS_PENDING_COLLECTIVES 3

/** The current communicator's collective sequence number (calls of all
 *  classes issued on it). */
typedef int (*mpidbg_mqs_get_comm_coll_seq_t)(mqs_process *process, mqs_taddr_t *seq);
int mpidbg_mqs_get_comm_coll_seq(mqs_process *process, mqs_taddr_t *seq);

/** The current communicator's identity across the job (StateLayout.h
 *  "comm".uid: the same in every member process, where handles may differ).
 *  mqs_no_information when the runtime gave it none (or its layout has no
 *  uid field). */
typedef int (*mpidbg_mqs_get_comm_uid_t)(mqs_process *process, mqs_taddr_t *uid);
int mpidbg_mqs_get_comm_uid(mqs_process *process, mqs_taddr_t *uid);

/** One record of the process's recent collective history. */
struct mpidbg_mqs_coll_record {
  mqs_taddr_t comm;     /**< communicator handle value */
  mqs_taddr_t seq;      /**< 1-based position in that communicator's sequence */
  char function[32];
  int root;             /**< -1 when unrooted */
  long count;           /**< -1 when not one number */
};
/** Starts iterating the history, oldest record first: mqs_ok,
 *  mqs_no_information without an attached runtime, or a DLL error code. */
typedef int (*mpidbg_mqs_setup_coll_history_t)(mqs_process *process);
int mpidbg_mqs_setup_coll_history(mqs_process *process);
/** mqs_ok with the next record, or mqs_end_of_list. */
typedef int (*mpidbg_mqs_next_coll_record_t)(mqs_process *process, struct mpidbg_mqs_coll_record *record);
int mpidbg_mqs_next_coll_record(mqs_process *process, struct mpidbg_mqs_coll_record *record);

#ifdef __cplusplus
}
#endif

#endif /* MPIDBG_MQS_H */
