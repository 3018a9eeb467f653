#include "FakeState.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace mpidbg::mqs::test {
namespace {

using Fields = std::vector<FakeLayout::FieldSpec>;

// StateLayout.h's documented fields, in the header's order.
const std::vector<std::pair<std::string, Fields>>& documented() {
  static const std::vector<std::pair<std::string, Fields>> types = {
      {"root",
       {{"magic", 8},
        {"world_rank", 4},
        {"world_size", 4},
        {"phase", 4},
        {"thread_level", 4},
        {"call_count", 8},
        {"comms", 8},
        {"comm_capacity", 4},
        {"ops", 8},
        {"op_capacity", 4},
        {"history", 8},
        {"history_capacity", 4},
        {"history_next", 8},
        {"call", 8},
        {"function_names", 8},
        {"function_count", 4},
        {"function_name_len", 4},
        {"op_overflow", 8}}},
      {"comm",
       {{"state", 4},
        {"version", 4},
        {"handle", 8},
        {"size", 4},
        {"local_rank", 4},
        {"root_world_rank", 4},
        {"name", 64},
        {"world_ranks", 8},
        {"coll_seq", 8},
        {"entries", 14 * 8},
        {"exits", 14 * 8},
        {"uid", 8}}},
      {"op",
       {{"state", 4},
        {"version", 4},
        {"kind", 4},
        {"function", 4},
        {"flags", 4},
        {"request", 8},
        {"comm", 8},
        {"peer", 4},
        {"tag", 4},
        {"count", 8},
        {"bytes", 8},
        {"datatype", 8},
        {"buffer", 8},
        {"coll_class", 4},
        {"coll_call", 8},
        {"coll_seq", 8},
        {"issued", 8}}},
      {"coll",
       {{"comm", 8}, {"coll_seq", 8}, {"function", 4}, {"root", 4}, {"count", 8}, {"stamp", 8}}},
      {"call",
       {{"version", 4},
        {"function", 4},
        {"peer_role", 4},
        {"has_tag", 4},
        {"peer", 4},
        {"tag", 4},
        {"comm", 8},
        {"coll_call", 8},
        {"entry_ns", 8},
        {"seq", 8},
        {"requests", 8},
        {"request_count", 4}}},
  };
  return types;
}

std::uint32_t alignUp(std::uint32_t v, std::uint32_t a) { return (v + a - 1) / a * a; }

}  // namespace

void FakeLayout::addType(const std::string& type, const std::vector<FieldSpec>& fields,
                         std::uint32_t gap) {
  std::uint32_t offset = 0;
  for (const FieldSpec& f : fields) {
    offset = alignUp(offset + gap, std::min<std::uint32_t>(f.size, 8));
    rows.push_back({type, f.name, offset, f.size});
    offset += f.size;
  }
  rows.push_back({type, "", 0, alignUp(offset, 8)});
}

FakeLayout FakeLayout::standard(int order, std::uint32_t gap, bool added) {
  FakeLayout layout;
  for (auto [type, fields] : documented()) {
    if (!added)
      std::erase_if(fields, [&](const FieldSpec& f) {
        return (type == "root" && f.name == "op_overflow") ||
               (type == "op" && f.name == "version") || (type == "coll" && f.name == "stamp") ||
               (type == "comm" && f.name == "uid");
      });
    if (order == 0)
      std::reverse(fields.begin(), fields.end());
    else
      std::rotate(fields.begin(), fields.begin() + fields.size() / 2, fields.end());
    layout.addType(type, fields, gap);
  }
  return layout;
}

FakeLayout::Row* FakeLayout::find(const std::string& type, const std::string& field) {
  for (Row& r : rows)
    if (r.type == type && r.field == field) return &r;
  return nullptr;
}

const FakeLayout::Row& FakeLayout::at(const std::string& type, const std::string& field) const {
  for (const Row& r : rows)
    if (r.type == type && r.field == field) return r;
  throw std::logic_error("no layout row " + type + "." + field);
}

std::uint32_t FakeLayout::sizeOf(const std::string& type) const { return at(type, "").size; }

std::uint64_t FakeLayout::install(FakeTarget& target, std::uint64_t magic, std::uint32_t version,
                                  std::optional<std::uint32_t> count) const {
  const std::uint64_t base = target.allocate(sizeof(mpidbg_layout_table));
  target.writeInt(base + offsetof(mpidbg_layout_table, magic), magic, 8);
  target.writeInt(base + offsetof(mpidbg_layout_table, version), version, 4);
  target.writeInt(base + offsetof(mpidbg_layout_table, count), count.value_or(rows.size()), 4);
  for (std::size_t i = 0; i < rows.size() && i < MPIDBG_LAYOUT_MAX_FIELDS; ++i) {
    const std::uint64_t row =
        base + offsetof(mpidbg_layout_table, fields) + i * sizeof(mpidbg_layout_field);
    char type[MPIDBG_LAYOUT_NAME_LEN] = {}, field[MPIDBG_LAYOUT_NAME_LEN] = {};
    std::memcpy(type, rows[i].type.data(), std::min(rows[i].type.size(), sizeof type));
    std::memcpy(field, rows[i].field.data(), std::min(rows[i].field.size(), sizeof field));
    target.write(row + offsetof(mpidbg_layout_field, type), type, sizeof type);
    target.write(row + offsetof(mpidbg_layout_field, field), field, sizeof field);
    target.writeInt(row + offsetof(mpidbg_layout_field, offset), rows[i].offset, 4);
    target.writeInt(row + offsetof(mpidbg_layout_field, size), rows[i].size, 4);
  }
  return base;
}

RecordWriter& RecordWriter::set(const std::string& field, std::uint64_t value) {
  const auto& row = layout_.at(type_, field);
  target_.writeInt(address_ + row.offset, value, row.size);
  return *this;
}

RecordWriter& RecordWriter::setElement(const std::string& field, std::size_t index,
                                       std::uint64_t value) {
  const auto& row = layout_.at(type_, field);
  if ((index + 1) * 8 > row.size) throw std::logic_error("element past the field");
  target_.writeInt(address_ + row.offset + index * 8, value, 8);
  return *this;
}

RecordWriter& RecordWriter::setText(const std::string& field, std::string_view text) {
  const auto& row = layout_.at(type_, field);
  std::vector<char> bytes(row.size, '\0');
  std::memcpy(bytes.data(), text.data(), std::min<std::size_t>(text.size(), row.size));
  target_.write(address_ + row.offset, bytes.data(), bytes.size());
  return *this;
}

FakeJob::FakeJob(bool bigEndian, FakeLayout fakeLayout)
    : target(bigEndian), layout(std::move(fakeLayout)) {
  layoutAddress = layout.install(target);
  state = target.allocate(layout.sizeOf("root"));
  comms = target.allocate(kCommCapacity * layout.sizeOf("comm"));
  ops = target.allocate(kOpCapacity * layout.sizeOf("op"));
  history = target.allocate(kHistoryCapacity * layout.sizeOf("coll"));
  call = target.allocate(layout.sizeOf("call"));
  names = target.allocate(64 * kNameLen);
  target.defineSymbol("mpidbg_layout", layoutAddress);
  target.defineSymbol("mpidbg_state", state);
  root()
      .set("magic", MPIDBG_LAYOUT_MAGIC)
      .set("world_rank", 2)
      .set("world_size", 4)
      .set("phase", MPIDBG_PHASE_RUNNING)
      .set("comms", comms)
      .set("comm_capacity", kCommCapacity)
      .set("ops", ops)
      .set("op_capacity", kOpCapacity)
      .set("history", history)
      .set("history_capacity", kHistoryCapacity)
      .set("history_next", 0)
      .set("call", call)
      .set("function_names", names)
      .set("function_name_len", kNameLen);
  functions_ = {""};
  writeNames();
}

std::uint32_t FakeJob::functionIndex(const std::string& function) {
  auto it = std::find(functions_.begin(), functions_.end(), function);
  if (it != functions_.end()) return static_cast<std::uint32_t>(it - functions_.begin());
  functions_.push_back(function);
  writeNames();
  return static_cast<std::uint32_t>(functions_.size() - 1);
}

void FakeJob::writeNames() {
  for (std::size_t i = 0; i < functions_.size(); ++i) {
    char name[kNameLen] = {};
    std::memcpy(name, functions_[i].data(),
                std::min<std::size_t>(functions_[i].size(), kNameLen - 1));
    target.write(names + i * kNameLen, name, kNameLen);
  }
  root().set("function_count", functions_.size());
}

RecordWriter FakeJob::commSlot(std::uint32_t i) {
  return {layout, target, "comm", comms + std::uint64_t{i} * layout.sizeOf("comm")};
}
RecordWriter FakeJob::opSlot(std::uint32_t i) {
  return {layout, target, "op", ops + std::uint64_t{i} * layout.sizeOf("op")};
}
RecordWriter FakeJob::historySlot(std::uint32_t i) {
  return {layout, target, "coll", history + std::uint64_t{i} * layout.sizeOf("coll")};
}

void FakeJob::addComm(std::uint32_t slot, const FakeComm& c) {
  const std::size_t size = c.worldRanks.size();
  std::uint64_t ranks = 0;
  if (size > 0) {
    ranks = target.allocate(4 * size);
    for (std::size_t i = 0; i < size; ++i)
      target.writeInt(ranks + 4 * i, static_cast<std::uint32_t>(c.worldRanks[i]), 4);
  }
  auto w = commSlot(slot);
  w.set("state", c.state)
      .set("version", 2)
      .set("handle", c.handle)
      .set("size", size)
      .set("local_rank", static_cast<std::uint32_t>(c.localRank))
      .set("root_world_rank", size ? static_cast<std::uint32_t>(c.worldRanks[0]) : 0)
      .setText("name", c.name)
      .set("world_ranks", ranks)
      .set("coll_seq", c.collSeq);
  if (layout.find("comm", "uid")) w.set("uid", c.uid);
  for (std::size_t k = 0; k < c.counters.size(); ++k)
    w.setElement("entries", k, c.counters[k].first).setElement("exits", k, c.counters[k].second);
}

void FakeJob::addOp(std::uint32_t slot, const FakeOp& op) {
  auto w = opSlot(slot);
  if (layout.find("op", "version")) w.set("version", 2);
  w.set("state", op.state)
      .set("kind", op.kind)
      .set("function", functionIndex(op.function))
      .set("flags", op.flags)
      .set("request", op.request)
      .set("comm", op.comm)
      .set("peer", static_cast<std::uint32_t>(op.peer))
      .set("tag", static_cast<std::uint32_t>(op.tag))
      .set("count", static_cast<std::uint64_t>(op.count))
      .set("bytes", static_cast<std::uint64_t>(op.bytes))
      .set("datatype", 0x4c00010d)
      .set("buffer", op.buffer)
      .set("coll_class", static_cast<std::uint32_t>(op.collClass))
      .set("coll_call", op.collCall)
      .set("coll_seq", op.collSeq)
      .set("issued", op.issued);
}

void FakeJob::setCall(const FakeCall& c) {
  std::uint64_t requests = 0;
  if (!c.requests.empty()) {
    requests = target.allocate(4 * c.requests.size());
    for (std::size_t i = 0; i < c.requests.size(); ++i)
      target.writeInt(requests + 4 * i, c.requests[i], 4);
  }
  callRecord()
      .set("version", 4)
      .set("function", c.function.empty() ? 0 : functionIndex(c.function))
      .set("peer_role", c.peerRole)
      .set("has_tag", c.hasTag)
      .set("peer", static_cast<std::uint32_t>(c.peer))
      .set("tag", static_cast<std::uint32_t>(c.tag))
      .set("comm", c.comm)
      .set("coll_call", c.collCall)
      .set("entry_ns", 123456789)
      .set("seq", c.seq)
      .set("requests", requests)
      .set("request_count", c.requests.size());
}

void FakeJob::addHistory(std::uint64_t seq, std::uint64_t comm, const std::string& function,
                         std::int32_t rootRank, std::int64_t count) {
  auto w = historySlot(static_cast<std::uint32_t>((seq - 1) % kHistoryCapacity));
  if (layout.find("coll", "stamp")) w.set("stamp", seq);  // record seq - 1, plus one
  w.set("comm", comm)
      .set("coll_seq", seq)
      .set("function", functionIndex(function))
      .set("root", static_cast<std::uint32_t>(rootRank))
      .set("count", static_cast<std::uint64_t>(count));
  root().set("history_next", seq);
}

DllSession::DllSession(FakeTarget& target) : dll(Dll::get()), target_(target) {
  dll.setupBasicCallbacks(&basicCallbacks());
  if (dll.setupImage(target.image(), &FakeTarget::imageCallbacks) != mqs_ok)
    throw std::logic_error("mqs_setup_image failed");
  char* message = nullptr;
  imageCode = dll.imageHasQueues(target.image(), &message);
  imageMessage = message;
  processCode = dll.setupProcess(target.process(), &FakeTarget::processCallbacks);
  message = nullptr;
  hasQueuesCode = dll.processHasQueues(target.process(), &message);
  processMessage = message;
}

std::vector<mqs_communicator> DllSession::communicators(int* code) {
  std::vector<mqs_communicator> out;
  int rc = dll.updateCommunicatorList(process());
  if (rc == mqs_ok) {
    for (rc = dll.setupCommunicatorIterator(process()); rc == mqs_ok;
         rc = dll.nextCommunicator(process())) {
      mqs_communicator c;
      std::memset(&c, 0x5a, sizeof c);  // garbage the DLL must overwrite
      if (int g = dll.getCommunicator(process(), &c); g != mqs_ok) {
        rc = g;
        break;
      }
      out.push_back(c);
    }
    if (rc == mqs_end_of_list) rc = mqs_ok;
  }
  if (code != nullptr) *code = rc;
  return out;
}

bool DllSession::select(std::uint64_t handle) {
  for (int rc = dll.setupCommunicatorIterator(process()); rc == mqs_ok;
       rc = dll.nextCommunicator(process())) {
    mqs_communicator c{};
    if (dll.getCommunicator(process(), &c) == mqs_ok && c.unique_id == handle) return true;
  }
  return false;
}

std::vector<DllSession::Operation> DllSession::operations(int opClass, int* code) {
  std::vector<Operation> out;
  const int rc = dll.setupOperationIterator(process(), opClass);
  if (code != nullptr) *code = rc;
  if (rc != mqs_ok) return out;
  Operation o;
  while (dll.nextOperation(process(), &o.op) == mqs_ok) {
    if (dll.lastOperationDetail(process(), &o.detail) != mqs_ok)
      throw std::logic_error("no detail right after mqs_next_operation");
    out.push_back(o);
  }
  return out;
}

std::vector<mpidbg_mqs_coll_record> DllSession::history(int* code) {
  std::vector<mpidbg_mqs_coll_record> out;
  const int rc = dll.setupCollHistory(process());
  if (code != nullptr) *code = rc;
  if (rc != mqs_ok) return out;
  mpidbg_mqs_coll_record r;
  while (dll.nextCollRecord(process(), &r) == mqs_ok) out.push_back(r);
  return out;
}

}  // namespace mpidbg::mqs::test
