# Idle waiting (runtime/IdleWait.hpp): with more ranks than cores, ranks
# blocked in MPI sleep instead of polling, unless MPIDBG_IDLE_WAIT=0.

# idle_samples MODE : runs coll_skip (3 ranks on this 2-core machine: ranks 0-1
# blocked in MPI_Allreduce, rank 2 in MPI_Recv) under mpidbg with
# MPIDBG_IDLE_WAIT=MODE, samples each rank's scheduler state 20 times, and
# writes "RANK SLEEPING_SAMPLES" lines to $work/samples.MODE; sets out/err/rc.
idle_samples() {
  local mode="$1" fifo="$work/commands" pids="" k p
  rm -f "$fifo" "$work/out" "$work/err"
  mkfifo "$fifo"
  env MPIDBG_IT_MARKER="$work" MPIDBG_IDLE_WAIT="$mode" timeout -k 5 120 "$mpidbg" -- \
    "$mpiexec" -n 3 "$examples/hangs/coll_skip" <"$fifo" >"$work/out" 2>"$work/err" &
  local bg=$!
  exec 7>"$fifo"
  printf 'run\nwait 30\nranks\n' >&7
  for k in $(seq 150); do
    [ "$(grep -cE '^[0-2] +[^ ]+ +[0-9]+ ' "$work/out" 2>/dev/null)" = 3 ] && break
    sleep 0.2
  done
  pids="$(awk '/^[0-2] +[^ ]+ +[0-9]+ /{print $1 ":" $3}' "$work/out")"
  declare -A sleeping=()
  for k in $(seq 20); do
    for p in $pids; do
      # Field 3 of /proc/PID/stat: R running, S sleeping (the main thread).
      if [ "$(awk '{print $3}' "/proc/${p#*:}/stat" 2>/dev/null)" = S ]; then
        sleeping[${p%%:*}]=$(( ${sleeping[${p%%:*}]:-0} + 1 ))
      fi
    done
    sleep 0.05
  done
  printf 'kill\nquit\n' >&7
  exec 7>&-
  wait "$bg"
  rc=$?
  out="$(cat "$work/out")"
  err="$(cat "$work/err")"
  for p in $pids; do echo "${p%%:*} ${sleeping[${p%%:*}]:-0}"; done >"$work/samples.$mode"
}

case_idle_wait_blocked_ranks_sleep_when_oversubscribed() {
  local on off r n ok=1
  idle_samples auto
  check_contains "$out" "Every rank is blocked in MPI" "wait (auto)" || return 1
  idle_samples 0
  check_contains "$out" "Every rank is blocked in MPI" "wait (off)" || return 1
  on="$(cat "$work/samples.auto")"
  off="$(cat "$work/samples.0")"
  echo "    sleeping samples of 20 per rank: auto [$(echo $on)], off [$(echo $off)]"
  [ "$(wc -l <<<"$on")" = 3 ] && [ "$(wc -l <<<"$off")" = 3 ] || { echo "    expected 3 ranks sampled"; return 1; }
  while read -r r n; do
    if [ "$n" -lt 10 ]; then echo "    rank $r slept in only $n of 20 samples with idle waiting"; ok=0; fi
  done <<<"$on"
  while read -r r n; do
    if [ "$n" -gt 5 ]; then echo "    rank $r slept in $n of 20 samples with MPIDBG_IDLE_WAIT=0 (polling expected)"; ok=0; fi
  done <<<"$off"
  [ $ok -eq 1 ]
}
