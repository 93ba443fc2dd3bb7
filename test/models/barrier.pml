/*
 * barrier.pml - unisync::basic_barrier, the central phase barrier with arrive_and_drop(),
 * with the default completion or with a completion function (-DCOMPLETION).
 *
 * Mirrors include/unisync/detail/barrier.inl (contract: include/unisync/barrier.hpp):
 *   arrive_counting(w, drop)  before = word_.fetch_add((w << 31) - drop, acq_rel);
 *                      count = count_of(before); debug check (w at most the missing
 *                      arrivals, or the participants before the arm); reached = count + w;
 *                      if count == 0 (the phase's first arrival):
 *                        arm = 2^32 - step - participants(before);
 *                        reached = count_of(word_.fetch_add(arm << 31, acquire)) + arm;
 *                      if reached == 2^32 - step: complete_phase(); token completed
 *   complete_phase()   with a completion function: completion_(), then
 *                      word_.fetch_add(1 << 31, release) (the carry)
 *   wait(token)        returns at once for a completed token; else wait_for_turn until the
 *                      parity bit of word_ != token.parity_ (acquire polls)
 *   arrive_and_wait()  wait(arrive(1)); a group arrives as wait(arrive(group size))
 *   arrive_and_drop()  arrive_counting(1, true)
 * Memory words: word_ is one 64-bit word, parity (1 bit) | count (32 bits) | participants
 * (31 bits), changed only by fetch_add; an addition that carries out of the count flips
 * the parity. Here the count is modulo CMOD (16: 4 bits, room for the armed counts of up
 * to 4 participants above CMOD/2 and the early arrivals below), so it wraps to zero at
 * every phase; step is 0 (default completion) or 1 (-DCOMPLETION).
 *
 * Not modeled: the host waiters' hint (open_parity_, system scope). The thread that
 * completes a phase stores it after its carry; a host waiter among many polls it, but
 * decides only on the word, and every 64th poll reads the word regardless
 * (detail::hint_polls), so the hint changes when a waiter looks, never what it sees:
 * nondeterministically skipping the hint is the waiter modeled here.
 *
 * Memory model: sequential consistency. Every read-modify-write of the code is one
 * atomic Promela step. The memory orders (acquire-release arrivals, acquiring arm,
 * acquire polls of the waiters) are not modeled: the header argues
 * separately that they give the same guarantees on the PTX / C++ memory models. Ghost
 * variables are updated inside the step they describe. The poll of wait() changes no
 * shared state while it fails, so it is modeled as a guard that blocks until the parity
 * differs from the token's (equivalent up to stuttering).
 *
 * Actors: 3 participants and PHASES (default 5) phases. P0 arrives with weight W0
 * (default 1; -DW0=2 models a group of two threads counted with one addition, as
 * arrive_and_wait(group) and the device's warp arrival do) and P1 with weight 1; both
 * arrive_and_wait() in every phase. P2 arrive_and_wait()s until phase DROP_PHASE
 * (default 1), where it arrive_and_drop()s and leaves; with -DD1=k P1 does the same in
 * phase k (-DD1=2: phases 3 and 4 have P0 alone, one participant). The barrier is built
 * with expected = W0 + 2. With the default completion the next phase opens when the last
 * addition carries, so its first arrivals race the thread that completed the phase.
 * -DSPLIT: split-phase use. In phase k the signaller (P0 in even phases, P1 in odd ones
 * while it takes part, else P0) arrives, then sets sig[k], then waits; every other
 * participant of phase k waits for sig[k] before it arrives. A barrier whose arrive()
 * waited for the others would deadlock here.
 *
 * Proves (check_model.sh):
 *   --safety         nobody leaves phase k before every participant of phase k arrived
 *                    (and, with -DCOMPLETION, before the completion of phase k ran); the
 *                    phase completes exactly once (one carry, one completion run) after
 *                    all of its arrivals; every arrival is in its own phase and never
 *                    exceeds the missing count; the first arrival arms with exactly the
 *                    phase's participants (the drop is applied); exactly one thread
 *                    completes each phase; no deadlock (no invalid end state), also
 *                    under split-phase use and with one participant
 *   --ltl all_finish under weak fairness every participant eventually finishes
 * Seeded bugs:
 *   -DBUG_WAIT_INVERTED        wait() polls until parity == token: leaves at once
 *                              (assertion)
 *   -DBUG_ARM_AFTER_OWN_DROP   the first arrival arms with the participants after its
 *                              own drop: a phase whose first arrival is the dropper
 *                              completes one arrival early (assertion)
 *   -DBUG_ARM_UNCHECKED        the first arrival does not check whether its arm completed
 *                              the phase; with a completion function no one then runs
 *                              it and adds the carry (deadlock, with -DCOMPLETION)
 *   -DBUG_ARRIVE_WAITS         arrive() waits for the phase to complete before it returns:
 *                              with -DSPLIT the signaller never signals (deadlock)
 *   -DBUG_CARRY_BEFORE_COMPLETION  the carry is added before the completion function
 *                              runs: a waiter leaves before it ran (assertion, with
 *                              -DCOMPLETION)
 */

#ifndef PHASES
#define PHASES 5
#endif
#ifndef DROP_PHASE
#define DROP_PHASE 1
#endif
#ifndef W0
#define W0 1
#endif
#define NEVER 99
#ifndef D1
#define D1 NEVER
#endif
#define EXPECTED (W0 + 2)
#define CMOD 16
#define ARMED_FROM 8      /* an armed count is at least CMOD / 2 */
#ifdef COMPLETION
#define STEP 1
#else
#define STEP 0
#endif
#define TARGET (CMOD - STEP)

bit parity = 0;             /* word_ >> 63 */
byte count = 0;             /* the count field, modulo CMOD */
byte parts = EXPECTED;      /* the participants field */

/* ghosts */
byte cur = 0;                  /* absolute number of the current phase */
byte arrived[PHASES + 1];      /* arrival weight counted in each phase */
byte completions[PHASES + 1];  /* runs of the completion function (or carries) per phase */
byte completers[PHASES + 1];   /* threads that found reached == TARGET, per phase */
byte finished = 0;             /* participants that are done */
bit sig[PHASES + 1];           /* split-phase use: the signaller's action in phase k */

/* The arrival weight that phase k waits for: a dropper arrives in its drop phase. */
#define IN(d, k) ((d) >= (k) -> 1 : 0)
#define MEMBERS(k) (W0 + IN(D1, k) + IN(DROP_PHASE, k))
#if defined(SPLIT)
#define SIGNALLER(k) ((k) % 2 == 1 && IN(D1, k) -> 1 : 0)
#define SIGNALS(id, k) ((id) == SIGNALLER(k))
#else
#define SIGNALS(id, k) false
#endif
#define AWAITS_SIGNAL(id, k) (SPLIT_USE && !SIGNALS(id, k))
#if defined(SPLIT)
#define SPLIT_USE 1
#else
#define SPLIT_USE 0
#endif

/* Adds `add` to the count inside an atomic step; a carry flips the parity and, with the
   default completion, completes the phase (ghosts). */
inline add_to_count(add) {
  count = count + add;
  if
  :: count >= CMOD ->
     count = count - CMOD; parity = 1 - parity;
#ifndef COMPLETION
     completions[cur]++; assert(completions[cur] == 1);
     assert(arrived[cur] == MEMBERS(cur));
#else
     assert(completions[cur] == 1);                    /* the completion ran first */
#endif
     cur++
  :: else -> skip
  fi
}

inline complete_phase(k) {
  completers[k]++; assert(completers[k] == 1);
#ifdef COMPLETION
#if defined(BUG_CARRY_BEFORE_COMPLETION)
  atomic { assert(count == TARGET); add_to_count(1) }  /* BUG: carry first ... */
  atomic { completions[k]++ }                          /* ... completion after */
#else
  atomic {                                             /* completion_() */
    completions[k]++; assert(completions[k] == 1);
    assert(arrived[k] == MEMBERS(k))
  }
  atomic { assert(count == TARGET); add_to_count(1) }  /* fetch_add(1 << 31) */
#endif
#endif
  skip
}

/* arrive_counting(w, drop) in the participant's phase k; done = the token is completed */
inline arrive(w, drop, k, tok, before, mine, reached, done) {
  atomic {                                        /* before = fetch_add((w << 31) - drop) */
    tok = parity; before = count; mine = parts;
    assert(cur == k);                             /* arriving in its own phase */
    if                                            /* the debug check */
    :: before >= ARMED_FROM -> assert(w <= TARGET - before)
    :: else -> assert(w <= parts)
    fi;
    arrived[cur] = arrived[cur] + w;
    parts = parts - drop;
    add_to_count(w)
  }
  reached = before + w;
  if
  :: before == 0 ->                               /* the first arrival arms */
#if defined(BUG_ARM_AFTER_OWN_DROP)
     mine = mine - drop;                          /* BUG: its own drop subtracted */
#endif
     assert(mine == MEMBERS(k));                  /* armed for exactly the phase's arrivals */
     atomic {                                     /* fetch_add(arm << 31) */
       reached = count + (TARGET - mine);
       add_to_count(TARGET - mine)
     }
#if defined(BUG_ARM_UNCHECKED)
     reached = 0
#endif
  :: else -> skip
  fi;
  if
  :: reached == TARGET -> complete_phase(k); done = true
  :: else -> done = false
  fi;
  before = 0; mine = 0; reached = 0
}

inline wait(tok, k, done) {
  if
  :: done -> skip                                 /* completed token: returns at once */
  :: else ->
     atomic {                                     /* forecast_to_release(token) == 0 */
#if defined(BUG_WAIT_INVERTED)
       parity == tok ->                           /* BUG */
#else
       parity != tok ->
#endif
       assert(completions[k] == 1);               /* phase k completed ... */
       assert(arrived[k] == MEMBERS(k))           /* ... after all its arrivals */
     }
  fi;
  tok = 0; done = false
}

/* split-phase use: the others wait for the signaller's action before they arrive */
inline before_arrival(id, k) {
  if
  :: AWAITS_SIGNAL(id, k) -> sig[k] == 1
  :: else -> skip
  fi
}
inline after_arrival(id, k, drop, tok, done) {
#if defined(BUG_ARRIVE_WAITS)
  drop || done || parity != tok;                  /* BUG: arrive() waits for the phase */
#endif
  if
  :: SIGNALS(id, k) -> sig[k] = 1
  :: else -> skip
  fi
}

proctype participant(byte id; byte w; byte d) {
  byte k = 0;          /* the phase this participant arrives in next (absolute) */
  bit tok;
  byte before, mine, reached;
  bool done;
  do
  :: k < PHASES && k != d ->                          /* arrive, (signal), wait */
     before_arrival(id, k);
     arrive(w, 0, k, tok, before, mine, reached, done);
     after_arrival(id, k, 0, tok, done);
     wait(tok, k, done);
     k++
  :: k < PHASES && k == d ->                          /* arrive_and_drop() */
     before_arrival(id, k);
     arrive(1, 1, k, tok, before, mine, reached, done);
     after_arrival(id, k, 1, tok, done);
     break
  :: k == PHASES -> break
  od;
  finished++
}

init {
  atomic {
    run participant(0, W0, NEVER);
    run participant(1, 1, D1);
    run participant(2, 1, DROP_PHASE)
  }
}

ltl all_finish { <> (finished == 3) }
