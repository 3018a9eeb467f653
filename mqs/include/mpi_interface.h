/* The message-queue debugging interface between a debugger and a
 * message-queue DLL ("mqs DLL"), written for mpidbg from the description in
 * ../shared/protocols/mqs.md.
 *
 * The interface was defined by TotalView (Etnus) and is what MPICH
 * (src/mpi/debugger/mpi_interface.h) and Open MPI
 * (ompi/debuggers/msgq_interface.h) ship; this header is call-compatible with
 * both on LP64 Linux (same struct layouts, same argument orders, same
 * callback table order), so one host can load their DLLs and ours. Where
 * those headers take `char *` for a string the DLL or the debugger never
 * writes, this one says `const char *` (same ABI).
 *
 * Model: the debugger dlopens the DLL, hands it three tables of callbacks
 * (basic, per image, per process) and asks it questions. The DLL never reads
 * the target's memory itself: everything goes through mqs_fetch_data_fp, so
 * the target may be a live process, a gdb session or a core file.
 *
 * Naming: callback types end in `_ft` and table fields in `_fp` (as in the
 * MPICH and Open MPI headers); the pointer type of each function the DLL
 * exports, for a host that dlsyms it, ends in `_t`.
 *
 * Every function returns an `int` that is mqs_ok, one of the other
 * predefined codes, or a code >= mqs_first_user_code whose text the side
 * that returned it provides (mqs_dll_error_string for the DLL,
 * mqs_errorstring_fp for the debugger).
 */
#ifndef MPIDBG_MPI_INTERFACE_H
#define MPIDBG_MPI_INTERFACE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Interface version the DLL implements (mqs_version_compatibility): 2, the
 *  MPI-1 interface with extra_text and mqs_dll_taddr_width. */
enum { MQS_INTERFACE_COMPATIBILITY = 2 };

/** A target address; wide enough for a 64-bit target. */
typedef unsigned long mqs_taddr_t;
/** A target word (ranks, tags, lengths); signed. */
typedef long mqs_tword_t;

/* Opaque handles. The debugger owns mqs_image, mqs_process and mqs_type; the
 * DLL owns mqs_image_info and mqs_process_info and hangs them on the
 * debugger's objects with the put/get callbacks. Only pointers cross the
 * interface. */
typedef struct mqs_image_ mqs_image;               /**< one executable or library image */
typedef struct mqs_process_ mqs_process;           /**< one process (one rank) */
typedef struct mqs_type_ mqs_type;                 /**< a type in the debugger's symbol table */
typedef struct mqs_image_info_ mqs_image_info;     /**< the DLL's per-image data */
typedef struct mqs_process_info_ mqs_process_info; /**< the DLL's per-process data */

/** Result codes. Codes from mqs_first_user_code up are private to the side
 *  that returned them (both sides number from there). */
enum {
  mqs_ok = 0,             /**< success */
  mqs_no_information = 1, /**< the data asked for is not kept */
  mqs_end_of_list = 2,    /**< an iterator has nothing more */
  mqs_first_user_code = 100
};

/** A process index the debugger never uses. */
enum { MQS_INVALID_PROCESS = -1 };

/** Source language of a symbol looked up with mqs_find_function_fp /
 *  mqs_find_type_fp. */
typedef enum {
  mqs_lang_c = 'c',
  mqs_lang_cplus = 'C',
  mqs_lang_f77 = 'f',
  mqs_lang_f90 = 'F'
} mqs_lang_code;

/** Which queue mqs_setup_operation_iterator walks. */
typedef enum {
  mqs_pending_sends = 0,
  mqs_pending_receives = 1,
  mqs_unexpected_messages = 2
} mqs_op_class;

/** mqs_pending_operation::status. */
typedef enum mqs_status {
  mqs_st_pending = 0,  /**< posted, not matched */
  mqs_st_matched = 1,  /**< matched, data not all moved */
  mqs_st_complete = 2  /**< complete, not yet waited for */
} mqs_status;

/** Sizes in bytes of the target's C types. MPICH's DLL reads five ints;
 *  Open MPI's appends bool and size_t sizes (and re-reads them from the
 *  target), so a debugger fills exactly these five. */
typedef struct {
  int short_size;
  int int_size;
  int long_size;
  int long_long_size;
  int pointer_size;
} mqs_target_type_sizes;

/** One communicator as the DLL reports it. `unique_id` is unique within one
 *  process only; debuggers key communicators by (unique_id, global rank of
 *  local rank 0). */
typedef struct {
  mqs_taddr_t unique_id;  /**< identity of the communicator in this process */
  mqs_tword_t local_rank; /**< this process's rank in it */
  mqs_tword_t size;       /**< number of processes in it */
  char name[64];          /**< NUL-terminated name */
} mqs_communicator;

/** One pending operation (a posted send or receive, or an unexpected
 *  message). Buffers are treated as contiguous. */
typedef struct {
  int status;                      /**< an mqs_status */
  mqs_tword_t desired_local_rank;  /**< peer rank in the communicator; -1 any source */
  mqs_tword_t desired_global_rank; /**< the same peer in MPI_COMM_WORLD; -1 any source */
  int tag_wild;                    /**< nonzero for a receive with MPI_ANY_TAG */
  mqs_tword_t desired_tag;         /**< meaningful when !tag_wild */
  mqs_tword_t desired_length;      /**< buffer length in bytes */
  int system_buffer;               /**< nonzero when the buffer belongs to MPI */
  mqs_taddr_t buffer;              /**< target address of the data */
  /* Valid once status >= mqs_st_matched, and always for sends: */
  mqs_tword_t actual_local_rank;
  mqs_tword_t actual_global_rank;
  mqs_tword_t actual_tag;
  mqs_tword_t actual_length;
  /** Up to five NUL-terminated lines the debugger shows as they are
   *  (function name, request handle, ...); "" for an unused line. */
  char extra_text[5][64];
} mqs_pending_operation;

/** Collective classes of mqs_get_comm_coll_state, in the order of the
 *  "MPI collective debugger extension proposal" (../shared/protocols/mqs.md,
 *  "The collective extension"). */
typedef enum {
  mqs_comm_barrier = 0,
  mqs_comm_broadcast,
  mqs_comm_allgather,
  mqs_comm_allgatherv,
  mqs_comm_allreduce,
  mqs_comm_alltoall,
  mqs_comm_alltoallv,
  mqs_comm_reduce_scatter,
  mqs_comm_reduce,
  mqs_comm_gather,
  mqs_comm_gatherv,
  mqs_comm_scan,
  mqs_comm_scatter,
  mqs_comm_scatterv,
  mqs_comm_class_count /**< number of classes (14) */
} mqs_comm_class;

/* ---- Callbacks the debugger provides ---------------------------------- */

/** Allocates `bytes` bytes; NULL when out of memory. */
typedef void *(*mqs_malloc_ft)(size_t bytes);
/** Frees memory from mqs_malloc_fp. */
typedef void (*mqs_free_ft)(void *memory);
/** Prints a line for debugging the DLL (not for users). */
typedef void (*mqs_dprints_ft)(const char *text);
/** Text of an error code the debugger's callbacks returned. */
typedef const char *(*mqs_errorstring_ft)(int code);
/** Hangs the DLL's data on an image. */
typedef void (*mqs_put_image_info_ft)(mqs_image *image, mqs_image_info *info);
/** The data hung on an image, or NULL. */
typedef mqs_image_info *(*mqs_get_image_info_ft)(mqs_image *image);
/** Hangs the DLL's data on a process. */
typedef void (*mqs_put_process_info_ft)(mqs_process *process, mqs_process_info *info);
/** The data hung on a process, or NULL. */
typedef mqs_process_info *(*mqs_get_process_info_ft)(mqs_process *process);

/** Fills the target's type sizes. Takes a process although it sits in the
 *  image table (as in MPICH and Open MPI). */
typedef void (*mqs_get_type_sizes_ft)(mqs_process *process, mqs_target_type_sizes *sizes);
/** Address of function `name` in `image`: mqs_ok, or a debugger error code. */
typedef int (*mqs_find_function_ft)(mqs_image *image, const char *name, mqs_lang_code lang,
                                    mqs_taddr_t *address);
/** Address of data symbol `name` in `image`: mqs_ok, or a debugger error code. */
typedef int (*mqs_find_symbol_ft)(mqs_image *image, const char *name, mqs_taddr_t *address);
/** The type called `name` in `image`, or NULL. */
typedef mqs_type *(*mqs_find_type_ft)(mqs_image *image, const char *name, mqs_lang_code lang);
/** Byte offset of field `name` in structure `type`, or -1. */
typedef int (*mqs_field_offset_ft)(mqs_type *type, const char *name);
/** sizeof(type) in bytes. */
typedef int (*mqs_sizeof_ft)(mqs_type *type);

/** The process's rank in MPI_COMM_WORLD. MPICH and Open MPI declare `int`;
 *  a callback of either type is call-compatible on LP64 (a caller expecting
 *  `int` reads the low half). */
typedef mqs_tword_t (*mqs_get_global_rank_ft)(mqs_process *process);
/** The image the process runs. */
typedef mqs_image *(*mqs_get_image_ft)(mqs_process *process);
/** Copies `size` bytes at target address `address` into `buffer`, bytes in
 *  target order: mqs_ok, or a debugger error code (unmapped, detached...). */
typedef int (*mqs_fetch_data_ft)(mqs_process *process, mqs_taddr_t address, int size, void *buffer);
/** Converts an integer of `size` bytes (1, 2, 4 or 8) from target to host
 *  byte order. */
typedef void (*mqs_target_to_host_ft)(mqs_process *process, const void *in, void *out, int size);

/** Callbacks that need neither image nor process. */
typedef struct mqs_basic_callbacks {
  mqs_malloc_ft mqs_malloc_fp;
  mqs_free_ft mqs_free_fp;
  mqs_dprints_ft mqs_dprints_fp;
  mqs_errorstring_ft mqs_errorstring_fp;
  mqs_put_image_info_ft mqs_put_image_info_fp;
  mqs_get_image_info_ft mqs_get_image_info_fp;
  mqs_put_process_info_ft mqs_put_process_info_fp;
  mqs_get_process_info_ft mqs_get_process_info_fp;
} mqs_basic_callbacks;

/** Callbacks about one image (symbols and types). */
typedef struct mqs_image_callbacks {
  mqs_get_type_sizes_ft mqs_get_type_sizes_fp;
  mqs_find_function_ft mqs_find_function_fp;
  mqs_find_symbol_ft mqs_find_symbol_fp;
  mqs_find_type_ft mqs_find_type_fp;
  mqs_field_offset_ft mqs_field_offset_fp;
  mqs_sizeof_ft mqs_sizeof_fp;
} mqs_image_callbacks;

/** Callbacks about one process (memory and identity). */
typedef struct mqs_process_callbacks {
  mqs_get_global_rank_ft mqs_get_global_rank_fp;
  mqs_get_image_ft mqs_get_image_fp;
  mqs_fetch_data_ft mqs_fetch_data_fp;
  mqs_target_to_host_ft mqs_target_to_host_fp;
} mqs_process_callbacks;

/* ---- Functions the DLL exports --------------------------------------- */
/* Callback tables stay the debugger's and must outlive their use. */

/** Stores the basic callbacks; call first, once. */
void mqs_setup_basic_callbacks(const mqs_basic_callbacks *callbacks);
typedef void (*mqs_setup_basic_callbacks_t)(const mqs_basic_callbacks *callbacks);

/** Human-readable name and version of the DLL (static storage). */
const char *mqs_version_string(void);
typedef const char *(*mqs_version_string_t)(void);

/** MQS_INTERFACE_COMPATIBILITY of the interface the DLL implements. */
int mqs_version_compatibility(void);
typedef int (*mqs_version_compatibility_t)(void);

/** sizeof(mqs_taddr_t) the DLL was built with, in bytes (8 here). */
int mqs_dll_taddr_width(void);
typedef int (*mqs_dll_taddr_width_t)(void);

/** Text of a code the DLL returned (static storage; never NULL). */
const char *mqs_dll_error_string(int code);
typedef const char *(*mqs_dll_error_string_t)(int code);

/** Prepares the DLL's data for `image` and keeps `callbacks`: mqs_ok or an
 *  error code. Once per image. */
int mqs_setup_image(mqs_image *image, const mqs_image_callbacks *callbacks);
typedef int (*mqs_setup_image_t)(mqs_image *image, const mqs_image_callbacks *callbacks);

/** Whether processes of `image` can have message queues: mqs_ok, or an error
 *  code. `*message` is set to NULL or to a printf format with one %s (the
 *  image name) that the debugger shows whatever the result. */
int mqs_image_has_queues(mqs_image *image, char **message);
typedef int (*mqs_image_has_queues_t)(mqs_image *image, char **message);

/** Frees data the DLL hung on an image. */
void mqs_destroy_image_info(mqs_image_info *info);
typedef void (*mqs_destroy_image_info_t)(mqs_image_info *info);

/** Prepares the DLL's data for `process` and keeps `callbacks`: mqs_ok or an
 *  error code. After mqs_setup_image of the process's image. */
int mqs_setup_process(mqs_process *process, const mqs_process_callbacks *callbacks);
typedef int (*mqs_setup_process_t)(mqs_process *process, const mqs_process_callbacks *callbacks);

/** Like mqs_image_has_queues, but may look into the process's memory. */
int mqs_process_has_queues(mqs_process *process, char **message);
typedef int (*mqs_process_has_queues_t)(mqs_process *process, char **message);

/** Frees data the DLL hung on a process. */
void mqs_destroy_process_info(mqs_process_info *info);
typedef void (*mqs_destroy_process_info_t)(mqs_process_info *info);

/** Re-reads the process's communicators (call after the process ran). */
int mqs_update_communicator_list(mqs_process *process);
typedef int (*mqs_update_communicator_list_t)(mqs_process *process);

/** Makes the first communicator current: mqs_ok, mqs_end_of_list when there
 *  are none, or an error code. */
int mqs_setup_communicator_iterator(mqs_process *process);
typedef int (*mqs_setup_communicator_iterator_t)(mqs_process *process);

/** Describes the current communicator. */
int mqs_get_communicator(mqs_process *process, mqs_communicator *communicator);
typedef int (*mqs_get_communicator_t)(mqs_process *process, mqs_communicator *communicator);

/** Makes the next communicator current: mqs_ok or mqs_end_of_list. */
int mqs_next_communicator(mqs_process *process);
typedef int (*mqs_next_communicator_t)(mqs_process *process);

/** Fills `world_ranks[i]` with the MPI_COMM_WORLD rank of local rank i of
 *  the current communicator; the caller gives room for `size` ints (the
 *  size mqs_get_communicator reported). Optional in other DLLs. */
int mqs_get_comm_group(mqs_process *process, int *world_ranks);
typedef int (*mqs_get_comm_group_t)(mqs_process *process, int *world_ranks);

/** Starts walking one class (an mqs_op_class) of operations of the current
 *  communicator: mqs_ok, mqs_no_information when the DLL cannot see that
 *  class, or an error code. */
int mqs_setup_operation_iterator(mqs_process *process, int op_class);
typedef int (*mqs_setup_operation_iterator_t)(mqs_process *process, int op_class);

/** The next operation of the walk: mqs_ok, or mqs_end_of_list. */
int mqs_next_operation(mqs_process *process, mqs_pending_operation *operation);
typedef int (*mqs_next_operation_t)(mqs_process *process, mqs_pending_operation *operation);

/** Collective extension: on the current communicator, `*count` = calls of
 *  collective class `comm_class` (an mqs_comm_class) made so far and
 *  `*active` = 1 while the process is inside one, else 0. mqs_ok,
 *  mqs_no_information when not kept, or an error code. Optional: look it up
 *  with dlsym. */
int mqs_get_comm_coll_state(mqs_process *process, int comm_class, int *count, int *active);
typedef int (*mqs_get_comm_coll_state_t)(mqs_process *process, int comm_class, int *count,
                                         int *active);

#ifdef __cplusplus
}
#endif

#endif /* MPIDBG_MPI_INTERFACE_H */
