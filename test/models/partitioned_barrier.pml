/*
 * partitioned_barrier.pml - unisync::basic_partitioned_barrier: a CPU/GPU barrier that
 * learns the split on a central word in the first phase, then counts each side on a word
 * of its own: a side alone with basic_barrier's scheme (arrivals beyond a phase counted in
 * the next ones), both sides with the carry scheme stopping one short of the carry, the
 * phase ending through the two leaders' reports; arrive() never waits for the other side.
 *
 * Mirrors include/unisync/detail/partitioned_barrier.inl (contract:
 * include/unisync/partitioned_barrier.hpp), with arrivals beyond a phase on a side alone:
 *   arrive_as(s, w, drop)  before = side.word.fetch_add((w << 32) - drop); a drop loads
 *                         the word and adds with a compare-and-swap, retried, only while
 *                         it is learning or mixed: once neither (the first phase's arm,
 *                         the other side's leaving), drop_alone. Learning flag set in
 *                         before (first phase, flat mode): count the drop on
 *                         central.drops, arrive_central(w); else arrive_on_side(s,
 *                         before, w, drop)
 *   arrive_on_side        mixed flag clear: arrive_alone(before, w) (no drop gets there
 *                         but with the seeded bugs -DBUG_DROP_*); awaits_carry(before)
 *                         (mixed, count = carry - 1): arrive_after_carry; else the carry
 *                         scheme with stop = carry - 1 (mixed_stop): the first arrival
 *                         arms with stop - participants; settle_arrival
 *   arrive_alone(before, w)  count 0: arms with alone_stop - participants(before); if the
 *                         arm's result shows fewer participants (drops before the arm),
 *                         it owes their arrivals; the arm completes the phase if
 *                         count(before_arm) >= participants; an armed count below the stop
 *                         that this addition takes to it completes it; then place_alone.
 *                         alone_stop = the carry (default completion), carry -
 *                         completion_headroom (completion function)
 *   settle_rest           settle_alone_rest, with complete_alone_phase as its common case:
 *                         an addition that reaches the stop completes the phase (carry_alone:
 *                         the completion function, then fetch_add(headroom), the carry);
 *                         arrivals of the next phase already in: arm them (alone_stop -
 *                         participants(after)), owing the drops the arm finds; owed
 *                         arrivals: one fetch_add, which may complete the phase; a phase
 *                         whose every participant dropped while the completion ran (its
 *                         participants 0 after the carry, not before): fetch_add(alone_stop)
 *                         and complete it too
 *   place_alone, token_of  where each rank of an addition landed, from the word it found:
 *                         armed below the stop: its room; unarmed, count < participants:
 *                         the open phase; else whole phases past it (above the stop: + 1,
 *                         then position / participants); later ranks one phase of
 *                         participants each; a rank's token is completed when the phase
 *                         open after the thread's own additions has passed it
 *                         (side_phase_passed: 1 .. PM/2 - 1 phases ahead, wrapping)
 *   drop_alone            one compare-and-swap, never a wait: count 0, the arm, one
 *                         arrival and one participant fewer; armed below the stop, one
 *                         arrival and one participant fewer (completes the phase if it
 *                         reached the stop); else (before the arm, or above the stop while
 *                         the completion runs) one participant fewer only: the arming
 *                         thread adds its arrival, or the carry opens its phase without
 *                         its place
 *   arrive_central, arrive_beyond_first_phase
 *                         central.fetch_sub(w) on missing + central_bias: within the
 *                         phase as before (the last arriver: complete_central_phase);
 *                         fewer missing than w: the part still in the first phase (if
 *                         any) completes it, and the rest is captured with ranks 0 ..;
 *                         else, in phase 0, the addition is captured, its rank the units
 *                         beyond the phase before it (-missing): never a wait; after the
 *                         release it is added to the side word (arrive_on_side). A drop
 *                         or flat mode there: refused
 *   count_captured        the last arriver, after its release, adds the captured units to
 *                         the side word as one addition (arrive_alone), then publishes the
 *                         word that addition found (release store); its own rest takes
 *                         ranks 0 ..
 *   resolve_captured      a captured rank's wait: once published, its phase is place_rank
 *                         of its rank in that addition
 *   complete_central_phase  expected -= drops; flat mode: completion, central.store(p + 1
 *                         | bias + expected). Else: loads both side words; if their
 *                         shares do not add up to expected (arrivals beyond the phase
 *                         counted while learning): one side's share 0: the other gets all
 *                         of expected, else refused; completion; stores each report (0,
 *                         share) and arms each side word (release stores: phase 0, count
 *                         0, mixed if the other has a share, participants = share);
 *                         central.exchange(phase 1 | bias): the missing count it replaces
 *                         is minus the units captured beyond the phase
 *   settle_arrival        (mixed) reached == carry - 1: lead_mixed_phase (the token leads)
 *   lead_mixed_phase      default completion: GPU reads the CPU's report, then stores its
 *                         own (the read is issued before the fence that releases the store:
 *                         modeled as the read happening first); CPU stores, then reads.
 *                         If the other side is not pending: try_carry. Never waits.
 *                         With a completion function: store, SC fence, read the other's;
 *                         GPU: runs if the CPU is not pending, stores its verdict (np, runs);
 *                         CPU: runs if the GPU is absent; if the GPU arrived, waits for
 *                         the verdict of np or later and runs if it is np's and says the
 *                         GPU does not. The runner: completion, stores completed = np,
 *                         try_carry
 *   try_carry(s, p, r)    if the word is still at phase p and awaits its carry:
 *                         compare-and-swap it to the carried word, clearing mixed when the
 *                         other side left (r absent in p, or r = (p + 1, share 0))
 *   arrive_after_carry    the addition landed on a word awaiting its carry: it carried; the
 *                         debug check phase_ended_across(p); weight 1: arrive again with a
 *                         second addition (as if its drop were in that one); weight > 1:
 *                         w - 1 of it is in the next phase, which it arms with
 *                         stop - participants + 1
 *   phase_ended_across(p, s)
 *                         default: both reports not pending; completion: completed >= p + 1
 *   wait(token)           completed token: returns; central: polls the central phase;
 *                         the waiter's own side: polls the word: a later phase
 *                         (side_phase_passed): released; awaits the carry: if the reports
 *                         show the phase ended, try_carry (the leader at every poll, CPU
 *                         waiters at every poll, other GPU waiters every 64th: a poll that
 *                         may read them); the other side's token: mixed:
 *                         phase_ended_across (loads only), else polls that side's word
 *                         until it has passed the token's phase
 *   arrive_and_wait() on the device (lanes_arrive_and_wait): a warp's lanes add as one
 *                         arrival of weight w; each rank waits for its own phase's token
 *   arrive_and_drop()     arrive_as(s, 1, true)
 * Memory words: the central word (phase, missing + bias), each side word (phase | count |
 * learning | mixed | participants), each report (phase | share), the verdict and
 * `completed` are one 64-bit word each in the code, here a tuple always changed in one
 * atomic step. The central count is a signed number, missing (the code's field minus
 * central_bias). A side's count is modulo CMOD = 32 (the code's 2^24): armed counts are at
 * least 16 (2^23), completion_headroom is 8 (2^22), so a side alone stops at 32 or 24 and
 * a mixed phase at 31; its carry adds 1 to the phase number. Phase numbers (15 bits in the
 * code) are modulo PM = 4 here (8 with -DOVER), so they wrap during the run (side phases
 * 0 1 2 3 0 with the default 6 phases); reports are compared as wrapping differences
 * below PM / 2, a waiter's phase with side_phase_passed. While learning, the count and
 * participants fields are fp_arrivals and fp_drops (the same word in the code).
 *
 * Memory model: sequential consistency. Every load, store and read-modify-write of the
 * code is one atomic Promela step. The memory orders are not modeled; in particular the
 * completion function's exactly-once rule rests on the SC fences between each leader's
 * report store and its read of the other report (no store buffering): under spin's
 * interleaving semantics a store is visible to the next load anyway, so by default the
 * Dekker argument is trivially true here (-DBUG_NO_FENCE alone finds no error). What the
 * model checks with a completion function is the rule built on it: the verdict, who runs,
 * the `completed` marker and the carries. -DSTORE_BUFFERS adds one weak-memory effect,
 * store buffering (TSO, as x86): a leader's report store enters its side's buffer and
 * becomes visible later (a drain() process per side moves it to memory at any time), at
 * the latest when the leader fences (-DCOMPLETION) or before its next store or
 * read-modify-write; the leader's read of the other report may come first. With the
 * fence the rule holds; without it (-DBUG_NO_FENCE) both leaders read the other's old
 * report, neither runs the completion, and the phase never ends (deadlock). The weaker
 * behaviours of the PTX model (no multi-copy atomicity, scopes) are not modeled: the
 * code comment argues them.
 * Merged steps: the first phase's last arriver loads both side words in one step (the
 * code loads one, then the other: the same values whenever only one side counts arrivals,
 * as the contract requires), then, after the completion, stores the reports and both side
 * words in one step (stores that overwrite learning-mode additions made after its loads;
 * those arrivals are captured, or add again after the central release; no thread of one
 * side touches the other side's word); its reads and writes of expected and drops are
 * merged as before.
 * drop_alone's load and compare-and-swap, retried until it succeeds, are one step; so is
 * arrive_as's compare-and-swap for a drop (a failure that still finds the word learning
 * or mixed retries with the value it read: the same as a fetch_add then). A
 * waiter's loads of the two reports (and, with a completion function, of `completed` and
 * the other report) are one guard:
 * once the phase has ended across, what they show for it no longer changes (a side with
 * share 0 reports nothing more, a later report of a side with participants still says
 * "arrived"). try_carry's load and compare-and-swap are one step: only the carry changes
 * a word that awaits it. Polls are guards that block until the poll would succeed
 * (equivalent up to stuttering); the CPU's hint line (open_parity) is not modeled, as in
 * barrier.pml: waiters decide on the word alone.
 *
 * Actors (default): participant P0 on the CPU (side 0), P1 on the GPU (side 1), and with
 * -DNP=3 P2 on side S2 (default 0, the CPU); each arrive_and_wait()s in phases 0 ..
 * PHASES-1 (default 6) except that Pi arrive_and_drop()s in phase Di (default never) and
 * leaves. Pi arrives with weight Wi (default 1). Phase 0 is the central phase; side phase
 * n is absolute phase n + 1. So by default each side has exactly one participant: every
 * side arrival is its side's leader. Each arrival is checked to be counted (and, on a side
 * alone, placed) in its own phase. Options:
 *   -DSPLIT      split-phase use, both directions: in even phases P0 arrives, then sets
 *                sig[k], then waits; in odd phases P1 does; the participants of the other
 *                side wait for sig[k] before they arrive
 *   -DFOREIGN    P0 does not wait on its tokens: it hands each to F, a GPU thread that is
 *                no participant, which waits on it from the other side (reports only, or
 *                P0's word in a phase the CPU has alone) and hands it back; P0 then
 *                arrives in the next phase, often on a word that awaits its carry
 *                (arrive_after_carry)
 *   -DCOMPLETION a completion function: every mixed side phase stops one short of the
 *                carry and the leaders decide who runs it; a side alone stops headroom
 *                short of it
 *   -DFLAT       flat mode: every phase on the central word
 *   -DSTORE_BUFFERS  the leaders' report stores go through store buffers (see above)
 *   -DEAGER      (with -DCOMPLETION) the participant that drops in phase k does not wait
 *                in phase k - 1: it drops once the completion of k - 1 has started (as a
 *                completion that signals it would let it), on a side alone above the
 *                stop. At the end every phase with participants must have run its
 *                completion (a phase all of whose participants dropped that way too)
 * -DOVER: more threads than the barrier expects, all on side OS (default 0, the CPU;
 * -DOS=1: the GPU), the other side with no participant from the first phase on. The
 * barrier expects OE (default 1); NP participants (default 2) arrive_and_wait() once per
 * round, ROUNDS rounds (default 2), an ideal round barrier between rounds (-DNO_ROUND_
 * BARRIER: none; only where every phase fills without it, expected 1); P0 arrives with
 * weight W0 (a warp's lanes counted with one addition, each lane released in its own
 * phase). So arrivals race beyond the central phase (captured before its release, or
 * adding to the side word once armed), weighted additions span the central phase and the
 * side's first one or two side phases, arrivals come before a phase's arm and (with
 * -DCOMPLETION) above its stop while the completion runs. -DDROPPER: P(NP-1)
 * arrive_and_drop()s in round DROP_ROUND (default 2) instead (drop_alone, racing the
 * over-arrivals); -DDROP_FIRST with -DDROP_ROUND=1: the others arrive after its
 * arrive_and_drop() returned (a drop within the first phase); -DLATE_DROP with
 * -DDROP_ROUND=1: its addition comes after the first phase's release (a drop beyond the
 * first phase that the last arriver does not see, so not refused); -DDROP_AFTER: its
 * arrive_and_drop() comes after the others' arrivals of its round. Racing them (the
 * default, and -DLATE_DROP) fails: a drop before a phase's arm (or above its stop) takes
 * only its participant, the count shows the phase one arrival short until the arming
 * thread adds it, and an arrival beyond the phase in that moment is placed in it (the
 * limit basic_barrier has too, see barrier.hpp). The specification is
 * std's barrier kept beside the code as an abstract counter (as in barrier.pml): every
 * arrival unit, in the order of the atomic step that counts it (the central fetch_sub for
 * the units within the first phase, else its addition to the side word, or the drop's
 * exchange), takes the abstract phase and decrements its missing count.
 * Proves (check_model.sh):
 *   --safety        nobody leaves phase k (a participant's wait, a completed token, the
 *                   foreign waiter F) before every participant of phase k arrived (the
 *                   phase checker), and with a completion function before it ran;
 *                   every carry of a side word happens after every arrival of its phase
 *                   (and the completion), and once; the completion runs exactly once per
 *                   phase, after the previous phase's; every arrival is counted in its
 *                   own phase (or, after a carry, in the next) and never exceeds the
 *                   missing count (the checks); each side's phase is armed with exactly
 *                   its participants and every leader reports exactly the next phase's
 *                   share; no deadlock (nothing loops forever, so every participant and F
 *                   finish). With -DOVER: every rank of every addition is placed (and its
 *                   token completed or waited on) in its abstract phase, every phase's
 *                   arm (first arrival, leftover, drop) is for the abstract phase's
 *                   participants, the first phase's completer arms the side with the
 *                   abstract share; each rank leaves only once its phase has completed
 *                   (carried, or the central release) after all its arrivals
 *   --ltl all_finish  under weak fairness every participant finishes
 * Seeded bugs and variants (each caught, see CMakeLists.txt):
 *   -DBUG_LEADER_WAITS     the old design: the leader polls the other report inside
 *                          arrive() until it shows the other side arrived; with -DSPLIT
 *                          the signaller's arrive() waits for an arrival that waits for
 *                          its signal (deadlock)
 *   -DBUG_CARRY_PLAIN_ADD  try_carry loads the word and, if it awaits the carry, adds it
 *                          with a plain fetch_add instead of a compare-and-swap: the leader
 *                          and a waiter both add it (assertion: the second carry lands on a
 *                          word that does not await it; needs -DNP=3, a second waiter)
 *   -DWAITER_OTHER_ONLY    a waiter of the side decides the phase ended on the other
 *                          side's report alone, without its own side's: NOT a bug (no
 *                          error): its word awaiting the carry already says every arrival
 *                          of its side is in, and the leader, whose report is missing, is
 *                          still inside arrive() and cannot arrive in the next phase
 *                          before it has stored it
 *   -DBUG_AFTER_CARRY_NO_REARRIVE
 *                          arrive_after_carry keeps the carry as its arrival: weight 1
 *                          does not arrive again, weight > 1 does not arm the next phase
 *                          (deadlock)
 *   -DBUG_NO_VERDICT       with -DCOMPLETION, the CPU leader that saw the GPU's report
 *                          runs the completion without waiting for the verdict, as the
 *                          GPU does when it saw the CPU's: both run it (assertion)
 *   -DBUG_NO_FENCE         with -DCOMPLETION -DSTORE_BUFFERS, no SC fence between a
 *                          leader's report and its read: store buffering lets both leaders
 *                          miss each other's report, and no one runs the completion
 *                          (deadlock); under plain SC (no -DSTORE_BUFFERS) not caught
 *   -DBUG_REPORT_UNSIGNED  reported_at_least() as an unsigned >=: once the phase numbers
 *                          wrap (awaited next phase 0), the previous report (phase 3)
 *                          reads as arrived and a side is released before the other
 *                          side's arrivals (assertion)
 *   -DBUG_REPORT_KEEPS_DROPS  a leader reports its side's participants without its own
 *                          drop (the share check fires; with -DNO_SHARE_CHECK, when both
 *                          GPU participants drop in phase 2, -DNP=3 -DS2=1 -DD1=2 -DD2=2,
 *                          the GPU's last report says share 1, the CPU side stays mixed
 *                          and its phase never ends: deadlock)
 *   With -DOVER:
 *   -DBUG_NO_LEFTOVER_ARM  complete_alone_phase never arms for leftovers: arrivals of the
 *                          next phase already in its count are never armed (deadlock)
 *   -DBUG_OVER_SAME_PHASE  every rank placed in the phase its addition found: with
 *                          -DNO_PLACE_CHECK (the placement assertion off) a lane beyond
 *                          the phase leaves with it, before its own phase's arrivals
 *                          (assertion)
 *   -DBUG_DROP_PLAIN_ADD   every drop a plain fetch_add, also on a side alone (the drop
 *                          before drop_alone): landing while the phase is unarmed, its
 *                          arrival is counted twice, by itself and by the arming thread
 *                          (assertion; without -DOVER)
 *   -DBUG_DROP_UNARMED     drop_alone adds its arrival while the phase's arm is still to
 *                          come: counted twice (assertion)
 *   -DBUG_ARM_IGNORES_DROPS  the arming thread does not add the arrivals of the drops its
 *                          arm found: the phase never completes (deadlock)
 *   -DBUG_NO_DESERTED_COMPLETION  (-DCOMPLETION -DEAGER) a phase whose participants all
 *                          dropped while the completion ran is left open (assertion at
 *                          the end)
 *   -DBUG_CAPTURED_LOST    the first phase's release forgets the arrivals captured beyond
 *                          it (a plain store): nobody counts them (deadlock)
 *   -DBUG_CAPTURED_RANK_ZERO  every captured addition takes rank 0: -DNP=3, two captured
 *                          arrivals of different phases are placed in one (assertion)
 *   -DBUG_NO_CLAMP         the first phase's last arriver arms the side with the raw
 *                          learned counts, arrivals beyond the phase included (assertion:
 *                          the share check; with -DNO_SHARE_CHECK, which also drops the
 *                          arm check, deadlock)
 * Found in the code of e1f0f6c and fixed since (model.partitioned_barrier.drop_after_carry
 * and after_carry_keeps_mixed; the test README's "Findings" tells both stories):
 *   -DFOREIGN -DNP=3 -DD0=3  a drop whose addition carries the previous phase armed the
 *                          next phase one short (a sibling armed it between the drop's
 *                          two additions); now such a drop makes no second addition
 *                          (`absorbed`)
 *   -DFOREIGN -DNP=3 -DD1=2  carries added by arrivals kept the mixed flag, and a report
 *                          of a side that had left read as pending two phases later; now
 *                          a share of zero means the side has left, whatever the phase
 * Hazards of counting arrivals beyond a phase (the test README's "Findings"); each seeded
 * bug brings one back:
 *   -DBUG_ARM_BEFORE_COMPLETION  (-DOVER -DCOMPLETION) the first phase's last arriver
 *                          armed the side words before it ran the completion: an arrival
 *                          beyond the first phase whose addition comes after those stores
 *                          completes phase 1 and runs its completion before (or while)
 *                          phase 0's runs (assertion)
 *   -DBUG_DROP_FLAGS_LOAD  a drop loaded the flags, then added with a plain fetch_add:
 *                          with -DFOREIGN -DNP=3 -DD1=1 -DD0=3 its load sees the side mixed
 *                          (the phase awaits its carry), a waiter's carry clears the flag
 *                          (the GPU left), and the addition lands on the side now alone
 *                          before the next phase's arm: the sibling that arrives next
 *                          reads one participant, places itself a phase too late and
 *                          waits for a phase only it can complete (assertion; with
 *                          -DNO_PLACE_CHECK, the phase checker: a phase carried one
 *                          arrival short). With -DOVER -DLATE_DROP -DDROP_ROUND=1 it
 *                          misplaced an arrival beyond the first phase; racing those
 *                          arrivals is now the documented limit, which hides it
 */

/* ---- configuration ---- */
#if defined(OVER)
#ifndef NP
#define NP 2                 /* participants P0 .. P(NP-1), all on side OS */
#endif
#ifndef OE
#define OE 1                 /* expected */
#endif
#ifndef OS
#define OS 0
#endif
#ifndef ROUNDS
#define ROUNDS 2
#endif
#ifndef DROP_ROUND
#define DROP_ROUND 2
#endif
#ifndef PM
#define PM 8                 /* phase numbers modulo PM */
#endif
#define NPH 16               /* absolute phases the ghosts can name */
#else
#ifndef PHASES
#define PHASES 6
#endif
#ifndef PM
#define PM 4                 /* phase numbers modulo PM */
#endif
#ifndef NP
#define NP 2                 /* participants: P0 (CPU), P1 (GPU), P2 (side S2) */
#endif
#define NPH PHASES
#endif
#ifndef S2
#define S2 0
#endif
#define NEVER 99
#ifndef D0
#define D0 NEVER
#endif
#ifndef D1
#define D1 NEVER
#endif
#ifndef D2
#define D2 NEVER
#endif
#ifndef W0
#define W0 1
#endif
#ifndef W1
#define W1 1
#endif
#ifndef W2
#define W2 1
#endif
#if defined(FLAT)
#define FLAT_MODE 1
#else
#define FLAT_MODE 0
#endif
#if defined(SPLIT)
#define SPLIT_USE 1
#else
#define SPLIT_USE 0
#endif
#if defined(FOREIGN)
#define HANDS_OFF(id) ((id) == 0)
#else
#define HANDS_OFF(id) false
#endif

#if defined(OVER)
/* the participants of absolute phase k, as std's barrier counts them (the ghost below) */
#define EXPECTED0 OE
#define MEMBERS(k) ((k) == 0 -> OE : abs_first[k])
#define SIDE_MEMBERS(s, k) ((s) == OS -> MEMBERS(k) : 0)
#else
/* arrivals of phase k (a dropper arrives in its drop phase), in all and per side */
#define IN(d, k) ((d) >= (k) -> 1 : 0)
#define HAS_P2 (NP == 3 -> 1 : 0)
#define CPU_MEMBERS(k) (W0 * IN(D0, k) + (S2 == 0 -> HAS_P2 * W2 * IN(D2, k) : 0))
#define GPU_MEMBERS(k) (W1 * IN(D1, k) + (S2 == 1 -> HAS_P2 * W2 * IN(D2, k) : 0))
#define MEMBERS(k) (CPU_MEMBERS(k) + GPU_MEMBERS(k))
#define SIDE_MEMBERS(s, k) ((s) == 0 -> CPU_MEMBERS(k) : GPU_MEMBERS(k))
#define EXPECTED0 MEMBERS(0)
#endif
#if defined(NO_SHARE_CHECK)
#define SHARE_CHECK(x, s, k) skip
#else
#define SHARE_CHECK(x, s, k) assert((x) == SIDE_MEMBERS(s, k))
#endif

/* split-phase use: P0 signals in even phases, P1 in odd ones, while still a participant */
#define SIGNALLER(k) ((k) % 2)
#define D_OF(id) ((id) == 0 -> D0 : ((id) == 1 -> D1 : D2))
#define SIGNALS(id, k) (SPLIT_USE && (id) == SIGNALLER(k))
#define AWAITS_SIGNAL(s, k) (SPLIT_USE && (s) != SIGNALLER(k) && IN(D_OF(SIGNALLER(k)), k))

/* wrapping differences of phase numbers: reported_at_least (x - y >= 0 as signed) and
   side_phase_passed (the open phase is 1 .. PM/2 - 1 phases past `ph`) */
#define NOT_BEHIND(x, y) (((x) + PM - (y)) % PM < PM / 2)
#define AHEAD(x, y) (((x) + PM - (y)) % PM)
#define PASSED(open, ph) (AHEAD(open, ph) != 0 && AHEAD(open, ph) < PM / 2)

#define CMOD 32                   /* a side's count: the code's 2^24 (side_carry) */
#define ARMED_FROM 16             /* side_armed_min: an armed count is at least CMOD / 2 */
#if defined(COMPLETION)
#define HEADROOM 8                /* completion_headroom */
#else
#define HEADROOM 0
#endif
#define ASTOP (CMOD - HEADROOM)   /* alone_stop */
#define MSTOP (CMOD - 1)          /* mixed_stop */

/* central_ */
byte c_phase = 0;             /* phase_and_missing >> 32 (mod PM) */
short c_missing = EXPECTED0;  /* (phase_and_missing & 0xffffffff) - central_bias */
byte c_expected = EXPECTED0;  /* expected */
byte c_drops = 0;             /* drops */
/* cpu_.word, gpu_.word */
bool learning[2] = true;
byte fp_arrivals[2];          /* the count field while learning */
byte fp_drops[2];             /* learning_base - the participants field while learning */
byte s_phase[2];              /* the phase number, modulo PM */
byte s_count[2];              /* the count field, modulo CMOD */
bool s_mixed[2];
byte s_parts[2];              /* the participants field */
byte absorbed[2];             /* a drop absorbed as its side's arrival in the open phase */
byte drops_above[2];          /* ghost: drops above the stop into the side's next phase */
byte arm_less[2];             /* ghost: ... into its open phase */
/* reports_: from_cpu (0), from_gpu (1): next phase (mod PM) | share; verdict, completed */
byte r_phase[2];
byte r_share[2];
#if defined(COMPLETION)
byte v_phase;                 /* gpu_verdict: phase + 1 ... */
bool v_gpu_runs;              /* ... | gpu_runs_completion */
byte done_phase;              /* completed: the phase whose completion ran, + 1 */
#endif

#if defined(STORE_BUFFERS)
/* a store buffer per leader side: its report store, not yet visible to other threads */
bool sb_full[2];
byte sb_phase[2];
byte sb_share[2];
#endif

/* ghosts */
byte s_cur[2];                /* absolute phase of each side's word */
byte completions[NPH];        /* runs of the completion function in each phase */
byte finished = 0;
#if defined(OVER)
/* std's barrier beside the code: every arrival, in the order of the atomic step that
   counts it, takes the abstract phase and decrements its missing count */
byte abs_phase = 0;           /* the abstract current phase (absolute) */
byte abs_missing = OE;        /* its arrivals still missing */
byte abs_parts = OE;          /* the expected count of later phases */
byte abs_first[NPH];          /* participants each abstract phase started with */
byte round_in[ROUNDS + 1];    /* participants through round r */
/* arrivals beyond the first phase that came before its release (the code's
   count_captured): their units, counted by the first phase's last arriver after the arm;
   each unit's abstract phase by rank (ghost); the published placement: the word that
   addition found */
#define MAXCAP (W0 + NP)
byte captured_units;
byte cap_gph[MAXCAP];
bool pub;
byte pub_ph, pub_cnt, pub_par;
bool dropped;                 /* DROP_FIRST: the dropper's arrive_and_drop() returned */
byte others_in;               /* DROP_AFTER: the others' arrivals of the drop's round */
#else
byte arrived[PHASES];         /* arrival weight counted in each phase */
bit sig[PHASES];              /* split-phase use: the signaller's action of phase k */
/* FOREIGN: P0's token, handed to F and back */
bool h_full, h_back, h_central, h_mixed, h_done;
byte h_tok;
#endif

#if defined(COMPLETION)
#define RAN(k) (completions[k] == 1)
#else
#define RAN(k) true
#endif
#if defined(OVER)
#define ALL_IN(k) (abs_phase > (k))
#else
#define ALL_IN(k) (arrived[k] == MEMBERS(k))
#endif
/* the phase checker: phase k is left (or its side word carried) only after all its
   arrivals (and its completion) */
#define RELEASED(k) assert(ALL_IN(k) && RAN(k))
#if defined(OVER)
/* a thread of phase k leaves: also the code's own end of it (central release, carry) */
#define LEAVES(k) assert(ALL_IN(k) && RAN(k) && ((k) == 0 -> c_phase != 0 : s_cur[OS] > (k)))
#endif

/* the completion function runs for phase k: once, after all its arrivals, after the
   previous phase's */
#define COMPLETION_RUNS(k) \
  atomic { \
    completions[k]++; assert(completions[k] == 1); \
    assert((k) == 0 || completions[(k) - 1] == 1); \
    assert(ALL_IN(k)) \
  }

#if defined(OVER)
/* one arrival unit counted by std's barrier: its abstract phase into `into` */
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
/* n units of an addition on a side alone (ranks base ..), inside its atomic step */
/* a drop above the stop: its arrival is the next phase's (the same abstract step) */
#define COUNT_ABOVE_STOP(s) COUNT_UNITS(s, 1, 1, 0)
#define COUNT_UNITS(s, n, drop, base) \
  r = 0; \
  do \
  :: r < (n) -> count_abstract(drop, gph[(base) + r]); r++ \
  :: else -> break \
  od; \
  r = 0
#if defined(NO_PLACE_CHECK)
#define PLACE_CHECK(r, ph) skip
#else
#define PLACE_CHECK(r, ph) assert(gph[r] >= 1 && (gph[r] - 1) % PM == (ph))
#endif
#else
#define COUNT_UNITS(s, n, drop, base) assert(s_cur[s] == k); arrived[k] = arrived[k] + (n)
#define COUNT_ABOVE_STOP(s) assert(s_cur[s] + 1 == k); arrived[k]++
#if defined(NO_PLACE_CHECK)
#define PLACE_CHECK(r, ph) skip
#else
#define PLACE_CHECK(r, ph) assert((k + PM - 1) % PM == (ph))
#endif
#endif
/* the arm of a side alone is for exactly its phase's participants, less those that
   dropped above the stop before the carry opened it (the carry took their places) */
#if defined(NO_SHARE_CHECK)
#define ARM_CHECK(s, parts) skip
#else
#define ARM_CHECK(s, parts) assert((parts) + arm_less[s] == SIDE_MEMBERS(s, s_cur[s]))
#endif
/* the model's counts stay where the code's limits put them: arrivals before an arm below
   side_armed_min, arrivals above the stop below the carry (completion_headroom) */
#define ADD_LIMITS(b, w) \
  assert((b) >= ARMED_FROM || (b) + (w) < ARMED_FROM); \
  assert((b) < ASTOP || (b) + (w) < CMOD)

/* classify(report (ph, sh), p): arrived, absent or (neither) pending */
#if defined(BUG_REPORT_UNSIGNED)
#define C_ARRIVED(ph, p) ((ph) >= ((p) + 1) % PM)   /* BUG: not wrap-safe */
#else
#define C_ARRIVED(ph, p) NOT_BEHIND(ph, ((p) + 1) % PM)
#endif
#define C_ABSENT(ph, sh, p) (!C_ARRIVED(ph, p) && (sh) == 0)   /* left for good */
#define C_SEEN(ph, sh, p) (C_ARRIVED(ph, p) || C_ABSENT(ph, sh, p))
#define R_SEEN(r, p) C_SEEN(r_phase[r], r_share[r], p)
#define OTHER_LEFT(ph, sh, p) ((sh) == 0)

/* phase_ended_across(p, s): s names the token's side */
#if defined(COMPLETION)
#define ENDED_ACROSS(p, s) NOT_BEHIND(done_phase, ((p) + 1) % PM)
#else
#define ENDED_ACROSS(p, s) (R_SEEN(s, p) && R_SEEN(1 - (s), p))
#endif
/* what a waiter of side s requires before it tries the carry */
#if defined(WAITER_OTHER_ONLY) && !defined(COMPLETION)
#define WAITER_ENDED(p, s) R_SEEN(1 - (s), p)
#else
#define WAITER_ENDED(p, s) ENDED_ACROSS(p, s)
#endif
#define AWAITS_CARRY(s) (s_mixed[s] && s_count[s] == MSTOP)

/* Adds `add` to side s's count inside an atomic step; a carry advances the phase number,
   after every arrival of the phase (and its completion) */
inline add_to_count(s, add) {
  s_count[s] = s_count[s] + add;
  if
  :: s_count[s] >= CMOD ->
     s_count[s] = s_count[s] - CMOD; s_phase[s] = (s_phase[s] + 1) % PM;
     RELEASED(s_cur[s]);
     absorbed[s] = 0; arm_less[s] = drops_above[s]; drops_above[s] = 0;
     s_cur[s]++
  :: else -> skip
  fi
}

/* try_carry(s, p, their report) -> res */
inline try_carry(s, p, ph, sh, res) {
#if defined(BUG_CARRY_PLAIN_ADD)
  atomic { res = (s_phase[s] == p && AWAITS_CARRY(s)) };   /* load */
  if
  :: res ->
     atomic {                                     /* BUG: fetch_add, not compare-and-swap */
       assert(s_phase[s] == p && AWAITS_CARRY(s));  /* the carry lands on a word awaiting it */
       add_to_count(s, 1);
       if :: OTHER_LEFT(ph, sh, p) -> s_mixed[s] = false :: else -> skip fi
     }
  :: else -> res = (s_phase[s] != p)
  fi
#else
  atomic {
    if
    :: s_phase[s] == p && AWAITS_CARRY(s) ->
       add_to_count(s, 1);
       if :: OTHER_LEFT(ph, sh, p) -> s_mixed[s] = false :: else -> skip fi;
       res = true
    :: else -> res = (s_phase[s] != p)
    fi
  }
#endif
}

/* The leader's report store: with -DSTORE_BUFFERS it enters the side's store buffer,
   and becomes visible when drain() moves it to memory (at any later time), or when the
   leader drains it (a fence, or before its next store or read-modify-write: FIFO) */
#if defined(STORE_BUFFERS)
inline store_report(s, np, ns) {
  atomic { sb_phase[s] = np; sb_share[s] = ns; sb_full[s] = true }
}
#define DRAINED(s) !sb_full[s]
#else
inline store_report(s, np, ns) {
  atomic { r_phase[s] = np; r_share[s] = ns }
}
#define DRAINED(s) skip
#endif

/* lead_mixed_phase(s, p, ns) by the leader of absolute phase k -> res (the phase ended) */
inline lead_mixed_phase(s, k, p, ns, ph, sh, runs, res) {
#if !defined(COMPLETION)
  if
  :: s == 1 ->                                    /* GPU: read, (fence), report */
     atomic { ph = r_phase[0]; sh = r_share[0] };
     atomic { r_phase[1] = (p + 1) % PM; r_share[1] = ns }
  :: s == 0 ->                                    /* CPU: report, read (no fence) */
     store_report(0, (p + 1) % PM, ns);
     atomic { ph = r_phase[1]; sh = r_share[1] };
     DRAINED(0)                                   /* before its next read-modify-write */
  fi;
#if defined(BUG_LEADER_WAITS)
  if                                              /* BUG: waits inside arrive() */
  :: C_SEEN(ph, sh, p) -> skip
  :: else -> atomic { R_SEEN(1 - s, p) -> ph = r_phase[1 - s]; sh = r_share[1 - s] }
  fi;
#endif
  if
  :: C_SEEN(ph, sh, p) -> try_carry(s, p, ph, sh, res)
  :: else -> res = false
  fi
#else
  store_report(s, (p + 1) % PM, ns);
#if !defined(BUG_NO_FENCE)
  DRAINED(s);                                     /* the SC fence */
#endif
  atomic { ph = r_phase[1 - s]; sh = r_share[1 - s] };
  DRAINED(s);                                     /* before its next store */
  if
  :: s == 1 ->
     runs = C_SEEN(ph, sh, p);
     atomic { v_phase = (p + 1) % PM; v_gpu_runs = runs }
  :: s == 0 && C_ABSENT(ph, sh, p) -> runs = true
  :: s == 0 && C_ARRIVED(ph, p) ->
#if defined(BUG_NO_VERDICT)
     runs = true                                  /* BUG: as the GPU, without the verdict */
#else
     atomic {                                     /* waits for the verdict */
       NOT_BEHIND(v_phase, (p + 1) % PM) ->
       runs = (v_phase == (p + 1) % PM && !v_gpu_runs)
     }
#endif
  :: s == 0 && !C_SEEN(ph, sh, p) -> runs = false
  fi;
  if
  :: runs ->
     COMPLETION_RUNS(k);
     atomic { done_phase = (p + 1) % PM };
     try_carry(s, p, ph, sh, res)
  :: else -> res = false
  fi;
  runs = false
#endif
}

/* settle_arrival (a mixed phase): the arrival of side s in absolute phase k (side phase
   p) reached `reached`; the addition that reaches one short of the carry leads the side */
inline settle(s, k, p, reached, mixed, ns, leads, done, ph, sh, runs) {
  if
  :: reached == MSTOP ->
     SHARE_CHECK(ns, s, k + 1);                   /* the next phase's share */
     leads = true;
     lead_mixed_phase(s, k, p, ns, ph, sh, runs, done)
  :: else -> done = false
  fi
}

/* arrive_on_side, a mixed phase: the carry scheme after the first addition (before,
   mine, mixed), stopping one short of the carry */
inline arrive_on_side(s, k, w, drop, p, before, mine, mixed, reached, ns, leads, done, ph, sh, runs) {
  reached = before + w;
#if defined(BUG_REPORT_KEEPS_DROPS)
  ns = mine;                                      /* BUG: its own drop not subtracted */
#else
  ns = mine - drop;
#endif
  if
  :: before == 0 ->                               /* the first arrival arms */
     assert(mine + absorbed[s] == SIDE_MEMBERS(s, k));   /* armed for exactly the phase's participants */
     atomic {                                     /* fetch_add(arm << 32) */
       reached = s_count[s] + MSTOP - mine;
       ns = s_parts[s];
       add_to_count(s, MSTOP - mine)
     };
     assert(reached <= MSTOP)                     /* the check (UNISYNC_EXPECTS) */
  :: else -> skip
  fi;
  settle(s, k, p, reached, mixed, ns, leads, done, ph, sh, runs)
}

/* ---- a side alone: basic_barrier's scheme on the side's word ---- */

/* the word as an addition of w to (bph, bcnt, bpar) left it: before + (w << 32) */
inline word_after(bph, bcnt, bpar, w, aph, acnt, apar) {
  aph = bph; acnt = bcnt + w; apar = bpar;
  if
  :: acnt >= CMOD -> acnt = acnt - CMOD; aph = (aph + 1) % PM
  :: else -> skip
  fi
}

/* place_alone and token_of: the side phase of rank r of an addition that found
   (bph, bcnt, bpar), into ph (pos: scratch) */
inline place_rank(bph, bcnt, bpar, r, ph, pos) {
  if
  :: bcnt >= ARMED_FROM && bcnt < ASTOP ->        /* armed, below the stop: its room */
     ph = bph; pos = ASTOP - bcnt
  :: else ->
     if
     :: bcnt < bpar ->                            /* unarmed, the phase not full */
        ph = bph; pos = bpar - bcnt
     :: else ->                                   /* whole phases past it */
        assert(bpar != 0);                        /* UNISYNC_EXPECTS */
        if
        :: bcnt >= ASTOP -> pos = bcnt - ASTOP; ph = bph + 1
        :: else -> pos = bcnt; ph = bph
        fi;
        ph = (ph + pos / bpar) % PM;
        pos = bpar - pos % bpar
     fi
  fi;
  if
  :: r >= pos -> assert(bpar != 0); ph = (ph + 1 + (r - pos) / bpar) % PM
  :: else -> skip
  fi;
#if defined(BUG_OVER_SAME_PHASE)
  ph = bph;                                       /* BUG: every rank in the phase it found */
#endif
  pos = 0
}

/* carry_alone: (aph, acnt, apar) = the word as the addition that reached the stop left
   it; default completion: that addition carried; else the completion, then the carry */
inline carry_alone(s, aph, acnt, apar) {
#if defined(COMPLETION)
  assert(acnt >= ASTOP);                          /* UNISYNC_EXPECTS (headroom) */
  COMPLETION_RUNS(s_cur[s]);
  atomic {                                        /* fetch_add(completion_headroom) */
    add_to_count(s, HEADROOM); aph = s_phase[s]; acnt = s_count[s]; apar = s_parts[s]
  }
#else
  skip
#endif
}

/* settle_alone_rest (complete_alone_phase is its common case, inlined in the code): this
   thread's addition of sadd found (sbc, sbp) (count, participants) and left (aph, acnt,
   apar); owed: arrivals of drops its arm found, which it adds after it. An addition that
   reaches the stop completes the phase; arrivals of the next phase already in (leftover)
   are armed; a phase whose every participant dropped while the completion ran is
   completed too. open: the phase open after this thread's additions */
inline settle_rest(s, aph, acnt, apar, open, n, b2) {
  do
  :: true ->
     sarms = (sbc == 0);
     if
     :: !sarms && sbc < ASTOP && sbc + sadd >= ASTOP ->   /* completes the phase */
        carry_alone(s, aph, acnt, apar);
#if defined(BUG_NO_LEFTOVER_ARM)
        sarms = false;                            /* BUG: leaves the leftover arrivals unarmed */
#else
        sarms = (acnt != 0);
#endif
        if
        :: !sarms && owed == 0 ->
#if defined(COMPLETION) && !defined(BUG_NO_DESERTED_COMPLETION)
           if
           :: apar == 0 && sbp != 0 ->            /* deserted while the completion ran */
              atomic { add_to_count(s, ASTOP); aph = s_phase[s]; acnt = s_count[s]; apar = s_parts[s] };
              carry_alone(s, aph, acnt, apar)
           :: else -> skip
           fi;
#endif
           open = aph; break
        :: else -> skip
        fi
     :: else -> skip
     fi;
     if
     :: sarms ->                                  /* arms the phase for the arrivals in it */
        n = apar;                                 /* participants_of(after) */
        assert(n != 0);                           /* UNISYNC_EXPECTS */
        atomic {                                  /* before = fetch_add(arm) */
          ARM_CHECK(s, n);
          sbc = s_count[s]; sbp = s_parts[s]; sadd = ASTOP - n;
          add_to_count(s, sadd);
          aph = s_phase[s]; acnt = s_count[s]; apar = s_parts[s]
        };
#if !defined(BUG_ARM_IGNORES_DROPS)
        owed = owed + n - sbp
#endif
     :: !sarms && owed == 0 -> open = aph; break
     :: !sarms && owed != 0 ->                    /* adds the arrivals of the drops it found */
        sadd = owed; owed = 0;
        atomic {
          sbc = s_count[s]; sbp = s_parts[s]; open = s_phase[s];
          add_to_count(s, sadd);
          aph = s_phase[s]; acnt = s_count[s]; apar = s_parts[s]
        };
        if
        :: sbc != 0 && !(sbc < ASTOP && sbc + sadd >= ASTOP) -> break
        :: else -> skip
        fi
     fi
  od;
  atomic { sbc = 0; sbp = 0; sadd = 0; owed = 0; sarms = false }
}

/* arrive_alone(before, w): (bph, bcnt, bpar) = before; (aph, acnt, apar) = before + w,
   set by the caller -> open */
inline arrive_alone(s, w, bph, bcnt, bpar, aph, acnt, apar, open, n, b2) {
  open = bph;
  if
  :: bcnt == 0 ->                                 /* the phase's first arrival arms it */
     assert(bpar != 0);                           /* UNISYNC_EXPECTS */
     atomic {                                     /* before_arm = fetch_add(arm) */
       ARM_CHECK(s, bpar);
       sbc = s_count[s]; sbp = s_parts[s]; sadd = ASTOP - bpar;
       add_to_count(s, sadd);
       open = s_phase[s]; aph = s_phase[s]; acnt = s_count[s]; apar = s_parts[s]
     };
#if !defined(BUG_ARM_IGNORES_DROPS)
     owed = bpar - sbp;                           /* drops that came in before the arm */
#endif
     if
     :: owed != 0 || sbc >= bpar -> settle_rest(s, aph, acnt, apar, open, n, b2)
     :: else -> skip
     fi
  :: else ->
     if
     :: bcnt >= ARMED_FROM && bcnt < ASTOP && ASTOP - bcnt <= w ->   /* reached the stop */
        sbc = bcnt; sbp = bpar; sadd = w;
        settle_rest(s, aph, acnt, apar, open, n, b2)
     :: else -> skip
     fi
  fi;
  atomic { aph = 0; acnt = 0; apar = 0; n = 0; b2 = 0; sbc = 0; sbp = 0; sadd = 0; owed = 0 }
}

/* drop_alone: one compare-and-swap that never waits (load and exchange retried until it
   succeeds: one step): at count 0 it arms the phase and adds its arrival, armed below the
   stop it adds its arrival, else (before the phase's arm, or above the stop while the
   completion runs: its arrival is then the next phase's) it takes only its participant,
   and the arming thread adds its arrival (or the carry opens the next phase without it)
   -> where its arrival counts, as (bph, bcnt, bpar) for place_rank, open */
inline drop_alone(s, bph, bcnt, bpar, aph, acnt, apar, open, n, b2, first) {
  atomic {
    bph = s_phase[s]; bcnt = s_count[s]; bpar = s_parts[s];
    assert(bpar != 0);                            /* UNISYNC_EXPECTS */
    first = (bcnt == 0);
    if
    :: first -> ARM_CHECK(s, bpar)                /* arms with it */
    :: else -> skip
    fi;
    n = (first -> ASTOP - bpar + 1 : (bcnt >= ARMED_FROM && bcnt < ASTOP -> 1 : 0));
#if defined(BUG_DROP_UNARMED)
    n = (bcnt != 0 && bcnt < ARMED_FROM -> 1 : n);   /* BUG: its arrival before the arm too */
#endif
    if
    :: bcnt >= ASTOP -> COUNT_ABOVE_STOP(s); drops_above[s]++
    :: else -> COUNT_UNITS(s, 1, 1, 0)
    fi;
    s_parts[s] = bpar - 1;
    add_to_count(s, n);
    aph = s_phase[s]; acnt = s_count[s]; apar = s_parts[s]
  };
  open = bph;
  if
  :: n == 0 ->                                    /* placed in the phase its arrival counts in */
     bph = (bcnt >= ASTOP -> (bph + 1) % PM : bph); bcnt = 0; bpar = 1
  :: else ->
     if
     :: first -> bcnt = ASTOP - bpar              /* armed = desired - one arrival */
     :: else -> skip
     fi;
     bpar = bpar - 1;
     if
     :: bcnt + 1 >= ASTOP ->
        sbc = bcnt; sbp = bpar; sadd = 1;
        settle_rest(s, aph, acnt, apar, open, n, b2)
     :: else -> skip
     fi
  fi;
  atomic { aph = 0; acnt = 0; apar = 0; n = 0; b2 = 0; first = false }
}

/* ---- the first phase ---- */

/* complete_central_phase(p) by the last arriver of absolute phase k */
inline complete_central_phase(p, k, cs, gs) {
  atomic {                                        /* expected -= drops.exchange(0) */
    c_expected = c_expected - c_drops; c_drops = 0
  }
  if
  :: !FLAT_MODE ->
     atomic {                                     /* share_of(cpu_), share_of(gpu_): loads */
       cs = fp_arrivals[0] - fp_drops[0]; gs = fp_arrivals[1] - fp_drops[1]
     };
     if                                           /* arrivals beyond the phase counted too */
     :: cs + gs != c_expected ->
#if defined(BUG_NO_CLAMP)
        skip                                      /* BUG: the raw counts */
#else
        assert(cs == 0 || gs == 0);               /* UNISYNC_EXPECTS: refused */
        if
        :: cs == 0 -> gs = c_expected; cs = 0
        :: else -> cs = c_expected; gs = 0
        fi
#endif
     :: else -> skip
     fi;
     SHARE_CHECK(cs, 0, k + 1); SHARE_CHECK(gs, 1, k + 1);
#if !defined(BUG_ARM_BEFORE_COMPLETION)
     COMPLETION_RUNS(k);                          /* the completion first */
#endif
     atomic {                                     /* reports; arm both sides (release stores) */
       r_phase[0] = 0; r_share[0] = cs; r_phase[1] = 0; r_share[1] = gs;
       learning[0] = false; fp_arrivals[0] = 0; fp_drops[0] = 0;
       s_phase[0] = 0; s_count[0] = 0; s_parts[0] = cs; s_mixed[0] = (gs != 0);
       learning[1] = false; fp_arrivals[1] = 0; fp_drops[1] = 0;
       s_phase[1] = 0; s_count[1] = 0; s_parts[1] = gs; s_mixed[1] = (cs != 0);
       s_cur[0] = k + 1; s_cur[1] = k + 1;
       cs = 0; gs = 0
     };
#if defined(BUG_ARM_BEFORE_COMPLETION)
     COMPLETION_RUNS(k)                           /* BUG: after the sides are armed */
#else
     skip
#endif
  :: else -> COMPLETION_RUNS(k)                   /* flat mode */
  fi;
  atomic {                                        /* central.store(p + 1 | bias + ...) */
    c_phase = (p + 1) % PM;
    if
    :: FLAT_MODE -> c_missing = c_expected; assert(c_missing == MEMBERS(k + 1))
    :: else ->                                    /* an exchange: the bias alone */
#if defined(OVER) && !defined(BUG_CAPTURED_LOST)
       captured_units = -c_missing;               /* the arrivals beyond it before it */
#elif !defined(OVER)
       assert(c_missing == 0);                    /* none beyond it */
#endif
       c_missing = 0
    fi
  }
}

#if !defined(OVER)
/* arrive_central(w) in absolute phase k: tok = the token's phase */
inline arrive_central(k, w, tok, before, done, cs, gs) {
  atomic {                                        /* before = central.fetch_sub(w) */
    tok = c_phase; before = c_missing;
    assert(w <= before);                          /* no arrival beyond a phase here */
    c_missing = c_missing - w;
    assert(tok == k % PM);                        /* arriving in its own phase */
    arrived[k] = arrived[k] + w
  }
  if
  :: before == w -> complete_central_phase(tok, k, cs, gs)
  :: else -> skip
  fi;
  done = false;                                   /* a central token polls the central word */
  before = 0
}

/* arrive_as(s, w, drop) in absolute phase k (a drop has w = 1): sets the token (central,
   tok, mixed, leads, done) */
inline arrive(s, k, w, drop) {
  pre = true;
  if
  :: drop -> atomic { pre = learning[s] || s_mixed[s] }   /* the relaxed load of the flags */
  :: else -> skip
  fi;
#if defined(BUG_DROP_PLAIN_ADD)
  pre = true;                                     /* BUG: the old drop, a plain addition */
#endif
  do
  :: drop && !pre ->                              /* drop_alone */
     drop_alone(s, tok, before, mine, aph, acnt, apar, open, n, b2, first);
     place_rank(tok, before, mine, 0, ph, sh);
     PLACE_CHECK(0, ph);
     central = false; mixed = false; done = true;
     break
  :: !(drop && !pre) ->
     atomic {                                     /* before = side.word.fetch_add(...) */
       central = learning[s];
       if
#if !defined(BUG_DROP_FLAGS_LOAD) && !defined(BUG_DROP_PLAIN_ADD)
       :: drop && !central && !s_mixed[s] ->      /* the exchange fails: the side is alone now */
          pre = false
#endif
       :: central ->                              /* counted for learning the split */
          fp_arrivals[s] = fp_arrivals[s] + w; fp_drops[s] = fp_drops[s] + drop
       :: else ->
          tok = s_phase[s]; before = s_count[s]; mine = s_parts[s]; mixed = s_mixed[s];
          awaits = mixed && before == MSTOP;
          if
          :: !mixed ->                            /* a side alone */
             ADD_LIMITS(before, w);
             COUNT_UNITS(s, w, drop, 0)
          :: mixed && awaits ->                   /* its addition carries phase k - 1 */
             assert(s_cur[s] + 1 == k);
             arrived[k] = arrived[k] + w - 1
          :: mixed && !awaits ->
             assert(s_cur[s] == k);               /* arriving in its own phase */
             if                                   /* the check (UNISYNC_EXPECTS) */
             :: before >= ARMED_FROM -> assert(w <= MSTOP - before)
             :: else -> assert(w <= mine)
             fi;
             arrived[k] = arrived[k] + w
          fi;
          s_parts[s] = s_parts[s] - drop;
          add_to_count(s, w);
          if                                      /* a drop with siblings: its arrival */
          :: awaits && w == 1 && drop && mine > 1 -> arrived[k]++; absorbed[s] = 1
          :: else -> skip
          fi
       fi
     }
     if
     :: drop && !pre -> skip                      /* the exchange failed: drop_alone */
     :: !(drop && !pre) && central ->
        if
        :: drop -> c_drops++                      /* central.drops.fetch_add(1) */
        :: else -> skip
        fi;
        arrive_central(k, w, tok, before, done, ns, reached)
     :: !(drop && !pre) && !central && !mixed ->   /* arrive_alone (a drop: its addition took it out) */
        word_after(tok, before, mine, w, aph, acnt, apar);
        arrive_alone(s, w, tok, before, mine, aph, acnt, apar, open, n, b2);
        r = 0;
        do
        :: r < w -> place_rank(tok, before, mine, r, ph, sh); PLACE_CHECK(r, ph); r++
        :: else -> break
        od;
        tok = ph; done = PASSED(open, ph)         /* arrive() returns token_of(w - 1) */
     :: !(drop && !pre) && !central && awaits ->   /* arrive_after_carry */
        if                                        /* the check (UNISYNC_EXPECTS), but for an */
        :: w == 1 && drop && mine > 1 -> skip     /* absorbed drop: the others may be phases */
        :: else -> atomic { assert(ENDED_ACROSS(tok, s)) }   /* ahead by then */
        fi;
        tok = (tok + 1) % PM;
#if defined(BUG_AFTER_CARRY_NO_REARRIVE)
        done = false                              /* BUG: the carry taken for its arrival */
#else
        if
        :: w == 1 && drop && mine > 1 ->          /* absorbed: the sibling arms without it */
           done = true
        :: w == 1 && !(drop && mine > 1) ->       /* arrives again */
           atomic {
             before = s_count[s]; mine = s_parts[s] + drop; mixed = s_mixed[s];
             assert(s_cur[s] == k && s_phase[s] == tok && mixed);
             if
             :: before >= ARMED_FROM -> assert(w <= MSTOP - before)
             :: else -> assert(w <= mine)
             fi;
             arrived[k] = arrived[k] + 1;
             add_to_count(s, 1)
           };
           arrive_on_side(s, k, w, drop, tok, before, mine, mixed, reached, ns, leads, done, ph, sh, runs)
        :: w > 1 ->                               /* arms the next phase, + 1 */
           atomic {
             reached = s_count[s] + MSTOP - mine + 1;
             ns = s_parts[s];
             arrived[k] = arrived[k] + 1;
             add_to_count(s, MSTOP - mine + 1)
           };
           assert(reached < CMOD);                /* the check (UNISYNC_EXPECTS) */
           settle(s, k, tok, reached, mixed, ns, leads, done, ph, sh, runs)
        fi
#endif
     :: else ->
        arrive_on_side(s, k, w, drop, tok, before, mine, mixed, reached, ns, leads, done, ph, sh, runs)
     fi;
     if
     :: drop && !pre -> skip
     :: else -> break
     fi
  od;
  atomic { awaits = false; before = 0; mine = 0; reached = 0; ns = 0; ph = 0; sh = 0; pre = false; open = 0; r = 0 }
}

/* wait(token) by a thread of side s on a token of its own side */
inline wait_own(s, k, central, tok, leads, done, ph, sh, res) {
  if
  :: done -> skip                                 /* completed token: returns at once */
  :: !done && central -> c_phase != tok
  :: !done && !central ->
     do
     :: PASSED(s_phase[s], tok) -> break          /* a later phase: released */
     :: atomic {                                  /* awaits the carry, the reports say ended */
          s_phase[s] == tok && AWAITS_CARRY(s) && WAITER_ENDED(tok, s) ->
          ph = r_phase[1 - s]; sh = r_share[1 - s]
        };
        try_carry(s, tok, ph, sh, res);
        assert(res);
        break
     od
  fi
}

proctype participant(byte id; byte s; byte w; byte d) {
  byte k = 0;           /* the phase it arrives in next (absolute) */
  byte tok, before, mine, reached, ns, ph, sh;
  byte aph, acnt, apar, open, n, b2, r;
  byte sbc, sbp, sadd, owed;  /* settle_rest's state */
  bool sarms;
  bool central, done, mixed, leads, awaits, runs, res, pre, first;
  do
  :: k < PHASES && k != d ->                      /* arrive, (signal), wait */
     if
     :: AWAITS_SIGNAL(s, k) -> sig[k] == 1        /* split-phase: the other side's action */
     :: else -> skip
     fi;
     arrive(s, k, w, 0);
     if
     :: SIGNALS(id, k) -> sig[k] = 1
     :: else -> skip
     fi;
     if
     :: HANDS_OFF(id) ->                          /* F waits on the token */
        atomic { h_tok = tok; h_central = central; h_mixed = mixed; h_done = done; h_full = true };
        atomic { h_back -> h_back = false }
#if defined(EAGER)
     :: !HANDS_OFF(id) && k + 1 == d ->           /* told by the completion: drops while it runs */
        completions[k] == 1
     :: !HANDS_OFF(id) && k + 1 != d -> wait_own(s, k, central, tok, leads, done, ph, sh, res)
#else
     :: else -> wait_own(s, k, central, tok, leads, done, ph, sh, res)
#endif
     fi;
     atomic {
       RELEASED(k);
       tok = 0; central = false; done = false; mixed = false; leads = false; res = false;
       ph = 0; sh = 0
     };
     k++
  :: k < PHASES && k == d ->                      /* arrive_and_drop() */
     if
     :: AWAITS_SIGNAL(s, k) -> sig[k] == 1
     :: else -> skip
     fi;
     arrive(s, k, 1, 1);
     if
     :: SIGNALS(id, k) -> sig[k] = 1
     :: else -> skip
     fi;
     break
  :: k == PHASES -> break
  od;
  finished++
}

/* F: a GPU thread, no participant, that waits on P0's (CPU) tokens from the other side */
proctype foreign() {
  byte k = 0;
  byte tok;
  bool central, mixed, done;
  do
  :: k < PHASES && k < D0 ->
     atomic { h_full -> tok = h_tok; central = h_central; mixed = h_mixed; done = h_done; h_full = false };
     if
     :: done -> skip
     :: !done && central -> c_phase != tok
     :: !done && !central && mixed -> ENDED_ACROSS(tok, 0)   /* the reports, loads only */
     :: !done && !central && !mixed -> PASSED(s_phase[0], tok)   /* the CPU alone: its word */
     fi;
     atomic {
       RELEASED(k);
       tok = 0; central = false; mixed = false; done = false;
       h_back = true
     };
     k++
  :: else -> break
  od
}

#if defined(STORE_BUFFERS)
proctype drain(byte s) {
end:
  do
  :: atomic { sb_full[s] -> r_phase[s] = sb_phase[s]; r_share[s] = sb_share[s]; sb_full[s] = false }
  od
}
#endif

init {
  byte k = 0;
  atomic {
#if defined(STORE_BUFFERS)
    run drain(0);
    run drain(1);
#endif
    run participant(0, 0, W0, D0);
    run participant(1, 1, W1, D1);
    if
    :: NP == 3 -> run participant(2, S2, W2, D2)
    :: else -> skip
    fi;
#if defined(FOREIGN)
    run foreign()
#else
    skip
#endif
  };
#if defined(COMPLETION)
  finished == NP;                                 /* every phase that ended was completed */
  do
  :: k < PHASES -> assert(MEMBERS(k) == 0 || completions[k] == 1); k++
  :: else -> break
  od
#endif
}

#else /* OVER */

/* count_captured: the first phase's last arriver, after its release, counts the arrivals
   beyond it that came before the release as one addition to the side word, each unit's
   abstract phase into cap_gph by rank, and publishes the word that addition found; it is
   on the participants' side (OS), alone */
#define COUNT_CAPTURED(n) \
  r = 0; \
  do \
  :: r < (n) -> count_abstract(0, cap_gph[r]); r++ \
  :: else -> break \
  od; \
  r = 0
inline count_captured(s) {
  if
  :: captured_units > 0 ->
     atomic {                                     /* fetch_add(captured << 32) */
       assert(!learning[s] && !s_mixed[s] && s_parts[s] != 0);
       bph = s_phase[s]; bcnt = s_count[s]; bpar = s_parts[s];
       ADD_LIMITS(bcnt, captured_units);
       COUNT_CAPTURED(captured_units);
       add_to_count(s, captured_units)
     };
     word_after(bph, bcnt, bpar, captured_units, aph, acnt, apar);
     arrive_alone(s, captured_units, bph, bcnt, bpar, aph, acnt, apar, open, n, b2);
     atomic { pub_ph = bph; pub_cnt = bcnt; pub_par = bpar; pub = true }   /* release store */
  :: else -> skip
  fi
}

/* arrive_as(s, w, drop) by a participant of a side alone: counts each rank's abstract
   phase (gph) and places it as the code does (central ranks, tph, tdone), checked; an
   arrival captured beyond the first phase (capt) takes its rank (crank) and is placed in
   its wait */
inline over_arrive(s, w, drop) {
  pre = true;
  if
  :: drop -> atomic { pre = learning[s] || s_mixed[s] }   /* the relaxed load of the flags */
  :: else -> skip
  fi;
#if defined(BUG_DROP_PLAIN_ADD)
  pre = true;                                     /* BUG: the old drop, a plain addition */
#endif
#if defined(LATE_DROP)
  if                                              /* a slow dropper: adds after the first */
  :: drop -> c_phase != 0                         /* phase's release */
  :: else -> skip
  fi;
#endif
  cr = 0; ctok = false;
  do
  :: drop && !pre ->                              /* drop_alone */
     drop_alone(s, bph, bcnt, bpar, aph, acnt, apar, open, n, b2, first);
     place_rank(bph, bcnt, bpar, 0, tph[0], pos);
     PLACE_CHECK(0, tph[0]);
     break
  :: !(drop && !pre) ->
     atomic {                                     /* before = side.word.fetch_add(...) */
       central = learning[s];
       if
#if !defined(BUG_DROP_FLAGS_LOAD) && !defined(BUG_DROP_PLAIN_ADD)
       :: drop && !central && !s_mixed[s] ->      /* the exchange fails: the side is alone now */
          pre = false
#endif
       :: central ->                              /* counted for learning the split */
          fp_arrivals[s] = fp_arrivals[s] + w; fp_drops[s] = fp_drops[s] + drop
       :: else ->
          assert(!s_mixed[s]);                    /* one side only */
          bph = s_phase[s]; bcnt = s_count[s]; bpar = s_parts[s];
          ADD_LIMITS(bcnt, w);
          COUNT_UNITS(s, w, drop, 0);
          s_parts[s] = s_parts[s] - drop;
          add_to_count(s, w)
       fi
     };
     if
     :: drop && !pre -> skip                      /* the exchange failed: drop_alone */
     :: !(drop && !pre) && central ->
        if
        :: drop -> c_drops++                      /* central.drops.fetch_add(1) */
        :: else -> skip
        fi;
        atomic {                                  /* before = central.fetch_sub(w) */
          ctp = c_phase; cm = c_missing; c_missing = c_missing - w;
          if                                      /* the ranks still in the first phase */
          :: ctp == 0 && cm > 0 -> cr = (cm < w -> cm : w)
          :: else -> cr = 0
          fi;
          r = 0;
          do
          :: r < cr -> count_abstract(drop, gph[r]); r++
          :: else -> break
          od;
          r = 0
        };
        if
        :: cm >= w ->                             /* within the phase: a central token */
           if
           :: cm == w -> complete_central_phase(ctp, 0, cs, gs); count_captured(s)
           :: else -> skip
           fi;
           ctok = true
        :: else ->                                /* arrive_beyond_first_phase */
           assert(!FLAT_MODE);                    /* refused in flat mode */
           assert(!drop);                         /* refused: a drop beyond the first phase */
           if
           :: cr != 0 ->                          /* completes it; its rest: ranks 0 .. */
              complete_central_phase(ctp, 0, cs, gs);
              count_captured(s);
              atomic {
                assert(captured_units >= w - cr);
                r = 0;
                do
                :: r < w - cr -> gph[cr + r] = cap_gph[r]; r++
                :: else -> break
                od;
                r = 0
              }
           :: cr == 0 && ctp == 0 ->              /* captured: placed in its wait */
              capt = true; grank = -cm;
#if defined(BUG_CAPTURED_RANK_ZERO)
              crank = 0                           /* BUG: every captured addition at rank 0 */
#else
              crank = -cm
#endif
           :: else ->                             /* after the release: fetch_add(w << 32) */
              atomic {
                assert(!learning[s] && !s_mixed[s]);
                bph = s_phase[s]; bcnt = s_count[s]; bpar = s_parts[s];
                ADD_LIMITS(bcnt, w);
                COUNT_UNITS(s, w, 0, 0);
                add_to_count(s, w)
              };
              word_after(bph, bcnt, bpar, w, aph, acnt, apar);
              arrive_alone(s, w, bph, bcnt, bpar, aph, acnt, apar, open, n, b2)
           fi
        fi
     :: !(drop && !pre) && !central ->            /* arrive_on_side: arrive_alone */
        word_after(bph, bcnt, bpar, w, aph, acnt, apar);
        arrive_alone(s, w, bph, bcnt, bpar, aph, acnt, apar, open, n, b2)
     fi;
     if
     :: drop && !pre -> skip
     :: else ->
        r = 0;
        do                                        /* each rank's token (token_of), checked */
        :: capt -> break                          /* placed in its wait */
        :: !capt && r < w && (ctok || r < cr) ->
           assert(gph[r] == 0);                   /* counted in the first phase */
           r++
        :: !capt && r < w && !(ctok || r < cr) ->
           place_rank(bph, bcnt, bpar, r - cr, tph[r], pos);
           PLACE_CHECK(r, tph[r]);
           tdone[r] = PASSED(open, tph[r]);
           r++
        :: !capt && r == w -> break
        od;
        r = 0;
        break
     fi
  od;
  atomic { pre = false; central = false; bph = 0; bcnt = 0; bpar = 0; open = 0; ctp = 0; cm = 0 }
}

/* the ranks wait, each for its own phase, in rank order (lanes_arrive_and_wait); a
   captured addition's ranks first wait for the published placement (resolve_captured) */
inline over_wait(s, w) {
  if
  :: capt ->
     pub;
     r = 0;
     do
     :: r < w ->
        rk = crank + r;
        place_rank(pub_ph, pub_cnt, pub_par, rk, tph[r], pos);
        gph[r] = cap_gph[grank + r];
        PLACE_CHECK(r, tph[r]);
        tdone[r] = false;
        r++
     :: else -> break
     od
  :: else -> skip
  fi;
  r = 0;
  do
  :: r < w ->
     if
     :: ctok -> c_phase != 0                      /* a central token (phase 0) */
     :: !ctok && r < cr -> skip                   /* its own addition completed the first phase */
     :: !ctok && r >= cr && tdone[r] -> skip      /* completed token */
     :: !ctok && r >= cr && !tdone[r] -> PASSED(s_phase[s], tph[r])   /* polls the word */
     fi;
     atomic { LEAVES(gph[r]); gph[r] = 0; tph[r] = 0; tdone[r] = false };
     r++
  :: else -> break
  od;
  atomic { r = 0; cr = 0; ctok = false; capt = false; crank = 0; rk = 0; grank = 0 }
}

#if defined(DROPPER)
#define DROPS(id, round) ((id) == NP - 1 && (round) == DROP_ROUND)
#define IN_ROUND(round) ((round) > DROP_ROUND -> NP - 1 : NP)
#else
#define DROPS(id, round) false
#define IN_ROUND(round) NP
#endif

proctype over(byte id; byte s; byte w) {
  byte round = 1;
  byte bph, bcnt, bpar, aph, acnt, apar, open, n, b2, pos, r, cr, ctp, cs, gs;
  byte sbc, sbp, sadd, owed;  /* settle_rest's state */
  bool sarms;
  short cm;
  byte gph[W0];          /* each rank's abstract phase */
  byte tph[W0];          /* each rank's side phase as the code placed it */
  bool tdone[W0];        /* ... and whether its token is completed */
  bool central, ctok, pre, first;
  bool capt;             /* captured beyond the first phase: placed in its wait */
  byte crank, rk;        /* ... its rank among the captured; scratch */
  byte grank;            /* ghost: its true rank (the order of the central subtractions) */
  do
  :: round <= ROUNDS && DROPS(id, round) ->       /* arrive_and_drop() */
#if defined(DROP_AFTER)
     others_in == NP - 1;                         /* after the others' arrivals of its round */
#endif
     over_arrive(s, 1, 1);
     atomic { gph[0] = 0; tph[0] = 0; round_in[round]++; dropped = true };
     break
  :: round <= ROUNDS && !DROPS(id, round) ->      /* arrive_and_wait() */
#if defined(DROP_FIRST)
     if                                           /* the others arrive after the drop */
     :: round == DROP_ROUND -> dropped
     :: else -> skip
     fi;
#endif
     over_arrive(s, w, 0);
#if defined(DROP_AFTER)
     if
     :: round == DROP_ROUND -> others_in++
     :: else -> skip
     fi;
#endif
     over_wait(s, w);
     round_in[round]++;
#if !defined(NO_ROUND_BARRIER)
     round_in[round] == IN_ROUND(round);          /* the ideal round barrier */
#endif
     round++
  :: round > ROUNDS -> break
  od;
  finished++
}

init {
  atomic {
    abs_first[0] = OE;
    run over(0, OS, W0);
    run over(1, OS, 1);
    if
    :: NP >= 3 -> run over(2, OS, 1)
    :: else -> skip
    fi;
    if
    :: NP >= 4 -> run over(3, OS, 1)
    :: else -> skip
    fi
  }
}
#endif

ltl all_finish { <> (finished == NP) }
