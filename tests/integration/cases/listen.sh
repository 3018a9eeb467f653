# Where the front end listens for the ranks (mpidbg --listen, issue 9): on
# this host's address the ranks' servers follow it off loopback, so a front
# end and ranks on different hosts reach each other. Sourced by
# tests/integration/run.

# this_host_address: the first IPv4 address of an interface that is up and
# not loopback (what --listen host picks when the host name maps to
# loopback, as on Debian), or nothing.
this_host_address() {
  ip -4 -o addr show up 2>/dev/null | awk '$2 != "lo" { sub(/\/.*/, "", $4); print $4; exit }'
}

# listening_address PORT: the local address of the TCP listener on PORT.
listening_address() {
  ss -ltnH "sport = :$1" | awk '{ print $4 }' | sed 's/:[0-9]*$//' | head -1
}

# frontend_of PID: the MPIDBG_FRONTEND a rank was given.
frontend_of() {
  tr '\0' '\n' <"/proc/$1/environ" 2>/dev/null | sed -n 's/^MPIDBG_FRONTEND=//p'
}

# read_listen_facts RANK: in a running session whose front end listens off
# loopback, sets port (the hub's, from its notice), listener (the address
# bound on that port), rank_pid and frontend (RANK's MPIDBG_FRONTEND).
read_listen_facts() {
  port="$(sed -n 's/^Listening for the ranks on [0-9.]*:\([0-9]*\);.*/\1/p' "$work/out" "$work/err" | head -1)"
  listener="$(listening_address "$port")"
  rank_pid="$(awk -v rank="$1" '$1 == rank { print $3 }' "$work/out" | head -1)"
  frontend="$(frontend_of "$rank_pid")"
}

case_listen_host_ranks_on_two_hosts_register_off_loopback() {
  local address
  address="$(this_host_address)"
  if [ -z "$address" ]; then
    run_mpidbg 60 --listen host -ex ranks -- "$mpiexec" -n 2 "$examples/ring"
    check_rc 69 && check_contains "$err" "has no IPv4 address other hosts can reach" "stderr without an interface"
    return
  fi
  # No TMPDIR: the session (and its key file) goes under $HOME, which the
  # hosts of a cluster share.
  mkdir -p "$work/home"
  TMPDIR= HOME="$work/home" start_session --listen host -- "$mpiexec" -launcher fork -hosts localhost,127.0.0.2 -n 4 "$examples/ring"
  send_command ranks '^3 +' || { end_session; return 1; }
  local port listener rank_pid frontend keyfile
  read_listen_facts 3
  keyfile="$(tr '\0' '\n' <"/proc/$rank_pid/environ" 2>/dev/null | sed -n 's/^MPIDBG_KEY_FILE=//p')"
  send_command run 'Continuing' || { end_session; return 1; }
  send_command wait 'has ended' || { end_session; return 1; }
  end_session
  check_contains "$(cat "$work/out" "$work/err")" "Listening for the ranks on $address:$port; ranks on other hosts read the session key from $keyfile, so that directory must be one they share (it is under \$HOME; set TMPDIR to choose another)" "the notice" &&
  check_matches "$keyfile" "^$work/home/\.mpidbg/mpidbg-[^/]+/key\$" "rank 3's MPIDBG_KEY_FILE" &&
  { [ ! -e "$(dirname "$keyfile")" ] || { echo "    the session directory is left behind: $(dirname "$keyfile")"; false; }; } &&
  check_contains "$listener" "$address" "the front end's listener (ss, port '$port')" &&
  check_contains "$frontend" "$address:$port" "rank 3's MPIDBG_FRONTEND (pid '$rank_pid')" &&
  # Every rank's server binds the address its route to the front end leaves
  # from (here the same interface), Hydra's 127.0.0.2 host included.
  check_matches "$out" "^0 +[^ ]+ +[0-9]+ +${address//./\\.}:[0-9]+ " "rank 0's server" &&
  check_matches "$out" "^3 +[^ ]+ +[0-9]+ +${address//./\\.}:[0-9]+ " "rank 3's server (Hydra host 127.0.0.2)" &&
  check_contains "$out" "ring: token 18 after 3 laps (expected 18): ok" "the job finished"
}

case_listen_any_and_a_loopback_address() {
  local address
  address="$(this_host_address)"
  if [ -n "$address" ]; then
    mkdir -p "$work/home"
    HOME="$work/home" start_session --listen any -- "$mpiexec" -n 2 "$examples/ring"
    send_command ranks '^1 +' || { end_session; return 1; }
    local port listener rank_pid frontend
    read_listen_facts 1
    send_command kill 'Killed the job' || { end_session; return 1; }
    end_session
    check_contains "$listener" "0.0.0.0" "the wildcard listener (port '$port')" &&
    check_contains "$frontend" "$address:$port" "rank 1's MPIDBG_FRONTEND: the host's address, not 0.0.0.0" || return 1
  fi
  # Another loopback address: the ranks stay on loopback.
  start_session --listen 127.0.0.5 -- "$mpiexec" -n 2 "$examples/ring"
  send_command ranks '^1 +' || { end_session; return 1; }
  local pid0 frontend0
  pid0="$(awk '$1 == "0" { print $3 }' "$work/out" | head -1)"
  frontend0="$(frontend_of "$pid0")"
  send_command run 'Continuing' || { end_session; return 1; }
  send_command wait 'has ended' || { end_session; return 1; }
  end_session
  check_matches "$frontend0" '^127\.0\.0\.5:[0-9]+$' "rank 0's MPIDBG_FRONTEND" &&
  check_matches "$out" '^0 +[^ ]+ +[0-9]+ +127\.0\.0\.1:[0-9]+ ' "rank 0's server on loopback" &&
  check_not_contains "$(cat "$work/out" "$work/err")" "Listening for the ranks" "output (no notice for loopback)" &&
  check_contains "$out" "ring: token 3 after 3 laps (expected 3): ok" "the job finished"
}

case_listen_refusals_and_the_timeout_hint() {
  run_mpidbg 60 --listen no-such-host.invalid -ex ranks -- "$mpiexec" -n 2 "$examples/ring"
  check_rc 69 &&
  check_contains "$err" "cannot start the job: --listen: 'no-such-host.invalid' has no IPv4 address" "stderr" &&
  check_contains "$err" "(expected loopback, host, any, an IPv4 address or a host name)" "stderr" || return 1
  # A program that never registers: the timeout names both likely causes.
  run_mpidbg 60 --register-timeout 2 -ex ranks -- "$mpiexec" -n 1 sleep 20
  check_rc 69 &&
  check_contains "$err" "timed out after 2 s waiting for ranks to register (0 of ? registered) (is the program an MPI program? does it call MPI_Init?); ranks on other hosts cannot reach a front end listening on 127.0.0.1: run mpidbg --listen host" "stderr"
}
