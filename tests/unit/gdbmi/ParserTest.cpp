// Table-driven tests of the MI output parser. The "captured" rows are
// verbatim lines printed by GNU gdb 13.1 (Debian 13.1-3) run as
// `gdb --interpreter=mi3 -nx -q` against a small -g C program.

#include <catch2/catch.hpp>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "debugger/gdbmi/Parser.hpp"

using mpidbg::gdbmi::Parser;
using mpidbg::gdbmi::Record;
using mpidbg::gdbmi::RecordKind;
using mpidbg::gdbmi::Tuple;
using mpidbg::gdbmi::Value;

namespace {

/// Follows a dotted path ("stack.1.func") through tuples (by name) and lists
/// (by index); returns the value there rendered as its string, or as MI for
/// tuples and lists; nullopt when the path does not exist.
std::optional<std::string> lookup(const Record& record, std::string_view path) {
  if (path.empty()) return std::nullopt;
  Value root{record.results};
  const Value* at = &root;
  while (!path.empty() && at != nullptr) {
    const std::size_t dot = path.find('.');
    const std::string_view part = path.substr(0, dot);
    path = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
    if (const auto* list = at->asList()) {
      const std::size_t index = std::strtoul(std::string(part).c_str(), nullptr, 10);
      at = index < list->size() ? &list->at(index) : nullptr;
    } else {
      at = at->get(part);
    }
  }
  if (at == nullptr) return std::nullopt;
  if (const std::string* s = at->asString()) return *s;
  return at->toMi();
}

struct Row {
  std::string_view input;
  RecordKind kind;
  std::optional<std::uint64_t> token;
  std::string_view recordClass;  // for result/async records
  std::string_view path;         // "" = check `expected` against the stream text
  std::string_view expected;
};

const Row kCaptured[] = {
    {R"(=thread-group-added,id="i1")",
     RecordKind::NotifyAsync,
     {},
     "thread-group-added",
     "id",
     "i1"},
    {"(gdb) ", RecordKind::Prompt, {}, "", "", ""},
    {"^done", RecordKind::Result, {}, "done", "", ""},
    {R"(^done,bkpt={number="1",type="breakpoint",disp="keep",enabled="y",addr="0x0000000000001160",func="compute",file="prog.c",fullname="/tmp/gdbcap/prog.c",line="4",thread-groups=["i1"],times="0",original-location="compute"})",
     RecordKind::Result,
     {},
     "done",
     "bkpt.thread-groups.0",
     "i1"},
    {R"(=thread-group-started,id="i1",pid="3813")",
     RecordKind::NotifyAsync,
     {},
     "thread-group-started",
     "pid",
     "3813"},
    {R"(=thread-created,id="1",group-id="i1")",
     RecordKind::NotifyAsync,
     {},
     "thread-created",
     "group-id",
     "i1"},
    {R"(=library-loaded,id="/lib64/ld-linux-x86-64.so.2",target-name="/lib64/ld-linux-x86-64.so.2",host-name="/lib64/ld-linux-x86-64.so.2",symbols-loaded="0",thread-group="i1",ranges=[{from="0x00007ffff7fcb060",to="0x00007ffff7ff0111"}])",
     RecordKind::NotifyAsync,
     {},
     "library-loaded",
     "ranges.0.to",
     "0x00007ffff7ff0111"},
    {"^running", RecordKind::Result, {}, "running", "", ""},
    {R"(*running,thread-id="all")", RecordKind::ExecAsync, {}, "running", "thread-id", "all"},
    {R"(~"Using host libthread_db library \"/lib/x86_64-linux-gnu/libthread_db.so.1\".\n")",
     RecordKind::ConsoleStream,
     {},
     "",
     "",
     "Using host libthread_db library \"/lib/x86_64-linux-gnu/libthread_db.so.1\".\n"},
    {R"(~"4\tstatic int compute(int n) { struct point p = {n, n*2}; int s = p.x + p.y; return s; }\n")",
     RecordKind::ConsoleStream,
     {},
     "",
     "",
     "4\tstatic int compute(int n) { struct point p = {n, n*2}; int s = p.x + p.y; return s; }\n"},
    {R"(~" Saved registers:\n ")", RecordKind::ConsoleStream, {}, "", "", " Saved registers:\n "},
    {R"(*stopped,reason="breakpoint-hit",disp="keep",bkptno="1",frame={addr="0x0000555555555160",func="compute",args=[{name="n",value="3"}],file="prog.c",fullname="/tmp/gdbcap/prog.c",line="4",arch="i386:x86-64"},thread-id="1",stopped-threads="all",core="0")",
     RecordKind::ExecAsync,
     {},
     "stopped",
     "frame.args.0.value",
     "3"},
    {R"(^done,stack=[frame={level="0",addr="0x0000555555555160",func="compute",file="prog.c",fullname="/tmp/gdbcap/prog.c",line="4",arch="i386:x86-64"},frame={level="1",addr="0x00005555555551d8",func="main",file="prog.c",fullname="/tmp/gdbcap/prog.c",line="9",arch="i386:x86-64"}])",
     RecordKind::Result,
     {},
     "done",
     "stack.1.func",
     "main"},
    {R"(^done,locals=[{name="p",value="{x = 32767, y = 1431666136}"},{name="s",value="21845"}])",
     RecordKind::Result,
     {},
     "done",
     "locals.0.value",
     "{x = 32767, y = 1431666136}"},
    {R"(^done,value="{x = 32767, y = 1431666136}")",
     RecordKind::Result,
     {},
     "done",
     "value",
     "{x = 32767, y = 1431666136}"},
    {R"(^error,msg="No symbol \"msg\" in current context.")",
     RecordKind::Result,
     {},
     "error",
     "msg",
     "No symbol \"msg\" in current context."},
    {R"MI(^done,threads=[{id="1",target-id="Thread 0x7ffff7dd0740 (LWP 3813)",name="prog",frame={level="0",addr="0x0000555555555160",func="compute",args=[{name="n",value="3"}],file="prog.c",fullname="/tmp/gdbcap/prog.c",line="4",arch="i386:x86-64"},state="stopped",core="0"}],current-thread-id="1")MI",
     RecordKind::Result,
     {},
     "done",
     "threads.0.target-id",
     "Thread 0x7ffff7dd0740 (LWP 3813)"},
    {R"(~"#1  0x00005555555551d8 in main () at prog.c:9\n")",
     RecordKind::ConsoleStream,
     {},
     "",
     "",
     "#1  0x00005555555551d8 in main () at prog.c:9\n"},
    {R"(^done,stack-args=[frame={level="0",args=[{name="n",value="3"}]},frame={level="1",args=[]}])",
     RecordKind::Result,
     {},
     "done",
     "stack-args.1.args",
     "[]"},
    {R"(^done,BreakpointTable={nr_rows="1",nr_cols="6",hdr=[{width="7",alignment="-1",col_name="number",colhdr="Num"},{width="14",alignment="-1",col_name="type",colhdr="Type"},{width="4",alignment="-1",col_name="disp",colhdr="Disp"},{width="3",alignment="-1",col_name="enabled",colhdr="Enb"},{width="18",alignment="-1",col_name="addr",colhdr="Address"},{width="40",alignment="2",col_name="what",colhdr="What"}],body=[bkpt={number="1",type="breakpoint",disp="keep",enabled="y",addr="0x0000555555555160",func="compute",file="prog.c",fullname="/tmp/gdbcap/prog.c",line="4",thread-groups=["i1"],times="1",original-location="compute"}]})",
     RecordKind::Result,
     {},
     "done",
     "BreakpointTable.body.0.times",
     "1"},
    {R"(=thread-group-exited,id="i1",exit-code="0")",
     RecordKind::NotifyAsync,
     {},
     "thread-group-exited",
     "exit-code",
     "0"},
    {R"(*stopped,reason="exited-normally")",
     RecordKind::ExecAsync,
     {},
     "stopped",
     "reason",
     "exited-normally"},
    {"^exit", RecordKind::Result, {}, "exit", "", ""},
    {"12^done", RecordKind::Result, 12, "done", "", ""},
    {R"(&"30\t../sysdeps/unix/sysv/linux/wait4.c: No such file or directory.\n")",
     RecordKind::LogStream,
     {},
     "",
     "",
     "30\t../sysdeps/unix/sysv/linux/wait4.c: No such file or directory.\n"},
    {R"(13^done,stack=[frame={level="0",addr="0x00007f03af907bd3",func="__GI___wait4",file="../sysdeps/unix/sysv/linux/wait4.c",fullname="./posix/../sysdeps/unix/sysv/linux/wait4.c",line="30",arch="i386:x86-64"}])",
     RecordKind::Result, 13, "done", "stack.0.func", "__GI___wait4"},
    {R"(=library-unloaded,id="/lib/x86_64-linux-gnu/libc.so.6",target-name="/lib/x86_64-linux-gnu/libc.so.6",host-name="/lib/x86_64-linux-gnu/libc.so.6",thread-group="i1")",
     RecordKind::NotifyAsync,
     {},
     "library-unloaded",
     "thread-group",
     "i1"},
    {R"(15^error,msg="ptrace: No such process.")", RecordKind::Result, 15, "error", "msg",
     "ptrace: No such process."},
    {R"(18^error,msg="No executable file specified.\nUse the \"file\" or \"exec-file\" command.")",
     RecordKind::Result, 18, "error", "msg",
     "No executable file specified.\nUse the \"file\" or \"exec-file\" command."},
    {R"(^done,value="0x555555556004 \"hi \\\"there\\\"\\n\\ttab\"")",
     RecordKind::Result,
     {},
     "done",
     "value",
     R"(0x555555556004 "hi \"there\"\n\ttab")"},
    {R"(^done,value="27 '\\033'")", RecordKind::Result, {}, "done", "value", R"(27 '\033')"},
};

const Row kSynthetic[] = {
    {R"(@"target says hi\n")", RecordKind::TargetStream, {}, "", "", "target says hi\n"},
    {R"(~"\e[1m\101\0\7\101b\r\'")",
     RecordKind::ConsoleStream,
     {},
     "",
     "",
     std::string_view("\033[1mA\0\7Ab\r'", 11)},
    {R"(+download,{section=".text",section-size="6668"})",
     RecordKind::StatusAsync,
     {},
     "download",
     "",
     ""},
    {R"(7^connected)", RecordKind::Result, 7, "connected", "", ""},
    {R"(^done,a={},b=[],c=[[],["x"],{}])", RecordKind::Result, {}, "done", "c.1.0", "x"},
    {"^done,x=\"1\"\r\n", RecordKind::Result, {}, "done", "x", "1"},
    {"(gdb)", RecordKind::Prompt, {}, "", "", ""},
    // Raw stream text: "either raw text (with an implicit new line) or a
    // quoted C string" (GDB manual, "GDB/MI Stream Records").
    {"~raw console text", RecordKind::ConsoleStream, {}, "", "", "raw console text\n"},
    {"&", RecordKind::LogStream, {}, "", "", "\n"},
    {"@target \"quoted\" stays", RecordKind::TargetStream, {}, "", "", "target \"quoted\" stays\n"},
    {R"(~"\x41\x7e\x0\xfF\?")", RecordKind::ConsoleStream, {}, "", "", std::string_view("A~\0\xff?", 5)},
    {R"(~"\1\12\123\1234")", RecordKind::ConsoleStream, {}, "", "", "\1\12SS4"},
    {"(gdb) \t \r\n", RecordKind::Prompt, {}, "", "", ""},
    {"^done\r", RecordKind::Result, {}, "done", "", ""},
    {R"(0*stopped)", RecordKind::ExecAsync, 0, "stopped", "", ""},
    {R"(5+download,section=".text",section-sent="512")", RecordKind::StatusAsync, 5, "download", "section-sent", "512"},
    {R"(=tuple-in-list,l=[{a="1"},{b=["x",{}]}])", RecordKind::NotifyAsync, {}, "tuple-in-list", "l.1.b.0", "x"},
    {R"(18446744073709551615^done)", RecordKind::Result, 18446744073709551615ull, "done", "", ""},
};

void checkRow(const Row& row) {
  INFO("input: " << row.input);
  auto record = Parser::parse(row.input);
  REQUIRE(record.has_value());
  CHECK(record->kind == row.kind);
  CHECK(record->token == row.token);
  CHECK(record->recordClass == row.recordClass);
  if (row.path.empty()) {
    CHECK(record->text == row.expected);
  } else {
    CHECK(lookup(*record, row.path) == std::optional<std::string>(row.expected));
  }
  // Rendering back to MI and parsing again gives the same record.
  auto again = Parser::parse(record->toMi());
  REQUIRE(again.has_value());
  CHECK(*again == *record);
}

}  // namespace

TEST_CASE("Parser reads gdb 13 MI output verbatim", "[gdbmi][parser]") {
  for (const Row& row : kCaptured) checkRow(row);
}

TEST_CASE("Parser handles escapes, empty containers, tokens and status records",
          "[gdbmi][parser]") {
  for (const Row& row : kSynthetic) checkRow(row);
}

TEST_CASE("Tuple lookups and list shapes", "[gdbmi][parser]") {
  auto record = Parser::parse(
      R"(^done,stack=[frame={level="0"},frame={level="1"}],groups=["i1","i2"],level="x")");
  REQUIRE(record);
  const Tuple& results = record->results;
  REQUIRE(results.get("stack") != nullptr);
  const auto* stack = results.get("stack")->asList();
  REQUIRE(stack != nullptr);
  CHECK(stack->ofResults());
  CHECK(stack->size() == 2);
  CHECK(stack->items[1].name == "frame");
  CHECK(*stack->at(1).get("level")->asString() == "1");
  const auto* groups = results.get("groups")->asList();
  REQUIRE(groups != nullptr);
  CHECK_FALSE(groups->ofResults());
  CHECK(*groups->at(1).asString() == "i2");
  CHECK(results.getString("level") != nullptr);
  CHECK(results.getString("stack") == nullptr);
  CHECK(results.get("nope") == nullptr);
  CHECK(results.get("stack")->asTuple() == nullptr);
  CHECK(results.getAll("level").size() == 1);
}
