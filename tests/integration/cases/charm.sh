# A real Charm++ under mpidbg (issue 26): the Charm++ of ../shared/peers,
# built once by scripts/build-charm into a cache outside the repository
# (scripts/test builds it before the tests; a case builds it when missing),
# and examples/charm/ring compiled with its charmc. mpidbg launches charmrun
# (SHA-1 authenticated CCS by default, plain with --ccs-plain) or attaches to
# a program started by hand. Sourced by tests/integration/run (run_mpidbg,
# check_*, $work, $root).

# charm_ring: builds Charm++ if needed and compiles the ring example into
# $work/charm (once per run); sets charm_dir. Fails saying why.
charm_ring() {
  if [ -x "$work/charm/ring" ]; then return 0; fi
  charm_dir="$("$root/scripts/build-charm")" || { echo "    scripts/build-charm failed"; return 1; }
  mkdir -p "$work/charm"
  cp "$root/examples/charm/ring.ci" "$root/examples/charm/ring.cpp" "$work/charm/"
  (cd "$work/charm" && "$charm_dir/bin/charmc" ring.ci && "$charm_dir/bin/charmc" -g -O0 ring.cpp -o ring) \
    >"$work/charm/build.log" 2>&1 || { echo "    charmc failed:"; sed 's/^/    /' "$work/charm/build.log"; return 1; }
}

case_charm_launch_break_inspect_step_run_to_end() {
  charm_ring || return 1
  cd "$work/charm" || return 1
  run_mpidbg 120 -ex status -ex 'info entries' -ex 'break Cell::pass' -ex run -ex 'wait 30' -ex status \
    -ex 'print converse/localqueue' -ex 'print charm/arrayElementNames' -ex lists -ex 'where 0' \
    -ex 'step 0' -ex 'status 0' -ex 'print 0 charm/arrayElements' -ex 'delete' -ex run -ex 'wait 60' -- ./charmrun +p2 ./ring 4 20
  cd - >/dev/null
  check_rc 0 &&
  check_matches "$out" '^Charm\+\+ program started: 2 PEs, frozen once initialized .*\(SHA-1 authenticated\)\.$' "the banner" &&
  check_contains "$(section status | head -1)" "[0-1] frozen" "status at the start (+DebugSuspend)" &&
  check_contains "$(section 'info entries')" "  152  Cell::pass(int round, double token)" "info entries" &&
  check_not_contains "$(section 'info entries')" "FutureBOC" "info entries (Charm++'s own hidden)" &&
  check_matches "$(section 'info entries')" '^\(14[0-9] entry methods of Charm\+\+ itself not shown: info entries --all\)$' "info entries" &&
  check_contains "$(section 'break Cell::pass')" "Breakpoint 1 at entry Cell::pass(int round, double token) on PEs [0-1]" "break" &&
  # The token starts at Cell[0], on PE 0 (the default map puts cells 0-1 there).
  check_contains "$err$out" "[0] stopped at breakpoint 1, entry Cell::pass(int round, double token)" "the stop notice" &&
  check_matches "$(section 'wait 30')" '^\[0\] at breakpoint 1 in entry Cell::pass\(int round, double token\)$' "wait" &&
  check_matches "$(section 'print converse/localqueue')" '^converse/localqueue\[0\]\.name = Breakpoint on \[0\]$' "the queue (the message stopped at)" &&
  check_matches "$(section 'print converse/localqueue')" '^converse/localqueue\[0\]\.charmMsg\.data\.round = 0 on \[0\]$' "the queue (its parameters decoded)" &&
  # PE 0 holds cells 0 and 1 (PE 1's may not be made yet: their creation can wait behind PE 0's stop).
  check_matches "$(section 'print charm/arrayElementNames')" '^charm/arrayElementNames\[[01]\]\.name = Cell\[[01]\]( on \[0\].*)?$' "PE 0's array element names" &&
  check_matches "$(section lists)" '^converse/localqueue +list +\[0-1\] ' "lists" &&
  check_contains "$(section 'where 0')" "_call_freeze_on_break_point > CpdFreeze" "where (through gdb, at the breakpoint)" &&
  check_contains "$(section 'step 0')" "[0] stepped" "step" &&
  check_contains "$(section 'status 0')" "[0] frozen" "status after the step (still frozen)" &&
  # Charm++ sends each element's memory: its members are decoded by the program's DWARF.
  # The step ran Cell[0]::pass(0, 1.0): hits 1, sum 1, last 0; Cell[1] has not run yet.
  check_matches "$(section 'print 0 charm/arrayElements')" '^charm/arrayElements\[[01]\]\.fields\.hits = 1$' "Cell[0]'s hits after the step" &&
  check_matches "$(section 'print 0 charm/arrayElements')" '^charm/arrayElements\[[01]\]\.fields\.sum = 1$' "Cell[0]'s sum" &&
  check_matches "$(section 'print 0 charm/arrayElements')" '^charm/arrayElements\[[01]\]\.fields\.last = -1$' "Cell[1]'s last (not run)" &&
  check_contains "$(section delete)" "Deleted breakpoint 1" "delete" &&
  check_contains "$out" "ring: done after 20 rounds" "the program's end" &&
  check_contains "$(section 'wait 60')" "The program has ended." "wait to the end"
}

case_charm_plain_freeze_one_pe_and_kill() {
  charm_ring || return 1
  cd "$work/charm" || return 1
  # A PE gdb holds is refused by the router's words, as an mpidbg rank is.
  run_mpidbg 90 --ccs-plain -ex run -ex 'wait 1' -ex 'freeze 1' -ex status -ex 'print 1 charm/arrayElementNames' \
    -ex 'gdb --keep 1 info threads' -ex 'status 0-1' -ex 'continue 1' -ex 'gdb detach 1' \
    -ex 'run 1' -ex 'status 1' -ex hang -ex kill -ex status -- ./charmrun +p2 ./ring 4 100000
  cd - >/dev/null
  # 65: three commands fail on purpose (continue of a held PE, hang, and status after kill).
  check_rc 65 &&
  check_matches "$out" '^Charm\+\+ program started: 2 PEs, .*\(plain\)\.$' "the banner" &&
  check_contains "$(section 'wait 1')" "Still running after the wait:" "wait 1" &&
  check_contains "$(section 'freeze 1')" "[1] frozen" "freeze 1" &&
  check_contains "$(section status)" "[1] frozen" "status" &&
  check_matches "$(section 'print 1 charm/arrayElementNames')" '^charm/arrayElementNames\[[01]\]\.name = Cell\[[23]\]$' "print on PE 1 alone" &&
  check_contains "$(section 'status 0-1')" "[1] held by gdb" "status of a PE gdb holds" &&
  check_contains "$err" "error: no PE continued: is held by gdb (release it with: gdb detach 1)" "continue of a PE gdb holds" &&
  check_contains "$(section 'gdb detach 1')" "[1] detached" "gdb detach 1" &&
  check_contains "$(section 'run 1')" "[1] continued" "run 1" &&
  check_contains "$(section 'status 1')" "[1] running" "status 1 after run 1" &&
  check_contains "$err" "error: 'hang' is for MPI jobs: a Charm++ program has no MPI state" "hang on a Charm++ program" &&
  check_contains "$(section kill)" "Killed the program." "kill" &&
  check_contains "$err" "error: no job" "status after kill"
}

case_charm_attach_sha1_break_and_detach() {
  charm_ring || return 1
  local port key
  port=$((20000 + RANDOM % 20000))
  key="$work/charm/auth"
  echo "0 31415926535897932384626433832795" >"$key"
  chmod 600 "$key"
  # 300 rounds of 4 passes at 2 ms: about 3 s of running once let go.
  (cd "$work/charm" && MPIDBG_IT_MARKER="$work" timeout 120 ./charmrun +p2 ++local ./ring 4 300 ++server \
     ++server-port "$port" ++server-auth "$key" +cpd +DebugSuspend >"$work/charm/attached.out" 2>&1; echo "exit $?" >>"$work/charm/attached.out") &
  wait_until 300 "the Charm++ program's CCS server" file_has "$work/charm/attached.out" 'CPD: 1 Freeze' || return 1
  run_mpidbg 60 attach charm "127.0.0.1:$port" --charm-key-file "$key" -ex status -ex 'break Cell::pass' -ex run -ex 'wait 20' -ex status -ex 'where 0'
  local attached_rc=$rc attached_out=$out
  run_mpidbg 30 attach charm "127.0.0.1:$port" --charm-key-file /dev/null -ex status
  local nokey_rc=$rc nokey_err=$err
  run_mpidbg 30 attach charm "127.0.0.1:$port" -ex status
  wait_until 300 "the attached program's end" file_has "$work/charm/attached.out" '^exit ' || true
  rc=$attached_rc out=$attached_out
  check_rc 0 &&
  check_matches "$out" '^Attached to a Charm\+\+ program of 2 PEs at 127\.0\.0\.1:' "the banner" &&
  check_contains "$(section status | head -1)" "[0-1] frozen" "status" &&
  check_contains "$(section 'wait 20')" "[0] at breakpoint 1 in entry Cell::pass(int round, double token)" "the breakpoint, seen by status" &&
  check_contains "$(section 'where 0')" "_call_freeze_on_break_point" "where 0 (the PE found by its NETSTART)" &&
  check_contains "$out" "Detached from the Charm++ program; it runs on" "leaving detaches" &&
  check_contains "$(cat "$work/charm/attached.out")" "ring: done after 300 rounds" "the program, left running, ends by itself" &&
  check_contains "$(cat "$work/charm/attached.out")" "exit 0" "its exit code" &&
  [ "$nokey_rc" -ne 0 ] && check_contains "$nokey_err" "no key for level 0" "a key file without a key" &&
  check_contains "$err" "needs --charm-key-file" "plain to a keyed server"
}

case_charm_json_results_match_the_schema() {
  charm_ring || return 1
  cd "$work/charm" || return 1
  run_mpidbg 90 --json -ex status -ex 'info entries' -ex 'break Cell::pass' -ex 'info break' -ex run -ex 'wait 30' \
    -ex 'step 0' -ex 'freeze' -ex 'print 0 charm/arrayElements' -ex lists -ex 'delete 1' -ex run -ex 'wait 60' -- \
    ./charmrun +p2 ./ring 4 20
  cd - >/dev/null
  local py
  py="$(json_python)" || return 1
  check_rc 0 &&
  "$py" "$root/tests/integration/jsonlines.py" "$root/docs/json-schema.json" "$work/out" <<'PY'
check(result("status")["size"] == 2, "status: size 2")
check([g["state"] for g in result("status")["groups"]] == ["frozen"], "status: every PE frozen at the start")
entries = result("info entries")["charm_entries"]
check(any(e["chare"] == "Cell" and e["name"] == "pass(int round, double token)" and e["index"] == 152 for e in entries),
      "info entries: Cell::pass with its index")
check(result("info entries")["hidden"] > 100, "info entries: Charm++'s own hidden")
bp = result("break Cell::pass")["breakpoint"]
check(bp["kind"] == "entry" and bp["target"] == "Cell::pass(int round, double token)" and bp["rank_list"] == [0, 1],
      "break: an entry breakpoint on both PEs")
check(result("wait 30")["outcome"] == "stopped", "wait: stopped at the breakpoint")
check(any(e.get("event") for e in events if "stopped at breakpoint 1" in e.get("text", "")), "the stop as an event")
check(result("step 0")["succeeded"][0]["rank_list"] == [0], "step 0")
fields = {f["path"]: f["values"] for f in result("print 0 charm/arrayElements")["fields"]}
check(any(p.endswith(".fields.hits") and v[0]["value"] == "1" for p, v in fields.items()), "print: Cell[0].hits decoded")
check(result("delete 1")["deleted"] == [1], "delete 1")
check(result("wait 60")["outcome"] == "ended", "wait: the program ended")
PY
}

case_charm_abort_freezes_the_pe_and_is_named() {
  charm_ring || return 1
  cd "$work/charm" || return 1
  # Cell 2 (on PE 1) calls CkAbort in round 3: in debug mode Charm++ freezes the PE instead of ending.
  run_mpidbg 60 -ex run -ex 'wait 30' -ex status -ex 'where 1' -ex kill -- ./charmrun +p2 ./ring 4 100 3
  cd - >/dev/null
  check_rc 0 &&
  check_contains "$out" "[1] aborted (frozen by Charm++'s debug mode): CkMigratable 'Cell' aborting: [1] Array element at index 2 aborting: cell 2 lost the token in round 3" "the abort notice (its message joined)" &&
  check_matches "$(section status)" '^\[1\] aborted \(frozen\): .*cell 2 lost the token in round 3$' "status" &&
  # gdb's pcs are symbolized as the runtime's captures are: C++ frames by their
  # DWARF names, parameter types included.
  check_contains "$(section 'where 1')" "Cell::pass(int, double) > ArrayElement::CmiAbort(char const*, ...) const" \
    "where 1 (into the entry method that aborted)" &&
  check_contains "$(section kill)" "Killed the program." "kill"
}

case_charm_interactive_completion_and_ctrl_d() {
  charm_ring || return 1
  command -v tmux >/dev/null || { echo "    tmux is not installed"; return 1; }
  local s=charm ok=0
  cd "$work/charm" || return 1
  istart "$s" "$work/home-charm" "" -- ./charmrun +p2 ./ring 4 100000
  cd - >/dev/null
  {
    iwait "$s" "(mpidbg)" &&
    # Tab completes Charm++'s list names and the program's entry methods.
    itmux send-keys -t "$s" 'print conv' Tab &&
    iexpect_line "$s" "(mpidbg) print converse/localqueue" &&
    itmux send-keys -t "$s" C-u 'break entry Cell::pa' Tab &&
    iexpect_line "$s" "(mpidbg) break entry Cell::pass" &&
    itmux send-keys -t "$s" Enter &&
    iwait "$s" "Breakpoint 1 at entry Cell::pass(int round, double token) on PEs [0-1]" &&
    # Ctrl-D asks before killing a program mpidbg started.
    itmux send-keys -t "$s" C-d &&
    iwait "$s" "The program is still running (2 PEs). Kill it and quit? (y or n)" &&
    itmux send-keys -t "$s" y Enter &&
    iwait "$s" "Killed the program." &&
    [ "$(iexited "$s")" = "MPIDBG-EXIT=0" ] && ok=1
  } || true
  [ $ok -eq 1 ] || { ipane "$s" | tail -20 | sed 's/^/      | /'; istop "$s"; }
  ikill
  [ $ok -eq 1 ]
}

# charm_client: builds tests/integration/charm/ccs_client.cpp, a command-line
# driver of Charm++'s own C client library, into $work/charm (once per run).
charm_client() {
  if [ -x "$work/charm/ccs_client" ]; then return 0; fi
  charm_dir="$("$root/scripts/build-charm")" || { echo "    scripts/build-charm failed"; return 1; }
  mkdir -p "$work/charm"
  g++ -O1 -I"$charm_dir/include" "$root/tests/integration/charm/ccs_client.cpp" -L"$charm_dir/lib" -lccs-client \
    -o "$work/charm/ccs_client" >"$work/charm/client.log" 2>&1 ||
    { echo "    cannot build Charm++'s client:"; sed 's/^/    /' "$work/charm/client.log"; return 1; }
}

charm_job_pid=""
# start_charm_mpi_job ENV... -- MPIEXEC_ARGS...: an MPI job with the runtime
# preloaded in Charm-compatible mode (MPIDBG_CHARM=1 and ENV); waits for rank
# 0's "ccs: Server IP" line and sets charm_port.
start_charm_mpi_job() {
  local envs=()
  while [ "$1" != "--" ]; do envs+=("$1"); shift; done
  shift
  env MPIDBG_IT_MARKER="$work" LD_PRELOAD="$build/lib/libmpidbg-rt.so" MPIDBG_CHARM=1 "${envs[@]}" \
    "$mpiexec" "$@" </dev/null >"$work/charm/job.out" 2>"$work/charm/job.err" &
  charm_job_pid=$!
  wait_until 300 "rank 0's 'ccs: Server IP' line" file_has "$work/charm/job.out" '^ccs: Server IP = ' ||
    { sed 's/^/      | /' "$work/charm/job.err"; return 1; }
  charm_port="$(sed -n 's/^ccs: Server IP = [0-9.]*, Server port = \([0-9]*\) \$$/\1/p' "$work/charm/job.out")"
}

# stop_charm_mpi_job: ends the job if it still runs and reaps it.
stop_charm_mpi_job() {
  [ -n "$charm_job_pid" ] && { kill "$charm_job_pid" 2>/dev/null; wait "$charm_job_pid" 2>/dev/null; }
  charm_job_pid=""
  local i
  for i in $(seq 1 50); do [ -z "$(leftovers)" ] && break; sleep 0.1; done
}

# step_on_every_rank CLIENT_ARGS...: every rank of the 3-rank phases job
# lists the entry point solver::step (each rank registers it the first time it
# runs it, shortly after MPI_Init), asked with Charm++'s client.
step_on_every_rank() {
  local listing
  listing="$("$work/charm/ccs_client" "$@" list:0:charm/entries list:1:charm/entries list:2:charm/entries 2>/dev/null)"
  [ "$(grep -c '^string="solver::step";$' <<<"$listing")" -eq 3 ]
}

# entry_index LISTING NAME: the index of NAME in a charm/entries listing of
# ccs_client (.txt items: //name, string="NAME";, //index, int=N;).
entry_index() {
  awk -v want="string=\"$2\";" '$0 == want { found = 1; next } found && /^int=/ { sub(/^int=/, ""); sub(/;$/, ""); print; exit }' <<<"$1"
}

# The reply to one plain CCS request sent by hand: Charm++'s server closes
# the connection after the reply, and a client reading to the end relies on
# it. Prints the reply's bytes in hex, or nothing after 5 s.
plain_getinfo_to_end() {
  timeout 5 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1" &&
    printf "\0\0\0\0\0\0\0\2ccs_getinfo\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0" >&3 && od -An -tx1 <&3' _ "$1" | tr -s ' \n' ' '
}

case_charm_client_plain_against_mpi_ranks() {
  charm_client || return 1
  start_charm_mpi_job -- -n 3 "$examples/phases" 400 50 || { stop_charm_mpi_job; return 1; }
  local client="$work/charm/ccs_client" first second to_end bcast step
  wait_until 300 "solver::step on every rank" step_on_every_rank 127.0.0.1 "$charm_port" || true
  first="$("$client" 127.0.0.1 "$charm_port" info call:2:ccs_getinfo status:-1 status:1 list:0:charm/entries 2>&1)"
  to_end="$(plain_getinfo_to_end "$charm_port")"
  bcast="$(entry_index "$first" MPI_Bcast)"
  step="$(entry_index "$first" solver::step)"
  second="$("$client" 127.0.0.1 "$charm_port" "int:-1:debug/charm/bp/set:$step" sleep:2000 status:-1 \
    "int:-1:debug/charm/bp/set:$step" "int:-1:debug/charm/bp/remove:$step" call:-1:debug/charm/continue sleep:500 \
    status:-1 "int:0:debug/charm/bp/set:999" send:1:debug/converse/freeze sleep:2000 status:-1 call:1:debug/charm/continue \
    sleep:500 status:1 2>&1)"
  stop_charm_mpi_job
  check_contains "$first" "pes 3 nodes 3" "ccs_getinfo through Charm++'s client (the job's PE table)" &&
  check_contains "$first" "reply 16 bytes: 00 00 00 03 00 00 00 01 00 00 00 01 00 00 00 01" "ccs_getinfo relayed to PE 2" &&
  check_contains "$first" $'pe 0 running\npe 1 running\npe 2 running' "a broadcast status, merged in PE order" &&
  check_contains "$first" "string=\"MPI_Bcast\";" "charm/entries (the MPI functions)" &&
  check_matches "$bcast" '^[0-9]+$' "MPI_Bcast's index" &&
  check_matches "$step" '^1[0-9]{6}$' "solver::step's index (an entry point: above 2^20)" &&
  check_contains "$to_end" "00 00 00 10 00 00 00 03 00 00 00 01 00 00 00 01 00 00 00 01" "a plain request read to the end of the stream (closed after the reply)" &&
  # ~0 from every rank, merged with Charm++'s logical AND into 1.
  check_matches "$(head -1 <<<"$second")" '^int 1$' "bp/set broadcast" &&
  # Which ranks stop depends on where each one was when its breakpoint was
  # set (one stopped at solver::step can hold the others in that step's
  # MPI_Bcast): at least one does, and says so as Charm++ does.
  check_matches "$(cat "$work/charm/job.out")" '^CPD: [0-2] BP solver::step$' "Charm++'s stop notice" &&
  check_matches "$(sed -n 2,4p <<<"$second")" '^pe [0-2] frozen$' "status at the breakpoint" &&
  check_contains "$second" $'int 0\nint 1' "a second bp/set refused (set already), then bp/remove" &&
  check_contains "$second" $'pe 0 running\npe 1 running\npe 2 running' "status after continue" &&
  check_contains "$(sed -n '/^sent$/,$p' <<<"$second")" $'pe 1 frozen' "a freeze of PE 1" &&
  check_matches "$(cat "$work/charm/job.err")" "debug/charm/bp/set: entry index '999' is neither an MPI function nor an entry point" "an unknown index, said on stderr" &&
  check_contains "$(cat "$work/charm/job.err")" "3 of 3 ranks serve Charm++'s CCS clients (plain, unauthenticated)" "rank 0's notice"
}

case_charm_sha1_mpi_ranks_under_mpidbg_attach_charm() {
  charm_client || return 1
  local key="$work/charm/mpi-auth" client="$work/charm/ccs_client" keyed unkeyed unkeyed_rc
  echo "0 31415926535897932384626433832795" >"$key"
  chmod 600 "$key"
  start_charm_mpi_job MPIDBG_CCS_SECURITY=sha1 MPIDBG_CHARM_KEY_FILE="$key" -- -n 3 "$examples/phases" 400 50 ||
    { stop_charm_mpi_job; return 1; }
  wait_until 300 "solver::step on every rank" step_on_every_rank 127.0.0.1 "$charm_port" \
    --key 31415926535897932384626433832795 || true
  keyed="$("$client" 127.0.0.1 "$charm_port" --key 31415926535897932384626433832795 info status:-1 2>&1)"
  unkeyed="$("$client" 127.0.0.1 "$charm_port" info 2>&1)"
  unkeyed_rc=$?
  run_mpidbg 60 attach charm "127.0.0.1:$charm_port" --charm-key-file "$key" -ex 'info entries' -ex 'break MPI_Allreduce' \
    -ex 'wait 20' -ex status -ex lists -ex 'print 1 mpi/communicators' -ex delete -ex run -ex status
  stop_charm_mpi_job
  # sha1 without a key file: said, and the job runs without the debugger.
  local nokey
  nokey="$(env MPIDBG_IT_MARKER="$work" LD_PRELOAD="$build/lib/libmpidbg-rt.so" MPIDBG_CCS_SECURITY=sha1 \
    timeout 60 "$mpiexec" -n 2 "$examples/phases" 1 2>&1)"
  check_contains "$keyed" $'pes 3 nodes 3\npe 0 running\npe 1 running\npe 2 running' "Charm++'s client with the key" &&
  [ "$unkeyed_rc" -ne 0 ] && check_contains "$unkeyed" "Socket closed" "Charm++'s client without a key (refused)" &&
  check_rc 0 &&
  check_contains "$out" "note: an MPI program under mpidbg's runtime in Charm-compatible mode (MPIDBG_CHARM)" "the attach note" &&
  check_contains "$(section 'info entries')" "MPIDBG_ENTRY::solver::step" "info entries (the entry points)" &&
  check_matches "$(section 'info entries')" '^\([0-9]+ MPI functions not shown: info entries --all\)$' "info entries (the MPI functions hidden)" &&
  check_contains "$(section 'break MPI_Allreduce')" "Breakpoint 1 at entry MPI::MPI_Allreduce on PEs [0-2]" "break on an MPI function" &&
  # Ranks that entered the MPI_Allreduce before their breakpoint was set wait
  # in it for the ones stopped at it: those are found by the queue's item.
  check_matches "$(section 'wait 20')" '^\[[0-2,-]+\] at breakpoint 1 in entry MPI::MPI_Allreduce$' "wait (the stop read from converse/localqueue)" &&
  check_matches "$(section lists)" '^mpi/communicators +list +\[0-2\] +3 items$' "lists (the runtime's own)" &&
  check_contains "$(section 'print 1 mpi/communicators')" "mpi/communicators[1].name = solver" "print through Charm++'s list protocol" &&
  check_contains "$(section 'print 1 mpi/communicators')" "mpi/communicators[0].active[0] = MPI_Allreduce" "the collective rank 1 is stopped in" &&
  check_contains "$(section status)" "[0-2] running" "status after run" &&
  check_matches "$(cat "$work/charm/job.out")" '^CPD: [0-2] BP MPI_Allreduce$' "Charm++'s stop notice" &&
  check_contains "$nokey" "MPIDBG_CCS_SECURITY=sha1 needs MPIDBG_CHARM_KEY_FILE" "sha1 without a key file" &&
  check_contains "$nokey" "checksum" "that job, run without the debugger"
}
