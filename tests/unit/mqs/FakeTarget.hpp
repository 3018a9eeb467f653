#pragma once
// A fake target process for testing libmpidbg-mqs.so without MPI: memory
// regions at fake addresses, a symbol table, and the debugger callbacks of
// mpi_interface.h over them, plus the DLL itself loaded with dlopen from its
// build path (MPIDBG_MQS_DLL), so the tests go through the exported C ABI.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "mpidbg_mqs.h"

namespace mpidbg::mqs::test {

/// The DLL's exported functions, looked up by name (which also proves they
/// are exported). Loaded once per test process; throws std::runtime_error
/// with dlerror() when the DLL or a symbol is missing.
struct Dll {
  mqs_setup_basic_callbacks_t setupBasicCallbacks;
  mqs_version_string_t versionString;
  mqs_version_compatibility_t versionCompatibility;
  mqs_dll_taddr_width_t taddrWidth;
  mqs_dll_error_string_t errorString;
  mqs_setup_image_t setupImage;
  mqs_image_has_queues_t imageHasQueues;
  mqs_destroy_image_info_t destroyImageInfo;
  mqs_setup_process_t setupProcess;
  mqs_process_has_queues_t processHasQueues;
  mqs_destroy_process_info_t destroyProcessInfo;
  mqs_update_communicator_list_t updateCommunicatorList;
  mqs_setup_communicator_iterator_t setupCommunicatorIterator;
  mqs_get_communicator_t getCommunicator;
  mqs_next_communicator_t nextCommunicator;
  mqs_get_comm_group_t getCommGroup;
  mqs_setup_operation_iterator_t setupOperationIterator;
  mqs_next_operation_t nextOperation;
  mqs_get_comm_coll_state_t getCommCollState;
  mpidbg_mqs_get_call_t getCall;
  mpidbg_mqs_last_operation_detail_t lastOperationDetail;
  mpidbg_mqs_get_comm_coll_seq_t getCommCollSeq;
  mpidbg_mqs_get_comm_uid_t getCommUid;
  mpidbg_mqs_setup_coll_history_t setupCollHistory;
  mpidbg_mqs_next_coll_record_t nextCollRecord;

  static const Dll& get();
};

/// The basic callbacks every test installs (malloc/free, info put/get
/// through the fake handles, debug lines collected in debugLines()).
const mqs_basic_callbacks& basicCallbacks();
/// Lines the DLL printed through mqs_dprints_fp since clearDebugLines().
std::vector<std::string>& debugLines();
void clearDebugLines();
/// True when some debug line contains `text`.
bool debugSaid(const std::string& text);

/// One fake process with its image. Addresses start high and regions are
/// separated by unmapped gaps, so a read past a region fails like an
/// unmapped page. Integers are written in the target's byte order
/// (`bigEndian` makes the DLL rely on mqs_target_to_host_fp).
class FakeTarget {
 public:
  explicit FakeTarget(bool bigEndian = false) : bigEndian_(bigEndian) {}
  ~FakeTarget();
  FakeTarget(const FakeTarget&) = delete;
  FakeTarget& operator=(const FakeTarget&) = delete;

  /// A new zeroed region of `size` bytes; its address.
  std::uint64_t allocate(std::size_t size);
  /// Copies `size` bytes to `address`; the range must lie in one region.
  void write(std::uint64_t address, const void* data, std::size_t size);
  /// Writes the low `size` bytes of `value` in target byte order.
  void writeInt(std::uint64_t address, std::uint64_t value, std::size_t size);
  /// Copies from one region; false when the range is not inside one.
  bool read(std::uint64_t address, std::size_t size, void* out) const;
  /// Shrinks the region at `base` to `size` bytes (truncated data).
  void truncate(std::uint64_t base, std::size_t size);
  /// The bytes of the region at `base`.
  std::vector<std::byte>& region(std::uint64_t base);
  /// The base address of every region.
  std::vector<std::uint64_t> regionBases() const;

  void defineSymbol(const std::string& name, std::uint64_t address) { symbols_[name] = address; }
  bool bigEndian() const { return bigEndian_; }

  /// Called before each fetch (to change memory between reads, as a running
  /// writer would); return false to make that fetch fail.
  std::function<bool(std::uint64_t address, int size)> onFetch;
  /// Fetches the DLL made.
  int fetches = 0;

  mqs_process* process() { return reinterpret_cast<mqs_process*>(this); }
  mqs_image* image() { return reinterpret_cast<mqs_image*>(&imageTag_); }
  static FakeTarget* of(mqs_process* p) { return reinterpret_cast<FakeTarget*>(p); }
  static FakeTarget* of(mqs_image* i) { return reinterpret_cast<ImageTag*>(i)->owner; }

  static const mqs_image_callbacks imageCallbacks;
  static const mqs_process_callbacks processCallbacks;

  mqs_image_info* imageInfo = nullptr;
  mqs_process_info* processInfo = nullptr;
  std::map<std::string, std::uint64_t> symbols_;

 private:
  struct ImageTag {
    FakeTarget* owner;
  };
  ImageTag imageTag_{this};
  bool bigEndian_;
  std::map<std::uint64_t, std::vector<std::byte>> regions_;
  std::uint64_t next_ = 0x7f1200000000ull;
};

}  // namespace mpidbg::mqs::test
