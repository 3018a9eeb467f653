// Which MPI a launcher command belongs to, and the -x options Open MPI's
// mpirun needs (debugger/core/Launcher.hpp).
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "debugger/core/Launcher.hpp"

using namespace mpidbg::core;
namespace fs = std::filesystem;

namespace {

/// A directory of fake launchers laid out like Debian's: mpirun ->
/// mpirun.openmpi -> orterun, mpiexec -> mpiexec.hydra (removed at the end).
struct FakeBin {
  fs::path dir = fs::temp_directory_path() / ("mpidbg-launchers-" + std::to_string(::getpid()));
  FakeBin() {
    fs::remove_all(dir);
    fs::create_directories(dir);
    for (const char* real : {"orterun", "mpiexec.hydra", "srun", "myrun"}) {
      std::ofstream(dir / real) << "#!/bin/sh\n";
      ::chmod((dir / real).c_str(), 0755);
    }
    fs::create_symlink(dir / "orterun", dir / "mpirun.openmpi");
    fs::create_symlink(dir / "mpirun.openmpi", dir / "mpirun");
    fs::create_symlink(dir / "mpiexec.hydra", dir / "mpiexec");
  }
  ~FakeBin() { fs::remove_all(dir); }
  std::string path(const char* name) const { return (dir / name).string(); }
};

}  // namespace

TEST_CASE("launcherFamily follows symlinks to the MPI the launcher belongs to", "[core][launcher]") {
  FakeBin bin;
  CHECK(launcherFamily({bin.path("mpirun"), "-n", "4", "./app"}) == LauncherFamily::OpenMpi);
  CHECK(launcherFamily({bin.path("mpirun.openmpi")}) == LauncherFamily::OpenMpi);
  CHECK(launcherFamily({bin.path("mpiexec"), "-n", "2", "./app"}) == LauncherFamily::Hydra);
  CHECK(launcherFamily({bin.path("srun"), "-n", "2", "./app"}) == LauncherFamily::Slurm);
  CHECK(launcherFamily({bin.path("myrun")}) == LauncherFamily::Other);
  CHECK(launcherFamily({}) == LauncherFamily::Other);
  // Looked up in PATH when given without a slash.
  const char* saved = std::getenv("PATH");
  const std::string previous = saved ? saved : "";
  ::setenv("PATH", bin.dir.c_str(), 1);
  CHECK(launcherFamily({"mpirun", "-n", "2"}) == LauncherFamily::OpenMpi);
  CHECK(launcherFamily({"mpiexec", "-n", "2"}) == LauncherFamily::Hydra);
  ::setenv("PATH", previous.c_str(), 1);
  // A name that does not exist is judged by the name alone.
  CHECK(launcherFamily({"/nowhere/mpiexec.openmpi"}) == LauncherFamily::OpenMpi);
  CHECK(launcherFamily({"/nowhere/mpiexec.mpich"}) == LauncherFamily::Hydra);
}

TEST_CASE("withForwardedEnv adds -x NAME for Open MPI only", "[core][launcher]") {
  const std::vector<std::string> argv{"mpirun", "--oversubscribe", "-n", "4", "./app", "-x"};
  CHECK(withForwardedEnv(argv, LauncherFamily::OpenMpi, {"LD_PRELOAD", "MPIDBG_FRONTEND"}) ==
        std::vector<std::string>{"mpirun", "-x", "LD_PRELOAD", "-x", "MPIDBG_FRONTEND", "--oversubscribe", "-n",
                                 "4", "./app", "-x"});
  CHECK(withForwardedEnv(argv, LauncherFamily::Hydra, {"LD_PRELOAD"}) == argv);
  CHECK(withForwardedEnv(argv, LauncherFamily::Slurm, {"LD_PRELOAD"}) == argv);
  CHECK(withForwardedEnv({}, LauncherFamily::OpenMpi, {"LD_PRELOAD"}).empty());
}

TEST_CASE("programMpi tells the program's MPI from its DT_NEEDED entries", "[core][launcher]") {
  const std::string examples = MPIDBG_EXAMPLES_DIR;
  FakeBin bin;
  // MPICH's ring, behind options whose values are no files.
  CHECK(programMpi({"srun", "-N", "2", "-n", "4", "--mpi=pmi2", examples + "/ring"}) == LauncherFamily::Hydra);
  CHECK(runtimeFor({"srun", "-n", "2", examples + "/ring"}, "/opt/lib/libmpidbg-rt.so") == "/opt/lib/libmpidbg-rt.so");
  // A script is no ELF program: then the launcher decides.
  CHECK(programMpi({"mpiexec", "-n", "2", bin.path("myrun")}) == LauncherFamily::Other);
  CHECK(runtimeFor({bin.path("mpirun"), "-n", "2", bin.path("myrun")}, "/opt/lib/libmpidbg-rt.so") ==
        "/opt/lib/libmpidbg-rt-ompi.so");
  CHECK(programMpi({"mpiexec"}) == LauncherFamily::Other);
  if (!fs::exists(examples + "/openmpi/ring")) {
    WARN("Open MPI is not installed: examples/openmpi/ring not built, its check skipped");
    return;
  }
  CHECK(programMpi({"srun", "--mpi=pmix", "-n", "2", examples + "/openmpi/ring"}) == LauncherFamily::OpenMpi);
  CHECK(runtimeFor({"srun", "-n", "2", examples + "/openmpi/ring"}, "/opt/lib/libmpidbg-rt.so") ==
        "/opt/lib/libmpidbg-rt-ompi.so");
}
