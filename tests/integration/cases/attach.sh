# Attaching to a job mpidbg did not launch (issue 9): the job runs with the
# runtime preloaded and MPIDBG_LISTEN=1; rank 0 writes an attach file and
# `mpidbg attach FILE` connects. Sourced by tests/integration/run.

listen_pid=""
# start_listening_job FILE|- MPIEXEC_ARGS... : starts the job in the
# background with the runtime preloaded and MPIDBG_LISTEN=1, writing its
# attach file to FILE (- for the default place), and waits until rank 0 has
# written it. Sets listen_pid (mpiexec) and attach_file (from the job's stderr).
start_listening_job() {
  local file="$1"; shift
  local named=()
  [ "$file" != "-" ] && named=(MPIDBG_ATTACH_FILE="$file")
  env MPIDBG_IT_MARKER="$work" LD_PRELOAD="$build/lib/libmpidbg-rt.so" MPIDBG_LISTEN=1 "${named[@]}" \
    "$mpiexec" "$@" </dev/null >"$work/job.out" 2>"$work/job.err" &
  listen_pid=$!
  local i
  attach_file=""
  for i in $(seq 1 300); do
    attach_file="$(sed -n 's/^mpidbg-rt: .* listening for a debugger: mpidbg attach //p' "$work/job.err")"
    [ -n "$attach_file" ] && [ -s "$attach_file" ] && return 0
    sleep 0.1
  done
  echo "    the job wrote no attach file in 30 s; its stderr:"; sed 's/^/      | /' "$work/job.err"
  return 1
}

# stop_listening_job: ends the job if it still runs and reaps it.
stop_listening_job() {
  if [ -n "$listen_pid" ]; then
    kill "$listen_pid" 2>/dev/null
    wait "$listen_pid" 2>/dev/null
  fi
  listen_pid=""
  local i
  for i in $(seq 1 50); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
}

case_attach_hung_job_verdict_stacks_detach_and_again() {
  start_listening_job - -n 4 "$examples/hangs/recv_cycle" || { stop_listening_job; return 1; }
  local file="$attach_file"
  # The default place: a private directory per user, a private file.
  check_contains "$file" "/mpidbg-$(id -u)/job-" "the attach file's path" &&
  check_contains "$(stat -c %a "$file")" "600" "the attach file's mode" &&
  check_contains "$(stat -c %a "$(dirname "$file")")" "700" "its directory's mode" &&
  check_contains "$(cat "$work/job.err")" "4 of 4 ranks listening for a debugger" "the job's stderr" || {
    stop_listening_job; return 1; }

  run_mpidbg 120 attach "$file" -ex 'wait 30' -ex hang -ex where -ex ranks
  check_rc 0 &&
  check_contains "$out" "Attached to [0-3] of a job of 4 ranks ($file): running" "the attach" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_contains "$out" "main > MPI_Recv  [0-1]" "where" &&
  check_contains "$out" "Detached from the job; it runs on" "the end" || { stop_listening_job; return 1; }
  if ! kill -0 "$listen_pid" 2>/dev/null; then
    echo "    the job ended when mpidbg detached"; stop_listening_job; return 1
  fi

  # Attach again: the ranks listen again after the detach; kill ends the job.
  run_mpidbg 120 attach "$file" -ex 'wait 30' -ex hang -ex kill
  check_rc 0 &&
  check_contains "$out" "Attached to [0-3] of a job of 4 ranks" "the second attach" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang, attached again" &&
  check_contains "$out" "Killed the job." "kill" || { stop_listening_job; return 1; }
  local i
  for i in $(seq 1 100); do kill -0 "$listen_pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$listen_pid" 2>/dev/null; then
    echo "    mpiexec still runs 10 s after kill"; stop_listening_job; return 1
  fi
  wait "$listen_pid" 2>/dev/null
  listen_pid=""
  rm -f "$file"
}

case_attach_freeze_then_leave_job_resumes_and_finishes() {
  # The job computes for 8 s; the debugger freezes every rank wherever it is
  # and leaves without continuing them: the ranks must resume by themselves.
  # 'freeze --now' returns once each rank took the request; each rank's stop
  # event follows, and 'wait' returns at the first one (CI sim 38: ranks
  # [0-1] stopped, rank 2 still on its way): one 'wait' per rank, and once
  # every rank is frozen 'wait' returns at once.
  start_listening_job "$work/spin.attach" -n 3 "$examples/spin" 8 || { stop_listening_job; return 1; }
  run_mpidbg 120 attach --json "$work/spin.attach" -ex 'freeze --now all' -ex 'wait 10' -ex 'wait 10' -ex 'wait 10' \
    -ex status
  check_rc 0 &&
  json_check '
check(events[0]["event"] == "attached" and events[0]["rank_list"] == [0, 1, 2] and events[0]["size"] == 3,
      "first the attached event: %s" % events[0])
check(all(r["runtime_state"] == "frozen" for r in result("status")["per_rank"]), "status: every rank frozen")
check(lines[-1].get("event") == "detached", "last the detached event: %s" % lines[-1])
' || { stop_listening_job; return 1; }
  local i
  for i in $(seq 1 300); do kill -0 "$listen_pid" 2>/dev/null || break; sleep 0.1; done
  wait "$listen_pid"; local job_rc=$?
  listen_pid=""
  [ "$job_rc" -eq 0 ] || { echo "    the job exited with $job_rc after the detach"; return 1; }
  check_contains "$(cat "$work/job.out")" "spin: computed" "the job's output after the detach" &&
  [ ! -e "$work/spin.attach" ] || { echo "    the attach file outlived MPI_Finalize"; return 1; }
}

case_attach_refusals() {
  start_listening_job "$work/cycle.attach" -n 2 "$examples/hangs/recv_cycle" || { stop_listening_job; return 1; }
  local ok=1
  # A second debugger while one is attached.
  start_session attach "$work/cycle.attach"
  send_command status 'frozen|running|blocked|MPI_Recv' || ok=0
  run_mpidbg 60 attach "$work/cycle.attach"
  check_rc 69 && check_contains "$err" "cannot attach: no rank could be attached" "a second attach" &&
  check_contains "$err" "a debugger is attached already" "the ranks' answer" || ok=0
  echo quit >&7; exec 7>&-; wait "$session_pid"
  # A copy others can read: refused (the key may be known).
  cp "$work/cycle.attach" "$work/open.attach"; chmod 644 "$work/open.attach"
  run_mpidbg 30 attach "$work/open.attach"
  check_rc 69 && check_contains "$err" "can be read by others" "an open attach file" || ok=0
  # Missing and malformed files, usage errors.
  run_mpidbg 30 attach "$work/none.attach"
  check_rc 69 && check_contains "$err" "cannot read attach file $work/none.attach" "a missing file" || ok=0
  printf 'mpidbg-attach 1\nsize 2\nkey 00\nend\n' >"$work/bad.attach"; chmod 600 "$work/bad.attach"
  run_mpidbg 30 attach "$work/bad.attach"
  check_rc 69 && check_contains "$err" "line 3: the key is not 64 hex digits" "a bad key" || ok=0
  run_mpidbg 30 attach "$work/cycle.attach" -- "$mpiexec" -n 2 "$examples/ring"
  check_rc 64 && check_contains "$err" "takes no launcher command" "attach with a launcher" || ok=0
  run_mpidbg 30 attach --record "$work/rec" "$work/cycle.attach"
  check_rc 64 && check_contains "$err" "--record applies to a job mpidbg launches" "attach --record" || ok=0
  # The job is still attachable after all that.
  run_mpidbg 60 attach "$work/cycle.attach" -ex 'wait 20' -ex hang -ex kill
  check_rc 0 && check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang after the refusals" || ok=0
  stop_listening_job
  [ $ok -eq 1 ]
}

# start_plain_job MPIEXEC_ARGS... : a job without mpidbg's runtime, in the
# background; waits until N rank processes of PROGRAM (the last argument)
# exist and have had 2 s to reach their MPI calls. Sets listen_pid.
start_plain_job() {
  local n="$2" program="${*: -1}"
  env MPIDBG_IT_MARKER="$work" "$mpiexec" "$@" </dev/null >"$work/job.out" 2>"$work/job.err" &
  listen_pid=$!
  local i
  for i in $(seq 1 300); do
    [ "$(pgrep -c -f "^$program")" -ge "$n" ] && { sleep 2; return 0; }
    sleep 0.1
  done
  echo "    the job's $n ranks did not start in 30 s"
  return 1
}

case_attach_by_pid_without_runtime_stacks_verdict_gdb() {
  start_plain_job -n 4 "$examples/hangs/coll_skip" || { stop_listening_job; return 1; }
  run_mpidbg 180 attach --pid "$listen_pid" -ex status -ex where -ex hang -ex 'gdb 3 bt' -ex 'break MPI_Send' -ex kill
  check_rc 65 &&  # break failed: the exit code says a command failed
  check_contains "$out" "Attached to [0-3] of a job of 4 ranks (pid $listen_pid): running, without the runtime" "the attach" &&
  check_contains "$out" "[0-3] alive, without the runtime" "status" &&
  check_contains "$out" "main > MPI_Allreduce  [0-2]" "where" &&
  check_contains "$out" "main > MPI_Recv  [3]" "where" &&
  check_contains "$out" "read through gdb [0-3]: no mpidbg runtime" "where's source" &&
  check_contains "$out" "from stack frames only (no call numbers): ranks [0-2] in MPI_Allreduce, but rank 3 in MPI_Recv" "hang" &&
  check_contains "$out" "Look first at rank 3" "hang" &&
  check_contains "$out" " in main (" "gdb 3 bt" &&
  check_contains "$err" "has no mpidbg runtime (attached by pid): breakpoints, freeze, step and objects need one" "break" &&
  check_contains "$out" "Killed the job." "kill" || { stop_listening_job; return 1; }
  local i
  for i in $(seq 1 100); do kill -0 "$listen_pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$listen_pid" 2>/dev/null; then echo "    mpiexec still runs 10 s after kill"; stop_listening_job; return 1; fi
  wait "$listen_pid" 2>/dev/null
  listen_pid=""
}

case_attach_by_pid_leaving_detaches_and_errors() {
  start_plain_job -n 2 "$examples/hangs/recv_cycle" || { stop_listening_job; return 1; }
  local ok=1
  run_mpidbg 120 attach --pid "$listen_pid" -ex 'wait 2' -ex where
  check_rc 0 && check_contains "$out" "main > MPI_Recv  [0-1]" "where" &&
  check_contains "$out" " s. Ranks [0-1] run without the runtime, so wait sees them end but not block or stop; 'where' or 'hang' reads their stacks." "wait" &&
  check_contains "$out" "Detached from the job; it runs on (attach again with: mpidbg attach --pid $listen_pid)" "the end" || ok=0
  kill -0 "$listen_pid" 2>/dev/null || { echo "    the job ended when mpidbg left"; ok=0; }
  # The same in JSON, validated against the schema.
  run_mpidbg 60 attach --json --pid "$listen_pid" -ex 'wait 1'
  check_rc 0 && json_check '
w = result("wait 1")
check(w["outcome"] == "timed_out" and w["without_runtime"]["rank_list"] == [0, 1], "wait names the ranks it cannot see block")
' || ok=0
  # Not a launcher of MPI ranks; two ways at once; nothing at all.
  sleep 30 & local sleeper=$!
  run_mpidbg 30 attach --pid "$sleeper"
  check_rc 69 && check_contains "$err" "cannot attach: no process under $sleeper names an MPI rank in its environment" "a sleep's pid" || ok=0
  kill "$sleeper"; wait "$sleeper" 2>/dev/null
  run_mpidbg 30 attach --pid "$listen_pid" "$work/some.attach"
  check_rc 64 && check_contains "$err" "usage: mpidbg attach [OPTIONS] FILE | --pid LAUNCHER_PID | --slurm JOBID[.STEP]" "two ways" || ok=0
  run_mpidbg 30 attach
  check_rc 64 && check_contains "$err" "usage: mpidbg attach" "no way" || ok=0
  # The word comes first; after an option it is explained, not "not expected".
  run_mpidbg 30 --json attach "$work/some.attach"
  check_rc 64 && check_contains "$err" "error: 'attach' must come right after mpidbg, before any option" "attach after an option" || ok=0
  stop_listening_job
  [ $ok -eq 1 ]
}

case_attach_frontend_killed_while_frozen_job_finishes() {
  # The attached debugger freezes every rank and dies (SIGKILL): the ranks
  # notice the lost front end, resume and finish; the job stays attachable
  # meanwhile (nothing is left half-attached).
  start_listening_job "$work/spin.attach" -n 3 "$examples/spin" 6 || { stop_listening_job; return 1; }
  start_session attach "$work/spin.attach"
  send_command 'freeze --now all' '[0-2] frozen|frozen' || { kill -9 "$session_pid"; stop_listening_job; return 1; }
  send_command status 'frozen' || { kill -9 "$session_pid"; stop_listening_job; return 1; }
  kill -9 "$session_pid"
  wait "$session_pid" 2>/dev/null
  exec 7>&-
  local i
  for i in $(seq 1 300); do kill -0 "$listen_pid" 2>/dev/null || break; sleep 0.1; done
  wait "$listen_pid"; local job_rc=$?
  listen_pid=""
  out="$(cat "$work/out")"; err="$(cat "$work/err")"
  [ "$job_rc" -eq 0 ] || { echo "    the job exited with $job_rc after the debugger died"; return 1; }
  check_contains "$(cat "$work/job.out")" "spin: computed" "the job's output after the debugger died"
}
