// The communicator registry's table (runtime/CommTable.hpp): handle keys,
// communicator uids, registration, lookup, names, removal with slot reuse,
// the full table, and the snapshots the helper thread serves. No MPI: the
// registry's MPI half (describeComm, findOrRegister) is runtime/CommRegistry.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "runtime/CommTable.hpp"

namespace comm_table_test {

using mpidbg::rt::CommInfo;
using mpidbg::rt::CommRecord;
using mpidbg::rt::CommTable;
using mpidbg::rt::childUid;
using mpidbg::rt::handleKey;
using mpidbg::rt::kWorldUid;

/// A table on the heap: its 4,096 slots do not fit a test's stack.
std::unique_ptr<CommTable> newTable() { return std::make_unique<CommTable>(); }

CommInfo infoOf(std::string_view name, std::int32_t size = 4, std::int32_t localRank = 1,
                std::vector<std::int32_t> worldRanks = {}, std::uint64_t uid = 0) {
  CommInfo info;
  info.size = size;
  info.localRank = localRank;
  info.rootWorldRank = worldRanks.empty() ? -1 : worldRanks.front();
  info.name = name;
  info.worldRanks = std::move(worldRanks);
  info.uid = uid;
  return info;
}

struct Opaque {};

TEST_CASE("handleKey: integer handles zero-extended, pointer handles by address", "[runtime][comms]") {
  struct Row {
    int handle;
    std::uint64_t key;
  };
  const std::vector<Row> rows = {
      {0x44000000, 0x44000000},  // MPICH's MPI_COMM_WORLD
      {static_cast<int>(0x84000001u), 0x84000001},  // negative as int: no sign extension
      {0, 0},
      {-1, 0xffffffff},
  };
  for (const Row& row : rows) {
    INFO("handle " << row.handle);
    CHECK(handleKey(row.handle) == row.key);
    CHECK(handleKey(row.handle) != CommRecord::kNoKey);
  }
  Opaque object;
  Opaque* pointer = &object;  // Open MPI's handles are pointers
  CHECK(handleKey(pointer) == reinterpret_cast<std::uintptr_t>(&object));
  CHECK(handleKey(static_cast<Opaque*>(nullptr)) == 0);
}

TEST_CASE("childUid: the same on every member, different for other calls or members, 0 when unknown",
          "[runtime][comms]") {
  const std::vector<std::int32_t> even = {0, 2, 4, 6};
  const std::vector<std::int32_t> odd = {1, 3, 5, 7};
  const std::uint64_t dup1 = childUid(kWorldUid, 1, even);
  CHECK(dup1 != 0);
  CHECK(childUid(kWorldUid, 1, std::vector<std::int32_t>(even)) == dup1);  // another member computes it too
  struct Row {
    const char* what;
    std::uint64_t parent;
    std::uint64_t child;
    std::vector<std::int32_t> members;
    bool unknown;  ///< 0 expected
  };
  const std::vector<Row> rows = {
      {"unknown parent", 0, 1, even, true},
      {"unknown members", kWorldUid, 1, {}, true},
      {"the parent's second constructor", kWorldUid, 2, even, false},
      {"the other color of a split", kWorldUid, 1, odd, false},
      {"the same members in another order", kWorldUid, 1, {2, 0, 4, 6}, false},
      {"a member outside MPI_COMM_WORLD", kWorldUid, 1, {0, 2, 4, -1}, false},
      {"a grandchild", dup1, 1, even, false},
  };
  std::set<std::uint64_t> seen = {dup1};
  for (const Row& row : rows) {
    INFO(row.what);
    const std::uint64_t uid = childUid(row.parent, row.child, row.members);
    if (row.unknown) {
      CHECK(uid == 0);
    } else {
      CHECK(uid != 0);
      CHECK(seen.insert(uid).second);  // differs from every uid before
    }
  }
}

TEST_CASE("CommTable registers, finds, renames and forgets communicators by handle key", "[runtime][comms]") {
  auto table = newTable();
  enum class Act { Add, Rename, Remove };
  struct Row {
    Act act;
    std::uint64_t handle;
    std::string name;
    /// nameOf(handle) afterwards; "comm 0x..." when not registered.
    std::string nameAfter;
    std::size_t live;  ///< snapshot().size() afterwards
  };
  const std::vector<Row> rows = {
      {Act::Add, 0x44000000, "MPI_COMM_WORLD", "MPI_COMM_WORLD", 1},
      {Act::Add, 0x84000001, "comm 0x84000001", "comm 0x84000001", 2},
      {Act::Rename, 0x84000001, "halo", "halo", 2},
      {Act::Rename, 0x84000002, "nobody", "comm 0x84000002", 2},  // unknown: no-op
      {Act::Rename, 0x84000001, std::string(70, 'n'), std::string(63, 'n'), 2},  // truncated to 63 bytes
      {Act::Remove, 0x84000001, "", "comm 0x84000001", 1},
      {Act::Remove, 0x84000001, "", "comm 0x84000001", 1},  // twice: no-op
      {Act::Add, 0x84000001, "again", "again", 2},
      {Act::Remove, 0x44000000, "", "comm 0x44000000", 1},
  };
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    INFO("row " << i);
    switch (row.act) {
      case Act::Add: {
        CommRecord* added = table->add(row.handle, infoOf(row.name));
        REQUIRE(added != nullptr);
        CHECK(table->find(row.handle) == added);
        CHECK(added->holds(row.handle));
        break;
      }
      case Act::Rename: table->rename(row.handle, row.name); break;
      case Act::Remove:
        table->remove(row.handle);
        CHECK(table->find(row.handle) == nullptr);
        break;
    }
    CHECK(table->nameOf(row.handle) == row.nameAfter);
    CHECK(table->snapshot().size() == row.live);
  }
}

TEST_CASE("CommTable::add of a live handle replaces its record and restarts its counters", "[runtime][comms]") {
  auto table = newTable();
  CommRecord* first = table->add(0x84000001, infoOf("a", 4, 1, {0, 1, 2, 3}, 77));
  REQUIRE(first != nullptr);
  const std::uint32_t generation = first->generation.load();
  first->entries[2].store(5);
  first->exits[2].store(4);
  first->collSeq.store(9);
  first->children.store(3);

  CommRecord* again = table->add(0x84000001, infoOf("b", 2, 0, {5, 6}, 78));
  CHECK(again == first);  // the same slot
  CHECK(again->generation.load() == generation + 1);
  CHECK(again->entries[2].load() == 0);
  CHECK(again->exits[2].load() == 0);
  CHECK(again->collSeq.load() == 0);
  CHECK(again->children.load() == 0);
  const auto snapshot = table->queueSnapshot();
  REQUIRE(snapshot.size() == 1);
  CHECK(snapshot[0].state.name == "b");
  CHECK(snapshot[0].state.size == 2);
  CHECK(snapshot[0].state.uid == 78);
  CHECK(snapshot[0].worldRanks == std::vector<std::int32_t>{5, 6});
}

TEST_CASE("CommTable snapshots: counts, active classes, world ranks and collective sequence", "[runtime][comms]") {
  auto table = newTable();
  CommRecord* world = table->add(0x44000000, infoOf("MPI_COMM_WORLD", 4, 2, {0, 1, 2, 3}, kWorldUid));
  REQUIRE(world != nullptr);
  struct Row {
    std::size_t collClass;
    std::uint64_t entries;
    std::uint64_t exits;
    bool active;
  };
  const std::vector<Row> rows = {{0, 3, 3, false}, {1, 2, 1, true}, {4, 1, 0, true}, {5, 0, 0, false}};
  for (const Row& row : rows) {
    world->entries[row.collClass].store(row.entries);
    world->exits[row.collClass].store(row.exits);
  }
  world->collSeq.store(6);

  const auto states = table->snapshot();
  REQUIRE(states.size() == 1);
  const auto& state = states[0];
  CHECK(state.handle == 0x44000000);
  CHECK(state.name == "MPI_COMM_WORLD");
  CHECK(state.size == 4);
  CHECK(state.localRank == 2);
  CHECK(state.rootWorldRank == 0);
  CHECK(state.uid == kWorldUid);
  for (const Row& row : rows) {
    INFO("class " << row.collClass);
    CHECK(state.counts[row.collClass] == row.entries);
    CHECK(state.active[row.collClass] == row.active);
  }
  const auto queues = table->queueSnapshot();
  REQUIRE(queues.size() == 1);
  CHECK(queues[0].worldRanks == std::vector<std::int32_t>{0, 1, 2, 3});
  CHECK(queues[0].collSeq == 6);
  CHECK(queues[0].state.counts == state.counts);
}

TEST_CASE("CommTable keeps a slot's world-rank array, growing it to a power of two", "[runtime][comms]") {
  auto table = newTable();
  struct Row {
    std::size_t members;
    std::uint32_t capacity;  ///< worldRanksCapacity afterwards
    bool sameArray;          ///< the previous array was reused
  };
  const std::vector<Row> rows = {{3, 16, false}, {16, 16, true}, {17, 32, false}, {5, 32, true}, {0, 32, true}};
  const std::int32_t* previous = nullptr;
  for (const Row& row : rows) {
    INFO(row.members << " members");
    std::vector<std::int32_t> ranks;
    for (std::size_t r = 0; r < row.members; ++r) ranks.push_back(static_cast<std::int32_t>(100 + r));
    CommRecord* record =
        table->add(0x84000007, infoOf("c", static_cast<std::int32_t>(row.members), 0, ranks));
    REQUIRE(record != nullptr);
    CHECK(record->worldRanksCapacity == row.capacity);
    if (previous) CHECK((record->worldRanksStorage == previous) == row.sameArray);
    previous = record->worldRanksStorage;
    // No members: no array published (the slot keeps its storage).
    CHECK((record->worldRanks.load() == nullptr) == ranks.empty());
    const auto queues = table->queueSnapshot();
    REQUIRE(queues.size() == 1);
    CHECK(queues[0].worldRanks == ranks);
  }
}

TEST_CASE("CommTable holds kCapacity communicators; removed slots are reused", "[runtime][comms]") {
  auto table = newTable();
  const auto handleOf = [](std::size_t i) { return std::uint64_t{0x84000000} + i; };
  for (std::size_t i = 0; i < CommTable::kCapacity; ++i) REQUIRE(table->add(handleOf(i), infoOf("c")) != nullptr);
  CHECK(table->add(handleOf(CommTable::kCapacity), infoOf("late")) == nullptr);
  CHECK(table->find(handleOf(CommTable::kCapacity)) == nullptr);
  CHECK(table->nameOf(handleOf(CommTable::kCapacity)) == "comm 0x84001000");
  CHECK(table->snapshot().size() == CommTable::kCapacity);

  // Every tenth removed; their slots take new communicators and every
  // remaining one is still found across the tombstones.
  std::size_t removed = 0;
  for (std::size_t i = 0; i < CommTable::kCapacity; i += 10, ++removed) table->remove(handleOf(i));
  for (std::size_t k = 0; k < removed; ++k)
    REQUIRE(table->add(handleOf(CommTable::kCapacity + k), infoOf("new")) != nullptr);
  CHECK(table->add(handleOf(CommTable::kCapacity + removed), infoOf("late")) == nullptr);
  std::size_t found = 0;
  for (std::size_t i = 0; i < CommTable::kCapacity + removed; ++i)
    if (CommRecord* r = table->find(handleOf(i))) found += r->holds(handleOf(i)) ? 1 : 0;
  CHECK(found == CommTable::kCapacity);
  for (std::size_t i = 0; i < CommTable::kCapacity; i += 10) CHECK(table->find(handleOf(i)) == nullptr);
}

}  // namespace comm_table_test
