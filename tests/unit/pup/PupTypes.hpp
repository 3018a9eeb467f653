#pragma once

// Object types the PUP tests share: one of every supported field type, and
// the "charm/entries" item of captures 05b/05c.
#include <cstdint>
#include <string>
#include <vector>

#include "../ccs/Transcript.hpp"
#include "runtime/include/mpidbg/pup.hpp"

namespace pup_test {

/// Reply data of a ccs_list_items capture: the server bytes after the 4-byte length.
inline std::vector<std::uint8_t> replyData(const std::string& capture) {
  auto transcript = mpidbg::ccs::test::readTranscript(capture);
  if (!transcript.ok || transcript.connections.empty() ||
      transcript.connections[0].server.size() < 4)
    return {};
  const auto& server = transcript.connections[0].server;
  return std::vector<std::uint8_t>(server.begin() + 4, server.end());
}

enum class Color : std::uint8_t { Red, Green = 7 };
enum Plain { PlainA, PlainB = 100000 };

struct Particle {
  double x = 0;
  double y = 0;
  int id = 0;
  void pup(PUP::er& p) {
    PUP(x);
    PUP(y);
    PUP(id);
  }
  bool operator==(const Particle&) const = default;
  auto operator<=>(const Particle&) const = default;
};

namespace user {
/// A type pupped by a free operator| found through ADL.
struct Free {
  int a = 0;
  std::string s;
  bool operator==(const Free&) const = default;
};
inline void operator|(PUP::er& p, Free& f) {
  p.syncer(PUP::sync::beginObject);
  p.comment("a");
  p | f.a;
  p.comment("s");
  p | f.s;
  p.syncer(PUP::sync::endObject);
}
}  // namespace user

/// One field of every type pup.hpp supports.
struct Everything {
  bool b = false;
  char c = 0;
  signed char sc = 0;
  unsigned char uc = 0;
  short s = 0;
  unsigned short us = 0;
  int i = 0;
  unsigned u = 0;
  long l = 0;
  unsigned long ul = 0;
  long long ll = 0;
  unsigned long long ull = 0;
  std::int8_t i8 = 0;
  std::uint16_t u16 = 0;
  std::int32_t i32 = 0;
  std::uint64_t u64 = 0;
  float f = 0;
  double d = 0;
  long double ld = 0;
  char8_t c8 = 0;
  char16_t c16 = 0;
  char32_t c32 = 0;
  wchar_t wc = 0;
  Color color = Color::Red;
  Plain plain = PlainA;
  std::byte byte{0};
  std::string str;
  std::string emptyStr;
  std::vector<int> vi;
  std::vector<int> emptyVi;
  std::vector<bool> vb;
  std::vector<std::string> vs;
  std::vector<std::vector<double>> vvd;
  std::vector<Particle> vp;
  std::list<Particle> lp;
  std::map<std::string, int> m;
  std::multimap<int, std::string> mm;
  std::array<int, 3> ai{};
  std::array<Particle, 2> ap{};
  int carr[4]{};
  double grid2[2][3]{};
  std::pair<int, std::string> pr;
  std::tuple<int, double, std::string> tup;
  std::optional<int> oi;
  std::optional<int> onone;
  std::optional<Particle> op;
  user::Free fr;
  std::map<int, std::vector<Particle>> nested;
  Particle single;

  void pup(PUP::er& p) {
    PUP(b); PUP(c); PUP(sc); PUP(uc); PUP(s); PUP(us); PUP(i); PUP(u); PUP(l); PUP(ul);
    PUP(ll); PUP(ull); PUP(i8); PUP(u16); PUP(i32); PUP(u64); PUP(f); PUP(d); PUP(ld);
    PUP(c8); PUP(c16); PUP(c32); PUP(wc); PUP(color); PUP(plain); PUP(byte); PUP(str);
    PUP(emptyStr); PUP(vi); PUP(emptyVi); PUP(vb); PUP(vs); PUP(vvd); PUP(vp); PUP(lp); PUP(m);
    PUP(mm); PUP(ai); PUP(ap); PUP(carr); PUP(grid2); PUP(pr); PUP(tup); PUP(oi); PUP(onone);
    PUP(op); PUP(fr); PUP(nested); PUP(single);
  }
  bool operator==(const Everything&) const = default;
};

/// An Everything with a non-default value in every field.
inline Everything filled() {
  Everything e;
  e.b = true;
  e.c = 'q';
  e.sc = -5;
  e.uc = 250;
  e.s = -30000;
  e.us = 65000;
  e.i = -2000000000;
  e.u = 4000000000u;
  e.l = -9000000000000000000L;
  e.ul = 18000000000000000000UL;
  e.ll = -42;
  e.ull = 42;
  e.i8 = -128;
  e.u16 = 65535;
  e.i32 = 123456;
  e.u64 = 0xfedcba9876543210ull;
  e.f = 0.1f;
  e.d = -2.5e-300;
  e.ld = 1.0L / 3;
  e.c8 = u8'x';
  e.c16 = u'\u00e9';
  e.c32 = U'\U0001f600';
  e.wc = L'w';
  e.color = Color::Green;
  e.plain = PlainB;
  e.byte = std::byte{0xab};
  e.str = std::string("hello\0world \"quoted\"\n", 21);
  e.vi = {1, -2, 3};
  e.vb = {true, false, true, true};
  e.vs = {"", "a", "bc"};
  e.vvd = {{}, {1.5}, {2.5, 3.5}};
  e.vp = {{1, 2, 3}, {4, 5, 6}};
  e.lp = {{7, 8, 9}};
  e.m = {{"one", 1}, {"two", 2}};
  e.mm = {{1, "a"}, {1, "b"}, {0, "z"}};
  e.ai = {10, 20, 30};
  e.ap = {Particle{1, 1, 1}, Particle{2, 2, 2}};
  e.carr[0] = 1;
  e.carr[3] = 4;
  e.grid2[1][2] = 12.5;
  e.pr = {5, "five"};
  e.tup = {6, 6.5, "six"};
  e.oi = 77;
  e.op = Particle{0.5, 0.25, 8};
  e.fr = {9, "nine"};
  e.nested = {{1, {}}, {2, {{1, 2, 3}}}};
  e.single = {3, 4, 5};
  return e;
}

}  // namespace pup_test
