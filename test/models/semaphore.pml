/*
 * semaphore.pml - unisync::basic_counting_semaphore, the FIFO fetch-and-add semaphore.
 *
 * Mirrors include/unisync/detail/counting_semaphore.inl (contract:
 * include/unisync/counting_semaphore.hpp):
 *   acquire()       my = tickets_taken_.fetch_add(1); wait_for_turn until
 *                   to_go = wrapping_distance(my + 1, permits_granted_.load()) <= 0
 *                   (then an acquire fence)
 *   release(n)      debug check: g = permits_granted_.load, t = tickets_taken_.load,
 *                   n <= max() - wrapping_distance(g, t); then
 *                   permits_granted_.fetch_add(n, release)
 *   try_acquire()   g = permits_granted_.load(); t = tickets_taken_.load();
 *                   if wrapping_distance(g, t) <= 0: false;
 *                   else tickets_taken_.compare_exchange_strong(t, t + 1)
 *   try_acquire_within()  try_acquire(); else retry it until the deadline passes; never
 *                   takes a ticket (the body of try_acquire_for / try_acquire_until)
 * Memory words: tickets_taken_ and permits_granted_, 32-bit wrapping counters; here both
 * are counters modulo M (default 16, 4 bits) and wrapping_distance(a, b) is (a - b) mod M
 * read as a signed number in [-M/2, M/2), exactly like the code's int32 cast.
 * The semaphore is built with count N (default 1; -DN=2) and LeastMaxValue = N.
 *
 * Memory model: sequential consistency by default. Every load, store and read-modify-write
 * of the code is one atomic Promela step. -DWEAK_MEMORY (with N = 1) adds message passing
 * through the semaphore on weak memory (protected_data.pmh): each holder's section reads
 * and writes a protected word, its write may wait in a store buffer until release()'s
 * fetch_add, and its read may be taken at any point after the admitting poll, or in
 * try_acquire() after the acquire load of permits_granted_ (before the compare-exchange).
 * The debug check's loads in release() are relaxed and decide nothing. Ghost variables are
 * updated inside the step they describe. The poll of acquire() changes no shared state while
 * it fails, so it is modeled as a guard that blocks until the ticket is admitted
 * (equivalent up to stuttering).
 *
 * Actors: P0 and P1 acquire and release forever (with N >= 2, P0 takes two permits with
 * two acquire() calls and gives both back with one release(2)); P2 calls
 * try_acquire_for() ROUNDS times, with a deadline that may pass after any failed attempt
 * (at most TRIES attempts), and releases what it got.
 *
 * Stall bound. The code compares counters by wrapping distance, "correct while the true
 * distance stays below 2^31". Two places need more than the header's precondition (count
 * plus waiters below 2^31), because there a thread stalled inside one operation lets the
 * distance grow with every operation of the others:
 *  (1) try_acquire() (and release()'s debug check) loads permits_granted_, then
 *      tickets_taken_: if the others run 2^31 acquire/release pairs in between, the
 *      stale distance reads positive although no permit is free, and the
 *      compare-exchange takes a ticket with no permit: more than max() holders.
 *  (2) acquire() whose ticket was admitted but which has not polled yet: every later
 *      release() moves permits_granted_ further ahead of its ticket; after 2^31 of them
 *      the distance reads "not yet admitted" again, so the thread waits although its
 *      permit is already spent; it gets in only while the counter is in the right half
 *      of its range, and waits forever if the releases stop in the wrong half (for
 *      example while the other threads wait for its permit).
 * The model assumes what the real width makes very likely: (1) while a thread is between
 * the two loads of one operation (a window), the others advance the counters at most
 * STALL times (default 4; spin finds no error up to 12 with M = 16); (2) a release()
 * waits (it is not performed) while it would move permits_granted_ M/2 or more past an
 * admitted ticket that has not been noticed. Whoever waits on the assumption waits for
 * a thread that can always move, so this adds no deadlock. -DUNBOUNDED_STALL drops (1)
 * and -DUNBOUNDED_ADMIT_DELAY drops (2): spin then finds the failures above, expected
 * failures that document the limits.
 *
 * Proves (check_model.sh):
 *   --safety       never more than N permits held (holders <= N); permit conservation:
 *                  permits_granted_ - tickets_taken_ == N - (permits owned by threads,
 *                  held or waited for), so try_acquire()/try_acquire_for() never consume
 *                  a ticket they do not use; release()'s debug precondition never fires
 *                  in correct use; no deadlock
 *   --ltl live0, --ltl live1
 *                  starvation freedom under weak fairness: every acquire() eventually
 *                  returns, since every holder releases
 *   -DWEAK_MEMORY  with N = 1 and --safety: also every holder reads the protected word as
 *                  the previous holder left it
 * Seeded bugs:
 *   -DBUG_RELEASE_NONATOMIC  release() loads permits_granted_ and stores g + n (two
 *                            steps): a lost release breaks conservation (needs N >= 2,
 *                            so that two holders release at once)
 *   -DBUG_TRY_TAKES_TICKET   try_acquire() takes a ticket with fetch_add and abandons it
 *                            when no permit is free: conservation assertion
 *   -DBUG_WAIT_UNSIGNED      acquire() admits when my < permits_granted_ compared as
 *                            unsigned values instead of by wrapping distance: once the
 *                            counters wrap, an admitted ticket (M - 1 with
 *                            permits_granted_ == 0) never reads as admitted: deadlock
 *   -DBUG_RELAXED_RELEASE    (with -DWEAK_MEMORY) release()'s fetch_add is relaxed: the
 *                            next holder reads the word before the last write lands
 *                            (assertion)
 *   -DBUG_RELAXED_ADMISSION  (with -DWEAK_MEMORY) acquire()'s poll is relaxed and no fence
 *                            follows: a holder's read is taken while it still waits
 *                            (assertion)
 *   -DBUG_RELAXED_TRY        (with -DWEAK_MEMORY) try_acquire() loads permits_granted_
 *                            relaxed: its read may be taken before that load (assertion)
 */

#ifndef N
#define N 1
#endif
#ifndef M
#define M 16
#endif
#ifndef STALL
#define STALL 4
#endif
#ifndef TRIES
#define TRIES 2
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

#define HALF (M / 2)
#define UDIST(later, earlier) (((later) + M - (earlier)) % M)
/* detail::wrapping_distance(later, earlier) at the model's width */
#define DIST(later, earlier) (UDIST(later, earlier) >= HALF -> UDIST(later, earlier) - M : UDIST(later, earlier))

byte taken = 0;       /* tickets_taken_ (mod M) */
byte granted = N;     /* permits_granted_ (mod M): the initial count N */

#if defined(WEAK_MEMORY) && N != 1
#error "semaphore.pml: -DWEAK_MEMORY checks one permit's sections (N = 1)"
#endif
#define NT 3
#include "protected_data.pmh"

/* ghosts */
byte holders = 0;     /* permits held by threads whose acquire returned */
byte owned = 0;       /* permits owned: held, or admitted or awaited by a ticket */
bool waiting[3];      /* inside acquire(), ticket taken, not yet admitted */
byte my[3];           /* the ticket of a waiting acquire() */
bool win[3];          /* thread i is between two loads of one operation (a window) */
byte seen[3];         /* counter increments by other threads while win[i] */

#if defined(UNBOUNDED_STALL)
#define ROOM true
#define BUMP skip
#else
/* Guard of every counter increment: no open window has seen STALL increments yet. */
#define ROOM1(i) (!win[i] || seen[i] < STALL)
#define ROOM (ROOM1(0) && ROOM1(1) && ROOM1(2))
#define BUMP1(i) if :: win[i] -> seen[i]++ :: else -> skip fi
#define BUMP BUMP1(0); BUMP1(1); BUMP1(2)
#endif
#if defined(UNBOUNDED_ADMIT_DELAY)
#define FITS(n) true
#else
/* Guard of release(n): no admitted ticket is left M/2 or more behind permits_granted_. */
#define FITS1(i, n) (!waiting[i] || DIST(granted, (my[i] + 1) % M) + (n) < HALF)
#define FITS(n) (FITS1(0, n) && FITS1(1, n))
#endif
#define OPEN(id) win[id] = true; seen[id] = 0
#define CLOSE(id) win[id] = false; seen[id] = 0

inline acquire(id) {
  atomic {                                        /* my = taken.fetch_add(1) */
    ROOM ->
    my[id] = taken; taken = (taken + 1) % M; BUMP;
    owned++; waiting[id] = true
  }
#if defined(BUG_RELAXED_ADMISSION)
  READ_AHEAD(id);                                 /* BUG: loads may pass the poll */
#endif
  atomic {                                        /* wait_for_turn: admitted when to_go <= 0 */
#if defined(BUG_WAIT_UNSIGNED)
    my[id] < granted ->                           /* BUG: unsigned compare, no wrap */
#else
    DIST((my[id] + 1) % M, granted) <= 0 ->
#endif
    waiting[id] = false; my[id] = 0;
    holders++; assert(holders <= N)
  }
}

inline release(id, n, g) {
  atomic { g = granted; OPEN(id) }                /* debug check: granted first, */
  atomic {                                        /* taken second                */
    assert(n <= N - DIST(g, taken));
    g = 0; CLOSE(id)
  }
#if defined(BUG_RELEASE_NONATOMIC)
  g = granted;                                    /* BUG: load ... */
  atomic {                                        /* ... then store */
    FITS(n) && ROOM ->
    granted = (g + n) % M; BUMP; g = 0;
    owned = owned - n; holders = holders - n
  }
#else
  atomic {                                        /* granted.fetch_add(n, release) */
    FITS(n) && ROOM && RELEASE_READY(id) ->
    granted = (granted + n) % M; BUMP;
    owned = owned - n; holders = holders - n
  }
#endif
}

inline try_acquire(id, ok, g, t) {
#if defined(BUG_TRY_TAKES_TICKET)
  atomic { t = taken; taken = (taken + 1) % M }   /* BUG: a ticket taken without checking */
  if
  :: atomic { DIST((t + 1) % M, granted) <= 0 -> ok = true; owned++; holders++; assert(holders <= N); t = 0 }
  :: atomic { DIST((t + 1) % M, granted) > 0 -> ok = false; t = 0 }  /* ... and abandoned */
  fi
#else
#if defined(BUG_RELAXED_TRY)
  READ_AHEAD(id);                                    /* BUG: loads may pass the granted load */
#endif
  atomic { g = granted; OPEN(id) }                   /* g = granted.load(acquire)  */
  READ_AHEAD(id);
  t = taken;                                         /* t = taken.load(relaxed) */
  if
  :: DIST(g, t) <= 0 -> atomic { ok = false; CLOSE(id); g = 0; t = 0; DROP_AHEAD(id) }
  :: else ->
     atomic {                                     /* compare_exchange_strong(t, t + 1) */
       if
       :: taken == t -> taken = (t + 1) % M; ok = true; owned++; holders++; assert(holders <= N)
       :: else -> ok = false; DROP_AHEAD(id)
       fi;
       CLOSE(id); g = 0; t = 0
     }
  fi
#endif
}

proctype acquirer(byte id) {
  byte g;
  do
#if N >= 2
  :: id == 0 -> acquire(id); acquire(id); release(id, 2, g)
  :: id != 0 -> acquire(id); release(id, 1, g)
#else
  :: acquire(id); SECTION(id); release(id, 1, g)
#endif
  od
}

/* try_acquire_for(): try_acquire(); then, while the deadline has not passed, retry.
 * The deadline may pass after any failed attempt; after TRIES attempts it has passed. */
proctype timed(byte id) {
  bool ok;
  byte g, t;
  byte rounds = 0;
  byte tries;
  do
  :: rounds < ROUNDS ->
     rounds++;
     tries = 1;
     try_acquire(id, ok, g, t);
     do
     :: ok -> break
     :: !ok && tries < TRIES -> tries++; try_acquire(id, ok, g, t)
     :: !ok -> break                              /* deadline passed: returns false */
     od;
     if
     :: ok -> SECTION(id); release(id, 1, g)
     :: else -> skip
     fi
  :: else -> break
  od
}

#if !defined(NO_MONITOR)
/* Permit conservation, checked in every reachable state. */
#define CONSERVED ((granted + M - taken) % M == (N + M - owned) % M)
active proctype conservation() {
end:
  atomic { !CONSERVED -> assert(CONSERVED) }
}
#endif

init {
  atomic {
    run acquirer(0);
    run acquirer(1);
    run timed(2);
    START_DRAIN
  }
}

ltl live0 { [] (waiting[0] -> <> !waiting[0]) }
ltl live1 { [] (waiting[1] -> <> !waiting[1]) }
