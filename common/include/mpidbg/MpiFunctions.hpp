#pragma once

// The one table of the MPI functions mpidbg interposes (issue 23, item 1;
// issue 25: "the list of MPI functions exists twice"). Everything that names
// them is derived from it: the runtime's MpiFunction enumeration and its
// exported name table (runtime/CurrentCall.hpp, StateLayout.h
// function_names), the breakpoint targets and the arguments their
// conditions may test (ccs/condition/Condition.cpp), and so the names in every report.
//
// MPIDBG_MPI_FUNCTIONS(X) expands X(Enumerator, "MPI_Name", CLASS, FIELDS, ROLE, GROUP)
// once per function, in MpiFunction order (after None). FIELDS are the arguments a
// breakpoint condition may test besides rank and size, as a |-expression
// over D (dest), S (source), T (tag), R (root), N (count: elements, or
// requests for the MPI_Wait*/MPI_Test* arrays), C (comm) and G (target: the
// rank of a window's group a one-sided call, lock or flush names), or 0; only the
// condition language expands it, so those letters need no definition
// elsewhere. Only the first 14 rows' order carries meaning (collClassOf);
// readers find any other function through the exported name table.
//
// ROLE says whether the call is blocking point to point and which side, for
// the queues and the verdict (runtime/QueueHandler.cpp, the mqs DLL's
// blockingKindOf): No, Send, SyncSend (MPI_Ssend*: completes only once
// matched) or Recv (receives and probes, MPI_Sendrecv* by its receive).
//
// GROUP is Group for a call that is collective over its communicator's group
// although counted in no collective class: the communicator and window
// constructors and MPI_Comm_free/MPI_Comm_disconnect (counted on the parent
// by the runtime, runtime/CommWrappers.cpp) and the collective MPI-IO calls
// (runtime/FileWrappers.cpp; not the split collectives' _end, the
// nonblocking forms or MPI_File_delete). In the verdict each member inside
// one waits for the members not yet there (debugger/core/HangReport.cpp).
// No otherwise, also for the dynamic-process calls, which wait for
// processes outside the job (named not followed).
//
// Adding a function: one row here, its wrapper in runtime/*Wrappers.cpp.

#define MPIDBG_MPI_FUNCTIONS(X) \
  /* Blocking collectives, in mqs_comm_class order (../shared/protocols/mqs.md, "The */ \
  /* collective extension"): MpiFunction - 1 is the collective class (collClassOf). */ \
  X(Barrier, "MPI_Barrier", Barrier, C, No, No) \
  X(Bcast, "MPI_Bcast", Bcast, R|N|C, No, No) \
  X(Allgather, "MPI_Allgather", Allgather, N|C, No, No) \
  X(Allgatherv, "MPI_Allgatherv", Allgatherv, N|C, No, No) \
  X(Allreduce, "MPI_Allreduce", Allreduce, N|C, No, No) \
  X(Alltoall, "MPI_Alltoall", Alltoall, N|C, No, No) \
  X(Alltoallv, "MPI_Alltoallv", Alltoallv, C, No, No) \
  X(ReduceScatter, "MPI_Reduce_scatter", ReduceScatter, C, No, No) \
  X(Reduce, "MPI_Reduce", Reduce, R|N|C, No, No) \
  X(Gather, "MPI_Gather", Gather, R|N|C, No, No) \
  X(Gatherv, "MPI_Gatherv", Gatherv, R|N|C, No, No) \
  X(Scan, "MPI_Scan", Scan, N|C, No, No) \
  X(Scatter, "MPI_Scatter", Scatter, R|N|C, No, No) \
  X(Scatterv, "MPI_Scatterv", Scatterv, R|N|C, No, No) \
  /* Blocking point to point and probe (P2pWrappers.cpp). */ \
  X(Send, "MPI_Send", None, D|T|N|C, Send, No) \
  X(Ssend, "MPI_Ssend", None, D|T|N|C, SyncSend, No) \
  X(Bsend, "MPI_Bsend", None, D|T|N|C, Send, No) \
  X(Rsend, "MPI_Rsend", None, D|T|N|C, Send, No) \
  X(Recv, "MPI_Recv", None, S|T|N|C, Recv, No) \
  X(Sendrecv, "MPI_Sendrecv", None, D|S|T|N|C, Recv, No) \
  X(SendrecvReplace, "MPI_Sendrecv_replace", None, D|S|T|N|C, Recv, No) \
  X(Probe, "MPI_Probe", None, S|T|C, Recv, No) \
  /* Request completion, blocking (P2pWrappers.cpp). */ \
  X(Wait, "MPI_Wait", None, 0, No, No) \
  X(Waitall, "MPI_Waitall", None, N, No, No) \
  X(Waitany, "MPI_Waitany", None, N, No, No) \
  X(Waitsome, "MPI_Waitsome", None, N, No, No) \
  /* Communicator constructors and MPI_Comm_free, collectives on their parent (CommWrappers.cpp). */ \
  X(CommDup, "MPI_Comm_dup", None, C, No, Group) \
  X(CommSplit, "MPI_Comm_split", None, C, No, Group) \
  X(CommCreate, "MPI_Comm_create", None, C, No, Group) \
  X(CommFree, "MPI_Comm_free", None, C, No, Group) \
  /* The end of MPI (LifecycleWrappers.cpp). */ \
  X(Finalize, "MPI_Finalize", None, 0, No, No) \
  X(Abort, "MPI_Abort", None, C, No, No) \
  /* Nonblocking and persistent point to point, request completion (RequestWrappers.cpp). */ \
  X(Isend, "MPI_Isend", None, D|T|N|C, No, No) \
  X(Issend, "MPI_Issend", None, D|T|N|C, No, No) \
  X(Ibsend, "MPI_Ibsend", None, D|T|N|C, No, No) \
  X(Irsend, "MPI_Irsend", None, D|T|N|C, No, No) \
  X(Irecv, "MPI_Irecv", None, S|T|N|C, No, No) \
  X(SendInit, "MPI_Send_init", None, D|T|N|C, No, No) \
  X(SsendInit, "MPI_Ssend_init", None, D|T|N|C, No, No) \
  X(BsendInit, "MPI_Bsend_init", None, D|T|N|C, No, No) \
  X(RsendInit, "MPI_Rsend_init", None, D|T|N|C, No, No) \
  X(RecvInit, "MPI_Recv_init", None, S|T|N|C, No, No) \
  X(Start, "MPI_Start", None, 0, No, No) \
  X(Startall, "MPI_Startall", None, N, No, No) \
  X(RequestFree, "MPI_Request_free", None, 0, No, No) \
  X(Test, "MPI_Test", None, 0, No, No) \
  X(Testall, "MPI_Testall", None, N, No, No) \
  X(Testany, "MPI_Testany", None, N, No, No) \
  X(Testsome, "MPI_Testsome", None, N, No, No) \
  /* Nonblocking collectives (NonblockingWrappers.cpp): `count` as for the blocking ones. */ \
  X(Ibarrier, "MPI_Ibarrier", Barrier, C, No, No) \
  X(Ibcast, "MPI_Ibcast", Bcast, R|N|C, No, No) \
  X(Igather, "MPI_Igather", Gather, R|N|C, No, No) \
  X(Igatherv, "MPI_Igatherv", Gatherv, R|N|C, No, No) \
  X(Iscatter, "MPI_Iscatter", Scatter, R|N|C, No, No) \
  X(Iscatterv, "MPI_Iscatterv", Scatterv, R|N|C, No, No) \
  X(Iallgather, "MPI_Iallgather", Allgather, N|C, No, No) \
  X(Iallgatherv, "MPI_Iallgatherv", Allgatherv, N|C, No, No) \
  X(Ialltoall, "MPI_Ialltoall", Alltoall, N|C, No, No) \
  X(Ialltoallv, "MPI_Ialltoallv", Alltoallv, C, No, No) \
  X(Ireduce, "MPI_Ireduce", Reduce, R|N|C, No, No) \
  X(Iallreduce, "MPI_Iallreduce", Allreduce, N|C, No, No) \
  X(IreduceScatter, "MPI_Ireduce_scatter", ReduceScatter, C, No, No) \
  X(IreduceScatterBlock, "MPI_Ireduce_scatter_block", ReduceScatter, N|C, No, No) \
  X(Iscan, "MPI_Iscan", Scan, N|C, No, No) \
  X(Iexscan, "MPI_Iexscan", Scan, N|C, No, No) \
  X(IneighborAllgather, "MPI_Ineighbor_allgather", Allgather, N|C, No, No) \
  X(IneighborAllgatherv, "MPI_Ineighbor_allgatherv", Allgatherv, N|C, No, No) \
  X(IneighborAlltoall, "MPI_Ineighbor_alltoall", Alltoall, N|C, No, No) \
  X(IneighborAlltoallv, "MPI_Ineighbor_alltoallv", Alltoallv, C, No, No) \
  /* More communicator constructors, collectives on their parent like MPI_Comm_dup (CommWrappers.cpp). */ \
  X(CommSplitType, "MPI_Comm_split_type", None, C, No, Group) \
  X(CommDupWithInfo, "MPI_Comm_dup_with_info", None, C, No, Group) \
  X(CartCreate, "MPI_Cart_create", None, C, No, Group) \
  X(CartSub, "MPI_Cart_sub", None, C, No, Group) \
  X(GraphCreate, "MPI_Graph_create", None, C, No, Group) \
  X(DistGraphCreate, "MPI_Dist_graph_create", None, C, No, Group) \
  X(DistGraphCreateAdjacent, "MPI_Dist_graph_create_adjacent", None, C, No, Group) \
  /* Collective over a group of the parent, not the parent: not counted on it. */ \
  X(CommCreateGroup, "MPI_Comm_create_group", None, C, No, Group) \
  /* Polled: interposed so that a rank repeating it is seen waiting (runtime/PollWatch.hpp). */ \
  X(Iprobe, "MPI_Iprobe", None, S|T|C, No, No) \
  /* More collectives (issue 23, item 1), each counted in the class of its nearest */ \
  /* blocking form, as the nonblocking ones are (Wrappers.cpp, NonblockingWrappers.cpp). */ \
  X(Exscan, "MPI_Exscan", Scan, N|C, No, No) \
  X(Alltoallw, "MPI_Alltoallw", Alltoallv, C, No, No) \
  X(ReduceScatterBlock, "MPI_Reduce_scatter_block", ReduceScatter, N|C, No, No) \
  X(Ialltoallw, "MPI_Ialltoallw", Alltoallv, C, No, No) \
  /* Matched probes and receives (P2pWrappers.cpp); MPI_Improbe is polled like MPI_Iprobe. */ \
  X(Mprobe, "MPI_Mprobe", None, S|T|C, Recv, No) \
  X(Improbe, "MPI_Improbe", None, S|T|C, No, No) \
  X(Mrecv, "MPI_Mrecv", None, N, No, No) \
  X(Imrecv, "MPI_Imrecv", None, N, No, No) \
  /* MPI-4 nonblocking send-receive (RequestWrappers.cpp; MPICH only, Open MPI 4.1 has none). */ \
  X(Isendrecv, "MPI_Isendrecv", None, S|T|N|C, No, No) \
  X(IsendrecvReplace, "MPI_Isendrecv_replace", None, S|T|N|C, No, No) \
  /* A nonblocking constructor: counted on its parent when issued (CommWrappers.cpp). */ \
  X(CommIdup, "MPI_Comm_idup", None, C, No, Group) \
  /* One-sided communication (issue 23, item 2; CommWrappers.cpp). A window is */ \
  /* registered like a communicator, under its own handle, with its communicator's */ \
  /* members: its constructors are collectives on that communicator (counted there */ \
  /* like MPI_Comm_dup), MPI_Win_fence and MPI_Win_free collectives on the window, */ \
  /* counted in the Barrier class of its record. */ \
  X(WinCreate, "MPI_Win_create", None, C, No, Group) \
  X(WinAllocate, "MPI_Win_allocate", None, C, No, Group) \
  X(WinAllocateShared, "MPI_Win_allocate_shared", None, C, No, Group) \
  X(WinCreateDynamic, "MPI_Win_create_dynamic", None, C, No, Group) \
  X(WinFence, "MPI_Win_fence", Barrier, 0, No, No) \
  X(WinFree, "MPI_Win_free", Barrier, 0, No, No) \
  /* Passive and generalized active target synchronisation: seen (status, break); */ \
  /* lock, unlock and flush wait for a conflicting holder the runtime saw, the PSCW */ \
  /* calls for the peers of their epochs (runtime/WindowSyncWrappers.cpp). */ \
  X(WinLock, "MPI_Win_lock", None, G, No, No) \
  X(WinUnlock, "MPI_Win_unlock", None, G, No, No) \
  X(WinLockAll, "MPI_Win_lock_all", None, 0, No, No) \
  X(WinUnlockAll, "MPI_Win_unlock_all", None, 0, No, No) \
  X(WinFlush, "MPI_Win_flush", None, G, No, No) \
  X(WinFlushAll, "MPI_Win_flush_all", None, 0, No, No) \
  X(WinStart, "MPI_Win_start", None, 0, No, No) \
  X(WinComplete, "MPI_Win_complete", None, 0, No, No) \
  X(WinPost, "MPI_Win_post", None, 0, No, No) \
  X(WinWait, "MPI_Win_wait", None, 0, No, No) \
  /* MPI-4's large-count blocking point-to-point forms (P2pWrappers.cpp; MPI 4 */ \
  /* libraries only: MPICH 4, not Open MPI 4.1): as their int forms. */ \
  X(SendC, "MPI_Send_c", None, D|T|N|C, Send, No) \
  X(SsendC, "MPI_Ssend_c", None, D|T|N|C, SyncSend, No) \
  X(BsendC, "MPI_Bsend_c", None, D|T|N|C, Send, No) \
  X(RsendC, "MPI_Rsend_c", None, D|T|N|C, Send, No) \
  X(RecvC, "MPI_Recv_c", None, S|T|N|C, Recv, No) \
  X(SendrecvC, "MPI_Sendrecv_c", None, D|S|T|N|C, Recv, No) \
  X(SendrecvReplaceC, "MPI_Sendrecv_replace_c", None, D|S|T|N|C, Recv, No) \
  X(MrecvC, "MPI_Mrecv_c", None, N, No, No) \
  /* ... and nonblocking and persistent ones (RequestWrappers.cpp). */ \
  X(IsendC, "MPI_Isend_c", None, D|T|N|C, No, No) \
  X(IssendC, "MPI_Issend_c", None, D|T|N|C, No, No) \
  X(IbsendC, "MPI_Ibsend_c", None, D|T|N|C, No, No) \
  X(IrsendC, "MPI_Irsend_c", None, D|T|N|C, No, No) \
  X(IrecvC, "MPI_Irecv_c", None, S|T|N|C, No, No) \
  X(SendInitC, "MPI_Send_init_c", None, D|T|N|C, No, No) \
  X(SsendInitC, "MPI_Ssend_init_c", None, D|T|N|C, No, No) \
  X(BsendInitC, "MPI_Bsend_init_c", None, D|T|N|C, No, No) \
  X(RsendInitC, "MPI_Rsend_init_c", None, D|T|N|C, No, No) \
  X(RecvInitC, "MPI_Recv_init_c", None, S|T|N|C, No, No) \
  X(ImrecvC, "MPI_Imrecv_c", None, N, No, No) \
  X(IsendrecvC, "MPI_Isendrecv_c", None, S|T|N|C, No, No) \
  X(IsendrecvReplaceC, "MPI_Isendrecv_replace_c", None, S|T|N|C, No, No) \
  /* MPI-4's large-count collectives (Wrappers.cpp, NonblockingWrappers.cpp; MPI 4 */ \
  /* libraries only): counted in the class of their int form, as their int forms are. */ \
  X(BcastC, "MPI_Bcast_c", Bcast, R|N|C, No, No) \
  X(AllgatherC, "MPI_Allgather_c", Allgather, N|C, No, No) \
  X(AllgathervC, "MPI_Allgatherv_c", Allgatherv, N|C, No, No) \
  X(AllreduceC, "MPI_Allreduce_c", Allreduce, N|C, No, No) \
  X(AlltoallC, "MPI_Alltoall_c", Alltoall, N|C, No, No) \
  X(AlltoallvC, "MPI_Alltoallv_c", Alltoallv, C, No, No) \
  X(AlltoallwC, "MPI_Alltoallw_c", Alltoallv, C, No, No) \
  X(ReduceScatterC, "MPI_Reduce_scatter_c", ReduceScatter, C, No, No) \
  X(ReduceScatterBlockC, "MPI_Reduce_scatter_block_c", ReduceScatter, N|C, No, No) \
  X(ReduceC, "MPI_Reduce_c", Reduce, R|N|C, No, No) \
  X(GatherC, "MPI_Gather_c", Gather, R|N|C, No, No) \
  X(GathervC, "MPI_Gatherv_c", Gatherv, R|N|C, No, No) \
  X(ScanC, "MPI_Scan_c", Scan, N|C, No, No) \
  X(ExscanC, "MPI_Exscan_c", Scan, N|C, No, No) \
  X(ScatterC, "MPI_Scatter_c", Scatter, R|N|C, No, No) \
  X(ScattervC, "MPI_Scatterv_c", Scatterv, R|N|C, No, No) \
  X(IbcastC, "MPI_Ibcast_c", Bcast, R|N|C, No, No) \
  X(IallgatherC, "MPI_Iallgather_c", Allgather, N|C, No, No) \
  X(IallgathervC, "MPI_Iallgatherv_c", Allgatherv, N|C, No, No) \
  X(IallreduceC, "MPI_Iallreduce_c", Allreduce, N|C, No, No) \
  X(IalltoallC, "MPI_Ialltoall_c", Alltoall, N|C, No, No) \
  X(IalltoallvC, "MPI_Ialltoallv_c", Alltoallv, C, No, No) \
  X(IalltoallwC, "MPI_Ialltoallw_c", Alltoallv, C, No, No) \
  X(IreduceScatterC, "MPI_Ireduce_scatter_c", ReduceScatter, C, No, No) \
  X(IreduceScatterBlockC, "MPI_Ireduce_scatter_block_c", ReduceScatter, N|C, No, No) \
  X(IreduceC, "MPI_Ireduce_c", Reduce, R|N|C, No, No) \
  X(IgatherC, "MPI_Igather_c", Gather, R|N|C, No, No) \
  X(IgathervC, "MPI_Igatherv_c", Gatherv, R|N|C, No, No) \
  X(IscanC, "MPI_Iscan_c", Scan, N|C, No, No) \
  X(IexscanC, "MPI_Iexscan_c", Scan, N|C, No, No) \
  X(IscatterC, "MPI_Iscatter_c", Scatter, R|N|C, No, No) \
  X(IscattervC, "MPI_Iscatterv_c", Scatterv, R|N|C, No, No) \
  /* MPI-4's persistent collectives (PersistentCollectives.cpp; MPI 4 libraries only): */ \
  /* the init call is seen, each MPI_Start* counts one call of its int form's class on */ \
  /* the communicator, as a nonblocking collective is counted when issued. */ \
  X(BarrierInit, "MPI_Barrier_init", Barrier, C, No, No) \
  X(BcastInit, "MPI_Bcast_init", Bcast, R|N|C, No, No) \
  X(AllgatherInit, "MPI_Allgather_init", Allgather, N|C, No, No) \
  X(AllgathervInit, "MPI_Allgatherv_init", Allgatherv, N|C, No, No) \
  X(AllreduceInit, "MPI_Allreduce_init", Allreduce, N|C, No, No) \
  X(AlltoallInit, "MPI_Alltoall_init", Alltoall, N|C, No, No) \
  X(AlltoallvInit, "MPI_Alltoallv_init", Alltoallv, C, No, No) \
  X(AlltoallwInit, "MPI_Alltoallw_init", Alltoallv, C, No, No) \
  X(ReduceScatterInit, "MPI_Reduce_scatter_init", ReduceScatter, C, No, No) \
  X(ReduceScatterBlockInit, "MPI_Reduce_scatter_block_init", ReduceScatter, N|C, No, No) \
  X(ReduceInit, "MPI_Reduce_init", Reduce, R|N|C, No, No) \
  X(GatherInit, "MPI_Gather_init", Gather, R|N|C, No, No) \
  X(GathervInit, "MPI_Gatherv_init", Gatherv, R|N|C, No, No) \
  X(ScanInit, "MPI_Scan_init", Scan, N|C, No, No) \
  X(ExscanInit, "MPI_Exscan_init", Scan, N|C, No, No) \
  X(ScatterInit, "MPI_Scatter_init", Scatter, R|N|C, No, No) \
  X(ScattervInit, "MPI_Scatterv_init", Scatterv, R|N|C, No, No) \
  /* Neighbourhood collectives, blocking (Wrappers.cpp), MPI_Ineighbor_alltoallw */ \
  /* (NonblockingWrappers.cpp) and persistent (PersistentCollectives.cpp; MPI 4): */ \
  /* counted like the other MPI_Ineighbor_* calls, in the class of the nearest form. */ \
  X(NeighborAllgather, "MPI_Neighbor_allgather", Allgather, N|C, No, No) \
  X(NeighborAllgatherv, "MPI_Neighbor_allgatherv", Allgatherv, N|C, No, No) \
  X(NeighborAlltoall, "MPI_Neighbor_alltoall", Alltoall, N|C, No, No) \
  X(NeighborAlltoallv, "MPI_Neighbor_alltoallv", Alltoallv, C, No, No) \
  X(NeighborAlltoallw, "MPI_Neighbor_alltoallw", Alltoallv, C, No, No) \
  X(IneighborAlltoallw, "MPI_Ineighbor_alltoallw", Alltoallv, C, No, No) \
  X(NeighborAllgatherInit, "MPI_Neighbor_allgather_init", Allgather, N|C, No, No) \
  X(NeighborAllgathervInit, "MPI_Neighbor_allgatherv_init", Allgatherv, N|C, No, No) \
  X(NeighborAlltoallInit, "MPI_Neighbor_alltoall_init", Alltoall, N|C, No, No) \
  X(NeighborAlltoallvInit, "MPI_Neighbor_alltoallv_init", Alltoallv, C, No, No) \
  X(NeighborAlltoallwInit, "MPI_Neighbor_alltoallw_init", Alltoallv, C, No, No) \
  /* RMA operations and the remaining synchronisation calls (RmaWrappers.cpp): seen on */ \
  /* their window with the target rank (status, break); they draw wait-for edges as */ \
  /* MPI_Win_flush does (a lock holder the runtime saw), else are named not followed. */ \
  X(Put, "MPI_Put", None, G|N, No, No) \
  X(Get, "MPI_Get", None, G|N, No, No) \
  X(Accumulate, "MPI_Accumulate", None, G|N, No, No) \
  X(GetAccumulate, "MPI_Get_accumulate", None, G|N, No, No) \
  X(FetchAndOp, "MPI_Fetch_and_op", None, G, No, No) \
  X(CompareAndSwap, "MPI_Compare_and_swap", None, G, No, No) \
  X(Rput, "MPI_Rput", None, G|N, No, No) \
  X(Rget, "MPI_Rget", None, G|N, No, No) \
  X(Raccumulate, "MPI_Raccumulate", None, G|N, No, No) \
  X(RgetAccumulate, "MPI_Rget_accumulate", None, G|N, No, No) \
  X(WinFlushLocal, "MPI_Win_flush_local", None, G, No, No) \
  X(WinFlushLocalAll, "MPI_Win_flush_local_all", None, 0, No, No) \
  X(WinSync, "MPI_Win_sync", None, 0, No, No) \
  X(WinTest, "MPI_Win_test", None, 0, No, No) \
  /* Collective MPI-IO (FileWrappers.cpp), on the communicator the file was opened on: */ \
  /* open, close, the views and sizes, the blocking collective reads and writes and the */ \
  /* split collectives' begin count as collectives in no class there (collSeq and the */ \
  /* history, as communicator constructors do); the _end calls, the nonblocking */ \
  /* collective forms and MPI_File_delete (not collective) are only seen. */ \
  X(FileOpen, "MPI_File_open", None, C, No, Group) \
  X(FileClose, "MPI_File_close", None, C, No, Group) \
  X(FileSetView, "MPI_File_set_view", None, C, No, Group) \
  X(FileSetSize, "MPI_File_set_size", None, C, No, Group) \
  X(FilePreallocate, "MPI_File_preallocate", None, C, No, Group) \
  X(FileSync, "MPI_File_sync", None, C, No, Group) \
  X(FileReadAll, "MPI_File_read_all", None, C, No, Group) \
  X(FileWriteAll, "MPI_File_write_all", None, C, No, Group) \
  X(FileReadAtAll, "MPI_File_read_at_all", None, C, No, Group) \
  X(FileWriteAtAll, "MPI_File_write_at_all", None, C, No, Group) \
  X(FileReadOrdered, "MPI_File_read_ordered", None, C, No, Group) \
  X(FileWriteOrdered, "MPI_File_write_ordered", None, C, No, Group) \
  X(FileReadAllBegin, "MPI_File_read_all_begin", None, C, No, Group) \
  X(FileWriteAllBegin, "MPI_File_write_all_begin", None, C, No, Group) \
  X(FileReadAtAllBegin, "MPI_File_read_at_all_begin", None, C, No, Group) \
  X(FileWriteAtAllBegin, "MPI_File_write_at_all_begin", None, C, No, Group) \
  X(FileReadOrderedBegin, "MPI_File_read_ordered_begin", None, C, No, Group) \
  X(FileWriteOrderedBegin, "MPI_File_write_ordered_begin", None, C, No, Group) \
  X(FileReadAllEnd, "MPI_File_read_all_end", None, C, No, No) \
  X(FileWriteAllEnd, "MPI_File_write_all_end", None, C, No, No) \
  X(FileReadAtAllEnd, "MPI_File_read_at_all_end", None, C, No, No) \
  X(FileWriteAtAllEnd, "MPI_File_write_at_all_end", None, C, No, No) \
  X(FileReadOrderedEnd, "MPI_File_read_ordered_end", None, C, No, No) \
  X(FileWriteOrderedEnd, "MPI_File_write_ordered_end", None, C, No, No) \
  X(FileIreadAll, "MPI_File_iread_all", None, N|C, No, No) \
  X(FileIwriteAll, "MPI_File_iwrite_all", None, N|C, No, No) \
  X(FileIreadAtAll, "MPI_File_iread_at_all", None, N|C, No, No) \
  X(FileIwriteAtAll, "MPI_File_iwrite_at_all", None, N|C, No, No) \
  X(FileDelete, "MPI_File_delete", None, 0, No, No) \
  /* Intercommunicators, dynamic processes and the other constructors (CommWrappers.cpp). */ \
  X(CommIdupWithInfo, "MPI_Comm_idup_with_info", None, C, No, Group) \
  X(CommDisconnect, "MPI_Comm_disconnect", None, C, No, Group) \
  X(IntercommCreate, "MPI_Intercomm_create", None, C, No, Group) \
  X(IntercommMerge, "MPI_Intercomm_merge", None, C, No, Group) \
  X(CommSpawn, "MPI_Comm_spawn", None, C, No, No) \
  X(CommSpawnMultiple, "MPI_Comm_spawn_multiple", None, C, No, No) \
  X(CommAccept, "MPI_Comm_accept", None, C, No, No) \
  X(CommConnect, "MPI_Comm_connect", None, C, No, No) \
  X(CommJoin, "MPI_Comm_join", None, 0, No, No) \
  X(CommCreateFromGroup, "MPI_Comm_create_from_group", None, 0, No, Group) \
  X(IntercommCreateFromGroups, "MPI_Intercomm_create_from_groups", None, 0, No, Group) \
  /* The remaining MPI-4 large-count forms (MPI 4 libraries only: MPICH 4, not Open */ \
  /* MPI 4.1), each as its int form: same class, fields and role, wrapped next to it. */ \
  /* Persistent collectives: the int forms are BarrierInit.. (PersistentCollectives.cpp; */ \
  /* MPI_Barrier_init has no count, so no _c form). */ \
  X(BcastInitC, "MPI_Bcast_init_c", Bcast, R|N|C, No, No) \
  X(AllgatherInitC, "MPI_Allgather_init_c", Allgather, N|C, No, No) \
  X(AllgathervInitC, "MPI_Allgatherv_init_c", Allgatherv, N|C, No, No) \
  X(AllreduceInitC, "MPI_Allreduce_init_c", Allreduce, N|C, No, No) \
  X(AlltoallInitC, "MPI_Alltoall_init_c", Alltoall, N|C, No, No) \
  X(AlltoallvInitC, "MPI_Alltoallv_init_c", Alltoallv, C, No, No) \
  X(AlltoallwInitC, "MPI_Alltoallw_init_c", Alltoallv, C, No, No) \
  X(ReduceScatterInitC, "MPI_Reduce_scatter_init_c", ReduceScatter, C, No, No) \
  X(ReduceScatterBlockInitC, "MPI_Reduce_scatter_block_init_c", ReduceScatter, N|C, No, No) \
  X(ReduceInitC, "MPI_Reduce_init_c", Reduce, R|N|C, No, No) \
  X(GatherInitC, "MPI_Gather_init_c", Gather, R|N|C, No, No) \
  X(GathervInitC, "MPI_Gatherv_init_c", Gatherv, R|N|C, No, No) \
  X(ScanInitC, "MPI_Scan_init_c", Scan, N|C, No, No) \
  X(ExscanInitC, "MPI_Exscan_init_c", Scan, N|C, No, No) \
  X(ScatterInitC, "MPI_Scatter_init_c", Scatter, R|N|C, No, No) \
  X(ScattervInitC, "MPI_Scatterv_init_c", Scatterv, R|N|C, No, No) \
  /* Neighbourhood collectives: the int forms are NeighborAllgather.. (blocking, */ \
  /* Wrappers.cpp), IneighborAllgather.. and IneighborAlltoallw (NonblockingWrappers.cpp) */ \
  /* and NeighborAllgatherInit.. (PersistentCollectives.cpp). */ \
  X(NeighborAllgatherC, "MPI_Neighbor_allgather_c", Allgather, N|C, No, No) \
  X(NeighborAllgathervC, "MPI_Neighbor_allgatherv_c", Allgatherv, N|C, No, No) \
  X(NeighborAlltoallC, "MPI_Neighbor_alltoall_c", Alltoall, N|C, No, No) \
  X(NeighborAlltoallvC, "MPI_Neighbor_alltoallv_c", Alltoallv, C, No, No) \
  X(NeighborAlltoallwC, "MPI_Neighbor_alltoallw_c", Alltoallv, C, No, No) \
  X(IneighborAllgatherC, "MPI_Ineighbor_allgather_c", Allgather, N|C, No, No) \
  X(IneighborAllgathervC, "MPI_Ineighbor_allgatherv_c", Allgatherv, N|C, No, No) \
  X(IneighborAlltoallC, "MPI_Ineighbor_alltoall_c", Alltoall, N|C, No, No) \
  X(IneighborAlltoallvC, "MPI_Ineighbor_alltoallv_c", Alltoallv, C, No, No) \
  X(IneighborAlltoallwC, "MPI_Ineighbor_alltoallw_c", Alltoallv, C, No, No) \
  X(NeighborAllgatherInitC, "MPI_Neighbor_allgather_init_c", Allgather, N|C, No, No) \
  X(NeighborAllgathervInitC, "MPI_Neighbor_allgatherv_init_c", Allgatherv, N|C, No, No) \
  X(NeighborAlltoallInitC, "MPI_Neighbor_alltoall_init_c", Alltoall, N|C, No, No) \
  X(NeighborAlltoallvInitC, "MPI_Neighbor_alltoallv_init_c", Alltoallv, C, No, No) \
  X(NeighborAlltoallwInitC, "MPI_Neighbor_alltoallw_init_c", Alltoallv, C, No, No) \
  /* Window constructors: the int forms are WinCreate.. (CommWrappers.cpp). */ \
  X(WinCreateC, "MPI_Win_create_c", None, C, No, Group) \
  X(WinAllocateC, "MPI_Win_allocate_c", None, C, No, Group) \
  X(WinAllocateSharedC, "MPI_Win_allocate_shared_c", None, C, No, Group) \
  /* RMA operations: the int forms are Put.. (RmaWrappers.cpp). */ \
  X(PutC, "MPI_Put_c", None, G|N, No, No) \
  X(GetC, "MPI_Get_c", None, G|N, No, No) \
  X(AccumulateC, "MPI_Accumulate_c", None, G|N, No, No) \
  X(GetAccumulateC, "MPI_Get_accumulate_c", None, G|N, No, No) \
  X(RputC, "MPI_Rput_c", None, G|N, No, No) \
  X(RgetC, "MPI_Rget_c", None, G|N, No, No) \
  X(RaccumulateC, "MPI_Raccumulate_c", None, G|N, No, No) \
  X(RgetAccumulateC, "MPI_Rget_accumulate_c", None, G|N, No, No) \
  /* Collective MPI-IO: the int forms are FileReadAll.. (FileWrappers.cpp). */ \
  X(FileReadAllC, "MPI_File_read_all_c", None, C, No, Group) \
  X(FileWriteAllC, "MPI_File_write_all_c", None, C, No, Group) \
  X(FileReadAtAllC, "MPI_File_read_at_all_c", None, C, No, Group) \
  X(FileWriteAtAllC, "MPI_File_write_at_all_c", None, C, No, Group) \
  X(FileReadOrderedC, "MPI_File_read_ordered_c", None, C, No, Group) \
  X(FileWriteOrderedC, "MPI_File_write_ordered_c", None, C, No, Group) \
  X(FileReadAllBeginC, "MPI_File_read_all_begin_c", None, C, No, Group) \
  X(FileWriteAllBeginC, "MPI_File_write_all_begin_c", None, C, No, Group) \
  X(FileReadAtAllBeginC, "MPI_File_read_at_all_begin_c", None, C, No, Group) \
  X(FileWriteAtAllBeginC, "MPI_File_write_at_all_begin_c", None, C, No, Group) \
  X(FileReadOrderedBeginC, "MPI_File_read_ordered_begin_c", None, C, No, Group) \
  X(FileWriteOrderedBeginC, "MPI_File_write_ordered_begin_c", None, C, No, Group) \
  X(FileIreadAllC, "MPI_File_iread_all_c", None, N|C, No, No) \
  X(FileIwriteAllC, "MPI_File_iwrite_all_c", None, N|C, No, No) \
  X(FileIreadAtAllC, "MPI_File_iread_at_all_c", None, N|C, No, No) \
  X(FileIwriteAtAllC, "MPI_File_iwrite_at_all_c", None, N|C, No, No)

#include <optional>
#include <string_view>

namespace mpidbg {

/// Whether an MPI function is a blocking point-to-point call, and which side
/// (the table's ROLE column).
enum class BlockingRole { No, Send, SyncSend, Recv };

/// What the table says of one function beyond its name, for lookups by name.
struct MpiFunctionFacts {
  std::string_view name;  ///< "MPI_Send"
  BlockingRole role;      ///< the ROLE column
  bool group;             ///< the GROUP column: Group
};

#define MPIDBG_GROUP_Group true
#define MPIDBG_GROUP_No false
#define MPIDBG_FACTS_ROW(enumerator, text, collClass, fields, role, group) \
  MpiFunctionFacts{text, BlockingRole::role, MPIDBG_GROUP_##group},
/// Every row of the table, in its order.
inline constexpr MpiFunctionFacts kMpiFunctionFacts[] = {MPIDBG_MPI_FUNCTIONS(MPIDBG_FACTS_ROW)};
#undef MPIDBG_FACTS_ROW
#undef MPIDBG_GROUP_No
#undef MPIDBG_GROUP_Group

/// The row of the MPI function called `name`, or nullopt for a name not in
/// the table. By value: GCC's -fsanitize=null makes comparing a pointer into
/// the table with nullptr non-constant, and these are used at compile time.
constexpr std::optional<MpiFunctionFacts> mpiFunctionFacts(std::string_view name) noexcept {
  for (const MpiFunctionFacts& row : kMpiFunctionFacts)
    if (row.name == name) return row;
  return std::nullopt;
}

/// True when the MPI function called `name` is collective over its
/// communicator's group though counted in no class (the table's GROUP
/// column: MPI_Comm_dup, MPI_Win_create_c, MPI_File_write_all, ...); false
/// for a name not in the table.
constexpr bool collectiveInNoClass(std::string_view name) noexcept {
  const std::optional<MpiFunctionFacts> row = mpiFunctionFacts(name);
  return row.has_value() && row->group;
}

/// The ROLE of the MPI function called `name` ("MPI_Send_c" -> Send);
/// No for a name not in the table.
constexpr BlockingRole blockingRoleOf(std::string_view name) noexcept {
  const std::optional<MpiFunctionFacts> row = mpiFunctionFacts(name);
  return row.has_value() ? row->role : BlockingRole::No;
}

}  // namespace mpidbg
