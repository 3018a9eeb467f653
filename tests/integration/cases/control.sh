# Execution control set while the ranks run their MPI calls on the runtime's
# fast path (runtime/CallScope.hpp: one gate, gFastGate, that arming must
# close from the helper thread). Sourced by tests/integration/run.

case_break_set_while_ranks_run_the_fast_path() {
  # 2 ranks on 2 cores: no idle waiting, so the fast path is on. The
  # breakpoint is set a second after 'run', while every MPI_Allreduce goes
  # through the fast path; it must stop the ranks at one call, counted by the
  # fast path since the start. The ranks are armed one after the other: a
  # rank already inside that call when armed cannot stop at its entry, and
  # waits inside it for the stopped one ("[1] blocked in MPI_Allreduce (call
  # 98 on MPI_COMM_WORLD)"; 'break' said "[1] already inside ..."). Either
  # way, every rank is at the same call N. The first 'wait' returns at the
  # first stop event, when the other rank may still be on its way to that
  # call (in the step's MPI_Recv, its message already sent: CI's sanitizer
  # run saw it); the second returns at its stop event, or at once when every
  # rank is already stopped or blocked.
  run_mpidbg 120 -ex run -ex 'wait 1' -ex 'break MPI_Allreduce' -ex 'wait 20' -ex 'wait 20' -ex status -ex 'delete 1' \
    -ex continue -ex 'wait 60' -- "$mpiexec" -n 2 "$examples/phases" 300 10
  check_rc 0 &&
  check_matches "$out" '^\[[0-9-]+\] hit breakpoint 1: MPI_Allreduce\(count=1, comm=MPI_COMM_WORLD\) call #[0-9]{2,}$' \
    "the breakpoint, hit at a call well after the start" &&
  check_one_allreduce_call "$(sed -n '/^(mpidbg) status$/,/^(mpidbg) delete 1$/p' <<<"$out" | grep -E '^\[')" &&
  check_contains "$out" "phases: checksum 90300 after 300 steps (expected 90300): ok" "the job finished after delete"
}

# STATUS (the rank lines of 'status') puts ranks 0 and 1 at one MPI_Allreduce
# call N >= 10: both stopped at breakpoint 1 there, or one stopped there and
# the other inside that call ("in MPI_Allreduce (call N ...)", or "blocked in"
# once it has waited --blocked-after), followed by the user's line the call
# was made from when the rank's stack has been read ("at phases.c:52 in main").
check_one_allreduce_call() {
  local status="$1" stopped='stopped at breakpoint 1 at MPI_Allreduce\(count=1, comm=MPI_COMM_WORLD\) call #[0-9]{2,}'
  local shape=no
  if grep -qxE "\[0-1\] $stopped" <<<"$status" && [ "$(wc -l <<<"$status")" = 1 ]; then
    shape=both
  elif [ "$(wc -l <<<"$status")" = 2 ] && grep -qE '^\[0\] ' <<<"$status" && grep -qE '^\[1\] ' <<<"$status" &&
       grep -qxE "\[[01]\] $stopped" <<<"$status" &&
       grep -qxE '\[[01]\] (blocked )?in MPI_Allreduce \(call [0-9]{2,} on MPI_COMM_WORLD\)( at phases\.c:[0-9]+ in main)?' <<<"$status"; then
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

case_break_on_nonblocking_calls_and_constructors() {
  # waitall: rank 0 posts MPI_Irecv from rank 3 and MPI_Ibarrier, ranks 1-2
  # only MPI_Ibarrier, rank 3 first waits in MPI_Recv. Breakpoints on the
  # nonblocking calls, one with a condition on the receive's source. Each
  # 'wait' returns at an event or once every rank is stopped or blocked: one
  # more than the events there can be, and the job has settled.
  run_mpidbg 120 -ex 'break MPI_Irecv if source == 3' -ex 'break MPI_Ibarrier' -ex 'break MPI_Irecv if source == 1' \
    -ex run -ex 'wait 20' -ex 'wait 20' -ex 'wait 20' -ex 'wait 20' -ex status -ex 'continue 0' -ex 'wait 20' -ex 'info break' \
    -ex kill -- "$mpiexec" -n 4 "$examples/hangs/waitall"
  check_rc 0 &&
  check_contains "$out" "(mpidbg) status
[0] stopped at breakpoint 1 at MPI_Irecv(source=3, tag=1, count=1, comm=MPI_COMM_WORLD)
[1-2] stopped at breakpoint 2 at MPI_Ibarrier(comm=MPI_COMM_WORLD) call #1
[3] blocked in MPI_Recv(source=0, tag=2, comm=MPI_COMM_WORLD)" "status at the nonblocking breakpoints" &&
  check_contains "$out" "[0] hit breakpoint 2: MPI_Ibarrier(comm=MPI_COMM_WORLD) call #1" "rank 0 at its MPI_Ibarrier" &&
  check_contains "$out" "3    yes      [0-3]          MPI_Irecv if source == 1
     [0-3] hit 0 times" "info break (the other source never matched)" || return 1
  # cart_rows: every rank makes the grid's rows with MPI_Cart_sub; a
  # constructor's comm is its parent, named in the condition.
  run_mpidbg 120 -ex 'break MPI_Cart_sub if comm == grid' -ex run -ex 'wait 20' -ex 'wait 20' -ex 'wait 20' \
    -ex 'wait 20' -ex status -ex kill -- "$mpiexec" -n 4 "$examples/hangs/cart_rows"
  check_rc 0 &&
  check_contains "$out" "(mpidbg) status
[0-3] stopped at breakpoint 1 at MPI_Cart_sub(comm=grid)" "status at the constructor's breakpoint"
}
