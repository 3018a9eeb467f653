# mpidbg --json (issue 7): every command's result as one JSON object per line,
# events too, validated against docs/json-schema.json on real jobs, with
# commands from -x, -ex and stdin. Sourced by tests/integration/run
# (run_mpidbg, check_*, $work, $examples, $root).

# The Python with the jsonschema module (Debian: python3-jsonschema).
json_python() {
  local py
  for py in python3 /usr/bin/python3; do
    if "$py" -c 'import jsonschema' 2>/dev/null; then echo "$py"; return 0; fi
  done
  echo "    no python3 with the jsonschema module (apt-get install python3-jsonschema)" >&2
  return 1
}

# json_check CHECKS: validates every line of the last session's stdout
# ($work/out) against docs/json-schema.json, then runs the Python CHECKS
# (tests/integration/jsonlines.py describes the names they can use).
json_check() {
  local py
  py="$(json_python)" || return 1
  "$py" "$root/tests/integration/jsonlines.py" "$root/docs/json-schema.json" "$work/out" <<<"$1"
}

case_json_schema_rejects_what_it_should() {
  # The schema is not vacuous: broken lines fail, good ones pass.
  local py
  py="$(json_python)" || return 1
  out="$("$py" - "$root/docs/json-schema.json" <<'PY' 2>&1
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
v = jsonschema.Draft202012Validator(schema)
good = [
  {"schema": "mpidbg/1", "command": "kill", "line": "kill", "ok": True, "result": {"killed": True}},
  {"schema": "mpidbg/1", "command": "nope", "line": "nope", "ok": False, "result": None, "error": "unknown command"},
  {"schema": "mpidbg/1", "event": "breakpoint", "text": "hit breakpoint 1: MPI_Send(dest=3)", "ranks": "[2,5]",
   "rank_list": [2, 5], "breakpoint": 1},
  {"schema": "mpidbg/1", "command": "focus", "line": "focus", "ok": True, "result": {"focus": None}},
]
bad = [
  {"schema": "mpidbg/2", "command": "kill", "line": "kill", "ok": True, "result": {"killed": True}},
  {"schema": "mpidbg/1", "command": "kill", "line": "kill", "ok": False, "result": None},
  {"schema": "mpidbg/1", "command": "kill", "line": "kill", "ok": True, "result": None},
  {"schema": "mpidbg/1", "command": "status", "line": "status", "ok": True, "result": {"groups": [], "per_rank": []}},
  {"schema": "mpidbg/1", "command": "focus", "line": "focus", "ok": True,
   "result": {"focus": {"ranks": "0-3", "rank_list": [0, 1, 2, 3]}}},
  {"schema": "mpidbg/1", "command": "kill", "line": "kill", "ok": True, "result": {"killed": True, "extra": 1}},
  {"schema": "mpidbg/1", "event": "breakpoint", "text": "hit breakpoint 1", "ranks": "[2]", "rank_list": [2]},
]
for i, o in enumerate(good):
    assert v.is_valid(o), f"good line {i} rejected: {jsonschema.exceptions.best_match(v.iter_errors(o)).message}"
for i, o in enumerate(bad):
    assert not v.is_valid(o), f"bad line {i} accepted"
print("schema ok")
PY
)"
  check_contains "$out" "schema ok" "the schema self-check"
}

case_json_every_inspection_command_on_a_stuck_collective() {
  # coll_skip: ranks 0-2 wait in MPI_Allreduce, rank 3 in MPI_Recv from 0.
  cat >"$work/cmds" <<EOF
# -x FILE: comments and blank lines print nothing

help
help where
status
run
wait 30
status
status blocked
collectives
queues
hang
hang --json
where
bt --full 0-2
where --json --dot $work/tree.dot
equiv
ranks
set S = [0-1]
set
focus S
focus
status
unfocus
unset S
gdb 3 bt
-mi 3 -stack-info-depth
gdb detach 3
gdb attach 2
gdb detach all
stauts
status 9
kill
EOF
  run_mpidbg 180 --json -x "$work/cmds" -ex quit -- "$mpiexec" -n 4 "$examples/hangs/coll_skip"
  check_rc 65 &&
  check_not_contains "$err" "error: unknown command" "stderr (errors are in the JSON envelopes)" &&
  json_check '
sent = [l for l in open("'"$work/cmds"'").read().splitlines() if l.strip() and not l.startswith("#")] + ["quit"]
check([e["line"] for e in envelopes] == sent, "one envelope per command, in order: %s" % [e["line"] for e in envelopes])
check(lines[0]["event"] == "started" and lines[0]["size"] == 4 and lines[0]["frozen"], "the started event first")
check(all(e["ok"] for e in envelopes if e["line"] not in ("stauts", "status 9")), "every other command succeeded")

names = [c["name"] for c in result("help")["commands"]]
check(names[:3] == ["run", "break", "delete"] and "where" in names and "-mi" in names, "help lists the table")
check(result("help where")["aliases"] == ["w", "bt"], "help where")

st = result("status")
check(st["size"] == 4 and len(st["per_rank"]) == 4, "status: 4 ranks")
check(st["groups"] == [{"ranks": "[0-3]", "rank_list": [0, 1, 2, 3], "state": "frozen at the end of MPI_Init"}], "status before run: %s" % st["groups"])
check(result("run")["continued"] == {"ranks": "[0-3]", "rank_list": [0, 1, 2, 3]}, "run continued every rank")
check(result("wait 30")["outcome"] == "settled", "wait: settled")

st = [e["result"] for e in envelopes if e["line"] == "status"][1]
check([g["rank_list"] for g in st["groups"]] == [[0, 1, 2], [3]], "status after run: groups %s" % st["groups"])
check(st["groups"][0]["state"].startswith("blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD) at coll_skip.c:"),
      "ranks 0-2 state %s" % st["groups"][0])
check(st["per_rank"][0]["state"] == "blocked in MPI_Allreduce (call 1 on MPI_COMM_WORLD)", "rank 0 state without its site")
check(re.fullmatch(r"coll_skip\.c:\d+ in main", st["per_rank"][0]["call_site"] or ""), "rank 0 call_site %s" % st["per_rank"][0]["call_site"])
check(st["groups"][0]["state"].endswith(" at " + st["per_rank"][0]["call_site"]), "the text line ends with the call site")
call = st["per_rank"][3]["call"]
check(call["function"] == "MPI_Recv" and call["peer_role"] == "source" and call["peer"] == 0 and call["tag"] == 42, "rank 3 call %s" % call)
check(all(r["blocked"] and r["settled"] and r["runtime_state"] == "in-mpi" for r in st["per_rank"]), "every rank blocked")
check(st["per_rank"][0]["call"]["collective_call"] == 1, "rank 0 is in collective call 1")
check(result("status blocked")["groups"][0]["rank_list"] == [0, 1, 2], "status blocked")

comm = result("collectives")["communicators"][0]
check(comm["name"] == "MPI_COMM_WORLD" and comm["size"] == 4 and comm["handle"].startswith("0x"), "collectives: world")
# runtime/CommRegistry.hpp kWorldUid ("world" in ASCII); one handle held by every member.
check(comm["uid"] == "0x776f726c64", "collectives: world uid %s" % comm["uid"])
check(comm["handles"] == [{"handle": comm["handle"], "ranks": "[0-3]", "rank_list": [0, 1, 2, 3]}], "collectives: handles %s" % comm["handles"])
coll = comm["collectives"][0]
check(coll["collective"] == "MPI_Allreduce" and coll["inside"] == [{"ranks": "[0-2]", "rank_list": [0, 1, 2], "call": 1, "call_site": "coll_skip.c:15 in main"}], "collectives inside %s" % coll)
check(coll["others"][0]["rank_list"] == [3] and coll["others"][0]["calls"] == 0 and coll["others"][0]["doing"].startswith("blocked in MPI_Recv(source=0, tag=42"), "collectives others")

q = result("queues")
check([r["rank"] for r in q["per_rank"]] == [0, 1, 2, 3] and not q["memory"], "queues: every rank")
world3 = [c for c in q["per_rank"][3]["comms"] if c["name"] == "MPI_COMM_WORLD"][0]
check("MPI_Recv(source=0, tag=42) [blocking]" in world3["recvs"], "queues: rank 3 receive %s" % world3["recvs"])

h = result("hang")
check(h["cycles"] == [[0, 3]] and h["suggested"] == [0, 3] and not h["no_hang"], "hang verdict")
check(result("hang --json")["cycles"] == [[0, 3]], "hang --json in a --json session")

w = result("where")
paths = {tuple(c["rank_list"]): c["paths"] for c in w["classes"]}
check(["main", "MPI_Allreduce"] in paths[(0, 1, 2)], "where: ranks 0-2 in MPI_Allreduce %s" % paths)
check(["main", "MPI_Recv"] in paths[(3,)], "where: rank 3 in MPI_Recv")
check(w["tree"][0]["label"] == "main" or any(n["label"] == "main" for n in w["tree"]), "where: main at the top")
check(envelope("bt --full 0-2")["command"] == "where" and result("bt --full 0-2")["key"] == "full", "bt is where")
check(result("bt --full 0-2")["classes"][0]["rank_list"] == [0, 1, 2], "where 0-2 covers ranks 0-2")
check(result("where --json --dot '"$work"'/tree.dot")["dot_file"] == "'"$work"'/tree.dot", "where --dot")
eq = result("equiv")["classes"]
check([c["number"] for c in eq] == [1, 2] and eq[0]["rank_list"] == [0, 1, 2], "equiv classes %s" % eq)

rk = result("ranks")["per_rank"]
check([r["rank"] for r in rk] == [0, 1, 2, 3] and all(r["pid"] > 0 and r["life"] == "live" for r in rk), "ranks")
check(result("set S = [0-1]") == {"name": "S", "ranks": "[0-1]", "rank_list": [0, 1]}, "set S")
check(result("set")["sets"] == [{"name": "S", "ranks": "[0-1]", "rank_list": [0, 1]}], "set lists S")
check(result("focus S")["focus"]["rank_list"] == [0, 1] and result("focus")["focus"]["ranks"] == "[0-1]", "focus")
st = [e["result"] for e in envelopes if e["line"] == "status"][2]
check([r["rank"] for r in st["per_rank"]] == [0, 1], "status under focus acts on the focus")
check(result("unfocus")["focus"] is None and result("unset S") == {"name": "S"}, "unfocus, unset")

g = result("gdb 3 bt")
check(g["action"] == "command" and g["command"] == "bt" and g["outputs"][0]["rank_list"] == [3], "gdb 3 bt")
check("main" in g["outputs"][0]["text"] and g["errors"] == [], "gdb bt text")
mi = result("-mi 3 -stack-info-depth")["outputs"][0]
check(mi["class"] == "done" and mi["results"]["depth"].isdigit() and mi["text"].startswith("^done,depth="), "-mi %s" % mi)
check(result("gdb detach 3")["outputs"] == [{"ranks": "[3]", "rank_list": [3], "text": "detached"}], "gdb detach 3")
check(result("gdb attach 2")["outputs"][0]["text"] == "attached", "gdb attach 2")
check(result("gdb detach all")["outputs"][0]["rank_list"] == [2], "gdb detach all")

bad = envelope("stauts")
check(not bad["ok"] and bad["result"] is None and "did you mean: status?" in bad["error"], "unknown command")
check("rank 9 is out of range" in envelope("status 9")["error"], "bad rank set")
check(result("kill") == {"killed": True} and result("quit") == {"quit": True}, "kill, quit")
' || return 1
  if [ ! -s "$work/tree.dot" ]; then echo "    where --dot wrote no file"; return 1; fi
}

case_json_breakpoints_stepping_and_events() {
  run_mpidbg 180 --json -ex 'break MPI_Send if dest == 3' -ex 'break [0-1] MPI_Allreduce comm=WORLD #2' \
    -ex 'break MPI_Bcats' -ex 'disable 2' -ex 'enable 2' -ex 'info break' -ex run -ex 'wait 30' -ex 'status 2' \
    -ex 'info break' -ex 'delete 1' -ex 'step [2]' -ex 'wait 10' -ex 'next 2 2' -ex 'wait 10' -ex c -ex 'wait 30' \
    -ex 'wait 30' -ex 'info entries' -ex 'delete all' -ex 'freeze 2-3' -ex 'c 0-1' -ex 'wait 30' -ex 'status' \
    -ex detach -- "$mpiexec" -n 4 "$examples/phases" 3
  local i
  for i in $(seq 1 100); do grep -q "phases: checksum" "$work/err" && break; sleep 0.1; done
  err="$(cat "$work/err")"
  check_rc 65 &&
  check_contains "$err" "phases: checksum 48 after 3 steps (expected 48): ok" "the job's output, on stderr under --json" &&
  json_check '
b1 = result("break MPI_Send if dest == 3")["breakpoint"]
check(b1 == {"id": 1, "kind": "mpi", "target": "MPI_Send", "condition": "dest == 3", "hit": 0, "enabled": True,
             "description": "MPI_Send if dest == 3", "ranks": "[0-3]", "rank_list": [0, 1, 2, 3]}, "break 1: %s" % b1)
b2 = result("break [0-1] MPI_Allreduce comm=WORLD #2")
check(b2["breakpoint"]["hit"] == 2 and b2["breakpoint"]["rank_list"] == [0, 1] and b2["succeeded"][0]["rank_list"] == [0, 1], "break 2")
check("unknown MPI function" in envelope("break MPI_Bcats")["error"], "bad break target")
check(result("disable 2")["breakpoint"] == 2 and result("enable 2")["succeeded"][0]["text"] == "enabled breakpoint 2", "disable/enable")
first = [e["result"] for e in envelopes if e["line"] == "info break"]
check([b["id"] for b in first[0]["breakpoints"]] == [1, 2] and first[0]["breakpoints"][1]["enabled"], "info break")
hits = first[1]["breakpoints"][0]["hits"]
check({"ranks": "[2]", "rank_list": [2], "hits": 1} in hits, "info break: rank 2 hit breakpoint 1 once: %s" % hits)

hit1 = [e for e in events if e["event"] == "breakpoint" and e["breakpoint"] == 1]
check(hit1 and hit1[0]["rank_list"] == [2] and "MPI_Send(dest=3" in hit1[0]["text"], "breakpoint 1 event %s" % hit1)
hit2 = sorted(r for e in events if e["event"] == "breakpoint" and e["breakpoint"] == 2 for r in e["rank_list"])
check(hit2 == [0, 1], "breakpoint 2 hit on ranks 0-1: %s" % hit2)
check(any(e["event"] == "stopped" and e["rank_list"] == [2] and "(step)" in e["text"] for e in events), "a step event")
# "stopped" when the hit arrives during the wait; "settled" when it arrived
# before the wait began (then every rank is already stopped or blocked).
# Either way the wait ended because of the stop, not the 30 s.
w = result("wait 30")
check(w["outcome"] in ("stopped", "settled") and w["seconds"] < 30, "wait returned at the breakpoint: %s" % w)
check(result("status 2")["groups"][0]["state"].startswith("stopped at breakpoint 1 at MPI_Send"), "status 2")
check(result("delete 1")["succeeded"][0]["text"] == "deleted breakpoint 1", "delete 1")
check(result("step [2]")["count"] == 1 and result("next 2 2")["count"] == 2, "step, next")
ent = {e["name"]: e["hits"] for e in result("info entries")["entries"]}
check(set(ent) == {"solver::setup", "solver::step"} and result("info entries")["missing"] == [], "info entries %s" % ent)
check(result("delete all") == {"deleted": [2]}, "delete all")
fz = result("freeze 2-3")
check(not fz["now"] and sorted(r for g in fz["succeeded"] for r in g["rank_list"]) == [2, 3], "freeze 2-3: %s" % fz)
check(result("detach") == {"detached": True}, "detach")
' || return 1
}

case_json_commands_from_stdin_and_events() {
  # Commands from stdin (not a terminal); the job's output goes to stderr,
  # so stdout holds nothing but JSON lines.
  env MPIDBG_IT_MARKER="$work" timeout -k 5 120 "$mpidbg" --json -- "$mpiexec" -n 2 "$examples/ring" \
    >"$work/out" 2>"$work/err" <<<$'status\n\nrun\nwait 60\n'
  rc=$?; out="$(cat "$work/out")"; err="$(cat "$work/err")"
  check_rc 0 &&
  check_contains "$err" "ring: token 3 after 3 laps (expected 3): ok" "the job's output on stderr" &&
  check_not_contains "$out" "ring: token" "stdout" &&
  json_check '
check([e["line"] for e in envelopes] == ["status", "run", "wait 60"], "envelopes %s" % [e["line"] for e in envelopes])
check(result("status")["size"] == 2, "status: 2 ranks")
w = result("wait 60")
check(w["outcome"] == "ended" and w["launcher"] == "exited with code 0", "wait: %s" % w)
' || return 1
  # A rank that dies: an "ended" event.
  run_mpidbg 120 --json -ex run -ex 'wait 30' -ex kill -- "$mpiexec" -n 4 "$examples/crash"
  json_check '
ended = [e for e in events if e["event"] == "ended"]
check(any(e["rank_list"] == [1] and "signal 11" in e["text"] for e in ended), "rank 1 ended by signal 11: %s" % ended)
' || return 1
  check_not_contains "$out" "(mpidbg)" "stdout (no echo under --json)"
}

case_json_option_help_and_usage() {
  run_mpidbg 10 --help
  check_rc 0 && check_contains "$out" "--json" "mpidbg --help" || return 1
  run_mpidbg 10 --json --hang-timeout 3 -- "$mpiexec" -n 1 /bin/true
  check_rc 64 && check_contains "$err" "--json is for commands" "stderr"
}

case_json_lists_and_print_on_heat2d() {
  run_mpidbg 120 --json -ex 'break entry heat2d::step #2' -ex run -ex 'wait 30' -ex lists -ex 'print grid.nx' \
    -ex 'print [0] probes[0:2].col' -ex 'print nosuch' -ex kill -- "$mpiexec" -n 4 "$examples/heat2d" 10
  check_rc 65 &&
  json_check '
lists = result("lists")["lists"]
grid = [l for l in lists if l["name"] == "grid"]
check(len(grid) == 1 and grid[0]["kind"] == "object" and grid[0]["rank_list"] == [0, 1, 2, 3], "lists: grid")
probes = [l for l in lists if l["name"] == "probes"][0]
check(probes["kind"] == "list" and probes["lengths"] == [{"length": 3, "ranks": "[0-3]", "rank_list": [0, 1, 2, 3]}],
      "lists: probes has 3 items on every rank")
nx = result("print grid.nx")
check(nx["answered"]["rank_list"] == [0, 1, 2, 3], "print: every rank answered")
check(nx["fields"] == [{"path": "grid.nx", "values": [
    {"value": "128", "ranks": "[0-2]", "rank_list": [0, 1, 2]},
    {"value": "127", "ranks": "[3]", "rank_list": [3]}]}], "print grid.nx: majority plus the odd rank")
cols = result("print [0] probes[0:2].col")["fields"]
check([f["path"] for f in cols] == ["probes[0].col", "probes[1].col"], "print: item range")
bad = envelope("print nosuch")
check(not bad["ok"] and "no list named" in bad["error"], "print of an unknown list fails")
check(bad["result"]["failed"][0]["rank_list"] == [0, 1, 2, 3], "print failure names every rank")
'
}
