#include "debugger/core/GdbFrameScript.hpp"

#include <string_view>

#include "debugger/core/stacks/Machinery.hpp"

namespace mpidbg::core {

namespace {

/// The script, with @PREFIXES@ for the machinery table ((prefix, is_runtime)
/// pairs) and @SELECT@ / @FILTER@ for the names above.
constexpr std::string_view kScript = R"PY(
import gdb
from gdb.FrameDecorator import FrameDecorator
_PREFIXES = (@PREFIXES@)

def _object(pc):
    try:
        name = gdb.current_progspace().solib_name(pc)
    except Exception:
        return None
    return None if name is None else name.rsplit('/', 1)[-1]

def _role(frame):
    obj = _object(frame.pc())
    if obj is None:
        return None
    for prefix, runtime in _PREFIXES:
        if obj.startswith(prefix):
            return 'runtime' if runtime else 'machinery'
    return None

def _is_application(frame):
    return frame.type() == gdb.NORMAL_FRAME and _role(frame) is None

def _select_user_frame():
    try:
        frame = gdb.newest_frame()
    except gdb.error:
        return
    while frame is not None:
        if _is_application(frame):
            frame.select()
            # 'frame' also makes its line the current source line, for 'list'.
            try:
                gdb.execute('frame', to_string=True)
            except gdb.error:
                pass
            return
        try:
            frame = frame.older()
        except gdb.error:
            return

class _SelectUserFrame(gdb.Command):
    """Select the innermost frame of the application (not mpidbg's runtime, the MPI library or libc)."""
    def __init__(self):
        super().__init__('@SELECT@', gdb.COMMAND_STACK)
    def invoke(self, arg, from_tty):
        _select_user_frame()

class _Folded(FrameDecorator):
    def __init__(self, first, count):
        super().__init__(first)
        self._count = count
    def function(self):
        return '[mpidbg runtime: %d frame%s]' % (self._count, '' if self._count == 1 else 's')
    def address(self):
        return None
    def filename(self):
        return None
    def line(self):
        return None
    def frame_args(self):
        return None
    def frame_locals(self):
        return None

class _Unnamed(FrameDecorator):
    """A frame without a function name prints as '??', as without filters."""
    def function(self):
        name = super().function()
        return '??' if name is None or name == '' else name

def _fold(decorators):
    run = []
    for d in decorators:
        if _role(d.inferior_frame()) == 'runtime':
            run.append(d)
            continue
        if run:
            yield _Folded(run[0], len(run))
            run = []
        yield d if d.inferior_frame().name() else _Unnamed(d)
    if run:
        yield _Folded(run[0], len(run))

class _RuntimeFilter:
    def __init__(self):
        self.name = '@FILTER@'
        self.priority = 100
        self.enabled = True
        gdb.frame_filters[self.name] = self
    def filter(self, frames):
        return _fold(frames)

_SelectUserFrame()
_RuntimeFilter()
gdb.events.stop.connect(lambda event: _select_user_frame())
)PY";

void replaceAll(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::string gdbFrameScript() {
  std::string prefixes;
  for (const stacks::MachineryPrefix& row : stacks::machineryPrefixes()) {
    // The prefixes are plain file-name characters: no quoting needed.
    prefixes += "('" + std::string(row.prefix) + "', " +
                (row.role == stacks::ObjectRole::Runtime ? "True" : "False") + "), ";
  }
  std::string script(kScript);
  replaceAll(script, "@PREFIXES@", prefixes);
  replaceAll(script, "@SELECT@", kSelectUserFrameCommand);
  replaceAll(script, "@FILTER@", kRuntimeFrameFilter);
  return script;
}

std::string gdbFrameScriptCommand() {
  std::string literal = "'";
  for (const char c : gdbFrameScript()) {
    if (c == '\\' || c == '\'') literal += '\\';
    if (c == '\n') {
      literal += "\\n";
      continue;
    }
    literal += c;
  }
  literal += "'";
  return "python exec(" + literal + ")";
}

}  // namespace mpidbg::core
