// Typed ers (PUP::fmtWriter, PUP::textWriter) against the Charm++ captures
// 05b/05c (../shared/vectors/ccs/) and the encodings pup_ers.hpp documents.
#include <catch2/catch.hpp>
#include <functional>

#include "PupTypes.hpp"

using namespace pup_test;

namespace {

/// One item of Charm++'s "charm/entries" list, as captures 05b/05c show it.
struct Entry {
  std::string name;
  int index = 0;
  int msgIdx = 0;
  int chareIdx = 0;
  bool inCharm = false;
  void pup(PUP::er& p) {
    PUP(name);
    PUP(index);
    PUP(msgIdx);
    PUP(chareIdx);
    PUP(inCharm);
  }
};

/// Items 0..3 of "charm/entries" wrapped in the CpdList helpers.
void writeEntries(PUP::er& p) {
  std::vector<Entry> entries = {{"dummy_thread_ep", 0, 0, 0, true},
                                {"dummy_pack_ep", 1, 1, 1, true},
                                {"dummy_unpack_ep", 2, 2, 2, true},
                                {"SDAG_RTS", 3, 3, 3, true}};
  PUP::beginList(p);
  for (auto& entry : entries) PUP::listItem(p, entry);
  PUP::endList(p);
}

std::string toHex(const std::vector<std::uint8_t>& bytes) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (auto b : bytes) {
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

std::string repeat(const std::string& text, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += text;
  return out;
}

std::string fmtHex(const std::function<void(PUP::er&)>& write) {
  PUP::fmtWriter w;
  write(w);
  return toHex(w.bytes());
}

std::string text(const std::function<void(PUP::er&)>& write) {
  PUP::textWriter w;
  write(w);
  return w.str();
}

}  // namespace

TEST_CASE("pup fmtWriter reproduces capture 05c byte for byte", "[pup]") {
  auto expected = replyData("05c_list_items_fmt_charm_entries_0_4.txt");
  REQUIRE(expected.size() == 338);
  PUP::fmtWriter w;
  writeEntries(w);
  CHECK(toHex(w.bytes()) == toHex(expected));
  CHECK_FALSE(w.failed());
}

TEST_CASE("pup textWriter reproduces capture 05b byte for byte", "[pup]") {
  auto expected = replyData("05b_list_items_txt_charm_entries_0_4.txt");
  REQUIRE(expected.size() == 510);
  PUP::textWriter w;
  writeEntries(w);
  std::string reply = w.str();
  reply += '\0';  // appended by whoever finishes the ccs_list_items.txt reply
  CHECK(reply == std::string(expected.begin(), expected.end()));
}

TEST_CASE("pup fmtWriter encodings", "[pup]") {
  struct Row {
    const char* name;
    std::function<void(PUP::er&)> write;
    std::string hex;
  };
  const std::string b = "0b71100000", e = "0b72100000", it = "0b70110000";
  const std::string bo = "0b71300000", eo = "0b72300000";
  const Row rows[] = {
      {"int", [](PUP::er& p) { int v = -2; p | v; }, "02fffffffe"},
      {"bool false", [](PUP::er& p) { bool v = false; p | v; }, "0200000000"},
      {"short", [](PUP::er& p) { short v = -1; p | v; }, "02ffffffff"},
      {"unsigned short", [](PUP::er& p) { unsigned short v = 65535; p | v; }, "020000ffff"},
      {"unsigned int as int64", [](PUP::er& p) { unsigned v = 4000000000u; p | v; },
       "0300000000ee6b2800"},
      {"long", [](PUP::er& p) { long v = -3; p | v; }, "03fffffffffffffffd"},
      {"float", [](PUP::er& p) { float v = 1.5f; p | v; }, "053fc00000"},
      {"double", [](PUP::er& p) { double v = 1.5; p | v; }, "063ff8000000000000"},
      {"long double as double", [](PUP::er& p) { long double v = 1.5L; p | v; },
       "063ff8000000000000"},
      {"unsigned char", [](PUP::er& p) { unsigned char v = 0xab; p | v; }, "00ab"},
      {"std::byte", [](PUP::er& p) { std::byte v{0xcd}; p | v; }, "00cd"},
      {"enum", [](PUP::er& p) { Color v = Color::Green; p | v; }, "0007"},
      {"single char is a string", [](PUP::er& p) { char v = 'A'; p | v; }, "100141"},
      {"empty string", [](PUP::er& p) { std::string v; p | v; }, "1000"},
      {"string of 256 bytes has a 4-byte count",
       [](PUP::er& p) { std::string v(256, 'a'); p | v; }, "2000000100" + repeat("61", 256)},
      {"int array", [](PUP::er& p) { int v[3] = {1, 2, 3}; p | v; },
       "1203000000010000000200000003"},
      {"empty int array", [](PUP::er& p) { std::array<int, 0> v; p | v; }, "1200"},
      {"vector<int>", [](PUP::er& p) { std::vector<int> v = {1, 2}; p | v; },
       b + it + "0200000001" + it + "0200000002" + e},
      {"empty vector", [](PUP::er& p) { std::vector<double> v; p | v; }, b + e},
      {"vector<bool>", [](PUP::er& p) { std::vector<bool> v = {true}; p | v; },
       b + it + "0200000001" + e},
      {"optional empty and set",
       [](PUP::er& p) { std::optional<int> none, one = 4; p | none; p | one; },
       b + e + b + it + "0200000004" + e},
      {"pair", [](PUP::er& p) { std::pair<int, char> v{1, 'x'}; p | v; },
       bo + "1a056669727374" + "0200000001" + "1a067365636f6e64" + "100178" + eo},
      {"map item has key and value",
       [](PUP::er& p) { std::map<int, int> v{{1, 2}}; p | v; },
       b + it + "1a036b6579" + "0200000001" + "1a0576616c7565" + "0200000002" + e},
      {"object with PUP labels", [](PUP::er& p) { Particle v{1, 2, 3}; p | v; },
       bo + "1a0178" + "063ff0000000000000" + "1a0179" + "064000000000000000" + "1a026964" +
           "0200000003" + eo},
      {"pointer", [](PUP::er& p) { p.pointer(reinterpret_cast<const void*>(0x1234)); },
       "0c0000000000001234"},
      {"sync end system", [](PUP::er& p) { p.syncer(PUP::sync::endSystem); }, "0b79000000"},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    CHECK(fmtHex(row.write) == row.hex);
  }
}

TEST_CASE("pup fmtWriter pointer() and long comments", "[pup]") {
  PUP::fmtWriter w;
  CHECK(w.isTyped());
  CHECK(w.isPacking());
  w.comment(std::string(300, 'c'));
  REQUIRE(w.bytes().size() == 5 + 300);
  CHECK(w.bytes()[0] == 0x2a);
  CHECK(w.bytes()[3] == 0x01);
  CHECK(w.bytes()[4] == 0x2c);
}

TEST_CASE("pup textWriter encodings", "[pup]") {
  struct Row {
    const char* name;
    std::function<void(PUP::er&)> write;
    std::string text;
  };
  const Row rows[] = {
      {"int", [](PUP::er& p) { int v = -2; p | v; }, "int=-2;\n"},
      {"bool false", [](PUP::er& p) { bool v = false; p | v; }, "bool=false;\n"},
      {"unsigned long", [](PUP::er& p) { unsigned long v = 18000000000000000000UL; p | v; },
       "ulong=18000000000000000000;\n"},
      {"signed char", [](PUP::er& p) { signed char v = -3; p | v; }, "schar=-3;\n"},
      {"unsigned char", [](PUP::er& p) { unsigned char v = 200; p | v; }, "uchar=200;\n"},
      {"float shortest", [](PUP::er& p) { float v = 0.1f; p | v; }, "float=0.1;\n"},
      {"double shortest", [](PUP::er& p) { double v = 0.1; p | v; }, "double=0.1;\n"},
      {"string escapes", [](PUP::er& p) { std::string v("a\"b\\c\n\t\x01", 8); p | v; },
       "string=\"a\\\"b\\\\c\\n\\t\\x01\";\n"},
      {"int array indents its items",
       [](PUP::er& p) { int v[2] = {1, 2}; p | v; },
       "begin array 2 {\n\tint=1;\n\tint=2;\n} end array;\n"},
      {"labelled object", [](PUP::er& p) { Particle v{0.5, -1, 7}; p | v; },
       "sync=0x71300000\n//x\ndouble=0.5;\n//y\ndouble=-1;\n//id\nint=7;\nsync=0x72300000\n"},
      {"vector of strings",
       [](PUP::er& p) { std::vector<std::string> v = {"a"}; p | v; },
       "sync=0x71100000\nsync=0x70110000\nstring=\"a\";\nsync=0x72100000\n"},
      {"pointer", [](PUP::er& p) { p.pointer(reinterpret_cast<const void*>(0xbeef)); },
       "pointer=0xbeef;\n"},
      {"null pointer", [](PUP::er& p) { p.pointer(nullptr); }, "pointer=0x0;\n"},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    CHECK(text(row.write) == row.text);
  }
}

TEST_CASE("pup typed ers walk every supported type", "[pup]") {
  Everything e = filled();
  PUP::fmtWriter fmt;
  fmt | e;
  CHECK_FALSE(fmt.failed());
  PUP::textWriter txt;
  txt | e;
  CHECK(txt.str().find("//grid2\n") != std::string::npos);
  CHECK(txt.str().find("//str\nstring=\"hello\\x00world \\\"quoted\\\"\\n\";\n") !=
        std::string::npos);
  CHECK(txt.str().find("//c32\nuint=128512;\n") != std::string::npos);
}
