/*
 * shared_mutex.pml - unisync::basic_shared_mutex at system scope: per-side reader words
 * (registered | late for odd writers | late for even writers), a gate closed and reopened
 * by writers under a writers' lock, phase-fair late counting, and the GPU side's report
 * to CPU writers (present, drained for gate g), written under the GPU word's transition bit.
 *
 * Mirrors include/unisync/detail/shared_mutex.inl (contract: include/unisync/shared_mutex.hpp):
 *   register_reader     word.fetch_add(1); GPU: if !present, await_presence (take the
 *                       transition bit and settle, or wait for present); fence; g = gate
 *   wait_out_writers    late[slot(g)]++ (GPU: settle_or_leave if only late ones are left);
 *                       wait until gate != g; late[slot]--; fence; now = gate;
 *                       enter if open or slot(now) != slot, else g = now and again
 *   deregister          word.fetch_sub(1); GPU: settle_or_leave if the side emptied with
 *                       present set, or only late readers are left (might_drain)
 *   settle_report       the loop of settle_report(): publish, withdraw, report drained(g)
 *                       after a gate load validated by a no-op exchange (look again while
 *                       only late readers are left, the gate is open and the first copy
 *                       already closed one ahead of it), release the bit with an exchange
 *                       that fails on any change
 *   lock (writer)       writers' lock; if the previous writer left the gate closed for
 *                       it (inherited), in at once; else store_gate(gate + 1): each GPU
 *                       reader's copy of the gate, then the gate; fence; wait until every
 *                       side is drained: CPU word read directly; GPU word read directly by
 *                       a GPU writer, through the report (not present, or drained for g)
 *                       by a CPU writer
 *   unlock (writer)     if another writer has queued for the writers' lock and fewer than
 *                       BATCH writers have held this closed gate, inherited + 1 and the
 *                       gate stays closed (keeps_gate_for_successor); else inherited = 0
 *                       and store_gate(gate + 1) as above; writers' lock released
 * GPU readers load their own copy of the gate (load_reader_gate(): one host line per block),
 * CPU readers and the report holder the gate itself; each GPU reader of the model has a
 * copy of its own (the worst case: copies updated at different times). The copies start
 * kept (and open); writers keep them once a GPU reader has asked (wanted), and without a
 * request the first writer drops them; a GPU reader whose copy is not kept asks and reads
 * the gate, and keeps to the word it read within one call.
 * The writers' lock is an abstract mutex (its own model is cohort_mutex.pml) whose waiters
 * say they have queued (a taken ticket: they will hold it); BATCH (default 2) writers at
 * most hold one closed gate. The code keeps the count on each side's own page and batches
 * only when the cohort passes within the side (its next holder reads that side's count);
 * the model hands its one count to whichever writer queued (here always the other side's),
 * so that the next holder reads its predecessor's count is assumed, not checked (the code
 * asserts it in close_gate(), as the model does before a close). The gate
 * counts modulo GM = 4 (slot((g + 1) / 2 mod 2) stays consistent across the wrap), reported
 * gates too; a reported gate is never ahead of the gate, so "newer" is "different". A compare-and-swap compares the
 * word's fields, as the code compares its value.
 *
 * Actors: NC CPU readers, NG GPU readers (default 1 and 1), one CPU writer and one GPU
 * writer (-DNO_GPU_WRITER: the CPU writer alone), each looping forever (-DWRITER_ROUNDS=n:
 * each writer writes n times and stops, so that a reader's progress cannot rest on a
 * later writer).
 *
 * Memory model: sequential consistency by default (the fences are no-ops). -DWEAK_MEMORY
 * gives each writer a store buffer for its gate stores (made visible by a flusher in any
 * order with the other side's loads, the copies in any order among themselves and the gate
 * only after them, as its release store orders them; its own loads read it first) and
 * lets a reader's gate
 * load after a registration (or an un-late) be performed before the read-modify-write is
 * visible to writers (modeled as the load taken first); the seq_cst fences forbid both.
 * A CPU reader on the host has no fence there: its registration (or un-late) and its gate
 * load are seq_cst operations, which a CPU writer's fence orders as the reader's fence did
 * (C++20 [atomics.order] p4, p4.2-4.3; against a GPU writer, the processor's ordering, see
 * shared_mutex.hpp); the model's reader fence stands for either.
 *
 * Checks (--safety): no writer beside any other holder; with SC the bounds:
 *   writer  once a writer has closed the gate, each reader enters at most once before the
 *           writer does (it waits only for readers already registered)
 *   reader  from its fence (for a CPU reader on the host, its seq_cst registration), a
 *           reader sees at most BATCH writers' sections start before it enters (one
 *           batch)
 * --ltl rlive0 / wlive0 / wlive1: a registered reader 0 (CPU) / the CPU writer / the GPU
 * writer eventually enters (or, with -DTIMED, gives up); rliveg: the first GPU reader
 * eventually enters.
 * -DTIMED: the same with reader 0 and the CPU writer calling the timed forms (see
 * TIMED_READER_ID below): no writer beside any holder, both bounds, no deadlock (a give-up
 * leaves no registration, late mark or closed gate behind), and with writers that stop a
 * GPU reader still enters (rliveg). A writer that gives up reopens the gate to the value
 * after the next (reopen_abandoned_gate()), so that the next close has the abandoned one's
 * parity and waits, as it would have, for readers still late for the writer before it.
 * -DTIMED_WRITER_ID=1: the GPU writer is the timed one. Give-ups let the gate move on past
 * a late reader (the next close need not wait for it), so the model's gate, modulo GM,
 * can wrap back to the value a slow reader waits on, which then never sees it change; the
 * code's 64-bit gate never repeats a value. The liveness search with the GPU writer
 * timed takes -DGM=8; two give-ups in a row wrap even that (--ltl wlive0 fails so, not
 * checked). A try or a timed form looks at the gate before it registers (a closed gate
 * fails the try, and a timed form waits for it to move, unregistered, or gives up), so the
 * timed reader's failed calls, one after another, cannot keep a writer from seeing its
 * readers drained (--ltl wlive1 with -DNG=0, or wlive0/wlive1 with -DNC=0 -DNG=1).
 * Seeded bugs (each must be caught):
 *   -DBUG_ONE_LATE_COUNTER   one late counter for every writer (-DNC=2 -DNG=0): the next
 *                            writer takes a reader still late for the previous one as
 *                            late, the reader then finds that writer's closed gate in the
 *                            same slot and waits for it too (deadlock)
 *   -DBUG_REREAD_GATE        a reader back from its wait re-checks the gate and waits again
 *                            for any closed gate: a stream of writers starves it (reader
 *                            bound, assertion)
 *   -DBUG_NO_PRESENCE_WAIT   a GPU reader that finds no presence goes on without it: a CPU
 *                            writer sees "not present" and enters beside it (assertion)
 *   -DBUG_LEAVE_OPEN_GATE    the report holder that finds only late GPU readers and the gate
 *                            open lets go: they were late for a closed copy whose writer
 *                            has not stored the gate yet, and no one reports them drained
 *                            (deadlock)
 *   -DBUG_LOOK_AGAIN_ALWAYS  the report holder looks again whenever only late readers are
 *                            left and the gate is open, also when their writer has reopened:
 *                            a reader that went late for a closed copy after its writer had
 *                            reopened (it registered after the writer's drain check) spins
 *                            in its own report until another writer comes (--ltl rliveg
 *                            with -DWRITER_ROUNDS=1: a cycle)
 *   -DBUG_LOOK_AGAIN_BY_PARITY the report holder looks again whenever only late readers
 *                            are left, the gate is open and its next close has their slot,
 *                            without the first copy closed ahead of it: after a give-up a
 *                            GPU reader late for the close before (or for the abandoned
 *                            one) spins in its own report once writers stop (-DTIMED
 *                            --ltl rliveg -DWRITER_ROUNDS=1: a cycle)
 *   -DBUG_GIVE_UP_REOPENS_NEXT (-DTIMED) a writer that gives up reopens to the next value,
 *                            as unlock() does: the next close has the other parity and
 *                            counts a reader still late for the writer before the one that
 *                            gave up as late for itself; the reader waits out that batch
 *                            too (reader bound, assertion)
 *   -DBUG_GATE_BEFORE_COPIES the writer stores the gate before the GPU readers' copies: the
 *                            report holder reads the closed gate and reports the GPU side
 *                            drained while a GPU reader still finds its copy open and enters
 *                            beside the CPU writer (assertion)
 *   -DBUG_UNBOUNDED_BATCH    a writer leaves the gate closed whenever another writer has
 *                            queued, however many have held it: two writers starve the
 *                            readers (reader bound, assertion)
 *   -DBUG_KEEP_WITHOUT_QUEUE a writer leaves the gate closed for a successor that has not
 *                            queued (-DNO_GPU_WRITER -DWRITER_ROUNDS=1: nobody comes, and
 *                            the readers wait forever: deadlock)
 *   -DBUG_NO_DROP            writers without a request leave the copies as they found
 *                            them: a GPU reader reads its copy, kept and open from the
 *                            start, while a writer that has closed only the gate is inside
 *                            (assertion)
 *   -DBUG_NO_WRITER_FENCE    (-DWEAK_MEMORY) the writer's gate store may still be buffered
 *                            when it reads the reader words (assertion)
 *   -DBUG_TRY_REGISTERS_FIRST (-DTIMED) tries and timed forms register before they look
 *                            at the gate: failed tries one after another each register for
 *                            an instant, and a writer whose drain polls all fall into them
 *                            never enters (--ltl wlive1 -DNG=0: a cycle)
 *   -DBUG_NO_READER_FENCE    (-DWEAK_MEMORY) the reader's gate load may pass its
 *                            registration: spin first finds a deadlock (a reader acting on a
 *                            gate value older than its registration); any error counts
 * Not shown by the model: the no-op exchange of settle_report() after its gate load. Under
 * sequential consistency a reader that registers between the holder's word read and its
 * report finds the gate closed anyway, so dropping the exchange passes here; in C++ and PTX
 * the exchange (a release the registration then reads from) is what orders the holder's
 * gate load before that reader's, as the header argues. Likewise the memory orders of the
 * code (release and acquire) are not modeled, only the fences' Dekker shape.
 */

#ifndef NC
#define NC 1
#endif
#ifndef NG
#define NG 1
#endif
#define NR (NC + NG)
#define IS_GPU(r) ((r) >= NC)
#ifndef GM
#define GM 4                                  /* gate modulus: a multiple of 4 keeps the slots */
#endif
#define CLOSED(g) (((g) & 1) == 1)
#define SLOT(g) ((((g) + 1) / 2) % 2)
#define OLD 255                               /* a gate value from before the last wrap */
#define NEWER(g, r) ((g) != (r))                 /* reported is never ahead of the gate */
/* The code's gate counts in 64 bits and never repeats; here it wraps at GM. When a writer
 * closes gate g, a report or a reported gate equal to g is from an older writer with the
 * same residue: marking it OLD keeps the model's comparisons those of the code. A report
 * holder's gate load is remembered (held_gate), and a close of the same residue marks it
 * stale, so a report stored late for an older writer is stored as OLD too. */
byte held_gate[NR];
bool held_stale[NR];
#define FORGET_OLD(g) \
  j = 0; \
  do \
  :: j < NR -> held_stale[j] = held_stale[j] || held_gate[j] == (g); j++ \
  :: else -> j = 0; break \
  od; \
  if \
  :: report_gate == (g) -> report_gate = OLD \
  :: else -> skip \
  fi; \
  if \
  :: reported == (g) -> reported = OLD \
  :: else -> skip \
  fi

/* -DTIMED: reader TIMED_READER_ID and writer TIMED_WRITER_ID (default: reader 0 and the
 * CPU writer) call the timed forms, whose deadline may pass after any poll that fails
 * (the give-up's guard is that poll's failure), so that their runs include those of the
 * untimed calls (a deadline that never passes). A reader, before it registers, loads
 * the gate: closed, try_lock_shared() gives up, and a timed form waits for it to move or
 * gives up; after its fence, try_lock_shared() gives up at a closed gate
 * (deregister(side, 1)) and a wait in wait_out_writers() may end by its deadline
 * (deregister(side, 1 + late)). A writer:
 * try_lock_for() takes the writers' lock only when no writer has queued for it (a try
 * never queues, and the code's lock goes to a queued writer first; the code keeps a
 * closed gate only for a writer of its side that queued, so a try never inherits one:
 * asserted), closes the gate and waits for the drain, or gives up: reopens the gate
 * (reopen_abandoned_gate(), GIVE_UP_GATE) and releases the writers' lock, with no
 * section. */
#define NO_SLOT 2                             /* q: no late count taken in this call */
/* A writer's drain check (forecast_to_drain() == 0), CPU writers through the report */
#define WRITER_DRAINED(w, g) \
  (DRAINED(0, g) && (((w) == 1 && DRAINED(1, g)) || ((w) == 0 && (!report_present || report_gate == (g)))))
#if defined(TIMED)
#ifndef TIMED_READER_ID
#define TIMED_READER_ID 0                     /* NR or more: no timed reader */
#endif
#ifndef TIMED_WRITER_ID
#define TIMED_WRITER_ID 0                     /* 2: no timed writer */
#endif
#if defined(BUG_GIVE_UP_REOPENS_NEXT)
#define GIVE_UP_GATE(g) (((g) + 1) % GM)      /* reopen_gate(gate), as unlock() */
#else
#define GIVE_UP_GATE(g) (((g) + 3) % GM)      /* reopen_abandoned_gate(gate): g's slot next */
#endif
#define TIMED_READER(r) ((r) == TIMED_READER_ID)
#define TIMED_WRITER(w) ((w) == TIMED_WRITER_ID)
#endif

/* the reader words: [0] CPU, [1] GPU */
byte reg[2];
byte late0[2];
byte late1[2];
#define LATE(s, q) ((q) == 0 -> late0[s] : late1[s])
bool present;                                 /* GPU word's present bit */
bool transition;                              /* GPU word's transition bit */
byte reported;                                /* gpu_part::reported_gate */
/* the link part */
byte gate;
#if NG > 0
#define NCOPY NG
#else
#define NCOPY 1
#endif
#define KEPT 64                               /* kept_copy: a copy that writers keep */
byte copy[NCOPY];                             /* link_part::reader_gates, one per GPU reader */
bool wanted;                                  /* link_part::copies_wanted */
#define KEPT_FOR(r) (IS_GPU(r) && copy[(r) - NC] >= KEPT)
/* The word a reader reads: its copy once kept (without the mark), else the gate. */
#define GATE_OF(r) ((IS_GPU(r) && via_copy) -> copy[(r) - NC] % KEPT : gate)
bool report_present;
byte report_gate;
/* the writers' lock */
bool wlock;
bool queued[2];                               /* writer w has taken its ticket */
#ifndef BATCH
#define BATCH 2
#endif
byte inherited;                               /* the sides' inherited_writers, as one */

#if defined(WEAK_MEMORY)
bool gate_pending[2];                         /* writer w's gate store not yet visible */
bool copy_pending[2 * NCOPY];                 /* [w * NCOPY + k]: its store to copy k */
byte gate_buffered[2];
byte copy_buffered[2];                        /* the value its copy stores write */
#define GATE_SEEN_BY_WRITER(w) (gate_pending[w] -> gate_buffered[w] : gate)
#else
#define GATE_SEEN_BY_WRITER(w) gate
#endif

/* ghosts */
byte readers_in;
byte writers_in;
bool draining[2];                             /* writer w has closed the gate, not yet in */
byte entries_since_close[2 * NR];             /* [w * NR + r] */
bool counting[NR];                            /* reader r has fenced, not yet in */
byte writer_sections_seen[NR];

#define MIGHT_DRAIN(s) ((late0[s] > 0 && reg[s] == late0[s]) || (late1[s] > 0 && reg[s] == late1[s]))
#define DRAINED(s, g) (reg[s] == LATE(s, SLOT(g)))

#if defined(BUG_ONE_LATE_COUNTER)
#define LSLOT(g) 0
#else
#define LSLOT(g) SLOT(g)
#endif

inline add_late(s, q, d) {
  if
  :: q == 0 -> late0[s] = late0[s] + d
  :: else -> late1[s] = late1[s] + d
  fi
}

/* settle_report(): the caller holds the transition bit. sv_*: the word as last read. */
inline settle() {
  do
  :: atomic { sv_reg = reg[1]; sv_l0 = late0[1]; sv_l1 = late1[1]; sv_p = present }
     if
     :: sv_reg > 0 && !sv_p ->
        atomic { report_present = true };
        atomic { present = true }
     :: sv_reg == 0 && sv_p ->
        atomic {
          if
          :: reg[1] == sv_reg && late0[1] == sv_l0 && late1[1] == sv_l1 && present == sv_p ->
             present = false; ok = true
          :: else -> ok = false
          fi
        };
        if
        :: ok -> atomic { report_present = false }
        :: else -> skip
        fi
     :: else ->
        ok = false;
        if
        :: sv_p && ((sv_l0 > 0 && sv_reg == sv_l0) || (sv_l1 > 0 && sv_reg == sv_l1)) ->
           atomic { hg = gate; held_gate[r] = hg; held_stale[r] = false };
           if
           :: CLOSED(hg) && sv_reg == (SLOT(hg) == 0 -> sv_l0 : sv_l1) && NEWER(hg, reported) ->
              atomic {                       /* the no-op exchange */
                ok = (reg[1] == sv_reg && late0[1] == sv_l0 && late1[1] == sv_l1 && present == sv_p)
              };
              if
              :: ok -> reported = (held_stale[r] -> OLD : hg);
                 atomic { report_gate = (held_stale[r] -> OLD : hg); report_present = true }
              :: else -> skip
              fi
#if defined(BUG_LOOK_AGAIN_ALWAYS)
           :: !CLOSED(hg) -> ok = true
#elif defined(BUG_LOOK_AGAIN_BY_PARITY)
           /* the old rule: the next close alone, inferred from the gate's parity */
           :: !CLOSED(hg) && SLOT((hg + 1) % GM) == (sv_l0 > 0 -> 0 : 1) -> ok = true
#elif !defined(BUG_LEAVE_OPEN_GATE)
           /* a kept copy (the first, which its writer stores first) already closed one
            * ahead of the open gate, for the late readers' slot: its writer is between its
            * copies and the gate; else they are late for a writer that has reopened or
            * given up */
           :: !CLOSED(hg) && SLOT((hg + 1) % GM) == (sv_l0 > 0 -> 0 : 1) ->
              atomic { ok = (copy[0] == (hg + 1) % GM + KEPT) }
#endif
           :: else -> skip
           fi
        :: else -> skip
        fi;
        if
        :: ok -> skip                         /* reported: look again */
        :: else ->
           atomic {                           /* release: fails on any change */
             if
             :: reg[1] == sv_reg && late0[1] == sv_l0 && late1[1] == sv_l1 && present == sv_p ->
                transition = false; ok = true
             :: else -> ok = false
             fi
           };
           if
           :: ok -> break
           :: else -> skip
           fi
        fi
     fi
  od;
  ok = false; sv_reg = 0; sv_l0 = 0; sv_l1 = 0; sv_p = false; hg = 0;
  held_gate[r] = OLD; held_stale[r] = false
}

inline settle_or_leave() {
  atomic {
    if
    :: !transition -> transition = true; take = true
    :: else -> take = false
    fi
  };
  if
  :: take -> settle()
  :: else -> skip
  fi;
  take = false
}

proctype reader(byte r) {
  byte s = (IS_GPU(r) -> 1 : 0);
  byte g, now, q, w, hg, sv_reg, sv_l0, sv_l1;
  bool sv_p, ok, take, early, via_copy, trying;
  byte early_gate;
  q = NO_SLOT;
  do
  ::
#if defined(TIMED)
     if
     :: TIMED_READER(r) ->
#if !defined(BUG_TRY_REGISTERS_FIRST)
        /* A try, or a timed form, looks at the gate before it registers (the word a
         * registration would read, asking for copies as it would); a closed one fails the
         * try, and a timed form waits for it to move, unregistered, or gives up. */
        atomic {
          via_copy = KEPT_FOR(r); g = GATE_OF(r);
          if
          :: IS_GPU(r) && !via_copy -> wanted = true
          :: else -> skip
          fi
        };
        if
        :: CLOSED(g) ->
           if
           :: take = false; goto reader_leaves               /* the try fails, or the deadline passes */
           :: atomic { GATE_OF(r) != g }                    /* timed: the gate moved */
           fi
        :: else -> skip
        fi;
        g = 0;
#endif
        /* chosen after the look: a try may also have waited there (a superset of the code) */
        if
        :: trying = true                                    /* try_lock_shared() */
        :: trying = false                                   /* a timed form */
        fi
     :: else -> trying = false
     fi;
#endif
#if defined(WEAK_MEMORY) && defined(BUG_NO_READER_FENCE)
     if
     :: atomic { via_copy = KEPT_FOR(r); early = true; early_gate = GATE_OF(r) }  /* passes the registration */
     :: early = false
     fi;
#endif
     atomic { reg[s]++; take = (s == 1 && !present) };     /* fetch_add(1) */
#if !defined(BUG_NO_PRESENCE_WAIT)
     if
     :: take ->                                             /* await_presence */
        do
        :: atomic { present -> break }
        :: atomic { !present && !transition -> transition = true; take = true };
           settle()
        od
     :: else -> skip
     fi;
#endif
     take = false;
     atomic {                                               /* fence; g = gate */
       if
       :: !early -> via_copy = KEPT_FOR(r)
       :: else -> skip
       fi;
       g = (early -> early_gate : GATE_OF(r));
       if
       :: IS_GPU(r) && !via_copy -> wanted = true           /* asks for kept copies */
       :: else -> skip
       fi;
       early = false;
       counting[r] = true; writer_sections_seen[r] = 0
     };
     do
     :: !CLOSED(g) -> break
#if defined(TIMED)
     :: CLOSED(g) && trying && q == NO_SLOT ->               /* try_lock_shared(): gives up */
        atomic { counting[r] = false; writer_sections_seen[r] = 0; reg[s]--;
                 take = (s == 1 && ((reg[s] == 0 && present) || MIGHT_DRAIN(s))) };
        goto reader_leaves
#endif
     :: CLOSED(g) && !trying ->                             /* wait_out_writers */
        q = LSLOT(g);
        atomic { add_late(s, q, 1); take = (s == 1 && reg[s] == LATE(s, q)) };
        if
        :: take -> settle_or_leave()
        :: else -> skip
        fi;
#if defined(TIMED)
        if
        :: atomic { GATE_OF(r) != g }                       /* reopened */
        :: TIMED_READER(r) && GATE_OF(r) == g ->            /* a poll that finds it closed,
                                                               then the deadline passes */
           atomic {                                         /* deregister(side, 1 + late) */
             counting[r] = false; writer_sections_seen[r] = 0; reg[s]--; add_late(s, q, -1);
             take = (s == 1 && ((reg[s] == 0 && present) || MIGHT_DRAIN(s)))
           };
           goto reader_leaves
        fi;
#else
        atomic { GATE_OF(r) != g };                         /* wait until reopened */
#endif
#if defined(WEAK_MEMORY) && defined(BUG_NO_READER_FENCE)
        if
        :: atomic { early = true; early_gate = GATE_OF(r) }
        :: early = false
        fi;
#endif
        atomic { add_late(s, q, -1) };                      /* active again */
        atomic { now = (early -> early_gate : GATE_OF(r)); early = false };
#if defined(BUG_REREAD_GATE)
        g = now
#else
        if
        :: !CLOSED(now) || LSLOT(now) != q -> break
        :: else -> g = now
        fi
#endif
     od;
     atomic {                                               /* enter */
       assert(writers_in == 0);
       readers_in++;
#if !defined(WEAK_MEMORY)
       assert(writer_sections_seen[r] <= BATCH);
       w = 0;
       do
       :: w < 2 ->
          if
          :: draining[w] -> entries_since_close[w * NR + r]++;
             assert(entries_since_close[w * NR + r] <= 1)
          :: else -> skip
          fi;
          w++
       :: else -> w = 0; break
       od;
#endif
       counting[r] = false; writer_sections_seen[r] = 0
     };
     atomic { assert(writers_in == 0); readers_in-- };       /* leave: deregister */
     atomic { reg[s]--; take = (s == 1 && ((reg[s] == 0 && present) || MIGHT_DRAIN(s))) };
reader_leaves:
     if
     :: take -> settle_or_leave()
     :: else -> skip
     fi;
     g = 0; now = 0; q = NO_SLOT
  od
}

#if defined(BUG_NO_DROP)
#undef BUG_NO_DROP
#define BUG_NO_DROP 1
#else
#define BUG_NO_DROP 0
#endif
/* store_gate(v) under sequential consistency: the copies, one store each, then the gate
 * (the seeded bug: the gate first). `closing`: the close, which starts the writer's
 * drain (the writer bound counts entries from the store that completes the close). */
inline store_copies(v) {
  atomic { keep = wanted; drop = !keep && copy[0] >= KEPT && !BUG_NO_DROP };
  j = 0;
  do
  :: keep && j < NCOPY -> atomic { copy[j] = v + KEPT }; j++
  :: drop && j < NCOPY -> atomic { copy[j] = 0 }; j++
  :: else -> j = 0; break
  od;
  keep = false; drop = false
}
inline store_gate(v, closing) {
#if defined(BUG_GATE_BEFORE_COPIES)
  atomic { gate = v; if :: closing -> FORGET_OLD(v) :: else -> skip fi };
  store_copies(v);
  if :: closing -> draining[w] = true :: else -> skip fi
#else
  store_copies(v);
  atomic { gate = v; if :: closing -> draining[w] = true; FORGET_OLD(v) :: else -> skip fi }
#endif
}
/* The same into the writer's store buffer (WEAK_MEMORY). */
inline buffer_gate(v) {
  gate_buffered[w] = v; gate_pending[w] = true;
  keep = wanted; drop = !keep && copy[0] >= KEPT && !BUG_NO_DROP;
  copy_buffered[w] = (keep -> v + KEPT : 0);
  j = 0;
  do
  :: (keep || drop) && j < NCOPY -> copy_pending[w * NCOPY + j] = true; j++
  :: else -> j = 0; break
  od;
  keep = false; drop = false
}
#define FLUSHED(w) (!gate_pending[w])

proctype writer(byte w) {               /* w = 0: CPU, 1: GPU */
  byte g, j;
  bool keep, drop, pass_on, trying;
#if defined(WRITER_ROUNDS)
  byte rounds = 0;
#endif
  do
#if defined(WRITER_ROUNDS)
  :: rounds == WRITER_ROUNDS -> break
  :: rounds < WRITER_ROUNDS -> rounds++;
#else
  ::
#endif
#if defined(TIMED)
     if
     :: TIMED_WRITER(w) ->                                   /* try_lock_for(): never queues */
        atomic { !wlock && !queued[1 - w] -> wlock = true; trying = true };
        assert(inherited == 0)                               /* kept only for a queued writer */
     :: else ->
#endif
#if BATCH > 1
     queued[w] = true;
     atomic { !wlock -> wlock = true; queued[w] = false };
#else
     atomic { !wlock -> wlock = true };                      /* no batch: nobody looks */
#endif
#if defined(TIMED)
     fi;
#endif
     if
     :: inherited > 0 -> g = gate                            /* closed, and drained */
     :: else ->
#if defined(WEAK_MEMORY)
        atomic { g = (GATE_SEEN_BY_WRITER(w) + 1) % GM; buffer_gate(g);
                 draining[w] = true; FORGET_OLD(g) };
#if !defined(BUG_NO_WRITER_FENCE)
        atomic { FLUSHED(w) };                               /* fence */
#endif
#else
        assert(!CLOSED(gate));                               /* close_gate()'s assertion */
        g = (gate + 1) % GM;
        store_gate(g, true);
#endif
        /* wait until drained */
#if defined(TIMED)
        if
        :: atomic { WRITER_DRAINED(w, g) -> draining[w] = false }
        :: trying && !WRITER_DRAINED(w, g) ->                /* a poll that finds readers,
                                                                then the deadline passes */
           atomic {
             draining[w] = false; trying = false;
             j = 0;
             do
             :: j < NR -> entries_since_close[w * NR + j] = 0; j++
             :: else -> j = 0; break
             od
           };
#if defined(WEAK_MEMORY)
           atomic { FLUSHED(w) -> buffer_gate(GIVE_UP_GATE(g)) };   /* reopen_abandoned_gate() */
           atomic { FLUSHED(w) -> wlock = false };
#else
           store_gate(GIVE_UP_GATE(g), false);               /* reopen_abandoned_gate() */
           wlock = false;
#endif
           goto writer_done
        fi
#else
        atomic { WRITER_DRAINED(w, g) -> draining[w] = false }
#endif
     fi;
#if defined(TIMED)
     trying = false;
#endif
     atomic {                                                /* enter */
       assert(writers_in == 0 && readers_in == 0);
       writers_in++;
       j = 0;
       do
       :: j < NR ->
          entries_since_close[w * NR + j] = 0;
          if
          :: counting[j] -> writer_sections_seen[j]++
          :: else -> skip
          fi;
          j++
       :: else -> j = 0; break
       od
     };
     atomic { assert(readers_in == 0); writers_in-- };
     /* keeps_gate_for_successor(): one look at the queue and the count */
#if BATCH == 1 && !defined(BUG_KEEP_WITHOUT_QUEUE)
     pass_on = false;
#elif defined(BUG_UNBOUNDED_BATCH)
     atomic { pass_on = queued[1 - w] };
#elif defined(BUG_KEEP_WITHOUT_QUEUE)
     atomic { pass_on = inherited + 1 < BATCH };
#else
     atomic { pass_on = queued[1 - w] && inherited + 1 < BATCH };
#endif
     if
     :: pass_on -> inherited++;                              /* BUG_UNBOUNDED_BATCH: saturates */
        if
        :: inherited > BATCH -> inherited = BATCH
        :: else -> skip
        fi;
        pass_on = false;
#if defined(WEAK_MEMORY)
        atomic { FLUSHED(w) -> wlock = false }
#else
        wlock = false
#endif
     :: else -> inherited = 0;
#if defined(WEAK_MEMORY)
        atomic { FLUSHED(w) -> buffer_gate((g + 1) % GM) };
        atomic { FLUSHED(w) -> wlock = false }               /* the lock's release orders it */
#else
        store_gate((g + 1) % GM, false);
        wlock = false
#endif
     fi;
writer_done:
     skip
  od
}

#if defined(WEAK_MEMORY)
/* The gate only after every copy of its writer (its release store orders them). The GPU
 * writer's copies in any order (one release fence, then relaxed stores); the CPU writer's
 * in index order (each a release store: a thread that acquires a later copy, or a word a
 * reader of it wrote next, as the report holder does, then sees the earlier ones). */
#define NO_COPY_PENDING(w) (!copy_pending[(w) * NCOPY] && (NCOPY < 2 || !copy_pending[(w) * NCOPY + NCOPY - 1]))
proctype flusher() {
end:
  do
  :: atomic { gate_pending[0] && NO_COPY_PENDING(0) -> gate = gate_buffered[0]; gate_pending[0] = false }
  :: atomic { gate_pending[1] && NO_COPY_PENDING(1) -> gate = gate_buffered[1]; gate_pending[1] = false }
  :: atomic { copy_pending[0] -> copy[0] = copy_buffered[0]; copy_pending[0] = false }
  :: atomic { copy_pending[NCOPY] -> copy[0] = copy_buffered[1]; copy_pending[NCOPY] = false }
#if NG > 1
  :: atomic { copy_pending[1] && !copy_pending[0] -> copy[1] = copy_buffered[0]; copy_pending[1] = false }
  :: atomic { copy_pending[NCOPY + 1] -> copy[1] = copy_buffered[1]; copy_pending[NCOPY + 1] = false }
#endif
  od
}
#endif

init {
  byte i = 0;
  atomic {
    do
    :: i < NCOPY -> copy[i] = KEPT; i++
    :: else -> i = 0; break
    od;
    do
    :: i < NR -> held_gate[i] = OLD; run reader(i); i++
    :: else -> break
    od;
    run writer(0);
#if !defined(NO_GPU_WRITER)
    run writer(1);
#endif
#if defined(WEAK_MEMORY)
    run flusher()
#endif
  }
}

ltl rlive0 { [] (counting[0] -> <> !counting[0]) }
ltl wlive0 { [] (draining[0] -> <> !draining[0]) }
ltl wlive1 { [] (draining[1] -> <> !draining[1]) }
ltl rliveg { [] (counting[NC] -> <> !counting[NC]) }
