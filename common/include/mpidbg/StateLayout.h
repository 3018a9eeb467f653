/* The runtime's exported state, as seen from outside the process.
 *
 * libmpidbg-rt.so keeps the state a message-queue DLL needs in plain memory
 * rooted at exported symbols (../shared/DESIGN.md, "The runtime"). A reader in
 * another process (the mqs DLL through the debugger's fetch callback, or a
 * core-file reader) finds the symbols, then reads the layout table to learn
 * every structure's size and field offsets, so no DWARF is needed and the
 * runtime may reorder its structures without breaking readers.
 *
 * This header is the contract between libmpidbg-rt.so (writer) and
 * libmpidbg-mqs.so (reader). It is C so the DLL stays free of C++.
 *
 * Symbols (default visibility, C linkage, in libmpidbg-rt.so):
 *   mpidbg_layout   struct mpidbg_layout_table: fixed layout, read first.
 *   mpidbg_state    the state root, type "root" in the table.
 *   MPIR_dll_name   char[]: absolute path of libmpidbg-mqs.so (the MPIR
 *                   convention by which TotalView, DDT and padb find a DLL).
 *
 * Reading rules: every multi-byte field is in the target's byte order and of
 * the size the table gives; a reader must treat everything it reads as
 * hostile (bounds-check counts and indices against the table's capacities,
 * tolerate torn reads of a live process).
 */
#ifndef MPIDBG_STATE_LAYOUT_H
#define MPIDBG_STATE_LAYOUT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** `magic` of the layout table and of the state root: "MPIDBGS1" read as a
 *  little-endian 64-bit integer. */
#define MPIDBG_LAYOUT_MAGIC 0x315347424449504Dull
/** Version of the reading rules above; bumped only for incompatible changes
 *  (new types and fields are added without a bump). */
#define MPIDBG_LAYOUT_VERSION 1u
/** Capacity of mpidbg_layout_table::fields. */
#define MPIDBG_LAYOUT_MAX_FIELDS 192
/** Bytes of a type or field name, NUL included. */
#define MPIDBG_LAYOUT_NAME_LEN 24

/** One row of the layout table. A row whose `field` is "" gives the size of
 *  the type itself in `size` (offset 0): the stride of arrays of that type. */
struct mpidbg_layout_field {
  char type[MPIDBG_LAYOUT_NAME_LEN];  /**< e.g. "comm" */
  char field[MPIDBG_LAYOUT_NAME_LEN]; /**< e.g. "handle", or "" for the type */
  uint32_t offset;                    /**< bytes from the start of the type */
  uint32_t size;                      /**< bytes of the field (whole array for arrays) */
};

/** The symbol `mpidbg_layout`. Fixed layout: the only structure a reader must
 *  know at compile time. Rows [0, count) are valid. */
struct mpidbg_layout_table {
  uint64_t magic;   /**< MPIDBG_LAYOUT_MAGIC */
  uint32_t version; /**< MPIDBG_LAYOUT_VERSION */
  uint32_t count;   /**< valid rows, at most MPIDBG_LAYOUT_MAX_FIELDS */
  struct mpidbg_layout_field fields[MPIDBG_LAYOUT_MAX_FIELDS];
};

/* ---- Types and fields in the table (names as the table spells them) ----
 *
 * "root" (symbol mpidbg_state):
 *   magic u64 (MPIDBG_LAYOUT_MAGIC once the runtime is attached, 0 before),
 *   world_rank i32, world_size i32, phase u32 (enum mpidbg_phase),
 *   thread_level i32 (provided), call_count u64 (intercepted calls),
 *   comms taddr (array of "comm"), comm_capacity u32,
 *   ops taddr (array of "op"), op_capacity u32,
 *   history taddr (array of "coll"), history_capacity u32,
 *   history_next u64 (records ever written; the newest is at
 *     (history_next - 1) % history_capacity),
 *   call taddr (the one "call"),
 *   function_names taddr (array of function_count names, each
 *     function_name_len bytes, NUL-terminated), function_count u32,
 *   function_name_len u32.
 *   Added: op_overflow u64 (operations never recorded because the op table
 *     was full: nonzero means the pending lists may be incomplete).
 *   Added: clock_tick_base i64, clock_ns_base i64, clock_ns_per_tick_q32
 *     u64: the conversion of "call".entry_ns to CLOCK_MONOTONIC nanoseconds,
 *     ns = clock_ns_base + (entry_ns - clock_tick_base) * clock_ns_per_tick_q32
 *     / 2^32 (128-bit product). Written before magic; the identity (0, 0,
 *     2^32) unless the runtime time-stamps calls with the CPU's invariant
 *     time-stamp counter.
 *
 * "comm" (one registry slot; live when state == MPIDBG_SLOT_LIVE):
 *   state u32, version u32 (seqlock: odd while being written),
 *   handle u64, size i32, local_rank i32, root_world_rank i32,
 *   name (64 bytes, NUL-terminated),
 *   world_ranks taddr (array of `size` i32: world rank of each local rank;
 *     0 when unknown), coll_seq u64 (collective calls on this communicator,
 *     all classes and communicator constructors, in issue order),
 *   entries (u64[14]: calls per class, mqs_comm_class order),
 *   exits (u64[14]: calls per class that completed; active = entries != exits),
 *   uid u64 (the communicator's identity across the job: the same value in
 *     every member process, where handle values may differ; 0 when unknown,
 *     see ccs/proto/RankProtocol.hpp CommState::uid).
 *
 * "op" (one pending nonblocking operation; live when state == MPIDBG_SLOT_LIVE):
 *   state u32, kind u32 (enum mpidbg_op_kind), function u32 (index into
 *   function_names: "MPI_Isend", "MPI_Irecv", "MPI_Iallreduce", ...),
 *   flags u32 (enum mpidbg_op_flags), request u64 (the MPI_Request handle),
 *   comm u64, peer i32 (rank in comm; -1 any source; -2 MPI_PROC_NULL;
 *   root for rooted collectives; -1 otherwise), tag i32 (-1 any tag),
 *   count i64 (elements), bytes i64 (count * datatype size; -1 unknown),
 *   datatype u64 (handle), buffer taddr, coll_class i32 (-1 for point to
 *   point), coll_call u64 (the per-class call number, as in "comm.entries"),
 *   coll_seq u64 (the comm's coll_seq at issue), issued u64 (the rank's
 *   call_count when it was issued, or for a persistent request last started).
 *   Added: version u32 (seqlock like comm.version: odd while the slot is
 *   being filled or emptied; a slot is reused, so a reader keeps what it read
 *   only when version is even and unchanged and state LIVE before and after;
 *   flags alone may change without a version bump).
 *
 * "coll" (one collective history record, oldest overwritten first):
 *   comm u64, coll_seq u64 (the comm's coll_seq of this call, 1-based),
 *   function u32 (index into function_names), root i32 (-1 if unrooted),
 *   count i64 (elements, -1 if not one number).
 *   Added: stamp u64 (0 while the record is being written, then its index
 *   in the history plus one: record i, for history_next - history_capacity
 *   <= i < history_next, is valid only when stamp reads i + 1 before and
 *   after its fields).
 *
 * "call" (the call the rank is inside; none when function == 0):
 *   version u32 (seqlock), function u32 (index into function_names; 0 =
 *   none), peer_role u32 (0 none, 1 source, 2 dest, 3 root), has_tag u32,
 *   peer i32, tag i32, comm u64 (0 for none), coll_call u64, entry_ns i64
 *   (entry time in call-clock ticks: CLOCK_MONOTONIC nanoseconds after the
 *   root.clock_* conversion, which is the identity unless the runtime uses
 *   the time-stamp counter), seq u64, requests taddr and request_count i32
 *   (the MPI_Wait* argument array while inside one; 0 otherwise).
 *   version is bumped (odd, then even) around every change of the fields
 *   except the end of a call, which only stores function = 0 and
 *   peer_role = 0 (the runtime keeps the two in one 8-byte word and writes
 *   them with one store; the other fields are left as they were, so any mix
 *   is still a consistent "none").
 *   entry_ns restarts when the call goes on after a stop at its safe point
 *   (breakpoint, freeze, step), so "time in the call" excludes the stop.
 *   The request array belongs to the application: MPI_Request values
 *   (MPICH: 4-byte ints), MPI_REQUEST_NULL for those already completed.
 *
 * "comm".world_ranks arrays are never freed by the runtime (a slot reuses
 * or replaces its array; a replaced one is leaked on purpose), so a racing
 * reader never reads unmapped memory; it must still check comm.version.
 */

/** root.phase */
enum mpidbg_phase {
  MPIDBG_PHASE_NOT_INITIALIZED = 0, /**< before MPI_Init returned */
  MPIDBG_PHASE_RUNNING = 1,
  MPIDBG_PHASE_FINALIZING = 2,      /**< inside MPI_Finalize */
  MPIDBG_PHASE_FINALIZED = 3        /**< MPI_Finalize returned */
};

/** comm.state and op.state */
enum mpidbg_slot_state {
  MPIDBG_SLOT_EMPTY = 0,
  MPIDBG_SLOT_FILLING = 1,
  MPIDBG_SLOT_LIVE = 2,
  MPIDBG_SLOT_TOMBSTONE = 3
};

/** op.kind */
enum mpidbg_op_kind {
  MPIDBG_OP_SEND = 0,       /**< MPI_Isend/Issend/Ibsend/Irsend, MPI_Send_init... */
  MPIDBG_OP_RECV = 1,       /**< MPI_Irecv, MPI_Recv_init */
  MPIDBG_OP_COLLECTIVE = 2, /**< MPI_Ibarrier, MPI_Ibcast, ... MPI_Ineighbor_* */
  MPIDBG_OP_RMA = 3         /**< MPI_Rput, _Rget, _Raccumulate, _Rget_accumulate: comm is the window,
                                 peer the target; no message queue of the interface shows them */
};

/** op.flags bits */
enum mpidbg_op_flags {
  MPIDBG_OP_PERSISTENT = 1u << 0, /**< made by MPI_*_init */
  MPIDBG_OP_ACTIVE = 1u << 1,     /**< started (always set for non-persistent) */
  MPIDBG_OP_WAITED = 1u << 2,     /**< the rank is inside an MPI_Wait* / Test* on it */
  MPIDBG_OP_SYNCHRONOUS = 1u << 3 /**< Issend / Ssend_init: completes only once matched */
};

#ifdef __cplusplus
}
#endif

#endif /* MPIDBG_STATE_LAYOUT_H */
