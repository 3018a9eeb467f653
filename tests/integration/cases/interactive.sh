# The interactive prompt (readline) in a real terminal: mpidbg runs in a tmux
# pane on a private tmux server (-L), keys are typed with send-keys and the
# screen is read with capture-pane (-e keeps the colours). HOME is a fresh
# directory so the history file is the case's own.

itmux() { tmux -L "mpidbg-it-$$" "$@"; }
# ikill: ends the private tmux server and removes its socket file.
ikill() {
  itmux kill-server 2>/dev/null
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/mpidbg-it-$$"
}
# ipane SESSION [-e]: the session's screen and scrollback as text.
ipane() { itmux capture-pane -t "$1" -p -S -300 ${2:-} 2>/dev/null; }
# iwait SESSION TEXT [COUNT] [TENTHS]: until TEXT (fixed) shows on COUNT lines.
iwait() {
  local i
  for i in $(seq 1 "${4:-300}"); do
    [ "$(ipane "$1" | grep -cF -- "$2")" -ge "${3:-1}" ] && return 0
    sleep 0.1
  done
  echo "    timed out waiting for ${3:-1} line(s) with: $2"
  return 1
}
# iline SESSION: the screen line the cursor is on (trailing blanks dropped).
iline() {
  local y
  y="$(itmux display-message -p -t "$1" '#{cursor_y}' 2>/dev/null)" || return
  itmux capture-pane -t "$1" -p 2>/dev/null | sed -n "$((y + 1))p"
}
# iexpect_line SESSION LINE: the line at the cursor becomes exactly LINE.
iexpect_line() {
  local i
  for i in $(seq 1 50); do [ "$(iline "$1")" = "$2" ] && return 0; sleep 0.1; done
  echo "    expected the prompt line '$2', got '$(iline "$1")'"
  return 1
}
# istart SESSION HOME ENV-ASSIGNMENTS COMMAND...: mpidbg in a 200x60 pane; its
# exit status goes to $work/exit.SESSION.
istart() {
  local s="$1" home="$2" envs="$3"; shift 3
  mkdir -p "$home"
  rm -f "$work/exit.$s"
  itmux new-session -d -s "$s" -x 200 -y 60 \
    "env MPIDBG_IT_MARKER=$work HOME=$home $envs timeout --foreground -k 5 240 $mpidbg $*; echo MPIDBG-EXIT=\$? >$work/exit.$s; sleep 30"
}
# istop SESSION: after a failed step, ends mpidbg and its job (the pane's
# SIGHUP at kill-server would leave the job behind).
istop() {
  [ -s "$work/exit.$1" ] && return
  itmux send-keys -t "$1" C-c; sleep 0.3
  itmux send-keys -t "$1" C-u 'kill' Enter; sleep 2
  itmux send-keys -t "$1" C-u 'quit' Enter
}
iexited() {  # SESSION: waits for mpidbg's exit status; prints it
  local i
  for i in $(seq 1 150); do [ -s "$work/exit.$1" ] && break; sleep 0.1; done
  cat "$work/exit.$1" 2>/dev/null
}

case_interactive_completion_history_ctrl_c_ctrl_d() {
  command -v tmux >/dev/null || { echo "    tmux is not installed"; return 1; }
  local s=prompt home="$work/home-prompt" ok=1
  ikill
  # --blocked-after is huge so the hung ranks never count as blocked: 'wait 60'
  # waits unless Ctrl-C interrupts it.
  istart $s "$home" "" --blocked-after 1000000 -- "$mpiexec" -n 3 "$examples/hangs/coll_skip" "2>$work/err"
  {
    iwait $s "Job started: 3 ranks" 1 1200 &&
    itmux send-keys -t $s 'run' Enter && iwait $s "Continuing" &&
    # Tab completes a command name ...
    itmux send-keys -t $s 'sta' Tab && iexpect_line $s "(mpidbg) status" &&
    itmux send-keys -t $s Enter && iwait $s "[2] in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD)" &&
    # ... and Up recalls the last line from the history.
    itmux send-keys -t $s Up && iexpect_line $s "(mpidbg) status" &&
    itmux send-keys -t $s Enter && iwait $s "[2] in MPI_Recv(source=0, tag=42" 2 &&
    # An option from the command's syntax, on an abbreviation.
    itmux send-keys -t $s 'bt --t' Tab && iexpect_line $s "(mpidbg) bt --tree" &&
    itmux send-keys -t $s Enter && iwait $s "main [0-2] (3 ranks)" &&
    # MPI function names after break, breakpoint numbers after disable.
    itmux send-keys -t $s 'break MPI_Barr' Tab && iexpect_line $s "(mpidbg) break MPI_Barrier" &&
    itmux send-keys -t $s Enter && iwait $s "Breakpoint 1: MPI_Barrier on [0-2]" &&
    itmux send-keys -t $s 'disable ' Tab && iexpect_line $s "(mpidbg) disable 1" &&
    itmux send-keys -t $s Enter && iwait $s "[0-2] disabled breakpoint 1" &&
    # Ctrl-C drops the typed line: Enter then runs nothing ('disable' does not repeat).
    itmux send-keys -t $s 'status 1' && iexpect_line $s "(mpidbg) status 1" &&
    itmux send-keys -t $s C-c && iexpect_line $s "(mpidbg)" &&
    itmux send-keys -t $s Enter && sleep 1 &&
    # An empty line repeats 'where' (as gdb repeats its repeatable commands).
    itmux send-keys -t $s 'where' Enter && iwait $s "main > MPI_Recv  [2]" &&
    itmux send-keys -t $s Enter && iwait $s "main > MPI_Recv  [2]" 2 &&
    # Ctrl-C interrupts a waiting command, not the debugger.
    itmux send-keys -t $s 'wait 60' Enter && iwait $s "Ctrl-C interrupts" &&
    sleep 1 && itmux send-keys -t $s C-c && iwait $s "Interrupted after" &&
    # Ctrl-D with live ranks asks first; 'n' keeps the session.
    itmux send-keys -t $s C-d && iwait $s "The job is still running (3 ranks). Kill it and quit? (y or n)" &&
    itmux send-keys -t $s n Enter && iwait $s "Not confirmed." &&
    itmux send-keys -t $s 'st 2' Enter && iwait $s "[2] in MPI_Recv(source=0, tag=42" 3 &&
    # Without a job Ctrl-D quits at once.
    itmux send-keys -t $s kill Enter && iwait $s "Killed the job." &&
    itmux send-keys -t $s C-d
  } || { ok=0; istop $s; }
  local exit_status
  exit_status="$(iexited $s)"
  out="$(ipane $s)"; err="$(cat "$work/err" 2>/dev/null)"
  ikill
  [ $ok -eq 1 ] || return 1
  if grep -qE '^\[1\] ' <<<"$out"; then
    echo "    'status 1' ran although Ctrl-C dropped it"
    return 1
  fi
  if [ "$(grep -cF "Kill it and quit?" <<<"$out")" -ne 1 ]; then
    echo "    expected exactly one confirmation question (none after 'kill')"
    return 1
  fi
  check_contains "$exit_status" "MPIDBG-EXIT=0" "exit status after Ctrl-D without a job" &&
  check_contains "$(cat "$home/.mpidbg_history" 2>/dev/null)" "wait 60" "history file" &&
  check_contains "$(cat "$home/.mpidbg_history" 2>/dev/null)" "bt --tree" "history file"
}

case_interactive_colours_only_on_a_tty_without_no_color() {
  command -v tmux >/dev/null || { echo "    tmux is not installed"; return 1; }
  local s ok=1 esc=$'\033' coloured plain st1 st2
  ikill
  # A terminal: the prompt, rank sets and "error:" are coloured (stderr is the pane too).
  s=colour
  istart $s "$work/home-colour" "" -- "$mpiexec" -n 2 "$examples/ring"
  {
    iwait $s "Job started: 2 ranks" 1 1200 &&
    itmux send-keys -t $s 'stauts' Enter && iwait $s "did you mean: status?" &&
    itmux send-keys -t $s 'status' Enter && iwait $s "[0-1] frozen" &&
    coloured="$(ipane $s -e)" &&
    # Ctrl-D, then 'y': the job is killed and the session ends.
    itmux send-keys -t $s C-d && iwait $s "Kill it and quit? (y or n)" &&
    itmux send-keys -t $s y Enter && iwait $s "Killed the job."
  } || { ok=0; istop $s; }
  st1="$(iexited $s)"
  # NO_COLOR on the same terminal: no escape sequence at all.
  s=nocolour
  istart $s "$work/home-colour" "NO_COLOR=1" -- "$mpiexec" -n 2 "$examples/ring"
  {
    iwait $s "Job started: 2 ranks" 1 1200 &&
    itmux send-keys -t $s 'stauts' Enter && iwait $s "did you mean: status?" &&
    itmux send-keys -t $s 'status' Enter && iwait $s "[0-1] frozen" &&
    plain="$(ipane $s -e)" &&
    itmux send-keys -t $s C-d && iwait $s "Kill it and quit? (y or n)" &&
    itmux send-keys -t $s y Enter && iwait $s "Killed the job."
  } || { ok=0; istop $s; }
  st2="$(iexited $s)"
  ikill
  [ $ok -eq 1 ] || return 1
  check_contains "$st1" "MPIDBG-EXIT=0" "exit status after Ctrl-D, y" &&
  check_contains "$st2" "MPIDBG-EXIT=0" "exit status after Ctrl-D, y (NO_COLOR)" &&
  check_contains "$coloured" "${esc}[1m(mpidbg)" "the prompt in bold" &&
  check_contains "$(grep -F "frozen" <<<"$coloured")" "${esc}[36m[0-1]" "the rank set in colour" &&
  check_contains "$(grep -F "did you mean" <<<"$coloured")" "${esc}[" "the error in colour" &&
  check_contains "$plain" "[0-1] frozen" "status under NO_COLOR" &&
  check_not_contains "$plain" "$esc" "the screen under NO_COLOR" || return 1
  # Not a terminal: plain text on stdout and stderr.
  run_mpidbg 120 -ex status -ex stauts -ex 'where' -ex kill -- "$mpiexec" -n 2 "$examples/ring"
  check_rc 65 &&
  check_contains "$out" "[0-1] frozen" "status in batch mode" &&
  check_contains "$err" "error: unknown command 'stauts'" "stderr in batch mode" &&
  check_not_contains "$out" "$esc" "stdout that is not a terminal" &&
  check_not_contains "$err" "$esc" "stderr that is not a terminal"
}

case_interactive_completion_of_print_targets_from_the_ranks() {
  command -v tmux >/dev/null || { echo "    tmux is not installed"; return 1; }
  local s=pupcomp home="$work/home-pupcomp" ok=1
  ikill
  istart $s "$home" "" -- "$mpiexec" -n 2 "$examples/heat2d" 5 "2>$work/err"
  {
    iwait $s "Job started: 2 ranks" 1 1200 &&
    # The watches are registered after MPI_Init: stop at the first step.
    itmux send-keys -t $s 'break entry heat2d::step' Enter && iwait $s "Breakpoint 1:" &&
    itmux send-keys -t $s 'run' Enter && itmux send-keys -t $s 'wait 30' Enter && iwait $s "(after " &&
    # A list name, asked of the ranks (mpidbg/lists) ...
    itmux send-keys -t $s 'print gr' Tab && iexpect_line $s "(mpidbg) print grid" &&
    # ... a field of the object, read from a rank ...
    itmux send-keys -t $s C-u 'print grid.first' Tab && iexpect_line $s "(mpidbg) print grid.first_row" &&
    itmux send-keys -t $s Enter && iwait $s "grid.first_row = 0 on [0]; 8 on [1]" &&
    # ... and an array field stops at its '[' for the index.
    itmux send-keys -t $s 'print grid.cel' Tab && iexpect_line $s "(mpidbg) print grid.cells[" &&
    itmux send-keys -t $s C-u 'kill' Enter && iwait $s "Killed the job." &&
    itmux send-keys -t $s C-d
  } || { ok=0; istop $s; }
  local exit_status
  exit_status="$(iexited $s)"
  out="$(ipane $s)"; err="$(cat "$work/err" 2>/dev/null)"
  ikill
  [ $ok -eq 1 ] || return 1
  check_contains "$exit_status" "MPIDBG-EXIT=0" "exit status"
}

case_interactive_long_output_goes_through_the_pager() {
  # Issue 24 item 8: at the prompt, a result taller than the terminal goes
  # through $PAGER (here one that keeps what it is given); 'set pagination
  # off' prints it at once.
  command -v tmux >/dev/null || { echo "    tmux is not installed"; return 1; }
  local s=pager home="$work/home-pager" ok=1
  ikill
  rm -f "$work/paged"
  istart $s "$home" "PAGER='cat >>$work/paged'" -- "$mpiexec" -n 2 "$examples/ring" "2>$work/err"
  {
    iwait $s "Job started: 2 ranks" 1 1200 &&
    itmux resize-window -t $s -y 15 &&
    itmux send-keys -t $s 'help' Enter &&
    wait_until 100 "the pager's input" file_has "$work/paged" "Kill the job" &&
    itmux send-keys -t $s 'set pagination off' Enter && iwait $s "Pagination is off." &&
    itmux send-keys -t $s 'help' Enter && iwait $s "Kill the job" &&
    itmux send-keys -t $s 'kill' Enter && iwait $s "Killed the job." &&
    itmux send-keys -t $s C-d
  } || { ok=0; istop $s; }
  local exit_status paged_kills
  exit_status="$(iexited $s)"
  out="$(ipane $s)"
  ikill
  [ $ok -eq 1 ] || return 1
  paged_kills="$(grep -c 'Kill the job' "$work/paged")"
  [ "$paged_kills" = 1 ] || { echo "    expected one help text through the pager, got $paged_kills"; return 1; }
  [ "$(grep -c 'Kill the job' <<<"$out")" = 1 ] || { echo "    the first help was on the screen too"; return 1; }
  check_contains "$exit_status" "MPIDBG-EXIT=0" "exit status"
}

case_interactive_job_output_starts_after_the_progress_line() {
  # Issue 24 item 9: on a terminal the job's output goes through a relay that
  # erases 'wait's progress line first, so it starts at column 0 instead of
  # after "... (Ctrl-C interrupts)".
  command -v tmux >/dev/null || { echo "    tmux is not installed"; return 1; }
  local s=relay home="$work/home-relay" ok=1 i
  ikill
  istart $s "$home" "" -- "$mpiexec" -n 2 "$examples/phases" 4 400
  {
    iwait $s "Job started: 2 ranks" 1 1200 &&
    itmux send-keys -t $s 'run' Enter && iwait $s "Continuing" &&
    itmux send-keys -t $s 'wait 30' Enter && iwait $s "phases: checksum" &&
    for i in $(seq 1 100); do
      ipane $s | grep -qE "^(The job has ended|Every rank is blocked)" && break
      sleep 0.1
    done &&
    itmux send-keys -t $s C-d
  } || { ok=0; istop $s; }
  local exit_status
  exit_status="$(iexited $s)"
  out="$(ipane $s)"
  ikill
  [ $ok -eq 1 ] || return 1
  if grep -F "(Ctrl-C interrupts)" <<<"$out" | grep -qF "phases:"; then
    echo "    the job's output ran into the progress line:"
    grep -F "phases:" <<<"$out" | sed 's/^/      /'
    return 1
  fi
  check_contains "$(grep -E '^phases: checksum' <<<"$out")" "after 4 steps" "the job's output at column 0" &&
  check_contains "$exit_status" "MPIDBG-EXIT=0" "exit status"
}
