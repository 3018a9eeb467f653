// A Charm++ program for mpidbg's Charm++ back end (issue 26): a ring of chares
// passes a token round after round. Each Cell keeps PUP'd fields (hits, sum,
// last), so `print charm/arrayElements` has something to show; at start Main
// sends every Cell three pings, which wait in the PEs' queues while the
// program is frozen (`print converse/localqueue`).
//
//   charmc ring.ci && charmc -g -O0 ring.cpp -o ring
//   mpidbg -- ./charmrun +p2 ++local ./ring 4 1000     (4 cells, 1000 rounds)
//   mpidbg -- ./charmrun +p2 ++local ./ring 4 1000 3   (cell 2 calls CkAbort in round 3)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "ring.decl.h"

/*readonly*/ CProxy_Main mainProxy;
/*readonly*/ int numCells;
/*readonly*/ int maxRounds;
/*readonly*/ int abortRound;

class Main : public CBase_Main {
 public:
  explicit Main(CkArgMsg* m) {
    numCells = m->argc > 1 ? std::atoi(m->argv[1]) : 4;
    maxRounds = m->argc > 2 ? std::atoi(m->argv[2]) : 1000;
    abortRound = m->argc > 3 ? std::atoi(m->argv[3]) : -1;
    delete m;
    mainProxy = thisProxy;
    CkPrintf("ring: %d cells, %d rounds on %d PEs\n", numCells, maxRounds, CkNumPes());
    CProxy_Cell cells = CProxy_Cell::ckNew(numCells);
    for (int k = 0; k < 3; ++k) cells.ping(k);
    cells[0].pass(0, 1.0);
  }
  void done(int rounds, double token) {
    CkPrintf("ring: done after %d rounds, token %.3f\n", rounds, token);
    CkExit();
  }
};

class Cell : public CBase_Cell {
 public:
  Cell() = default;
  explicit Cell(CkMigrateMessage*) {}
  void pup(PUP::er& p) override {
    CBase_Cell::pup(p);
    PUPn(hits);
    PUPn(pings);
    PUPn(sum);
    PUPn(last);
  }
  void ping(int k) { pings += k + 1; }
  void pass(int round, double token) {
    ++hits;
    sum += token;
    last = round;
    if (thisIndex == 2 && round == abortRound) CkAbort("cell 2 lost the token in round %d", round);
    usleep(2000);  // a visible pace: about 500 passes a second
    const int next = (thisIndex + 1) % numCells;
    const int nextRound = next == 0 ? round + 1 : round;
    if (nextRound == maxRounds) mainProxy.done(nextRound, token);
    else thisProxy[next].pass(nextRound, token * 1.001);
  }

 private:
  int hits = 0;
  int pings = 0;
  double sum = 0;
  int last = -1;
};

#include "ring.def.h"
