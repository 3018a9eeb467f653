// Binary ers (runtime/include/mpidbg/pup_ers.hpp): sizer, packer, unpacker,
// deleter over every supported type; truncated and hostile input.
#include <catch2/catch.hpp>
#include <cstring>

#include "PupTypes.hpp"

using namespace pup_test;

namespace {

/// Packs `value`, checks the sizer agrees, unpacks into `into` and returns it.
template <class T>
T roundTrip(T value, T into = T{}) {
  PUP::sizer sizer;
  sizer | value;
  std::vector<std::byte> bytes = PUP::pack(value);
  CHECK(sizer.size() == bytes.size());
  CHECK(PUP::packedSize(value) == bytes.size());
  CHECK(PUP::unpack(bytes, into));
  return into;
}

}  // namespace

TEST_CASE("pup round trip of every supported type", "[pup]") {
  Everything original = filled();
  Everything junk = filled();  // unpacking must clear, not append
  junk.vi = {9, 9, 9, 9, 9, 9};
  junk.m = {{"zz", 1}};
  junk.mm = {{5, "x"}};
  junk.vb = {false};
  junk.lp.clear();
  junk.oi.reset();
  junk.onone = 3;
  junk.emptyStr = "not empty";
  junk.emptyVi = {1};
  Everything copy = roundTrip(original, junk);
  CHECK(copy == original);
  CHECK(copy.str.size() == 21);
  CHECK(copy.mm.size() == 3);
  CHECK(std::next(copy.mm.begin())->second == "a");  // equal keys keep their order
}

TEST_CASE("pup round trip of single values and empty containers", "[pup]") {
  CHECK(roundTrip(std::string()) == "");
  CHECK(roundTrip(std::vector<int>{}, {1, 2}).empty());
  CHECK(roundTrip(std::vector<bool>{}).empty());
  CHECK(roundTrip(std::list<std::string>{}, {"x"}).empty());
  CHECK(roundTrip(std::map<int, int>{}, {{1, 1}}).empty());
  CHECK(roundTrip(std::vector<std::vector<int>>{{}, {}, {1}}) ==
        std::vector<std::vector<int>>{{}, {}, {1}});
  CHECK(roundTrip(std::optional<std::string>{}, std::optional<std::string>("x")) == std::nullopt);
  CHECK(roundTrip(std::tuple<>{}) == std::tuple<>{});
  CHECK(roundTrip(true));
  CHECK(roundTrip(-1.0 / 3) == -1.0 / 3);
  CHECK(roundTrip(std::vector<bool>(1000, true)).size() == 1000);
  CHECK(roundTrip(std::map<std::string, std::vector<std::optional<int>>>{{"k", {1, {}, 3}}}) ==
        std::map<std::string, std::vector<std::optional<int>>>{{"k", {1, {}, 3}}});
}

TEST_CASE("pup sizer matches the packed size", "[pup]") {
  Everything e = filled();
  PUP::sizer sizer;
  sizer | e;
  std::vector<std::byte> out = {std::byte{1}, std::byte{2}};
  PUP::packer packer(out);  // appends to a caller's vector
  packer | e;
  CHECK(sizer.size() + 2 == out.size());
  CHECK(packer.bytes().size() == out.size());
  CHECK(out[0] == std::byte{1});

  std::string s(300, 'x');
  CHECK(PUP::packedSize(s) == 8 + 300);
  std::vector<double> v(7);
  CHECK(PUP::packedSize(v) == 8 + 7 * sizeof(double));
  int array[5] = {};
  CHECK(PUP::packedSize(array) == 5 * sizeof(int));
}

TEST_CASE("pup unpack fails cleanly on every truncation", "[pup]") {
  Everything e = filled();
  std::vector<std::byte> bytes = PUP::pack(e);
  REQUIRE(bytes.size() > 100);
  for (std::size_t length = 0; length < bytes.size(); ++length) {
    // A copy of exactly `length` bytes, so ASan sees any read past its end.
    std::vector<std::byte> prefix(bytes.begin(), bytes.begin() + static_cast<long>(length));
    Everything into;
    PUP::unpacker p(prefix);
    p | into;
    INFO("prefix length " << length);
    CHECK(p.failed());
    CHECK(p.consumed() <= length);
  }
  Everything into;
  std::vector<std::byte> longer = bytes;
  longer.push_back(std::byte{0});
  CHECK_FALSE(PUP::unpack(longer, into));  // a trailing byte is an error too
}

TEST_CASE("pup unpack rejects hostile counts without allocating them", "[pup]") {
  struct Row {
    const char* name;
    std::uint64_t count;
    std::size_t extra;
  };
  const Row rows[] = {
      {"count near 2^64", ~std::uint64_t{0}, 16},
      {"count 2^62", std::uint64_t{1} << 62, 16},
      {"count one past the data", 5, 16},
  };
  for (const auto& row : rows) {
    INFO(row.name);
    std::vector<std::byte> bytes(8 + row.extra);
    std::memcpy(bytes.data(), &row.count, 8);
    std::vector<int> ints{1};
    PUP::unpacker p(bytes);
    p | ints;
    CHECK(p.failed());
    CHECK(ints.empty());
    std::string text = "x";
    CHECK_FALSE(PUP::unpack(std::span<const std::byte>(bytes), text));
    std::optional<int> two;
    std::uint64_t n = 2;
    std::memcpy(bytes.data(), &n, 8);
    CHECK_FALSE(PUP::unpack(std::span<const std::byte>(bytes), two));
  }
}

TEST_CASE("pup unpack reads any nonzero byte as true", "[pup]") {
  std::vector<std::uint8_t> raw = {0x02, 0x00};
  bool first = false;
  bool second = true;
  PUP::unpacker p{std::span<const std::uint8_t>(raw)};
  p | first;
  p | second;
  CHECK(first);
  CHECK_FALSE(second);
  CHECK_FALSE(p.failed());
}

namespace {
struct Owner {
  int* heap = nullptr;
  int deletes = 0;
  void pup(PUP::er& p) {
    if (p.isUnpacking()) heap = new int(0);
    p | *heap;
    if (p.isDeleting()) {
      delete heap;
      heap = nullptr;
      ++deletes;
    }
  }
};
}  // namespace

TEST_CASE("pup modes and the deleter walk", "[pup]") {
  PUP::sizer sizer;
  PUP::packer packer;
  PUP::deleter deleter;
  PUP::unpacker unpacker(std::span<const std::byte>{});
  CHECK(sizer.isSizing());
  CHECK(packer.isPacking());
  CHECK(unpacker.isUnpacking());
  CHECK(deleter.isDeleting());
  CHECK_FALSE(packer.isTyped());

  Owner owner;
  owner.heap = new int(41);
  std::vector<std::byte> bytes = PUP::pack(owner);
  Owner copy;
  REQUIRE(PUP::unpack(bytes, copy));
  CHECK(*copy.heap == 41);
  std::vector<Owner> owners(3);
  for (auto& o : owners) o.heap = new int(1);
  deleter | owners;
  deleter | owner;
  deleter | copy;
  CHECK(owner.heap == nullptr);
  CHECK(copy.heap == nullptr);
  for (const auto& o : owners) CHECK(o.deletes == 1);
}
