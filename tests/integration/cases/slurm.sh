# mpidbg under a real Slurm (issue 9): `mpidbg -- srun -N 2 -n 4 --mpi=pmi2 ...`
# on the private single-host Slurm of tests/slurm/start (fake nodes n1 and n2).
# Each case starts its own Slurm in $work/slurm on free ports and stops it when
# it ends (and the harness's EXIT trap stops it too, should a case be cut
# short). Without the Slurm packages every case prints SKIP and passes.
# Sourced by tests/integration/run (run_mpidbg, check_*, $work, $build, $root).

slurm_dir="$work/slurm"
slurm_srun=(srun -N 2 -n 4 --mpi=pmi2)

# Stop this run's Slurm before the harness removes $work: chain our stop in
# front of the EXIT trap the harness set (its command is the trap's third word).
eval "slurm_prev_exit_trap=( $(trap -p EXIT) )"
trap '"$root/tests/slurm/stop" "$slurm_dir" >/dev/null 2>&1; eval "${slurm_prev_exit_trap[2]:-}"' EXIT
# bash runs no EXIT trap when a signal ends it: turn INT and TERM (timeout,
# Ctrl-C) into an exit, unless the harness handles them itself.
if [ -z "$(trap -p INT)" ]; then trap 'exit 130' INT; fi
if [ -z "$(trap -p TERM)" ]; then trap 'exit 143' TERM; fi

# slurm_installed: the daemons and clients tests/slurm/start needs are there.
slurm_installed() {
  local tool
  for tool in slurmctld slurmd srun sinfo munged; do command -v "$tool" >/dev/null || return 1; done
}

# slurm_free_port: a base port P such that nothing listens on 127.0.0.1 at P,
# P+1 or P+2 (slurmctld, n1, n2), so that runs side by side do not collide.
slurm_free_port() {
  local base try ok p
  for try in $(seq 1 40); do
    base=$((20000 + (RANDOM % 3000) * 3))
    ok=1
    for p in $base $((base + 1)) $((base + 2)); do
      if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then ok=0; break; fi
    done
    if [ $ok -eq 1 ]; then echo "$base"; return; fi
  done
  echo 16817
}

# with_slurm FUNCTION: runs FUNCTION with a fresh Slurm up and SLURM_CONF
# exported (srun inherits it through mpidbg); stops Slurm afterwards whatever
# FUNCTION returned. SKIP (and success) when Slurm is not installed.
with_slurm() {
  if ! slurm_installed; then
    echo "    SKIP: Slurm is not installed (scripts/install-deps installs slurmctld slurmd slurm-client munge)"
    return 0
  fi
  local started
  if ! started="$(MPIDBG_SLURM_PORT="$(slurm_free_port)" timeout -k 5 60 "$root/tests/slurm/start" "$slurm_dir" 2>&1)"; then
    echo "    tests/slurm/start failed:"; sed 's/^/      /' <<<"$started"
    "$root/tests/slurm/stop" "$slurm_dir" >/dev/null 2>&1
    return 1
  fi
  local ok=0 had_conf="${SLURM_CONF+set}" prev_conf="${SLURM_CONF:-}"
  export SLURM_CONF="$slurm_dir/slurm.conf"
  "$@" || ok=1
  if [ -n "$had_conf" ]; then SLURM_CONF="$prev_conf"; else unset SLURM_CONF; fi
  "$root/tests/slurm/stop" "$slurm_dir" >/dev/null 2>&1
  return $ok
}

slurm_hang_coll_skip() {
  # The task's SLURMD_NODENAME, read by gdb's Python from /proc/PID/environ:
  # not 'print getenv(...)', a function call in the process that gdb 13
  # cannot make on a CPU with AMX registers.
  local node_of_inferior='[e for e in open("/proc/%d/environ" % gdb.selected_inferior().pid).read().split("\0") if e.startswith("SLURMD_NODENAME=")]'
  run_mpidbg 180 -ex run -ex 'wait 30' -ex status -ex where -ex hang -ex 'gdb 1 bt' \
    -ex "gdb 0 python print($node_of_inferior)" -ex "gdb 3 python print($node_of_inferior)" \
    -ex kill -- "${slurm_srun[@]}" "$examples/hangs/coll_skip"
  local line
  line="$(grep -n 'MPI_Allreduce(&value' "$root/examples/hangs/coll_skip.c" | cut -d: -f1)"
  check_rc 0 &&
  check_contains "$out" "Job started: 4 ranks, frozen at the end of MPI_Init" "stdout" &&
  check_contains "$out" "Every rank is blocked in MPI, frozen or exited" "wait" &&
  check_contains "$out" "[0-2] blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD)" "status" &&
  check_contains "$out" "[3] blocked in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD)" "status" &&
  check_contains "$out" "main > MPI_Allreduce  [0-2]" "where" &&
  check_contains "$out" "main > MPI_Recv  [3]" "where" &&
  check_contains "$out" "MPI_COMM_WORLD: collective calls issued: [0-2] 1, [3] 0" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_contains "$out" "Look first at ranks [0,3]" "hang" &&
  check_contains "$out" "Read from: [0-3] ccs" "hang" &&
  check_contains "$out" "[1]:" "gdb 1 bt" &&
  check_contains "$out" " in main (" "gdb 1 bt" &&
  check_contains "$out" "coll_skip.c:$line" "gdb 1 bt (the MPI_Allreduce in main)" &&
  # The ranks really are Slurm tasks spread over both fake nodes.
  check_contains "$out" "['SLURMD_NODENAME=n1']" "rank 0's SLURMD_NODENAME" &&
  check_contains "$out" "['SLURMD_NODENAME=n2']" "rank 3's SLURMD_NODENAME" &&
  check_contains "$out" "Killed the job." "kill"
}
case_slurm_srun_hang_collective_skipped() { with_slurm slurm_hang_coll_skip; }

slurm_hang_recv_cycle() {
  # The front end on this host's address (--listen host), as for nodes that
  # are other machines: the tasks' servers bind the address that reaches it.
  local address listen=()
  address="$(this_host_address)"
  [ -n "$address" ] && listen=(--listen host)
  run_mpidbg 180 "${listen[@]}" -ex ranks -ex run -ex 'wait 30' -ex hang -ex kill -- "${slurm_srun[@]}" "$examples/hangs/recv_cycle"
  check_rc 0 &&
  { [ -z "$address" ] || check_matches "$out" "^3 +[^ ]+ +[0-9]+ +${address//./\\.}:[0-9]+ " "rank 3's server off loopback"; } &&
  check_contains "$out" "[2-3] in MPI_Finalize (a bystander)" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_contains "$out" "Killed the job." "kill"
}
case_slurm_srun_hang_recv_cycle() { with_slurm slurm_hang_recv_cycle; }

# A job that ends by itself under srun: the ranks run the ring, then the shell
# around each rank exits 3, so srun exits 3 and so must mpidbg. srun ends a
# moment after its last task (it reports the step's end to slurmctld first),
# so `wait` is repeated until the launcher's end is seen.
slurm_finished_job() {
  start_session -- "${slurm_srun[@]}" sh -c "$examples/ring && exit 3"
  send_command run 'Continuing' || { end_session; return 1; }
  send_command 'wait 60' 'Every rank is blocked|The job has ended' || { end_session; return 1; }
  local i
  for i in $(seq 1 20); do
    grep -qF 'The job has ended' "$work/out" && break
    echo 'wait 1' >&7
    sleep 0.5
  done
  echo status >&7
  echo quit >&7
  exec 7>&-
  wait "$session_pid"; rc=$?
  out="$(cat "$work/out")"; err="$(cat "$work/err")"
  check_rc 3 &&
  check_contains "$out" "ring: token 18 after 3 laps (expected 18): ok" "program output" &&
  check_contains "$out" "The job has ended (launcher exited with code 3)" "wait" &&
  check_contains "$out" "[0-3] exited with code 0" "status"
}
case_slurm_srun_finished_job_passes_exit_code() { with_slurm slurm_finished_job; }

# Without --mpi=pmi2 (and MpiDefault=none) MPICH finds no PMI: every task is
# an MPI job of size 1. The runtime says so, naming the fix.
slurm_without_pmi() {
  run_mpidbg 120 --register-timeout 20 -ex status -ex kill -- srun -N 2 -n 2 "$examples/ring"
  check_contains "$err" "mpidbg-rt: srun started 2 tasks but MPI_COMM_WORLD has size 1: MPI found no Slurm PMI; run srun --mpi=pmi2" "stderr"
}
case_slurm_srun_without_pmi_is_explained() { with_slurm slurm_without_pmi; }

# A rank killed with SIGKILL mid-session (issue 10). Under srun the other
# tasks keep running (Hydra's proxy kills every rank when one dies, even with
# -disable-auto-cleanup, so this case needs Slurm). The rank is reported
# lost; the others stay debuggable through the forwarding tree, which routes
# around it (fan-out 2: rank 1 forwards for ranks 3 and 4); continuing names
# the lost rank; the hang verdict waits on it; kill ends the rest.
slurm_rank_killed() {
  start_session --fan-out 2 -- srun -N 2 -n 8 --mpi=pmi2 "$examples/spin" 5
  send_command ranks '^7 ' || { end_session; return 1; }
  local victim
  victim="$(fault_rank_pid 1)"
  [ -n "$victim" ] || { echo "    no pid for rank 1 in the ranks table"; end_session; return 1; }
  kill -KILL "$victim"
  send_command status '^\[1\] lost \(its process ended' || { end_session; return 1; }
  send_command status '^\[0,2-7\] frozen at the end of MPI_Init' || { end_session; return 1; }
  send_command where 'main > MPI_Init  \[0,2-7\]' || { end_session; return 1; }
  send_command 'print [3-4] mpi/communicators' 'MPI_COMM_WORLD' || { end_session; return 1; }
  send_command run 'Not continued: rank 1 was lost' || { end_session; return 1; }
  send_command 'wait 20' 'Every rank is blocked in MPI' || { end_session; return 1; }
  send_command status '^\[0,2-7\] blocked in MPI_Barrier' || { end_session; return 1; }
  end_session
  check_contains "$out" "not captured [1]: lost" "where" &&
  check_contains "$out" "Killed the job." "kill"
}
case_slurm_rank_killed_mid_session_the_rest_stay_debuggable() { with_slurm slurm_rank_killed; }

# An Open MPI program under srun --mpi=pmix (issue 9): the program is linked
# against Open MPI (libmpi.so.40), so mpidbg preloads libmpidbg-rt-ompi.so
# though the launcher is srun; Open MPI's MPI_Init talks to Slurm's PMIx
# server, from which the runtime takes its node and PMIx rank and where it
# publishes its endpoint. Two nodes: tests/slurm/start gives each slurmd a
# mount namespace of its own, so their PMIx plugins do not share directories.
slurm_openmpi_pmix() {
  openmpi_ready || return 0
  if ! srun --mpi=list 2>&1 | grep -w pmix >/dev/null; then
    echo "    SKIP: this Slurm has no PMIx plugin (slurm-wlm-basic-plugins provides mpi_pmix)"
    return 0
  fi
  local nodes=2 size=4
  if ! unshare --mount --propagation private true 2>/dev/null; then
    echo "    (no mount namespaces here: one node)"
    nodes=1 size=3
  fi
  run_mpidbg 150 -ex ranks -ex run -ex 'wait 60' -ex 'status' -- srun -N $nodes -n $size --mpi=pmix "$ompi_examples/ring"
  check_rc 0 &&
  check_contains "$out" "Job started: $size ranks" "the launch" || return 1
  # The runtime read its facts from Slurm's PMIx server (its node,
  # namespace slurm.pmix.JOB.STEP, its rank there) and published its
  # endpoint (*). Slurm's block distribution: ranks 0-2 on n1, 3 on n2.
  local rows
  rows="$(grep -cE '^[0-2] +[^ ]+ +[0-9]+ +127\.0\.0\.1:[0-9]+ +n1 +slurm\.pmix\.[0-9]+\.0:[0-2]\* +live$' <<<"$out")"
  if [ "$rows" -ne 3 ]; then echo "    expected 3 ranks rows with node n1 and a published PMIx endpoint, got $rows"; return 1; fi
  if [ $nodes -eq 2 ]; then
    check_matches "$out" '^3 +[^ ]+ +[0-9]+ +127\.0\.0\.1:[0-9]+ +n2 +slurm\.pmix\.[0-9]+\.0:3\* +live$' \
      "rank 3 on node n2 with a published PMIx endpoint" || return 1
  fi
  local token=$((3 * size * (size - 1) / 2))  # 3 laps of 0 + 1 + ... + size-1
  check_contains "$out" "ring: token $token after 3 laps (expected $token): ok" "the job's result" &&
  check_contains "$out" "[0-$((size - 1))] exited with code 0" "status"
}

case_slurm_srun_pmix_runs_an_open_mpi_program() { with_slurm slurm_openmpi_pmix; }

# srun_ended_after_kill PID: the srun of a job mpidbg killed ends within 10 s
# (else it is killed here and the check fails); reaps it.
srun_ended_after_kill() {
  local i
  for i in $(seq 1 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$1" 2>/dev/null; then
    echo "    srun still runs 10 s after kill"
    kill "$1"; wait "$1" 2>/dev/null
    return 1
  fi
  wait "$1" 2>/dev/null
  return 0
}

slurm_attach_step_body() {
  env MPIDBG_IT_MARKER="$work" srun -N 1 -n 2 --mpi=pmi2 "$examples/hangs/recv_cycle" </dev/null \
    >"$work/job.out" 2>"$work/job.err" &
  local srun_pid=$! jobid="" i
  for i in $(seq 1 200); do
    jobid="$(squeue -h -o %i 2>/dev/null | head -1)"
    [ -n "$jobid" ] && [ "$(pgrep -c -f "^$examples/hangs/recv_cycle")" -ge 2 ] && break
    sleep 0.1
  done
  sleep 2  # the ranks reach their receives
  run_mpidbg 120 attach --slurm "$jobid.0" -ex where -ex hang -ex 'gdb 1 bt' -ex kill
  local ok=0
  check_rc 0 &&
  check_contains "$out" "Attached to [0-1] of a job of 2 ranks (Slurm step $jobid.0): running, without the runtime" "the attach" &&
  check_contains "$out" "main > MPI_Recv  [0-1]" "where" &&
  check_contains "$out" "[0-1] blocked in MPI_Recv" "hang" &&
  check_contains "$out" "Whom the blocked ranks wait for is unknown" "hang without arguments" &&
  check_contains "$out" " in main (" "gdb 1 bt" &&
  check_contains "$out" "Killed the job." "kill" || ok=1
  srun_ended_after_kill "$srun_pid" || ok=1
  # A step that does not exist.
  run_mpidbg 30 attach --slurm "$((jobid + 100)).0"
  check_rc 69 && check_contains "$err" "cannot attach: scontrol listpids $((jobid + 100)).0 found no task on this node" "a missing step" || ok=1
  return $ok
}

case_slurm_attach_to_a_step_without_runtime() {
  with_slurm slurm_attach_step_body
}

# srun's MPIR process table (MPIR_proctable: host, executable, pid per rank)
# read from outside by `mpidbg attach --pid SRUN_PID`: the ranks of both fake
# nodes, with the node srun names each on.
slurm_attach_mpir_body() {
  env MPIDBG_IT_MARKER="$work" srun -N 2 -n 4 --mpi=pmi2 "$examples/hangs/recv_cycle" </dev/null \
    >"$work/job.out" 2>"$work/job.err" &
  local srun_pid=$! i
  for i in $(seq 1 200); do
    [ "$(pgrep -c -f "^$examples/hangs/recv_cycle")" -ge 4 ] && break
    sleep 0.1
  done
  sleep 2  # the ranks reach their receives
  run_mpidbg 120 attach --pid "$srun_pid" -ex ranks -ex where -ex hang -ex kill
  local ok=0
  check_rc 0 &&
  check_contains "$out" "Attached to [0-3] of a job of 4 ranks (pid $srun_pid, from its MPIR_proctable): running, without the runtime" "the attach" &&
  check_matches "$out" '^0 +[^ ]+ +[0-9]+ +- +n1 +live' "rank 0 on node n1, no CCS endpoint" &&
  check_matches "$out" '^3 +[^ ]+ +[0-9]+ +- +n2 +live' "rank 3 on node n2" &&
  check_contains "$out" "main > MPI_Recv  [0-1]" "where" &&
  check_contains "$out" "[0-1] blocked in MPI_Recv" "hang" &&
  check_contains "$out" "Killed the job." "kill" || ok=1
  srun_ended_after_kill "$srun_pid" || ok=1
  return $ok
}

case_slurm_attach_by_srun_pid_through_mpir() {
  with_slurm slurm_attach_mpir_body
}
