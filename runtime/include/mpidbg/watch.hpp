// mpidbg watched objects and lists for C++: register any PUP-able object or
// collection, and mpidbg's `lists` and `print` show it with field names.
// Works without the runtime (registration then does nothing).
#pragma once

#include <memory>
#include <string>
#include <type_traits>
#include <utility>

#include "mpidbg/mpidbg.h"
#include "mpidbg/pup.hpp"

namespace mpidbg {

/// A registration made by watch() or watch_list(): the list stays served
/// while the Watch lives; destroying (or reset()) unregisters it, waiting
/// for a read in progress, so the watched memory may be freed afterwards.
/// Move-only.
class Watch {
 public:
  Watch() = default;
  Watch(const Watch&) = delete;
  Watch& operator=(const Watch&) = delete;
  Watch(Watch&& other) noexcept { *this = std::move(other); }
  Watch& operator=(Watch&& other) noexcept {
    if (this != &other) {
      reset();
      name_ = std::move(other.name_);
      context_ = std::move(other.context_);
      other.name_.clear();
    }
    return *this;
  }
  ~Watch() { reset(); }

  /// True when the runtime accepted the registration.
  explicit operator bool() const { return !name_.empty(); }

  /// Unregisters now (no-op when not registered).
  void reset() {
    if (!name_.empty() && &mpidbg_unwatch != nullptr) mpidbg_unwatch(name_.c_str());
    name_.clear();
    context_.reset();
  }

  /// For watch()/watch_list(): takes over a registered `name` and the
  /// context its callbacks use.
  Watch(std::string name, std::shared_ptr<void> context) : name_(std::move(name)), context_(std::move(context)) {}

 private:
  std::string name_;
  std::shared_ptr<void> context_;
};

namespace detail {

/// Writes one item with the er of `format` (MPIDBG_LIST_FMT / _TXT) and
/// hands the bytes to the runtime; 0, or 1 when pupping threw.
template <typename PupItem>
int writeItem(PupItem& pupItem, int index, int format, void* sink, mpidbg_append_fn append) {
  try {
    if (format == MPIDBG_LIST_TXT) {
      PUP::textWriter w;
      pupItem(index, static_cast<PUP::er&>(w));
      const std::string text = w.str();
      append(sink, text.data(), text.size());
    } else {
      PUP::fmtWriter w;
      pupItem(index, static_cast<PUP::er&>(w));
      const auto bytes = w.bytes();
      append(sink, bytes.data(), bytes.size());
    }
    return 0;
  } catch (...) {
    return 1;
  }
}

template <typename Length, typename PupItem>
struct ListContext {
  Length length;
  PupItem pupItem;

  static int lengthOf(void* self) {
    try {
      return static_cast<int>(static_cast<ListContext*>(self)->length());
    } catch (...) {
      return 0;
    }
  }
  static int item(void* self, int index, int format, void* sink, mpidbg_append_fn append) {
    return writeItem(static_cast<ListContext*>(self)->pupItem, index, format, sink, append);
  }
};

template <typename Length, typename PupItem>
Watch registerList(const char* name, Length length, PupItem pupItem, bool object) {
  if (&mpidbg_watch_list == nullptr) return {};
  using Context = ListContext<Length, PupItem>;
  auto context = std::make_shared<Context>(Context{std::move(length), std::move(pupItem)});
  if (mpidbg_watch_list(name, context.get(), &Context::lengthOf, &Context::item, object ? 1 : 0) != 0) return {};
  return Watch(name, std::move(context));
}

}  // namespace detail

/// Serves `object` (anything `p | object` accepts: a type with a
/// `pup(PUP::er&)` member, a free `operator|`, a container, a number) as
/// `name`: `print NAME` shows it with its field names. `object` must outlive
/// the returned Watch. An empty Watch when the runtime is absent or refuses
/// the name (see mpidbg_watch_list).
template <typename T>
[[nodiscard]] Watch watch(const char* name, T& object) {
  T* target = &object;
  return detail::registerList(
      name, [] { return 1; }, [target](int, PUP::er& p) { p | *target; }, true);
}

/// Serves a collection as list `name`: `length()` gives the number of items
/// now, `item(i)` returns item i (a reference to anything `p | x` accepts)
/// or, when callable as `item(i, p)`, writes it itself. `print NAME[0:10]`
/// ranges over items. Both are called on the runtime's helper thread.
template <typename Length, typename Item>
[[nodiscard]] Watch watch_list(const char* name, Length length, Item item) {
  auto pupItem = [item = std::move(item)](int index, PUP::er& p) mutable {
    if constexpr (std::is_invocable_v<Item&, int, PUP::er&>) {
      item(index, p);
    } else {
      auto&& x = item(index);
      using X = std::remove_cvref_t<decltype(x)>;
      p | const_cast<X&>(x);
    }
  };
  return detail::registerList(name, std::move(length), std::move(pupItem), false);
}

}  // namespace mpidbg
