/*
 * barrier.pml - unisync::basic_barrier, the central phase barrier with arrive_and_drop(),
 * with the default completion or with a completion function (-DCOMPLETION), also used by
 * more threads than it expects (-DOVER).
 *
 * Mirrors include/unisync/detail/barrier.inl (contract: include/unisync/barrier.hpp):
 *   arrive_placed(w)   before = word_.fetch_add(w << 23, acq_rel);
 *                      if count(before) == 0 (the first arrival): arm_open_phase(
 *                        participants(before)); else if completes(before, w):
 *                        complete_phase(before, w)
 *                      place(before, open phase, w): the phase of each rank
 *   arm_open_phase(p)  b' = word_.fetch_add(STOP - p, acquire); owed = p -
 *                      participants(b'): the arrivals of the drops that came in before
 *                      the arm landed, which this thread adds after it with
 *                      word_.fetch_add(owed, acquire) (settle_rest, which settles each
 *                      of its additions the same way); else complete_phase(b', STOP - p)
 *                      if that completes the phase (the model runs both paths as one
 *                      loop, settle)
 *   completes(b, n)    count(b) < STOP && count(b) + n >= STOP
 *   complete_phase(b, n)  a = b + n (the carry, with the default completion); with a
 *                      completion function: completion_(), then
 *                      a = word_.fetch_add(HEADROOM, release) + HEADROOM (the carry);
 *                      if count(a) != 0 (arrivals beyond the phase are in the next, which
 *                      nobody saw at zero): settle_rest arms it; else, on the GPU, if the
 *                      addition that completed the phase was an arm or the phase takes
 *                      at most 8 additions of its weight: arm_ahead(a) (the model lets
 *                      every completion that leaves the count at zero choose)
 *   settle_rest        loop { arm = STOP - participants(a); b = word_.fetch_add(arm,
 *                      acquire); owed += the drops it found; if !completes(b, arm)
 *                      break; complete it as above; if count(a) == 0 { arm_ahead(a) as
 *                      above unless owed; break } }, then the owed additions, each
 *                      settled the same way (the model folds the first arrival's arm
 *                      and these arms into one loop, settle)
 *   arm_ahead(a)       word_.compare_exchange_strong(a, a + STOP - participants(a),
 *                      relaxed): arms the next phase unless its first arrival or a drop
 *                      changed the word first (the result is not waited for: the model
 *                      runs it as a step of its own after the thread's other steps)
 *   place(b, open, w)  armed count below STOP: rank r < STOP - count in phase(b); else
 *                      position = count (or count - STOP above the stop), in phase
 *                      phase(b) (+1 above the stop) + position / P, room P - position % P;
 *                      later ranks one phase of P each; a token is completed when its
 *                      phase is below the phase open in `a`
 *   wait(token)        returns at once for a completed token; else polls until the word's
 *                      phase number has passed the token's (acquire polls)
 *   arrive_and_drop()  one compare-and-swap, never waiting: one participant fewer and,
 *                      with the count at 0 (with the arm) or armed below STOP, one
 *                      arrival; unarmed or above STOP, no arrival (the pending arm adds
 *                      it); settle if it reached the stop. A phase whose every
 *                      participant dropped while the completion ran is completed by
 *                      the thread that ran it: fetch_add(STOP, acquire), then as above
 * Memory words: word_ is one 64-bit word, phase number (16 bits) | count (25 bits) |
 * participants (23 bits); an addition that carries out of the count advances the phase
 * number. Here the count is modulo CMOD (32), armed counts are at least CMOD/2 (room for
 * up to 8 participants), STOP is CMOD (default completion) or CMOD - 8 (-DCOMPLETION:
 * arrivals of the next phase come in above the stop while the completion runs), and the
 * phase number is a byte (the model runs fewer than 128 phases: no wrap).
 *
 * The specification is std's barrier, as an abstract counter beside the code: every
 * arrival, in the order of the atomic additions that count it, takes the abstract
 * current phase and decrements its expected count; at zero the abstract phase ends and
 * the next starts with the participants left by the drops counted so far. Checked: each
 * arrival's phase as the code places it (place) is its abstract phase; the code's
 * completion (the carry, or the completion function) of phase k happens once, after every
 * arrival of abstract phase k; nobody's wait for phase k returns before that completion
 * (with a completion function, before it ran); every arm is for the abstract
 * participants of its phase less the drops of that phase that left their arrival to it.
 *
 * Not modeled: the host waiters' hint (open_phase_, system scope). The thread that
 * completes a phase stores it after its carry; a host waiter among many polls it, but
 * decides only on the word, and every 64th poll reads the word regardless
 * (detail::hint_polls), so the hint changes when a waiter looks, never what it sees:
 * nondeterministically skipping the hint is the waiter modeled here.
 *
 * Memory model: sequential consistency by default. Every read-modify-write of the code is
 * one atomic Promela step; a drop's load and compare-and-swap retried until it succeeds
 * is one guarded atomic step (equivalent up to stuttering). The poll of wait() changes no
 * shared state while it fails, so it is modeled as a guard that blocks until the phase
 * number has passed the token's.
 * -DWEAK_MEMORY (without -DOVER) adds message passing through the barrier on weak
 * memory: before each arrival (or drop) a participant writes the phase into a word of its
 * own; that write waits in its store buffer (one slot) until the drain process makes it
 * visible, and the participant's first read-modify-write of the arrival (acq_rel in the
 * code) waits until it is. After its wait returns, each participant reads every word and
 * checks that everyone who arrives in that phase has written it; so does the completion
 * function when it runs (-DCOMPLETION), which also writes a word of its own that the
 * carry after it (a release in the code) must make visible to every waiter of the phase.
 * A read may be taken early: the code's reads follow the acquire of the poll, or of the
 * thread's own completing addition, so correct code takes them there. Seeded bugs move
 * that point or drop a release, below; -DCOMPLETION_CHECK_ONLY leaves the check to the
 * completion function alone, to show that it catches them too.
 *
 * Actors (default): 3 participants and PHASES (default 5) phases. P0 arrives with weight
 * W0 (default 1; -DW0=2 models a group of two threads counted with one addition, as
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
 * -DOVER: the barrier expects 2 and the three participants (P0 with weight W0, default
 * 2 here: a warp's two lanes counted with one addition, each lane released in its own
 * phase) arrive_and_wait() once per round, ROUNDS (default 2) rounds, an ideal round
 * barrier between rounds: every round is two phases, arrivals race into the next phase
 * before the first arrival's arm, a group spans two phases, and with -DCOMPLETION
 * arrivals come in while the completion runs. -DOVER -DDROPPER: P2 arrive_and_drop()s
 * in round 1 and P1 arrives twice a round from then on; -DDROP_ORDER=1: the drop comes
 * before the others' round-1 arrivals, 2: after them, 3: into an unarmed phase after the
 * first (where an arrival spilled over), else after them. Racing them (the default) fails:
 * between an arm and the addition of the arrivals of drops it found, the count shows
 * the phase that many arrivals short, and an arrival beyond the phase in that moment is
 * placed in it (a known limit, see barrier.hpp).
 * -DEAGER: the participant that drops in phase k does not wait in phase k - 1; it drops
 * once the completion of k - 1 has started (as a completion that signals it would let
 * it): with -DCOMPLETION its drop may come above the stop. -DD0=k: P0 drops in phase k
 * too (-DCOMPLETION -DEAGER -DD0=2 -DD1=2: P2 leaves in phase 1 and, when its drop
 * completes that phase, P0 and P1 may both drop while it runs the completion).
 * At the end, the code's phase number must equal the abstract phase: every phase that
 * ended was completed.
 *
 * Proves (check_model.sh):
 *   --safety         the specification above; exactly one thread completes each phase;
 *                    no deadlock (no invalid end state), also under split-phase use, with
 *                    one participant, and used by more threads than it expects
 *   --ltl all_finish under weak fairness every participant eventually finishes
 *   -DWEAK_MEMORY    with --safety: also every participant, and the completion function,
 *                    sees the writes every participant made before arriving in the phase
 * Seeded bugs:
 *   -DBUG_WAIT_INVERTED        wait() polls until the phase number has NOT passed the
 *                              token's: leaves at once (assertion)
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
 *   -DBUG_NO_LEFTOVER_ARM      (with -DOVER) the thread whose addition left arrivals in
 *                              the next phase does not arm it: nobody does (deadlock)
 *   -DBUG_OVER_SAME_PHASE      (with -DOVER) every rank of an addition is placed in the
 *                              phase it found open: the lanes past it leave with the
 *                              earlier phase (assertion)
 *   -DBUG_DROP_UNARMED         a drop adds its arrival while the open phase is unarmed
 *                              too: counted twice, with the arm's (assertion)
 *   -DBUG_ARM_IGNORES_DROPS    the arming thread does not add the arrivals of the drops
 *                              its arm found: the phase never completes (deadlock)
 *   -DBUG_NO_DESERTED_COMPLETION  (with -DCOMPLETION -DEAGER -DD0=2 -DD1=2) a phase whose
 *                              participants all dropped while the completion ran is
 *                              left open: nobody completes it (assertion at the end)
 *   -DBUG_ARM_AHEAD_BLIND      arm_ahead adds its arm instead of exchanging it: when the
 *                              next phase's first arrival armed it already, it is armed
 *                              twice and completes before its arrivals are in (assertion:
 *                              a carry before the abstract phase ended)
 *   -DBUG_RELAXED_ARRIVAL      (with -DWEAK_MEMORY) an arrival does not wait for the
 *                              participant's write: a waiter (or the completion function)
 *                              reads the word before it lands (assertion)
 *   -DBUG_RELAXED_WAIT         (with -DWEAK_MEMORY) a participant's reads may be taken
 *                              before its wait returns (a relaxed poll without a fence
 *                              after it; assertion)
 *   -DBUG_RELEASE_ONLY_ARRIVAL (with -DWEAK_MEMORY) the arrival releases but does not
 *                              acquire: the reads of a participant whose own addition
 *                              completed the phase (or of the completion function it
 *                              runs) may be taken before its arrival (assertion)
 *   -DBUG_RELAXED_CARRY        (with -DWEAK_MEMORY -DCOMPLETION) the carry after the
 *                              completion function is relaxed: a waiter reads the
 *                              completion's word before its write lands (assertion)
 */

#ifndef PHASES
#define PHASES 5
#endif
#ifndef DROP_PHASE
#define DROP_PHASE 1
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifdef OVER
#ifndef W0
#define W0 2
#endif
#define EXPECTED 2
#else
#ifndef W0
#define W0 1
#endif
#define EXPECTED (W0 + 2)
#endif
#define NEVER 99
#ifndef D1
#define D1 NEVER
#endif
#ifndef D0
#define D0 NEVER
#endif
#define CMOD 32
#define ARMED_FROM 16     /* an armed count is at least CMOD / 2 */
#ifdef COMPLETION
#define HEADROOM 8
#else
#define HEADROOM 0
#endif
#define STOP (CMOD - HEADROOM)
#define MAXPH 16

byte phase = 0;             /* word_ >> 48 (no wrap in these runs) */
byte count = 0;             /* the count field, modulo CMOD */
byte parts = EXPECTED;      /* the participants field */

/* ghosts: the abstract std barrier */
byte abs_phase = 0;            /* the abstract current phase */
byte abs_missing = EXPECTED;   /* its expected count still missing */
byte abs_parts = EXPECTED;     /* the expected count of later phases */
byte abs_first[MAXPH];         /* participants each abstract phase started with */
byte completions[MAXPH];       /* runs of the completion function (or carries) per phase */
byte finished = 0;             /* participants that are done */
bit dropped = 0;               /* OVER, DROPPER: P2 has dropped */
byte others_in = 0;            /* OVER, DROPPER: P0 and P1 have arrived in round 1 */
#ifndef DROP_ORDER
#define DROP_ORDER 0
#endif
byte deserted = 0;             /* phases completed with every participant dropped */
byte uncounted[MAXPH];         /* drops of abstract phase k that left their arrival to its arm */
bit sig[PHASES + 1];           /* split-phase use: the signaller's action in phase k */
byte round_in[ROUNDS + 1];     /* OVER: participants through round r */

#if defined(WEAK_MEMORY)
#if defined(OVER)
#error "barrier.pml: -DWEAK_MEMORY models phases of the participants' own (not -DOVER)"
#endif
/* Participant j's word: the phase + 1 it last arrived in, as memory holds it; its pending
   write; a participant's early reads of the three words. */
byte wrote[3];
bool pending[3];
byte pending_value[3];
bool has_ahead[3];
byte early[12];              /* i * 4 + j: participant j's word (j < 3), the completion's (3) */
/* With -DCOMPLETION: the word the completion function writes (the phase + 1 it ran for),
   as memory holds it, and its write pending in the running thread's buffer (a slot of its
   own: another address than the participant's word). */
byte completion_word = 0;
bool cpending[3];
byte cpending_value[3];
#define DROP_PHASE_OF(j) ((j) == 0 -> D0 : ((j) == 1 -> D1 : DROP_PHASE))
#define VIEW(i, j) (has_ahead[i] -> early[(i) * 4 + (j)] : ((j) == (i) && pending[i] -> pending_value[i] : wrote[j]))
#define VIEW_COMPLETION(i) (has_ahead[i] -> early[(i) * 4 + 3] : (cpending[i] -> cpending_value[i] : completion_word))
/* Participant j's write of phase k is visible to i, if j arrives in phase k. */
#define SEES1(i, j, k) ((k) > DROP_PHASE_OF(j) || VIEW(i, j) > (k))
#if defined(COMPLETION)
/* A waiter released from phase k also sees what the completion of phase k wrote. */
#define SEES_COMPLETION(i, k) (VIEW_COMPLETION(i) > (k))
#else
#define SEES_COMPLETION(i, k) true
#endif
#define SEES(i, k) (SEES1(i, 0, k) && SEES1(i, 1, k) && SEES1(i, 2, k))
#define WRITE_PHASE(id, k) atomic { pending[id] = true; pending_value[id] = (k) + 1 }
#if defined(BUG_RELAXED_ARRIVAL)
#define ARRIVAL_READY(id) true
#else
#define ARRIVAL_READY(id) (!pending[id])
#endif
/* The completion's write, and the carry after it (a release in the code). */
#define WRITE_COMPLETION(id, k) cpending[id] = true; cpending_value[id] = (k) + 1
#if defined(BUG_RELAXED_CARRY)
#define CARRY_READY(id) true
#else
#define CARRY_READY(id) (!cpending[id])
#endif
#define DROP_READS(id) has_ahead[id] = false
#if defined(COMPLETION_CHECK_ONLY)
#define CHECK_PHASE(id, k) DROP_READS(id)
#else
#define CHECK_PHASE(id, k) atomic { assert(SEES(id, k) && SEES_COMPLETION(id, k)); has_ahead[id] = false }
#endif
#define TAKE_AHEAD(id) \
  if \
  :: atomic { \
       !has_ahead[id] -> has_ahead[id] = true; \
       early[(id) * 4] = VIEW(id, 0); early[(id) * 4 + 1] = VIEW(id, 1); early[(id) * 4 + 2] = VIEW(id, 2); \
       early[(id) * 4 + 3] = VIEW_COMPLETION(id) \
     } \
  :: skip \
  fi
/* Where a participant's reads may be taken early: after its arrival with a relaxed poll;
   before it with a release-only arrival (its own completing addition, or the completion
   function it runs, then acquires nothing; a poll still orders the reads after it). */
#if defined(BUG_RELAXED_WAIT)
#define READ_AHEAD(id) TAKE_AHEAD(id)
#else
#define READ_AHEAD(id) skip
#endif
#if defined(BUG_RELEASE_ONLY_ARRIVAL)
#define READ_BEFORE_ARRIVAL(id) TAKE_AHEAD(id)
#else
#define READ_BEFORE_ARRIVAL(id) skip
#endif
#if defined(BUG_RELAXED_WAIT)
#define POLL_ORDERS_READS(id) skip
#else
#define POLL_ORDERS_READS(id) has_ahead[id] = false
#endif
#define DRAIN(j) \
  :: atomic { pending[j] -> wrote[j] = pending_value[j]; pending[j] = false; pending_value[j] = 0 } \
  :: atomic { cpending[j] -> completion_word = cpending_value[j]; cpending[j] = false; cpending_value[j] = 0 }
/* Makes the participants' and the completions' pending writes visible, one at a time, in
   any order. */
proctype drain() {
end:
  do
  DRAIN(0)
  DRAIN(1)
  DRAIN(2)
  od
}
#define START_DRAIN run drain()
#else
#define WRITE_PHASE(id, k) skip
#define ARRIVAL_READY(id) true
#define WRITE_COMPLETION(id, k) skip
#define CARRY_READY(id) true
#define CHECK_PHASE(id, k) skip
#define READ_AHEAD(id) skip
#define READ_BEFORE_ARRIVAL(id) skip
#define POLL_ORDERS_READS(id) skip
#define DROP_READS(id) skip
#define START_DRAIN skip
#endif

#if defined(SPLIT)
#define SPLIT_USE 1
#define IN(d, k) ((d) >= (k) -> 1 : 0)
#define SIGNALLER(k) ((k) % 2 == 1 && IN(D1, k) -> 1 : 0)
#define SIGNALS(id, k) ((id) == SIGNALLER(k))
#else
#define SPLIT_USE 0
#define SIGNALS(id, k) false
#endif
#define AWAITS_SIGNAL(id, k) (SPLIT_USE && !SIGNALS(id, k))

/* One arrival unit counted, in the abstract barrier: its phase in `into`. */
inline count_abstract(drop, into) {
  into = abs_phase;
  assert(abs_missing > 0);
  abs_missing--;
  abs_parts = abs_parts - drop;
  if
  :: abs_missing == 0 ->
     abs_phase++; abs_missing = abs_parts; abs_first[abs_phase] = abs_parts
  :: else -> skip
  fi
}

/* Adds `add` to the count inside an atomic step; a carry advances the phase number and,
   with the default completion, completes the phase (ghosts). */
inline add_to_count(add) {
  count = count + add;
  if
  :: count >= CMOD ->
     count = count - CMOD;
#ifndef COMPLETION
     completions[phase]++; assert(completions[phase] == 1);
     assert(abs_phase > phase);                        /* after every arrival of the phase */
#else
     assert(completions[phase] == 1);                  /* the completion ran first */
#endif
     phase++
  :: else -> skip
  fi
}

#define COMPLETES(b, n) ((b) < STOP && (b) + (n) >= STOP)

/* complete_phase: the word after it is (aph, acnt, apar) */
inline complete_phase(k, aph, acnt, apar) {
#ifdef COMPLETION
#if defined(BUG_CARRY_BEFORE_COMPLETION)
  atomic { add_to_count(HEADROOM); aph = phase; acnt = count; apar = parts }  /* BUG: carry first ... */
  atomic { completions[k]++ }                                              /* ... completion after */
#else
  atomic {                                             /* completion_() */
    completions[k]++; assert(completions[k] == 1);
    assert(abs_phase > k);                             /* after every arrival of phase k */
#if defined(WEAK_MEMORY)
    assert(SEES(id, k));                               /* and sees what they wrote */
#endif
    WRITE_COMPLETION(id, k)
  }
  atomic {                                             /* fetch_add(HEADROOM, release) */
    CARRY_READY(id) ->
    add_to_count(HEADROOM); aph = phase; acnt = count; apar = parts
  }
#endif
#endif
  skip
}

/* settle: `bph, bcnt` frame the last addition of `n` (before), `aph, acnt, apar` the word
   after it. Sets `ahead` when the thread arms the next phase ahead, a choice after any
   completion that left the count at zero: the code decides by the number of additions a
   phase takes and whether an arm completed it (on the GPU), or never (on the host), and
   the model allows either. */
inline settle(bph, bcnt, bpar, n, aph, acnt, apar, arms, ahead) {
  do
  :: true ->
     if
     :: !arms && COMPLETES(bcnt, n) ->
        complete_phase(bph, aph, acnt, apar);
#if defined(BUG_NO_LEFTOVER_ARM)
        arms = false;
#else
        arms = acnt != 0;
#endif
        if
        :: !arms && owed == 0 && apar == 0 && bpar != 0 ->
           /* a deserted phase: every participant dropped while the completion ran */
#if !defined(BUG_NO_DESERTED_COMPLETION)
           atomic {                                    /* fetch_add(STOP) */
             bph = phase; bcnt = count; bpar = parts;
             add_to_count(STOP);
             aph = phase; acnt = count; apar = parts
           };
#endif
#if !defined(BUG_NO_DESERTED_COMPLETION)
           complete_phase(bph, aph, acnt, apar);
#endif
           deserted++;
           ahead = false;
           break
        :: else -> skip
        fi;
        if
        :: ahead = acnt == 0 && owed == 0
        :: ahead = false
        fi
     :: else -> skip
     fi;
     if
     :: arms ->
        atomic {                                       /* fetch_add(STOP - participants read) */
          /* armed for the phase's participants, less the drops that left their arrival to
             this arm since it read them */
          assert(parts + uncounted[phase] == abs_first[phase]);
          n = STOP - apar;
          bph = phase; bcnt = count; bpar = parts;
          add_to_count(n);
#if !defined(BUG_ARM_IGNORES_DROPS)
          owed = owed + apar - parts;                  /* drops while unarmed: their arrivals */
#endif
          aph = phase; acnt = count; apar = parts
        };
#if defined(BUG_ARM_UNCHECKED)
        n = 0;
#endif
        arms = false
     :: !arms && owed != 0 ->
        atomic {                                       /* fetch_add(owed) */
          n = owed; owed = 0;
          bph = phase; bcnt = count; bpar = parts;
          add_to_count(n);
          aph = phase; acnt = count; apar = parts;
          arms = bcnt == 0
        }
     :: else -> break
     fi
  od
}

/* arm_ahead(a): the compare-and-swap from the word the carry left, `aph, acnt, apar` */
inline arm_ahead(aph, acnt, apar) {
  atomic {
    if
#if defined(BUG_ARM_AHEAD_BLIND)
    :: true -> add_to_count(STOP - apar)               /* BUG: adds, whatever came first */
#else
    :: phase == aph && count == acnt && parts == apar ->  /* the exchange succeeds */
       assert(parts + uncounted[phase] == abs_first[phase]);  /* as settle's arm */
       add_to_count(STOP - parts)
    :: else -> skip                                    /* the next phase's first arrival armed it */
#endif
    fi
  }
}

/* place(before, after, w): the phase of rank r, into `ph` */
inline place(bph, bcnt, bpar, r, ph) {
  if
  :: bcnt >= ARMED_FROM && bcnt < STOP ->
     ph = (r < STOP - bcnt -> bph : bph + 1 + (r - (STOP - bcnt)) / bpar)
  :: else ->
     pos = (bcnt >= STOP -> bcnt - STOP : bcnt);
     ph = bph + (bcnt >= STOP -> 1 : 0) + pos / bpar;
     pos = bpar - pos % bpar;                          /* the room */
     ph = (r < pos -> ph : ph + 1 + (r - pos) / bpar)
  fi;
#if defined(BUG_OVER_SAME_PHASE)
  ph = bph;
#endif
  skip
}

/* arrive_placed(w) (drop: arrive_and_drop()), and each rank's placement checked; `last`
   gets the phase of rank w - 1, `done` whether this thread's own additions completed it */
inline arrive(w, drop, last, done) {
  atomic {
    ARRIVAL_READY(id) ->                               /* acq_rel: the write is visible */
    if
    :: drop ->                                         /* the exchange */
       bph = phase; bcnt = count;
       if
       :: count == 0 ->                                /* arms and arrives in one exchange */
#if defined(BUG_ARM_AFTER_OWN_DROP)
          n = STOP - (parts - 1) + 1                   /* BUG: arms without itself */
#else
          n = STOP - parts + 1
#endif
       :: count >= ARMED_FROM && count < STOP -> n = 1
       :: else ->                                      /* its arm still to come, or above STOP */
#if defined(BUG_DROP_UNARMED)
          n = 1                                        /* BUG: adds its arrival all the same */
#else
          n = 0;                                       /* the arming thread adds its arrival */
          uncounted[abs_phase]++
#endif
       fi;
       parts--;
       bpar = parts;
       count_abstract(1, gph[0]);
       add_to_count(n);
       if
       :: n > 1 -> bcnt = n - 1; n = 1                 /* as if the arm came first */
       :: else -> skip
       fi;
       arms = false
    :: else ->
       bph = phase; bcnt = count; bpar = parts;
       b0ph = bph; b0cnt = bcnt; b0par = bpar;
       n = w;
       r = 0;
       do
       :: r < w -> count_abstract(0, gph[r]); r++
       :: else -> break
       od;
       add_to_count(w);
       arms = bcnt == 0
    fi;
    aph = phase; acnt = count; apar = parts
  };
  if
  :: n != 0 && (arms || COMPLETES(bcnt, n)) -> settle(bph, bcnt, bpar, n, aph, acnt, apar, arms, ahead)
  :: else -> skip
  fi;
  if
  :: !drop ->
     r = 0;
     do
     :: r < w ->
        place(b0ph, b0cnt, b0par, r, ph);
        assert(ph == gph[r]);                          /* the rank's abstract phase */
        last = ph; r++
     :: else -> break
     od;
     done = aph > last
  :: else -> skip
  fi;
  if
  :: ahead -> arm_ahead(aph, acnt, apar)
  :: else -> skip
  fi;
  r = 0; n = 0; pos = 0; arms = false; ahead = false; bpar = 0
}

inline wait(tok, done) {
  if
  :: done -> assert(completions[tok] == 1)              /* its own additions completed it */
  :: else ->
     atomic {                                          /* forecast_to_release(token) == 0 */
#if defined(BUG_WAIT_INVERTED)
       phase <= tok ->                                 /* BUG */
#else
       phase > tok ->
#endif
       POLL_ORDERS_READS(id);                          /* an acquire: later reads stay after it */
       assert(completions[tok] == 1);                  /* phase completed (and its completion ran) ... */
       assert(abs_phase > tok)                         /* ... after all its arrivals */
     }
  fi
}

/* split-phase use: the others wait for the signaller's action before they arrive */
inline before_arrival(id, k) {
  if
  :: AWAITS_SIGNAL(id, k) -> sig[k] == 1
  :: else -> skip
  fi
}
inline after_arrival(id, k, tok, done) {
#if defined(BUG_ARRIVE_WAITS)
  done || phase > tok;                                 /* BUG: arrive() waits for the phase */
#endif
  if
  :: SIGNALS(id, k) -> sig[k] = 1
  :: else -> skip
  fi
}

/* The locals every participant needs for arrive(); `b0*` keep the first addition's
   before, for place(). */
#define LOCALS \
  byte bph, bcnt, bpar, aph, acnt, apar, n, r, ph, pos; \
  byte b0ph, b0cnt, b0par; \
  byte gph[W0 + 1]; \
  bool arms, ahead, done; \
  byte owed = 0; \
  byte tok

#if defined(DROPPER)
#define IN_ROUND(round) ((round) > 1 -> 2 : 3)
#define TIMES(id, round) ((id) == 2 -> 0 : ((id) == 1 && (round) > 1 -> 2 : 1))
#else
#define IN_ROUND(round) 3
#define TIMES(id, round) 1
#endif

#ifndef OVER
proctype participant(byte id; byte w; byte d) {
  byte k = 0;          /* the phase this participant arrives in next (absolute) */
  LOCALS;
  do
  :: k < PHASES && k != d ->                          /* arrive, (signal), wait */
     before_arrival(id, k);
     WRITE_PHASE(id, k);
     READ_BEFORE_ARRIVAL(id);
     arrive(w, 0, tok, done);
     after_arrival(id, k, tok, done);
     READ_AHEAD(id);
#if defined(EAGER)
     if
     :: k + 1 == d -> completions[tok] == 1; DROP_READS(id)  /* told by the completion: drops while it runs */
     :: else -> wait(tok, done); CHECK_PHASE(id, tok)
     fi;
#else
     wait(tok, done);
     CHECK_PHASE(id, tok);
#endif
     k++
  :: k < PHASES && k == d ->                          /* arrive_and_drop() */
     before_arrival(id, k);
     WRITE_PHASE(id, k);
     arrive(1, 1, tok, done);
     after_arrival(id, k, tok, done);
     break
  :: k == PHASES -> break
  od;
  finished++
}

init {
  abs_first[0] = EXPECTED;
  atomic {
    run participant(0, W0, D0);
    run participant(1, 1, D1);
    run participant(2, 1, DROP_PHASE);
    START_DRAIN
  };
  finished == 3;
  assert(phase == abs_phase)                          /* every phase that ended was completed */
}
#else
/* A group of w lanes: each lane waits for its own rank's phase, in rank order (a lane of
   an earlier phase is released when that phase completes, whatever the later ones do). */
proctype participant(byte id; byte w) {
  byte round = 1;
  byte t;
  LOCALS;
  do
  :: round <= ROUNDS ->
     t = 0;
     do
#if defined(DROPPER)
     :: id == 2 ->                                    /* leaves in round 1 */
#if DROP_ORDER == 2
        others_in == 2;                                /* after the others' round-1 arrivals */
#elif DROP_ORDER == 3
        if                                             /* into an unarmed phase after the first */
        :: atomic { phase >= 1 && count > 0 && count < ARMED_FROM -> skip }
        :: others_in == 2 -> skip                      /* (none came: after the others) */
        fi;
#endif
        arrive(1, 1, tok, done);
        dropped = 1;
        round_in[1]++;
        goto out
#endif
     :: t < TIMES(id, round) ->
#if DROP_ORDER == 1
        round > 1 || dropped == 1;                     /* after the drop */
#endif
        arrive(w, 0, tok, done);
#if DROP_ORDER >= 2
        if
        :: round == 1 -> others_in++
        :: else -> skip
        fi;
#endif
        r = 0;
        do
        :: r < w -> wait(gph[r], aph > gph[r]); r++
        :: else -> break
        od;
        t++
     :: else -> break
     od;
     round_in[round]++;
     round_in[round] == IN_ROUND(round);              /* the ideal round barrier */
     round++
  :: else -> break
  od;
out:
  finished++
}

init {
  abs_first[0] = EXPECTED;
  atomic {
    run participant(0, W0);
    run participant(1, 1);
    run participant(2, 1)
  };
  finished == 3;
  assert(phase == abs_phase)                          /* every phase that ended was completed */
}
#endif

ltl all_finish { <> (finished == 3) }
