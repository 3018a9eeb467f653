/* mpidbg runtime: the C interface applications may call.
 * Everything works without calling any of it. A program that includes this
 * header links and runs without the runtime: its symbols are weak, and with
 * the runtime absent MPIDBG_ENTRY costs a null check. */
#ifndef MPIDBG_MPIDBG_H
#define MPIDBG_MPIDBG_H

/** Version of this header and of the runtime's exported interface.
 * 2: entry points (MPIDBG_ENTRY, mpidbg_control_armed). */
#define MPIDBG_RT_ABI_VERSION 2

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

#ifdef __cplusplus
}
#endif

#endif /* MPIDBG_MPIDBG_H */
