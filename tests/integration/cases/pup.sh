# Object inspection through PUP (issue 8): examples/heat2d watches its tile
# ("grid", mpidbg::watch), sample points ("probes", mpidbg::watch_list) and its
# settings ("config", a C struct with a field table); the last rank has a
# planted off-by-one (grid.nx 127 instead of 128). Sourced by tests/integration/run.

# The output of batch command CMD (mpidbg echoes "(mpidbg) CMD" before it).
pup_section() {
  awk -v cmd="(mpidbg) $1" '$0 == cmd { on = 1; next } /^\(mpidbg\) / { on = 0 } on' <<<"$out"
}

case_pup_finds_the_odd_rank_by_merged_output() {
  run_mpidbg 150 -ex 'break entry heat2d::step #3' -ex run -ex 'wait 30' \
    -ex lists -ex 'print grid.nx' -ex 'ranks where grid.nx != 128' \
    -ex 'set odd = where grid.nx != 128' -ex 'status odd' \
    -ex 'print [1] grid' -ex 'print probes[0:2].col' -ex 'print config' \
    -ex 'print mpi/communicators[0].name' \
    -ex 'print nosuch' -ex 'print grid[0]' -ex 'print grid.' -ex 'ranks where grid.nosuch == 1' \
    -ex kill -- "$mpiexec" -n 4 "$examples/heat2d" 20
  local lists grid
  lists="$(pup_section lists)"
  grid="$(pup_section 'print [1] grid')"
  check_rc 65 &&
  { grep -qE '^grid +object +\[0-3\]$' <<<"$lists" || { echo "    lists: no grid object on [0-3]"; false; }; } &&
  { grep -qE '^probes +list +\[0-3\]  3 items$' <<<"$lists" || { echo "    lists: no probes list"; false; }; } &&
  { grep -qE '^config +object +\[0-3\]$' <<<"$lists" || { echo "    lists: no config object"; false; }; } &&
  { grep -qE '^mpi/pending +list +\[0-3\]' <<<"$lists" || { echo "    lists: no mpi/pending"; false; }; } &&
  { grep -qE '^mpidbg/entries +list +\[0-3\]' <<<"$lists" || { echo "    lists: no mpidbg/entries"; false; }; } &&
  [ "$(pup_section 'print grid.nx')" = "grid.nx = 128 on [0-2]; 127 on [3]" ] &&
  { [ "$(pup_section 'ranks where grid.nx != 128' | awk 'NR > 1 {print $1}')" = "3" ] ||
    { echo "    ranks where: expected rank 3 only"; false; }; } &&
  check_contains "$(pup_section 'status odd')" "[3] stopped at breakpoint 1" "status odd" &&
  check_contains "$grid" "grid.owner = rank 1" "print [1] grid" &&
  # The third entry comes before the loop body records the step: steps 0 and 1 are done.
  check_contains "$grid" "grid.step = 1" "print [1] grid (stopped at the third entry)" &&
  check_contains "$grid" "grid.neighbours[0] = 0" "print [1] grid (std::array)" &&
  check_contains "$grid" "grid.neighbours[1] = 2" "print [1] grid (std::array)" &&
  # Runs of equal elements are joined: the halo row above is still zero at the right end.
  { grep -qE '^grid\.cells\[[0-9]+-[0-9]+\] = 0$' <<<"$grid" || { echo "    print [1] grid: no joined run of cells"; false; }; } &&
  [ "$(pup_section 'print probes[0:2].col')" = "probes[0].col = 0
probes[1].col = 64" ] &&
  check_contains "$(pup_section 'print config')" "config.steps = 20" "print config (C struct)" &&
  check_contains "$(pup_section 'print config')" "config.alpha = 0.25" "print config" &&
  check_contains "$(pup_section 'print config')" "config.scheme = jacobi" "print config (char array)" &&
  check_contains "$out" "mpi/communicators[0].name = MPI_COMM_WORLD" "print mpi/communicators" &&
  check_contains "$err" "error: no rank could show 'nosuch': no list named 'nosuch' (see 'lists')" "unknown list" &&
  check_contains "$err" "error: no rank could show 'grid[0]': 'grid' is an object, not a list: no [index]" "index on object" &&
  check_contains "$err" "error: bad object 'grid.': a field name follows '.'" "bad path" &&
  check_contains "$err" "error: no rank has a field 'grid.nosuch' (print grid shows its fields)" "where on a missing field"
}

case_pup_running_ranks_are_marked_best_effort() {
  # Stopped at the first step, then continued: each rank does the step's
  # exchanges and reduction and sleeps a minute, so after 'wait 1' both are
  # running application code (sleeping) when read. (With 20 ms steps, CI sim
  # 32 read both ranks inside MPI, or not yet woken from the breakpoint, and
  # rightly gave no note.)
  run_mpidbg 150 -ex 'break entry heat2d::step' -ex run -ex 'wait 30' -ex 'delete 1' -ex c -ex 'wait 1' \
    -ex 'print grid.ny' -ex 'print [0] mpi/pending' -ex 'print [0] mpidbg/entries' -ex kill \
    -- "$mpiexec" -n 2 "$examples/heat2d" 400 60000
  check_rc 0 &&
  check_contains "$out" "grid.ny = 8" "print grid.ny" &&
  { grep -qE "^note: \[0-1\] read while running application code \(best effort" <<<"$out" ||
    { echo "    print: no best-effort note"; false; }; } &&
  check_contains "$out" "mpidbg/entries[0].name = heat2d::step" "print mpidbg/entries"
}

# The bytes of an mpidbg-ccs --format hex dump as one hex string.
hex_bytes() {
  sed -E '/bytes\)$/d; s/^[0-9a-f]{8}  //' | tr -d ' \n'
}

case_pup_list_protocol_is_charm_compatible_and_rejects_bad_requests() {
  start_session --ccs-plain -- "$mpiexec" -n 2 "$examples/heat2d" 400 20
  send_command ranks '^1 ' || { end_session; return 1; }
  local endpoint len unknown items txt too_many below oversize nolist
  endpoint="$(awk '$1 == "1" {print $4}' "$work/out")"
  send_command run 'run|Continuing|running' || true
  sleep 1
  local q=("$ccstool" --pe 1 "$endpoint")
  # ccs_list_len: [pathLen BE]["grid"][NUL] -> 1 item; an unknown path -> -1.
  len="$("${q[@]}" ccs_list_len --data-hex 000000046772696400 --format hex 2>&1)"
  unknown="$("${q[@]}" ccs_list_len --data-hex 000000046e6f706500 --format hex 2>&1)"
  # ccs_list_items.fmt/.txt of probes[0..1): lo 0, hi+1 1, extra 0, path "probes", NUL.
  items="$("${q[@]}" ccs_list_items.fmt --data-hex 0000000000000001000000000000000670726f62657300 --format hex 2>&1)"
  txt="$("${q[@]}" ccs_list_items.txt --data-hex 0000000000000001000000000000000670726f62657300 --format text 2>&1 | tr -d '\0')"
  # Bad requests: a range past the end, hi+1 below lo, a 256-byte path, an unknown list.
  too_many="$("${q[@]}" ccs_list_items.fmt --data-hex 0000000000000005000000000000000670726f62657300 --format text 2>&1)"
  below="$("${q[@]}" ccs_list_items.fmt --data-hex 0000000200000001000000000000000670726f62657300 --format text 2>&1)"
  oversize="$("${q[@]}" ccs_list_items.txt --data-hex 0000000000000001000000000000010070726f62657300 --format text 2>&1)"
  nolist="$("${q[@]}" ccs_list_items.fmt --data-hex 000000000000000100000000000000046e6f706500 --format text 2>&1)"
  end_session
  check_contains "$(hex_bytes <<<"$len")" "00000001" "ccs_list_len grid" &&
  [ "$(hex_bytes <<<"$unknown")" = "ffffffff" ] &&
  # Charm++'s framing (capture 05c): begin array, "CpdList", item, ..., end array.
  check_contains "$(hex_bytes <<<"$items")" "0b711000001a074370644c6973740b70110000" "fmt framing" &&
  check_contains "$(hex_bytes <<<"$items")" "1a03726f770200000001" "fmt row = 1" &&
  check_contains "$(hex_bytes <<<"$items")" "0b72100000" "fmt end of list" &&
  check_contains "$txt" "//CpdList" "txt framing" &&
  check_contains "$txt" "//row" "txt label" &&
  check_contains "$txt" "int=1;" "txt value" &&
  check_contains "$too_many" "mpidbg-error: items 0..4 asked of 'probes', which has 3" "range past the end" &&
  check_contains "$below" "mpidbg-error: bad list request: hi+1 1 is below lo 2" "hi+1 below lo" &&
  check_contains "$oversize" "mpidbg-error: bad list request: path length 256 (at most 80)" "oversize path" &&
  check_contains "$nolist" "mpidbg-error: no list named 'nope'" "unknown list"
}

case_pup_pending_operations_show_datatype_and_first_values() {
  # examples/hangs/waitall: rank 0 waits on MPI_Irecv(1 MPI_INT from 3) and an MPI_Ibarrier.
  run_mpidbg 90 -ex run -ex 'wait 20' -ex 'print [0] mpi/pending' -ex kill -- "$mpiexec" -n 4 "$examples/hangs/waitall"
  local pending
  pending="$(pup_section 'print [0] mpi/pending')"
  check_rc 0 &&
  check_contains "$pending" "mpi/pending[0].function = MPI_Irecv" "pending receive" &&
  check_contains "$pending" "mpi/pending[0].peer = 3" "pending receive (source)" &&
  check_contains "$pending" "mpi/pending[0].datatype = MPI_INT" "pending receive (datatype)" &&
  check_contains "$pending" "mpi/pending[0].values[0] = 0" "pending receive (first value of the buffer)" &&
  check_contains "$pending" "mpi/pending[1].function = MPI_Ibarrier" "pending collective" &&
  { grep -qxF "mpi/pending[1].datatype = " <<<"$pending" || { echo "    pending collective: a datatype"; false; }; } &&
  check_contains "$pending" "mpi/pending[1].values = []" "pending collective (no values)"
}
