/*
 * partitioned_barrier.pml - unisync::basic_partitioned_barrier: a CPU/GPU barrier that
 * learns the split on a central word in the first phase, then counts each side on a word
 * of its own with basic_barrier's carry scheme; with both sides, the phase ends through
 * the two leaders' reports, and arrive() never waits for the other side.
 *
 * Mirrors include/unisync/detail/partitioned_barrier.inl (contract:
 * include/unisync/partitioned_barrier.hpp):
 *   arrive_as(s, w, drop)  before = side.word.fetch_add((w << 32) - drop); learning flag
 *                         set (first phase, flat mode): count the drop on central.drops,
 *                         arrive_central(w); else arrive_on_side(s, before, w, drop)
 *   arrive_central, complete_central_phase
 *                         as before the redesign; the last arriver of the first phase arms
 *                         each side word (phase 0, count 0, mixed if the other side has a
 *                         share, participants = share) and stores each report as (0, share)
 *   arrive_on_side        awaits_carry(before) (mixed, count = carry - 1): arrive_after_carry;
 *                         else the carry scheme with step = 1 if mixed (or with a
 *                         completion function): first arrival arms with target -
 *                         participants; settle_arrival
 *   settle_arrival        reached == carry: carried (alone, default completion); reached ==
 *                         carry - 1 with step 1: alone: completion, carry; mixed:
 *                         lead_mixed_phase (the token leads the side)
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
 *                         target - participants + 1
 *   phase_ended_across(p, s)
 *                         default: both reports not pending; completion: completed >= p + 1
 *   wait(token)           completed token: returns; central: polls the central phase;
 *                         the waiter's own side: polls the word: another phase: released;
 *                         awaits the carry: if the reports show the phase ended, try_carry
 *                         (the leader at every poll, CPU waiters at every poll, other GPU
 *                         waiters every 64th: a poll that may read them); the other side's
 *                         token: mixed: phase_ended_across (loads only), else polls that
 *                         side's word for another phase
 *   arrive_and_drop()     arrive_as(s, 1, true)
 * Memory words: the central word (phase, missing), each side word (phase | count |
 * learning | mixed | participants), each report (phase | share), the verdict and
 * `completed` are one 64-bit word each in the code, here a tuple always changed in one
 * atomic step. A side's count is modulo CMOD = 16 (the code's 2^24) and its carry adds 1
 * to the phase number; phase numbers (8 bits in the code) are modulo PM = 4 here, so they
 * wrap during the run (side phases 0 1 2 3 0 with the default 6 phases) and reports are
 * compared as wrapping differences below PM / 2. While learning, the count and
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
 * Merged steps: the leader's reads and writes of expected and drops and the first phase's
 * arming stores (no one touches a side word before the central release), as before; a
 * waiter's loads of the two reports (and, with a completion function, of `completed` and
 * the other report) are one guard: once the phase has ended across, what they show for it
 * no longer changes (a side with share 0 reports nothing more, a later report of a side
 * with participants still says "arrived"). try_carry's load and compare-and-swap are one
 * step: only the carry changes a word that awaits it. Polls are guards that block until
 * the poll would succeed (equivalent up to stuttering); the CPU's hint line
 * (open_parity) is not modeled, as in barrier.pml.
 *
 * Actors: participant P0 on the CPU (side 0), P1 on the GPU (side 1), and with -DNP=3 P2
 * on side S2 (default 0, the CPU); each arrive_and_wait()s in phases 0 .. PHASES-1
 * (default 6) except that Pi arrive_and_drop()s in phase Di (default never) and leaves.
 * Pi arrives with weight Wi (default 1). Phase 0 is the central phase; side phase n is
 * absolute phase n + 1. So by default each side has exactly one participant: every side
 * arrival is its side's leader. Options:
 *   -DSPLIT      split-phase use, both directions: in even phases P0 arrives, then sets
 *                sig[k], then waits; in odd phases P1 does; the participants of the other
 *                side wait for sig[k] before they arrive
 *   -DFOREIGN    P0 does not wait on its tokens: it hands each to F, a GPU thread that is
 *                no participant, which waits on it from the other side (reports only, or
 *                P0's word in a phase the CPU has alone) and hands it back; P0 then
 *                arrives in the next phase, often on a word that awaits its carry
 *                (arrive_after_carry)
 *   -DCOMPLETION a completion function: every side phase stops one short of the carry,
 *                also alone, and the leaders decide who runs it
 *   -DFLAT       flat mode: every phase on the central word
 *   -DSTORE_BUFFERS  the leaders' report stores go through store buffers (see above)
 * Proves (check_model.sh):
 *   --safety        nobody leaves phase k (a participant's wait, a completed token, the
 *                   foreign waiter F) before every participant of phase k arrived (the
 *                   phase checker), and with a completion function before it ran;
 *                   every carry of a side word happens after every arrival of its phase
 *                   (and the completion), and once; the completion runs exactly once per
 *                   phase; every arrival is counted in its own phase (or, after a carry,
 *                   in the next) and never exceeds the missing count (the checks); each
 *                   side's phase is armed with exactly its participants and every leader
 *                   reports exactly the next phase's share; no deadlock (nothing loops
 *                   forever, so every participant and F finish)
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
 * Found in the code of e1f0f6c and fixed since (model.partitioned_barrier.drop_after_carry
 * and after_carry_keeps_mixed; the test README's "Findings" tells both stories):
 *   -DFOREIGN -DNP=3 -DD0=3  a drop whose addition carries the previous phase armed the
 *                          next phase one short (a sibling armed it between the drop's
 *                          two additions); now such a drop makes no second addition
 *                          (`absorbed`)
 *   -DFOREIGN -DNP=3 -DD1=2  carries added by arrivals kept the mixed flag, and a report
 *                          of a side that had left read as pending two phases later; now
 *                          a share of zero means the side has left, whatever the phase
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
 */

#ifndef PHASES
#define PHASES 6
#endif
#ifndef PM
#define PM 4                 /* phase numbers modulo PM */
#endif
#ifndef NP
#define NP 2                 /* participants: P0 (CPU), P1 (GPU), P2 (side S2) */
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

/* arrivals of phase k (a dropper arrives in its drop phase), in all and per side */
#define IN(d, k) ((d) >= (k) -> 1 : 0)
#define HAS_P2 (NP == 3 -> 1 : 0)
#define CPU_MEMBERS(k) (W0 * IN(D0, k) + (S2 == 0 -> HAS_P2 * W2 * IN(D2, k) : 0))
#define GPU_MEMBERS(k) (W1 * IN(D1, k) + (S2 == 1 -> HAS_P2 * W2 * IN(D2, k) : 0))
#define MEMBERS(k) (CPU_MEMBERS(k) + GPU_MEMBERS(k))
#define SIDE_MEMBERS(s, k) ((s) == 0 -> CPU_MEMBERS(k) : GPU_MEMBERS(k))
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

/* a wrapping difference read as signed: x - y >= 0 */
#define NOT_BEHIND(x, y) (((x) + PM - (y)) % PM < PM / 2)

#define CMOD 16
#define ARMED_FROM 8              /* an armed count is at least CMOD / 2 */
#if defined(COMPLETION)
#define STEP(mixed) 1
#else
#define STEP(mixed) ((mixed) -> 1 : 0)
#endif
#define TARGET(mixed) (CMOD - STEP(mixed))

/* central_ */
byte c_phase = 0;             /* phase_and_missing >> 32 (mod PM) */
byte c_missing = MEMBERS(0);  /* phase_and_missing & 0xffffffff */
byte c_expected = MEMBERS(0); /* expected */
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
byte arrived[PHASES];         /* arrival weight counted in each phase */
byte completions[PHASES];     /* runs of the completion function in each phase */
bit sig[PHASES];              /* split-phase use: the signaller's action of phase k */
byte finished = 0;
/* FOREIGN: P0's token, handed to F and back */
bool h_full, h_back, h_central, h_mixed, h_done;
byte h_tok;

#if defined(COMPLETION)
#define RAN(k) (completions[k] == 1)
#else
#define RAN(k) true
#endif
/* the phase checker: phase k is left only after all its arrivals (and its completion) */
#define RELEASED(k) assert(arrived[k] == MEMBERS(k) && RAN(k))

#define COMPLETION_RUNS(k) \
  atomic { \
    completions[k]++; assert(completions[k] == 1); \
    assert(arrived[k] == MEMBERS(k)) \
  }

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
#define AWAITS_CARRY(s) (s_mixed[s] && s_count[s] == CMOD - 1)

/* Adds `add` to side s's count inside an atomic step; a carry advances the phase number,
   after every arrival of the phase (and its completion) */
inline add_to_count(s, add) {
  s_count[s] = s_count[s] + add;
  if
  :: s_count[s] >= CMOD ->
     s_count[s] = s_count[s] - CMOD; s_phase[s] = (s_phase[s] + 1) % PM;
     RELEASED(s_cur[s]);
     absorbed[s] = 0;
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

/* settle_arrival: the arrival of side s in absolute phase k (side phase p) reached `reached` */
inline settle(s, k, p, reached, mixed, ns, leads, done, ph, sh, runs) {
  if
  :: reached == CMOD -> done = true               /* carried: alone, default completion */
  :: reached == CMOD - 1 && STEP(mixed) == 1 ->
     SHARE_CHECK(ns, s, k + 1);                   /* the next phase's share */
     if
     :: !mixed ->                                 /* alone: completion, carry */
        COMPLETION_RUNS(k);
        atomic { add_to_count(s, 1) };
        done = true
     :: mixed ->
        leads = true;
        lead_mixed_phase(s, k, p, ns, ph, sh, runs, done)
     fi
  :: else -> done = false
  fi
}

/* arrive_on_side's carry scheme after the first addition (before, mine, mixed) */
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
       reached = s_count[s] + TARGET(mixed) - mine;
       ns = s_parts[s];
       add_to_count(s, TARGET(mixed) - mine)
     };
     assert(reached <= TARGET(mixed))             /* the check (UNISYNC_EXPECTS) */
  :: else -> skip
  fi;
  settle(s, k, p, reached, mixed, ns, leads, done, ph, sh, runs)
}

/* complete_central_phase(p) by the last arriver of absolute phase k */
inline complete_central_phase(p, k, cs, gs) {
  atomic {                                        /* expected -= drops.exchange(0) */
    c_expected = c_expected - c_drops; c_drops = 0
  }
  if
  :: !FLAT_MODE ->
     atomic {                                     /* learn the split; arm both sides; report */
       cs = fp_arrivals[0] - fp_drops[0];
       gs = fp_arrivals[1] - fp_drops[1];
       SHARE_CHECK(cs, 0, k + 1); SHARE_CHECK(gs, 1, k + 1);
       r_phase[0] = 0; r_share[0] = cs; r_phase[1] = 0; r_share[1] = gs;
       learning[0] = false; s_phase[0] = 0; s_count[0] = 0; s_parts[0] = cs; s_mixed[0] = (gs != 0);
       learning[1] = false; s_phase[1] = 0; s_count[1] = 0; s_parts[1] = gs; s_mixed[1] = (cs != 0);
       s_cur[0] = k + 1; s_cur[1] = k + 1;
       cs = 0; gs = 0
     }
  :: else -> skip
  fi;
  COMPLETION_RUNS(k);
  atomic {                                        /* central.store(p + 1 | expected) */
    c_phase = (p + 1) % PM; c_missing = c_expected;
    assert(c_missing == MEMBERS(k + 1))
  }
}

/* arrive_central(w) in absolute phase k: tok = the token's phase */
inline arrive_central(k, w, tok, before, done, cs, gs) {
  atomic {                                        /* before = central.fetch_sub(w) */
    tok = c_phase; before = c_missing;
    assert(w <= before);                          /* the debug check */
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
  atomic {                                        /* before = side.word.fetch_add(...) */
    central = learning[s];
    if
    :: central ->                                 /* counted for learning the split */
       fp_arrivals[s] = fp_arrivals[s] + w; fp_drops[s] = fp_drops[s] + drop
    :: else ->
       tok = s_phase[s]; before = s_count[s]; mine = s_parts[s]; mixed = s_mixed[s];
       awaits = mixed && before == CMOD - 1;
       if
       :: awaits ->                               /* its addition carries phase k - 1 */
          assert(s_cur[s] + 1 == k);
          arrived[k] = arrived[k] + w - 1
       :: else ->
          assert(s_cur[s] == k);                  /* arriving in its own phase */
          if                                      /* the check (UNISYNC_EXPECTS) */
          :: before >= ARMED_FROM -> assert(w <= TARGET(mixed) - before)
          :: else -> assert(w <= mine)
          fi;
          arrived[k] = arrived[k] + w
       fi;
       s_parts[s] = s_parts[s] - drop;
       add_to_count(s, w);
       if                                         /* a drop with siblings: its arrival */
       :: awaits && w == 1 && drop && mine > 1 -> arrived[k]++; absorbed[s] = 1
       :: else -> skip
       fi
    fi
  }
  if
  :: central ->
     if
     :: drop -> c_drops++                         /* central.drops.fetch_add(1) */
     :: else -> skip
     fi;
     arrive_central(k, w, tok, before, done, ns, reached)
  :: !central && awaits ->                        /* arrive_after_carry */
     if                                           /* the check (UNISYNC_EXPECTS), but for an */
     :: w == 1 && drop && mine > 1 -> skip        /* absorbed drop: the others may be phases */
     :: else -> atomic { assert(ENDED_ACROSS(tok, s)) }   /* ahead by then */
     fi;
     tok = (tok + 1) % PM;
#if defined(BUG_AFTER_CARRY_NO_REARRIVE)
     done = false                                 /* BUG: the carry taken for its arrival */
#else
     if
     :: w == 1 && drop && mine > 1 ->             /* absorbed: the sibling arms without it */
        done = true
     :: w == 1 && !(drop && mine > 1) ->          /* arrives again */
        atomic {
          before = s_count[s]; mine = s_parts[s] + drop; mixed = s_mixed[s];
          assert(s_cur[s] == k && s_phase[s] == tok);
          if
          :: before >= ARMED_FROM -> assert(w <= TARGET(mixed) - before)
          :: else -> assert(w <= mine)
          fi;
          arrived[k] = arrived[k] + 1;
          add_to_count(s, 1)
        };
        arrive_on_side(s, k, w, drop, tok, before, mine, mixed, reached, ns, leads, done, ph, sh, runs)
     :: w > 1 ->                                  /* arms the next phase, + 1 */
        atomic {
          reached = s_count[s] + TARGET(mixed) - mine + 1;
          ns = s_parts[s];
          arrived[k] = arrived[k] + 1;
          add_to_count(s, TARGET(mixed) - mine + 1)
        };
        assert(reached < CMOD);                   /* the check (UNISYNC_EXPECTS) */
        settle(s, k, tok, reached, mixed, ns, leads, done, ph, sh, runs)
     fi
#endif
  :: else ->
     arrive_on_side(s, k, w, drop, tok, before, mine, mixed, reached, ns, leads, done, ph, sh, runs)
  fi;
  atomic { awaits = false; before = 0; mine = 0; reached = 0; ns = 0; ph = 0; sh = 0 }
}

/* wait(token) by a thread of side s on a token of its own side */
inline wait_own(s, k, central, tok, leads, done, ph, sh, res) {
  if
  :: done -> skip                                 /* completed token: returns at once */
  :: !done && central -> c_phase != tok
  :: !done && !central ->
     do
     :: s_phase[s] != tok -> break                /* another phase: released */
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
  bool central, done, mixed, leads, awaits, runs, res;
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
     :: else -> wait_own(s, k, central, tok, leads, done, ph, sh, res)
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
     :: !done && !central && !mixed -> s_phase[0] != tok     /* the CPU alone: its word */
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
  }
}

ltl all_finish { <> (finished == NP) }
