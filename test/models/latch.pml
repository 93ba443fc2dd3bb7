/*
 * latch.pml - unisync::basic_latch at system scope: each side counts its own count_downs;
 * the CPU's total is host memory the GPU loads, the GPU's total reaches the host through
 * reports that one GPU count_down at a time (the reporter) stores; one GPU waiter (the
 * watcher) polls the GPU's word and releases the other GPU waiters through the released
 * line, a second (the link watcher) reads the CPU's total across the link and mirrors it
 * for the watcher in device memory.
 *
 * Mirrors include/unisync/detail/latch.inl (contract: include/unisync/latch.hpp):
 *   count_down_as(cpu, w)  counted += w (fetch_add, release)
 *   count_down_as(gpu, w)  before = word.fetch_add((w << 32) + 1) (acq_rel); if the
 *                          unreported field of `before` is 0: report_gpu_total(before + ...)
 *   report_gpu_total(now)  do { gpu_report = counted(now) (release store);
 *                          } while (!word.compare_exchange(now, now with unreported = 0))
 *                          (acq_rel on success, acquire on failure: `now` is reloaded)
 *   wait_as(cpu)           poll counted + gpu_report (acquire loads) until >= expected
 *   wait_as(gpu)           released line set -> return; claims (a word of its own) below
 *                          2 -> fetch_add it: the one that found 0 is the watcher, 1 the
 *                          link watcher. Watcher's poll: the word's total, then (while the
 *                          sum is short) the CPU's total, kept as cpu_seen if larger: from
 *                          the mirror once it has seen claims above 1, else across the
 *                          link; the released line set (by another) -> return. Link
 *                          watcher's poll: the CPU's counted across the link, the word's
 *                          total; short: the mirror stored with that counted if it
 *                          changed. Either watcher whose sum reaches expected stores the
 *                          released line and returns. The others poll the released line
 *                          alone.
 *   try_wait_as(gpu)       released line set, or word total + counted >= expected (then
 *                          stores the released line); one look, no poll
 * The GPU word is one 64-bit word in the code (total | unreported), here a pair always
 * changed in one atomic step; the compare-and-swap compares all of it. The claims, the
 * mirror and the released line are words of their own.
 *
 * Memory model: sequential consistency, except with -DSTORE_BUFFERS: each GPU thread's
 * report store enters a store buffer of its own and becomes visible later (a drain
 * process moves it to memory at any time); the thread's next store waits for it, and a
 * release operation of the thread (the compare-and-swap that ends its reporter's turn,
 * a count_down's fetch_add) waits until it is visible. That is the one weak-memory
 * question of the algorithm: reporters are ordered only through the GPU word (the
 * previous reporter's CAS, release, read by the next reporter's fetch_add, acquire), so
 * an older report must be visible before the next reporter can store a newer one; the
 * model checks that the release on the CAS is what keeps the last report stored the
 * final total (-DBUG_RELAXED_HANDOFF drops it). No fence is needed beyond that release:
 * the waiters' sums are of monotonic totals, each a lower bound, so the order in which
 * they read the two totals does not matter (a reading can be stale, never ahead). The
 * flags that the checks read stand for the data a count_down publishes; the weaker
 * behaviours of the PTX model (no multi-copy atomicity, scopes) are argued in the header
 * (cumulative releases), not modeled.
 * Merged steps: a poll is a guard that blocks until what it read changes (equivalent up
 * to stuttering), so a waiter never released shows as a deadlock (invalid end state).
 *
 * Actors: NC CPU threads (default 1) and NG GPU threads (default 2, up to 3) that each
 * count down once, GPU thread 0 by WG0 (default 1); a CPU waiter, NW GPU waiters (default
 * 2: the watcher and the link watcher; 3: and one on the released line; 1: a lone
 * watcher) and, with -DTRY_WAIT, a GPU thread that calls try_wait once. expected is the
 * sum of the count_downs. Every counting thread raises its flag before its count_down;
 * every thread released (and a try_wait that returns true) asserts that every flag is
 * raised.
 * Proves (check_model.sh --safety): nobody is released before the last count_down; every
 * waiter on either side is released (no invalid end state: the last report stored is the
 * final GPU total, the watchers see both totals); the report never exceeds the GPU's
 * total and every waiter's sum never exceeds expected.
 * Options: -DCPU_ONLY / -DGPU_ONLY: every count_down on one side (NG = 0 / NC = 0), so the
 *   waiters of the other side learn the end only across the link.
 * Seeded bugs (each caught, see CMakeLists.txt):
 *   -DBUG_NAIVE_REPORT      every GPU count_down stores its own total after its fetch_add,
 *                           with no reporter's turn: an older total can land after a newer
 *                           one, the last report is short, the CPU waiter is never released
 *                           (invalid end state)
 *   -DBUG_CLEAR_BY_STORE    the reporter ends its turn by clearing the unreported count
 *                           unconditionally (a fetch_and) instead of the compare-and-swap: a
 *                           count_down that landed after its report store is never reported
 *                           (invalid end state)
 *   -DBUG_REPORT_CLAIMS     the reporter stores total + unreported (reads the count of
 *                           count_downs as count still to add): the report runs ahead of the
 *                           GPU's count_downs and a CPU waiter is released before the last
 *                           count_down (assertion)
 *   -DBUG_WATCHER_KEEPS_GPU the watcher reads the GPU word once and then only the CPU's
 *                           total: when the last count_down is the GPU's, the GPU waiters are
 *                           never released (invalid end state; -DNW=1: a link watcher would
 *                           release them)
 *   -DBUG_NO_RELEASE_STORE  the watchers return without storing the released line (as if
 *                           the others still read the word, which they no longer poll): the
 *                           other GPU waiters are never released (invalid end state; -DNW=3)
 *   -DBUG_WATCHER_IGNORES_RELEASED
 *                           the watcher never looks at the released line: when the link
 *                           watcher's reading completes the sum it releases the side without
 *                           mirroring that reading, and the watcher, reading the mirror, never
 *                           sees the CPU's last count_down (invalid end state)
 *   -DBUG_MIRROR_WITHOUT_LINK_WATCHER
 *                           the watcher reads the mirror whether or not a link watcher
 *                           keeps it: a lone GPU waiter (-DNW=1) never sees the CPU's
 *                           count_downs (invalid end state)
 *   -DBUG_RELAXED_HANDOFF   with -DSTORE_BUFFERS: the compare-and-swap that ends a turn is
 *                           relaxed, so a reporter's report can become visible after the
 *                           next reporter's newer one: the last report is short (invalid end
 *                           state)
 */

#ifndef NC
#define NC 1
#endif
#ifndef NG
#define NG 2
#endif
#ifndef WG0
#define WG0 1
#endif
#ifndef NW
#define NW 2
#endif
#if defined(CPU_ONLY)
#undef NG
#define NG 0
#endif
#if defined(GPU_ONLY)
#undef NC
#define NC 0
#endif

#define GPU_WEIGHT(i) ((i) == 0 -> WG0 : 1)
#define EXPECTED (NC + (NG > 0 -> WG0 + NG - 1 : 0))

/* the GPU word: total | unreported; the watchers' claims, the mirror, the released line */
byte g_counted = 0;
byte g_claims = 0;
byte g_mirror = 0;
byte g_unreported = 0;
bool g_released = false;
/* host memory: the CPU's total, the GPU's report */
byte h_counted = 0;
byte gpu_report = 0;

/* ghosts: flags raised before each count_down, finished actors */
bool cpu_flag[NC + 1];
bool gpu_flag[NG + 1];
byte released_waiters = 0;

#if defined(STORE_BUFFERS)
bool sb_full[3];
byte sb_value[3];
#define DRAINED(i) (!sb_full[i])
#else
#define DRAINED(i) true
#endif

inline all_flags_raised(k) {
  k = 0;
  do
  :: k < NC -> assert(cpu_flag[k]); k++
  :: k >= NC -> break
  od;
  k = 0;
  do
  :: k < NG -> assert(gpu_flag[k]); k++
  :: k >= NG -> break
  od
}

/* a GPU thread's release store of the report */
inline store_report(i, value) {
#if defined(STORE_BUFFERS)
  atomic { !sb_full[i] -> sb_full[i] = true; sb_value[i] = value }
#else
  gpu_report = value
#endif
}

proctype cpu_counter(byte i) {
  cpu_flag[i] = true;
  atomic { h_counted = h_counted + 1; assert(h_counted + g_counted <= EXPECTED) }
}

proctype gpu_counter(byte i) {
  byte w = GPU_WEIGHT(i);
  byte seen_counted, seen_unreported;
  bool unreported_before;
  gpu_flag[i] = true;
  atomic {
    DRAINED(i) ->   /* acq_rel: this thread's earlier stores are visible first */
    unreported_before = g_unreported != 0;
    g_counted = g_counted + w;
    g_unreported = g_unreported + 1;
    assert(g_counted + h_counted <= EXPECTED);
    seen_counted = g_counted; seen_unreported = g_unreported
  };
#if defined(BUG_NAIVE_REPORT)
  store_report(i, seen_counted);
#else
  if
  :: unreported_before -> skip   /* a reporter's turn is under way: it reports this one */
  :: else ->
     do
     :: 
#if defined(BUG_REPORT_CLAIMS)
        store_report(i, seen_counted + seen_unreported);
#else
        store_report(i, seen_counted);
#endif
        atomic {
#if !defined(BUG_RELAXED_HANDOFF)
          DRAINED(i) ->   /* release: the report is visible before the turn ends */
#endif
#if defined(BUG_CLEAR_BY_STORE)
          g_unreported = 0; break
#else
          if
          :: g_counted == seen_counted && g_unreported == seen_unreported ->
             g_unreported = 0; break
          :: else ->   /* failed: `now` reloaded, report again */
             seen_counted = g_counted; seen_unreported = g_unreported
          fi
#endif
        }
     od
  fi
#endif
}

proctype cpu_waiter() {
  byte c, r, k;
  do
  :: c = h_counted; r = gpu_report;
     if
     :: c + r >= EXPECTED -> assert(c + r == EXPECTED); break
     :: else -> (h_counted != c || gpu_report != r)   /* poll again once either changed */
     fi
  od;
  all_flags_raised(k);
  released_waiters++
}

proctype gpu_waiter() {
  byte claim = 2, g, c, k, cpu_seen = 0;
  bool mirrored = false;
  if
  :: g_released -> goto released
  :: else -> skip
  fi;
  if
  :: g_claims < 2 -> atomic { claim = g_claims; g_claims++ }
  :: else -> skip
  fi;
  if
  :: claim >= 2 -> g_released; goto released   /* polls the released line alone */
  :: else -> skip
  fi;
#if defined(BUG_WATCHER_KEEPS_GPU)
  g = g_counted;
#endif
  do
  :: claim == 1 ->   /* the link watcher: its own sum decides */
     c = h_counted;   /* across the link */
     g = g_counted;
     if
     :: g + c >= EXPECTED ->
        assert(g + c == EXPECTED);
#if !defined(BUG_NO_RELEASE_STORE)
        g_released = true;
#endif
        break
     :: else ->
        if
        :: c != cpu_seen -> g_mirror = c; cpu_seen = c
        :: else -> skip
        fi;
        (h_counted != c || g_counted != g)
     fi
  :: claim == 0 ->   /* the watcher */
#if !defined(BUG_WATCHER_IGNORES_RELEASED)
     if
     :: g_released -> break
     :: else -> skip
     fi;
#endif
#if !defined(BUG_WATCHER_KEEPS_GPU)
     g = g_counted;
#endif
     if
     :: g + cpu_seen < EXPECTED ->
#if defined(BUG_MIRROR_WITHOUT_LINK_WATCHER)
        mirrored = true;
#else
        mirrored = mirrored || g_claims > 1;
#endif
        if
        :: mirrored -> c = g_mirror
        :: else -> c = h_counted   /* across the link */
        fi;
        if
        :: c > cpu_seen -> cpu_seen = c
        :: else -> skip
        fi
     :: else -> skip
     fi;
     if
     :: g + cpu_seen >= EXPECTED ->
        assert(g + cpu_seen == EXPECTED);
#if !defined(BUG_NO_RELEASE_STORE)
        g_released = true;
#endif
        break
     :: else ->
        /* poll again once something it reads changed */
        (g_claims > 1 && !mirrored || (mirrored -> g_mirror > cpu_seen : h_counted > cpu_seen)
#if !defined(BUG_WATCHER_IGNORES_RELEASED)
         || g_released
#endif
#if !defined(BUG_WATCHER_KEEPS_GPU)
         || g_counted != g
#endif
        )
     fi
  od;
released:
  all_flags_raised(k);
  released_waiters++
}

#if defined(TRY_WAIT)
proctype gpu_try_wait() {
  byte g, k;
  if
  :: g_released -> all_flags_raised(k)
  :: else ->
     g = g_counted;
     if
     :: g + h_counted >= EXPECTED -> g_released = true; all_flags_raised(k)
     :: else -> skip
     fi
  fi
}
#endif

#if defined(STORE_BUFFERS)
#define DRAIN(i) atomic { sb_full[i] -> gpu_report = sb_value[i]; sb_full[i] = false }
proctype drain() {
end:
  do
  :: DRAIN(0)
  :: DRAIN(1)
  :: DRAIN(2)
  od
}
#endif

init {
  byte i;
  atomic {
#if defined(STORE_BUFFERS)
    run drain();
#endif
    run cpu_waiter();
    i = 0;
    do
    :: i < NW -> run gpu_waiter(); i++
    :: i >= NW -> break
    od;
#if defined(TRY_WAIT)
    run gpu_try_wait();
#endif
    i = 0;
    do
    :: i < NC -> run cpu_counter(i); i++
    :: i >= NC -> break
    od;
    i = 0;
    do
    :: i < NG -> run gpu_counter(i); i++
    :: i >= NG -> break
    od
  };
  /* every waiter released; the last report is the GPU's total once the buffers drained */
  released_waiters == 1 + NW;
  assert(gpu_report <= g_counted)
}
