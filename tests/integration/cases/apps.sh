# Real MPI applications from Debian's archive under mpidbg (issue 23 item 8):
# LAMMPS, HPCC and MPB on Open MPI (Debian builds them against it), NetPIPE
# and NWChem on MPICH. Each runs to the same output as without mpidbg; a rank
# frozen with 'freeze --now' is held, never a deadlock; a breakpoint on a call
# the application makes stops every rank there, 'where' merges them and the
# run then finishes; nothing is left running (run_case checks). Inputs are in
# tests/apps/; scripts/install-deps installs the applications. Sourced by
# tests/integration/run (run_mpidbg, check_*, $work, $root).

apps_inputs="$root/tests/apps"
apps_ompi=(mpirun.openmpi --oversubscribe)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# apps_need PROGRAM...: each is installed; else the case fails saying how to get it.
apps_need() {
  local p
  for p in "$@"; do
    command -v "$p" >/dev/null || { echo "    $p is not installed (scripts/install-deps installs it)"; return 1; }
  done
}

# Four 'wait's after 'run' to a breakpoint every rank reaches: each returns at
# the next stop (ranks reach it one after another, up to one stop per rank),
# and once all are stopped it returns at once. CI sim 25 saw two waits return
# with one rank of four still on its way.
all_stopped=(-ex 'wait 30' -ex 'wait 30' -ex 'wait 30' -ex 'wait 30')

# thermo TEXT: LAMMPS's thermo table (the lines after 'Step ...' up to 'Loop time').
thermo() { awk '/^ *Step /{ on = 1 } /^Loop time/{ on = 0 } on' <<<"$1"; }

case_apps_lammps_same_output_under_mpidbg() {
  apps_need lmp mpirun.openmpi || return 1
  local plain
  plain="$(cd "$work" && timeout 120 "${apps_ompi[@]}" -n 4 lmp -in "$apps_inputs/in.melt" -var steps 200 -log none 2>&1)"
  run_mpidbg 180 -ex run -ex 'wait 120' -- "${apps_ompi[@]}" -n 4 lmp -in "$apps_inputs/in.melt" -var steps 200 -log none
  check_rc 0 &&
  check_matches "$(thermo "$plain")" '^ +200 ' "the run without mpidbg (its last step)" &&
  check_contains "$out" "$(thermo "$plain")" "the thermo table under mpidbg (the same as without)"
}

case_apps_lammps_frozen_rank_is_held_not_a_deadlock() {
  apps_need lmp mpirun.openmpi || return 1
  # 100000 steps take minutes: rank 1 is frozen mid-run, and the others stop
  # in its halo exchange or a collective, waiting for it.
  run_mpidbg 120 -ex run -ex 'wait 3' -ex 'freeze --now 1' "${all_stopped[@]}" -ex hang -ex where -ex kill -- \
    "${apps_ompi[@]}" -n 4 lmp -in "$apps_inputs/in.melt" -var steps 100000 -log none -screen none
  check_rc 0 &&
  check_matches "$out" '^Timed out after 3\.[0-9] s; some ranks are still running\.$' "wait 3 (LAMMPS still running)" &&
  check_matches "$(section hang)" '^  \[1\] held: frozen \(--now\) in ' "hang (rank 1 held)" &&
  # Usually every other rank waits for rank 1 ("No hang of the program: ranks
  # [0,2-3] wait for rank 1"); on a loaded machine one may still be computing
  # its step, and the line begins "Held by the debugger:" beside it.
  check_matches "$(section hang)" '^(No hang of the program|Held by the debugger): ranks? \[?[0-9,-]+\]? waits? for rank 1, which you froze \(continue 1\)\.$' "hang" &&
  check_not_contains "$out" "Deadlock" "hang" &&
  check_matches "$(section where)" '^main > LAMMPS_NS::Input::file\(\) > .*LAMMPS_NS::Verlet::run\(int\) > ' "where (into LAMMPS's time loop)" &&
  check_matches "$(section where)" '\[[0-3,-]+\]$' "where (ranks merged)" &&
  check_contains "$out" "Killed the job." "kill"
}

case_apps_lammps_break_stops_every_rank_and_the_run_finishes() {
  apps_need lmp mpirun.openmpi || return 1
  # The first MPI_Allreduce (creating the atoms): every rank stops there;
  # 'delete' as in gdb removes every breakpoint and the run goes to its end.
  local plain
  plain="$(cd "$work" && timeout 120 "${apps_ompi[@]}" -n 4 lmp -in "$apps_inputs/in.melt" -var steps 100 -log none 2>&1)"
  run_mpidbg 180 -ex 'break MPI_Allreduce' -ex run "${all_stopped[@]}" -ex status -ex where -ex delete \
    -ex continue -ex 'wait 120' -- "${apps_ompi[@]}" -n 4 lmp -in "$apps_inputs/in.melt" -var steps 100 -log none
  check_rc 0 &&
  check_contains "$(section status)" "[0-3] stopped at breakpoint 1 at MPI_Allreduce(count=1, comm=MPI_COMM_WORLD) call #1" "status" &&
  check_matches "$(section where)" '^main > LAMMPS_NS::Input::file\(\) > .* > MPI_Allreduce  \[0-3\]$' "where (every rank in one line)" &&
  check_contains "$out" "[0-3] deleted breakpoint 1" "delete (no argument: every breakpoint)" &&
  check_contains "$out" "$(thermo "$plain")" "the thermo table after continue (the same as without mpidbg)"
}

case_apps_netpipe_same_sizes_and_frozen_rank_is_held() {
  apps_need NPmpich2 || return 1
  # NetPIPE's figures are timings; the message sizes and repeat counts of
  # its lines are the output that must not change.
  (cd "$work" && timeout 60 "$mpiexec" -n 2 NPmpich2 -u 1024 -n 20 -p 0 -o "$work/np-plain.out" >/dev/null 2>&1)
  run_mpidbg 120 -ex run -ex 'wait 60' -- "$mpiexec" -n 2 NPmpich2 -u 1024 -n 20 -p 0 -o "$work/np-dbg.out"
  check_rc 0 &&
  check_matches "$(cat "$work/np-plain.out" 2>/dev/null)" '^ +1024 ' "NetPIPE's output without mpidbg (up to 1024 bytes)" &&
  check_contains "$(awk '{print $1}' "$work/np-dbg.out" 2>/dev/null)" "$(awk '{print $1}' "$work/np-plain.out")" \
    "NetPIPE's message sizes under mpidbg (the same as without)" || return 1
  # A long run (up to 8 MiB, 2000 repeats each): rank 1 frozen, rank 0 waits for it.
  run_mpidbg 120 -ex run -ex 'wait 2' -ex 'freeze --now 1' -ex 'wait 10' -ex 'wait 10' -ex hang -ex kill -- \
    "$mpiexec" -n 2 NPmpich2 -u 8388608 -n 2000 -p 0 -o "$work/np-long.out"
  check_rc 0 &&
  check_matches "$(section hang)" '^  \[1\] held: frozen \(--now\) in ' "hang (rank 1 held)" &&
  check_matches "$(section hang)" '^  \[0\] blocked in MPI_(Recv|Send)\(' "hang (rank 0 waits in its ping-pong)" &&
  check_contains "$(section hang)" "No hang of the program: rank 0 waits for rank 1, which you froze (continue 1)." "hang" &&
  check_not_contains "$out" "Deadlock" "hang"
}

case_apps_hpcc_succeeds_and_stops_at_a_breakpoint() {
  apps_need hpcc mpirun.openmpi || return 1
  # HPCC reads hpccinf.txt from its directory: Debian's example with a
  # 200 x 200 HPL problem on a 2 x 2 grid (seconds, not minutes).
  local dir="$work/hpcc"
  mkdir -p "$dir/plain" "$dir/dbg"
  sed -e '6s/^1000 /200  /' /usr/share/doc/hpcc/examples/_hpccinf.txt >"$dir/plain/hpccinf.txt"
  cp "$dir/plain/hpccinf.txt" "$dir/dbg/hpccinf.txt"
  timeout 120 "${apps_ompi[@]}" -wdir "$dir/plain" -n 4 hpcc >/dev/null 2>&1
  local sections='^(Begin|End) of |^Success='
  run_mpidbg 180 -ex 'break MPI_Alltoall' -ex run "${all_stopped[@]}" -ex status -ex delete \
    -ex continue -ex 'wait 120' -- "${apps_ompi[@]}" -wdir "$dir/dbg" -n 4 hpcc
  check_rc 0 &&
  check_contains "$(grep -E "$sections" "$dir/plain/hpccoutf.txt")" "Success=1" "HPCC without mpidbg" &&
  check_contains "$(grep -E "$sections" "$dir/dbg/hpccoutf.txt" 2>/dev/null)" "$(grep -E "$sections" "$dir/plain/hpccoutf.txt")" \
    "HPCC's sections and verdict under mpidbg (the same as without)" &&
  check_matches "$(section status)" '^\[0-3\] stopped at breakpoint 1 at MPI_Alltoall\(' "status (every rank at the breakpoint)"
}

case_apps_hpcc_wildcard_waits_on_a_held_rank_are_no_deadlock() {
  apps_need hpcc mpirun.openmpi || return 1
  # RandomAccess: every rank waits on an MPI_Irecv(MPI_ANY_SOURCE) with
  # MPI_Testany/MPI_Waitany. Rank 1 held at its first MPI_Testany while the
  # others go on: they wait for any rank, and rank 1 may still send, so this
  # is no deadlock (session 18's verdict said "Deadlock: cycle 0 -> 2 -> 0").
  local dir="$work/hpcc-held"
  mkdir -p "$dir"
  sed -e '6s/^1000 /200  /' /usr/share/doc/hpcc/examples/_hpccinf.txt >"$dir/hpccinf.txt"
  run_mpidbg 120 -ex 'break MPI_Testany' -ex run "${all_stopped[@]}" -ex delete -ex 'continue 0,2-3' \
    -ex 'wait 10' -ex 'wait 10' -ex hang -ex kill -- "${apps_ompi[@]}" -wdir "$dir" -n 4 hpcc
  check_rc 0 &&
  check_contains "$(section hang)" "  [1] held: breakpoint 1 at MPI_Testany(count=1)" "hang" &&
  check_matches "$(section hang)" '^  \[0\] -> \[1-3\]  in MPI_(Waitany|Testany): MPI_Irecv\(source=MPI_ANY_SOURCE, tag=MPI_ANY_TAG, count=1024\)' "hang (rank 0 waits for any rank)" &&
  check_contains "$(section hang)" "No hang of the program: ranks [0,2-3] wait for rank 1, which is stopped at breakpoint 1 at MPI_Testany(count=1) (continue 1)." "hang" &&
  check_not_contains "$out" "Deadlock" "hang"
}

case_apps_mpb_same_bands_under_mpidbg() {
  apps_need mpb-mpi mpirun.openmpi || return 1
  local plain
  # MPB writes its dielectric function (epsilon.h5) where it runs: $work.
  plain="$(timeout 120 "${apps_ompi[@]}" -wdir "$work" -n 2 mpb-mpi "$apps_inputs/rods.ctl" 2>&1 | grep '^tmfreqs:')"
  run_mpidbg 180 -ex run -ex 'wait 120' -- "${apps_ompi[@]}" -wdir "$work" -n 2 mpb-mpi "$apps_inputs/rods.ctl"
  check_rc 0 &&
  check_contains "$plain" "tmfreqs:, 7, 0.5, 0.5, 0," "MPB's bands without mpidbg" &&
  check_contains "$out" "$plain" "MPB's bands under mpidbg (the same as without)"
}

# NWChem (nwchem-mpich) reaches MPI through Global Arrays over ARMCI-MPI: MPI
# windows (MPI_Win_create, passive-target MPI_Win_lock/MPI_Get/MPI_Put) and
# collectives. ARMCI_USE_WIN_ALLOCATE=0 as nwchem-mpich's README.Debian says:
# with MPI_Win_allocate, the SCF of water does not converge on 2 ranks (with or
# without mpidbg). Each run has its own directory: NWChem writes its database,
# vectors and integrals where it runs.
apps_nwchem=("$mpiexec" -genv ARMCI_USE_WIN_ALLOCATE 0 -n 2)

# scf_energies TEXT: NWChem's SCF energy lines, to 1e-8 hartree (the 12th
# decimal of the total energy differs between runs of 2 ranks).
scf_energies() {
  awk '/^ *(Total SCF|One-electron|Two-electron|Nuclear repulsion) energy = / { printf "%s %.8f\n", $1, $NF }' <<<"$1"
}

case_apps_nwchem_break_stops_every_rank_and_the_same_energy() {
  apps_need nwchem.mpich || return 1
  # The first MPI_Barrier (early in NWChem's start, on a communicator ARMCI
  # made): every rank stops there; after 'delete' and 'continue' the SCF ends
  # with the same energies as without mpidbg.
  local plain
  mkdir -p "$work/nw-plain" "$work/nw-dbg"
  plain="$(timeout 120 "${apps_nwchem[@]}" -wdir "$work/nw-plain" nwchem.mpich "$apps_inputs/h2o.nw" 2>&1)"
  run_mpidbg 180 -ex 'break MPI_Barrier' -ex run -ex 'wait 30' -ex 'wait 30' -ex status -ex collectives -ex hang \
    -ex where -ex delete -ex continue -ex 'wait 120' -- "${apps_nwchem[@]}" -wdir "$work/nw-dbg" nwchem.mpich "$apps_inputs/h2o.nw"
  check_rc 0 &&
  check_contains "$(scf_energies "$plain")" "Total -74.96306312" "NWChem's SCF energy without mpidbg" &&
  check_contains "$(scf_energies "$out")" "$(scf_energies "$plain")" "NWChem's SCF energies under mpidbg (the same as without)" &&
  # Each rank names ARMCI's communicator by its own handle (MPICH numbers them
  # per process: rank 0 also has the node roots' communicator), so 'status'
  # has a line per rank; 'collectives' and 'hang' see one communicator.
  check_matches "$(section status)" '^\[0\] stopped at breakpoint 1 at MPI_Barrier\(comm=comm 0x[0-9a-f]+\) call #1$' "status (rank 0)" &&
  check_matches "$(section status)" '^\[1\] stopped at breakpoint 1 at MPI_Barrier\(comm=comm 0x[0-9a-f]+\) call #1$' "status (rank 1)" &&
  check_matches "$(section collectives)" '^Communicator comm 0x[0-9a-f]+ \(handles 0x[0-9a-f]+ on \[0\], 0x[0-9a-f]+ on \[1\], size 2\):$' \
    "collectives (one communicator, a handle per rank)" &&
  check_contains "$(section collectives)" "  Ranks [0-1] are in call 1 to MPI_Barrier." "collectives" &&
  check_contains "$(section hang)" "No rank is waiting in MPI: nothing is hung." "hang (both ranks held at the breakpoint)" &&
  check_matches "$(section where)" '^main > .* > MPI_Barrier  \[0-1\]$' "where (both ranks in one line)"
}

case_apps_nwchem_frozen_rank_is_held_not_a_deadlock() {
  apps_need nwchem.mpich || return 1
  # The same water in cc-pVTZ, its MP2 energy computed 60 times: rank 1 is
  # frozen mid-run and rank 0 waits for it. One MP2 energy takes 1-3 s on
  # 2 ranks (the first 2.5 s, which ended the job before 'freeze' when it
  # was computed once), so the job runs a minute or more and 'kill' ends it.
  mkdir -p "$work/nw-long"
  {
    sed -e 's/sto-3g/cc-pvtz/' -e '/^task /d' "$apps_inputs/h2o.nw"
    for _ in $(seq 60); do echo "task mp2 energy"; done
  } >"$work/nw-long/h2o.nw"
  run_mpidbg 120 -ex run -ex 'wait 3' -ex 'freeze --now 1' -ex 'wait 10' -ex 'wait 10' -ex hang -ex where -ex kill -- \
    "${apps_nwchem[@]}" -wdir "$work/nw-long" nwchem.mpich "$work/nw-long/h2o.nw"
  check_rc 0 &&
  check_matches "$out" '^Timed out after 3\.[0-9] s; some ranks are still running\.$' "wait 3 (NWChem still running)" &&
  check_matches "$(section hang)" '^  \[1\] held: frozen \(--now\) in ' "hang (rank 1 held)" &&
  # Where rank 0 waits depends on the moment of the freeze. In a collective
  # rank 1 has not entered (MPI_Allgather, MPI_Allreduce, MPI_Win_create) or
  # is frozen inside, the verdict is "No hang of the program: rank 0 waits
  # for rank 1, which you froze (continue 1)."; when rank 0 waits in ARMCI's
  # MPI_Win_flush_local_all (passive target: rank 1 must make progress;
  # whom it waits for is not followed), "Held by the debugger: the ranks not
  # followed may wait for rank 1, ...". Never a deadlock, never "a rank may
  # still be on its way".
  check_not_contains "$out" "Deadlock" "hang" &&
  check_not_contains "$out" "without a closed loop" "hang (rank 0 waits for the frozen rank)" &&
  check_matches "$(section hang)" '^(No hang of the program: rank 0 waits for|Held by the debugger: the ranks not followed may wait for) rank 1, which you froze \(continue 1\)\.$' "hang (the frozen rank named)" &&
  check_matches "$(section where)" '^main > .*  \[0(-1)?\]$' "where (rank 0)" &&
  check_matches "$(section where)" '^main > .*  \[(0-)?1\]$' "where (rank 1)" &&
  check_contains "$out" "Killed the job." "kill"
}
