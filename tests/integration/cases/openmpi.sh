# mpidbg on Open MPI jobs (issue 9): `mpidbg -- mpirun ...` preloads the
# runtime built against Open MPI's mpi.h (libmpidbg-rt-ompi.so) and passes
# the session's variables with -x. Programs from examples/openmpi (built
# with Open MPI when its development files are installed). Without Open MPI
# every case prints SKIP and passes. Sourced by tests/integration/run.

ompi_run=(mpirun.openmpi --oversubscribe)
ompi_examples="$examples/openmpi"

# openmpi_ready: mpirun.openmpi, the examples and the runtime are there.
openmpi_ready() {
  if ! command -v mpirun.openmpi >/dev/null || [ ! -x "$ompi_examples/ring" ] ||
     [ ! -e "$build/lib/libmpidbg-rt-ompi.so" ]; then
    echo "    SKIP: Open MPI is not installed (scripts/install-deps installs libopenmpi-dev openmpi-bin)"
    return 1
  fi
  # Open MPI refuses to run as root without these.
  if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
}

case_openmpi_ring_runs_under_mpirun() {
  openmpi_ready || return 0
  run_mpidbg 120 -ex status -ex run -ex 'wait 60' -ex status -- "${ompi_run[@]}" -n 3 "$ompi_examples/ring"
  check_rc 0 &&
  check_contains "$out" "Job started: 3 ranks, frozen at the end of MPI_Init" "the launch" &&
  check_contains "$out" "[0-2] frozen at the end of MPI_Init" "status" &&
  check_contains "$out" "ring: token 9 after 3 laps (expected 9): ok" "the job's result" &&
  check_contains "$out" "[0-2] exited with code 0" "status at the end"
}

case_openmpi_deadlock_verdict_stacks_and_gdb() {
  openmpi_ready || return 0
  run_mpidbg 150 -ex run -ex 'wait 60' -ex hang -ex where -ex 'gdb 1 bt' -ex kill -- \
    "${ompi_run[@]}" -n 4 "$ompi_examples/recv_cycle"
  check_rc 0 &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_contains "$out" "[2-3] in MPI_Finalize (a bystander)" "hang" &&
  check_contains "$out" "main > MPI_Recv  [0-1]" "where" &&
  check_contains "$out" " in main (argc=1, argv=" "gdb bt" &&
  check_contains "$out" "Killed the job." "kill"
}

case_openmpi_fence_skipped_is_one_window() {
  openmpi_ready || return 0
  # Open MPI's window handles are addresses, different in every rank, and so
  # are their default names: the window is still one, known by its uid, so
  # the fence is no "different communicators" mismatch (issue 23 items 2, 7).
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "${ompi_run[@]}" -n 4 "$ompi_examples/fence_skip"
  check_rc 0 &&
  check_matches "$out" '^  \[0\] in call 2 to MPI_Win_fence on win 0x[0-9a-f]+ at fence_skip\.c:20 in main$' "hang" &&
  check_contains "$out" "[3] in call 1 to MPI_Barrier on MPI_COMM_WORLD at fence_skip.c:22 in main" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_not_contains "$out" "different communicators" "hang"
}

case_openmpi_message_sent_with_another_tag_is_named_not_received() {
  openmpi_ready || return 0
  # The message counts are per communicator handle, an address in each
  # Open MPI rank: sender and receiver are joined by the communicator's uid.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "${ompi_run[@]}" -n 4 "$ompi_examples/tag_mismatch"
  check_rc 0 &&
  check_contains "$out" "Not received: rank 0's MPI_Send(dest=1, tag=0, comm=MPI_COMM_WORLD) sent 1 message that rank 1 has not received; rank 1 waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=1, comm=MPI_COMM_WORLD): a tag mismatch?" "hang" &&
  check_contains "$out" "Not received: rank 2's MPI_Isend(dest=1, tag=7, comm=MPI_COMM_WORLD) sent 1 message" "hang" &&
  check_not_contains "$out" "Not received: rank 3" "hang"
}

case_openmpi_runtime_named_explicitly_wins() {
  openmpi_ready || return 0
  # --runtime names the MPICH runtime for an Open MPI job: mpidbg does not
  # second-guess it, and the failure is reported (the ranks die at once).
  run_mpidbg 60 --runtime "$build/lib/libmpidbg-rt.so" -ex run -- "${ompi_run[@]}" -n 2 "$ompi_examples/ring"
  check_rc 69 &&
  check_contains "$err" "error: cannot start the job: the job ended before any rank registered" "stderr"
}
