# The debugger's own end (docs/commands.md, "Invocation"): SIGTERM or SIGHUP
# to mpidbg ends the job it started, then mpidbg.

case_sigterm_to_mpidbg_ends_its_job() {
  start_session -- "$mpiexec" -n 2 "$examples/spin" 60
  send_command run 'Continuing' || { end_session; return 1; }
  send_command ranks '^1 ' || { end_session; return 1; }
  local pids p state left=""
  pids="$(awk '$1 ~ /^[01]$/ && $3 ~ /^[0-9]+$/ {print $3}' "$work/out")"
  kill -TERM "$session_pid"
  # mpidbg's input stays open until it has ended: an end of input that came
  # first would end the session normally (exit 0), and the SIGTERM, which
  # timeout(1) (the session's process) forwards when it is next scheduled, can
  # come after it on a busy machine (CI sim 54).
  local i
  for i in $(seq 1 300); do
    [ "$(awk '{print $3}' "/proc/$session_pid/stat" 2>/dev/null)" = Z ] && break
    [ -e "/proc/$session_pid" ] || break
    sleep 0.1
  done
  exec 7>&-
  wait "$session_pid"; rc=$?
  out="$(cat "$work/out")"; err="$(cat "$work/err")"
  sleep 1
  # A zombie has ended: its parent died and PID 1 reaps it when it will.
  for p in $pids; do
    state="$(awk '{print $3}' "/proc/$p/stat" 2>/dev/null || true)"
    [ -n "$state" ] && [ "$state" != Z ] && left="$left $p($state)"
  done
  check_rc 143 || return 1
  if [ -n "$left" ]; then echo "    ranks still running after SIGTERM to mpidbg:$left"; return 1; fi
}
