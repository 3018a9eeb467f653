# Integration cases for gdb on any subset of ranks (issue 6): gdb attach with
# progress, -mi, value-range grouping on a real job, and a gdb that is killed
# or hangs mid-session. Sourced by tests/integration/run (run_mpidbg,
# check_contains, start_session, send_command, end_session come from there).

# tracer_of PID : the pid of the process ptrace-attached to PID (its gdb), or "".
tracer_of() {
  local t
  t="$(awk '/^TracerPid:/ {print $2}' "/proc/$1/status" 2>/dev/null)"
  [ -n "$t" ] && [ "$t" != 0 ] && echo "$t"
}
# expect_after CMD EXPECT [SECONDS] : like send_command, with a longer bound
# (default 60 s: attaching gdb to several ranks of a loaded machine is slow).
expect_after() {
  echo "$1" >&7
  local i
  for i in $(seq 1 $((${3:-60} * 10))); do grep -qE -- "$2" "$work/out" && return 0; sleep 0.1; done
  echo "    no output matching '$2' after '$1'"
  return 1
}
# rank_pid RANK : the pid of RANK from the `ranks` table already in $work/out.
rank_pid() { awk -v r="$1" '$1 == r && $3 ~ /^[0-9]+$/ {print $3; exit}' "$work/out"; }

case_gdb_attach_with_progress() {
  # Not a terminal: no progress line, only the outcome per rank.
  run_mpidbg 180 -ex 'gdb attach [0-3]' -ex status -ex 'gdb attach 0-1' -ex 'gdb 3 print 6*7' \
    -ex 'gdb detach all' -ex status -ex kill -- "$mpiexec" -n 4 "$examples/ring"
  check_rc 0 &&
  check_contains "$out" "[0-3] attached" "gdb attach" &&
  check_contains "$out" "[0-3] stopped by gdb" "status while attached" &&
  check_contains "$out" "[0-1] already attached" "second gdb attach" &&
  check_contains "$out" "[3] \$1 = 42" "a command on an attached rank" &&
  check_contains "$out" "[0-3] detached" "gdb detach" &&
  check_contains "$out" "[0-3] frozen" "status after detach" &&
  check_not_contains "$out" "attaching gdb:" "stdout that is not a terminal" || return 1
  # A terminal (script(1) gives mpidbg a pty): the progress line is written
  # and rewritten in place ("\r\e[K attaching gdb: N/4"), then cleared.
  command -v script >/dev/null || { echo "    script(1) is not installed"; return 1; }
  # NO_COLOR: the check reads plain text (colours on a terminal are tested in interactive.sh).
  env MPIDBG_IT_MARKER="$work" NO_COLOR=1 timeout -k 5 180 script -qfec \
    "$mpidbg -ex 'gdb attach all' -ex kill -- $mpiexec -n 4 $examples/ring" /dev/null \
    </dev/null >"$work/tty" 2>&1
  rc=$?
  out="$(tr -d '\r' <"$work/tty")"
  check_rc 0 &&
  check_contains "$out" "attaching gdb: 1/4" "the progress line on a terminal" &&
  check_contains "$out" "attaching gdb: 4/4" "the last progress line on a terminal" &&
  check_contains "$out" "[0-3] attached" "the result on a terminal" &&
  grep -q $'\e\\[Kattaching gdb: 2/4' "$work/tty" || { echo "    no rewritten progress line"; return 1; }
}

case_gdb_mi_on_ranks() {
  run_mpidbg 180 -ex run -ex 'wait 30' -ex 'gdb all frame function main' \
    -ex '-mi all -data-evaluate-expression rank' \
    -ex '-mi [0-1] -data-evaluate-expression 6*7' \
    -ex '-mi 2 -data-evaluate-expression nosuchvar' \
    -ex '-mi 3 -no-such-command' \
    -ex '-mi 0 12-stack-info-depth' \
    -ex '-mi 0' \
    -ex 'gdb 0 print (int)getpid()' \
    -ex kill -- "$mpiexec" -n 4 "$examples/deadlock"
  # A function call in the process: gdb 13 cannot make one on a CPU with AMX
  # registers (this machine's and CI's), and mpidbg says why; elsewhere, the value.
  local gdb_major call_expect call_where
  gdb_major="$(gdb --version | sed -n '1s/.* \([0-9][0-9]*\)\.[0-9.]*$/\1/p')"
  if grep -qw amx_tile /proc/cpuinfo && [ "${gdb_major:-0}" -lt 14 ]; then
    call_where="$err"
    call_expect="^error: \[0\] Couldn't write extended state status.*a gdb 13 limit fixed in gdb 14.*--gdb PATH"
  else
    call_where="$out"
    call_expect='^\[0\] \$1 = [0-9]+$'
  fi
  check_rc 65 &&
  check_matches "$call_where" "$call_expect" "a function call in the process" &&
  check_contains "$out" '[0-3] ^done,value="[0..3]"' "-mi with values merged" &&
  check_contains "$out" '[0-1] ^done,value="42"' "-mi on two ranks" &&
  check_contains "$out" '[2] ^error,msg="No symbol \"nosuchvar\" in current context."' "-mi ^error" &&
  check_contains "$out" '[3] ^error,msg="Undefined MI command: no-such-command"' "unknown MI command" &&
  check_contains "$err" "error: give the MI command without a token ('12-stack-info-depth')" "token refused" &&
  check_contains "$err" "error: usage: -mi RANKS COMMAND: no MI command given after '0'" "no command"
}

case_gdb_value_ranges_on_a_real_job() {
  # deadlock: every rank has `rank` and `local = rank + 1` in main.
  run_mpidbg 180 -ex run -ex 'wait 30' -ex 'gdb all frame function main' \
    -ex 'gdb all print rank' -ex 'gdb all print local*local' -ex 'gdb all print size' \
    -ex 'gdb [1,3] print rank' -ex 'gdb all info frame' -ex kill -- "$mpiexec" -n 4 "$examples/deadlock"
  check_rc 0 &&
  check_contains "$out" '[0-3] $1 = [0..3]' "consecutive values" &&
  check_contains "$out" '[0-3] $2 = {1,4,9,16}' "a set of values" &&
  check_contains "$out" '[0-3] $3 = 4' "identical outputs" &&
  check_contains "$out" '[1,3] $4 = {1,3}' "a subset of ranks" &&
  # info frame differs from rank to rank only in addresses (ASLR) and lines: one group.
  check_contains "$out" 'deadlock.c:{19,21}); saved rip = {0x' "addresses merged as a set" &&
  check_contains "$out" 'source language c.' "multi-line output" || return 1
  [ "$(grep -c 'Stack level' "$work/out")" = 1 ] || { echo "    info frame is not one group"; return 1; }
}

case_gdb_killed_or_hanging_mid_session() {
  start_session --gdb-timeout 3 -- "$mpiexec" -n 3 "$examples/ring"
  expect_after ranks '^2 ' || { end_session; return 1; }
  local pid0 pid1 gdb0 gdb1
  pid0="$(rank_pid 0)"; pid1="$(rank_pid 1)"
  expect_after 'gdb attach all' '^\[0-2\] attached' || { end_session; return 1; }
  gdb0="$(tracer_of "$pid0")"; gdb1="$(tracer_of "$pid1")"
  if [ -z "$gdb0" ] || [ -z "$gdb1" ]; then
    echo "    no gdb traces rank 0 ($pid0) or rank 1 ($pid1)"; end_session; return 1
  fi
  # gdb of rank 1 killed: rank 1 reports it, ranks 0 and 2 answer.
  kill -9 "$gdb1"
  expect_after 'gdb all print 6*7' '^\[1\] gdb killed by signal 9' || { end_session; return 1; }
  # The next use attaches a fresh gdb to rank 1.
  expect_after '-mi all -data-evaluate-expression 1+1' '^\[0-2\] \^done,value="2"' || { end_session; return 1; }
  # gdb of rank 0 hangs (stopped): rank 0 times out, the others answer.
  kill -STOP "$gdb0"
  expect_after 'gdb all print 100+1' "^\[0\] gdb did not answer .* within 3000 ms" || { kill -CONT "$gdb0"; end_session; return 1; }
  kill -CONT "$gdb0"
  # The session goes on: the next command gets its own answer, and only it
  # (the late answer "$2 = 101" is skipped with its console text).
  expect_after 'gdb 0 print 200+2' '\$[0-9]+ = 202' || { end_session; return 1; }
  expect_after 'gdb detach all' '^\[0-2\] detached' || { end_session; return 1; }
  expect_after run 'Continuing'
  expect_after 'wait 60' 'The job has ended'
  end_session
  check_contains "$out" "[0,2] \$1 = 42" "the ranks whose gdb lives" &&
  check_contains "$out" "errors:" "errors section" &&
  check_contains "$out" "[1-2] \$[1..2] = 101" "the ranks whose gdb answers in time (history numbers merged)" &&
  check_contains "$out" "[0] gdb did not answer '-interpreter-exec console \"print 100+1\"' within 3000 ms" "timeout" &&
  check_not_contains "$out" "\$2 = 101" "the late answer of rank 0" &&
  check_contains "$out" "ring: token 9 after 3 laps (expected 9): ok" "the job ran to its end"
}

case_gdb_look_releases_the_rank() {
  # Issue 24 item 7: a rank gdb attached only to answer a look runs again
  # afterwards (its gdb stays, detached: value history goes on); --keep and
  # commands that need the hold keep it; break and freeze skip held ranks
  # without failing the batch.
  run_mpidbg 180 -ex run -ex 'wait 30' -ex 'gdb 2 bt' -ex 'status 2' -ex 'gdb 2 print rank' \
    -ex 'gdb 2 print rank*10' -ex 'gdb --keep 1 print rank' -ex 'gdb 3 frame' -ex 'status [1,3]' \
    -ex 'break MPI_Send' -ex 'freeze' -ex 'gdb detach 2' -ex 'gdb detach all' -ex 'status [1,3]' \
    -ex kill -- "$mpiexec" -n 4 "$examples/deadlock"
  check_rc 0 &&
  check_contains "$(section 'gdb 2 bt')" "deadlock.c:19" "gdb 2 bt" &&
  check_contains "$(section 'status 2')" "[2] blocked in MPI_Recv" "status after a look" &&
  check_contains "$(section 'gdb 2 print rank')" '[2] $1 = 2' "print after the gdb was released" &&
  check_contains "$(section 'gdb 2 print rank*10')" '[2] $2 = 20' "value history across the release" &&
  check_contains "$(section 'gdb --keep 1 print rank')" '[1] $1 = 1' "print with --keep" &&
  check_contains "$(section 'status [1,3]')" \
    "[1,3] stopped by gdb in MPI_Allreduce (call 1 on MPI_COMM_WORLD) at deadlock.c:21 in main" \
    "status of ranks kept held (their MPI call read through the message-queue DLL)" &&
  check_contains "$(section 'break MPI_Send')" "Breakpoint 1: MPI_Send on [0,2]" "break on the ranks not held" &&
  check_contains "$(section 'break MPI_Send')" "Skipped ranks [1,3]: held by gdb (release with: gdb detach [1,3])" "break skips the held ranks" &&
  check_contains "$(section 'freeze')" "Skipped ranks [1,3]: held by gdb (release with: gdb detach [1,3])" "freeze skips the held ranks" &&
  check_contains "$(section 'gdb detach 2')" "[2] detached" "detach of a released gdb" &&
  check_contains "$(section 'gdb detach all')" "[1,3] detached" "detach of the held ranks" &&
  check_not_contains "$(section 'gdb detach all')" "[2]" "a gdb already ended"
}

case_gdb_execution_commands_return_with_their_stop() {
  # Issue 24 item 6: continue and next return when the rank stops again, the
  # stop under the command that caused it; a rank that does not stop within
  # --gdb-timeout is interrupted and says so; next from the application's
  # frame (gdb landed above the C library's) steps in that frame.
  run_mpidbg 180 --gdb-timeout 5 -ex run -ex 'wait 1' -ex 'gdb 0 break spin.c:31' -ex 'gdb 0 continue' \
    -ex 'gdb 0 next' -ex 'gdb 1 continue' -ex 'gdb 1 next' -ex 'gdb detach all' -ex kill -- \
    "$mpiexec" -n 2 "$examples/spin" 60
  check_rc 0 &&
  check_contains "$(section 'gdb 0 continue')" 'hit Breakpoint 1, main (' "continue returns with its stop" &&
  check_contains "$(section 'gdb 0 continue')" '31	    iterations += 100000;' "the stop's source line" &&
  check_contains "$(section 'gdb 0 next')" '[0] 32	    if (now_s() - start >= seconds) break;' "next returns with the next line" &&
  check_contains "$(section 'gdb 1 continue')" 'received signal SIGINT' "a rank that runs on is interrupted" &&
  check_contains "$(section 'gdb 1 continue')" '(still running after 5000 ms: mpidbg interrupted it)' "the interrupt is said" &&
  check_matches "$(section 'gdb 1 next')" '(^\[1\] |^  )(29|3[0-4])	' "next after the interrupt steps in spin.c" &&
  check_contains "$(section 'gdb detach all')" '[0-1] detached' "both ranks were held"
}

case_gdb_lands_in_user_code() {
  # Issue 24 item 2: without 'frame function main', gdb is in main (deadlock.c)
  # at once; bt folds the runtime's frames into one line, bt --raw shows them.
  # Item 5: bt -1 of three ranks at the same line differs only in addresses
  # (ASLR) and groups into one line.
  run_mpidbg 180 -ex run -ex 'wait 30' -ex 'gdb all print rank' -ex 'gdb 1 info locals' \
    -ex 'gdb 2 list 19,19' -ex 'gdb 2 info symbol $pc' -ex 'gdb 2 bt' -ex 'gdb 2 bt --raw' -ex 'gdb [0,1,3] bt -1' \
    -ex kill -- "$mpiexec" -n 4 "$examples/deadlock"
  check_rc 0 &&
  check_contains "$out" '[0-3] $1 = [0..3]' "print rank at once" &&
  check_contains "$out" '  local = 2' "info locals of main" &&
  check_contains "$out" 'MPI_Recv(&token, 1, MPI_INT, 0, 99' "list in deadlock.c" &&
  grep -qE '^\[2\] main \+ [0-9]+ in section \.text of .*/deadlock$' "$work/out" ||
    { echo "    the selected frame of rank 2 is not in main"; return 1; }
  # The folded backtrace: one runtime line, then main; no runtime function names.
  local folded raw
  folded="$(sed -n '/^(mpidbg) gdb 2 bt$/,/^(mpidbg)/p' "$work/out")"
  raw="$(sed -n '/^(mpidbg) gdb 2 bt --raw$/,/^(mpidbg)/p' "$work/out")"
  grep -qE '^  #[0-9]+  \[mpidbg runtime: [0-9]+ frames?\] \(\)$' <<<"$folded" ||
    { echo "    no folded runtime line in: $folded"; return 1; }
  check_not_contains "$folded" "mpidbg::rt::" "the folded bt" &&
  check_contains "$folded" "deadlock.c:19" "the folded bt" &&
  check_contains "$raw" "mpidbg::rt::idle::wait" "bt --raw" &&
  check_not_contains "$raw" "[mpidbg runtime:" "bt --raw" &&
  grep -qE '^\[0-1,3\] #[0-9]+  .* in main \(argc=1, argv=.*\) at .*deadlock\.c:21$' "$work/out" ||
    { echo "    bt -1 of ranks 0,1,3 is not one group"; grep -F 'deadlock.c:21' "$work/out"; return 1; }
}
