// The private session directory and key file (core::SessionDir).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "debugger/core/SessionDir.hpp"

using mpidbg::core::SessionDir;
namespace fs = std::filesystem;

namespace {

unsigned modeOf(const std::string& path) {
  struct stat st {};
  REQUIRE(::stat(path.c_str(), &st) == 0);
  return st.st_mode & 07777;
}

}  // namespace

TEST_CASE("session dir: under a named parent it makes, private, removed at the end", "[core][session]") {
  char base[] = "/tmp/mpidbg-unit-XXXXXX";
  REQUIRE(::mkdtemp(base) != nullptr);
  const std::string parent = std::string(base) + "/.mpidbg";
  std::string path, keyFile;
  {
    auto dir = SessionDir::create(parent);
    REQUIRE(dir);
    path = (*dir)->path();
    keyFile = (*dir)->keyFile();
    CHECK(path.starts_with(parent + "/mpidbg-"));
    CHECK(modeOf(parent) == 0700);
    CHECK(modeOf(path) == 0700);
    CHECK(modeOf(keyFile) == 0600);
    std::ifstream in(keyFile);
    std::string text;
    std::getline(in, text);
    CHECK(text.size() == 64);
    CHECK(text.find_first_not_of("0123456789abcdef") == std::string::npos);
    CHECK((*dir)->key().size() == 32);
    // A second session beside it: the parent exists already.
    auto other = SessionDir::create(parent);
    REQUIRE(other);
    CHECK((*other)->path() != path);
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::exists(parent));  // the parent stays for the next session
  fs::remove_all(base);
}

TEST_CASE("session dir: a parent that cannot be made is a clear error", "[core][session]") {
  auto dir = SessionDir::create("/nonexistent-mpidbg-parent/deeper");
  REQUIRE_FALSE(dir);
  CHECK(dir.error().message.find("cannot create /nonexistent-mpidbg-parent/deeper: No such file or directory") !=
        std::string::npos);
}
