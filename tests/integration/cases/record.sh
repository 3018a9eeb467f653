# Record and replay of message-matching decisions (issue 11; docs/commands.md,
# "Record and replay"): examples/race, a wildcard-receive race whose checksum
# depends on arrival order.

race="$examples/race"

# record_failing_run DIR: records runs of the race (6 rounds, a short delay so
# that the race is lost often) until one computes the wrong checksum; sets
# race_line to its checksum line. Fails after 25 tries.
record_failing_run() {
  local dir="$1" try
  for try in $(seq 1 25); do
    run_mpidbg 60 --record "$dir" -ex run -ex 'wait 30' -ex 'wait 30' -- "$mpiexec" -n 4 "$race" 6 200
    if grep -q "the arrival order changed the sum" <<<"$out"; then
      race_line="$(grep -m1 '^race: checksum' <<<"$out")"
      echo "    failing run recorded on try $try: $race_line"
      return 0
    fi
  done
  echo "    no failing run in 25 tries"
  return 1
}

case_record_failing_run_replays_ten_times_identically() {
  record_failing_run "$work/rec" || return 1
  "$mpidbg" record show "$work/rec" >"$work/show" 2>&1
  check_contains "$(cat "$work/show")" "bytes per decision" "record show" || return 1
  local i
  for i in $(seq 1 10); do
    run_mpidbg 60 --replay "$work/rec" --record "$work/replay$i" -ex run -ex 'wait 30' -ex 'wait 30' -- \
      "$mpiexec" -n 4 "$race" 6 200
    check_contains "$out" "$race_line" "replay $i's checksum" || return 1
    check_not_contains "$out" "diverged" "replay $i" || return 1
    "$mpidbg" record compare "$work/rec" "$work/replay$i" >"$work/cmp" 2>&1
    local crc=$?
    if [ $crc -ne 0 ]; then
      echo "    replay $i took other decisions:"; sed 's/^/      /' "$work/cmp"
      return 1
    fi
  done
}

case_record_replay_overrides_timing_and_combines_with_breakpoints() {
  record_failing_run "$work/rec2" || return 1
  # A long delay makes the race's natural order the right one; replay still
  # takes the recorded wrong one. A breakpoint stops rank 0 on the way.
  run_mpidbg 90 --replay "$work/rec2" -ex 'break [0] MPI_Waitany' -ex run -ex 'wait 30' -ex status \
    -ex 'delete 1' -ex c -ex 'wait 30' -ex 'wait 30' -- "$mpiexec" -n 4 "$race" 6 20000
  check_contains "$out" "[0] hit breakpoint 1: MPI_Waitany(" "the breakpoint" &&
  check_contains "$out" "$race_line" "the replayed checksum" &&
  check_not_contains "$out" "diverged" "the replay"
}

case_record_tampered_log_stops_with_a_divergence() {
  record_failing_run "$work/rec3" || return 1
  # One byte of rank 0's log changed: its checksum no longer holds.
  python3 - "$work/rec3/rank-0.rec" <<'PY'
import sys
p = sys.argv[1]
b = bytearray(open(p, 'rb').read())
b[17] ^= 1
open(p, 'wb').write(bytes(b))
PY
  run_mpidbg 60 --replay "$work/rec3" -ex run -ex 'wait 30' -ex 'info record' -ex kill -- "$mpiexec" -n 4 "$race" 6 200
  check_contains "$out" "[0] stopped at MPI_Recv(source=MPI_ANY_SOURCE, tag=0, comm=MPI_COMM_WORLD) (replay diverged: decision #1: the record cannot be replayed: " "the divergence event" &&
  check_contains "$out" "rank-0.rec: checksum mismatch (the record was changed after it was written)" "the reason" &&
  check_contains "$out" "[0] replayed 0 of 0 decisions, diverged at decision #1: the record cannot be replayed" "info record" &&
  check_not_contains "$err" "replay diverged" "stderr (the rank tells the front end, not the application's stderr)"
}

case_record_program_asking_for_more_diverges_where_the_record_ends() {
  record_failing_run "$work/rec4" || return 1
  # Nine rounds against a record of six: the seventh round's first probe
  # (round 6 collects with MPI_Iprobe) has no recorded decision. After the
  # report, continue runs on unreplayed.
  run_mpidbg 90 --replay "$work/rec4" -ex run -ex 'wait 30' -ex 'info record' -ex c -ex 'wait 30' -ex 'wait 30' -- \
    "$mpiexec" -n 4 "$race" 9 200
  check_contains "$out" "[0] stopped at MPI_Iprobe(source=MPI_ANY_SOURCE, tag=6, comm=MPI_COMM_WORLD) (replay diverged: decision #" "the divergence event" &&
  check_contains "$out" "the program asks for MPI_Iprobe but the record ends after " "the reason" &&
  check_contains "$out" "(the recorded run made no more)" "the reason" &&
  check_contains "$out" "race: checksum " "the job ran to its end after continue"
}

case_record_info_record_counts_decisions() {
  run_mpidbg 60 --record "$work/rec5" -ex 'break [0] MPI_Finalize' -ex run -ex 'wait 30' -ex 'info record' \
    -ex 'delete 1' -ex c -ex 'wait 30' -ex 'wait 30' -- "$mpiexec" -n 4 "$race" 3 200
  # Round 0: 3 wildcard MPI_Recv; round 1: 3 MPI_Irecv matches and 3
  # MPI_Waitany; round 2: 3 successful MPI_Iprobe (and any failed ones).
  check_contains "$out" "[0] recorded " "info record" &&
  # (MPI_Iprobe and MPI_Test also count the polls that found nothing.)
  check_contains "$out" "(MPI_Recv 3, MPI_Iprobe " "info record" &&
  check_contains "$out" ", MPI_Irecv 3, MPI_Test " "info record" &&
  check_contains "$out" ", MPI_Waitany 3), " "info record" &&
  check_contains "$out" "[1-3] recorded 0 decisions, " "info record of the senders" &&
  [ -s "$work/rec5/rank-0.rec" ] || { echo "    no log written"; return 1; }
}

case_record_usage_errors() {
  run_mpidbg 30 --replay "$work/no-such-dir" -- "$mpiexec" -n 4 "$race"
  check_rc 64 &&
  check_contains "$err" "--replay: $work/no-such-dir is not a directory" "stderr" || return 1
  mkdir -p "$work/same"
  cp "$work/rec5/rank-0.rec" "$work/same/" 2>/dev/null || printf 'MPIDBGR1\0\0\0\0\4\0\0\0' >"$work/same/rank-0.rec"
  run_mpidbg 30 --replay "$work/same" --record "$work/same" -- "$mpiexec" -n 4 "$race"
  check_rc 64 &&
  check_contains "$err" "--record and --replay name the same directory" "stderr" || return 1
  run_mpidbg 30 record compare "$work/same"
  check_rc 64
}

case_record_info_record_json() {
  # Validated against docs/json-schema.json (json_check, cases/json.sh).
  run_mpidbg 60 --json --record "$work/rec6" -ex 'break [0] MPI_Finalize' -ex run -ex 'wait 30' \
    -ex 'info record' -ex 'delete 1' -ex c -ex 'wait 30' -ex 'wait 30' -- "$mpiexec" -n 4 "$race" 3 200
  json_check '
records = result("info record")["records"]
check([r["rank"] for r in records] == [0, 1, 2, 3], "one record per rank")
r0 = records[0]
check(r0["record_path"].endswith("/rank-0.rec") and r0["by_function"]["MPI_Recv"] == 3, "rank 0 recorded 3 MPI_Recv matches")
check(r0["by_function"]["MPI_Irecv"] == 3 and r0["by_function"]["MPI_Waitany"] == 3, "rank 0: MPI_Irecv and MPI_Waitany")
check(all(r["recorded"] == 0 and not r["replaying"] for r in records[1:]), "the senders decide nothing")
'
}

case_record_show_json_survives_a_path_that_is_not_utf8() {
  # A path is bytes: its error must reach the JSON as text (U+FFFD for the
  # invalid byte), not abort mpidbg.
  run_mpidbg 30 record show --json "$work/missing-"$'\xff'"-rec"
  check_rc 65 &&
  python3 -c '
import json, sys
doc = json.loads(sys.stdin.read())
assert doc["logs"] == [], doc
assert len(doc["errors"]) == 1 and "missing-\ufffd-rec" in doc["errors"][0], doc
' <<<"$out" || { echo "    expected one JSON object with the error on stdout, got: $out"; return 1; }
}
