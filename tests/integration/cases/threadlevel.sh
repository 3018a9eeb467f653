# MPI thread-level compliance checked while the program runs (issue 12;
# docs/commands.md, "Thread-level checks"): the OpenMP programs of
# examples/threadlevel, two threads per rank.

tl="$examples/threadlevel"

case_threadlevel_funneled_violation_reported() {
  run_mpidbg 120 -ex run -ex 'wait 30' -ex 'wait 30' -- \
    "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$tl/funneled_violation"
  check_rc 0 &&
  check_contains "$out" "MPI_THREAD_FUNNELED violated: thread " "the violation" &&
  check_contains "$out" "called MPI_Allreduce(comm=MPI_COMM_WORLD), but MPI was initialized by thread " "the violation" &&
  check_contains "$out" "; needs MPI_THREAD_SERIALIZED" "the level it needs" &&
  check_contains "$out" "funneled_violation: sum 2" "the job's result" || return 1
  # Both threads' stacks under the report: the offending OpenMP thread at its
  # MPI call, the MPI_Init thread (main) where it was.
  grep -A2 "MPI_THREAD_FUNNELED violated" <<<"$out" >"$work/stacks"
  check_contains "$(cat "$work/stacks")" "(funneled_violat): start_thread > " "the offending thread's stack" &&
  check_contains "$(cat "$work/stacks")" "main._omp_fn.0 > MPI_Allreduce" "the offending thread's stack" &&
  check_contains "$(cat "$work/stacks")" "(funneled_violat): main > " "the MPI_Init thread's stack"
}

case_threadlevel_call_before_mpi_init_reported() {
  run_mpidbg 60 -ex run -- "$mpiexec" -n 2 "$tl/before_init"
  # MPICH aborts the process in the call; the runtime has said first who made it.
  check_rc 69 &&
  check_contains "$err" "mpidbg-rt: MPI lifecycle violated: thread " "the report" &&
  check_contains "$err" "(before_init) called MPI_Barrier before MPI_Init" "the report"
}

case_threadlevel_serialized_violation_reported() {
  run_mpidbg 120 -ex run -ex 'wait 30' -ex 'wait 30' -- \
    "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$tl/serialized_violation"
  check_contains "$out" "[1] MPI_THREAD_SERIALIZED violated: thread " "the violation" &&
  check_contains "$out" " entered MPI_Allreduce(comm=" "the violation" &&
  check_contains "$out" " was in MPI_Allreduce(comm=" "the other thread's call" &&
  check_contains "$out" "; needs MPI_THREAD_MULTIPLE" "the level it needs" &&
  check_not_contains "$out" "MPI_THREAD_FUNNELED" "the provided level" || return 1
  # Both threads' stacks, each at its MPI_Allreduce.
  local stacks
  stacks="$(grep -A2 "MPI_THREAD_SERIALIZED violated" <<<"$out" | grep -c "^    thread [0-9]* (serialized_viol): .*main._omp_fn.0 > MPI_Allreduce")"
  if [ "$stacks" -ne 2 ]; then echo "    expected 2 stack lines ending in MPI_Allreduce, got $stacks"; return 1; fi
}

case_threadlevel_multiple_same_comm_reported() {
  run_mpidbg 120 -ex run -ex 'wait 30' -ex 'wait 30' -- \
    "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$tl/multiple_same_comm"
  check_contains "$out" "[1] MPI_THREAD_MULTIPLE violated: thread " "the violation" &&
  check_contains "$out" " entered MPI_Allreduce(comm=" "the violation" &&
  check_contains "$out" " was in MPI_Allreduce(comm=" "the other thread's call" &&
  check_contains "$out" "; needs MPI_THREAD_MULTIPLE and distinct communicators" "the level it needs"
}

case_threadlevel_compliant_reports_nothing() {
  run_mpidbg 120 -ex 'info threadlevel' -ex run -ex 'wait 30' -ex 'wait 30' -- \
    "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$tl/compliant"
  check_rc 0 &&
  check_contains "$out" "[0-1] requested MPI_THREAD_FUNNELED, provided MPI_THREAD_FUNNELED, required so far MPI_THREAD_SINGLE (0 violations)" "info threadlevel" &&
  check_contains "$out" "compliant: " "the job's result" &&
  check_not_contains "$out" "violated" "stdout" &&
  check_not_contains "$err" "violated" "stderr"
}

case_threadlevel_break_violation_stops_the_rank() {
  # Both ranks violate, one after the other or together: the first stop is
  # looked at, then the breakpoint goes and every rank runs to the end.
  run_mpidbg 120 -ex 'break violation' -ex run -ex 'wait 30' -ex status -ex 'info threadlevel' -ex 'info break' \
    -ex 'delete 1' -ex c -ex 'wait 30' -ex 'wait 30' -- "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$tl/funneled_violation"
  check_rc 0 &&
  check_contains "$out" "Breakpoint 1: thread-level violation on [0-1]" "break" &&
  check_contains "$out" "hit breakpoint 1: thread-level violation: MPI_THREAD_FUNNELED violated: thread " "event" &&
  check_contains "$out" "stopped at thread-level violation (breakpoint 1): MPI_THREAD_FUNNELED violated: thread " "status" &&
  check_contains "$out" "requested MPI_THREAD_FUNNELED, provided MPI_THREAD_FUNNELED, required so far MPI_THREAD_SERIALIZED (1 violation)" "info threadlevel" &&
  check_contains "$out" "funneled_violation: sum 2" "the job's result after continue"
}

case_threadlevel_violation_json_event() {
  # Validated against docs/json-schema.json (json_check, cases/json.sh).
  run_mpidbg 120 --json -ex 'break violation' -ex run -ex 'wait 30' -ex 'info threadlevel 0' -ex 'info break' \
    -ex 'delete 1' -ex c -ex 'wait 30' -ex 'wait 30' -- "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$tl/funneled_violation"
  check_rc 0 &&
  json_check '
b = result("break violation")["breakpoint"]
check(b["kind"] == "violation" and b["description"] == "thread-level violation", "break violation: %s" % b)
v = [e for e in events if e["event"] == "violation"]
check(v and "MPI_THREAD_FUNNELED violated: thread " in v[0]["text"] and v[0]["rank_list"], "violation event %s" % v)
hits = [e for e in events if e["event"] == "breakpoint" and e["breakpoint"] == 1]
check(hits and "thread-level violation: MPI_THREAD_FUNNELED violated" in hits[0]["text"], "breakpoint event %s" % hits)
levels = result("info threadlevel 0")["levels"]
check(levels[0]["requested"] == "MPI_THREAD_FUNNELED" and levels[0]["provided"] == "MPI_THREAD_FUNNELED", "levels %s" % levels)
'
}
