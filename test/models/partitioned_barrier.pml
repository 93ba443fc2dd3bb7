/*
 * partitioned_barrier.pml - unisync::basic_partitioned_barrier: a CPU/GPU barrier that
 * learns the split on a central word in the first phase, then counts each side on a word
 * of its own with basic_barrier's carry scheme and joins the sides with a report handshake.
 *
 * Mirrors include/unisync/detail/partitioned_barrier.inl (contract:
 * include/unisync/partitioned_barrier.hpp):
 *   arrive_counting(w, drop)
 *                         before = side.word.fetch_add((w << 31) - drop); if the learning
 *                         flag is clear: arrive_on_side(side, before, w, drop); else (the
 *                         first phase, or flat mode; the addition counted the arrival and
 *                         the drop for learning): if drop: central.drops.fetch_add(1);
 *                         arrive_central(w)
 *   arrive_central(w)     before = central.phase_and_missing.fetch_sub(w); if missing == w:
 *                         complete_central_phase(phase); token (phase, central)
 *   complete_central_phase(p)
 *                         if drops != 0: expected -= drops.exchange(0); if !flat: each
 *                         side's share = its learned arrivals - drops; handshake_phase =
 *                         p + 1; side.word = (mixed if the other share != 0) | share
 *                         (parity 0, count 0, learning clear); completion();
 *                         central.store(p + 1 | expected)
 *   arrive_on_side(s, before, w, drop)
 *                         step = 1 if mixed (or with a completion function), else 0;
 *                         target = CMOD - step; check w <= (armed ? target - count :
 *                         participants); reached = count + w; ns = participants - drop;
 *                         if count == 0: arm = target - participants; reached =
 *                         count_of(fetch_add(arm)) + arm; ns = participants of that result;
 *                         check reached <= target;
 *                         reached == CMOD: completed by the carry (step 0);
 *                         reached == target and step == 1: complete_side_phase(s, ns, mixed)
 *   complete_side_phase(s, ns, mixed)
 *                         if !mixed: completion(); carry (this side completes alone);
 *                         else np = ++handshake_phase (wrapping);
 *                         CPU: from_cpu.store(np | ns); got = wait_for_report(from_gpu, np);
 *                              carry, clearing mixed if got is np's report with share 0
 *                         GPU, default completion (report_gpu_then_read_cpu): seen =
 *                              from_cpu.load(); fence; from_gpu.store(np | ns); got = seen
 *                              if it shows np or later, else wait_for_report(from_cpu, np);
 *                              carry, clearing mixed as the CPU
 *                         GPU, completion function: got = cpu_report_for(np); completion();
 *                              carry, clearing mixed as the CPU; from_gpu.store(np | ns)
 *   wait_for_report(r, np) poll r until its phase - np, read as a signed wrapping number,
 *                         is >= 0; debug check that the phase is np (or, with the default
 *                         completion, np + 1: the other side reported and went on); a
 *                         report of np + 1 says the other side has participants
 *   wait(token)           a completed token returns at once; else poll the token's word
 *                         (central: its phase; side: its parity) until it differs; the
 *                         CPU's hint line (open_parity) is not modeled: many CPU waiters
 *                         poll it, but decide on the word alone (see barrier.pml)
 *   arrive_and_drop()     arrive_counting(1, true)
 * Memory words: the central word (phase, missing) and the side words (parity, count,
 * learning, mixed, participants) are each one 64-bit word in the code, here a tuple always
 * changed in one atomic step; a report (phase, share) likewise. A side's count is modulo
 * CMOD = 16 (as in barrier.pml), so a carry flips the parity; while learning, the count and
 * participants fields are fp_arrivals and fp_drops here (the same word in the code, read
 * and written in the same step as the learning flag). Phase numbers (32 bits central, 20
 * bits in handshake_phase and the reports) are modulo PM = 8 here (3 bits), so they wrap
 * during the run and the reports are compared as 3-bit signed differences. (With 2 bits
 * the model fails where the code cannot: a copier that reads its leader's newer
 * handshake_phase waits for the phase after next, and the initial report 0, three phases
 * behind it, reads as one ahead in 2 bits; the code's 20-bit window is 2^19 phases.)
 * gpu_.cpu_report_copy is modeled (with -DCOMPLETION, the only case that uses it): the GPU
 * side's first arriver copies the CPU's report in its wait (three steps: the parity, the
 * report, the copy), and the leader takes it. With the default completion the (empty)
 * completion counts as run at the first leader's carry of the phase.
 *
 * Memory model: sequential consistency. Every load, store and read-modify-write of the
 * code is one atomic Promela step; the memory orders are not modeled (the header argues
 * them separately). Steps on words that no other thread can touch at that moment are
 * merged into a neighbouring step: the leader's reads and writes of expected, drops and
 * handshake_phase, and the arming stores of the first phase (no arrival touches a side
 * word before the central release store). flat is set before the barrier is used: a
 * constant here (-DFLAT). Polls are guards that block until the poll would succeed
 * (equivalent up to stuttering).
 *
 * Actors: participants P0, P1 on the CPU (side 0) and P2, P3 on the GPU (side 1); each
 * arrive_and_wait()s in phases 0 .. PHASES-1 (default 9: the side phases run 1..8 and the
 * reported next phases 2..7, 0, 1, so both wrap), except that participant i
 * arrive_and_drop()s in phase Di (default: D3 = 2, a GPU drop in a later phase; others
 * never) and leaves. Participant i arrives with weight Wi (default 1; -DW2=2 models a GPU
 * warp counted as one group arrival, wait(arrive(2))). Configurations:
 *   default              D3 = 2
 *   -DD1=0               a CPU participant drops in the first (central) phase
 *   -DD2=1 -DD3=1        the whole GPU side drops out: the CPU completes alone after
 *   -DD0=2 -DD1=2        the whole CPU side drops out: the GPU completes alone after
 *   -DD2=0 -DD3=0        the GPU side drops out in the first phase (share 0 from the start)
 *   -DD2=2 -DD3=99       one GPU participant from phase 3 on: a single GPU arrival per
 *                        phase (with -DCOMPLETION: which never copies the CPU's report)
 *   -DW2=2               a group arrival of weight 2 on the GPU
 *   -DFLAT               flat mode: every phase on the central word
 *   -DCOMPLETION         a completion function: every side phase stops one short of the
 *                        carry, also alone; the GPU leader reads, completes, releases,
 *                        then reports
 *
 * Proves (check_model.sh):
 *   --safety        nobody leaves phase k before every participant of phase k arrived and
 *                   the completion of phase k ran; the completion runs exactly once per
 *                   phase (checked at every release and, at the end, for every phase)
 *                   and sees all its arrivals; every arrival is counted in its own
 *                   phase and never exceeds the missing count (the checks); each side's
 *                   phase is armed with exactly its participants (the drops are
 *                   subtracted) and the first phase's split is learned exactly; a report
 *                   read by wait_for_report() is never of a later phase (the debug
 *                   check); no deadlock (nothing loops, so every participant finishes)
 *   --ltl all_finish  under weak fairness every participant finishes
 * Seeded bugs and variants:
 *   -DREPORT_EQ                wait_for_report() compares the phases with == instead of the
 *                              wrapping >=: with the default completion a deadlock (the
 *                              other side reported np, went on and reported np + 1 over
 *                              it); with -DCOMPLETION NOT a bug, spin finds no error (a
 *                              side is never a phase ahead there, see README.md)
 *   -DBUG_AHEAD_SHARE          a report of the next phase is read for its share: when the
 *                              CPU side drops out in phase 2 (-DD0=2 -DD1=2), the GPU reads
 *                              the CPU's phase-2 report (share 0) while it completes phase
 *                              1, completes alone from then on, and the CPU leader of phase
 *                              2 waits forever for the GPU's report (deadlock)
 *   -DBUG_REPORT_UNSIGNED      the report phases compared as unsigned numbers (>=): after
 *                              the phase wraps (np = 0), the stale report of phase 7
 *                              passes: the debug check fires (assertion), and with
 *                              -DNO_REPORT_CHECK the GPU runs the completion before the
 *                              CPU's arrivals (assertion)
 * Width: with -DPM=2 (1-bit phases) the model fails, as expected: the first handshake
 * waits for next phase 2 = 0 (mod 2), which the reports' initial value 0 already shows.
 *   -DBUG_COPY_KEPT            with -DCOMPLETION, the GPU leader reads the copy without
 *                              taking it: with one GPU
 *                              arrival per phase (-DD2=2 -DD3=99) no copier refreshes it,
 *                              and a copy four phases old passes the wrapping comparison
 *                              for a later phase: the GPU completes before the CPU arrived
 *                              (assertion). In the code's 20 bits: after 2^19 phases.
 * The code's handshake phases start at 1, so the first handshake waits for phase 2, and
 * every later one sees the previous phase's report (one behind), never the initial 0.
 *   -DBUG_GPU_RELEASE_FIRST    with -DCOMPLETION, the GPU leader adds the carry before it
 *                              runs the completion: a GPU waiter leaves first (assertion)
 *   -DBUG_CPU_NO_WAIT          the CPU leader adds the carry right after its report, before
 *                              it sees the GPU's: the CPU side's phase ends before the
 *                              GPU's arrivals and the completion (assertion)
 *   -DBUG_REPORT_KEEPS_DROPS   a leader reports the participants before its own drop: when
 *                              the whole GPU side drops out, the CPU side stays mixed and
 *                              its leader waits for a report that never comes (deadlock,
 *                              with -DD2=1 -DD3=1 -DNO_SHARE_CHECK; without it the share
 *                              check fires)
 */

#ifndef PHASES
#define PHASES 9
#endif
#ifndef PM
#define PM 8                 /* phase numbers modulo PM */
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
#if defined(NO_SHARE_CHECK)
#define SHARE_CHECK(x, s, k) skip
#else
#define SHARE_CHECK(x, s, k) assert((x) == SIDE_MEMBERS(s, k))
#endif

/* a 3-bit wrapping difference read as signed: x - y >= 0 */
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
/* cpu_, gpu_: word and handshake_phase */
bool learning[2] = true;
byte fp_arrivals[2];          /* the count field while learning */
byte fp_drops[2];             /* learning_base - the participants field while learning */
bit s_parity[2];
byte s_count[2];              /* the count field, modulo CMOD */
bool s_mixed[2];
byte s_parts[2];              /* the participants field */
byte hphase[2];               /* handshake_phase (mod PM) */
/* reports_: from_cpu (0), from_gpu (1): next phase (mod PM) | share */
byte r_phase[2];
byte r_share[2];
/* gpu_.cpu_report_copy: a report, or no_report */
bool copy_valid = false;
byte copy_phase;
byte copy_share;

/* ghosts */
byte s_cur[2];                /* absolute phase of each side's word */
byte arrived[PHASES];         /* arrivals counted in each phase */
byte completions[PHASES];     /* runs of the completion function in each phase */
byte finished = 0;

#define COMPLETION_RUNS(k) \
  atomic { \
    completions[k]++; assert(completions[k] == 1); \
    assert(arrived[k] == MEMBERS(k)) \
  }

/* got: the other side's share of the next phase, or 1 (it has participants) for a report
   of the phase after (only when both sides report before they wait) */
#if defined(COMPLETION)
#define REPORT_CHECK(p, np) assert((p) == (np))
#else
#define REPORT_CHECK(p, np) assert((p) == (np) || (p) == ((np) + 1) % PM)
#endif
#if defined(BUG_AHEAD_SHARE)
#define SHARE_OF(p, sh, np) (sh)                  /* BUG: a later phase's share taken as this one's */
#else
#define SHARE_OF(p, sh, np) ((p) == (np) -> (sh) : 1)
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
    REPORT_CHECK(r_phase[r], np);                 /* the debug check */
#endif
    got = SHARE_OF(r_phase[r], r_share[r], np)
  }
}

/* cpu_report_for(np): takes the copy (exchange for no_report); uses it if it shows np or
   later (debug check: exactly np), else polls the CPU's report itself */
inline cpu_report_for(np, got, hit) {
  atomic {
    hit = copy_valid && NOT_BEHIND(copy_phase, np);
    if
    :: hit ->
#if !defined(BUG_COPY_KEPT)
       assert(copy_phase == np);                  /* the debug check */
#endif
       got = copy_share
    :: else -> skip
    fi;
#if !defined(BUG_COPY_KEPT)
    copy_valid = false                            /* taken; BUG_COPY_KEPT: only read */
#endif
  };
  if
  :: hit -> hit = false
  :: else -> wait_for_report(0, np, got)
  fi
}

/* copy_cpu_report(token) by the GPU side's first arriver, in wait(): polls the CPU's report
   while the phase is open (three steps, as in the code: the parity, the report, the copy) */
inline copy_cpu_report(tok, cnp, seen_p, seen_s) {
  cnp = (hphase[1] + 1) % PM;                     /* handshake_phase, relaxed */
  do
  :: s_parity[1] != tok -> break                  /* the phase ended */
  :: else ->
     atomic { seen_p = r_phase[0]; seen_s = r_share[0] };
     if
     :: NOT_BEHIND(seen_p, cnp) ->
        atomic { copy_valid = true; copy_phase = seen_p; copy_share = seen_s };
        break
     :: else -> skip
     fi
  od;
  atomic { cnp = 0; seen_p = 0; seen_s = 0 }
}

/* Adds `add` to side s's count inside an atomic step; a carry flips the parity. A carry
   of an arrival or an arm completes the phase (step 0: the side alone, default completion). */
inline add_to_count(s, add) {
  s_count[s] = s_count[s] + add;
  if
  :: s_count[s] >= CMOD ->
     s_count[s] = s_count[s] - CMOD; s_parity[s] = 1 - s_parity[s];
     assert(STEP(s_mixed[s]) == 0);
     completions[s_cur[s]]++; assert(completions[s_cur[s]] == 1);
     assert(arrived[s_cur[s]] == MEMBERS(s_cur[s]));
     s_cur[s]++
  :: else -> skip
  fi
}

/* The leader's carry: the count stood one short; clears mixed when the other side left.
   With the default completion both mixed leaders release on the other's report: the first
   carry of the phase is where the (empty) completion counts as run. */
inline leader_carry(s, k, got) {
  atomic {
    assert(s_count[s] == CMOD - 1 && s_cur[s] == k);
#if !defined(COMPLETION)
    if
    :: completions[k] == 0 -> COMPLETION_RUNS(k)
    :: else -> skip
    fi;
#endif
    assert(completions[k] == 1);                  /* the completion ran first */
    s_count[s] = 0; s_parity[s] = 1 - s_parity[s]; s_cur[s]++;
    if
    :: got == 0 -> s_mixed[s] = false
    :: else -> skip
    fi
  }
}

/* complete_side_phase(s, ns, mixed) by the leader of absolute phase k */
inline complete_side_phase(s, k, ns, mixed, np, got, hit) {
  SHARE_CHECK(ns, s, k + 1);                      /* the next phase's participants */
  if
  :: !mixed -> COMPLETION_RUNS(k); got = 1; leader_carry(s, k, got)  /* alone: mixed stays clear */
  :: mixed ->
     atomic { hphase[s] = (hphase[s] + 1) % PM; np = hphase[s]; got = 0 };
     if
     :: s == 0 ->                                 /* CPU: report, then wait for the GPU */
        atomic { r_phase[0] = np; r_share[0] = ns };
#if defined(BUG_CPU_NO_WAIT)
        got = 1                                   /* BUG: released before the GPU reported */
#else
        wait_for_report(1, np, got)
#endif
        ;
        leader_carry(s, k, got)
#if !defined(COMPLETION)
     :: s == 1 ->                                 /* GPU: read, report, then wait if needed */
        atomic { hit = NOT_BEHIND(r_phase[0], np); got = SHARE_OF(r_phase[0], r_share[0], np);
                 if :: hit -> REPORT_CHECK(r_phase[0], np) :: else -> skip fi };
        atomic { r_phase[1] = np; r_share[1] = ns };
        if
        :: hit -> hit = false
        :: else -> wait_for_report(0, np, got)
        fi;
        leader_carry(s, k, got)
#else
     :: s == 1 ->                                 /* GPU: wait, complete, release, report */
        cpu_report_for(np, got, hit);
#if defined(BUG_GPU_RELEASE_FIRST)
        atomic {                                  /* BUG: carries first ... */
          s_count[s] = 0; s_parity[s] = 1 - s_parity[s]; s_cur[s]++
        };
        COMPLETION_RUNS(k);                       /* ... completion after */
#else
        COMPLETION_RUNS(k);
        leader_carry(s, k, got);
#endif
        atomic { r_phase[1] = np; r_share[1] = ns }
#endif
     fi
  fi;
  atomic { np = 0; got = 0 }
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
       SHARE_CHECK(cs, 0, k + 1); SHARE_CHECK(gs, 1, k + 1);
       hphase[0] = (p + 1) % PM; hphase[1] = (p + 1) % PM;
       learning[0] = false; s_parity[0] = 0; s_count[0] = 0; s_parts[0] = cs; s_mixed[0] = (gs != 0);
       learning[1] = false; s_parity[1] = 0; s_count[1] = 0; s_parts[1] = gs; s_mixed[1] = (cs != 0);
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
inline arrive_central(k, w, tok, before, cs, gs) {
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

/* arrive_counting(w, drop) in absolute phase k (a drop has w = 1); sets central, tok, done */
inline arrive_counting(s, k, w, drop, central, tok, done, fetches, before, mine, mixed, reached, ns, np, got) {
  atomic {                                        /* before = side.word.fetch_add(...) */
    central = learning[s];
    if
    :: central ->                                 /* counted for learning the split */
       fp_arrivals[s] = fp_arrivals[s] + w; fp_drops[s] = fp_drops[s] + drop
    :: else ->
       tok = s_parity[s]; before = s_count[s]; mine = s_parts[s]; mixed = s_mixed[s];
       assert(s_cur[s] == k);                     /* arriving in its own phase */
       if                                         /* the check (UNISYNC_EXPECTS) */
       :: before >= ARMED_FROM -> assert(w <= TARGET(mixed) - before)
       :: else -> assert(w <= mine)
       fi;
       arrived[k] = arrived[k] + w;
       s_parts[s] = s_parts[s] - drop;
       add_to_count(s, w)
    fi
  }
  if
  :: central ->
     if
     :: drop -> c_drops++                         /* central.drops.fetch_add(1) */
     :: else -> skip
     fi;
     arrive_central(k, w, tok, before, ns, np);
     done = false
  :: else ->
     reached = before + w;
#if defined(BUG_REPORT_KEEPS_DROPS)
     ns = mine;                                   /* BUG: its own drop not subtracted */
#else
     ns = mine - drop;
#endif
     if
     :: before == 0 ->                            /* the first arrival arms */
        assert(mine == SIDE_MEMBERS(s, k));       /* armed for exactly the phase's participants */
        atomic {                                  /* fetch_add(arm << 31) */
          reached = s_count[s] + TARGET(mixed) - mine;
          ns = s_parts[s];
          add_to_count(s, TARGET(mixed) - mine)
        };
        assert(reached <= TARGET(mixed))          /* the check (UNISYNC_EXPECTS) */
     :: else -> skip
     fi;
     if
     :: reached == CMOD -> done = true            /* completed by its carry (step 0) */
     :: reached == TARGET(mixed) && STEP(mixed) == 1 ->
        complete_side_phase(s, k, ns, mixed, np, got, fetches); done = true
     :: else -> done = false;
#if defined(COMPLETION)
        fetches = (s == 1 && before == 0 && mixed)  /* the GPU's first arriver copies */
#else
        fetches = false
#endif
     fi
  fi;
  before = 0; mine = 0; reached = 0; ns = 0
}

proctype participant(byte id; byte s; byte w; byte d) {
  byte k = 0;           /* the phase it arrives in next (absolute) */
  byte tok, before, mine, reached, ns, np, got;
  bool central, done, mixed, fetches;
  do
  :: k < PHASES && k != d ->                      /* arrive_and_wait() */
     arrive_counting(s, k, w, 0, central, tok, done, fetches, before, mine, mixed, reached, ns, np, got);
     if
     :: fetches -> copy_cpu_report(tok, np, ns, got); fetches = false
     :: else -> skip
     fi;
     if
     :: done -> skip                              /* completed token: returns at once */
     :: else ->
        atomic {                                  /* wait(token) */
          (central && c_phase != tok) || (!central && s_parity[s] != tok) ->
          skip
        }
     fi;
     atomic {
       assert(completions[k] == 1);               /* phase k completed ... */
       assert(arrived[k] == MEMBERS(k));          /* ... after all its arrivals */
       tok = 0; central = false; done = false; mixed = false
     };
     k++
  :: k < PHASES && k == d ->                      /* arrive_and_drop() */
     arrive_counting(s, k, 1, 1, central, tok, done, fetches, before, mine, mixed, reached, ns, np, got);
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
