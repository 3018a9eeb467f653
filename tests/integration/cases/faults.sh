# Faults and security on real jobs (issue 10): the launcher killed mid-session, the session key kept out of command lines and
# readable only by its owner, the ranks' servers on loopback. The harness
# checks after every case that no process carrying its marker is left.
# Sourced by tests/integration/run.

# (A rank killed mid-session is case_slurm_rank_killed_mid_session_the_rest_
# stay_debuggable in slurm.sh: under Hydra the proxy kills every other rank
# with SIGKILL when one dies, even with -disable-auto-cleanup (seen with
# strace: kill(-pid, SIGKILL) from hydra_pmi_proxy), while srun leaves them
# running. The tree routing around a rank that stops answering without
# ending is case_tree_reports_a_stopped_rank_as_missing.)

# The pid of rank R from the `ranks` table in $work/out.
fault_rank_pid() { awk -v r="$1" '$1 == r && $3 ~ /^[0-9]+$/ {print $3; exit}' "$work/out"; }

case_faults_launcher_killed_mid_session_is_reported_and_cleaned_up() {
  start_session -- "$mpiexec" -n 3 "$examples/spin" 30
  send_command ranks '^2 ' || { end_session; return 1; }
  send_command run 'Continuing' || { end_session; return 1; }
  local launcher
  launcher="$(pgrep -f -n "^$mpiexec -n 3 $examples/spin 30")"
  [ -n "$launcher" ] || { echo "    no launcher process found"; end_session; return 1; }
  kill -KILL "$launcher"
  send_command 'wait 20' 'The job has ended|launcher' || true
  send_command 'status' '.' || true
  echo quit >&7
  exec 7>&-
  wait "$session_pid"; rc=$?
  out="$(cat "$work/out")"; err="$(cat "$work/err")"
  # The ranks are the launcher's children: mpidbg must not leave them running
  # (the harness's leftover check fails the case otherwise).
  grep -qE 'launcher (was killed|exited|ended).*signal 9|killed by signal 9' <<<"$out$err" ||
    { echo "    expected the launcher's death (signal 9) to be reported"; return 1; }
  check_contains "$out" "The job has ended" "wait after the launcher died"
}

case_faults_session_key_not_on_command_lines_nor_readable_by_others() {
  start_session -- "$mpiexec" -n 2 "$examples/spin" 30
  send_command ranks '^1 ' || { end_session; return 1; }
  local rank1 keyfile key hits="" p
  rank1="$(fault_rank_pid 1)"
  keyfile="$(tr '\0' '\n' <"/proc/$rank1/environ" | sed -n 's/^MPIDBG_KEY_FILE=//p')"
  key="$(cat "$keyfile" 2>/dev/null)"
  local file_mode dir_mode
  file_mode="$(stat -c %a "$keyfile" 2>/dev/null)"
  dir_mode="$(stat -c %a "$(dirname "$keyfile")" 2>/dev/null)"
  # Every process's command line and environment values, searched for the key.
  for p in /proc/[0-9]*; do
    if { tr '\0' '\n' <"$p/cmdline"; } 2>/dev/null | grep -F -- "$key" >/dev/null; then hits+=" ${p#/proc/}(cmdline)"; fi
    if { tr '\0' '\n' <"$p/environ"; } 2>/dev/null | grep -F -- "$key" >/dev/null; then hits+=" ${p#/proc/}(environ)"; fi
  done
  end_session
  [ -n "$keyfile" ] || { echo "    the rank has no MPIDBG_KEY_FILE"; return 1; }
  [ "${#key}" -eq 64 ] || { echo "    expected a 64-hex-digit key in $keyfile"; return 1; }
  [ "$file_mode" = "600" ] || { echo "    key file mode $file_mode, expected 600"; return 1; }
  [ "$dir_mode" = "700" ] || { echo "    session directory mode $dir_mode, expected 700"; return 1; }
  [ -z "$hits" ] || { echo "    the key appears in:$hits"; return 1; }
  [ ! -e "$keyfile" ] || { echo "    the key file outlived the session"; return 1; }
}

case_faults_rank_servers_listen_on_loopback_only() {
  start_session -- "$mpiexec" -n 2 "$examples/spin" 30
  send_command ranks '^1 ' || { end_session; return 1; }
  local rank0 rank1 listening
  rank0="$(fault_rank_pid 0)"; rank1="$(fault_rank_pid 1)"
  # Every TCP socket the ranks listen on (ss -p names the owning pid).
  local sockets ss_rc
  sockets="$(ss -Hltnp 2>&1)"; ss_rc=$?
  listening="$(grep -E "pid=($rank0|$rank1)," <<<"$sockets")"
  end_session
  [ -n "$listening" ] || {
    echo "    no listening socket found for the ranks (pids '$rank0' '$rank1'; ss -Hltnp exit $ss_rc):"
    sed 's/^/      | /' <<<"$sockets"
    return 1
  }
  echo "$listening" | sed 's/^/    | /'
  # The runtime's CCS servers: 127.0.0.1 only. (MPICH's own sockets are not mpidbg's.)
  local ccs
  ccs="$(awk '$1 ~ /^[0-9]+$/ {print $4}' "$work/out" | sort -u)"
  for endpoint in $ccs; do
    case "$endpoint" in
      127.0.0.1:*) ;;
      *) echo "    rank CCS endpoint $endpoint is not loopback"; return 1 ;;
    esac
    grep -qF " $endpoint " <<<"$listening" ||
      { echo "    $endpoint is not among the ranks' listening sockets"; return 1; }
  done
}

case_faults_crash_reaches_the_programs_handler_with_its_siginfo() {
  # crash --own-handler: rank 1's null dereference goes through the runtime's
  # hook (the front end hears of it) and on to the program's own SIGSEGV
  # handler, which must get the kernel's siginfo: SEGV_MAPERR (1) at address
  # (nil). A hook that re-raised gave it SI_TKILL (-6) and our own pid.
  run_mpidbg 60 -ex run -ex 'wait 30' -ex kill -- "$mpiexec" -n 2 "$examples/crash" --own-handler
  check_contains "$out" "[1] exited with signal 11 (Segmentation fault)" "the front end's report of the signal" &&
  check_contains "$out" "crash: signal 11 reached the program's handler with si_code 1, address (nil)" \
    "the program handler's line"
}

case_faults_ranks_dying_during_run_are_not_a_failed_continue() {
  # crash --abort-at-init: every rank aborts the moment 'run' lets it go, so
  # the continue's replies never come (the tree root dies before it answers,
  # the retry finds no rank). Ranks that ended meanwhile are not stopped any
  # more: 'run' succeeds, their ends are reported, and mpidbg exits with the
  # launcher's code, not 65 (a failed command).
  run_mpidbg 60 -ex run -ex 'wait 30' -- "$mpiexec" -n 3 "$examples/crash" --abort-at-init
  check_contains "$out" "Continuing ranks [0-2]." "run's reply" &&
  check_not_contains "$err" "cannot continue" "stderr" &&
  check_matches "$out" '^\[[0-9,-]+\] exited with signal 6 \(Aborted\)$' "the ranks' ends" &&
  if [ "$rc" = 65 ] || [ "$rc" = 0 ]; then echo "    expected the launcher's exit code (a rank aborted), got $rc"; return 1; fi
}
