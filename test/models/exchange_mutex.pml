/*
 * exchange_mutex.pml - unisync::basic_mutex, the test-and-test-and-set exchange lock.
 *
 * Mirrors include/unisync/detail/mutex.inl (contract: include/unisync/mutex.hpp):
 *   try_lock()        locked_.load() == 0 && locked_.exchange(1) == 0
 *   lock()            try_lock(); else lock_contended(): retry try_lock() until it succeeds
 *                     (on the GPU below system scope the first try is locked_.exchange(1)
 *                     alone; an exchange that reads 1 writes 1 over 1 and changes nothing,
 *                     so it behaves as the guarded try modeled here)
 *   unlock()          debug check locked_.load() != 0; locked_.store(0)
 *   try_lock_within() try_lock(); else retry try_lock() until the deadline passes
 *                     (the body of try_lock_for / try_lock_until)
 * Memory word: locked_ (0 free, 1 held).
 *
 * Memory model: sequential consistency by default. Every load, store and read-modify-write
 * of the code is one atomic Promela step. -DWEAK_MEMORY adds message passing through the
 * lock on weak memory (protected_data.pmh): each holder's section reads and writes a
 * protected word, its write may wait in a store buffer until unlock()'s release store, and
 * its read may be taken at any point after the acquire exchange. Ghost variables are
 * updated inside the step they describe. A poll that fails changes no shared state, so a
 * retry loop is modeled as a guard that blocks until the load would read 0 (equivalent
 * up to stuttering, for safety and for the ltl formulas under weak fairness).
 *
 * Actors: P0 and P1 call lock()/unlock() forever; P2 calls try_lock_for() with a deadline
 * that may pass after any failed attempt (at most TRIES attempts), ROUNDS times.
 *
 * Proves (check_model.sh):
 *   --safety         mutual exclusion (in_cs <= 1), unlock() only of a held lock, no
 *                    deadlock (no invalid end state)
 *   --ltl progress   deadlock freedom: under weak fairness someone is in the critical
 *                    section infinitely often
 *   --ltl starve0    EXPECTED TO FAIL: P0 can wait forever while P1 keeps re-taking the
 *                    lock (an acceptance cycle): the lock is not starvation-free, as
 *                    mutex.hpp documents
 *   -DWEAK_MEMORY    with --safety: also every holder reads the protected word as the
 *                    previous holder left it
 * Seeded bugs (each must be caught by --safety):
 *   -DBUG_TEST_THEN_STORE     the exchange is replaced by a plain store of 1 after the
 *                             load (or its result is ignored): assertion violation
 *   -DBUG_TIMEOUT_KEEPS_LOCK  the timed path checks the deadline after an attempt that
 *                             took the lock and reports a timeout without unlocking:
 *                             the lock is never freed, an invalid end state (deadlock)
 *   -DBUG_RELAXED_RELEASE     (with -DWEAK_MEMORY) unlock()'s store is relaxed: the next
 *                             holder reads the word before the last write lands (assertion)
 *   -DBUG_RELAXED_EXCHANGE    (with -DWEAK_MEMORY) the exchange is relaxed: a holder's read
 *                             is taken before its exchange, while the previous holder may
 *                             still be in its section (assertion)
 */

#ifndef TRIES
#define TRIES 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

byte locked = 0;      /* locked_ */

#define NT 3
#include "protected_data.pmh"

/* ghosts */
byte in_cs = 0;       /* threads inside the critical section */
bool waiting[3];      /* inside lock(), not yet holding */
bool cs[3];           /* holding the lock */

/* Enter the critical section: one ghost step merged into the step that took the lock. */
#define ENTER(id) in_cs++; assert(in_cs == 1); waiting[id] = false; cs[id] = true

/* try_lock() as the code does it, in two steps: the relaxed load, then the exchange.
 * ok: whether the lock was taken. The caller has set waiting[id]. */
inline try_lock(id, ok) {
  if
  :: locked == 0 ->                               /* load(relaxed) == 0 */
#if defined(BUG_RELAXED_EXCHANGE)
     READ_AHEAD(id);                              /* BUG: loads may pass the exchange */
#endif
#if defined(BUG_TEST_THEN_STORE)
     atomic { locked = 1; ok = true; ENTER(id) }  /* BUG: a store, not an exchange */
#else
     atomic {                                     /* exchange(1) == 0 */
       if
       :: locked == 0 -> locked = 1; ok = true; ENTER(id)
       :: else -> ok = false; DROP_AHEAD(id)      /* locked = 1 over 1: no change */
       fi
     }
#endif
  :: else -> ok = false
  fi
}

/* lock(): try_lock(), then lock_contended() retries it; a retry whose load reads 1 changes
 * nothing, so the retry blocks until the load would read 0. */
inline lock(id, ok) {
  waiting[id] = true;
  try_lock(id, ok);
  do
  :: ok -> break
  :: else ->
     locked == 0;                                 /* poll until the load reads 0 */
     try_lock(id, ok)
  od
}

/* The debug load and the store merged: between them the others can only exchange 1 over 1. */
inline unlock(id) {
  atomic {                                        /* the debug check, then store(0, release) */
    RELEASE_READY(id) ->
    assert(locked != 0);
    locked = 0;
    in_cs--;
    cs[id] = false
  }
}

proctype locker(byte id) {
  bool ok;
  do
  :: lock(id, ok);
     SECTION(id);
     unlock(id)
  od
}

/* try_lock_for(): try_lock(); then, while the deadline has not passed, retry. The deadline
 * may pass after any failed attempt; after TRIES attempts it has passed. */
proctype timed(byte id) {
  bool ok;
  byte rounds = 0;
  byte tries;
  do
  :: rounds < ROUNDS ->
     rounds++;
     tries = 1;
     waiting[id] = true;
     try_lock(id, ok);
     do
     :: ok -> break
     :: !ok && tries < TRIES -> tries++; try_lock(id, ok)   /* deadline not yet passed */
     :: !ok -> waiting[id] = false; break                      /* deadline passed: false */
#if defined(BUG_TIMEOUT_KEEPS_LOCK)
     :: ok && tries > 1 ->                       /* BUG: deadline checked after success */
        atomic { ok = false; waiting[id] = false; in_cs--; cs[id] = false }; break
#endif
     od;
     if
     :: ok -> SECTION(id); unlock(id)
     :: else -> skip
     fi
  :: else -> break
  od
}

init {
  atomic {
    run locker(0);
    run locker(1);
    run timed(2);
    START_DRAIN
  }
}

ltl progress { [] <> (in_cs > 0) }
ltl starve0 { [] (waiting[0] -> <> cs[0]) }
