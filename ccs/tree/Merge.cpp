// Merge rules for replies from many PEs (../shared/protocols/ccs.md,
// "Forwarding and merging"; captures 03b, 06c, 06d).
#include "ccs/tree/Merge.hpp"

#include <cstring>
#include <utility>

#include "ccs/proto/CharmDebug.hpp"

namespace mpidbg::ccs {
namespace {

std::int32_t loadInt(const std::uint8_t* at) {
  std::int32_t value;
  std::memcpy(&value, at, sizeof value);
  return value;
}

void storeInt(std::uint8_t* at, std::int32_t value) { std::memcpy(at, &value, sizeof value); }

/// Combines two native ints with an element-wise rule.
std::int32_t combine(MergeRule rule, std::int32_t a, std::int32_t b) {
  auto ua = static_cast<std::uint32_t>(a);
  auto ub = static_cast<std::uint32_t>(b);
  switch (rule) {
    case MergeRule::LogicalAnd:
      return (a != 0 && b != 0) ? 1 : 0;
    case MergeRule::LogicalOr:
      return (a != 0 || b != 0) ? 1 : 0;
    case MergeRule::BitwiseAnd:
      return static_cast<std::int32_t>(ua & ub);
    case MergeRule::BitwiseOr:
      return static_cast<std::int32_t>(ua | ub);
    case MergeRule::Sum:
      return static_cast<std::int32_t>(ua + ub);
    case MergeRule::Product:
      return static_cast<std::int32_t>(ua * ub);
    case MergeRule::Max:
      return a < b ? b : a;
    case MergeRule::Min:
      return b < a ? b : a;
    default:
      return a;  // not element-wise; never called
  }
}

Expected<std::vector<std::uint8_t>> mergeElementWise(
    MergeRule rule, std::span<const std::vector<std::uint8_t>> parts) {
  std::size_t length = parts.front().size();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].size() % 4 != 0)
      return fail("cannot merge with rule " + std::string(mergeRuleName(rule)) + ": part " +
                  std::to_string(i) + " has " + std::to_string(parts[i].size()) +
                  " bytes, not a whole number of 4-byte ints");
    if (parts[i].size() != length)
      return fail("cannot merge with rule " + std::string(mergeRuleName(rule)) + ": part " +
                  std::to_string(i) + " has " + std::to_string(parts[i].size()) +
                  " bytes but part 0 has " + std::to_string(length));
  }
  std::vector<std::uint8_t> out = parts.front();
  bool logical = rule == MergeRule::LogicalAnd || rule == MergeRule::LogicalOr;
  for (std::size_t at = 0; at < length; at += 4) {
    std::int32_t value = loadInt(out.data() + at);
    if (logical) value = value != 0 ? 1 : 0;  // normalised even for one part
    for (std::size_t i = 1; i < parts.size(); ++i)
      value = combine(rule, value, loadInt(parts[i].data() + at));
    storeInt(out.data() + at, value);
  }
  return out;
}

}  // namespace

std::string_view mergeRuleName(MergeRule rule) {
  switch (rule) {
    case MergeRule::Concatenate:
      return "concatenate";
    case MergeRule::LogicalAnd:
      return "logical-and";
    case MergeRule::LogicalOr:
      return "logical-or";
    case MergeRule::BitwiseAnd:
      return "bitwise-and";
    case MergeRule::BitwiseOr:
      return "bitwise-or";
    case MergeRule::Sum:
      return "sum";
    case MergeRule::Product:
      return "product";
    case MergeRule::Max:
      return "max";
    case MergeRule::Min:
      return "min";
    case MergeRule::PickAny:
      return "pick-any";
  }
  return "unknown";
}

bool isElementWise(MergeRule rule) {
  return rule != MergeRule::Concatenate && rule != MergeRule::PickAny;
}

Expected<std::vector<std::uint8_t>> merge(MergeRule rule,
                                          std::span<const std::vector<std::uint8_t>> parts) {
  if (parts.empty()) return std::vector<std::uint8_t>{};
  if (rule == MergeRule::PickAny) return parts.front();
  if (rule == MergeRule::Concatenate) {
    std::size_t total = 0;
    for (const auto& part : parts) total += part.size();
    std::vector<std::uint8_t> out;
    out.reserve(total);
    for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
    return out;
  }
  return mergeElementWise(rule, parts);
}

// ---- MergeTable ----

void MergeTable::add(std::string handler, MergeRule rule) { rules_[std::move(handler)] = rule; }

std::optional<MergeRule> MergeTable::lookup(std::string_view handler) const {
  auto found = rules_.find(handler);
  if (found == rules_.end()) return std::nullopt;
  return found->second;
}

Expected<MergeRule> MergeTable::ruleFor(std::string_view handler) const {
  if (auto rule = lookup(handler)) return *rule;
  return fail("handler '" + std::string(handler) +
              "' has no merge rule, so a reply from many PEs cannot be merged");
}

MergeTable MergeTable::charmDebugDefaults() {
  MergeTable table;
  const std::pair<std::string_view, MergeRule> rules[] = {
      {proto::kCharmStatusHandler, MergeRule::Concatenate},     {proto::kCharmBreakSetHandler, MergeRule::LogicalAnd},
      {proto::kCharmBreakRemoveHandler, MergeRule::LogicalAnd}, {proto::kCharmBreakRemoveAllHandler, MergeRule::LogicalAnd},
      {proto::kCharmContinueHandler, MergeRule::Concatenate},   {proto::kCharmNextHandler, MergeRule::Concatenate},
      {proto::kCharmQuitHandler, MergeRule::Concatenate}};
  for (const auto& [handler, rule] : rules) table.add(std::string(handler), rule);
  return table;
}

}  // namespace mpidbg::ccs
