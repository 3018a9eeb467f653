/* mpidbg runtime: the C interface applications may call.
 * Everything works without calling any of it. A program that includes this
 * header links and runs without the runtime: its symbols are weak, and with
 * the runtime absent MPIDBG_ENTRY costs a null check. */
#ifndef MPIDBG_MPIDBG_H
#define MPIDBG_MPIDBG_H

/** Version of this header and of the runtime's exported interface.
 * 2: entry points (MPIDBG_ENTRY, mpidbg_control_armed).
 * 3: watched objects and lists (mpidbg_watch_list, mpidbg_watch_struct). */
#define MPIDBG_RT_ABI_VERSION 3

#ifdef __cplusplus
extern "C" {
#endif

/* Applications see the runtime's symbols as weak references: NULL unless the
 * runtime is loaded (LD_PRELOAD or linked). The runtime itself defines them. */
#if defined(MPIDBG_BUILDING_RUNTIME)
#define MPIDBG_WEAK_
#define MPIDBG_RT_LOADED_() 1
#else
#define MPIDBG_WEAK_ __attribute__((weak))
#define MPIDBG_RT_LOADED_() (&mpidbg_control_armed != 0)
#endif

/** 1 when this process's runtime is attached to an mpidbg front end (after
 * MPI_Init with MPIDBG_FRONTEND set and a successful registration), else 0.
 * Callable from any thread, before or after MPI_Init. Check
 * `mpidbg_attached != 0` first when the runtime may be absent. */
int mpidbg_attached(void) MPIDBG_WEAK_;

/** MPIDBG_RT_ABI_VERSION of the runtime actually loaded. */
int mpidbg_abi_version(void) MPIDBG_WEAK_;

/** One MPIDBG_ENTRY call site: static storage in the application, registered
 * with the runtime the first time it is reached. `name` must have static
 * storage duration (a string literal). `hits` counts the times the site was
 * reached while the runtime is loaded (approximate when several threads
 * reach the same site at once). The other fields belong to the runtime. */
struct mpidbg_entry_site {
  const char* name;
  unsigned long long hits;
  unsigned int registered;
  unsigned int reserved;
};

/** Nonzero while the runtime wants to see entry points and MPI calls: a
 * breakpoint is set, a freeze or step is pending, or the rank is stopped.
 * Read with one relaxed load; written only by the runtime. */
extern unsigned int mpidbg_control_armed MPIDBG_WEAK_;

/** The slow path of MPIDBG_ENTRY: registers `site` on its first hit and, when
 * armed, matches entry breakpoints, freeze and step (it may block until the
 * debugger continues the rank). Call only through MPIDBG_ENTRY. */
void mpidbg_entry_reached(struct mpidbg_entry_site* site) MPIDBG_WEAK_;

/** The body of MPIDBG_ENTRY: a null check of the weak symbol, one relaxed
 * load of the armed word, and the site's hit counter. */
static inline void mpidbg_entry_(struct mpidbg_entry_site* site) {
  if (MPIDBG_RT_LOADED_()) {
    const unsigned long long n = __atomic_load_n(&site->hits, __ATOMIC_RELAXED);
    __atomic_store_n(&site->hits, n + 1, __ATOMIC_RELAXED);
    if (__builtin_expect((n == 0) | (__atomic_load_n(&mpidbg_control_armed, __ATOMIC_RELAXED) != 0), 0))
      mpidbg_entry_reached(site);
  }
}

/** Marks an entry point named `name` (a string literal, e.g.
 * "solver::step"): a safe point where `break entry NAME`, freeze and step can
 * stop the rank, listed by `info entries` with its hit count. Usable as a
 * statement in C and C++, from any thread. */
#define MPIDBG_ENTRY(name)                                                   \
  do {                                                                       \
    static struct mpidbg_entry_site mpidbg_entry_site_ = {(name), 0, 0, 0};  \
    mpidbg_entry_(&mpidbg_entry_site_);                                      \
  } while (0)

/* ---- Watched objects and lists (`lists`, `print`; docs/commands.md) ----
 * The runtime serves what the application registers here through Charm++'s
 * list protocol (ccs_list_len, ccs_list_items.fmt/.txt; ccs/proto/ListProtocol.hpp).
 * C++ code uses mpidbg::watch / mpidbg::watch_list (mpidbg/watch.hpp) instead.
 * Registration functions return 0 on success and -1 when the runtime refuses
 * (bad name: empty, longer than 80 bytes, starting with "mpi/" or "mpidbg/";
 * bad arguments), and are safe to call when the runtime is absent only
 * through the mpidbg_watch_* inline helpers below. Registering a name again
 * replaces the old registration. Reads happen on the runtime's helper thread
 * while the application may be running: mpidbg_unwatch waits for a read in
 * progress, so memory may be freed once it returns. */

/** Formats an item is written in: Charm++'s PUP .fmt and .txt
 * (../shared/protocols/ccs.md). */
enum mpidbg_list_format { MPIDBG_LIST_FMT = 0, MPIDBG_LIST_TXT = 1 };

/** Appends `n` bytes to the reply being built (`sink` is the runtime's). */
typedef void (*mpidbg_append_fn)(void* sink, const void* bytes, unsigned long n);
/** The number of items of a list now (>= 0). */
typedef int (*mpidbg_list_length_fn)(void* context);
/** Writes item `index` (0 <= index < length) in `format` through `append`;
 * returns 0, or nonzero when the item cannot be written (the reply then says
 * so). Called on the runtime's helper thread; must not call MPI. */
typedef int (*mpidbg_list_item_fn)(void* context, int index, int format, void* sink,
                                   mpidbg_append_fn append);

/** Registers list `name` (`is_object` nonzero: an object, a list of one item
 * that `print NAME` shows without an index). */
int mpidbg_watch_list(const char* name, void* context, mpidbg_list_length_fn length,
                      mpidbg_list_item_fn item, int is_object) MPIDBG_WEAK_;

/** Removes `name`; waits for a read of it in progress. 0, or -1 when unknown. */
int mpidbg_unwatch(const char* name) MPIDBG_WEAK_;

/** Field types of a plain struct described by a field table. */
enum mpidbg_field_type {
  MPIDBG_FIELD_INT = 1,      /**< int */
  MPIDBG_FIELD_LONG,         /**< long */
  MPIDBG_FIELD_LONG_LONG,    /**< long long */
  MPIDBG_FIELD_UNSIGNED,     /**< unsigned int */
  MPIDBG_FIELD_UNSIGNED_LONG,/**< unsigned long */
  MPIDBG_FIELD_FLOAT,        /**< float */
  MPIDBG_FIELD_DOUBLE,       /**< double */
  MPIDBG_FIELD_CHAR,         /**< char; with count > 1 a NUL-terminated string of at most count bytes */
  MPIDBG_FIELD_BOOL,         /**< _Bool / bool (one byte) */
  MPIDBG_FIELD_POINTER       /**< any pointer (shown as an address) */
};

/** One field of a plain struct: its label, type, byte offset (offsetof) and
 * element count (1 for a scalar, N for an array member). */
struct mpidbg_field {
  const char* name;
  int type; /**< enum mpidbg_field_type */
  unsigned long offset;
  int count;
};

/** Describes one struct member for a field table: MPIDBG_FIELD(struct tile,
 * nx, MPIDBG_FIELD_INT, 1). */
#define MPIDBG_FIELD(type, member, kind, count) \
  { #member, (kind), (unsigned long)__builtin_offsetof(type, member), (count) }

/** Registers `count` structs at `base`, `stride` bytes apart, described by
 * `fields` (copied; names too): count 1 is an object, more a list. The
 * memory must stay valid until mpidbg_unwatch(name). */
int mpidbg_watch_struct(const char* name, const void* base, int count, unsigned long stride,
                        const struct mpidbg_field* fields, int nfields) MPIDBG_WEAK_;

#if !defined(MPIDBG_BUILDING_RUNTIME)
/** mpidbg_watch_struct when the runtime is loaded, else 0 (nothing to do). */
static inline int mpidbg_watch_struct_if_loaded(const char* name, const void* base, int count,
                                                unsigned long stride,
                                                const struct mpidbg_field* fields, int nfields) {
  if (&mpidbg_watch_struct == 0) return 0;
  return mpidbg_watch_struct(name, base, count, stride, fields, nfields);
}

/** mpidbg_unwatch when the runtime is loaded, else 0. */
static inline int mpidbg_unwatch_if_loaded(const char* name) {
  if (&mpidbg_unwatch == 0) return 0;
  return mpidbg_unwatch(name);
}
#endif

#ifdef __cplusplus
}
#endif

#endif /* MPIDBG_MPIDBG_H */
