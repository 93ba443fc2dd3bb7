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
 *                       (compare-exchange), then G[s] += free; or leave the role (near
 *                       its turn, as below). Admitted: the importer leaves (import_for
 *                       again, then import_role[s] = 0); if my % TT == 0 (turn_comes, see
 *                       -DLONE) and it has not given in this acquire(), give_turn_away:
 *                       wait for the send role; if wants[o] > sent[s]: sent[s]++,
 *                       sent_to[o] = sent[s], and acquire again
 *   release_as(s)       G[s] += 1; if G[s] + seen[s] > T[s] (leftover) and (GPU: no link
 *                       read within the interval, see below, or only_rel[s] and half of N
 *                       over) wants[o] > sent[s] (or only_rel[s] and asked[o]: o's
 *                       wants are not 0, or, GPU, only_rel[s] and half of N over):
 *                       forward_leftovers: take the send role, or, held, on the CPU
 *                       leave a request that the holder serves with one more round (at
 *                       most ROLE_ROUNDS, then it lets go; on the GPU skip, but see lf
 *                       below); each round:
 *                       k = min(leftover,
 *                       wants[o] - sent[s]), or the whole leftover where T[s] is still
 *                       what s's last forward left (only_rel[s]: nobody took a ticket of
 *                       s since; a steal keeps the mark, or loses it racing a forward)
 *                       and o asked or, GPU, half of N is over; T[s] += k;
 *                       only_rel[s] = true; sent[s] += k; sent_to[o] = sent[s].
 *                       Link-free (lf): a GPU release once a link-reading one noted
 *                       asked[0] (`noted`), where only_rel[1], or the send role is held
 *                       within the interval: forward_leftovers without the wants, a
 *                       request where the role is held, and the GPU holder's rounds after
 *                       a link-free one or a request send the whole leftover where
 *                       only_rel[1], else nothing
 *   import_for(s)       wants once asked never go back to "not asked" (STORE_WANTS)
 * Counters are 64-bit in the code, here modulo M (8) with the code's wrapping distance;
 * every distance stays below M / 2 with these few threads and permits. NORM_POOL and
 * NORM_LINK (below) shift the counters to a canonical offset (a symmetry reduction).
 * try_acquire and the timed acquires are modeled with -DTRY (see TRY_TAKE_FREE below):
 * they take a ticket only where it is covered, and a failed one only stores wants, which
 * the forwarding paths may answer with permits that then sit in its side's pool, where
 * acquires take them and steals reach them.
 * Seeded bug (-DTRY -DBUG_TRY_TAKES_TICKET): the try takes the next ticket whether or not
 * a permit covers it, and enters: more than N holders (assertion).
 *
 * Merged steps: the import's reads of sent_to[s], T[s], G[s] and its stores of seen[s]
 * and wants[s] are one step; so are a forwarder's reads and its compare-exchange and
 * stores, and a turn's role, reads and stores (so no request comes while a turn holds
 * the send role; in the code one may, and the turn's leave_send_role serves it with a
 * forward round as a forwarder's does). Sound for safety: the counters only grow,
 * so reading one later than the code does gives a sum at least as large only where it
 * adds permits (G, sent_to), and the compare-exchange on T fails unless T is what was
 * read; the stores publish requests (wants) and a value its single writer (the role
 * holder) alone advances. The steal is split where the code's permits are neither here
 * nor there (taken from the other pool, not yet added to this one).
 *
 * Memory model: sequential consistency by default. The code has store-then-load shapes on
 * different words (a release's fetch_add on G, then its load of wants; an importer's wants
 * store, then its steal's loads of the other pool; a turn's heartbeat store, then its
 * wants load), and argues that no decision rests on them: a release or turn that misses
 * wants acts as in the SC run where it came first (the importer polls again, the next
 * turn or a steal answers), and the heartbeat only times a steal, which the model allows
 * at any poll. Everything that moves permits is a compare-exchange or fetch_add on the
 * pool's own counter, or a release store read by an acquire load.
 * -DWEAK_MEMORY checks that argument for the wants, the shape whose miss could strand
 * permits on a side: each thread's wants store (relaxed in the code) goes to a store
 * buffer of its own, which a flusher process per thread makes visible to the
 * other side at any later time (weak fairness: eventually); `asked`, which stands for those
 * wants not being 0, goes with it. So a release may miss wants that the importer has
 * stored and polled past, and the importer's steal may read the other pool before its
 * wants are visible: both blind, the shape SC cannot show. The import role's release
 * store waits for the thread's buffer (a release orders the thread's earlier stores before
 * it), so the next role holder's wants come after this holder's; the steal's
 * compare-exchange, acq_rel in the code, may come at any time (a superset). The side's
 * own record of what it stored (the code's wants_stored, passed on with the role) is not
 * buffered. The other shapes stay SC here, argued as above: a release's fetch_add on G
 * then its loads of seen and taken, against an importer's mirror store then its loads of
 * T and G (both blind: the release forwards less, the importer asks more, and the next
 * poll or release corrects both); an acquirer's fetch_add on T then its poll of G (a
 * forward takes tickets by compare-exchange on T); a sender's sent_to store then a later
 * wants load (wants never fall below sent_to); the heartbeat, not modeled (it only times
 * a steal).
 * The bypass ghosts are left out (a waiter's count would have to start at the flush of
 * wants that cover its ticket): safety and liveness only.
 * Seeded bug (-DWEAK_MEMORY -DBUG_ROLE_RELEASE_RELAXED): the import role is released
 * without ordering the holder's wants store before it; the next holder's newer wants can
 * then be overwritten on the link by the older ones, which the side, having stored the
 * newer ones itself, never stores again: the other side stops sending (live cycle,
 * 1 + 2, -DNO_STEAL).
 *
 * Time: the steal (after the other side's heartbeat stood still for steal_after_ns) is a
 * choice the model may make at each poll of the import role, after the poll's import (as
 * import_for does it). A GPU release reads the link unless one did less than
 * link_check_interval_ns ago: `fresh`, set by such a read and cleared by the clock
 * process at any time (weak fairness: eventually). CPU releases always read it.
 *
 * Liveness is checked under weak fairness (check_model.sh: pan -a -f). Each option of the
 * waiting loop opens with its whole guard in one atomic step: an option guarded by
 * `importing` alone, then `atomic { WAITS -> ...}`, let a thread commit to importing, be
 * covered by its own import meanwhile, and block forever on the false WAITS (the
 * acceptance cycle once reported for live0 and live1: a model artifact). Likewise the
 * steal follows the import in one poll (as an option of its own, weak fairness let a
 * thread steal forever without mirroring), and a CPU release forwards whenever it can (a
 * free "skip" let the model strand permits that the code forwards).
 *
 * Actors: NC threads on side 0 (CPU), NG on side 1 (GPU), default 1 and 2; each loops
 * acquire; critical section; release. N permits (default 1), all in side 0's pool at the
 * start (as constructed). Turn length TT (default 2: with TT = 1 and N = 1 two hungry
 * sides hand the permit back and forth at every admission and nobody enters; the code's
 * turns are 64 and 128). A clock process ends the GPU releases' link-read interval; with
 * -DWEAK_MEMORY one flusher process per thread empties its store buffer.
 *
 * Proves (check_model.sh, registered in CMakeLists.txt), 1 + 1, 2 + 1 and 1 + 2 threads:
 *   --safety          never more than N holders; no deadlock (a lost permit blocks
 *                     everyone: an invalid end state); with steals and with -DNO_STEAL
 *   bypass (-DNO_STEAL, or -DBYPASS): once its side has stored wants after its ticket, a
 *                     waiter with Q uncovered tickets ahead of it sees at most (Q + 2) TT
 *                     critical sections of the other side (the header's bound;
 *                     -DLIMIT_FLAT=K checks K instead)
 *   --ltl liveN       thread N, once it has taken a ticket, enters (weak fairness; with
 *                     -DNO_BYPASS, which drops the bypass ghosts; with steals and with
 *                     -DNO_STEAL, where the turns and forwarding alone must deliver)
 * 2 + 2 threads (-DNO_STEAL -DNO_BYPASS, PAN_CFLAGS=-DCOLLAPSE): safety registered (5e6
 * states); live0 passed by hand (8e6 states, 90 s, 1.1 GB), not registered for its cost.
 * -DLONE=2: turn_comes's lone host thread: a CPU thread whose previous ticket was its
 * side's previous one (the code asks for the last TT tickets, and a clock) may skip the
 * turns between multiples of LONE TT; the GPU waiters' bypass bound is then
 * (Q + 2) LONE TT (1 + 1 with pairs kept: at most 4 where LONE = 1 has 2). The pool and
 * link shifts grow to multiples of LONE TT, which makes the searches about 8 times
 * larger: registered for 1 + 1 (safety, bypass, liveness, with and without pairs kept
 * and steals), and for 2 + 1 and 1 + 2 safety without steals.
 * -DPAIRED_KEEP: a CPU release keeps its leftover on the CPU side (the code: a host thread
 * releasing the permit it acquired, as every thread here does, keeps it for its next
 * acquire); the turns must then deliver the GPU's permits (with -DBUG_NO_TURN the GPU
 * thread starves: cycle).
 * Seeded bugs:
 *   -DBUG_FORWARD_KEEPS_TICKETS  the forwarder sends leftovers without taking their
 *                     tickets: the permits are used on both sides (assertion)
 *   -DBUG_STEAL_WITHOUT_CAS  the steal adds the other side's free permits to its own pool
 *                     without taking them there (assertion)
 *   -DBUG_WANTS_UNCOVERED_ONLY  wants stores the uncovered count, not a target for sent_to:
 *                     after the first permit the other side never sends again (live1
 *                     cycle, 1 + 1, -DNO_STEAL)
 *   -DBUG_NO_TURN     acquirers never give their permit away: a side with a waiter always
 *                     queued keeps it (live2 cycle, 2 + 1, -DNO_STEAL; the bypass assertion)
 *   -DBUG_TURN_YIELDS_TO_SENDER  a turn that finds the send role busy skips (the code
 *                     before the fix): a forwarding release whose leftover the turn's own
 *                     ticket took holds the role and sends nothing, at every turn (live2
 *                     cycle, 2 + 1, -DNO_STEAL; the bypass assertion)
 *   -DBUG_NEAR_TURN_NEVER_IMPORTS  a waiter near its turn never takes the import role,
 *                     not even once its side's grants have stood still (import_stall_ns):
 *                     a side whose waiters are all near their turn never asks (live1 cycle,
 *                     1 + 1, -DNO_STEAL)
 *   -DBUG_LONE_SKIPS_EVERY_TURN  (with -DLONE=2) a lone CPU thread skips the turns at
 *                     multiples of LONE TT too: with its pairs kept the GPU thread
 *                     starves (live1 cycle, 1 + 1, -DNO_STEAL; the bypass assertion)
 *   -DBUG_GIVE_EVERY_TURN  a thread that gave its permit gives again at its next turn
 *                     ticket (the code before the fix): two CPU threads in FIFO rotation
 *                     with TT = 2, the giver's tickets are all multiples of TT and it never
 *                     enters while the GPU stays hungry (live0 cycle, 2 + 1, -DNO_STEAL)
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
#ifndef LONE
#define LONE 1
#endif
#define PERIOD (LONE * TT)  /* a turn no CPU thread skips: a multiple of LONE TT */
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
bool only_rel[2] = true; /* T[s] is what s's last forward left (tickets_taken_at_forward) */
bool asked[2];          /* side s's wants are not 0 in the code (see IMPORT) */
#if defined(WEAK_MEMORY)
/* -DWEAK_MEMORY: each thread's store buffer for its side's wants (and asked, which goes
   with them); stored_own[s], asked_own[s]: what side s itself last stored (the code's
   wants_stored, which import_for compares with the wants it computes: unchanged wants
   are not stored again) */
short wants_buf[4];
bool asked_buf[4];
bool pending[4];
short stored_own[2];
bool asked_own[2];
#endif
bool ever_sent[2];      /* sent_to[s] was stored (the code's is not 0 from then on) */
bool import_role[2];
bool send_role[2];
bool send_req[2];       /* send_role above 1: CPU forwards that found the role held */
#ifndef ROLE_ROUNDS
#define ROLE_ROUNDS 1   /* tuning::send_role_rounds (2 in the code): 1 explores both an
                           extra round and a let-go with requests left, within depth */
#endif
bool fresh;             /* a GPU release read the link less than link_check_interval_ns ago */
bool noted;             /* side.other_asked of the GPU: a link-reading GPU release saw asked[0] */
short my[NT];           /* a waiting thread's ticket (global for NORM) */
short sh;               /* NORM's shift, 0 between steps */

/* ghosts */
byte in_cs = 0;
bool waiting[NT];
bool cs[NT];
bool counting[NT];      /* its side stored wants after its ticket: bypass counted */
byte seen_foreign[NT];
byte qa[NT];            /* uncovered tickets ahead of it when it took its ticket */
#if LONE > 1
byte last_taker[2] = NT; /* the thread that took the side's last ticket (NT: none yet) */
#endif

#if defined(LIMIT_FLAT)
#define LIMIT(i) (LIMIT_FLAT)
#else
/* A GPU waiter counts CPU critical sections, whose turns a lone thread skips (LONE). */
#define LIMIT(i) ((qa[i] + 2) * (SIDE(i) == 1 -> PERIOD : TT))
#endif
#if (defined(NO_STEAL) || defined(BYPASS)) && !defined(NO_BYPASS) && !defined(WEAK_MEMORY)
#define CHECK_BYPASS 1
#endif

/* Ghost, inside a wants store of side s: the waiters of s with a ticket are counted. */
#if defined(CHECK_BYPASS)
#define ANNOUNCE(s) \
  j = 0; \
  do \
  :: j < NT -> counting[j] = counting[j] || (waiting[j] && SIDE(j) == s); j++ \
  :: else -> j = 0; break \
  od
#else
#define ANNOUNCE(s) skip
#endif

/* import_for(s): mirror, wants */
#if defined(BUG_WANTS_UNCOVERED_ONLY)
#define WANTS_OF(s, u) ((u) > 0 -> (u) : 0)
#else
#define WANTS_OF(s, u) ((sent_to[s] + ((u) > 0 -> (u) : 0)) % M)
#endif
/* Wants once asked never read 0 again: where nothing was ever sent and nothing is
   uncovered (a steal covered the ask), the code keeps its last wants. */
#if defined(WEAK_MEMORY)
#define STORE_WANTS(s, u) \
  w = WANTS_OF(s, u); \
  if \
  :: !ever_sent[s] && (u) <= 0 && asked_own[s] -> skip \
  :: w == stored_own[s] && asked_own[s] == (ever_sent[s] || (u) > 0) -> skip \
  :: else -> \
     wants_buf[id] = w; asked_buf[id] = ever_sent[s] || (u) > 0; \
     stored_own[s] = w; asked_own[s] = asked_buf[id]; pending[id] = true \
  fi; \
  w = 0
/* A release store by thread id (the import role's): its wants store first */
#if defined(BUG_ROLE_RELEASE_RELAXED)
#define FLUSHED_OWN true
#else
#define FLUSHED_OWN (!pending[id])
#endif
#else
#define STORE_WANTS(s, u) \
  if \
  :: !ever_sent[s] && (u) <= 0 && asked[s] -> skip \
  :: else -> wants[s] = WANTS_OF(s, u); asked[s] = ever_sent[s] || (u) > 0 \
  fi
#define FLUSHED_OWN true
#endif
#define IMPORT(s) \
  if \
  :: D(sent_to[s], seen[s]) > 0 -> seen[s] = sent_to[s] \
  :: else -> skip \
  fi; \
  u = D(T[s], (G[s] + sent_to[s]) % M); \
  STORE_WANTS(s, u); \
  ANNOUNCE(s); \
  NORM_LINK(s)

/* -DTRY: try_acquire() and try_acquire_for() by the threads TRIER(id) says (default:
   thread 0, a CPU thread), which choose at every call between acquire() and a try.
   try_take_free(): where the pool has a free permit (granted + seen beyond taken), it
   takes the next ticket, which is covered: one step (the code's loads, then a
   compare-exchange that fails unless taken is what it loaded). Else the try takes the
   import role if it is free (else it fails), imports counting itself in the wants
   (import_for(s, 1, timed): a timed try may steal), and tries again; the untimed try
   gives up after that one look and leaves the role without asking again (its wants stay
   published), the timed one polls until it gives up at any moment and leaves the role as
   a waiter does (leave_import_role(): it asks again without itself). A try gives no turn
   away (its ticket never waits for a turn). */
#if defined(TRY)
#ifndef TRIER
#define TRIER(id) ((id) == 0)
#endif
#if defined(BUG_TRY_TAKES_TICKET)
#define FREE_PERMIT(s) true                                /* BUG: takes the next ticket anyway */
#else
#define FREE_PERMIT(s) (D((G[s] + seen[s]) % M, T[s]) > 0)
#endif
#define TRY_TAKE_FREE(s) \
  atomic { \
    if \
    :: FREE_PERMIT(s) -> INC(T[s], 1); only_rel[s] = false; tried = true \
    :: else -> tried = false \
    fi \
  }
#define IMPORT_EXTRA(s, x) \
  if \
  :: D(sent_to[s], seen[s]) > 0 -> seen[s] = sent_to[s] \
  :: else -> skip \
  fi; \
  u = D((T[s] + (x)) % M, (G[s] + sent_to[s]) % M); \
  STORE_WANTS(s, u); \
  ANNOUNCE(s); \
  NORM_LINK(s)
#endif

/* A GPU release that only releases (only_rel) reads the link within the interval too once
   its leftover reaches half of N (the code: half of max()). */
#define PILING_UP(s) (only_rel[s] && 2 * D((G[s] + seen[s]) % M, T[s]) >= N)
/* A release that read the link forwards what the other side asks for; a side that only
   releases forwards every leftover while the other side's wants are not 0, and a GPU one
   with half of N over even unasked (piles_up). */
#define SENDS_ALL(s, o) (only_rel[s] && (asked[o] || (s == 1 && PILING_UP(s))))
#define FORWARDS(s, o) (D(wants[o], sent[s]) > 0 || SENDS_ALL(s, o))

/* A steal is no acquisition of the side it takes from: its mark stays (the code's
   compare-exchange on tickets_taken_at_forward), or is lost where the steal races a
   forward between its compare-exchange on T and its store of the mark. */
#define KEEP_OR_CLEAR_MARK(f) \
  if \
  :: skip \
  :: only_rel[f] = false \
  fi

/* the poll's admission test failed */
#define WAITS (D((G[s] + seen[s]) % M, my[id]) <= 0)

/* Symmetry reduction (no counterpart in the code). Every test compares side f's counters
   by differences: G[f] + seen[f] and G[f] + sent_to[f] with T[f] and f's tickets;
   sent_to[f] with seen[f]; wants[f] with sent_to[f] and the other side's sent (its
   store); and a ticket modulo TT and LONE TT (the turns). So two shifts change no
   behaviour: the pool shift (G[f], T[f], f's waiting tickets) and the link shift (seen[f],
   sent_to[f], wants[f], sent[other], T[f], f's waiting tickets), each by a multiple of
   LONE TT. Each change of G[f] makes G[f] < LONE TT by the first; each import makes
   seen[f] < LONE TT by the second.
   Without them the offsets and stale tickets multiply the states by thousands.
   -DNO_NORM turns them off (BUG_WANTS_UNCOVERED_ONLY's wants are no difference: no link
   shift there). */
#define SHIFT(x) x = ((x) - sh + M) % M
#define SHIFT_TICKETS(f) \
  SHIFT(T[f]); \
  j = 0; \
  do \
  :: j < NT -> \
     if \
     :: waiting[j] && SIDE(j) == f -> SHIFT(my[j]) \
     :: else -> skip \
     fi; \
     j++ \
  :: else -> j = 0; break \
  od
#if defined(NO_NORM)
#define NORM_POOL(f) skip
#else
#define NORM_POOL(f) \
  sh = G[f] - G[f] % PERIOD; \
  if \
  :: sh > 0 -> SHIFT(G[f]); SHIFT_TICKETS(f); sh = 0 \
  :: else -> skip \
  fi
#endif
#if defined(NO_NORM) || defined(BUG_WANTS_UNCOVERED_ONLY)
#define NORM_LINK(f) skip
#else
#if defined(WEAK_MEMORY)
#define SHIFT_BUFFERED(f) \
  j = 0; \
  do \
  :: j < NT -> \
     if \
     :: pending[j] && SIDE(j) == f -> SHIFT(wants_buf[j]) \
     :: else -> skip \
     fi; \
     j++ \
  :: else -> j = 0; break \
  od; \
  SHIFT(stored_own[f])
#else
#define SHIFT_BUFFERED(f) skip
#endif
#define NORM_LINK(f) \
  sh = seen[f] - seen[f] % PERIOD; \
  if \
  :: sh > 0 -> \
     SHIFT(seen[f]); SHIFT(sent_to[f]); SHIFT(wants[f]); SHIFT(sent[1 - (f)]); \
     SHIFT_BUFFERED(f); SHIFT_TICKETS(f); sh = 0 \
  :: else -> skip \
  fi
#endif

proctype thread(byte id) {
  byte s = SIDE(id);
  byte o = 1 - SIDE(id);
  short u;
  short k;
  byte rounds;          /* leave_send_role's extra rounds */
  bool importing;
  bool steal;
  bool look;
  bool lf;              /* this release forwards without reading the link (GPU) */
  bool gave;
  bool turn;            /* its ticket is a multiple of TT */
  bool forced;          /* ... of LONE TT */
  bool in_row;          /* its previous ticket was its side's previous one */
  bool exempt;          /* this acquire() gave its permit away once already */
  bool tried;           /* -DTRY: the try took a permit */
#if defined(WEAK_MEMORY)
  short w;              /* the wants an import computes */
#endif
  byte j;
  do
#if defined(TRY)
  :: TRIER(id) ->
     TRY_TAKE_FREE(s);
     if
     :: tried -> goto enter                                /* try_take_free(): a free permit */
     :: else -> skip
     fi;
     if
     :: atomic { !import_role[s] -> import_role[s] = true; importing = true }  /* take_import_role */
        do
        :: atomic {                                        /* import_for(s, 1, timed) */
             IMPORT_EXTRA(s, 1); steal = (u > 0); u = 0
           }
           if
           :: atomic {                                     /* the timed try's steal_for(s) */
                steal -> steal = false;
                k = D((G[o] + sent_to[o]) % M, T[o]);
                if
                :: k > 0 -> INC(T[o], k); KEEP_OR_CLEAR_MARK(o)
                :: else -> k = 0
                fi
              }
              atomic { INC(G[s], k); k = 0; NORM_POOL(s) }
           :: atomic { steal = false }
           fi;
           TRY_TAKE_FREE(s);
           if
           :: tried -> break
           :: !tried -> break                              /* gives up (the untimed try: at once) */
           :: !tried -> skip                               /* the timed try polls again */
           fi
        od;
        if
        :: atomic { IMPORT(s); u = 0 }                     /* leave_import_role (timed) */
        :: skip                                            /* try_acquire: the wants stay */
        fi;
        atomic { FLUSHED_OWN -> import_role[s] = false; importing = false }
     :: atomic { import_role[s] -> skip }                  /* the role is taken: fails */
     fi;
     if
     :: tried -> goto enter
     :: else -> goto done
     fi
#endif
  ::
acquire:
     atomic {                                              /* my = T[s].fetch_add(1) */
       my[id] = T[s]; INC(T[s], 1); only_rel[s] = false;
#if LONE > 1
       in_row = (last_taker[s] == id); last_taker[s] = id;
#endif
#if defined(CHECK_BYPASS)
       u = D(my[id], (G[s] + seen[s]) % M);
       qa[id] = (u > 0 -> u : 0);
       counting[id] = false; seen_foreign[id] = 0; u = 0;
#endif
       waiting[id] = true
     }
     do
     :: atomic {                                           /* admitted */
          D((G[s] + seen[s]) % M, my[id]) > 0 ->
          waiting[id] = false; turn = (my[id] % TT == 0); forced = (my[id] % PERIOD == 0); my[id] = 0; break
        }
     /* Each option's whole guard opens its atomic: a poll that finds its ticket covered
        is admitted; a guard split from it ("importing -> atomic { WAITS -> ... }") would
        let a thread commit to importing, be covered meanwhile, and block there forever
        (the acceptance cycle the liveness checks once reported). */
#if defined(BUG_NEAR_TURN_NEVER_IMPORTS)
     /* Waiters near their turn never take the role, stalled or not (with these few threads
        every waiter is near it): nobody asks for the other side's permits. */
     :: atomic { false -> skip }
#else
     :: atomic { !importing && !import_role[s] && WAITS -> import_role[s] = true; importing = true }
#endif
     /* A GPU waiter near its turn while it sees its side's own grants move leaves the
        role (leave_import_role, still waiting); the model lets any role holder do it at
        any poll, and take the role again. */
     :: atomic { importing && WAITS -> IMPORT(s); u = 0 }
        atomic { FLUSHED_OWN -> import_role[s] = false; importing = false }
     /* The import role's poll: import_for(s, 0, true), whose steal comes after the mirror
        and the wants (an option of its own, weak fairness would let a thread steal
        forever and never mirror what was sent to it). */
#if defined(NO_STEAL)
     :: atomic { importing && WAITS -> IMPORT(s); u = 0 }
#else
     :: atomic { importing && WAITS -> IMPORT(s); steal = (u > 0); u = 0 }
        if
        :: atomic {                                        /* steal_for(s) */
             steal -> steal = false;
             k = D((G[o] + sent_to[o]) % M, T[o]);
             if
#if defined(BUG_STEAL_WITHOUT_CAS)
             :: k > 0 -> skip
#else
             :: k > 0 -> INC(T[o], k); KEEP_OR_CLEAR_MARK(o)
#endif
             :: else -> k = 0
             fi
           }
           atomic { INC(G[s], k); k = 0; NORM_POOL(s) }
        :: atomic { steal = false }                        /* the heartbeat moved lately */
        fi
#endif
     od;
     if
     :: importing ->                                       /* leave_import_role */
        atomic { IMPORT(s); u = 0 }
        atomic { FLUSHED_OWN -> import_role[s] = false; importing = false }
     :: else -> skip
     fi;
     gave = false;
     /* turn_comes: a host thread that took its side's last TT tickets itself skips the
        turns between multiples of LONE TT (and takes one once lone_turn_ns have passed).
        The model asks less of it, only its last two tickets in a row, and leaves the clock
        to its choice: such a CPU thread may skip any such turn. */
     if
#if defined(BUG_LONE_SKIPS_EVERY_TURN)
     :: turn && in_row && s == 0 -> turn = false              /* the forced turns too */
#else
     :: turn && in_row && !forced && s == 0 -> turn = false
#endif
     :: true -> skip
     fi;
     forced = false; in_row = false;
#if !defined(BUG_NO_TURN)
     if
#if defined(BUG_GIVE_EVERY_TURN)
     :: turn ->                                            /* give_turn_away */
#else
     :: turn && !exempt ->                                 /* give_turn_away */
#endif
#if defined(BUG_TURN_YIELDS_TO_SENDER)
        atomic {
          if
          :: !send_role[s] && D(wants[o], sent[s]) > 0 ->  /* the role is free: gives */
             INC(sent[s], 1); sent_to[o] = sent[s]; gave = true; ever_sent[o] = true
          :: else -> skip                                  /* role busy, or not wanted */
          fi
        }
#else
        atomic {                                           /* waits for the send role */
          !send_role[s] ->
          if
          :: D(wants[o], sent[s]) > 0 ->
             INC(sent[s], 1); sent_to[o] = sent[s]; gave = true; ever_sent[o] = true
          :: else -> skip                                  /* not wanted */
          fi
        }
#endif
     :: else -> skip
     fi;
#endif
     if
     :: gave -> exempt = true; turn = false; goto acquire
     :: else -> exempt = false; turn = false
     fi;
enter:
#if defined(TRY)
     tried = false;
#endif
     atomic {                                              /* critical section */
       in_cs++; assert(in_cs <= N); cs[id] = true;
#if defined(CHECK_BYPASS)
       assert(!counting[id] || seen_foreign[id] <= LIMIT(id));
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
#endif
     }
     atomic { in_cs--; cs[id] = false; INC(G[s], 1); NORM_POOL(s) }   /* release_as: G[s] += 1 */
     atomic {
       /* A leftover (the loads of seen and taken after the fetch_add) makes the release
          read the link: on the CPU always, on the GPU unless it did less than an interval
          ago (fresh; the clock process ends the interval at any time). A GPU release that
          noted the CPU's ask forwards without reading the link (lf) where its side only
          released, or while the send role is held within the interval. */
       lf = s == 1 && noted && D((G[s] + seen[s]) % M, T[s]) > 0 && (only_rel[s] || (send_role[s] && fresh));
#if defined(PAIRED_KEEP)
       /* every thread here acquires again: a CPU release keeps its leftover for it */
       look = D((G[s] + seen[s]) % M, T[s]) > 0 && s == 1 && (lf || !fresh || PILING_UP(s));
#else
       look = D((G[s] + seen[s]) % M, T[s]) > 0 && (s == 0 || lf || !fresh || PILING_UP(s));
#endif
       if
       :: look && s == 1 && !lf -> fresh = true; noted = noted || asked[o]
       :: look && lf && !fresh -> fresh = true             /* the interval is over: noted */
       :: else -> skip
       fi
     }
     if
     :: atomic { look && (lf || FORWARDS(s, o)) &&
                 !send_role[s] -> send_role[s] = true; look = false }   /* forward_leftovers */
        do
        :: atomic {                                        /* forward_held */
             u = D((G[s] + seen[s]) % M, T[s]);
             if
             :: lf || (s == 1 && rounds > 0) ->            /* link-free: all while only released */
                k = (only_rel[s] -> u : 0)
             :: else ->
                k = D(wants[o], sent[s]);
                k = (SENDS_ALL(s, o) -> u : (k <= 0 -> 0 : (u < k -> u : k)))   /* only released: all */
             fi;
             if
             :: k > 0 ->
#if !defined(BUG_FORWARD_KEEPS_TICKETS)
                INC(T[s], k);
#endif
                only_rel[s] = true; INC(sent[s], k); sent_to[o] = sent[s]; ever_sent[o] = true
             :: else -> skip
             fi;
             u = 0; k = 0
           };
           if                                              /* leave_send_role */
           :: atomic { !send_req[s] -> send_role[s] = false }; break
           :: atomic { send_req[s] && rounds < ROLE_ROUNDS -> send_req[s] = false; rounds++ }
           :: atomic { send_req[s] && rounds == ROLE_ROUNDS -> send_req[s] = false; send_role[s] = false }; break
           fi
        od;
        rounds = 0; lf = false
     :: atomic { look && (lf || FORWARDS(s, o)) && send_role[s] && (s == 0 || lf) ->
                 send_req[s] = true; look = false; lf = false }   /* role held: a request (GPU: link-free) */
     :: atomic { !(look && (lf || FORWARDS(s, o)) && (s == 0 || lf || !send_role[s])) ->
                 look = false; lf = false }                /* not looked, not wanted; GPU: role held */
     fi;
#if defined(TRY)
done:
     skip
#endif
  od
}

/* The GPU releases' rate limit: link_check_interval_ns passes at some time (weak fairness:
   while a read is fresh, eventually). */
proctype clock() {
end:
  do
  :: atomic { fresh -> fresh = false }
  od
}

#if defined(WEAK_MEMORY)
/* Makes thread t's buffered wants store visible, at any time; one process per buffer, so
   that weak fairness flushes each eventually. */
proctype flusher(byte t) {
end:
  do
  :: atomic {
       pending[t] -> wants[SIDE(t)] = wants_buf[t]; asked[SIDE(t)] = asked_buf[t];
       pending[t] = false; wants_buf[t] = 0; asked_buf[t] = false   /* canonical when empty */
     }
  od
}
#endif

init {
  byte i = 0;
  byte j = 0;
  atomic {
    assert(M % PERIOD == 0);                               /* NORM keeps tickets' residues */
    G[0] = N;
    NORM_POOL(0);
    do
    :: i < NT -> run thread(i); i++
    :: else -> break
    od;
    run clock();
#if defined(WEAK_MEMORY)
    assert(NT <= 4);
    i = 0;
    do
    :: i < NT -> run flusher(i); i++
    :: else -> break
    od
#endif
  }
}

ltl live0 { [] (waiting[0] -> <> cs[0]) }
ltl live1 { [] (waiting[1] -> <> cs[1]) }
ltl live2 { [] (waiting[2] -> <> cs[2]) }
