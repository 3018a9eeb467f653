# gdb for ranks on another host (issue 6): the rank's runtime starts
# gdbserver, the front end's gdb connects with `target extended-remote`.
# Hydra places the ranks on two "hosts" (-launcher fork: both are this
# machine); MPIDBG_GDB_REMOTE=always forces the gdbserver path, since
# every rank reports this machine's host name. Sourced by tests/integration/run.

two_hosts=(-launcher fork -hosts localhost,127.0.0.2)

# gdbserver processes carrying this case's marker (so started under mpidbg).
marked_gdbservers() {
  local p
  for p in $(leftovers); do
    [ "$(cat "/proc/$p/comm" 2>/dev/null)" = gdbserver ] && echo "$p"
  done
}

case_gdb_remote_bt_through_gdbserver_then_detach() {
  MPIDBG_GDB_REMOTE=always run_mpidbg 180 -ex ranks -ex 'gdb --keep [2-3] bt' -ex 'gdb 3 info inferiors' -ex status \
    -ex 'gdb detach all' -ex status -ex run -ex wait -- "$mpiexec" "${two_hosts[@]}" -n 4 "$examples/ring"
  check_rc 0 &&
  # Hydra places ranks 1 and 3 on "host" 127.0.0.2: their servers bind it.
  check_matches "$out" '^1 +[^ ]+ +[0-9]+ +127\.0\.0\.2:[0-9]+ ' "rank 1's CCS server on its host's address" &&
  check_matches "$out" '^2 +[^ ]+ +[0-9]+ +127\.0\.0\.1:[0-9]+ ' "rank 2's CCS server on localhost" &&
  check_contains "$out" " in main (" "gdb bt (a real frame of the rank)" &&
  check_contains "$out" "MPI_Init" "gdb bt (frozen in MPI_Init)" &&
  check_contains "$out" "extended-remote 127.0.0.2:" "info inferiors (through gdbserver on rank 3's host)" &&
  check_contains "$out" "[2-3] stopped by gdb" "status while gdb holds the ranks" &&
  check_contains "$out" "[2-3] detached" "gdb detach" &&
  check_contains "$out" "[0-3] frozen" "status after detach" &&
  check_contains "$out" "ring: token 18 after 3 laps (expected 18): ok" "the job finished"
}

case_gdb_remote_gdbserver_ends_after_detach() {
  MPIDBG_GDB_REMOTE=always start_session -- "$mpiexec" "${two_hosts[@]}" -n 4 "$examples/ring"
  send_command 'gdb --keep 1 info threads' 'Target Id' 60 || { end_session; return 1; }
  local servers
  servers="$(marked_gdbservers)"
  send_command 'gdb detach 1' '\[1\] detached' 60 || { end_session; return 1; }
  local i
  for i in $(seq 1 100); do [ -z "$(marked_gdbservers)" ] && break; sleep 0.1; done
  local after
  after="$(marked_gdbservers)"
  send_command 'status 1' '^\[1\] frozen' || { end_session; return 1; }
  end_session
  [ "$(wc -w <<<"$servers")" -eq 1 ] || { echo "    expected one gdbserver while attached, got: '$servers'"; return 1; }
  [ -z "$after" ] || { echo "    gdbserver still running after 'gdb detach': $after"; return 1; }
  check_contains "$out" "[1] detached" "gdb detach"
}

case_gdb_remote_gdbserver_missing_is_a_clear_error() {
  MPIDBG_GDB_REMOTE=always MPIDBG_GDBSERVER=/nonexistent/gdbserver run_mpidbg 120 -ex 'gdb 1 bt' -ex status -ex kill -- \
    "$mpiexec" "${two_hosts[@]}" -n 2 "$examples/ring"
  check_rc 65 &&
  check_contains "$err" "error: [1] cannot start gdbserver for rank 1 (pid " "stderr" &&
  check_contains "$err" "gdbserver '/nonexistent/gdbserver' (MPIDBG_GDBSERVER) is not an executable file" "stderr" &&
  check_contains "$out" "[0-1] frozen" "status after the failure (rank 1 not held)"
}

case_gdb_remote_refused_when_rank_is_traced() {
  # strace traces rank 1 but lets it run, so its runtime can answer: it
  # refuses to start gdbserver and names the tracer.
  command -v strace >/dev/null || { echo "    strace is not installed"; return 1; }
  MPIDBG_GDB_REMOTE=always start_session -- "$mpiexec" "${two_hosts[@]}" -n 2 "$examples/ring"
  send_command ranks '^1 ' || { end_session; return 1; }
  local rank1 i
  rank1="$(awk '$1 == "1" {print $3}' "$work/out")"
  env MPIDBG_IT_MARKER="$work" strace -q -p "$rank1" -o /dev/null &
  local tracer=$!
  for i in $(seq 1 100); do grep -q "TracerPid:[[:space:]]*[1-9]" "/proc/$rank1/status" 2>/dev/null && break; sleep 0.1; done
  echo 'gdb 1 bt' >&7
  for i in $(seq 1 100); do grep -q "error: \[1\]" "$work/err" && break; sleep 0.1; done
  send_command 'status 1' '^\[1\] frozen' || true
  kill "$tracer" 2>/dev/null; wait "$tracer" 2>/dev/null
  end_session
  check_contains "$err" "error: [1] cannot start gdbserver for rank 1 (pid $rank1) on host " "stderr" &&
  check_contains "$err" "is already traced by process $tracer (strace); detach that tracer first" "stderr" &&
  check_contains "$out" "[1] frozen" "status after the refusal"
}

case_gdb_remote_unused_gdbserver_is_stopped() {
  # Ask rank 1's runtime for a gdbserver directly (as the front end would)
  # with a 1 s connect bound, and never connect: the runtime must stop it.
  start_session -- "$mpiexec" "${two_hosts[@]}" -n 2 "$examples/ring"
  send_command ranks '^1 ' || { end_session; return 1; }
  local endpoint pid key reply server i
  endpoint="$(awk '$1 == "1" {print $4}' "$work/out")"
  pid="$(awk '$1 == "1" {print $3}' "$work/out")"
  key="$(tr '\0' '\n' <"/proc/$pid/environ" | sed -n 's/^MPIDBG_KEY_FILE=//p')"
  reply="$("$ccstool" --tls-key-file "$key" --pe 1 "$endpoint" mpidbg/gdbserver --data 'connecttimeout=1000' --timeout 15000 2>&1)"
  server="$(sed -n 's/^serverpid=//p' <<<"$reply")"
  local alive=no
  [ -n "$server" ] && [ "$(cat "/proc/$server/comm" 2>/dev/null)" = gdbserver ] && alive=yes
  for i in $(seq 1 50); do [ -z "$(marked_gdbservers)" ] && break; sleep 0.1; done
  local after
  after="$(marked_gdbservers)"
  send_command 'status 1' '^\[1\] frozen' || true
  end_session
  check_contains "$reply" "host=127.0.0.2" "the runtime's reply (gdbserver on rank 1's host address)" &&
  check_contains "$reply" "pid=$pid" "the runtime's reply" &&
  check_contains "$alive" "yes" "gdbserver running after the reply (pid '$server')" &&
  { [ -z "$after" ] || { echo "    gdbserver not stopped after the connect bound: $after"; false; }; } &&
  check_contains "$out" "[1] mpidbg-rt: no gdb connected to gdbserver (pid $server" "the rank's words, told to the front end" &&
  check_not_contains "$err" "no gdb connected" "stderr" &&
  check_contains "$out" "[1] frozen" "status after (the rank keeps serving)"
}

case_gdb_remote_frontend_killed_while_gdb_holds_a_rank() {
  # mpidbg dies (SIGKILL) while its gdb holds rank 1 through gdbserver: gdb,
  # gdbserver and the ranks must not stay behind; the ranks resume and the
  # job finishes by itself.
  local fifo="$work/stdin"
  rm -f "$fifo"; mkfifo "$fifo"
  env MPIDBG_IT_MARKER="$work" MPIDBG_GDB_REMOTE=always "$mpidbg" -- "$mpiexec" "${two_hosts[@]}" -n 3 \
    "$examples/ring" <"$fifo" >"$work/out" 2>"$work/err" &
  local pid=$! i
  exec 7>"$fifo"
  echo 'gdb --keep 1 bt' >&7
  for i in $(seq 1 300); do grep -q " in main (" "$work/out" && break; sleep 0.1; done
  local servers
  servers="$(marked_gdbservers)"
  kill -9 $pid
  wait $pid 2>/dev/null
  exec 7>&-
  for i in $(seq 1 300); do grep -q "ring: token" "$work/out" && break; sleep 0.1; done
  for i in $(seq 1 100); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
  out="$(cat "$work/out")"; err="$(cat "$work/err")"
  check_contains "$out" " in main (" "gdb bt before the front end died" &&
  { [ "$(wc -w <<<"$servers")" -eq 1 ] || { echo "    expected one gdbserver while attached, got: '$servers'"; false; }; } &&
  check_contains "$out" "ring: token 9 after 3 laps (expected 9): ok" "the job's output after the front end died"
}
