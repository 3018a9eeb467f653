# Rank-set expressions, named sets, live-state sets and the focus
# (debugger/core/RankExpr.hpp, debugger/cli/SetCommands.hpp) on a real job:
# coll_skip with 4 ranks ends with ranks 0-2 blocked in MPI_Allreduce and
# rank 3 blocked in MPI_Recv from rank 0.

case_ranksets_live_states_names_and_algebra() {
  run_mpidbg 180 -ex run -ex 'wait 30' \
    -ex 'status blocked' \
    -ex 'status (in MPI_Allreduce)' \
    -ex 'status blocked & in MPI_Recv' \
    -ex 'set S = [0-1]' \
    -ex 'set late = blocked - in MPI_Allreduce' \
    -ex 'set' \
    -ex 'status (S | 3)' \
    -ex 'status (~S)' \
    -ex 'status ~(S|late)' \
    -ex 'break S MPI_Send' \
    -ex 'gdb --keep (in MPI_Recv) info inferiors' \
    -ex 'status held' \
    -ex 'status (~held) - S' \
    -ex 'gdb detach (held)' \
    -ex 'unset late' \
    -ex kill -- "$mpiexec" -n 4 "$examples/hangs/coll_skip"
  # status ends each waiting rank's line with where it made the call.
  local allreduce="blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD) at coll_skip.c:15 in main"
  local recv="blocked in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD) at coll_skip.c:18 in main"
  check_rc 0 &&
  check_contains "$(section 'status blocked')" "[0-2] $allreduce" "status blocked" &&
  check_contains "$(section 'status blocked')" "[3] $recv" "status blocked" &&
  check_contains "$(section 'status (in MPI_Allreduce)')" "[0-2] $allreduce" "status (in MPI_Allreduce)" &&
  check_not_contains "$(section 'status (in MPI_Allreduce)')" "[3]" "status (in MPI_Allreduce)" &&
  [ "$(section 'status blocked & in MPI_Recv')" = "[3] $recv" ] &&
  check_contains "$(section 'set S = [0-1]')" "S = [0-1]" "set S" &&
  check_contains "$(section 'set late = blocked - in MPI_Allreduce')" "late = [3]" "set late" &&
  check_contains "$(section 'set')" "S = [0-1]" "set (list)" &&
  check_contains "$(section 'set')" "late = [3]" "set (list)" &&
  check_contains "$(section 'status (S | 3)')" "[0-1] $allreduce" "status (S | 3)" &&
  check_contains "$(section 'status (S | 3)')" "[3] $recv" "status (S | 3)" &&
  check_not_contains "$(section 'status (S | 3)')" "[2]" "status (S | 3)" &&
  check_contains "$(section 'status (~S)')" "[2] $allreduce" "status (~S)" &&
  check_contains "$(section 'status (~S)')" "[3] $recv" "status (~S)" &&
  [ "$(section 'status ~(S|late)')" = "[2] $allreduce" ] &&
  check_contains "$(section 'break S MPI_Send')" "Breakpoint 1: MPI_Send on [0-1]" "break S MPI_Send" &&
  check_contains "$(section 'gdb --keep (in MPI_Recv) info inferiors')" "process" "gdb --keep (in MPI_Recv) info inferiors" &&
  # A rank held by gdb keeps its MPI state (read through the message-queue DLL).
  [ "$(section 'status held')" = "[3] stopped by gdb in ${recv#blocked in }" ] &&
  [ "$(section 'status (~held) - S')" = "[2] $allreduce" ] &&
  check_contains "$(section 'gdb detach (held)')" "[3] detached" "gdb detach (held)" &&
  check_contains "$(section 'unset late')" "Forgot late." "unset"
}

case_ranksets_focus_and_errors() {
  run_mpidbg 180 -ex run -ex 'wait 30' \
    -ex 'focus [2-3]' \
    -ex 'status' \
    -ex 'focus' \
    -ex 'status frozen' \
    -ex 'focus frozen' \
    -ex 'status (S | 3' \
    -ex 'status nope | 1' \
    -ex 'status (where grid.nx != 128)' \
    -ex 'set all = 3' \
    -ex 'status 0 - 3 ^ 2' \
    -ex 'gdb (in MPI_Barrier) bt' \
    -ex 'focus all' \
    -ex 'status' \
    -ex kill -- "$mpiexec" -n 4 "$examples/hangs/coll_skip"
  # status ends each waiting rank's line with where it made the call.
  local allreduce="blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD) at coll_skip.c:15 in main"
  local recv="blocked in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD) at coll_skip.c:18 in main"
  check_rc 65 &&
  check_contains "$(section 'focus [2-3]')" "Focus: [2-3]" "focus [2-3]" &&
  [ "$(section 'status' | head -2)" = "[2] $allreduce
[3] $recv" ] &&
  check_contains "$(section 'focus')" "Focus: [2-3]" "focus (show)" &&
  check_contains "$err" "error: the set is empty: 'frozen' names no rank right now" "status frozen" &&
  check_contains "$err" "error: the set is empty: 'frozen' names no rank; the focus is unchanged" "focus frozen" &&
  check_contains "$err" "error: bad rank set '(S | 3': unbalanced parentheses: '(' is not closed at column 1" "unbalanced" &&
  check_contains "$err" "error: unknown rank set name 'nope' (no named sets yet; define one with 'set nope = EXPR') (at column 1 of 'nope | 1')" "unknown name" &&
  check_contains "$err" "error: cannot evaluate 'where grid.nx != 128': no list named 'grid' (see 'lists')" "where" &&
  check_contains "$err" "error: 'all' is a reserved word in rank sets" "set all" &&
  check_contains "$err" "error: bad rank set '0 - 3 ^ 2': expected an operator (| & -) or the end, got '^' at column 7" "bad operator" &&
  check_contains "$err" "error: the set is empty: '(in MPI_Barrier)' names no rank right now" "gdb on an empty set" &&
  check_contains "$(section 'focus all')" "No focus: commands without RANKS act on every rank." "focus all" &&
  check_contains "$(section 'status' | tail -2)" "[0-2] $allreduce" "status after focus all"
}

case_ranksets_prompt_shows_the_focus() {
  command -v tmux >/dev/null || { echo "    tmux is not installed"; return 1; }
  local session="mpidbg-rs-$$" i
  tmux kill-session -t "$session" 2>/dev/null
  tmux new-session -d -s "$session" -x 160 -y 50 \
    "env MPIDBG_IT_MARKER=$work HOME=$work $mpidbg -- $mpiexec -n 4 $examples/ring 2>$work/err; echo MPIDBG-EXIT=\$? >$work/exit; sleep 10"
  pane() { tmux capture-pane -t "$session" -p -S -100 2>/dev/null; }
  wait_until 300 "the prompt" pane_has "^(mpidbg)"
  tmux send-keys -t "$session" 'focus 1-2' Enter
  wait_until 100 "the prompt with the focus" pane_has "^(mpidbg \[1-2\])"
  tmux send-keys -t "$session" 'status' Enter
  wait_until 100 "status with the focus" pane_has "^\[1-2\] frozen"
  tmux send-keys -t "$session" 'unfocus' Enter
  sleep 0.5
  tmux send-keys -t "$session" 'kill' Enter
  sleep 0.5
  tmux send-keys -t "$session" 'quit' Enter
  wait_until 100 "mpidbg to exit" nonempty "$work/exit"
  out="$(pane)"; err="$(cat "$work/err" 2>/dev/null)"
  tmux kill-session -t "$session" 2>/dev/null
  check_contains "$out" "(mpidbg [1-2]) status" "the prompt with the focus" &&
  check_contains "$out" "[1-2] frozen" "status with the focus" &&
  check_not_contains "$out" "[0-3] frozen" "status with the focus" &&
  check_contains "$out" "(mpidbg) kill" "the prompt after unfocus" &&
  check_contains "$(cat "$work/exit")" "MPIDBG-EXIT=0" "exit status"
}
