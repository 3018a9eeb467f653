# Execution control set while the ranks run their MPI calls on the runtime's
# fast path (runtime/CallScope.hpp: one gate, gFastGate, that arming must
# close from the helper thread). Sourced by tests/integration/run.

case_break_set_while_ranks_run_the_fast_path() {
  # 2 ranks on 2 cores: no idle waiting, so the fast path is on. The
  # breakpoint is set a second after 'run', while every MPI_Allreduce goes
  # through the fast path; it must stop the ranks at one call, counted by the
  # fast path since the start. The ranks are armed one after the other: a
  # rank already inside that call when armed cannot stop at its entry, and
  # waits inside it for the stopped one ("in MPI_Allreduce (call N ...)").
  # Either way, every rank is at the same call N.
  run_mpidbg 120 -ex run -ex 'wait 1' -ex 'break MPI_Allreduce' -ex 'wait 20' -ex status -ex 'delete 1' \
    -ex continue -ex 'wait 60' -- "$mpiexec" -n 2 "$examples/phases" 300 10
  check_rc 0 &&
  check_matches "$out" '^\[[0-9-]+\] hit breakpoint 1: MPI_Allreduce\(count=1, comm=MPI_COMM_WORLD\) call #[0-9]{2,}$' \
    "the breakpoint, hit at a call well after the start" &&
  check_one_allreduce_call "$(sed -n '/^(mpidbg) status$/,/^(mpidbg) delete 1$/p' <<<"$out" | grep -E '^\[')" &&
  check_contains "$out" "phases: checksum 90300 after 300 steps (expected 90300): ok" "the job finished after delete"
}

# STATUS (the rank lines of 'status') puts ranks 0 and 1 at one MPI_Allreduce
# call N >= 10: both stopped at breakpoint 1 there, or one stopped there and
# the other inside that call.
check_one_allreduce_call() {
  local status="$1" stopped='stopped at breakpoint 1 at MPI_Allreduce\(count=1, comm=MPI_COMM_WORLD\) call #[0-9]{2,}'
  local shape=no
  if grep -qxE "\[0-1\] $stopped" <<<"$status" && [ "$(wc -l <<<"$status")" = 1 ]; then
    shape=both
  elif [ "$(wc -l <<<"$status")" = 2 ] && grep -qE '^\[0\] ' <<<"$status" && grep -qE '^\[1\] ' <<<"$status" &&
       grep -qxE "\[[01]\] $stopped" <<<"$status" &&
       grep -qxE '\[[01]\] in MPI_Allreduce \(call [0-9]{2,} on MPI_COMM_WORLD\)' <<<"$status"; then
    shape=one
  fi
  local calls
  calls="$(grep -oE '(#|call )[0-9]+' <<<"$status" | tr -dc '0-9\n' | sort -u | wc -l)"
  if [ "$shape" = no ] || [ "$calls" != 1 ]; then
    echo "    expected status to show both ranks at breakpoint 1 at one MPI_Allreduce call, or one there and the other inside that call; got:"
    sed 's/^/      | /' <<<"$status"
    return 1
  fi
}

case_break_set_inside_the_call_says_so() {
  # coll_skip: ranks 0-1 wait in call 1 to MPI_Allreduce, rank 2 in MPI_Recv,
  # for good. A breakpoint on a function a rank is inside cannot stop that
  # call; 'break' says which ranks stop only at their next one.
  run_mpidbg 60 -ex run -ex 'wait 10' -ex 'break MPI_Allreduce' -ex 'break [2] MPI_Recv if source == 0' \
    -ex 'break MPI_Barrier' -ex kill -- "$mpiexec" -n 3 "$examples/hangs/coll_skip"
  check_contains "$out" "Breakpoint 1: MPI_Allreduce on [0-2]
[0-1] already inside MPI_Allreduce(comm=MPI_COMM_WORLD) call #1: the breakpoint stops its next call, not this one" \
    "the note under breakpoint 1" &&
  check_contains "$out" "Breakpoint 2: MPI_Recv if source == 0 on [2]
[2] already inside MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD): the breakpoint stops its next call, not this one" \
    "the note under breakpoint 2" &&
  check_contains "$out" "Breakpoint 3: MPI_Barrier on [0-2]
(mpidbg) kill" "breakpoint 3, with no note: no rank is in MPI_Barrier"
}
