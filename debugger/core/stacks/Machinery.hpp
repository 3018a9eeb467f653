#pragma once

// Which loaded objects are the MPI machinery under an application: mpidbg's
// own runtime, the MPI library and its transports, and the C library. gdb
// sessions select the innermost frame outside them (GdbFrameScript) and stack
// trees hide the threads that run only inside them.

#include <span>
#include <string_view>

namespace mpidbg::core::stacks {

/// What part of a process an object (executable or shared library) is.
enum class ObjectRole {
  Application,  ///< the program and any library not listed below
  Runtime,      ///< mpidbg's runtime, libmpidbg-rt*.so
  MpiLibrary,   ///< an MPI library or one of its transports or launchers' clients
  System,       ///< the C library, the dynamic loader, the vDSO
};

/// One row of the machinery table: objects whose file name (basename)
/// starts with `prefix` have `role`.
struct MachineryPrefix {
  std::string_view prefix;
  ObjectRole role;
};

/// The machinery table, the one list of these names (the gdb script is
/// generated from it): libmpidbg-rt; MPICH's libmpi*/libpmpi*, UCX's libuc*
/// (libucp, libuct, libucs, libucm), libfabric, libpmix, Open MPI's
/// libopen-pal/libopen-rte/libprrte, libevent, libhwloc, libpsm*; glibc's
/// libc/libpthread/ld-linux and the vDSO.
std::span<const MachineryPrefix> machineryPrefixes();

/// The role of the object at `path` (a path or a basename; "" or "??" is an
/// unknown object and counts as Application: we do not know it is ours).
ObjectRole objectRole(std::string_view path);

}  // namespace mpidbg::core::stacks
