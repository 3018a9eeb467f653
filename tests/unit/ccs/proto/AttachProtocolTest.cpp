#include <catch2/catch.hpp>

#include "ccs/proto/AttachProtocol.hpp"

namespace proto = mpidbg::ccs::proto;

namespace {

proto::AttachFile sample() {
  proto::AttachFile f;
  f.size = 3;
  f.key.assign(32, 0xab);
  f.mpiLibrary = "MPICH Version: 4.0.2";
  f.ranks = {{0, "127.0.0.1", 40123, 9876, "node1"}, {2, "10.0.0.2", 40125, 9880, "node2"}};
  return f;
}

std::string keyHex() { return std::string(64, 'a').replace(0, 64, std::string(32, 'a') + std::string(32, 'b')); }

}  // namespace

TEST_CASE("attach file: round trip, comments and the rank a server did not start", "[attach]") {
  const std::string text = proto::encode(sample());
  CHECK(text.starts_with("mpidbg-attach 1\n# "));
  CHECK(text.find("rank 0 127.0.0.1 40123 9876 node1\n") != std::string::npos);
  auto back = proto::decodeAttachFile(text);
  REQUIRE(back);
  CHECK(back->size == 3);
  CHECK_FALSE(back->plain);
  CHECK(back->key == sample().key);
  CHECK(back->mpiLibrary == "MPICH Version: 4.0.2");
  REQUIRE(back->ranks.size() == 2);  // rank 1 has no line
  CHECK(back->ranks[1].rank == 2);
  CHECK(back->ranks[1].address == "10.0.0.2");
  CHECK(back->ranks[1].port == 40125);
  CHECK(back->ranks[1].pid == 9880);
  CHECK(back->ranks[1].host == "node2");
}

TEST_CASE("attach file: malformed files are refused with the line", "[attach]") {
  const std::string head = "mpidbg-attach 1\nsize 2\nkey " + keyHex() + "\n";
  struct Bad {
    std::string text;
    std::string error;
  };
  const Bad cases[] = {
      {"", "empty file: not an mpidbg attach file"},
      {"mpidbg-attach 2\n", "line 1: not an mpidbg attach file (expected 'mpidbg-attach 1')"},
      {"mpidbg-attach 1\nsize 0\n", "line 2: bad size '0'"},
      {"mpidbg-attach 1\nsize 2\nkey 00\nend\n", "line 3: the key is not 64 hex digits"},
      {"mpidbg-attach 1\nsize 2\nend\n", "no 'key' line"},
      {"mpidbg-attach 1\nkey " + keyHex() + "\nend\n", "no 'size' line"},
      {head, "no 'end' line: the file was cut short (is the job still starting?)"},
      {head + "rank 2 127.0.0.1 1 1 h\nend\n", "line 4: bad rank '2' (job size 2)"},
      {head + "rank 0 127.0.0.1 1 1 h\nrank 0 127.0.0.1 2 2 h\nend\n", "line 5: rank 0 named twice"},
      {head + "rank 0 127.0.0.1 0 1 h\nend\n", "line 4: bad port '0'"},
      {head + "rank 0 127.0.0.1 70000 1 h\nend\n", "line 4: bad port '70000'"},
      {head + "rank 0 127.0.0.1 5 -3 h\nend\n", "line 4: bad pid '-3'"},
      {head + "security none\nend\n", "line 4: unknown security 'none' (expected tls or plain)"},
      {head + "end\nsize 3\n", "line 5: text after 'end'"},
      {head + "bogus line\nend\n", "line 4: unexpected 'bogus line'"},
  };
  for (const Bad& c : cases) {
    INFO(c.text);
    auto decoded = proto::decodeAttachFile(c.text);
    REQUIRE_FALSE(decoded);
    CHECK(decoded.error().message == c.error);
  }
}
