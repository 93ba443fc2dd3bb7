/*
 * barrier.pml - unisync::basic_barrier, the central phase barrier with arrive_and_drop()
 * and a completion function.
 *
 * Mirrors include/unisync/detail/barrier.inl (contract: include/unisync/barrier.hpp):
 *   arrive(w)          before = phase_and_missing_.fetch_sub(w, acq_rel);
 *                      missing = low half of before, phase = high half; debug check
 *                      w <= missing; if missing == w: complete_phase(phase);
 *                      returns arrival_token(phase, w)
 *   complete_phase(p)  drops = drops_pending_.exchange(0); expected_ -= drops;
 *                      completion_(); phase_and_missing_.store((p + 1) << 32 | expected_)
 *   wait(token)        wait_for_turn until forecast_to_release(token) == 0, i.e. until
 *                      the phase half of phase_and_missing_ != token.phase_ (then an
 *                      acquire fence)
 *   arrive_and_wait()  wait(arrive(1)); on the device the threads of a warp that call it
 *                      together arrive as a group: wait(arrive(group size)) by a leader
 *   arrive_and_drop()  drops_pending_.fetch_add(1); arrive(1)
 * Memory words: phase_and_missing_ is one 64-bit word, phase number (32 bits) over
 * missing arrivals (32 bits), changed only by fetch_sub and by one store; here it is the
 * pair (phase, missing), always changed together in one atomic step, with the phase
 * modulo PHASE_MOD (default 4, 2 bits; -DPHASE_MOD=2 for 1 bit), so it wraps during the
 * run. expected_ (plain, written only by the last arriver) and drops_pending_ are words
 * of their own.
 *
 * Memory model: sequential consistency. Every load, store and read-modify-write of the
 * code is one atomic Promela step. The memory orders the code gives them (and the acquire
 * fence that follows a relaxed poll) are not modeled: the headers argue separately that
 * they give the same guarantees on the PTX / C++ memory models. Ghost variables are
 * updated inside the step they describe. The poll of wait() changes no shared state while
 * it fails, so it is modeled as a guard that blocks until the phase differs from the
 * token's (equivalent up to stuttering).
 *
 * Actors: 3 participants and PHASES (default 5) phases. P0 arrives with weight W0
 * (default 1; -DW0=2 models a group of two threads counted with one fetch_sub, as
 * arrive_and_wait(group) and the device's warp arrival do) and P1 with weight 1; both
 * arrive_and_wait() in every phase. P2 arrive_and_wait()s until phase DROP_PHASE
 * (default 1), where it arrive_and_drop()s and leaves. The barrier is built with
 * expected = W0 + 2.
 *
 * Proves (check_model.sh):
 *   --safety         nobody leaves phase k before every participant of phase k arrived
 *                    and the completion of phase k ran; the completion runs exactly once
 *                    per phase and sees all the phase's arrivals; every arrival is in
 *                    its own phase and never exceeds the missing count (no borrow into
 *                    the phase bits); the next phase is armed with exactly the remaining
 *                    participants (the drop is applied); no deadlock (no invalid end
 *                    state: since nothing loops, every participant finishes every phase)
 *   --ltl all_finish under weak fairness every participant eventually finishes
 * Seeded bugs:
 *   -DBUG_WAIT_INVERTED        wait() polls until phase == token: leaves at once
 *                              (assertion)
 *   -DBUG_PHASE_ORDERED        wait() polls until phase > token (unsigned) instead of
 *                              !=: once the phase field wraps, the waiters never see the
 *                              new phase (deadlock)
 *   -DBUG_REARM_BEFORE_DROPS   the last arriver re-arms the count with expected_ before
 *                              subtracting the drops (assertion / deadlock)
 *   -DBUG_DROP_AFTER_ARRIVE    arrive_and_drop() arrives first and counts the drop after:
 *                              the last arriver can miss it (assertion / deadlock)
 *   -DBUG_STORE_BEFORE_COMPLETION  the next phase is published before the completion
 *                              function runs: a waiter leaves before it ran (assertion)
 */

#ifndef PHASES
#define PHASES 5
#endif
#ifndef PHASE_MOD
#define PHASE_MOD 4
#endif
#ifndef DROP_PHASE
#define DROP_PHASE 1
#endif
#ifndef W0
#define W0 1
#endif
#define EXPECTED (W0 + 2)

byte phase = 0;            /* phase_and_missing_ >> 32, modulo PHASE_MOD */
byte missing = EXPECTED;   /* phase_and_missing_ & 0xffffffff */
byte expected = EXPECTED;  /* expected_ */
byte drops_pending = 0;    /* drops_pending_ */

/* ghosts */
byte cur = 0;                  /* absolute number of the current phase */
byte arrived[PHASES + 1];      /* arrival weight counted in each phase */
byte completions[PHASES + 1];  /* runs of the completion function in each phase */
byte finished = 0;             /* participants that are done */

/* The arrival weight that phase k waits for: everyone until the drop phase, then P2 is gone. */
#define MEMBERS(k) ((k) <= DROP_PHASE -> EXPECTED : EXPECTED - 1)

inline complete_phase(p, drops) {
#if defined(BUG_REARM_BEFORE_DROPS)
  atomic {                                        /* BUG: re-armed with expected_ ... */
    phase = (p + 1) % PHASE_MOD; missing = expected;
    completions[cur]++; assert(completions[cur] == 1);
    assert(arrived[cur] == MEMBERS(cur));
    assert(missing == MEMBERS(cur + 1));
    cur++
  }
  atomic { drops = drops_pending; drops_pending = 0 }
  expected = expected - drops;                    /* ... before the drops are applied */
  drops = 0
#else
  atomic { drops = drops_pending; drops_pending = 0 }  /* drops_pending_.exchange(0) */
  expected = expected - drops;                         /* expected_ -= drops */
  drops = 0;
#if !defined(BUG_STORE_BEFORE_COMPLETION)
  atomic {                                        /* completion_() */
    completions[cur]++; assert(completions[cur] == 1);
    assert(arrived[cur] == MEMBERS(cur))
  }
#endif
  atomic {                                        /* store((p + 1) << 32 | expected_) */
    phase = (p + 1) % PHASE_MOD; missing = expected;
    assert(missing == MEMBERS(cur + 1));
#if defined(BUG_STORE_BEFORE_COMPLETION)
  }
  atomic {                                        /* BUG: completion_() after the store */
    completions[cur]++; assert(completions[cur] == 1);
    assert(arrived[cur] == MEMBERS(cur));
#endif
    cur++
  }
#endif
}

/* tok = arrive(w).phase_ for the participant's phase k */
inline arrive(w, k, tok, before, drops) {
  atomic {                                        /* before = word.fetch_sub(w) */
    tok = phase; before = missing;
    assert(w <= before);                          /* the debug check: no borrow */
    missing = missing - w;
    assert(cur == k);                             /* arriving in its own phase */
    arrived[cur] = arrived[cur] + w
  }
  if
  :: before == w -> complete_phase(tok, drops)    /* the last arrival */
  :: else -> skip
  fi;
  before = 0
}

inline wait(tok, k) {
  atomic {                                        /* forecast_to_release(token) == 0 */
#if defined(BUG_WAIT_INVERTED)
    phase == tok ->                               /* BUG */
#elif defined(BUG_PHASE_ORDERED)
    phase > tok ->                                /* BUG: not wrap-safe */
#else
    phase != tok ->
#endif
    assert(completions[k] == 1);                  /* phase k completed ... */
    assert(arrived[k] == MEMBERS(k));             /* ... after all its arrivals */
    tok = 0
  }
}

proctype participant(byte id; byte w; bool dropper) {
  byte k = 0;          /* the phase this participant arrives in next (absolute) */
  byte tok, before, drops;
  do
  :: k < PHASES && !(dropper && k == DROP_PHASE) ->   /* arrive_and_wait() */
     arrive(w, k, tok, before, drops);
     wait(tok, k);
     k++
  :: k < PHASES && dropper && k == DROP_PHASE ->      /* arrive_and_drop() */
#if defined(BUG_DROP_AFTER_ARRIVE)
     arrive(1, k, tok, before, drops);
     drops_pending++;                             /* BUG: counted after arriving */
#else
     drops_pending++;                             /* drops_pending_.fetch_add(1) */
     arrive(1, k, tok, before, drops);
#endif
     break
  :: k == PHASES -> break
  od;
  finished++
}

init {
  atomic {
    run participant(0, W0, false);
    run participant(1, 1, false);
    run participant(2, 1, true)
  }
}

ltl all_finish { <> (finished == 3) }
