#include "ProcessInfo.hpp"

#include "Callbacks.hpp"

namespace mpidbg::mqs {

Result<RuntimeSymbols> findRuntimeSymbols(const mqs_image_callbacks* callbacks, mqs_image* image) {
  if (callbacks == nullptr || callbacks->mqs_find_symbol_fp == nullptr)
    return failWith(kErrMissingCallback);
  RuntimeSymbols symbols;
  if (callbacks->mqs_find_symbol_fp(image, "mpidbg_layout", &symbols.layout) != mqs_ok ||
      symbols.layout == 0)
    return failWith(kErrNoRuntime);
  if (callbacks->mqs_find_symbol_fp(image, "mpidbg_state", &symbols.state) != mqs_ok ||
      symbols.state == 0)
    return failWith(kErrNoStateSymbol);
  return symbols;
}

Result<void> ProcessInfo::ensureLayout() {
  if (layout_) return {};
  if (imageInfo_ == nullptr) return failWith(kErrNoImageInfo);
  auto symbols = findRuntimeSymbols(imageInfo_->callbacks, image_);
  if (!symbols) return std::unexpected(symbols.error());
  auto layout = Layout::read(target_, symbols->layout);
  if (!layout) return std::unexpected(layout.error());
  symbols_ = *symbols;
  layout_ = *layout;
  return {};
}

Result<Root> ProcessInfo::readRoot() {
  if (auto ok = ensureLayout(); !ok) return std::unexpected(ok.error());
  return reader().root();
}

Result<const FunctionNames*> ProcessInfo::functionNames(const Root& root) {
  const bool same = names_ && namesKey_.functionNames == root.functionNames &&
                    namesKey_.functionCount == root.functionCount &&
                    namesKey_.functionNameLen == root.functionNameLen;
  if (!same) {
    auto names = reader().functionNames(root);
    if (!names) return std::unexpected(names.error());
    names_ = std::move(*names);
    namesKey_ = root;
  }
  return &*names_;
}

Result<void> ProcessInfo::refreshComms() {
  current_ = static_cast<std::size_t>(-1);
  comms_.clear();
  opSnapshot_.reset();
  setOperations({});
  auto root = readRoot();
  if (!root) return std::unexpected(root.error());
  auto comms = reader().comms(*root);
  if (!comms) return std::unexpected(comms.error());
  comms_ = std::move(*comms);
  listFresh_ = true;
  return {};
}

Result<const ProcessInfo::OpSnapshot*> ProcessInfo::opSnapshot() {
  if (opSnapshot_) return &*opSnapshot_;
  auto root = readRoot();
  if (!root) return std::unexpected(root.error());
  if (root->opOverflow != 0)
    debugPrint(
        "the runtime's op table overflowed: %llu operations were not recorded, so the "
        "pending lists may be incomplete",
        static_cast<unsigned long long>(root->opOverflow));
  const StateReader state = reader();
  auto ops = state.ops(*root);
  if (!ops) return std::unexpected(ops.error());
  auto call = state.call(*root);
  if (!call) return std::unexpected(call.error());
  auto names = functionNames(*root);
  if (!names) return std::unexpected(names.error());
  opSnapshot_ = OpSnapshot{std::move(*ops), std::move(*call), **names};
  return &*opSnapshot_;
}

int ProcessInfo::setupCommIterator() {
  if (!listFresh_) {
    if (auto ok = refreshComms(); !ok) return ok.error();
  }
  listFresh_ = false;
  current_ = 0;
  setOperations({});
  return comms_.empty() ? mqs_end_of_list : mqs_ok;
}

int ProcessInfo::nextComm() {
  if (current_ >= comms_.size()) return kErrNoCurrentComm;
  setOperations({});
  return ++current_ < comms_.size() ? mqs_ok : mqs_end_of_list;
}

void ProcessInfo::setOperations(std::vector<PendingOp> ops) noexcept {
  ops_ = std::move(ops);
  nextOp_ = 0;
  last_ = nullptr;
}

const PendingOp* ProcessInfo::nextOperation() noexcept {
  last_ = nextOp_ < ops_.size() ? &ops_[nextOp_++] : nullptr;
  return last_;
}

void ProcessInfo::setHistory(std::vector<mpidbg_mqs_coll_record> records) noexcept {
  history_ = std::move(records);
  nextRecord_ = 0;
}

const mpidbg_mqs_coll_record* ProcessInfo::nextRecord() noexcept {
  return nextRecord_ < history_.size() ? &history_[nextRecord_++] : nullptr;
}

}  // namespace mpidbg::mqs
