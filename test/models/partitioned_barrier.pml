/*
 * partitioned_barrier.pml - unisync::basic_partitioned_barrier: a CPU/GPU barrier that
 * learns the split on a central word in the first phase, then counts each side on a word
 * of its own and joins the sides with a report handshake.
 *
 * Mirrors include/unisync/detail/partitioned_barrier.inl (contract:
 * include/unisync/partitioned_barrier.hpp):
 *   arrive(w)             if side.partitioned.load() == 0: arrive_central(w);
 *                         else arrive_on_side(side, w, false)
 *   arrive_central(w)     if !flat: side.first_phase_arrivals.fetch_add(w);
 *                         before = central.phase_and_missing.fetch_sub(w); if missing == w:
 *                         complete_central_phase(phase); token (phase, central)
 *   complete_central_phase(p)
 *                         if drops != 0: expected -= drops.exchange(0); if !flat: each
 *                         side's share = its first_phase_arrivals - first_phase_drops, arm
 *                         each side: share, other_share, phase_and_missing = (p + 1 | share),
 *                         partitioned = 1; completion(); central.store(p + 1 | expected)
 *   arrive_on_side(s, w, drop)
 *                         before = word.fetch_sub(w), or for a drop word.fetch_add(2^22 - 1)
 *                         (one more drop, one less missing, in the same RMW); debug check
 *                         w <= missing; if missing == w (the side's leader):
 *                         complete_side_phase(s, phase, drops of the word after it)
 *   complete_side_phase(s, p, dropped)
 *                         next_share = share - dropped; np = p + 1 (wrapping);
 *                         if other_share == 0: completion() (this side completes alone);
 *                         CPU: from_cpu.store(np | next_share); wait_for_report(from_gpu, np)
 *                         GPU: wait_for_report(from_cpu, np); completion();
 *                              from_gpu.store(np | next_share)
 *                         share = next_share; other_share = the report's share;
 *                         word.store(np | 0 drops | next_share) (releases the side)
 *   wait_for_report(r, np) poll r until its phase - np, read as a signed wrapping number,
 *                         is >= 0; debug check that the phase == np; returns its share
 *   wait(token)           poll the token's word (central or the side's) until its phase
 *                         != the token's phase
 *   arrive_and_drop()     if partitioned: arrive_on_side(s, 1, true); else: if !flat:
 *                         side.first_phase_drops.fetch_add(1); central.drops.fetch_add(1);
 *                         arrive_central(1)
 * Memory words: the central word (phase, missing) and the side words (phase, drops,
 * missing) are each one 64-bit word in the code, here a tuple always changed in one
 * atomic step; a report (phase, share) likewise. Phase numbers (32 bits central, 20 bits
 * on the side words and in the reports) are modulo PM = 4 here (2 bits), so they wrap
 * during the run and the reports are compared as 2-bit signed differences. The other
 * words (expected, drops, flat, partitioned, share, other_share, the first-phase counts)
 * are words of their own.
 *
 * Memory model: sequential consistency. Every load, store and read-modify-write of the
 * code is one atomic Promela step; the memory orders are not modeled (the header argues
 * them separately). Steps on words that no other thread can touch at that moment are
 * merged into a neighbouring step: the leader's reads and writes of expected, drops,
 * share, other_share and the first-phase counts (every arrival of the phase is done,
 * and no waiter reads them before the leader's release store), and the arming stores of
 * the first phase (no arrival touches a side word or partitioned before the central
 * release store). flat is set before the barrier is used: a constant here (-DFLAT).
 * partitioned is loaded in a step of its own. Polls are guards that block until the
 * poll would succeed (equivalent up to stuttering).
 *
 * Actors: participants P0, P1 on the CPU (side 0) and P2, P3 on the GPU (side 1); each
 * arrive_and_wait()s in phases 0 .. PHASES-1 (default 5: the side phases run 1..4 and the
 * reported next phases 2, 3, 0, 1, so both wrap), except that participant i
 * arrive_and_drop()s in phase Di (default: D3 = 2, a GPU drop in a later phase; others
 * never) and leaves. Participant i arrives with weight Wi (default 1; -DW2=2 models a GPU
 * warp counted as one group arrival, wait(arrive(2))). Configurations:
 *   default              D3 = 2
 *   -DD1=0               a CPU participant drops in the first (central) phase
 *   -DD2=1 -DD3=1        the whole GPU side drops out: the CPU completes alone after
 *   -DD0=2 -DD1=2        the whole CPU side drops out: the GPU completes alone after
 *   -DD2=0 -DD3=0        the GPU side drops out in the first phase (share 0 from the start)
 *   -DW2=2               a group arrival of weight 2 on the GPU
 *   -DFLAT               flat mode: every phase on the central word
 *
 * Proves (check_model.sh):
 *   --safety        nobody leaves phase k before every participant of phase k arrived and
 *                   the completion of phase k ran; the completion runs exactly once per
 *                   phase (checked at every release and, at the end, for every phase)
 *                   and sees all its arrivals; every arrival is counted in its own
 *                   phase and never exceeds the missing count (the debug check); each side
 *                   is armed with exactly its remaining participants (the drops are
 *                   subtracted); a report read by wait_for_report() is never of a later
 *                   phase (the debug check); no deadlock (nothing loops, so every
 *                   participant finishes)
 *   --ltl all_finish  under weak fairness every participant finishes
 * Seeded bugs and variants:
 *   -DREPORT_EQ                wait_for_report() compares the phases with == instead of the
 *                              wrapping >=: NOT a bug, spin finds no error (a side is never
 *                              a phase ahead, see README.md)
 *   -DBUG_REPORT_UNSIGNED      the report phases compared as unsigned numbers (>=): after
 *                              the phase wraps (np = 0), the stale report of phase 3
 *                              passes: the debug check fires (assertion), and with
 *                              -DNO_REPORT_CHECK the GPU runs the completion before the
 *                              CPU's arrivals (assertion)
 * Width: with -DPM=2 (1-bit phases) the model fails, as expected: the first handshake
 * waits for next phase 2 = 0 (mod 2), which the reports' initial value 0 already shows.
 * The code's 20-bit side phases start at 1, so the first handshake waits for phase 2, and
 * every later one sees the previous phase's report (one behind), never the initial 0.
 *   -DBUG_GPU_RELEASE_FIRST    the GPU leader releases its side before it runs the
 *                              completion: a GPU waiter leaves first (assertion)
 *   -DBUG_CPU_NO_WAIT          the CPU leader releases its side right after its report,
 *                              before it sees the GPU's: a CPU waiter leaves before the
 *                              GPU's arrivals and the completion (assertion)
 *   -DBUG_SHARE_KEEPS_DROPS    next_share = share, the drops are not subtracted: the side
 *                              is armed for a participant that left (assertion; with
 *                              -DNO_ARM_CHECK the next phase hangs: deadlock)
 */

#ifndef PHASES
#define PHASES 5
#endif
#ifndef PM
#define PM 4                 /* phase numbers modulo PM */
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
#ifndef D3
#define D3 2
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
#ifndef W3
#define W3 1
#endif
#if defined(FLAT)
#define FLAT_MODE 1
#else
#define FLAT_MODE 0
#endif

/* arrivals of phase k (a dropper arrives in its drop phase), in all and per side */
#define IN(d, k) ((d) >= (k) -> 1 : 0)
#define CPU_MEMBERS(k) (W0 * IN(D0, k) + W1 * IN(D1, k))
#define GPU_MEMBERS(k) (W2 * IN(D2, k) + W3 * IN(D3, k))
#define MEMBERS(k) (CPU_MEMBERS(k) + GPU_MEMBERS(k))
#define SIDE_MEMBERS(s, k) ((s) == 0 -> CPU_MEMBERS(k) : GPU_MEMBERS(k))

/* a 2-bit wrapping difference read as signed: x - y >= 0 */
#define NOT_BEHIND(x, y) (((x) + PM - (y)) % PM < PM / 2)

/* central_ */
byte c_phase = 0;             /* phase_and_missing >> 32 (mod PM) */
byte c_missing = MEMBERS(0);  /* phase_and_missing & 0xffffffff */
byte c_expected = MEMBERS(0); /* expected */
byte c_drops = 0;             /* drops */
/* cpu_, gpu_ */
byte s_phase[2];              /* phase_and_missing >> 44 (mod PM) */
byte s_drops[2];              /* (phase_and_missing >> 22) & field_mask */
byte s_missing[2];            /* phase_and_missing & field_mask */
bool partitioned[2];
byte share[2];
byte other_share[2];
byte fp_arrivals[2];          /* first_phase_arrivals */
byte fp_drops[2];             /* first_phase_drops */
/* reports_: from_cpu (0), from_gpu (1): next phase (mod PM) | share */
byte r_phase[2];
byte r_share[2];

/* ghosts */
byte arrived[PHASES];         /* arrivals counted in each phase */
byte completions[PHASES];     /* runs of the completion function in each phase */
byte finished = 0;

#define COMPLETION(k) \
  atomic { \
    completions[k]++; assert(completions[k] == 1); \
    assert(arrived[k] == MEMBERS(k)) \
  }

#if defined(NO_ARM_CHECK)
#define ARM_CHECK(x, s, k) skip
#else
#define ARM_CHECK(x, s, k) assert((x) == SIDE_MEMBERS(s, k))
#endif

inline wait_for_report(r, np, got) {
  atomic {
#if defined(REPORT_EQ)
    r_phase[r] == np ->
#elif defined(BUG_REPORT_UNSIGNED)
    r_phase[r] >= np ->                           /* BUG: not wrap-safe */
#else
    NOT_BEHIND(r_phase[r], np) ->
#endif
#if !defined(NO_REPORT_CHECK)
    assert(r_phase[r] == np);                     /* the debug check */
#endif
    got = r_share[r]
  }
}

/* complete_side_phase(side, phase, dropped) by the leader of absolute phase k */
inline complete_side_phase(s, p, dropped, k, ns, osh, np, got) {
  atomic {                                        /* leader-private reads */
#if defined(BUG_SHARE_KEEPS_DROPS)
    ns = share[s];                                /* BUG: drops not subtracted */
#else
    ns = share[s] - dropped;
#endif
    osh = other_share[s]; np = (p + 1) % PM; got = 0
  }
  if
  :: osh == 0 -> COMPLETION(k)                    /* the other side takes no part */
  :: osh != 0 && s == 0 ->                        /* CPU: report, then wait for the GPU */
     atomic { r_phase[0] = np; r_share[0] = ns };
#if defined(BUG_CPU_NO_WAIT)
     got = osh                                    /* BUG: released before the GPU reported */
#else
     wait_for_report(1, np, got)
#endif
  :: osh != 0 && s == 1 ->                        /* GPU: wait, complete, report */
     wait_for_report(0, np, got);
#if defined(BUG_GPU_RELEASE_FIRST)
     atomic {                                     /* BUG: releases its side first */
       share[s] = ns; other_share[s] = got;
       s_phase[s] = np; s_drops[s] = 0; s_missing[s] = ns;
       ARM_CHECK(ns, s, k + 1)
     };
#endif
     COMPLETION(k);
     atomic { r_phase[1] = np; r_share[1] = ns }
  fi;
#if defined(BUG_GPU_RELEASE_FIRST)
  if
  :: osh != 0 && s == 1 -> skip
  :: else ->
#endif
  atomic {                                        /* share = ...; word.store(np | ns) */
    share[s] = ns; other_share[s] = got;
    s_phase[s] = np; s_drops[s] = 0; s_missing[s] = ns;
    ARM_CHECK(ns, s, k + 1)
  }
#if defined(BUG_GPU_RELEASE_FIRST)
  fi
#endif
  ;
  atomic { ns = 0; osh = 0; np = 0; got = 0 }
}

/* complete_central_phase(p) by the last arriver of absolute phase k */
inline complete_central_phase(p, k, cs, gs) {
  atomic {                                        /* expected -= drops.exchange(0) */
    c_expected = c_expected - c_drops; c_drops = 0
  }
  if
  :: !FLAT_MODE ->
     atomic {                                     /* learn the split; arm both sides */
       cs = fp_arrivals[0] - fp_drops[0];
       gs = fp_arrivals[1] - fp_drops[1];
       ARM_CHECK(cs, 0, k + 1); ARM_CHECK(gs, 1, k + 1);
       share[0] = cs; other_share[0] = gs;
       s_phase[0] = (p + 1) % PM; s_drops[0] = 0; s_missing[0] = cs; partitioned[0] = true;
       share[1] = gs; other_share[1] = cs;
       s_phase[1] = (p + 1) % PM; s_drops[1] = 0; s_missing[1] = gs; partitioned[1] = true;
       cs = 0; gs = 0
     }
  :: else -> skip
  fi;
  COMPLETION(k);
  atomic {                                        /* central.store(p + 1 | expected) */
    c_phase = (p + 1) % PM; c_missing = c_expected;
    assert(c_missing == MEMBERS(k + 1))
  }
}

/* arrive_central(w) in absolute phase k: tok = the token's phase */
inline arrive_central(s, k, w, tok, before, cs, gs) {
  if
  :: !FLAT_MODE -> fp_arrivals[s] = fp_arrivals[s] + w   /* first_phase_arrivals.fetch_add(w) */
  :: else -> skip
  fi;
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
  before = 0
}

/* arrive_on_side(s, w, drop) in absolute phase k (a drop has w = 1) */
inline arrive_on_side(s, k, w, drop, tok, before, dropped, ns, osh, np, got) {
  atomic {                                        /* fetch_sub(w) / fetch_add(2^22 - 1) */
    tok = s_phase[s]; before = s_missing[s];
    assert(w <= before);                          /* the check (UNISYNC_EXPECTS) */
    s_missing[s] = s_missing[s] - w;
    if
    :: drop -> s_drops[s]++
    :: else -> skip
    fi;
    dropped = s_drops[s];                         /* the drops of the word after it */
    assert(tok == k % PM);
    arrived[k] = arrived[k] + w
  }
  if
  :: before == w -> complete_side_phase(s, tok, dropped, k, ns, osh, np, got)
  :: else -> skip
  fi;
  before = 0; dropped = 0
}

proctype participant(byte id; byte s; byte w; byte d) {
  byte k = 0;           /* the phase it arrives in next (absolute) */
  byte tok, before, dropped, ns, osh, np, got;
  bool central;
  do
  :: k < PHASES && k != d ->                      /* arrive_and_wait() */
     if
     :: !partitioned[s] ->
        central = true; arrive_central(s, k, w, tok, before, ns, osh)
     :: else ->
        central = false; arrive_on_side(s, k, w, false, tok, before, dropped, ns, osh, np, got)
     fi;
     atomic {                                     /* wait(token) */
       (central && c_phase != tok) || (!central && s_phase[s] != tok) ->
       assert(completions[k] == 1);               /* phase k completed ... */
       assert(arrived[k] == MEMBERS(k));          /* ... after all its arrivals */
       tok = 0; central = false
     };
     k++
  :: k < PHASES && k == d ->                      /* arrive_and_drop() */
     if
     :: partitioned[s] -> arrive_on_side(s, k, 1, true, tok, before, dropped, ns, osh, np, got)
     :: else ->
        if
        :: !FLAT_MODE -> fp_drops[s]++            /* first_phase_drops.fetch_add(1) */
        :: else -> skip
        fi;
        c_drops++;                                /* central.drops.fetch_add(1) */
        arrive_central(s, k, 1, tok, before, ns, osh)
     fi;
     break
  :: k == PHASES -> break
  od;
  finished++
}

init {
  byte k = 0;
  atomic {
    run participant(0, 0, W0, D0);
    run participant(1, 0, W1, D1);
    run participant(2, 1, W2, D2);
    run participant(3, 1, W3, D3)
  };
  atomic {                                        /* at the end: every phase completed once */
    finished == 4 ->
    do
    :: k < PHASES -> assert(completions[k] == 1); k++
    :: else -> break
    od
  }
}

ltl all_finish { <> (finished == 4) }
