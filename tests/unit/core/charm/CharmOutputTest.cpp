#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "ccs/transport/CharmKeyFile.hpp"
#include "debugger/core/charm/CharmJob.hpp"
#include "debugger/core/charm/CharmOutput.hpp"

using mpidbg::core::charm::CharmJob;
using mpidbg::core::charm::CharmNotice;
using mpidbg::core::charm::parseCharmLine;

// Lines as Charm++ 8092a54 prints them (CpdNotify in src/conv-ccs/middle-ccs.C,
// the server line in src/conv-ccs/ccs-server.C), seen from charmrun +p2 +cpd.
TEST_CASE("parseCharmLine reads the lines Charm++ prints for its debugger", "[charm]") {
  auto port = parseCharmLine("ccs: Server IP = 192.0.2.2, Server port = 45077 $");
  REQUIRE(port);
  CHECK(port->kind == CharmNotice::Kind::ServerPort);
  CHECK(port->number == 45077);
  CHECK(port->text == "192.0.2.2");

  auto freeze = parseCharmLine("CPD: 1 Freeze 31751\r");
  REQUIRE(freeze);
  CHECK(freeze->kind == CharmNotice::Kind::Freeze);
  CHECK(freeze->pe == 1);
  CHECK(freeze->pid == 31751);

  auto bp = parseCharmLine("CPD: 0 BP pass(int round, double token)");
  REQUIRE(bp);
  CHECK(bp->kind == CharmNotice::Kind::Breakpoint);
  CHECK(bp->pe == 0);
  CHECK(bp->text == "pass(int round, double token)");

  auto abort = parseCharmLine("CPD: 3 Abort cell 7 lost its token");
  REQUIRE(abort);
  CHECK(abort->kind == CharmNotice::Kind::Abort);
  CHECK(abort->text == "cell 7 lost its token");

  auto signal = parseCharmLine("CPD: 2 Signal 11");
  REQUIRE(signal);
  CHECK(signal->kind == CharmNotice::Kind::Signal);
  CHECK(signal->number == 11);
}

TEST_CASE("parseCharmLine leaves the program's own lines and malformed ones alone", "[charm]") {
  for (const char* line : {"ring: 4 cells, 20 rounds on 2 PEs", "ccs: 2", "CPD: x Freeze 1", "CPD: 1 Freeze",
                           "CPD: -1 Freeze 5", "CPD: 0 Cross 0x1 2 0 ", "ccs: Server IP = 1.2.3.4, Server port = 0 $",
                           "ccs: Server IP = 1.2.3.4, Server port = 70000 $", "In Parallel Debugging mode .....", ""})
    CHECK_FALSE(parseCharmLine(line));
}

TEST_CASE("isCharmrun looks at the name of argv[0]", "[charm]") {
  CHECK(CharmJob::isCharmrun({"./charmrun", "+p2", "./app"}));
  CHECK(CharmJob::isCharmrun({"/opt/charm/bin/charmrun"}));
  CHECK_FALSE(CharmJob::isCharmrun({"mpiexec", "./charmrun"}));
  CHECK_FALSE(CharmJob::isCharmrun({}));
}

TEST_CASE("writeCharmKeyFile writes a private key file Charm++'s reading gives back", "[charm]") {
  char dir[] = "/tmp/mpidbg-charm-key-XXXXXX";
  REQUIRE(::mkdtemp(dir) != nullptr);
  auto written = mpidbg::core::charm::writeCharmKeyFile(dir);
  REQUIRE(written);
  struct stat st{};
  REQUIRE(::stat(written->first.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  std::ifstream in(written->first);
  std::stringstream text;
  text << in.rdbuf();
  // "0 " and 32 decimal digits: each pair one key byte 0..99, as sscanf("%d") reads it.
  REQUIRE(text.str().size() == 35);
  CHECK(text.str().starts_with("0 "));
  for (std::size_t i = 2; i < 34; ++i) CHECK(std::isdigit(static_cast<unsigned char>(text.str()[i])));
  auto table = mpidbg::ccs::loadCharmKeyFile(written->first, mpidbg::ccs::KeyDigits::Decimal);
  REQUIRE(table);
  REQUIRE(table->find(0) != nullptr);
  CHECK(*table->find(0) == written->second);
  // Two files: two keys.
  auto again = mpidbg::core::charm::writeCharmKeyFile(dir);
  REQUIRE(again);
  CHECK(again->second != written->second);
  ::unlink(written->first.c_str());
  ::rmdir(dir);
}
