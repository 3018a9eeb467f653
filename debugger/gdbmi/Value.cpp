#include "debugger/gdbmi/Value.hpp"

#include "debugger/gdbmi/CString.hpp"

namespace mpidbg::gdbmi {

const Value* Tuple::get(std::string_view name) const {
  for (const Result& r : results) {
    if (r.name == name) return &r.value;
  }
  return nullptr;
}

const std::string* Tuple::getString(std::string_view name) const {
  const Value* v = get(name);
  return v ? v->asString() : nullptr;
}

std::vector<const Value*> Tuple::getAll(std::string_view name) const {
  std::vector<const Value*> out;
  for (const Result& r : results) {
    if (r.name == name) out.push_back(&r.value);
  }
  return out;
}

bool List::ofResults() const { return !items.empty() && !items.front().name.empty(); }

const Value& List::at(std::size_t index) const { return items.at(index).value; }

const Value* Value::get(std::string_view name) const {
  const Tuple* t = asTuple();
  return t ? t->get(name) : nullptr;
}

namespace {

void render(const Value& value, std::string& out);

void renderResults(const std::vector<Result>& items, std::string& out) {
  bool first = true;
  for (const Result& r : items) {
    if (!first) out += ',';
    first = false;
    if (!r.name.empty()) {
      out += r.name;
      out += '=';
    }
    render(r.value, out);
  }
}

void render(const Value& value, std::string& out) {
  if (const std::string* s = value.asString()) {
    out += quoteCString(*s);
  } else if (const Tuple* t = value.asTuple()) {
    out += '{';
    renderResults(t->results, out);
    out += '}';
  } else if (const List* l = value.asList()) {
    out += '[';
    renderResults(l->items, out);
    out += ']';
  }
}

}  // namespace

std::string Value::toMi() const {
  std::string out;
  render(*this, out);
  return out;
}

std::string resultsToMi(const Tuple& tuple) {
  std::string out;
  renderResults(tuple.results, out);
  return out;
}

}  // namespace mpidbg::gdbmi
