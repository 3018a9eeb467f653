// The private session directory and key file (core::SessionDir).
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
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

/// Sets (or, with nullopt, unsets) an environment variable for one scope.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) ::setenv(name, value->c_str(), 1);
    else ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (old_) ::setenv(name_, old_->c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

}  // namespace

TEST_CASE("session dir: for other hosts without TMPDIR, under $HOME/.mpidbg, private, removed at the end",
          "[core][session]") {
  char base[] = "/tmp/mpidbg-unit-XXXXXX";
  REQUIRE(::mkdtemp(base) != nullptr);
  ScopedEnv home("HOME", std::string(base));
  ScopedEnv tmp("TMPDIR", std::nullopt);
  const std::string parent = std::string(base) + "/.mpidbg";
  std::string path, keyFile;
  {
    auto dir = SessionDir::create(SessionDir::Readers::OtherHosts);
    REQUIRE(dir);
    path = (*dir)->path();
    keyFile = (*dir)->keyFile();
    CHECK(path.starts_with(parent + "/mpidbg-"));
    CHECK((*dir)->parent() == SessionDir::Parent::Home);
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
    auto other = SessionDir::create(SessionDir::Readers::OtherHosts);
    REQUIRE(other);
    CHECK((*other)->path() != path);
    // Ranks on this host only: /tmp, not $HOME.
    auto local = SessionDir::create();
    REQUIRE(local);
    CHECK((*local)->path().starts_with("/tmp/mpidbg-"));
    CHECK((*local)->parent() == SessionDir::Parent::Tmp);
  }
  CHECK_FALSE(fs::exists(path));
  CHECK(fs::exists(parent));  // the parent stays for the next session
  {
    // TMPDIR, when set, wins for other hosts too.
    ScopedEnv named("TMPDIR", std::string(base));
    auto dir = SessionDir::create(SessionDir::Readers::OtherHosts);
    REQUIRE(dir);
    CHECK((*dir)->path().starts_with(std::string(base) + "/mpidbg-"));
    CHECK((*dir)->parent() == SessionDir::Parent::TmpDir);
  }
  fs::remove_all(base);
}

TEST_CASE("session dir: a parent that cannot be made is a clear error", "[core][session]") {
  ScopedEnv home("HOME", std::string("/nonexistent-mpidbg-parent/deeper"));
  ScopedEnv tmp("TMPDIR", std::nullopt);
  auto dir = SessionDir::create(SessionDir::Readers::OtherHosts);
  REQUIRE_FALSE(dir);
  CHECK(dir.error().message.find("cannot create /nonexistent-mpidbg-parent/deeper/.mpidbg: No such file or directory") !=
        std::string::npos);
}
