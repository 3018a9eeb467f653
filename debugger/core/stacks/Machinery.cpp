#include "debugger/core/stacks/Machinery.hpp"

#include <array>

namespace mpidbg::core::stacks {

namespace {
constexpr std::array kPrefixes = {
    MachineryPrefix{"libmpidbg-rt", ObjectRole::Runtime},
    MachineryPrefix{"libmpi", ObjectRole::MpiLibrary},  // libmpi, libmpich, libmpifort, libmpi_cxx
    MachineryPrefix{"libpmpi", ObjectRole::MpiLibrary},
    MachineryPrefix{"libucp", ObjectRole::MpiLibrary},
    MachineryPrefix{"libuct", ObjectRole::MpiLibrary},
    MachineryPrefix{"libucs", ObjectRole::MpiLibrary},
    MachineryPrefix{"libucm", ObjectRole::MpiLibrary},
    MachineryPrefix{"libfabric", ObjectRole::MpiLibrary},
    MachineryPrefix{"libpmix", ObjectRole::MpiLibrary},
    MachineryPrefix{"libopen-", ObjectRole::MpiLibrary},  // libopen-pal, libopen-rte
    MachineryPrefix{"libprrte", ObjectRole::MpiLibrary},
    MachineryPrefix{"libevent", ObjectRole::MpiLibrary},  // Open MPI's progress engine
    MachineryPrefix{"libhwloc", ObjectRole::MpiLibrary},
    MachineryPrefix{"libpsm", ObjectRole::MpiLibrary},
    MachineryPrefix{"libc.so", ObjectRole::System},
    MachineryPrefix{"libc-", ObjectRole::System},
    MachineryPrefix{"libpthread", ObjectRole::System},
    MachineryPrefix{"ld-linux", ObjectRole::System},
    MachineryPrefix{"linux-vdso", ObjectRole::System},
    MachineryPrefix{"[vdso]", ObjectRole::System},  // how a rank's stack capture names it
};
}  // namespace

std::span<const MachineryPrefix> machineryPrefixes() { return kPrefixes; }

ObjectRole objectRole(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  for (const MachineryPrefix& row : kPrefixes)
    if (base.starts_with(row.prefix)) return row.role;
  return ObjectRole::Application;
}

}  // namespace mpidbg::core::stacks
