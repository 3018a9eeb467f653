#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "ccs/transport/Server.hpp"
#include "mpidbg/Error.hpp"

namespace PUP {
class er;
}

namespace mpidbg::rt {

class Runtime;

/// Writes one item of a built-in list with a PUP er (labels and values).
using ListItemPup = std::function<void(std::int32_t index, PUP::er& p)>;

/// One list the rank serves through Charm++'s list protocol
/// (ccs/proto/ListProtocol.hpp): the application's watched objects and lists
/// (mpidbg.h, mpidbg/watch.hpp) and the runtime's built-in lists.
struct ListSource {
  std::string name;
  bool object = false;  ///< a single object: `print NAME` shows item 0 without an index
  /// Items now (>= 0).
  std::function<std::int32_t()> length;
  /// Appends item `index` in `format` (MPIDBG_LIST_FMT / _TXT) to `out`;
  /// an Error when the item cannot be written.
  std::function<Expected<void>(std::int32_t index, int format, std::vector<std::uint8_t>& out)> item;
};

/// The registry of lists, shared by the application threads (register,
/// unregister) and the helper thread (serve). Reads hold the registry's
/// lock, so unregistering waits for a read in progress; the helper gives up
/// after kRegistryWaitMs when the lock is held by a thread that is frozen.
class ListRegistry {
 public:
  /// How long the helper thread waits for the registry lock, in ms.
  static constexpr int kRegistryWaitMs = 500;
  /// The process's registry (never destroyed: lists may be read during exit).
  static ListRegistry& instance();

  /// Adds or replaces `source` (name checked by the caller).
  void add(ListSource source);
  /// Removes `name`; false when unknown.
  bool remove(const std::string& name);

  /// The length of `name`: -1 when unknown; Error when the lock cannot be
  /// taken in time.
  Expected<std::int32_t> length(const std::string& name);
  /// The ccs_list_items reply for items [lo, hiPlus1) of `name` in `format`:
  /// the Charm++ list framing around each item. Errors: unknown list, a
  /// range beyond the length, an item that failed, lock not taken in time.
  Expected<std::vector<std::uint8_t>> items(const std::string& name, std::int32_t lo,
                                            std::int32_t hiPlus1, int format);
  /// Name, kind and length of every list (for mpidbg/lists), sorted by name.
  struct Entry {
    std::string name;
    bool object = false;
    std::int32_t length = 0;
  };
  std::vector<Entry> entries();

 private:
  struct Impl;
  ListRegistry();
  Impl* impl_;
};

/// A ListSource whose items are written by `pup` (built-in lists).
ListSource pupList(std::string name, bool object, std::function<std::int32_t()> length, ListItemPup pup);

/// Registers the built-in lists (mpidbg/lists, mpi/communicators,
/// mpi/pending, mpidbg/entries, mpidbg/breakpoints) and the ccs_list_len,
/// ccs_list_items.fmt and ccs_list_items.txt handlers on `server`.
void registerListHandlers(ccs::Server& server, Runtime& runtime);

/// The check every application-given list name passes: 1..80 bytes,
/// printable ASCII without blanks, not starting with "mpi/" or "mpidbg/".
Expected<void> checkWatchName(const char* name);

}  // namespace mpidbg::rt
