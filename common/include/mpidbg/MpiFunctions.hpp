#pragma once

// The one table of the MPI functions mpidbg interposes (issue 23, item 1;
// issue 25: "the list of MPI functions exists twice"). Everything that names
// them is derived from it: the runtime's MpiFunction enumeration and its
// exported name table (runtime/CurrentCall.hpp, StateLayout.h
// function_names), the breakpoint targets and the arguments their
// conditions may test (ccs/Condition.cpp), and so the names in every report.
//
// MPIDBG_MPI_FUNCTIONS(X) expands X(Enumerator, "MPI_Name", FIELDS) once per
// function, in MpiFunction order (after None). FIELDS are the arguments a
// breakpoint condition may test besides rank and size, as a |-expression
// over D (dest), S (source), T (tag), R (root), N (count: elements, or
// requests for the MPI_Wait*/MPI_Test* arrays) and C (comm), or 0; only the
// condition language expands it, so those letters need no definition
// elsewhere. Only the first 14 rows' order carries meaning (collClassOf);
// readers find any other function through the exported name table.
//
// Adding a function: one row here, its wrapper in runtime/*Wrappers.cpp.

#define MPIDBG_MPI_FUNCTIONS(X) \
  /* Blocking collectives, in mqs_comm_class order (../shared/protocols/mqs.md, "The */ \
  /* collective extension"): MpiFunction - 1 is the collective class (collClassOf). */ \
  X(Barrier, "MPI_Barrier", C) \
  X(Bcast, "MPI_Bcast", R|N|C) \
  X(Allgather, "MPI_Allgather", N|C) \
  X(Allgatherv, "MPI_Allgatherv", N|C) \
  X(Allreduce, "MPI_Allreduce", N|C) \
  X(Alltoall, "MPI_Alltoall", N|C) \
  X(Alltoallv, "MPI_Alltoallv", C) \
  X(ReduceScatter, "MPI_Reduce_scatter", C) \
  X(Reduce, "MPI_Reduce", R|N|C) \
  X(Gather, "MPI_Gather", R|N|C) \
  X(Gatherv, "MPI_Gatherv", R|N|C) \
  X(Scan, "MPI_Scan", N|C) \
  X(Scatter, "MPI_Scatter", R|N|C) \
  X(Scatterv, "MPI_Scatterv", R|N|C) \
  /* Blocking point to point and probe (P2pWrappers.cpp). */ \
  X(Send, "MPI_Send", D|T|N|C) \
  X(Ssend, "MPI_Ssend", D|T|N|C) \
  X(Bsend, "MPI_Bsend", D|T|N|C) \
  X(Rsend, "MPI_Rsend", D|T|N|C) \
  X(Recv, "MPI_Recv", S|T|N|C) \
  X(Sendrecv, "MPI_Sendrecv", D|S|T|N|C) \
  X(SendrecvReplace, "MPI_Sendrecv_replace", D|S|T|N|C) \
  X(Probe, "MPI_Probe", S|T|C) \
  /* Request completion, blocking (P2pWrappers.cpp). */ \
  X(Wait, "MPI_Wait", 0) \
  X(Waitall, "MPI_Waitall", N) \
  X(Waitany, "MPI_Waitany", N) \
  X(Waitsome, "MPI_Waitsome", N) \
  /* Communicator constructors and MPI_Comm_free, collectives on their parent (CommWrappers.cpp). */ \
  X(CommDup, "MPI_Comm_dup", C) \
  X(CommSplit, "MPI_Comm_split", C) \
  X(CommCreate, "MPI_Comm_create", C) \
  X(CommFree, "MPI_Comm_free", C) \
  /* The end of MPI (LifecycleWrappers.cpp). */ \
  X(Finalize, "MPI_Finalize", 0) \
  X(Abort, "MPI_Abort", C) \
  /* Nonblocking and persistent point to point, request completion (RequestWrappers.cpp). */ \
  X(Isend, "MPI_Isend", D|T|N|C) \
  X(Issend, "MPI_Issend", D|T|N|C) \
  X(Ibsend, "MPI_Ibsend", D|T|N|C) \
  X(Irsend, "MPI_Irsend", D|T|N|C) \
  X(Irecv, "MPI_Irecv", S|T|N|C) \
  X(SendInit, "MPI_Send_init", D|T|N|C) \
  X(SsendInit, "MPI_Ssend_init", D|T|N|C) \
  X(BsendInit, "MPI_Bsend_init", D|T|N|C) \
  X(RsendInit, "MPI_Rsend_init", D|T|N|C) \
  X(RecvInit, "MPI_Recv_init", S|T|N|C) \
  X(Start, "MPI_Start", 0) \
  X(Startall, "MPI_Startall", N) \
  X(RequestFree, "MPI_Request_free", 0) \
  X(Test, "MPI_Test", 0) \
  X(Testall, "MPI_Testall", N) \
  X(Testany, "MPI_Testany", N) \
  X(Testsome, "MPI_Testsome", N) \
  /* Nonblocking collectives (NonblockingWrappers.cpp): `count` as for the blocking ones. */ \
  X(Ibarrier, "MPI_Ibarrier", C) \
  X(Ibcast, "MPI_Ibcast", R|N|C) \
  X(Igather, "MPI_Igather", R|N|C) \
  X(Igatherv, "MPI_Igatherv", R|N|C) \
  X(Iscatter, "MPI_Iscatter", R|N|C) \
  X(Iscatterv, "MPI_Iscatterv", R|N|C) \
  X(Iallgather, "MPI_Iallgather", N|C) \
  X(Iallgatherv, "MPI_Iallgatherv", N|C) \
  X(Ialltoall, "MPI_Ialltoall", N|C) \
  X(Ialltoallv, "MPI_Ialltoallv", C) \
  X(Ireduce, "MPI_Ireduce", R|N|C) \
  X(Iallreduce, "MPI_Iallreduce", N|C) \
  X(IreduceScatter, "MPI_Ireduce_scatter", C) \
  X(IreduceScatterBlock, "MPI_Ireduce_scatter_block", N|C) \
  X(Iscan, "MPI_Iscan", N|C) \
  X(Iexscan, "MPI_Iexscan", N|C) \
  X(IneighborAllgather, "MPI_Ineighbor_allgather", N|C) \
  X(IneighborAllgatherv, "MPI_Ineighbor_allgatherv", N|C) \
  X(IneighborAlltoall, "MPI_Ineighbor_alltoall", N|C) \
  X(IneighborAlltoallv, "MPI_Ineighbor_alltoallv", C) \
  /* More communicator constructors, collectives on their parent like MPI_Comm_dup (CommWrappers.cpp). */ \
  X(CommSplitType, "MPI_Comm_split_type", C) \
  X(CommDupWithInfo, "MPI_Comm_dup_with_info", C) \
  X(CartCreate, "MPI_Cart_create", C) \
  X(CartSub, "MPI_Cart_sub", C) \
  X(GraphCreate, "MPI_Graph_create", C) \
  X(DistGraphCreate, "MPI_Dist_graph_create", C) \
  X(DistGraphCreateAdjacent, "MPI_Dist_graph_create_adjacent", C) \
  /* Collective over a group of the parent, not the parent: not counted on it. */ \
  X(CommCreateGroup, "MPI_Comm_create_group", C) \
  /* Polled: interposed so that a rank repeating it is seen waiting (runtime/PollWatch.hpp). */ \
  X(Iprobe, "MPI_Iprobe", S|T|C)
