# mpidbg check (issue 27; docs/check.md): thread levels and collectives from
# the source, on examples/threadlevel and the BenchError programs, with the
# compile flags of the build's compile_commands.json. Exact diagnostics:
# file, line, column, level, category; nothing on the correct programs.

tls="examples/threadlevel"
# The compile database that has the examples: a sanitizer build links the plain
# build's examples (scripts/link-uninstrumented) and has no entries for them.
ccdb="$build"
if [ -L "$build/examples" ]; then ccdb="$(dirname "$(readlink -f "$build/examples")")"; fi

# run_check ARGS...: mpidbg check from the source tree (paths relative to it).
run_check() {
  out="$(cd "$root" && timeout -k 5 60 "$mpidbg" check "$@" 2>"$work/err")"
  rc=$?
  err="$(cat "$work/err")"
}

# check_lines EXPECTED: stdout is exactly these lines.
check_lines() {
  if [ "$out" != "$1" ]; then
    echo "    expected stdout:"; sed 's/^/      > /' <<<"$1"
    diff <(echo "$1") <(echo "$out") | sed 's/^/    /'
    return 1
  fi
}

case_check_bencherror_programs_named_with_line_and_level() {
  local name expected
  while IFS='|' read -r name expected; do
    run_check -p "$ccdb" --werror "$tls/$name.c"
    check_rc 1 || { echo "    ($name)"; return 1; }
    check_lines "$(printf '%b' "$expected")" || { echo "    ($name)"; return 1; }
  done <<'ROWS'
coll_single|examples/threadlevel/coll_single.c:14:5: warning: MPI_Allreduce runs in omp master at examples/threadlevel/coll_single.c:13 (the primary thread) (parallelism word PM); needs MPI_THREAD_FUNNELED, program asks MPI_THREAD_SINGLE [mpidbg-thread-level]\nmpidbg check: 1 file(s), 4 MPI call site(s); program needs MPI_THREAD_FUNNELED, asks MPI_THREAD_SINGLE (examples/threadlevel/coll_single.c:9); 1 warning(s), 0 error(s)
coll_funneled|examples/threadlevel/coll_funneled.c:10:3: warning: MPI_Reduce runs in omp single at examples/threadlevel/coll_funneled.c:20 (one thread) (parallelism word PS, called from examples/threadlevel/coll_funneled.c:21); needs MPI_THREAD_SERIALIZED, program asks MPI_THREAD_FUNNELED [mpidbg-thread-level]\nmpidbg check: 1 file(s), 4 MPI call site(s); program needs MPI_THREAD_SERIALIZED, asks MPI_THREAD_FUNNELED (examples/threadlevel/coll_funneled.c:16); 1 warning(s), 0 error(s)
coll_serialized|examples/threadlevel/coll_serialized.c:18:5: warning: MPI_Allreduce may run concurrently with MPI_Allreduce at examples/threadlevel/coll_serialized.c:20 (omp single nowait at examples/threadlevel/coll_serialized.c:17 and omp single nowait at examples/threadlevel/coll_serialized.c:19 without a barrier between them); needs MPI_THREAD_MULTIPLE, program asks MPI_THREAD_SERIALIZED [mpidbg-thread-level]\nexamples/threadlevel/coll_serialized.c:20:5: warning: MPI_Allreduce may run concurrently with MPI_Allreduce at examples/threadlevel/coll_serialized.c:18 (omp single nowait at examples/threadlevel/coll_serialized.c:17 and omp single nowait at examples/threadlevel/coll_serialized.c:19 without a barrier between them); needs MPI_THREAD_MULTIPLE, program asks MPI_THREAD_SERIALIZED [mpidbg-thread-level]\nmpidbg check: 1 file(s), 7 MPI call site(s); program needs MPI_THREAD_MULTIPLE, asks MPI_THREAD_SERIALIZED (examples/threadlevel/coll_serialized.c:11); 2 warning(s), 0 error(s)
p2p_multiple|examples/threadlevel/p2p_multiple.c:16:5: warning: MPI_Sendrecv may run on every thread of omp parallel for at examples/threadlevel/p2p_multiple.c:14 (parallelism word P); needs MPI_THREAD_MULTIPLE, program asks MPI_THREAD_SERIALIZED [mpidbg-thread-level]\nmpidbg check: 1 file(s), 5 MPI call site(s); program needs MPI_THREAD_MULTIPLE, asks MPI_THREAD_SERIALIZED (examples/threadlevel/p2p_multiple.c:10); 1 warning(s), 0 error(s)
coll_deadlock|examples/threadlevel/coll_deadlock.c:19:5: warning: MPI_Barrier may not be called by every rank: the condition at examples/threadlevel/coll_deadlock.c:18 depends on the rank (MPI_Comm_rank at examples/threadlevel/coll_deadlock.c:10) [mpidbg-rank-dependent-collective]\nmpidbg check: 1 file(s), 4 MPI call site(s); program needs MPI_THREAD_SINGLE, asks MPI_THREAD_SINGLE (examples/threadlevel/coll_deadlock.c:15); 1 warning(s), 0 error(s)
ROWS
}

case_check_threadlevel_examples_as_the_runtime_sees_them() {
  # The run-time examples of issue 12 (one program per run: the files of a
  # run are one program with one MPI_Init_thread): the sites the runtime reports.
  run_check -p "$ccdb" "$tls/multiple_same_comm.c"
  check_rc 0 &&
  check_lines "examples/threadlevel/multiple_same_comm.c:27:17: error: MPI_Allreduce may be called by several threads at once on the same communicator comm (every thread of omp parallel at examples/threadlevel/multiple_same_comm.c:19 calls it): erroneous at every thread level [mpidbg-concurrent-collective]
examples/threadlevel/multiple_same_comm.c:28:10: error: MPI_Allreduce may be called by several threads at once on the same communicator comm (every thread of omp parallel at examples/threadlevel/multiple_same_comm.c:19 calls it): erroneous at every thread level [mpidbg-concurrent-collective]
mpidbg check: 1 file(s), 7 MPI call site(s); program needs MPI_THREAD_MULTIPLE, asks MPI_THREAD_MULTIPLE (examples/threadlevel/multiple_same_comm.c:13); 0 warning(s), 2 error(s)" || return 1
  run_check -p "$ccdb" "$tls/serialized_violation.c"
  check_rc 0 &&
  check_lines "examples/threadlevel/serialized_violation.c:25:7: warning: MPI_Allreduce may run concurrently with MPI_Allreduce at examples/threadlevel/serialized_violation.c:31 (omp single nowait at examples/threadlevel/serialized_violation.c:21 and omp single nowait at examples/threadlevel/serialized_violation.c:27 without a barrier between them); needs MPI_THREAD_MULTIPLE, program asks MPI_THREAD_SERIALIZED [mpidbg-thread-level]
examples/threadlevel/serialized_violation.c:31:7: warning: MPI_Allreduce may run concurrently with MPI_Allreduce at examples/threadlevel/serialized_violation.c:25 (omp single nowait at examples/threadlevel/serialized_violation.c:21 and omp single nowait at examples/threadlevel/serialized_violation.c:27 without a barrier between them); needs MPI_THREAD_MULTIPLE, program asks MPI_THREAD_SERIALIZED [mpidbg-thread-level]
mpidbg check: 1 file(s), 7 MPI call site(s); program needs MPI_THREAD_MULTIPLE, asks MPI_THREAD_SERIALIZED (examples/threadlevel/serialized_violation.c:13); 2 warning(s), 0 error(s)" || return 1
  # Statically every thread of the team reaches the call under
  # `if (omp_get_thread_num() == 1)` (docs/check.md, "Limits").
  run_check -p "$ccdb" "$tls/funneled_violation.c"
  check_rc 0 &&
  check_contains "$out" "examples/threadlevel/funneled_violation.c:17:7: warning: MPI_Allreduce may run on every thread of omp parallel at examples/threadlevel/funneled_violation.c:13 (parallelism word P); needs MPI_THREAD_MULTIPLE, program asks MPI_THREAD_FUNNELED [mpidbg-thread-level]" "the funneled violation"
}

case_check_correct_programs_get_no_warning() {
  local name
  for name in compliant coll_single_ok coll_funneled_ok coll_serialized_ok p2p_multiple_ok coll_deadlock_ok; do
    run_check -p "$ccdb" --werror "$tls/$name.c"
    check_rc 0 || { echo "    ($name)"; return 1; }
    check_matches "$out" "^mpidbg check: 1 file\(s\), [0-9]+ MPI call site\(s\); program needs MPI_THREAD_[A-Z]+, asks MPI_THREAD_[A-Z]+ \(examples/threadlevel/$name.c:[0-9]+\); 0 warning\(s\), 0 error\(s\)$" "$name" || return 1
    [ "$(wc -l <<<"$out")" -eq 1 ] || { echo "    ($name) more than the summary line"; return 1; }
  done
}

case_check_json_and_sarif() {
  run_check -p "$ccdb" --format json "$tls/coll_funneled.c"
  check_rc 0 || return 1
  python3 - "$out" <<'PY' || return 1
import json, sys
j = json.loads(sys.argv[1])
assert j["program_needs"] == "MPI_THREAD_SERIALIZED", j
assert j["requested"] == "MPI_THREAD_FUNNELED", j
[f] = j["findings"]
assert (f["file"], f["line"], f["column"]) == ("examples/threadlevel/coll_funneled.c", 10, 3), f
assert (f["category"], f["needed"], f["word"], f["function"]) == ("mpidbg-thread-level", "MPI_THREAD_SERIALIZED", "PS", "MPI_Reduce"), f
PY
  run_check -p "$ccdb" --format sarif "$tls/coll_deadlock.c" "$tls/coll_serialized.c"
  check_rc 0 || return 1
  python3 - "$out" <<'PY'
import json, sys
s = json.loads(sys.argv[1])
assert s["version"] == "2.1.0"
run = s["runs"][0]
rules = [r["id"] for r in run["tool"]["driver"]["rules"]]
got = [(r["ruleId"], rules[r["ruleIndex"]], r["level"],
        r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in run["results"]]
want = [("mpidbg-rank-dependent-collective", "mpidbg-rank-dependent-collective", "warning", "examples/threadlevel/coll_deadlock.c", 19),
        ("mpidbg-thread-level", "mpidbg-thread-level", "warning", "examples/threadlevel/coll_serialized.c", 18),
        ("mpidbg-thread-level", "mpidbg-thread-level", "warning", "examples/threadlevel/coll_serialized.c", 20)]
assert got == want, got
assert run["results"][0]["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 18
assert run["invocations"][0]["executionSuccessful"] is True
PY
}

case_check_flags_after_dashdash_and_bad_input() {
  # Flags like clang-tidy's `--`, a file that does not parse, no flags at all.
  local inc
  inc="$(pkg-config --cflags-only-I mpich)"
  run_check "$tls/coll_single.c" -- -fopenmp $inc
  check_rc 0 &&
  check_contains "$out" "examples/threadlevel/coll_single.c:14:5: warning: MPI_Allreduce runs in omp master" "-- flags" || return 1
  printf 'int main(void) { return undeclared; }\n' >"$work/broken.c"
  run_check "$tls/coll_single.c" "$work/broken.c" -- -fopenmp $inc
  check_rc 65 &&
  check_contains "$out" "error: $work/broken.c: not checked: $work/broken.c:1: use of undeclared identifier 'undeclared'" "the broken file" &&
  check_contains "$out" "coll_single.c:14:5: warning: MPI_Allreduce runs in omp master" "the other file, still checked" || return 1
  run_check "$tls/coll_single.c"
  check_rc 64 &&
  check_contains "$err" "mpidbg check: no compile flags: give -p BUILD_DIR (with compile_commands.json) or flags after --" "usage"
}

case_check_every_modelled_construct() {
  # tests/data/check/constructs.c: sections (the first without a pragma),
  # task, masked filter(1), single nowait through a call, a barrier in a
  # callee, master, num_threads(1), parallel master, nested parallel in a
  # section, a loop bounded by the rank. Each expected line was reasoned
  # from the words in the file's comments (constructs.expected).
  run_check tests/data/check/constructs.c -- -fopenmp $(pkg-config --cflags-only-I mpich)
  check_rc 0 &&
  check_lines "$(cat "$root/tests/data/check/constructs.expected")"
}

# The join with the run (issue 27 item 4; docs/check.md, "Joined to the run"):
# the findings as JSON, then mpidbg --check FILE on the real program.
case_check_joined_to_the_run_violation_predicted() {
  run_check --format json -o "$work/findings.json" -p "$ccdb" "$tls/serialized_violation.c"
  check_rc 0 || return 1
  run_mpidbg 120 --check "$work/findings.json" -ex run -ex 'wait 30' -ex 'info check' -- \
    "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$examples/threadlevel/serialized_violation"
  # Both threads' MPI_Allreduce (lines 25 and 31) were flagged and both ran
  # at once: each site is named under the violation and in info check.
  check_contains "$out" "MPI_THREAD_SERIALIZED violated: thread " "the violation" &&
  check_contains "$out" "    predicted by mpidbg check at serialized_violation.c:25 [mpidbg-thread-level]" "the join" &&
  check_contains "$out" "    predicted by mpidbg check at serialized_violation.c:31 [mpidbg-thread-level]" "the join" &&
  check_matches "$out" '^  serialized_violation\.c:25 MPI_Allreduce \[mpidbg-thread-level\]: violated in this run on \[[01]\]$' "info check" &&
  check_matches "$out" '^  serialized_violation\.c:31 MPI_Allreduce \[mpidbg-thread-level\]: violated in this run on \[[01]\]$' "info check" || return 1
  # A finding at a site that did not violate: not seen.
  python3 - "$work/findings.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
f = dict(j["findings"][0]); f["line"] = 12; j["findings"].append(f)
json.dump(j, open(sys.argv[1], "w"))
PY
  run_mpidbg 120 --check "$work/findings.json" -ex run -ex 'wait 30' -ex 'info check' -- \
    "$mpiexec" -n 2 -genv OMP_NUM_THREADS 2 "$examples/threadlevel/serialized_violation"
  check_contains "$out" "  serialized_violation.c:12 MPI_Allreduce [mpidbg-thread-level]: not seen in this run" "info check"
}

case_check_joined_to_the_run_hang_names_the_condition() {
  run_check --format json -o "$work/findings.json" -p "$ccdb" "$tls/coll_deadlock.c"
  check_rc 0 || return 1
  run_mpidbg 120 --check "$work/findings.json" -ex run -ex 'wait 10' -ex hang -ex 'hang --json' -ex kill -- \
    "$mpiexec" -n 4 "$examples/threadlevel/coll_deadlock"
  check_rc 0 &&
  check_contains "$out" "Predicted by mpidbg check: ranks [0,2] are not in MPI_Barrier at coll_deadlock.c:19, where ranks [1,3] wait: the condition at coll_deadlock.c:18 depends on the rank [mpidbg-rank-dependent-collective]." "hang" &&
  check_contains "$out" '"predicted":[{"category":"mpidbg-rank-dependent-collective","condition":"coll_deadlock.c:18","elsewhere":[0,2],' "hang --json" || return 1
  # Without --check: no such line; a file that is not the check's JSON: usage error.
  echo '{"files": []}' >"$work/bad.json"
  run_mpidbg 30 --check "$work/bad.json" -ex quit -- "$mpiexec" -n 2 "$examples/threadlevel/coll_deadlock"
  check_rc 64 &&
  check_contains "$err" "error: --check: $work/bad.json is not the JSON of 'mpidbg check --format json': it has no \"findings\" array" "the error"
}
