#include "ccs/proto/PupFmt.hpp"

#include <bit>
#include <charconv>
#include <cstdio>

namespace mpidbg::ccs::pupfmt {

namespace {

// Type codes of the intro byte's low nibble (ccs.md, "`.fmt` item format").
constexpr unsigned kBytes = 0, kInt32 = 2, kInt64 = 3, kFloat = 5, kDouble = 6, kComment = 10,
                   kSync = 11, kPointer = 12;

/// Bytes per item of type `code`; 0 for codes the format does not define.
std::size_t itemSize(unsigned code) {
  switch (code) {
    case kBytes: case kComment: return 1;
    case kInt32: case kFloat: case kSync: return 4;
    case kInt64: case kDouble: case kPointer: return 8;
    default: return 0;
  }
}

const char* typeName(unsigned code) {
  switch (code) {
    case kBytes: return "byte";
    case kInt32: return "int32";
    case kInt64: return "int64";
    case kFloat: return "float";
    case kDouble: return "double";
    case kComment: return "comment";
    case kSync: return "sync";
    default: return "pointer";
  }
}

/// Two lower-case hex digits of the low byte of `value` ("0a").
std::string twoHexDigits(unsigned value) {
  char text[3];
  std::snprintf(text, sizeof text, "%02x", value & 0xffu);
  return text;
}

template <class T>
std::string shortest(T value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

Node leaf(Node::Kind kind, std::string value) {
  Node node;
  node.kind = kind;
  node.value = std::move(value);
  return node;
}

/// A byte record: String when it is printable text after dropping trailing
/// NULs, Bytes (hex) otherwise.
Node byteRecord(std::span<const std::uint8_t> bytes) {
  std::size_t length = bytes.size();
  while (length > 0 && bytes[length - 1] == 0) --length;
  bool text = true;
  for (std::size_t i = 0; i < length && text; ++i) {
    std::uint8_t c = bytes[i];
    text = (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n' || c == '\r';
  }
  if (text) return leaf(Node::Kind::String, std::string(bytes.begin(), bytes.begin() + length));
  std::string hex;
  for (std::uint8_t c : bytes) hex += twoHexDigits(c);
  return leaf(Node::Kind::Bytes, std::move(hex));
}

/// One array or object being filled.
struct Frame {
  Node node;
  bool array = false;
  bool itemOpen = false;  ///< array only: an element is being collected in `item`
  Node item;
};

/// An element holding one unlabelled node is that node; else an Object of its fields.
Node collapse(Node item) {
  if (item.children.size() == 1 && item.children[0].label.empty())
    return std::move(item.children[0]);
  item.kind = Node::Kind::Object;
  return item;
}

class Decoder {
 public:
  explicit Decoder(std::span<const std::uint8_t> in) : in_(in) { stack_.emplace_back(); }

  Expected<Node> run() {
    while (pos_ < in_.size())
      if (auto ok = record(); !ok) return std::unexpected(ok.error());
    if (stack_.size() > 1)
      return fail("PUP fmt reply is unbalanced: " + std::to_string(stack_.size() - 1) +
                  " array(s) or object(s) still open at its end (byte " + std::to_string(pos_) +
                  ")");
    Node root = std::move(stack_[0].node);
    if (root.children.size() == 1 && root.children[0].label.empty() &&
        root.children[0].kind != Node::Kind::Scalar &&
        root.children[0].kind != Node::Kind::String && root.children[0].kind != Node::Kind::Bytes &&
        root.children[0].kind != Node::Kind::Pointer)
      return std::move(root.children[0]);
    return root;
  }

 private:
  std::size_t remaining() const { return in_.size() - pos_; }
  std::uint64_t be(std::size_t width) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < width; ++i) value = value << 8 | in_[pos_++];
    return value;
  }

  Expected<void> record() {
    std::size_t start = pos_;
    unsigned intro = in_[pos_++];
    unsigned lenLen = intro >> 4 & 3u, code = intro & 0xfu;
    if ((intro & 0xc0u) != 0 || lenLen == 3)
      return fail("PUP fmt reply has a bad intro byte 0x" + twoHexDigits(intro) + " at byte " +
                  std::to_string(start) + " (count width must be 0, 1 or 2)");
    std::size_t size = itemSize(code);
    if (size == 0)
      return fail("PUP fmt reply has an unknown type " + std::to_string(code) + " at byte " +
                  std::to_string(start));
    std::uint64_t n = 1;
    if (lenLen != 0) {
      std::size_t width = lenLen == 1 ? 1 : 4;
      if (remaining() < width)
        return fail("PUP fmt reply is truncated at byte " + std::to_string(start) +
                    ": the count needs " + std::to_string(width) + " byte(s)");
      n = be(width);
    }
    if (n > remaining() / size) {
      if (lenLen == 0)
        return fail("PUP fmt reply is truncated at byte " + std::to_string(start) + ": " +
                    typeName(code) + " needs " + std::to_string(size) + " bytes, " +
                    std::to_string(remaining()) + " remain");
      return fail("PUP fmt record at byte " + std::to_string(start) + " counts " +
                  std::to_string(n) + " " + typeName(code) + " item(s) but only " +
                  std::to_string(remaining()) + " bytes remain");
    }
    auto body = in_.subspan(pos_, static_cast<std::size_t>(n) * size);
    switch (code) {
      case kComment:
        pos_ += body.size();
        comment(std::string(body.begin(), body.end()));
        return {};
      case kSync:
        for (std::uint64_t i = 0; i < n; ++i)
          if (auto ok = sync(static_cast<std::uint32_t>(be(4)), start); !ok) return ok;
        return {};
      case kBytes:
        pos_ += body.size();
        add(lenLen == 0 ? leaf(Node::Kind::Scalar, std::to_string(body[0])) : byteRecord(body));
        return {};
      default:
        break;
    }
    if (lenLen == 0) {
      add(number(code));
      return {};
    }
    Node array;
    array.kind = Node::Kind::Array;
    for (std::uint64_t i = 0; i < n; ++i) array.children.push_back(number(code));
    add(std::move(array));
    return {};
  }

  /// Reads one item of a number or pointer type.
  Node number(unsigned code) {
    switch (code) {
      case kInt32:
        return leaf(Node::Kind::Scalar, std::to_string(static_cast<std::int32_t>(be(4))));
      case kInt64:
        return leaf(Node::Kind::Scalar, std::to_string(static_cast<std::int64_t>(be(8))));
      case kFloat:
        return leaf(Node::Kind::Scalar,
                    shortest(std::bit_cast<float>(static_cast<std::uint32_t>(be(4)))));
      case kDouble: return leaf(Node::Kind::Scalar, shortest(std::bit_cast<double>(be(8))));
      default: {
        char text[24];
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(be(8)));
        return leaf(Node::Kind::Pointer, text);
      }
    }
  }

  void comment(std::string text) {
    Frame& top = stack_.back();
    if (top.array && !top.itemOpen) {  // labels the array itself
      if (text == "CpdList" && stack_.size() == 2) {
        top.node.kind = Node::Kind::List;
      } else if (top.node.label.empty()) {
        top.node.label = std::move(text);
      }
      return;
    }
    pending_ = std::move(text);
  }

  /// Adds a finished node to the innermost frame, labelling fresh values.
  void add(Node node, bool takeLabel = true) {
    if (takeLabel) node.label = std::move(pending_);
    pending_.clear();
    Frame& top = stack_.back();
    if (!top.array) {
      top.node.children.push_back(std::move(node));
      return;
    }
    if (!top.itemOpen) {  // a value before the first item sync starts one
      top.itemOpen = true;
      top.item = Node{};
    }
    top.item.children.push_back(std::move(node));
  }

  static void closeItem(Frame& frame) {
    if (!frame.itemOpen) return;
    frame.node.children.push_back(collapse(std::move(frame.item)));
    frame.item = Node{};
    frame.itemOpen = false;
  }

  Expected<void> sync(std::uint32_t code, std::size_t at) {
    if (code == sync::beginArray || code == sync::beginObject) {
      if (stack_.size() - 1 >= kMaxDepth)
        return fail("PUP fmt reply nests arrays and objects deeper than " +
                    std::to_string(kMaxDepth) + " levels (byte " + std::to_string(at) + ")");
      Frame frame;
      frame.array = code == sync::beginArray;
      frame.node.kind = frame.array ? Node::Kind::Array : Node::Kind::Object;
      frame.node.label = std::move(pending_);
      pending_.clear();
      stack_.push_back(std::move(frame));
      return {};
    }
    if (code == sync::endArray || code == sync::endObject) {
      bool array = code == sync::endArray;
      if (stack_.size() == 1 || stack_.back().array != array)
        return fail(std::string("PUP fmt reply is unbalanced: an end-") +
                    (array ? "array" : "object") + " sync at byte " + std::to_string(at) +
                    (stack_.size() == 1 ? " has no matching begin"
                                        : std::string(" closes an open ") +
                                              (array ? "object" : "array")));
      closeItem(stack_.back());
      Node done = std::move(stack_.back().node);
      stack_.pop_back();
      add(std::move(done), false);
      return {};
    }
    if (code == sync::item && stack_.back().array) {
      closeItem(stack_.back());
      stack_.back().itemOpen = true;
      pending_.clear();
    }
    return {};  // sync::endSystem, stray items and unknown codes carry no structure
  }

  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
  std::vector<Frame> stack_;  ///< [0] is the top level (an Object frame)
  std::string pending_;       ///< the last comment, waiting for its field
};

void flattenInto(const Node& node, const std::string& path,
                 std::vector<std::pair<std::string, std::string>>& out) {
  switch (node.kind) {
    case Node::Kind::Array:
    case Node::Kind::List:
      if (node.children.empty()) out.emplace_back(path, "[]");
      for (std::size_t i = 0; i < node.children.size(); ++i)
        flattenInto(node.children[i], path + "[" + std::to_string(i) + "]", out);
      return;
    case Node::Kind::Object:
      if (node.children.empty()) out.emplace_back(path, "{}");
      for (std::size_t i = 0; i < node.children.size(); ++i) {
        const Node& child = node.children[i];
        std::string name = child.label.empty() ? "#" + std::to_string(i) : child.label;
        flattenInto(child, path.empty() ? name : path + "." + name, out);
      }
      return;
    default:
      out.emplace_back(path, node.value);
  }
}

/// `text` with quotes, backslashes and control bytes escaped as in C.
std::string escape(std::string_view text) {
  std::string out;
  for (char ch : text) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += ch;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      out += "\\x" + twoHexDigits(c);
    } else {
      out += ch;
    }
  }
  return out;
}

bool isContainer(const Node& node) {
  return node.kind == Node::Kind::Array || node.kind == Node::Kind::List ||
         node.kind == Node::Kind::Object;
}

void renderChildren(const Node& node, std::size_t depth, std::string& out);

void renderNode(const Node& node, const std::string& name, std::size_t depth, std::string& out) {
  out.append(2 * depth, ' ');
  out += escape(name);
  if (!isContainer(node)) {
    out += " = ";
    out += node.kind == Node::Kind::String ? "\"" + escape(node.value) + "\"" : node.value;
  } else if (node.children.empty()) {
    out += node.kind == Node::Kind::Object ? ": {}" : ": []";
  } else if (node.kind == Node::Kind::Object) {
    out += ':';
  } else {
    out += ": " + std::to_string(node.children.size()) +
           (node.children.size() == 1 ? " item" : " items");
  }
  out += '\n';
  renderChildren(node, depth + 1, out);
}

void renderChildren(const Node& node, std::size_t depth, std::string& out) {
  bool elements = node.kind != Node::Kind::Object;
  for (std::size_t i = 0; i < node.children.size(); ++i) {
    const Node& child = node.children[i];
    std::string name = elements              ? "[" + std::to_string(i) + "]"
                       : child.label.empty() ? "#" + std::to_string(i)
                                             : child.label;
    renderNode(child, name, depth, out);
  }
}

}  // namespace

Expected<Node> decode(std::span<const std::uint8_t> bytes) { return Decoder(bytes).run(); }

std::string fieldValue(const Node& node, std::string_view label) {
  for (const auto& child : node.children)
    if (child.label == label) return child.value;
  return {};
}

std::vector<std::pair<std::string, std::string>> flatten(const Node& node,
                                                         std::string_view prefix) {
  std::vector<std::pair<std::string, std::string>> out;
  flattenInto(node, std::string(prefix), out);
  return out;
}

std::string renderTree(const Node& node) {
  std::string out;
  if (isContainer(node) && node.label.empty()) {
    if (node.children.empty()) return node.kind == Node::Kind::Object ? "{}\n" : "[]\n";
    renderChildren(node, 0, out);
  } else {
    renderNode(node, node.label.empty() ? "value" : node.label, 0, out);
  }
  return out;
}

}  // namespace mpidbg::ccs::pupfmt
