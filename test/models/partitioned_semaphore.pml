/*
 * partitioned_semaphore.pml - unisync::basic_partitioned_semaphore: a FIFO pool per side,
 * permits crossing the link by stores (a hungry side's wants, the other side's sent_to
 * counter), every T-th acquirer giving its permit to a hungry other side, releases
 * forwarding leftovers, and a hungry side taking an idle side's free permits (a steal).
 *
 * Mirrors include/unisync/detail/partitioned_semaphore.inl (contract:
 * include/unisync/partitioned_semaphore.hpp):
 *   acquire_as(s)       my = T[s]++ ; wait until my < G[s] + seen[s]; while waiting a
 *                       waiter may take the import role (import_role[s]: 0 -> 1) and then,
 *                       at each poll, import_for(s): seen[s] = sent_to[s] (if newer);
 *                       wants[s] = sent_to[s] + max(0, T[s] - G[s] - sent_to[s]); and may
 *                       steal: free = G[o] + sent_to[o] - T[o]; if free > 0: T[o] += free
 *                       (compare-exchange), then G[s] += free. Admitted: the importer
 *                       leaves (import_for again, then import_role[s] = 0); if my % TT ==
 *                       0, give_turn_away: try the send role; if wants[o] > sent[s]:
 *                       sent[s]++, sent_to[o] = sent[s], and acquire again
 *   release_as(s)       G[s] += 1; if G[s] + seen[s] > T[s] (leftover) and (GPU: the rate
 *                       limit allows; modeled as a choice) wants[o] > sent[s]:
 *                       forward_leftovers: try the send role; k = min(leftover,
 *                       wants[o] - sent[s]); T[s] += k; sent[s] += k; sent_to[o] = sent[s]
 * Counters are 64-bit in the code, here modulo M (32) with the code's wrapping distance;
 * every distance stays far below M / 2 with these few threads and permits.
 * try_acquire and the timed acquires are not modeled (they take no ticket: a failed one
 * only stores wants, which the forwarding paths may answer with permits that then sit in
 * its side's pool, where acquires take them and steals reach them).
 *
 * Merged steps: the import's reads of sent_to[s], T[s], G[s] and its stores of seen[s]
 * and wants[s] are one step; so are a forwarder's reads and its compare-exchange and
 * stores. Sound for safety: the counters only grow, so reading one later than the code
 * does gives a sum at least as large only where it adds permits (G, sent_to), and the
 * compare-exchange on T fails unless T is what was read; the stores publish requests
 * (wants) and a value its single writer (the role holder) alone advances. The steal is
 * split where the code's permits are neither here nor there (taken from the other pool,
 * not yet added to this one).
 *
 * Memory model: sequential consistency. The code needs no fence: no decision reads
 * another thread's flag after storing its own (no store-buffering shape); each crossing
 * is a release store read by an acquire load, each pool a release sequence of
 * read-modify-writes. So there is no weak-memory variant here (cohort_mutex.pml has one
 * for its Peterson fences).
 *
 * Time is not modeled: the steal (after the other side's heartbeat stood still for
 * steal_after_ns) and the GPU release's link read (at most every link_check_interval_ns)
 * are choices the model may make at any poll or release. Safety is checked with them
 * allowed at any time; liveness and the bypass bound without steals (-DNO_STEAL), so that
 * the turn and forwarding paths alone must deliver.
 *
 * Actors: NC threads on side 0 (CPU), NG on side 1 (GPU), default 1 and 2; each loops
 * acquire; critical section; release. N permits (default 1), all in side 0's pool at the
 * start (as constructed). Turn length TT (default 2: with TT = 1 and N = 1 two hungry sides hand the permit back and forth at every admission and nobody enters; the code's turns are 64 and 128).
 *
 * Status (registered in CMakeLists.txt): safety with steals and the bypass bound without
 * them pass for one CPU and one GPU thread; the seeded safety bugs are caught. With two
 * GPU threads the search exceeds pan's 2 GB limit (DFS depth over 2e6). The liveness
 * formulas (live0, live1 with -DNO_STEAL) report an acceptance cycle that is not yet
 * analyzed (a waiter of one side importing forever while the admitted thread of the other
 * side does not move); until it is, BUG_NO_TURN and BUG_WANTS_UNCOVERED_ONLY, which spin
 * reports as cycles too, prove nothing and are not registered.
 *
 * Proves (check_model.sh):
 *   --safety          never more than N holders; no deadlock (a lost permit blocks
 *                     everyone: an invalid end state)
 *   --ltl liveN       thread N, once it has taken a ticket, enters (weak fairness, with
 *                     -DNO_STEAL)
 *   bypass (default with -DNO_STEAL, or -DBYPASS): once its side has stored wants after
 *                     its ticket, a waiter with Q uncovered tickets ahead of it sees at
 *                     most (Q + 2) TT critical sections of the other side (the header's
 *                     bound; -DLIMIT_FLAT=K checks K instead)
 * Seeded bugs:
 *   -DBUG_FORWARD_KEEPS_TICKETS  the forwarder sends leftovers without taking their
 *                     tickets: the permits are used on both sides (assertion)
 *   -DBUG_STEAL_WITHOUT_CAS  the steal adds the other side's free permits to its own pool
 *                     without taking them there (assertion)
 *   -DBUG_WANTS_UNCOVERED_ONLY  wants stores the uncovered count, not a target for sent_to:
 *                     after the first permit the other side never sends again (cycle,
 *                     -DNO_STEAL)
 *   -DBUG_NO_TURN     acquirers never give their permit away: a busy side keeps it (cycle,
 *                     -DNO_STEAL; the bypass assertion fails)
 */

#ifndef NC
#define NC 1
#endif
#ifndef NG
#define NG 2
#endif
#define NT (NC + NG)
#ifndef N
#define N 1
#endif
#ifndef TT
#define TT 2
#endif
#ifndef M
#define M 8
#endif
#define SIDE(i) ((i) < NC -> 0 : 1)

/* wrapping distance a - b, in (-M/2, M/2] */
#define RAW(a, b) (((a) - (b) + M) % M)
#define D(a, b) (RAW(a, b) <= M / 2 -> RAW(a, b) : RAW(a, b) - M)
#define INC(x, k) x = ((x) + (k)) % M

short T[2];             /* side.tickets_taken */
short G[2];             /* side.permits_granted */
short seen[2];          /* side.permits_seen */
short sent[2];          /* side.permits_sent (send role holder's) */
short sent_to[2];       /* link: sent_to_<side> */
short wants[2];         /* link: <side>_wants */
bool import_role[2];
bool send_role[2];

/* ghosts */
byte in_cs = 0;
bool waiting[NT];
bool cs[NT];
bool counting[NT];      /* its side stored wants after its ticket: bypass counted */
byte seen_foreign[NT];
byte qa[NT];            /* uncovered tickets ahead of it when it took its ticket */

#if defined(LIMIT_FLAT)
#define LIMIT(i) (LIMIT_FLAT)
#else
#define LIMIT(i) ((qa[i] + 2) * TT)
#endif
#if defined(NO_STEAL) || defined(BYPASS)
#define CHECK_BYPASS 1
#endif

/* Ghost, inside a wants store of side s: the waiters of s with a ticket are counted. */
#define ANNOUNCE(s) \
  j = 0; \
  do \
  :: j < NT -> counting[j] = counting[j] || (waiting[j] && SIDE(j) == s); j++ \
  :: else -> j = 0; break \
  od

/* import_for(s): mirror, wants */
#if defined(BUG_WANTS_UNCOVERED_ONLY)
#define WANTS_OF(s, u) ((u) > 0 -> (u) : 0)
#else
#define WANTS_OF(s, u) ((sent_to[s] + ((u) > 0 -> (u) : 0)) % M)
#endif
#define IMPORT(s) \
  if \
  :: D(sent_to[s], seen[s]) > 0 -> seen[s] = sent_to[s] \
  :: else -> skip \
  fi; \
  u = D(T[s], (G[s] + sent_to[s]) % M); \
  wants[s] = WANTS_OF(s, u); \
  ANNOUNCE(s)

/* the poll's admission test failed */
#define WAITS (D((G[s] + seen[s]) % M, my) <= 0)

proctype thread(byte id) {
  byte s = SIDE(id);
  byte o = 1 - SIDE(id);
  short my;
  short u;
  short k;
  bool importing;
  bool gave;
  byte j;
  do
  ::
acquire:
     atomic {                                              /* my = T[s].fetch_add(1) */
       my = T[s]; INC(T[s], 1);
       u = D(my, (G[s] + seen[s]) % M);
       qa[id] = (u > 0 -> u : 0);
       waiting[id] = true; counting[id] = false; seen_foreign[id] = 0; u = 0
     }
     do
     :: atomic { D((G[s] + seen[s]) % M, my) > 0 -> waiting[id] = false; break }   /* admitted */
     :: !importing ->                                      /* each poll tests admission first */
        atomic { !import_role[s] && WAITS -> import_role[s] = true; importing = true }
     :: importing -> atomic { WAITS -> IMPORT(s); u = 0 }
#if !defined(NO_STEAL)
     :: importing ->                                       /* steal_for(s) */
        atomic {
          WAITS;
          k = D((G[o] + sent_to[o]) % M, T[o]);
          if
#if defined(BUG_STEAL_WITHOUT_CAS)
          :: k > 0 -> skip
#else
          :: k > 0 -> INC(T[o], k)
#endif
          :: else -> k = 0
          fi
        }
        atomic { INC(G[s], k); k = 0 }
#endif
     od;
     if
     :: importing ->                                       /* leave_import_role */
        atomic { IMPORT(s); u = 0 }
        atomic { import_role[s] = false; importing = false }
     :: else -> skip
     fi;
     gave = false;
#if !defined(BUG_NO_TURN)
     if
     :: my % TT == 0 ->                                    /* give_turn_away */
        atomic {
          if
          :: !send_role[s] && D(wants[o], sent[s]) > 0 ->  /* the role is free: gives */
             INC(sent[s], 1); sent_to[o] = sent[s]; gave = true
          :: else -> skip                                  /* role busy, or not wanted */
          fi
        }
     :: else -> skip
     fi;
#endif
     if
     :: gave -> goto acquire
     :: else -> skip
     fi;
     atomic {                                              /* critical section */
       in_cs++; assert(in_cs <= N); cs[id] = true;
#if defined(CHECK_BYPASS)
       assert(!counting[id] || seen_foreign[id] <= LIMIT(id));
#endif
       counting[id] = false; seen_foreign[id] = 0; qa[id] = 0;
       j = 0;
       do
       :: j < NT ->
          if
          :: counting[j] && SIDE(j) == o -> seen_foreign[j] = (seen_foreign[j] <= LIMIT(j) -> seen_foreign[j] + 1 : seen_foreign[j])
          :: else -> skip
          fi;
          j++
       :: else -> j = 0; break
       od
     }
     atomic { in_cs--; cs[id] = false; INC(G[s], 1) }     /* release_as: G[s] += 1 */
     if
     :: atomic { D((G[s] + seen[s]) % M, T[s]) > 0 && D(wants[o], sent[s]) > 0 &&
                 !send_role[s] -> send_role[s] = true }    /* forward_leftovers */
        atomic {
          u = D((G[s] + seen[s]) % M, T[s]);
          k = D(wants[o], sent[s]);
          k = (u < k -> u : k);
          if
          :: k > 0 ->
#if !defined(BUG_FORWARD_KEEPS_TICKETS)
             INC(T[s], k);
#endif
             INC(sent[s], k); sent_to[o] = sent[s]
          :: else -> skip
          fi;
          u = 0; k = 0
        }
        atomic { send_role[s] = false }
     :: skip                                               /* no leftover, or not looked */
     fi
  od
}

init {
  byte i = 0;
  atomic {
    G[0] = N;
    do
    :: i < NT -> run thread(i); i++
    :: else -> break
    od
  }
}

ltl live0 { [] (waiting[0] -> <> cs[0]) }
ltl live1 { [] (waiting[1] -> <> cs[1]) }
ltl live2 { [] (waiting[2] -> <> cs[2]) }
