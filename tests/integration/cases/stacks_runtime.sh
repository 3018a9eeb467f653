# The runtime side of merged stack trees: the mpidbg/stacks CCS handler
# (runtime/StackCapture.cpp, wire format ccs/proto/StackProtocol.hpp), asked
# directly with mpidbg-ccs under --ccs-plain. Sourced by tests/integration/run.

case_stacks_runtime_captures_running_and_frozen_ranks() {
  start_session --ccs-plain -- "$mpiexec" -n 2 "$examples/spin" 6
  send_command ranks '^1 ' || { end_session; return 1; }
  local endpoint running frozen build_id
  endpoint="$(awk '$1 == "1" {print $4}' "$work/out")"
  build_id="$(readelf -n "$examples/spin" | awk '/Build ID/ {print $3}')"
  send_command run 'run|Continuing|running' || true
  sleep 1
  # Rank 1 is computing in main: its main thread's innermost frame is exact.
  running="$("$ccstool" --pe 1 "$endpoint" mpidbg/stacks --timeout 5000 2>&1)"
  # freeze --now: the rank sits in the freeze signal handler; capture still answers.
  send_command 'freeze --now 1' 'freeze --now' || true
  sleep 1
  frozen="$("$ccstool" --pe 1 "$endpoint" mpidbg/stacks --timeout 5000 2>&1)"
  send_command 'c 1' 'Continuing' || true
  send_command 'wait 30' 'The job has ended' || true
  echo quit >&7
  exec 7>&-
  wait "$session_pid"; rc=$?
  out="$(cat "$work/out")"; err="$(cat "$work/err")"
  check_contains "$running" "world=1" "stacks reply" &&
  check_contains "$running" "thread.0.main=1" "stacks reply (main thread first)" &&
  check_contains "$running" "thread.0.name=spin" "stacks reply (thread name)" &&
  check_contains "$running" "path=$examples/spin" "stacks reply (executable module)" &&
  check_contains "$running" "buildid=$build_id" "stacks reply (build id of the executable)" &&
  grep -qE '^frame\.0\.0=[0-9]+,0x[0-9a-f]+,1$' <<<"$running" &&
  check_not_contains "$running" "mpidbg-helper" "stacks reply (helper threads left out)" &&
  check_not_contains "$running" "error=" "stacks reply" &&
  check_contains "$frozen" "thread.0.main=1" "stacks reply under freeze --now" &&
  check_contains "$frozen" "libmpidbg-rt.so" "stacks reply under freeze --now (freeze handler frames)" &&
  check_not_contains "$frozen" "error=" "stacks reply under freeze --now" &&
  check_contains "$out" "spin: computed" "program output" &&
  check_contains "$out" "The job has ended (launcher exited with code 0)" "wait"
}
