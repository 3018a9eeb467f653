# The hang verdict on ranks the debugger itself holds (issue 23, item 3):
# a rank frozen or stopped at a breakpoint is held, never computing or
# blocked, and ranks waiting for it are no hang of the program. Sourced by
# tests/integration/run (run_mpidbg, check_*, $work, $examples, $root).

verdict_hangs="$examples/hangs"

case_verdict_freeze_now_is_held_not_a_deadlock() {
  # held_ring exchanges around the ring for 30 s unless killed; rank 1 frozen
  # at once stops the others in their next MPI_Sendrecv. The second 'wait'
  # waits for them to settle (the first returns with the freeze's stop).
  run_mpidbg 120 -ex run -ex 'wait 1' -ex 'freeze --now 1' -ex 'wait 10' -ex 'wait 10' -ex hang -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/held_ring" 30
  check_rc 0 &&
  check_matches "$out" '^  \[1\] held: frozen \(--now\) in (application code|MPI_)' "hang (rank 1 held)" &&
  check_contains "$out" "  [0] blocked in MPI_Sendrecv(source=3, tag=3, comm=MPI_COMM_WORLD)" "hang" &&
  check_contains "$out" "  [2] blocked in MPI_Sendrecv(source=1, tag=3, comm=MPI_COMM_WORLD)" "hang" &&
  check_contains "$out" "  [3] blocked in MPI_Sendrecv(source=2, tag=3, comm=MPI_COMM_WORLD)" "hang" &&
  check_contains "$out" "No hang of the program: ranks [0,2-3] wait for rank 1, which you froze (continue 1)." "hang" &&
  check_not_contains "$out" "Deadlock" "hang" &&
  check_not_contains "$out" "computing" "hang" &&
  check_not_contains "$out" "Waited for:" "hang"
}

case_verdict_frozen_in_finalize_is_held_beside_a_real_cycle() {
  # recv_cycle: ranks 0-1 deadlock, 2-3 reach MPI_Finalize; rank 2 frozen
  # there is held (not a bystander, not "not responding"), and the cycle of
  # the program stays a deadlock.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex 'freeze --now 2' -ex 'wait 10' -ex hang -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/recv_cycle"
  check_rc 0 &&
  check_contains "$out" "  [2] held: frozen (--now) in MPI_Finalize()" "hang" &&
  check_contains "$out" "  [3] in MPI_Finalize (a bystander)" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_contains "$out" "Look first at ranks [0-1]: gdb [0-1] bt" "hang" &&
  check_not_contains "$out" "No hang of the program" "hang" &&
  check_not_contains "$out" "not responding" "hang"
}

case_verdict_collectives_name_nonblocking_apart() {
  # icoll_wait: rank 0 waits on its second MPI_Iallreduce (collective #2);
  # the others completed the first and wait in MPI_Recv for rank 0.
  # 'collectives' must agree with 'hang': no "in call 2 to MPI_Allreduce".
  run_mpidbg 120 -ex run -ex 'wait 10' -ex collectives -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/icoll_wait"
  check_rc 0 &&
  check_contains "$out" "  Rank 0 has not completed MPI_Iallreduce (collective #2 on the communicator)." "collectives" &&
  check_not_contains "$out" "to MPI_Allreduce" "collectives" &&
  check_contains "$out" "[0] -> [1-3]  in MPI_Wait: MPI_Iallreduce(count=1) collective #2" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang"
}

case_verdict_receive_from_itself_is_a_dead_end() {
  # self_wait: rank 0 receives from rank 3 of a communicator split with
  # key = size - rank, which is rank 0 itself.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/self_wait"
  check_rc 0 &&
  check_contains "$out" "  [0] blocked in MPI_Recv(source=3, tag=0, comm=reversed)" "hang" &&
  check_contains "$out" "Dead end: rank 0 waits in MPI_Recv(source=3, tag=0, comm=reversed) for itself (rank 3 of reversed is world rank 0), with no send to itself pending: no other rank can send this message." "hang" &&
  check_contains "$out" "Look first at rank 0: gdb [0] bt" "hang" &&
  check_not_contains "$out" "No cycle found" "hang"
}

case_verdict_wildcard_receive_with_every_sender_finalized_is_a_dead_end() {
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/wildcard_done"
  check_rc 0 &&
  check_contains "$out" "Dead end: rank 0 waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=5, comm=MPI_COMM_WORLD), but every rank that could send it is done with MPI: ranks [1-3] in MPI_Finalize (a bystander): no message will come." "hang" &&
  check_contains "$out" "Look first at ranks [0-3]: gdb [0-3] bt" "hang" &&
  check_not_contains "$out" "No cycle found" "hang"
}

case_verdict_message_sent_with_another_tag_is_named_not_received() {
  # tag_mismatch (issue 23 item 6): ranks 0 and 2 sent rank 1 messages with
  # tags 0 and 7 (MPI_Send; MPI_Isend and MPI_Wait) that it never receives,
  # rank 3's was received; rank 1 waits for tag 1 from any source.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex queues -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/tag_mismatch"
  check_rc 0 &&
  check_contains "$out" "Dead end: rank 1 waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=1, comm=MPI_COMM_WORLD), but every rank that could send it is done with MPI: ranks [0,2-3] in MPI_Finalize (a bystander): no message will come." "hang" &&
  check_contains "$out" "Not received: rank 0's MPI_Send(dest=1, tag=0, comm=MPI_COMM_WORLD) sent 1 message that rank 1 has not received; rank 1 waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=1, comm=MPI_COMM_WORLD): a tag mismatch?" "hang" &&
  check_contains "$out" "Not received: rank 2's MPI_Isend(dest=1, tag=7, comm=MPI_COMM_WORLD) sent 1 message that rank 1 has not received; rank 1 waits in MPI_Recv(source=MPI_ANY_SOURCE, tag=1, comm=MPI_COMM_WORLD): a tag mismatch?" "hang" &&
  check_not_contains "$out" "Not received: rank 3" "hang (rank 3's message was received)" &&
  check_contains "$out" "    not received: 1 message from source=0 with tag=0 (MPI_Send)
    not received: 1 message from source=2 with tag=7 (MPI_Isend)" "queues" &&
  check_not_contains "$out" "from source=3" "queues"
}

case_verdict_polled_receive_nobody_sends_is_a_cycle() {
  # poll_nobody: rank 0 tests an MPI_Irecv from rank 1 every millisecond,
  # sleeping between tests; the others wait in MPI_Barrier for rank 0.
  # Polling is waiting: not "computing", and the cycle is real.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex status -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/poll_nobody"
  check_rc 0 &&
  check_matches "$out" '^\[0\] polls MPI_Test for [0-9]+\.[0-9] s at poll_nobody\.c:[0-9]+ in main$' "status" &&
  check_matches "$out" '^  \[0\] polls MPI_Test on MPI_Irecv\(source=1, tag=5, count=1\) request 0x[0-9a-f]+ for [0-9]+\.[0-9] s at poll_nobody\.c:[0-9]+ in main$' "hang" &&
  check_contains "$out" "  [1-3] in call 1 to MPI_Barrier on MPI_COMM_WORLD at poll_nobody.c:24 in main" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_not_contains "$out" "computing" "hang"
}

case_verdict_exscan_against_barrier_is_a_mismatch() {
  # exscan_mismatch: ranks 0-2 in MPI_Exscan (interposed since issue 23; it
  # counts with MPI_Scan), rank 3 in MPI_Barrier. Named by its own name in
  # status, collectives and hang.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex status -ex collectives -ex hang -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/exscan_mismatch"
  check_rc 0 &&
  check_contains "$out" "[0-2] blocked in MPI_Exscan (call 1 on MPI_COMM_WORLD, counted with MPI_Scan)" "status" &&
  check_contains "$out" "  Ranks [0-2] are in call 1 to MPI_Exscan (counted with MPI_Scan) at exscan_mismatch.c:16 in main." "collectives" &&
  check_contains "$out" "  [0-2] in call 1 to MPI_Exscan (counted with MPI_Scan) on MPI_COMM_WORLD at exscan_mismatch.c:16 in main" "hang" &&
  check_contains "$out" "MPI_COMM_WORLD: collective #1 differs: ranks [0-2] called MPI_Exscan, rank 3 called MPI_Barrier" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_not_contains "$out" "computing" "hang"
}

case_verdict_fence_skipped_by_one_rank_is_a_cycle() {
  # fence_skip (issue 23 item 2): ranks 0-2 close an epoch with MPI_Win_fence,
  # rank 3 goes to MPI_Barrier instead. The window is known like a
  # communicator: the fence is call 2 on it and waits for rank 3.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex status -ex collectives -ex hang -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/fence_skip"
  check_rc 0 &&
  check_matches "$out" '^\[0-2\] blocked in MPI_Win_fence \(call 2 on win 0x[0-9a-f]+\) at fence_skip\.c:20 in main$' "status" &&
  check_contains "$out" "[3] blocked in MPI_Barrier (call 1 on MPI_COMM_WORLD) at fence_skip.c:22 in main" "status" &&
  check_matches "$out" 'Ranks \[0-2\] are in call 2 to MPI_Win_fence at fence_skip\.c:20 in main\.' "collectives" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_not_contains "$out" "computing" "hang"
}

case_verdict_large_count_fence_skipped_by_one_rank_is_a_cycle() {
  # fence_skip_c (issue 23 item 1): fence_skip with its window made by
  # MPI-4's MPI_Win_allocate_c and written with MPI_Put_c. The large-count
  # constructor registers the window as its int form does: the fence is
  # call 2 on it and waits for rank 3; and it counts on MPI_COMM_WORLD.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex status -ex collectives -ex hang -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/fence_skip_c"
  check_rc 0 &&
  check_matches "$out" '^\[0-2\] blocked in MPI_Win_fence \(call 2 on win 0x[0-9a-f]+\) at fence_skip_c\.c:21 in main$' "status" &&
  check_contains "$out" "[3] blocked in MPI_Barrier (call 1 on MPI_COMM_WORLD) at fence_skip_c.c:23 in main" "status" &&
  check_matches "$out" 'Ranks \[0-2\] are in call 2 to MPI_Win_fence at fence_skip_c\.c:21 in main\.' "collectives" &&
  check_contains "$out" "MPI_COMM_WORLD: collective calls issued: [0-2] 1, [3] 2" "hang (MPI_Win_allocate_c counted)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_not_contains "$out" "computing" "hang" || return 1
  # MPI_Put_c is a breakpoint target with its target and count, as MPI_Put
  # is: only rank 2 puts into rank 3's window.
  run_mpidbg 120 -ex 'break MPI_Put_c if target == 3 && count == 1' -ex run -ex 'wait 10' -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/fence_skip_c"
  check_rc 0 &&
  check_matches "$out" '^\[2\] hit breakpoint 1: MPI_Put_c\(target=3, count=1\)' "the breakpoint" &&
  check_not_contains "$out" "[0] hit breakpoint" "the condition"
}

case_verdict_lock_held_across_a_barrier_is_a_cycle() {
  # lock_held (issue 23 item 2): rank 1 waits in MPI_Win_lock for the
  # exclusive lock rank 0 holds (the runtime saw its MPI_Win_lock return)
  # across the barrier the others wait in for rank 1.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex status -ex hang -ex queues -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/lock_held"
  check_rc 0 &&
  check_matches "$out" '^\[1\] blocked in MPI_Win_lock\(target=2, win 0x[0-9a-f]+\) at lock_held\.c:47 in main$' "status" &&
  check_matches "$out" '^  \[1\] -> \[0\]  in MPI_Win_lock\(target=2, win 0x[0-9a-f]+\): rank 0 holds an exclusive lock on rank 2 of win 0x[0-9a-f]+$' "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_matches "$out" '^  holds an exclusive lock on rank 2 of win 0x[0-9a-f]+ \(since MPI call [0-9]+\)$' "queues" || return 1
  # A shared holder conflicts with an exclusive request: the waiter's lock
  # type is published while it waits in MPI_Win_lock.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex queues -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/lock_held" shared
  check_rc 0 &&
  check_matches "$out" '^  \[1\] -> \[0\]  in MPI_Win_lock\(target=2, win 0x[0-9a-f]+\): rank 0 holds a shared lock on rank 2 of win 0x[0-9a-f]+, and rank 1 asks for an exclusive one$' "hang (shared holder)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang (shared holder)" &&
  check_matches "$out" '^\[1\] asks for an exclusive lock on rank 2 of win 0x[0-9a-f]+ \(since MPI call [0-9]+\)$' "queues (shared holder)" || return 1
  # MPI_Win_lock_all asks for a shared lock on every rank: rank 0's
  # exclusive one on rank 2 conflicts (MPICH waits in MPI_Win_lock_all).
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex queues -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/lock_held" all
  check_rc 0 &&
  check_matches "$out" '^  \[1\] -> \[0\]  in MPI_Win_lock_all\(win 0x[0-9a-f]+\): rank 0 holds an exclusive lock on rank 2 of win 0x[0-9a-f]+$' "hang (lock_all)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang (lock_all)" &&
  check_matches "$out" '^\[1\] asks for a shared lock on every rank of win 0x[0-9a-f]+ \(since MPI call [0-9]+\)$' "queues (lock_all)" || return 1
  # The RMA operations are seen too: a breakpoint on MPI_Put stops rank 0
  # there; the request of rank 1's MPI_Rput is a pending operation on the
  # window when it enters MPI_Wait; then the same cycle.
  run_mpidbg 120 -ex 'break MPI_Put' -ex 'break MPI_Wait' -ex run -ex 'wait 10' -ex status -ex 'continue' \
    -ex 'wait 10' -ex queues -ex 'continue' -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/lock_held" rput
  check_rc 0 &&
  check_contains "$out" "[0] hit breakpoint 1: MPI_Put(target=2, count=1)" "break MPI_Put (its target named)" &&
  check_contains "$(section status)" "[0] stopped at breakpoint 1 at MPI_Put(target=2, count=1)" "status at the breakpoint" &&
  check_contains "$out" "[1] hit breakpoint 2: MPI_Wait" "break MPI_Wait" &&
  check_matches "$(section queues)" '^    one-sided MPI_Rput\(target=3, count=1\) request 0x[0-9a-f]+$' "queues (the MPI_Rput request)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang (after the MPI_Rput)"
}

case_verdict_pscw_epochs_are_followed() {
  # pscw_mismatch (issue 23 item 2): rank 0's access epoch waits for a post
  # rank 1 never makes; rank 1 waits in the barrier for rank 0. Then the
  # other side: rank 1's exposure epoch waits for an access epoch rank 0
  # never opens. The runtime counts each rank's epochs per peer.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex queues -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/pscw_mismatch"
  check_rc 0 &&
  check_contains "$out" "[1-3] -> [0]  in MPI_Barrier (call 1 on MPI_COMM_WORLD)" "hang" &&
  check_matches "$out" '^  \[0\] -> \[1\]  in MPI_Win_(start|complete)\(win 0x[0-9a-f]+\): rank 1 has posted 0 exposure epochs to rank 0 \(MPI_Win_post\), rank 0 started 1 access epoch to it$' "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_not_contains "$out" "Not followed" "hang" &&
  check_matches "$out" '^\[0\] access epoch to rank 1 of win 0x[0-9a-f]+ open \(MPI_Win_start; 1 started, [01] completed\)$' "queues" || return 1
  # The wait side in JSON (validated against docs/json-schema.json).
  run_mpidbg 120 --json -ex run -ex 'wait 10' -ex hang -ex queues -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/pscw_mismatch" wait
  check_rc 0 &&
  json_check '
h = result("hang")
check(h["cycles"] == [[0, 1]], "hang (wait side): cycle 0 -> 1")
mine = [e for e in h["edges"] if e["from"] == 1]
check(len(mine) == 1 and mine[0]["to"] == 0 and re.fullmatch(r"MPI_Win_wait\(win 0x[0-9a-f]+\): rank 0 has completed 0 access "
      r"epochs to rank 1 \(MPI_Win_complete\), rank 1 posted 1 exposure epoch to it", mine[0]["why"]),
      "hang (wait side): rank 1 waits for rank 0: %s" % mine)
r1 = [r for r in result("queues")["per_rank"] if r["rank"] == 1][0]
check([{k: e[k] for k in ("peer", "started", "completed", "posted", "waited", "access", "exposure")} for e in r1["epochs"]] ==
      [{"peer": 0, "started": 0, "completed": 0, "posted": 1, "waited": 0, "access": False, "exposure": True}],
      "queues (wait side): rank 1 exposure epoch to rank 0 open")
'
}

case_verdict_matched_probe_cycle() {
  # mprobe_cycle (issue 23 item 9): ranks 0 and 1 each wait in MPI_Mprobe for
  # the other's message before sending their own.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/mprobe_cycle"
  check_rc 0 &&
  check_contains "$out" "  [0] blocked in MPI_Mprobe(source=1, tag=7, comm=MPI_COMM_WORLD) at mprobe_cycle.c:15 in main" "hang" &&
  check_contains "$out" "  [1] blocked in MPI_Mprobe(source=0, tag=7, comm=MPI_COMM_WORLD) at mprobe_cycle.c:15 in main" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_contains "$out" "Look first at ranks [0-1]: gdb [0-1] bt" "hang"
}

case_verdict_large_count_collective_mismatch() {
  # coll_mismatch_c (issue 23 item 1): MPI-4's large-count collectives,
  # blocking and nonblocking, count in the class of their int forms.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/coll_mismatch_c"
  check_rc 0 &&
  check_contains "$out" "MPI_COMM_WORLD: collective #1 differs: ranks [0-2] called MPI_Bcast_c(root=0), rank 3 called MPI_Ireduce_c(root=3)" "hang (the sequences)" &&
  check_contains "$out" "[0-2] in call 1 to MPI_Allreduce_c (counted with MPI_Allreduce) on MPI_COMM_WORLD at coll_mismatch_c.c:17 in main" "hang (the ranks)" &&
  check_matches "$out" '^  \[3\] -> \[0-2\]  in MPI_Wait: MPI_Ireduce_c\(root=3, count=1\) collective #1 request 0x[0-9a-f]+ \[waited\]$' "hang (the wait-for graph)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang"
}

case_verdict_persistent_collective_started_by_some() {
  # pcoll_partial (issue 23 items 1, 9): MPI-4's persistent collectives;
  # each MPI_Start counts the collective, a request never started is no call.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex collectives -ex queues -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/pcoll_partial"
  check_rc 0 &&
  check_contains "$out" "MPI_COMM_WORLD: collective #1 differs: ranks [0-2] called MPI_Allreduce_init, rank 3 called MPI_Barrier" "hang (the sequences)" &&
  check_matches "$out" '^  \[0-2\] -> \[3\]  in MPI_Wait: MPI_Allreduce_init\(count=1\) collective #1 request 0x[0-9a-f]+ \[persistent, started, waited\]$' "hang (the wait-for graph)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_contains "$(section collectives)" "Ranks [0-2] have not completed MPI_Allreduce_init (collective #1 on the communicator)." "collectives" &&
  check_not_contains "$(section collectives)" "Rank 3 has not completed" "collectives (rank 3's request was never started)" &&
  check_matches "$(section queues)" '^    collective MPI_Allreduce_init\(count=1\) request 0x[0-9a-f]+ \[persistent, not started\]$' "queues (rank 3's request)"
}

case_verdict_neighbourhood_collective_not_reached() {
  # neighbor_skip (issue 23 items 1, 9): a blocking neighbourhood collective
  # is a collective over its communicator: rank 3 never reaches it.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/neighbor_skip"
  check_rc 0 &&
  check_contains "$out" "  [3] blocked in MPI_Recv(source=0, tag=99, comm=MPI_COMM_WORLD) at neighbor_skip.c:19 in main" "hang (rank 3)" &&
  check_matches "$out" '^  \[0\] in call 1 to MPI_Neighbor_allgather \(counted with MPI_Allgather\) on comm 0x[0-9a-f]+ at neighbor_skip.c:20 in main$' "hang (rank 0)" &&
  check_matches "$out" '^  comm 0x[0-9a-f]+: collective calls issued: .*\[3\] 0$' "hang (the sequences)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang"
}

case_verdict_collective_io_skipped_by_one_rank() {
  # io_skip (issue 23 item 1): collective MPI-IO counts on the file's
  # communicator, so a skipped MPI_File_write_at_all is a sequence mismatch.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/io_skip"
  check_rc 0 &&
  check_contains "$out" "  [0-2] blocked in MPI_File_write_at_all at io_skip.c:30 in main" "hang (the writers)" &&
  check_contains "$out" "MPI_COMM_WORLD: collective #3 differs: ranks [0-2] called MPI_File_write_at_all, rank 3 called MPI_Barrier" "hang (the sequences)" &&
  check_contains "$out" "  [0-2] -> [3]  in MPI_File_write_at_all" "hang (the wait-for graph)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang"
}

case_verdict_nonblocking_collective_io_request_is_waited_through() {
  # io_iwait (issue 23 item 1): MPI_File_iwrite_all counts on the file's
  # communicator and its request is a collective operation: ranks 0-2 wait
  # in MPI_Wait on collective #3 for rank 3, which waits for rank 0.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex queues -ex collectives -ex hang -ex 'queues --memory 0' -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/io_iwait"
  check_rc 0 &&
  check_matches "$(section queues)" '^    collective MPI_File_iwrite_all\(count=4\) collective #3 request 0x[0-9a-f]+ \[waited\]$' "queues" &&
  check_contains "$(section collectives)" "  Ranks [0-2] have not completed MPI_File_iwrite_all (collective #3 on the communicator)." "collectives" &&
  check_contains "$out" "  [3] blocked in MPI_Recv(source=0, tag=9, comm=MPI_COMM_WORLD) at io_iwait.c:39 in main" "hang (rank 3)" &&
  check_matches "$out" '^  \[[0-2]+(-2)?\] -> \[3\]  in MPI_Wait: MPI_File_iwrite_all\(count=4\) collective #3 request 0x[0-9a-f]+ \[waited\]$' "hang (the wait-for graph)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 3 -> 0" "hang" &&
  check_not_contains "$out" "its requests are not known" "hang" &&
  check_contains "$(section 'queues --memory 0')" "MPI_File_iwrite_all" "queues --memory (the mqs DLL)"
}

case_verdict_intercommunicator_bcast_waits_for_its_root() {
  # inter_bcast (issue 23): on an intercommunicator the odd group waits in
  # MPI_Bcast for the even group's root (world rank 0) alone, not for world
  # rank 2, which passed MPI_PROC_NULL and went on to MPI_Barrier.
  run_mpidbg 120 -ex run -ex 'wait 10' -ex collectives -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/inter_bcast"
  check_rc 0 &&
  # One communicator of both groups, whatever handles MPICH gives its members.
  check_contains "$(section collectives)" "  Ranks [1,3] are in call 1 to MPI_Bcast at inter_bcast.c:23 in main." "collectives" &&
  check_contains "$(section collectives)" "  Rank 2 has made 1 call to MPI_Bcast and is blocked in MPI_Barrier" "collectives (MPI_PROC_NULL counts)" &&
  check_not_contains "$(section collectives)" "did not report" "collectives (every member answered)" &&
  # MPICH gives ranks 1 and 3 different handles for it: two lines.
  check_matches "$out" '^  \[1\] -> \[0\]  in MPI_Bcast\(root=0\) \(call 1 on comm 0x[0-9a-f]+\)$' "hang (rank 1 waits for the root)" &&
  check_matches "$out" '^  \[3\] -> \[0\]  in MPI_Bcast\(root=0\) \(call 1 on comm 0x[0-9a-f]+\)$' "hang (rank 3 waits for the root)" &&
  check_contains "$out" "  [2] -> [0-1,3]  in MPI_Barrier (call 1 on MPI_COMM_WORLD)" "hang (rank 2 passed MPI_PROC_NULL)" &&
  check_not_contains "$out" "-> [2]  in MPI_Bcast" "hang (not for MPI_PROC_NULL)" &&
  check_not_contains "$out" "entered on different communicators" "hang (one intercommunicator)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang"
}

case_verdict_intercommunicator_receives_name_the_remote_group() {
  # inter_cycle (issue 23 item 1): MPI_Intercomm_create is seen, and its
  # communicator is registered by its remote group, whose ranks the
  # receives name (read as the local group, rank 0 would wait for itself).
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/inter_cycle"
  check_rc 0 &&
  check_matches "$out" '^  \[0\] -> \[1\]  in MPI_Recv\(source=0, tag=9, comm=comm 0x[0-9a-f]+\)$' "hang (rank 0 waits for the remote group's rank 0)" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_contains "$out" "Deadlock: cycle 2 -> 3 -> 2" "hang" &&
  check_not_contains "$out" "for itself" "hang (no self-wait)"
}

case_verdict_large_count_recv_cycle() {
  # recv_cycle_c (issue 23 item 1): MPI-4's MPI_Recv_c and MPI_Send_c are
  # interposed as MPI_Recv and MPI_Send are: seen in the verdict, and
  # breakpoint targets with their arguments.
  # Ranks 2 and 3 wait on MPI_Irecv_c requests (the nonblocking forms too).
  run_mpidbg 120 -ex run -ex 'wait 10' -ex hang -ex queues -ex 'queues --memory 0' -ex kill -- "$mpiexec" -n 4 "$verdict_hangs/recv_cycle_c"
  check_rc 0 &&
  # From memory too (the mqs DLL derives blocking calls from the same table).
  check_contains "$(section 'queues --memory 0')" "    receive MPI_Recv_c(source=1, tag=3) [blocking]" "queues --memory" &&
  check_contains "$out" "  [0] blocked in MPI_Recv_c(source=1, tag=3, comm=MPI_COMM_WORLD) at recv_cycle_c.c:17 in main" "hang" &&
  check_contains "$out" "Deadlock: cycle 0 -> 1 -> 0" "hang" &&
  check_matches "$out" '^  \[2\] -> \[3\]  in MPI_Wait: MPI_Irecv_c\(source=3, tag=4, count=1\) request 0x[0-9a-f]+ \[waited\]$' "hang" &&
  check_contains "$out" "Deadlock: cycle 2 -> 3 -> 2" "hang" &&
  check_contains "$(section queues)" "    receive MPI_Recv_c(source=1, tag=3) [blocking]" "queues (the blocking large-count receive)" || return 1
  run_mpidbg 120 -ex 'break MPI_Recv_c if source == 0' -ex run -ex 'wait 10' -ex kill -- \
    "$mpiexec" -n 4 "$verdict_hangs/recv_cycle_c"
  check_rc 0 &&
  check_matches "$out" '^\[1\] hit breakpoint 1: MPI_Recv_c\(source=0, tag=3, count=1, comm=MPI_COMM_WORLD\)' "the breakpoint" &&
  check_not_contains "$out" "[0] hit breakpoint" "the condition"
}
