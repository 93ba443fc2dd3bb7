/*
 * ticket_mutex.pml - unisync::basic_ticket_mutex, the FIFO ticket lock.
 *
 * Mirrors include/unisync/detail/ticket_lock.hpp (contract: include/unisync/ticket_mutex.hpp):
 *   lock()            my = tickets_taken_.fetch_add(1); wait_for_turn until
 *                     my - tickets_served_.load() == 0 (unsigned, wrapping; then an
 *                     acquire fence)
 *   unlock()          t = tickets_served_.load(relaxed); debug check tickets_taken_ != t;
 *                     tickets_served_.store(t + 1, release) (on the GPU below system
 *                     scope tickets_served_.fetch_add(1, release): only the holder writes
 *                     the word, so the one step is among the interleavings of the two
 *                     modeled here)
 *   try_lock()        s = tickets_served_.load(); e = tickets_taken_.load();
 *                     if e != s: false; else tickets_taken_.compare_exchange_strong(e, e + 1)
 *   try_lock_within() try_lock(); else retry try_lock() until the deadline passes; never
 *                     takes a ticket (the body of try_lock_for / try_lock_until)
 * Memory words: tickets_taken_ and tickets_served_, 32-bit wrapping counters; here both are
 * counters modulo M (default 8, 3 bits), so they wrap many times in every infinite run.
 *
 * Memory model: sequential consistency by default. Every load, store and read-modify-write
 * of the code is one atomic Promela step. -DWEAK_MEMORY adds message passing through the
 * lock on weak memory (protected_data.pmh): each holder's section reads and writes a
 * protected word, its write may wait in a store buffer until unlock()'s release (a store,
 * or on the GPU below system scope a fetch_add), and its read may be taken at any point
 * after the admitting poll, or in try_lock() after the acquire load of tickets_served_
 * (before the compare-exchange). Ghost variables are
 * updated inside the step they describe. The poll of lock() changes no shared state while it
 * fails, so it is modeled as a guard that blocks until tickets_served_ equals the ticket
 * (equivalent up to stuttering).
 *
 * Actors: P0 and P1 call lock()/unlock() forever; P2 calls try_lock_for() ROUNDS times,
 * with a deadline that may pass after any failed attempt (at most TRIES attempts).
 *
 * Stall bound. try_lock() compares two counters it loaded at different times and then
 * compare-exchanges tickets_taken_: it is correct only while the counters do not run a
 * whole wrap (about 2^32 increments on the real words) between its first load and its
 * compare-exchange. The model assumes the same at its width: while P2 is inside
 * try_lock(), the other threads advance the counters at most STALL (default 6; spin
 * finds no error up to 10 with M = 8) times; a thread that would advance them further
 * waits for P2 (P2 never blocks, so this adds no deadlock). -DUNBOUNDED_STALL drops the
 * assumption, and spin finds the failure (an expected failure that documents the
 * limit): P2 loads tickets_served_ == s; the others take and serve tickets until
 * tickets_taken_ == s + M == s (mod M) while ticket s + M - 1 is still waiting or held;
 * P2 loads tickets_taken_, the lock looks free, and the compare-exchange takes ticket
 * s + M out of turn: FIFO is broken and two threads hold the lock.
 *
 * Proves (check_model.sh):
 *   --safety       mutual exclusion (in_cs <= 1); FIFO: the thread that enters holds the
 *                  ticket after the previous holder's (service order == ticket order);
 *                  ticket conservation: tickets_taken_ - tickets_served_ always equals
 *                  the number of threads that hold or wait with a ticket, so a timed-out
 *                  try_lock_for() never leaves an abandoned ticket that would make the
 *                  lock unusable; unlock() only of a held lock; no deadlock
 *   --ltl live0, --ltl live1
 *                  starvation freedom under weak fairness: a thread in lock() eventually
 *                  holds the lock, with the timed thread present
 *   -DWEAK_MEMORY  with --safety: also every holder reads the protected word as the
 *                  previous holder left it
 * Seeded bugs:
 *   -DBUG_UNLOCK_SKIPS       unlock() stores served + 2: FIFO assertion (--safety)
 *   -DBUG_TRY_TAKES_TICKET   try_lock() takes a ticket with fetch_add and abandons it when
 *                            it is not served at once: the conservation assertion
 *                            (--safety), and with -DNO_MONITOR the liveness claims alone
 *                            find the starvation (--ltl live0, acceptance cycle)
 *   -DBUG_TRY_PLAIN_STORE    try_lock() writes e + 1 with a plain store instead of the
 *                            compare-exchange: mutual exclusion / FIFO assertion
 *   -DBUG_RELAXED_RELEASE    (with -DWEAK_MEMORY) unlock()'s store is relaxed: the next
 *                            holder reads the word before the last write lands (assertion)
 *   -DBUG_RELAXED_ADMISSION  (with -DWEAK_MEMORY) lock()'s poll is relaxed and no fence
 *                            follows: a holder's read is taken while it still waits
 *                            (assertion)
 *   -DBUG_RELAXED_TRY        (with -DWEAK_MEMORY) try_lock() loads tickets_served_ relaxed:
 *                            its read may be taken before that load (assertion)
 */

#ifndef M
#define M 8
#endif
#ifndef STALL
#define STALL 6
#endif
#ifndef TRIES
#define TRIES 2
#endif
#ifndef ROUNDS
#define ROUNDS 3
#endif

byte taken = 0;       /* tickets_taken_ (mod M) */
byte served = 0;      /* tickets_served_ (mod M) */

#define NT 3
#include "protected_data.pmh"

/* ghosts */
byte in_cs = 0;       /* threads inside the critical section */
byte owners = 0;      /* threads that hold the lock or wait in lock() with a ticket */
byte next_entry = 0;  /* the ticket that must enter next (FIFO), mod M */
bool waiting[3];      /* inside lock(), ticket taken, not yet holding */
bool cs[3];           /* holding the lock */
bool win = false;     /* P2 is inside try_lock(), between its first load and its CAS */
byte win_seen = 0;    /* counter increments by other threads while win */

#if defined(UNBOUNDED_STALL)
#define ROOM true
#define BUMP skip
#else
/* Guard of every increment of tickets_taken_ / tickets_served_ by P0, P1 (the stall bound). */
#define ROOM (!win || win_seen < STALL)
#define BUMP if :: win -> win_seen++ :: else -> skip fi
#endif

/* Enter the critical section holding ticket t (ghost, merged into the step that entered). */
#define ENTER(id, t) \
  in_cs++; assert(in_cs == 1); \
  assert(t == next_entry); next_entry = (next_entry + 1) % M; \
  waiting[id] = false; cs[id] = true

inline lock(id, my) {
  atomic {                                        /* my = taken.fetch_add(1) */
    ROOM ->
    my = taken; taken = (taken + 1) % M; BUMP;
    owners++; waiting[id] = true
  }
#if defined(BUG_RELAXED_ADMISSION)
  READ_AHEAD(id);                                 /* BUG: loads may pass the poll */
#endif
  atomic {                                        /* wait_for_turn: my - served == 0 */
    (my + M - served) % M == 0 -> ENTER(id, my)
  }
}

inline unlock(id, t) {
  t = served;                                     /* t = served.load(relaxed) */
  assert(taken != t);                             /* debug check: taken.load(relaxed) != t */
  atomic {                                        /* served.store(t + 1, release) */
    ROOM && RELEASE_READY(id) ->
#if defined(BUG_UNLOCK_SKIPS)
    served = (t + 2) % M;                         /* BUG: skips a ticket */
#else
    served = (t + 1) % M;
#endif
    BUMP;
    owners--; in_cs--; cs[id] = false
  }
}

inline try_lock(id, ok, s, e) {
#if defined(BUG_TRY_TAKES_TICKET)
  atomic { e = taken; taken = (taken + 1) % M }   /* BUG: a ticket taken without checking */
  if
  :: atomic { served == e -> ok = true; owners++; ENTER(id, e) }
  :: atomic { served != e -> ok = false }         /* ... and abandoned */
  fi
#else
#if defined(BUG_RELAXED_TRY)
  READ_AHEAD(id);                                 /* BUG: loads may pass the served load */
#endif
  atomic { s = served; win = true; win_seen = 0 } /* s = served.load(acquire)   */
  READ_AHEAD(id);
  e = taken;                                      /* e = taken.load(relaxed) */
  if
  :: e != s -> atomic { ok = false; win = false; win_seen = 0; s = 0; e = 0; DROP_AHEAD(id) }
  :: else ->
#if defined(BUG_TRY_PLAIN_STORE)
     atomic {                                     /* BUG: a plain store of e + 1 */
       taken = (e + 1) % M; ok = true; owners++; ENTER(id, e);
       win = false; win_seen = 0; s = 0; e = 0
     }
#else
     atomic {                                     /* compare_exchange_strong(e, e + 1) */
       if
       :: taken == e -> taken = (e + 1) % M; ok = true; owners++; ENTER(id, e)
       :: else -> ok = false; DROP_AHEAD(id)
       fi;
       win = false; win_seen = 0; s = 0; e = 0    /* (dead values cleared) */
     }
#endif
  fi
#endif
}

proctype locker(byte id) {
  byte my;
  do
  :: lock(id, my);
     SECTION(id);
     unlock(id, my)
  od
}

/* try_lock_for(): try_lock(); then, while the deadline has not passed, retry try_lock().
 * The deadline may pass after any failed attempt; after TRIES attempts it has passed. */
proctype timed(byte id) {
  bool ok;
  byte s, e, t;
  byte rounds = 0;
  byte tries;
  do
  :: rounds < ROUNDS ->
     rounds++;
     tries = 1;
     try_lock(id, ok, s, e);
     do
     :: ok -> break
     :: !ok && tries < TRIES -> tries++; try_lock(id, ok, s, e)
     :: !ok -> break                              /* deadline passed: returns false */
     od;
     if
     :: ok -> SECTION(id); unlock(id, t); t = 0
     :: else -> skip
     fi
  :: else -> break
  od
}

#if !defined(NO_MONITOR)
/* Ticket conservation, checked in every reachable state. */
active proctype conservation() {
end:
  atomic { (taken + M - served) % M != owners -> assert((taken + M - served) % M == owners) }
}
#endif

init {
  atomic {
    run locker(0);
    run locker(1);
    run timed(2);
    START_DRAIN
  }
}

ltl live0 { [] (waiting[0] -> <> cs[0]) }
ltl live1 { [] (waiting[1] -> <> cs[1]) }
