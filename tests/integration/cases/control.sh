# Execution control set while the ranks run their MPI calls on the runtime's
# fast path (runtime/CallScope.hpp: one gate, gFastGate, that arming must
# close from the helper thread). Sourced by tests/integration/run.

case_break_set_while_ranks_run_the_fast_path() {
  # 2 ranks on 2 cores: no idle waiting, so the fast path is on. The
  # breakpoint is set a second after 'run', while every MPI_Allreduce goes
  # through the fast path; it must stop both ranks at the same call, counted
  # by the fast path since the start.
  run_mpidbg 120 -ex run -ex 'wait 1' -ex 'break MPI_Allreduce' -ex 'wait 20' -ex status -ex 'delete 1' \
    -ex continue -ex 'wait 60' -- "$mpiexec" -n 2 "$examples/phases" 300 10
  check_rc 0 &&
  check_matches "$out" '^\[0-1\] hit breakpoint 1: MPI_Allreduce\(count=1, comm=MPI_COMM_WORLD\) call #[0-9]{2,}$' \
    "the breakpoint, hit on both ranks at one call well after the start" &&
  check_matches "$out" '^\[0-1\] stopped at breakpoint 1 at MPI_Allreduce\(count=1, comm=MPI_COMM_WORLD\) call #[0-9]{2,}$' \
    "status" &&
  check_contains "$out" "phases: checksum 90300 after 300 steps (expected 90300): ok" "the job finished after delete"
}
