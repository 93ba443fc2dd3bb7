/*
 * shared_mutex_stripes.pml - unisync::basic_shared_mutex below system scope (GPU threads
 * only): reader stripes (registered | late for odd writers | late for even writers | the
 * gate's tag), each stripe's tag moved by every writer's close and reopen with a
 * read-modify-write, and no fence on either side.
 *
 * Mirrors include/unisync/detail/shared_mutex.inl (contract: include/unisync/shared_mutex.hpp):
 *   register_reader     g = tag of stripe.fetch_add(1): registers and reads the tag at once
 *   wait_out_writers    late[slot(g)]++; wait until the stripe's tag != g;
 *                       now = tag of stripe.fetch_sub(late unit): active again and reads the
 *                       tag at once; enter if open or slot(now) != slot, else g = now and again
 *   deregister          stripe.fetch_sub(1)
 *   lock (writer)       writers' lock; if the previous writer left the gate closed for it
 *                       (inherited), in at once; else gate + 1 (the gate and the batch count are
 *                       the writers' lock's holder state in the code), then
 *                       on every stripe tag + 1 (a read-modify-write), then poll each stripe
 *                       until it is drained (every registered reader late for this close;
 *                       the code's close reads each stripe in its read-modify-write and
 *                       skips the polls when all were drained: a poll right after each
 *                       close, which the model's interleavings include under
 *                       WEAK_MEMORY, and with one stripe under SC)
 *   unlock (writer)     as shared_mutex.pml: if another writer has queued and fewer than
 *                       BATCH writers have held this closed gate, the gate stays closed;
 *                       else gate + 1 and tag + 1 on every stripe; writers' lock released
 * NR readers (default 2), reader r on stripe r % NS (NS default 2), and two writers; the
 * writers' lock is abstract (its own model is ticket_mutex.pml). The tag counts modulo
 * TM = 16, as the code's 4 bits do.
 *
 * Memory model: sequential consistency by default. -DWEAK_MEMORY lets a writer's
 * read-modify-writes on different stripes, and its polls, take effect in any order, as
 * relaxed operations on different words may (the stripes' moves are released by one fence,
 * not ordered among themselves), keeping only each stripe's own order: its close before
 * its polls (coherence: a load after the thread's own read-modify-write of that word reads
 * it or a later value), and every move before the writers' lock is released. A reader's
 * decisions read the tag inside its read-modify-writes, which no memory model reorders
 * against themselves: what the code needs is that each stripe has one modification order.
 *
 * Checks (--safety): no writer beside any other holder; with SC the bounds of
 * shared_mutex.pml: once a writer has closed every stripe, each reader enters at most once
 * before it (writer bound), and from its registration a reader sees at most BATCH writers'
 * sections start before it enters (reader bound).
 * --ltl rlive0 / wlive0 / wlive1: reader 0 / writer 0 / writer 1 eventually enters (or,
 * with -DTIMED, gives up).
 * -DTIMED: reader 0 and writer 0 call the timed forms. The reader looks at its stripe's
 * tag before it registers (a closed one fails a try; a timed form waits for it to move,
 * unregistered, or gives up) and may give up after any poll of a wait that fails (its
 * registration and late mark withdrawn together); the writer takes the lock only when no
 * writer has queued, and may give up after any poll that finds readers: it moves every
 * stripe's tag by 3 (reopen_abandoned_gate()) and releases the lock.
 * Seeded bugs (each must be caught):
 *   -DBUG_SKIP_STRIPE        a writer moves the tags of every stripe but the last: a reader
 *                            of that stripe enters beside it (assertion)
 *   -DBUG_GATE_LOAD          (-DWEAK_MEMORY) a reader reads the writers' gate with a load
 *                            after its registration, as the system-scope design does, but
 *                            without its fence: the load may take effect before the
 *                            registration, and the reader enters beside a writer that
 *                            counted no reader (assertion). Under SC the same reader passes
 *                            (-DBUG_GATE_LOAD alone): only the weak shape shows the missing
 *                            fence.
 *   -DBUG_ONE_LATE_COUNTER   one late counter for every writer: a reader still late for one
 *                            writer is taken for late by the next (deadlock)
 *   -DBUG_UNBOUNDED_BATCH    a writer leaves the gate closed whenever the other has queued,
 *                            however many have held it: the writers starve the readers
 *                            (reader bound, assertion)
 */

#ifndef NR
#define NR 2
#endif
#ifndef NS
#define NS 2
#endif
#define TM 16                                 /* the tag's modulus */
#define CLOSED(g) (((g) & 1) == 1)
#define SLOT(g) ((((g) + 1) / 2) % 2)
#define NO_SLOT 2
#ifndef BATCH
#define BATCH 2
#endif
#if defined(BUG_ONE_LATE_COUNTER)
#define LSLOT(g) 0
#else
#define LSLOT(g) SLOT(g)
#endif
#if defined(BUG_SKIP_STRIPE)
#define MOVED_STRIPES (NS - 1)
#else
#define MOVED_STRIPES NS
#endif
#if defined(TIMED)
#define TIMED_READER(r) ((r) == 0)
#define TIMED_WRITER(w) ((w) == 0)
#endif

/* the stripes */
byte reg[NS];
byte late0[NS];
byte late1[NS];
byte tag[NS];
#define LATE(s, q) ((q) == 0 -> late0[s] : late1[s])
#define DRAINED(s, g) (reg[s] == LATE(s, SLOT(g)))
/* the writers' */
byte gate;
bool wlock;
bool queued[2];                               /* writer w has taken its ticket */
byte inherited;

/* ghosts */
byte readers_in;
byte writers_in;
bool draining[2];                             /* writer w has closed every stripe, not yet in */
byte entries_since_close[2 * NR];             /* [w * NR + r] */
bool counting[NR];                            /* reader r has registered, not yet in */
byte writer_sections_seen[NR];

inline add_late(s, q, d) {
  if
  :: q == 0 -> late0[s] = late0[s] + d
  :: else -> late1[s] = late1[s] + d
  fi
}

proctype reader(byte r) {
  byte s = r % NS;
  byte g, now, q, w, early_gate;
  bool trying;
  q = NO_SLOT;
  do
  ::
#if defined(TIMED)
     if
     :: TIMED_READER(r) ->                                  /* looks at its tag first */
        atomic { g = tag[s] };
        if
        :: CLOSED(g) ->
           if
           :: goto reader_leaves                            /* the try fails, or the deadline */
           :: atomic { tag[s] != g }                        /* timed: the tag moved */
           fi
        :: else -> skip
        fi;
        if
        :: trying = true                                    /* try_lock_shared() */
        :: trying = false                                   /* a timed form */
        fi
     :: else -> trying = false
     fi;
#endif
#if defined(BUG_GATE_LOAD)
#if defined(WEAK_MEMORY)
     if
     :: atomic { early_gate = gate }; atomic { reg[s]++ }   /* the load first */
     :: atomic { reg[s]++ }; atomic { early_gate = gate }
     fi;
#else
     atomic { reg[s]++ };
     atomic { early_gate = gate };
#endif
     atomic { g = early_gate; counting[r] = true; writer_sections_seen[r] = 0 };
#else
     atomic { g = tag[s]; reg[s]++; counting[r] = true; writer_sections_seen[r] = 0 };
#endif
     do
     :: !CLOSED(g) -> break
#if defined(TIMED)
     :: CLOSED(g) && trying && q == NO_SLOT ->               /* try_lock_shared(): gives up */
        atomic { counting[r] = false; writer_sections_seen[r] = 0; reg[s]-- };
        goto reader_leaves
#endif
     :: CLOSED(g) && !trying ->                             /* wait_out_writers */
        q = LSLOT(g);
        atomic { add_late(s, q, 1) };
#if defined(TIMED)
        if
        :: atomic { tag[s] != g }                           /* moved */
        :: TIMED_READER(r) && tag[s] == g ->                /* a poll, then the deadline */
           atomic { counting[r] = false; writer_sections_seen[r] = 0; reg[s]--; add_late(s, q, -1) };
           goto reader_leaves
        fi;
#else
        atomic { tag[s] != g };                             /* wait until it moves */
#endif
        atomic { add_late(s, q, -1); now = tag[s] };        /* active again, reads the tag */
        if
        :: !CLOSED(now) || LSLOT(now) != q -> break
        :: else -> g = now
        fi
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
     atomic { assert(writers_in == 0); readers_in-- };
     atomic { reg[s]-- };                                   /* deregister */
reader_leaves:
     g = 0; now = 0; q = NO_SLOT; early_gate = 0; trying = false
  od
}

/* Every stripe's tag moved by `step`: in index order under SC, in any order with
 * WEAK_MEMORY; all of them before the writers' lock is released. */
inline move_tags(step) {
#if defined(WEAK_MEMORY)
  moved = 0;
  do
  :: moved == (1 << MOVED_STRIPES) - 1 -> break
  :: else ->
     select(j : 0 .. MOVED_STRIPES - 1);
     atomic {
       if
       :: (moved & (1 << j)) == 0 -> tag[j] = (tag[j] + step) % TM; moved = moved | (1 << j)
       :: else -> skip
       fi
     }
  od;
#else
  j = 0;
  do
  :: j < MOVED_STRIPES -> atomic { tag[j] = (tag[j] + step) % TM }; j++
  :: else -> break
  od;
#endif
  j = 0
}

/* The close: every stripe's tag + 1, then a poll of each until it is drained; with
 * WEAK_MEMORY each stripe's close and poll in any order with the other stripes', the poll
 * of a stripe after its close. A timed writer may give up after a poll that finds readers
 * (gave_up): the stripes it closed move by 3, those it had not yet closed by 4. */
inline close_stripe(k) {
  atomic {
    if
    :: k < MOVED_STRIPES -> tag[k] = (tag[k] + 1) % TM
    :: else -> skip
    fi;
    moved = moved | (1 << k);
    if
    :: moved == (1 << NS) - 1 -> draining[w] = true
    :: else -> skip
    fi
  }
}
#if defined(TIMED)
#define GIVE_UP(k) :: TIMED_WRITER(w) && trying && !DRAINED(k, g) -> gave_up = true; break
#else
#define GIVE_UP(k)
#endif
inline close_and_drain() {
  moved = 0; polled = 0;
#if defined(WEAK_MEMORY)
  do
  :: polled == (1 << NS) - 1 -> break
  :: else ->
     select(j : 0 .. NS - 1);
     if
     :: (moved & (1 << j)) == 0 -> close_stripe(j)
     :: (moved & (1 << j)) != 0 && (polled & (1 << j)) == 0 ->
        if
        :: atomic { DRAINED(j, g) -> polled = polled | (1 << j) }
        GIVE_UP(j)
        fi
     :: else -> skip
     fi
  od;
#else
  j = 0;
  do
  :: j < NS -> close_stripe(j); j++
  :: else -> j = 0; break
  od;
  do
  :: j == NS -> break
  :: j < NS ->
     if
     :: atomic { DRAINED(j, g) -> polled = polled | (1 << j) }; j++
     GIVE_UP(j)
     fi
  od;
#endif
  j = 0
}

proctype writer(byte w) {
  byte g, j, moved, polled;
  bool pass_on, trying, gave_up;
  do
  ::
#if defined(TIMED)
     if
     :: TIMED_WRITER(w) ->                                   /* try_lock_for(): never queues */
        atomic { !wlock && !queued[1 - w] -> wlock = true; trying = true };
        assert(inherited == 0)
     :: else ->
#endif
     queued[w] = true;
     atomic { !wlock -> wlock = true; queued[w] = false };
#if defined(TIMED)
     fi;
#endif
     if
     :: inherited > 0 -> g = gate                            /* closed, and drained */
     :: else ->
        assert(!CLOSED(gate));
        g = (gate + 1) % TM;
        gate = g;
        close_and_drain();
        draining[w] = false
     fi;
#if defined(TIMED)
     if
     :: gave_up ->                                           /* reopen_abandoned_gate() */
        atomic {
          j = 0;
          do
          :: j < NR -> entries_since_close[w * NR + j] = 0; j++
          :: else -> j = 0; break
          od
        };
        gate = (g + 3) % TM;
        j = 0;
        do
        :: j < MOVED_STRIPES ->
           atomic {
             if
             :: (moved & (1 << j)) != 0 -> tag[j] = (tag[j] + 3) % TM
             :: else -> tag[j] = (tag[j] + 4) % TM
             fi
           };
           j++
        :: else -> j = 0; break
        od;
        gave_up = false; trying = false; moved = 0; polled = 0;
        wlock = false;
        goto writer_done
     :: else -> trying = false
     fi;
#endif
     moved = 0; polled = 0;
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
#if BATCH == 1
     pass_on = false;
#elif defined(BUG_UNBOUNDED_BATCH)
     atomic { pass_on = queued[1 - w] };
#else
     atomic { pass_on = queued[1 - w] && inherited + 1 < BATCH };
#endif
     if
     :: pass_on -> inherited++;
        if
        :: inherited > BATCH -> inherited = BATCH
        :: else -> skip
        fi;
        pass_on = false
     :: else -> inherited = 0;
        gate = (g + 1) % TM;
        move_tags(1)
     fi;
     moved = 0;
     wlock = false;
writer_done:
     g = 0
  od
}

init {
  byte i = 0;
  atomic {
    do
    :: i < NR -> run reader(i); i++
    :: else -> break
    od;
    run writer(0);
    run writer(1)
  }
}

ltl rlive0 { [] (counting[0] -> <> !counting[0]) }
ltl wlive0 { [] (draining[0] -> <> !draining[0]) }
ltl wlive1 { [] (draining[1] -> <> !draining[1]) }
