/*
 * shared_mutex_gate_watch.pml - how GPU readers of unisync::basic_shared_mutex at system
 * scope wait for a closed gate to move: one of them at a time, the gate watcher, polls
 * its copy of the gate across the link and raises a hint in device memory, which the
 * others poll.
 *
 * Mirrors include/unisync/detail/shared_mutex.inl, wait_for_gate_change_on_gpu (contract:
 * include/unisync/shared_mutex.hpp):
 *   not watching   hint > seen: woken, and reads its own copy again (in wait_out_writers);
 *                  found unchanged (copies lag each other), it waits again without
 *                  trusting the hint: woken once its own copy has moved (trust_hint
 *                  false); either way, watcher == 0 and watcher.exchange(1) == 0: take
 *                  the role (a load and then an exchange that finds 1 change nothing:
 *                  modeled as one guarded step)
 *   watching       now = copy; if now > hint: hint = now (one step: only the role's
 *                  holder writes the hint); now != seen: give the role back, woken
 *   timed out      give the role back if held
 * Memory words: the copies of the gate (two, which a writer stores one after the other,
 * so that a reader of one may see a value the other does not have yet), hint, watcher.
 *
 * Memory model: sequential consistency. The hint only wakes: a woken reader reads the
 * gate itself (shared_mutex.pml models that read, and its wait as a guard on the gate),
 * so no ordering argument rests on it; the role's acquire and release order one
 * watcher's reads before the next one's, which the one-step-at-a-time model gives.
 * A poll that changes nothing is left out (stuttering): a watcher's poll is modeled only
 * where it raises the hint or finds its value moved, a waiter's where it is woken or takes
 * the role. A waiter that can never be woken therefore blocks, and a blocked system with
 * a waiter whose copy has moved past its value is a lost wake-up.
 *
 * Actors: a writer moves the gate MOVES times (each move stores both copies, in turn);
 * NW readers each wait ROUNDS times, each time for the value it has just read of its own
 * copy (reader r reads copy r % 2) to move; reader 0's waits are timed (it may give up
 * after any step), unless -DUNTIMED: a timed reader's give-up is always possible, so only
 * the untimed search checks reader 0's own wake-ups.
 *
 * Proves (check_model.sh --safety):
 *   - no lost wake-up: once nothing can move, every reader still waiting waits on the
 *     value its copy holds (a monitor asserts it at spin's timeout; for every reader with
 *     -DUNTIMED, for the untimed ones without);
 *   - a reader goes back to waiting at most once per wait because its copy lagged the
 *     hint (no loop without pause), and a reader that leaves has seen its copy move;
 *   - the hint only grows, and never exceeds the newest value a copy holds;
 *   - the role is given back: at the end nobody holds it unless a waiter still waits.
 * Seeded bugs (each must be caught by --safety):
 *   -DBUG_KEEP_ROLE_ON_TIMEOUT  a timed waiter gives up while it holds the role and keeps
 *                               it: nobody watches for the others
 *   -DBUG_HINT_ONLY_ON_OWN_MOVE the watcher raises the hint only once its own value moved:
 *                               a waiter on an older value waits until the gate moves again,
 *                               which may never happen (its writer may wait for it)
 *   -DBUG_HINT_AFTER_RELEASE    the watcher gives the role back before it raises the hint:
 *                               a later watcher's newer hint can be overwritten
 *   -DBUG_ALWAYS_TRUST_HINT     a reader woken by the hint that found its copy unchanged
 *                               trusts the hint again: it goes round at once, again and
 *                               again while its copy lags
 */

#ifndef NW
#define NW 3
#endif
#ifndef MOVES
#define MOVES 3
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif

byte copy[2];      /* the gate as the readers read it: copy[r % 2] */
byte hint = 0;     /* gate_hint: the newest value a watcher read */
bool watcher = 0;  /* gate_watcher */

/* ghosts */
byte seen[NW];          /* the value reader r waits on */
bool waiting[NW];       /* reader r is inside its wait */
byte newest = 0;        /* the newest value stored to any copy */
byte hint_floor = 0;    /* the hint never falls below this */

#define COPY(r) copy[(r) % 2]

/* Reader r leaves its wait, woken: its own copy has moved past the value it waited on. */
#define woken(r) assert(COPY(r) != seen[r]); waiting[r] = 0

/* The watcher's raise: a relaxed load of the hint, then a store where its value is newer
 * (only the role's holder writes the hint). `seen_hint` is the caller's local. */
inline raise_hint(value, seen_hint)
{
  seen_hint = hint;
  if
  :: value > seen_hint ->
     atomic { hint = value; assert(hint >= hint_floor && hint <= newest); hint_floor = hint }
  :: else -> skip
  fi
}

proctype writer()
{
  byte moves = 0;
  do
  :: moves < MOVES ->
     moves++;
     atomic { copy[0] = moves; newest = moves };
     copy[1] = moves
  :: else -> break
  od
}

proctype reader(byte r)
{
  byte rounds = 0;
  bool watching = 0;
  byte now;
  byte h;
  bool trust;         /* trust_hint */
  byte rounds_back;   /* ghost: waits again because its copy lagged the hint */
  do
  :: rounds < ROUNDS ->
     rounds++;
     atomic { seen[r] = COPY(r); waiting[r] = 1; trust = 1; rounds_back = 0 };
end_wait:
     do
     :: atomic { !watching && trust && hint > seen[r] && COPY(r) != seen[r] -> woken(r) }; break
     :: atomic { !watching && trust && hint > seen[r] && COPY(r) == seen[r] ->
          rounds_back++; assert(rounds_back <= 1);
#if !defined(BUG_ALWAYS_TRUST_HINT)
          trust = 0
#else
          skip
#endif
        }
     :: atomic { !watching && !trust && COPY(r) != seen[r] -> woken(r) }; break
     :: atomic { !watching && !watcher -> watcher = 1; watching = 1 }
#if !defined(BUG_HINT_ONLY_ON_OWN_MOVE)
     :: atomic { watching && COPY(r) == seen[r] && COPY(r) > hint -> now = COPY(r) };
        raise_hint(now, h)
#endif
     :: atomic { watching && COPY(r) != seen[r] -> now = COPY(r) };
#if defined(BUG_HINT_AFTER_RELEASE)
        atomic { watcher = 0; watching = 0 };
        raise_hint(now, h);
        atomic { woken(r) };
#else
        raise_hint(now, h);
        atomic { watcher = 0; watching = 0; woken(r) };
#endif
        break
#if !defined(UNTIMED)
     :: r == 0 ->   /* the deadline passed */
#if !defined(BUG_KEEP_ROLE_ON_TIMEOUT)
        atomic { if :: watching -> watcher = 0; watching = 0 :: else -> skip fi; waiting[r] = 0 };
#else
        atomic { watching = 0; waiting[r] = 0 };
#endif
        break
#endif
     od
  :: else -> break
  od
}

/* Runs only when no other process can move: every reader still waiting must wait on the
 * value its copy holds, and the role is held only by such a waiter. */
active proctype lost_wakeups()
{
  byte r = 0;
  bool any = 0;
  timeout ->
  atomic {
    do
    :: r < NW -> assert(!waiting[r] || seen[r] == COPY(r)); any = any || waiting[r]; r++
    :: else -> break
    od;
    assert(!watcher || any)
  }
}

init
{
  atomic {
    byte r = 0;
    run writer();
    do
    :: r < NW -> run reader(r); r++
    :: else -> break
    od
  }
}
