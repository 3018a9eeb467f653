# Merged stack trees (issue 6): `where` and `equiv` on real jobs, from the
# ranks' own stack capture, from gdb for ranks gdb holds, and from a one-shot
# gdb for a rank whose runtime cannot answer. Sourced by tests/integration/run
# (run_mpidbg, start_session, send_command, end_session, check_* come from there).

case_where_merges_a_stuck_collective() {
  # coll_skip, 4 ranks: [0-2] in MPI_Allreduce, [3] in MPI_Recv.
  run_mpidbg 150 -ex run -ex 'wait 30' -ex where -ex 'where --all-threads' -ex 'where --tree' -ex 'where --full 3' \
    -ex "where --dot $work/job.dot" -ex 'where --json' -ex equiv -ex 'status $equiv[2]' \
    -ex 'gdb $equiv[2] bt 1' -ex 'status $equiv[9]' -ex 'where --bogus' -ex kill -- \
    "$mpiexec" -n 4 "$examples/hangs/coll_skip"
  check_rc 65 &&
  check_contains "$out" "main > MPI_Allreduce  [0-2]" "where" &&
  check_contains "$out" "main > MPI_Recv  [3]" "where" &&
  check_contains "$out" "main [0-3] (4 ranks)" "where --tree" &&
  check_contains "$out" "├─ MPI_Allreduce [0-2] (3 ranks)" "where --tree" &&
  check_contains "$out" "main (coll_skip.c:" "where --full" &&
  check_contains "$out" "Graphviz tree written to $work/job.dot" "where --dot" &&
  check_contains "$(cat "$work/job.dot" 2>/dev/null)" "digraph" "the dot file" &&
  check_contains "$(cat "$work/job.dot" 2>/dev/null)" "MPI_Recv" "the dot file" &&
  check_contains "$out" '"classes":' "where --json" &&
  check_contains "$out" "1: [0-2] main > MPI_Allreduce" "equiv" &&
  check_contains "$out" "2: [3] main > MPI_Recv" "equiv" &&
  check_contains "$out" "[3] blocked in MPI_Recv(source=0, tag=42, comm=MPI_COMM_WORLD)" "status \$equiv[2]" &&
  grep -A1 -F '(mpidbg) gdb $equiv[2] bt 1' <<<"$out" | grep -xF '[3]:' >/dev/null &&
  check_contains "$out" "  #0  0x" "gdb \$equiv[2] bt 1" &&
  check_contains "$err" "there is no \$equiv[9]: the last 'where'/'equiv' found 2 classes" "stderr" &&
  check_contains "$err" "where does not know option '--bogus'" "stderr" &&
  check_not_contains "$out" "mpidbg-helper" "where (the runtime's threads)" &&
  check_not_contains "$out" "read through gdb" "where (every runtime answered)" || return 1
  # Issue 24 item 3: UCX's progress thread is left out and counted, --all-threads shows it.
  local plain all
  plain="$(sed -n '/^(mpidbg) where$/,/^(mpidbg)/p' "$work/out")"
  all="$(sed -n '/^(mpidbg) where --all-threads$/,/^(mpidbg)/p' "$work/out")"
  check_contains "$all" "ucs_event_set_wait" "where --all-threads (UCX's progress thread)" &&
  check_not_contains "$plain" "ucs_event_set_wait" "where" &&
  grep -qE '^[0-9]+ threads? of \[0-3\] inside the MPI library or mpidbg.s runtime not shown \(--all-threads shows them\)$' \
    <<<"$plain" || { echo "    no note of the hidden threads in: $plain"; return 1; }
}

case_where_reads_held_and_silent_ranks_through_gdb() {
  start_session -- "$mpiexec" -n 3 "$examples/hangs/coll_skip"
  send_command run 'Continuing' || { end_session; return 1; }
  send_command 'wait 30' 'Every rank is blocked' || { end_session; return 1; }
  send_command ranks '^2 ' || { end_session; return 1; }
  local pid2
  pid2="$(awk '$1 == "2" && $3 ~ /^[0-9]+$/ {print $3; exit}' "$work/out")"
  # Rank 1 held by gdb: read with its gdb session.
  send_command 'gdb --keep 1 info threads' 'mpidbg-helper' 60 || { end_session; return 1; }
  send_command 'where' 'read through gdb \[1\]: held by gdb' || { end_session; return 1; }
  # gdb's pcs are symbolized as the runtime's captures are: rank 1's stack is
  # one group with rank 0's down to the line, and its UCX progress thread is
  # hidden as the others' are.
  send_command 'where --full' 'read through gdb \[1\]: held by gdb' || { end_session; return 1; }
  # Rank 2 stopped with SIGSTOP: its runtime cannot answer; a one-shot gdb reads it.
  kill -STOP "$pid2"
  send_command 'where' 'read through gdb \[2\]: runtime did not answer' || { kill -CONT "$pid2"; end_session; return 1; }
  kill -CONT "$pid2"
  end_session
  check_contains "$out" "main > MPI_Allreduce  [0-1]" "where with rank 1 read through gdb" &&
  check_contains "$out" "main > MPI_Recv  [2]" "where with rank 2 read through a one-shot gdb" &&
  check_matches "$out" '^main \(coll_skip\.c:[0-9]+\) > MPI_Allreduce \([A-Za-z]+\.cpp:[0-9]+\)  \[0-1\]$' \
    "where --full with rank 1 read through gdb (one group with rank 0, to the line)" &&
  check_not_contains "$(sed -n '/^(mpidbg) where$/,$p' <<<"$out")" "epoll_wait" "where (no progress thread, rank 1's included)"
}
