# Hang triage for CI (issue 7): mpidbg --hang-timeout SECONDS [--report FILE].
# Sourced by tests/integration/run (run_mpidbg, check_*, $work, $examples).

# check_file_contains FILE NEEDLE... : FILE exists and contains every NEEDLE.
check_file_contains() {
  local file="$1" needle; shift
  if [ ! -s "$file" ]; then
    echo "    expected the report $file to exist"
    return 1
  fi
  for needle in "$@"; do
    check_contains "$(cat "$file")" "$needle" "$file" || return 1
  done
}

case_triage_deadlock_writes_report_and_exits_124() {
  rm -f "$work/hang.json" "$work/hang.txt"
  local started=$SECONDS
  run_mpidbg 120 --hang-timeout 3 --report "$work/hang.json" -- "$mpiexec" -n 4 "$examples/hangs/coll_skip"
  local took=$((SECONDS - started))
  check_rc 124 &&
  check_contains "$out" "Job started: 4 ranks, running." "stdout" &&
  check_contains "$out" "Hang: no MPI progress on any rank for 3 s (--hang-timeout 3 s)" "stdout (text report)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "stdout (text report)" &&
  check_contains "$err" "mpidbg: hang: no MPI progress on any rank for 3 s; killed the job; report in $work/hang.json and $work/hang.txt (exit 124)" "stderr" &&
  check_file_contains "$work/hang.json" '{"hang":{' '"version":1' '"cycles":[[0,3]]' '"no_hang":false' \
    '"suggested":[0,3]' '"stacks":{' '"queues":{' '"source":"ccs"' '"job":{"argv":["mpiexec.mpich","-n","4",' \
    '"hang_timeout":3' '"ranks":4' '"function":"MPI_Allreduce"' '"function":"MPI_Recv"' \
    '"call":"MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD)"' &&
  check_file_contains "$work/hang.txt" "Hang verdict:" "[0-2] in call 1 to MPI_Allreduce on MPI_COMM_WORLD" \
    "[3] blocked in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD)" "Deadlock: cycle 0 -> 3 -> 0" \
    "Merged stacks (main to the MPI call):" "main > MPI_Allreduce  [0-2]" "main > MPI_Recv  [3]" \
    "Queues:" "receive MPI_Recv(source=0, tag=42" || return 1
  if [ "$took" -gt 40 ]; then echo "    the hang took $took s to report (timeout 3 s)"; return 1; fi
}

case_triage_recv_cycle_text_report_only_on_stdout() {
  # Without --report the text report still goes to stdout; nothing is written.
  rm -f "$work"/*.json "$work"/*.txt
  run_mpidbg 120 --hang-timeout 2.5 -- "$mpiexec" -n 4 "$examples/hangs/recv_cycle"
  check_rc 124 &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "stdout" &&
  check_contains "$out" "[2-3] in MPI_Finalize (a bystander)" "stdout" &&
  check_contains "$out" "main > MPI_Recv  [0-1]" "stdout (merged stacks)" &&
  check_contains "$err" "mpidbg: hang: no MPI progress on any rank for " "stderr" &&
  check_not_contains "$err" "report in" "stderr" || return 1
  if [ -n "$(ls "$work"/*.json "$work"/*.txt 2>/dev/null)" ]; then echo "    a report file was written"; return 1; fi
}

case_triage_finished_job_passes_exit_code() {
  rm -f "$work/ring.json" "$work/ring.txt"
  local started=$SECONDS
  run_mpidbg 120 --hang-timeout 30 --report "$work/ring.json" -- "$mpiexec" -n 4 "$examples/ring"
  local took=$((SECONDS - started))
  check_rc 0 &&
  check_contains "$out" "ring: token 18 after 3 laps (expected 18): ok" "program output" &&
  check_contains "$out" "The job ended (launcher exited with code 0) after" "stdout" &&
  check_contains "$out" "; no hang." "stdout" &&
  check_not_contains "$out" "Hang:" "stdout" || return 1
  if [ -e "$work/ring.json" ] || [ -e "$work/ring.txt" ]; then echo "    a report was written for a job that finished"; return 1; fi
  if [ "$took" -gt 25 ]; then echo "    the finished job took $took s (it must not wait for the 30 s timeout)"; return 1; fi
}

case_triage_crashed_job_passes_its_exit_code() {
  rm -f "$work/crash.json"
  run_mpidbg 120 --hang-timeout 30 --report "$work/crash.json" -- "$mpiexec" -n 4 "$examples/crash"
  # The launcher's own end, as mpidbg reported it, is the exit code.
  local line code
  line="$(grep -o 'The job ended (launcher [a-z ]* [0-9]*' <<<"$out")"
  code="${line##* }"
  if [ -z "$code" ]; then echo "    no 'The job ended' line"; return 1; fi
  if [[ "$line" == *signal* ]]; then code=$((128 + code)); fi
  check_contains "$out" "[1] exited with signal 11 (Segmentation fault)" "stdout (notice)" &&
  check_rc "$code" &&
  check_not_contains "$out" "Hang:" "stdout" || return 1
  if [ "$rc" -eq 0 ]; then echo "    a crashed job must not pass as 0"; return 1; fi
  if [ -e "$work/crash.json" ]; then echo "    a report was written for a job that ended"; return 1; fi
}

case_triage_rank_stuck_computing_is_a_hang() {
  rm -f "$work/stuck.json" "$work/stuck.txt"
  run_mpidbg 120 --hang-timeout 3 --report "$work/stuck.json" -- "$mpiexec" -n 4 "$examples/hangs/stuck_compute"
  local line
  line="$(grep -n 'while (keep_going)' "$root/examples/hangs/stuck_compute.c" | cut -d: -f1)"
  check_rc 124 &&
  check_file_contains "$work/stuck.txt" "[0-2] in call 1 to MPI_Barrier on MPI_COMM_WORLD" \
    "Waited for: rank 3 is computing (not in MPI) in compute () at" "stuck_compute.c:$line" \
    "Look first at rank 3" "main > MPI_Barrier  [0-2]" "main > compute  [3]" &&
  check_file_contains "$work/stuck.json" '"culprits":[{"doing":"computing (not in MPI) in compute () at' \
    '"rank":3}]' '"cycles":[]' '"suggested":[3]'
}

# Communicator handles reused (MPI_Comm_dup/free in a loop), and one copy held
# under different handle values by different ranks (MPICH gives rank 0
# 0x84000005 where the others have 0x84000003, with or without mpidbg): the
# runtime's call numbers restart with each copy, the collective fast path
# (which caches the last communicator) never counts on a freed one, the
# verdict knows the copy across ranks by its uid (not its handle) and reads
# the history of the live copy, not of the freed ones under the same handle.
case_triage_communicators_known_across_ranks_by_uid_with_reused_handles() {
  rm -f "$work/reuse.json" "$work/reuse.txt"
  run_mpidbg 120 --hang-timeout 3 --report "$work/reuse.json" -- "$mpiexec" -n 3 "$examples/hangs/comm_reuse" 40
  check_rc 124 &&
  check_contains "$err" "comm_reuse: the last copy has the first copy's handle" "the program (MPICH reused the handle)" &&
  check_file_contains "$work/reuse.txt" "[0-1] in call 3 to MPI_Barrier on reused" \
    "[2] blocked in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD)" \
    "reused: collective calls issued: [0-1] 3, [2] 2" "Deadlock: cycle 0 -> 2 -> 0" &&
  check_not_contains "$(cat "$work/reuse.txt")" "entered on different communicators" "the text report" &&
  check_not_contains "$(cat "$work/reuse.txt")" "[0] -> [1]" "the text report" &&
  check_file_contains "$work/reuse.json" '"cycles":[[0,2]]' || return 1
  # The same through the message-queue DLL (hang --memory reads every rank's
  # state from its memory), which passes the uid on (mpidbg_mqs_get_comm_uid).
  run_mpidbg 120 --no-stop-at-init -ex 'wait 30' -ex collectives -ex 'hang --memory' -ex kill -- \
    "$mpiexec" -n 3 "$examples/hangs/comm_reuse" 5
  check_rc 0 &&
  check_contains "$out" "Read from: [0-2] mqs:libmpidbg-mqs.so" "hang --memory" &&
  check_contains "$out" "reused: collective calls issued: [0-1] 3, [2] 2" "hang --memory" &&
  check_contains "$out" "Deadlock: cycle 0 -> 2 -> 0" "hang --memory" &&
  check_matches "$out" '^Communicator reused \(handles 0x[0-9a-f]+ on \[0\], 0x[0-9a-f]+ on \[1-2\], size 3\):$' "collectives" &&
  check_matches "$out" '^  Ranks \[0-1\] are in call 3 to MPI_Barrier at comm_reuse\.c:[0-9]+ in [a-z_]+\.$' "collectives" &&
  check_contains "$out" "Rank 2 has made 2 calls to MPI_Barrier and is blocked in MPI_Recv" "collectives"
}

# Communicators from MPI_Comm_split_type, MPI_Cart_create and MPI_Cart_sub are
# interposed too: they count on their parent and get a uid, so the verdict on
# a hang in a grid's row knows the grid and the row across ranks (MPICH's rank
# 0 holds other handles for them), over CCS and through the DLL alike.
case_triage_cartesian_grid_and_rows_are_known_across_ranks() {
  run_mpidbg 120 --no-stop-at-init -ex 'wait 30' -ex hang -ex 'hang --memory' -ex collectives -ex kill -- \
    "$mpiexec" -n 4 "$examples/hangs/cart_rows"
  check_rc 0 &&
  check_contains "$out" "[0-1] in call 1 to MPI_Barrier on grid" "hang" &&
  check_contains "$out" "[2] in call 1 to MPI_Allreduce on row" "hang" &&
  check_contains "$out" "grid: collective calls issued: [0-1] 2, [2-3] 1" "hang (MPI_Cart_sub counted on the grid)" &&
  check_contains "$out" "[0-1] -> [2-3]  in MPI_Barrier (call 1 on grid)" "hang" &&
  check_contains "$out" "[2] -> [3]  in MPI_Allreduce (call 1 on row)" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_contains "$out" "Read from: [0-3] ccs" "hang" &&
  check_contains "$out" "Read from: [0-3] mqs:libmpidbg-mqs.so" "hang --memory" &&
  [ "$(grep -cF "Deadlock: cycle 0 -> 3 -> 0" <<<"$out")" = 2 ] &&
  check_not_contains "$out" "entered on different communicators" "hang" &&
  check_matches "$out" '^  Rank 2 has made 0 calls to MPI_Barrier and is blocked in MPI_Allreduce \(call 1 on row\) at [a-z_]+\.c:[0-9]+ in main\.$' "collectives" &&
  check_contains "$out" "3 other communicators have no collective in progress." "collectives (WORLD, SELF, the node's)"
}

# MPI_Dist_graph_create_adjacent and MPI_Graph_create are interposed as well:
# without a uid MPICH's rank 0 held the ring under another handle than ranks
# 1-2, the verdict split it in two and named a false cycle 0 -> 1 -> 0.
case_triage_graph_communicators_are_known_across_ranks() {
  run_mpidbg 120 --no-stop-at-init -ex 'wait 30' -ex hang -ex 'hang --memory' -ex collectives -ex kill -- \
    "$mpiexec" -n 4 "$examples/hangs/graph_ring"
  check_rc 0 &&
  check_contains "$out" "[0-2] in call 1 to MPI_Allreduce on ring" "hang" &&
  check_contains "$out" "ring: collective calls issued: [0-2] 1, [3] 0" "hang" &&
  check_contains "$out" "[0-2] -> [3]  in MPI_Allreduce (call 1 on ring)" "hang" &&
  [ "$(grep -cF "Deadlock: cycle 0 -> 3 -> 0" <<<"$out")" = 2 ] &&
  check_not_contains "$out" "entered on different communicators" "hang" &&
  check_not_contains "$out" "cycle 0 -> 1 -> 0" "hang" &&
  check_contains "$out" "Read from: [0-3] mqs:libmpidbg-mqs.so" "hang --memory" &&
  check_matches "$out" '^Communicator ring \(handles 0x[0-9a-f]+ on \[0\], 0x[0-9a-f]+ on \[1-3\], size 4\):$' \
    "collectives (one ring, whatever handle each rank holds)" &&
  check_matches "$out" '^  Ranks \[0-2\] are in call 1 to MPI_Allreduce at graph_ring\.c:[0-9]+ in main\.$' "collectives" &&
  check_contains "$out" "2 other communicators have no collective in progress." "collectives (WORLD and graph; SELF has one member)"
}

# MPI_Comm_create_group is called by the group's members only: its
# communicator gets a uid counted per (parent, tag, members), not on the
# parent. Rank 1 holds another handle for trio; without the uid the verdict
# said MPI_Allreduce was "entered on different communicators" and had ranks
# 1 and 2 wait for each other.
case_triage_create_group_communicator_is_known_across_its_members() {
  run_mpidbg 120 --no-stop-at-init -ex 'wait 30' -ex hang -ex 'hang --memory' -ex collectives -ex kill -- \
    "$mpiexec" -n 4 "$examples/hangs/group_trio"
  check_rc 0 &&
  check_contains "$out" "[1-2] in call 1 to MPI_Allreduce on trio" "hang" &&
  check_contains "$out" "trio: collective calls issued: [1-2] 1, [3] 0" "hang" &&
  check_contains "$out" "MPI_COMM_WORLD: collective calls issued: [0] 1, [1-3] 0" "hang (create_group not counted on the parent)" &&
  check_contains "$out" "[1-2] -> [3]  in MPI_Allreduce (call 1 on trio)" "hang" &&
  check_not_contains "$out" "[1] -> [2]" "hang" &&
  check_not_contains "$out" "entered on different communicators" "hang" &&
  [ "$(grep -cF "Deadlock: cycle 0 -> 3 -> 0" <<<"$out")" = 2 ] &&
  check_contains "$out" "Read from: [0-3] mqs:libmpidbg-mqs.so" "hang --memory" &&
  check_matches "$out" '^Communicator trio \(handles 0x[0-9a-f]+ on \[1\], 0x[0-9a-f]+ on \[2-3\], size 3\):$' \
    "collectives (one trio, whatever handle each member holds)" &&
  check_matches "$out" '^  Ranks \[1-2\] are in call 1 to MPI_Allreduce at group_trio\.c:[0-9]+ in main\.$' "collectives"
}

case_triage_usage_errors() {
  run_mpidbg 10 --report "$work/x.json" -- "$mpiexec" -n 1 /bin/true
  check_rc 64 && check_contains "$err" "error: --report needs --hang-timeout SECONDS" "stderr (--report alone)" || return 1
  run_mpidbg 10 --hang-timeout abc -- "$mpiexec" -n 1 /bin/true
  check_rc 64 && check_contains "$err" "--hang-timeout: expected a number of seconds, got 'abc'" "stderr (not a number)" || return 1
  run_mpidbg 10 --hang-timeout 0 -- "$mpiexec" -n 1 /bin/true
  check_rc 64 && check_contains "$err" "--hang-timeout: must be more than 0 and at most 1000000 seconds, got '0'" "stderr (zero)" || return 1
  run_mpidbg 10 --hang-timeout 5 -ex status -- "$mpiexec" -n 1 /bin/true
  check_rc 64 && check_contains "$err" "error: --hang-timeout runs the job without commands" "stderr (with -ex)" || return 1
  run_mpidbg 10 --hang-timeout 5 --report /nonexistent-dir/hang.json -- "$mpiexec" -n 1 /bin/true
  check_rc 64 && check_contains "$err" "error: --report '/nonexistent-dir/hang.json': directory '/nonexistent-dir' does not exist" "stderr (bad report directory)" || return 1
  check_not_contains "$out" "Job started" "stdout (nothing launched)"
}
