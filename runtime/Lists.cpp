// The lists a rank serves through Charm++'s list protocol: the registry, the
// application's registration functions (mpidbg.h), the built-in lists and the
// ccs_list_* handlers (see Lists.hpp).
#include "Lists.hpp"

#include <mpi.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <new>

#include "CallScope.hpp"
#include "Control.hpp"
#include "EntryPoints.hpp"
#include "Guarded.hpp"
#include "Handlers.hpp"
#include "RequestTracking.hpp"
#include "Runtime.hpp"
#include "TypedHandler.hpp"
#include "ccs/proto/ListProtocol.hpp"
#include "mpidbg/mpidbg.h"
#include "mpidbg/pup.hpp"
#include "mpidbg/Text.hpp"

namespace mpidbg::rt {

namespace proto = ccs::proto;

namespace {
/// The built-in list of lists.
constexpr std::string_view kListsName = "mpidbg/lists";
}  // namespace

struct ListRegistry::Impl {
  /// Recursive: mpidbg/lists reads entries() while items() holds the lock.
  std::recursive_timed_mutex mutex;
  std::map<std::string, ListSource> lists;
};

ListRegistry::ListRegistry() : impl_(new Impl) {}

ListRegistry& ListRegistry::instance() {
  alignas(ListRegistry) static unsigned char storage[sizeof(ListRegistry)];
  static ListRegistry* const r = new (storage) ListRegistry();
  return *r;
}

void ListRegistry::add(ListSource source) {
  std::lock_guard lock(impl_->mutex);
  std::string name = source.name;
  impl_->lists.insert_or_assign(std::move(name), std::move(source));
}

bool ListRegistry::remove(const std::string& name) {
  std::lock_guard lock(impl_->mutex);
  return impl_->lists.erase(name) > 0;
}

namespace {

Error busy() {
  return Error{"the list registry is busy (a thread registering a list is stopped); try again when the rank runs"};
}

/// The bytes of one framing element written by `write` in `format`.
template <typename Write>
std::vector<std::uint8_t> framing(int format, Write write) {
  if (format == MPIDBG_LIST_TXT) {
    PUP::textWriter w;
    write(static_cast<PUP::er&>(w));
    const std::string text = w.str();
    return {text.begin(), text.end()};
  }
  PUP::fmtWriter w;
  write(static_cast<PUP::er&>(w));
  return w.bytes();
}

void append(std::vector<std::uint8_t>& out, const std::vector<std::uint8_t>& bytes) {
  out.insert(out.end(), bytes.begin(), bytes.end());
}

}  // namespace

Expected<std::int32_t> ListRegistry::length(const std::string& name) {
  std::unique_lock lock(impl_->mutex, std::chrono::milliseconds(kRegistryWaitMs));
  if (!lock.owns_lock()) return std::unexpected(busy());
  auto it = impl_->lists.find(name);
  if (it == impl_->lists.end()) return -1;
  return std::max<std::int32_t>(0, it->second.length());
}

Expected<std::vector<std::uint8_t>> ListRegistry::items(const std::string& name, std::int32_t lo,
                                                        std::int32_t hiPlus1, int format) {
  std::unique_lock lock(impl_->mutex, std::chrono::milliseconds(kRegistryWaitMs));
  if (!lock.owns_lock()) return std::unexpected(busy());
  auto it = impl_->lists.find(name);
  if (it == impl_->lists.end()) return fail("no list named '" + name + "'");
  const ListSource& source = it->second;
  const std::int32_t length = std::max<std::int32_t>(0, source.length());
  if (hiPlus1 > length)
    return fail("items " + std::to_string(lo) + ".." + std::to_string(hiPlus1 - 1) + " asked of '" + name +
                "', which has " + std::to_string(length));
  std::vector<std::uint8_t> out = framing(format, [](PUP::er& p) { PUP::beginList(p); });
  const std::vector<std::uint8_t> itemSync = framing(format, [](PUP::er& p) { PUP::listItem(p); });
  for (std::int32_t i = lo; i < hiPlus1; ++i) {
    append(out, itemSync);
    if (auto written = source.item(i, format, out); !written)
      return fail("item " + std::to_string(i) + " of '" + name + "': " + written.error().message);
  }
  append(out, framing(format, [](PUP::er& p) { PUP::endList(p); }));
  return out;
}

std::vector<ListRegistry::Entry> ListRegistry::entries() {
  std::vector<Entry> out;
  std::unique_lock lock(impl_->mutex, std::chrono::milliseconds(kRegistryWaitMs));
  if (!lock.owns_lock()) return out;
  for (const auto& [name, source] : impl_->lists) {
    // mpidbg/lists's own length is this list's size (asking it would recurse).
    const std::int32_t length =
        name == kListsName ? static_cast<std::int32_t>(impl_->lists.size()) : source.length();
    out.push_back(Entry{name, source.object, std::max<std::int32_t>(0, length)});
  }
  return out;
}

ListSource pupList(std::string name, bool object, std::function<std::int32_t()> length, ListItemPup pup) {
  ListSource source;
  source.name = std::move(name);
  source.object = object;
  source.length = std::move(length);
  source.item = [pup = std::move(pup)](std::int32_t index, int format,
                                       std::vector<std::uint8_t>& out) -> Expected<void> {
    append(out, framing(format, [&](PUP::er& p) { pup(index, p); }));
    return {};
  };
  return source;
}

Expected<void> checkWatchName(const char* name) {
  if (name == nullptr || *name == '\0') return fail("a watched name must not be empty");
  const std::string_view text(name, ::strnlen(name, proto::kMaxListPath + 1));
  if (text.size() > proto::kMaxListPath)
    return fail("a watched name has at most " + std::to_string(proto::kMaxListPath) + " bytes");
  if (text.starts_with("mpi/") || text.starts_with("mpidbg/"))
    return fail("'" + std::string(text) + "': names starting with mpi/ and mpidbg/ are mpidbg's own");
  // Identifiers joined by '/', so `print NAME.field[3]` can name them.
  bool start = true;
  for (char c : text) {
    const bool letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (c == '/' && !start) {
      start = true;
      continue;
    }
    if (!(letter || (digit && !start)))
      return fail("'" + std::string(text) + "' is not a name (identifiers joined by '/')");
    start = false;
  }
  if (start) return fail("'" + std::string(text) + "' ends with '/'");
  return {};
}

// ---- built-in lists --------------------------------------------------------

namespace {

/// Up to kMaxValues values of a basic-datatype buffer, read with
/// process_vm_readv (the buffer may be gone: an error code, not a crash).
constexpr std::int64_t kMaxValues = 8;

template <typename T>
std::vector<std::string> readValues(std::uint64_t address, std::int64_t count) {
  std::vector<std::string> out;
  const auto n = static_cast<std::size_t>(std::min(count, kMaxValues));
  if (address == 0 || n == 0) return out;
  std::vector<T> copy(n);
  iovec local{copy.data(), n * sizeof(T)};
  iovec remote{reinterpret_cast<void*>(static_cast<std::uintptr_t>(address)), n * sizeof(T)};
  if (::process_vm_readv(::getpid(), &local, 1, &remote, 1, 0) != static_cast<ssize_t>(local.iov_len)) return out;
  for (const T& v : copy) {
    if constexpr (std::is_floating_point_v<T>) {
      char text[64];
      std::snprintf(text, sizeof text, "%.17g", static_cast<double>(v));
      out.emplace_back(text);
    } else {
      out.push_back(std::to_string(v));
    }
  }
  return out;
}

/// The first values of a pending operation's buffer, for basic datatypes;
/// empty for derived types, unknown counts or unreadable memory.
std::vector<std::string> firstValues(const proto::PendingOp& op) {
  const std::uint64_t t = op.datatype;
  if (t == 0 || op.count <= 0) return {};
  if (t == handleKey(MPI_INT)) return readValues<int>(op.buffer, op.count);
  if (t == handleKey(MPI_DOUBLE)) return readValues<double>(op.buffer, op.count);
  if (t == handleKey(MPI_FLOAT)) return readValues<float>(op.buffer, op.count);
  if (t == handleKey(MPI_LONG)) return readValues<long>(op.buffer, op.count);
  if (t == handleKey(MPI_LONG_LONG)) return readValues<long long>(op.buffer, op.count);
  if (t == handleKey(MPI_UNSIGNED)) return readValues<unsigned>(op.buffer, op.count);
  if (t == handleKey(MPI_UNSIGNED_LONG)) return readValues<unsigned long>(op.buffer, op.count);
  if (t == handleKey(MPI_SHORT)) return readValues<short>(op.buffer, op.count);
  if (t == handleKey(MPI_CHAR) || t == handleKey(MPI_SIGNED_CHAR)) return readValues<signed char>(op.buffer, op.count);
  if (t == handleKey(MPI_BYTE) || t == handleKey(MPI_UNSIGNED_CHAR)) return readValues<unsigned char>(op.buffer, op.count);
  return {};
}

std::string datatypeName(std::uint64_t t) {
  if (t == 0 || t == handleKey(MPI_DATATYPE_NULL)) return "";
  static const std::pair<MPI_Datatype, const char*> kNames[] = {
      {MPI_INT, "MPI_INT"},           {MPI_DOUBLE, "MPI_DOUBLE"},     {MPI_FLOAT, "MPI_FLOAT"},
      {MPI_LONG, "MPI_LONG"},         {MPI_LONG_LONG, "MPI_LONG_LONG"}, {MPI_UNSIGNED, "MPI_UNSIGNED"},
      {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"}, {MPI_SHORT, "MPI_SHORT"}, {MPI_CHAR, "MPI_CHAR"},
      {MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"}, {MPI_BYTE, "MPI_BYTE"}, {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"}};
  for (const auto& [type, name] : kNames)
    if (handleKey(type) == t) return name;
  return hexText(t);
}

/// The pending operations of this rank now: the blocking call it is inside
/// (if point to point), then the op table in issue order.
std::vector<proto::PendingOp> pendingOps(Runtime& rt) {
  std::vector<proto::PendingOp> ops;
  if (const auto call = rt.currentCall().read()) {
    const proto::MpiCall wire = wireCallOf(rt, *call);
    const bool send = wire.peerRole == "dest";
    const bool recv = wire.peerRole == "source";
    if (send || recv) {
      proto::PendingOp op;
      op.kind = send ? proto::PendingOp::Kind::Send : proto::PendingOp::Kind::Recv;
      op.function = wire.function;
      op.blocking = true;
      op.comm = wire.comm;
      op.peer = wire.peer;
      op.tag = wire.hasTag ? wire.tag : -1;
      ops.push_back(std::move(op));
    }
  }
  for (auto& op : rt.ops().snapshot()) ops.push_back(std::move(op));
  return ops;
}

void pupPending(PUP::er& p, proto::PendingOp op, Runtime& rt) {
  std::string function = op.function;
  std::string kind(proto::opKindName(op.kind));
  std::string comm = hexText(op.comm);
  std::string commName = op.comm != 0 ? rt.comms().nameOf(op.comm) : std::string();
  std::int32_t peer = op.peer, tag = op.tag;
  std::int64_t count = op.count;
  std::string datatype = datatypeName(op.datatype);
  bool blocking = op.blocking;
  std::vector<std::string> values = firstValues(op);
  PUP(function);
  PUP(kind);
  PUP(comm);
  PUP(commName);
  PUP(peer);
  PUP(tag);
  PUP(count);
  PUP(datatype);
  PUP(blocking);
  PUP(values);
}

}  // namespace

void registerListHandlers(ccs::Server& server, Runtime& runtime) {
  Runtime* rt = &runtime;
  ListRegistry& registry = ListRegistry::instance();

  registry.add(pupList(
      std::string(kListsName), false, [] { return static_cast<std::int32_t>(ListRegistry::instance().entries().size()); },
      [](std::int32_t index, PUP::er& p) {
        auto all = ListRegistry::instance().entries();
        if (index < 0 || static_cast<std::size_t>(index) >= all.size()) return;
        std::string name = all[static_cast<std::size_t>(index)].name;
        std::string kind = all[static_cast<std::size_t>(index)].object ? "object" : "list";
        std::int32_t length = all[static_cast<std::size_t>(index)].length;
        PUP(name);
        PUP(kind);
        PUP(length);
      }));
  registry.add(pupList(
      "mpi/communicators", false, [rt] { return static_cast<std::int32_t>(rt->comms().snapshot().size()); },
      [rt](std::int32_t index, PUP::er& p) {
        auto comms = rt->comms().snapshot();
        if (index < 0 || static_cast<std::size_t>(index) >= comms.size()) return;
        const proto::CommState& c = comms[static_cast<std::size_t>(index)];
        std::string name = c.name, handle = hexText(c.handle);
        std::int32_t size = c.size, rank = c.localRank, rootWorldRank = c.rootWorldRank;
        std::vector<std::string> active;
        for (std::size_t k = 0; k < proto::kCollClassCount; ++k)
          if (c.active[k]) active.push_back(std::string(proto::collName(static_cast<proto::CollClass>(k))));
        PUP(name);
        PUP(handle);
        PUP(size);
        PUP(rank);
        PUP(rootWorldRank);
        PUP(active);
        // Calls entered per collective class, labelled by the function (only
        // classes called at least once).
        for (std::size_t k = 0; k < proto::kCollClassCount; ++k) {
          if (c.counts[k] == 0) continue;
          std::uint64_t calls = c.counts[k];
          p.comment(proto::collName(static_cast<proto::CollClass>(k)));
          p | calls;
        }
      }));
  registry.add(pupList(
      "mpi/pending", false, [rt] { return static_cast<std::int32_t>(pendingOps(*rt).size()); },
      [rt](std::int32_t index, PUP::er& p) {
        auto ops = pendingOps(*rt);
        if (index < 0 || static_cast<std::size_t>(index) >= ops.size()) return;
        pupPending(p, std::move(ops[static_cast<std::size_t>(index)]), *rt);
      }));
  registry.add(pupList(
      "mpidbg/entries", false, [] { return static_cast<std::int32_t>(entryPoints().size()); },
      [](std::int32_t index, PUP::er& p) {
        auto entries = entryPoints();
        if (index < 0 || static_cast<std::size_t>(index) >= entries.size()) return;
        std::string name = entries[static_cast<std::size_t>(index)].name;
        std::uint64_t hits = entries[static_cast<std::size_t>(index)].hits;
        PUP(name);
        PUP(hits);
      }));
  registry.add(pupList(
      "mpidbg/breakpoints", false, [] { return static_cast<std::int32_t>(Control::instance().list().size()); },
      [](std::int32_t index, PUP::er& p) {
        auto all = Control::instance().list();
        if (index < 0 || static_cast<std::size_t>(index) >= all.size()) return;
        const proto::Breakpoint& b = all[static_cast<std::size_t>(index)];
        std::int32_t id = b.id;
        std::string kind(proto::breakKindName(b.kind)), target = b.target, condition = b.condition;
        bool enabled = b.enabled;
        std::uint64_t hits = b.hits;
        PUP(id);
        PUP(kind);
        PUP(target);
        PUP(condition);
        PUP(enabled);
        PUP(hits);
      }));

  // A request that does not decode, or a failure, answers length -1.
  on<proto::ListLenRequest, proto::ListLength>(
      server, proto::kListLenHandler,
      [](const proto::ListLenRequest& request) {
        auto length = ListRegistry::instance().length(request.path);
        return proto::ListLength{length ? *length : -1};
      },
      [](const std::string&) { return proto::ListLength{-1}; });
  for (const int format : {MPIDBG_LIST_FMT, MPIDBG_LIST_TXT}) {
    const std::string_view handler = format == MPIDBG_LIST_FMT ? proto::kListItemsFmtHandler : proto::kListItemsTxtHandler;
    // A request that does not decode, or a failure, answers an error reply.
    on<proto::ListItemsRequest, proto::ListItemsReply>(
        server, handler,
        [format](const proto::ListItemsRequest& request) {
          auto reply = ListRegistry::instance().items(request.path, request.lo, request.hiPlus1, format);
          if (!reply) return proto::ListItemsReply{proto::encodeListError(reply.error().message)};
          if (format == MPIDBG_LIST_TXT) reply->push_back(0);  // as Charm++ ends a .txt reply
          return proto::ListItemsReply{std::move(*reply)};
        },
        [](const std::string& message) { return proto::ListItemsReply{proto::encodeListError(message)}; });
  }
}

}  // namespace mpidbg::rt

// ---- the application's registration functions (mpidbg.h) -------------------

namespace {

using mpidbg::rt::ListRegistry;
using mpidbg::rt::ListSource;

void appendBytes(void* sink, const void* bytes, unsigned long n) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(sink);
  const auto* b = static_cast<const std::uint8_t*>(bytes);
  if (b != nullptr && n > 0) out->insert(out->end(), b, b + n);
}

/// One struct of a field table, pupped field by field.
void pupStruct(PUP::er& p, const unsigned char* base, const std::vector<mpidbg_field>& fields,
               const std::vector<std::string>& names) {
  for (std::size_t f = 0; f < fields.size(); ++f) {
    const mpidbg_field& field = fields[f];
    const unsigned char* at = base + field.offset;
    const auto n = static_cast<std::size_t>(field.count);
    p.comment(names[f]);
    auto numbers = [&](auto sample) {
      using T = decltype(sample);
      std::vector<T> copy(n);
      std::memcpy(copy.data(), at, n * sizeof(T));
      if (n == 1) p | copy[0];
      else p(copy.data(), n);
    };
    switch (field.type) {
      case MPIDBG_FIELD_INT: numbers(int{}); break;
      case MPIDBG_FIELD_LONG: numbers(long{}); break;
      case MPIDBG_FIELD_LONG_LONG: numbers(static_cast<long long>(0)); break;
      case MPIDBG_FIELD_UNSIGNED: numbers(unsigned{}); break;
      case MPIDBG_FIELD_UNSIGNED_LONG: numbers(static_cast<unsigned long>(0)); break;
      case MPIDBG_FIELD_FLOAT: numbers(float{}); break;
      case MPIDBG_FIELD_DOUBLE: numbers(double{}); break;
      case MPIDBG_FIELD_BOOL: {
        std::vector<bool> copy;
        for (std::size_t i = 0; i < n; ++i) copy.push_back(at[i] != 0);
        if (n == 1) {
          bool one = copy[0];
          p | one;
        } else {
          p | copy;
        }
        break;
      }
      case MPIDBG_FIELD_CHAR: {
        if (n == 1) {
          char c = static_cast<char>(at[0]);
          p | c;
        } else {
          std::string text(reinterpret_cast<const char*>(at), ::strnlen(reinterpret_cast<const char*>(at), n));
          p | text;
        }
        break;
      }
      case MPIDBG_FIELD_POINTER: {
        std::vector<std::string> texts;
        for (std::size_t i = 0; i < n; ++i) {
          void* value = nullptr;
          std::memcpy(&value, at + i * sizeof(void*), sizeof value);
          char text[32];
          std::snprintf(text, sizeof text, "%p", value);
          texts.emplace_back(text);
        }
        if (n == 1) p | texts[0];
        else p | texts;
        break;
      }
      default: break;  // rejected at registration
    }
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) int mpidbg_watch_list(const char* name, void* context,
                                                             mpidbg_list_length_fn length,
                                                             mpidbg_list_item_fn item, int is_object) {
  if (!mpidbg::rt::checkWatchName(name) || length == nullptr || item == nullptr) return -1;
  ListSource source;
  source.name = name;
  source.object = is_object != 0;
  source.length = [context, length] { return length(context); };
  source.item = [context, item](std::int32_t index, int format,
                                std::vector<std::uint8_t>& out) -> mpidbg::Expected<void> {
    if (item(context, index, format, &out, appendBytes) != 0) return mpidbg::fail("the application could not write it");
    return {};
  };
  ListRegistry::instance().add(std::move(source));
  return 0;
}

__attribute__((visibility("default"))) int mpidbg_unwatch(const char* name) {
  if (name == nullptr) return -1;
  return ListRegistry::instance().remove(name) ? 0 : -1;
}

__attribute__((visibility("default"))) int mpidbg_watch_struct(const char* name, const void* base, int count,
                                                               unsigned long stride,
                                                               const struct mpidbg_field* fields, int nfields) {
  if (!mpidbg::rt::checkWatchName(name) || base == nullptr || count < 1 || fields == nullptr || nfields < 1 ||
      nfields > 1024 || (count > 1 && stride == 0))
    return -1;
  std::vector<mpidbg_field> table(fields, fields + nfields);
  std::vector<std::string> names;
  for (const mpidbg_field& f : table) {
    if (f.name == nullptr || f.count < 1 || f.type < MPIDBG_FIELD_INT || f.type > MPIDBG_FIELD_POINTER) return -1;
    names.emplace_back(f.name);
  }
  const auto* bytes = static_cast<const unsigned char*>(base);
  ListSource source = mpidbg::rt::pupList(
      name, count == 1, [count] { return static_cast<std::int32_t>(count); },
      [bytes, stride, table = std::move(table), names = std::move(names)](std::int32_t index, PUP::er& p) {
        pupStruct(p, bytes + static_cast<std::size_t>(index) * stride, table, names);
      });
  ListRegistry::instance().add(std::move(source));
  return 0;
}

}  // extern "C"
