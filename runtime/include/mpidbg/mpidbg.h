/* mpidbg runtime: the C interface applications may call.
 * Everything works without calling any of it; these are for programs that
 * want to know whether a debugger is attached. */
#ifndef MPIDBG_MPIDBG_H
#define MPIDBG_MPIDBG_H

/** Version of this header and of the runtime's exported interface. */
#define MPIDBG_RT_ABI_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/** 1 when this process's runtime is attached to an mpidbg front end (after
 * MPI_Init with MPIDBG_FRONTEND set and a successful registration), else 0.
 * Callable from any thread, before or after MPI_Init. */
int mpidbg_attached(void);

/** MPIDBG_RT_ABI_VERSION of the runtime actually loaded. */
int mpidbg_abi_version(void);

#ifdef __cplusplus
}
#endif

#endif /* MPIDBG_MPIDBG_H */
