/*
 * cohort_mutex.pml - unisync::basic_cohort_mutex: per-side FIFO ticket locks under a
 * two-party Peterson top lock, passed within a side at most B times in a row, handed over
 * to the other side (keeping this side's interest) at the bound. The CPU's unlock()
 * decides before it serves the next ticket; the GPU's serves first and looks after, and
 * the thread it served makes the bound's decision when it enters.
 *
 * Mirrors include/unisync/detail/cohort_mutex.inl (contract: include/unisync/cohort_mutex.hpp)
 * and the local lock include/unisync/detail/ticket_lock.hpp:
 *   lock_on(side, me)     side.local.lock(): my = tickets_taken.fetch_add(1); wait until
 *                         tickets_served == my;
 *                         if top_state == top_held && passes <= B: return;
 *                         take_top(): if top_state == top_free: announce_interest(me):
 *                           interested[me].store(1); seq_cst fence; turn.store(other);
 *                           seq_cst fence
 *                         else if top_state == top_held (passes > B: passed beyond the
 *                           bound by pass_then_look): if interested[other].load() == 0:
 *                           passes = 0, return (carry on); else turn.store(other)
 *                           (hand_over_top(), interested[me] stays 1); seq_cst fence
 *                         else (top_handed_over, interest kept): seq_cst fence only;
 *                         wait_for_turn until forecast_to_top(me) == 0, i.e. until
 *                         !(interested[other].load() && turn.load() == other);
 *                         top_state = top_held; passes = 0
 *   unlock_on(side, me)   unlock() on the CPU (side 0):
 *                         debug check top_state == top_held && queued() != 0;
 *                         waiter_behind = queued() > 1 (queued() = taken - served);
 *                         if waiter_behind && passes < B: ++passes
 *                         else if !waiter_behind: top_state = top_free; passes = 0;
 *                           interested[me].store(0) (release_top)
 *                         else if interested[other].load() == 0: passes = 0 (carry on)
 *                         else: top_state = top_handed_over; passes = 0;
 *                           turn.store(other) (hand_over_top(); interested[me] stays 1);
 *                         side.local.unlock(): tickets_served.store(served + 1)
 *   pass_then_look(side, me)  unlock() on the GPU (side 1): the same debug check;
 *                         serve_next_then_look(): tickets_served.fetch_add(1 + one pass)
 *                           (top_state stays top_held, ++passes: up to B + 1), then
 *                           taken = tickets_taken.load() (relaxed: it may go out before
 *                           the add lands); queued = taken - my;
 *                         if queued > 1: return (ticket my + 1 is taken; its holder
 *                           checks the bound);
 *                         take_back(): tickets_taken.compare_exchange(my + 1, my + 2);
 *                           failed (a thread took ticket my + 1 meanwhile: it holds the
 *                           local lock, top_held, the pass counted): return;
 *                         else (it holds the local lock again, ticket my + 1):
 *                           top_state = top_free; passes = 0; interested[me].store(0)
 *                           (release_top); tickets_served.fetch_add(1 + the state change)
 * Memory words: per side (0 = CPU, 1 = GPU) tickets_taken and tickets_served (64-bit, here
 * modulo TM = threads per side + 1, so they wrap on every few entries; queued() is their
 * wrapping difference), top_state and passes (written only by the side's local holder,
 * and by pass_then_look's serving add); the top lock's interested[0], interested[1] and
 * turn. In the code top_state and passes are the low bits of tickets_served: lock()
 * returns them from the poll that shows the turn, a holder changes them with the add that
 * serves the next ticket (or with an add of their own, change_state(), when it takes the
 * top lock or carries on past the bound). The model keeps them as words of their own,
 * written just before the serving store (pass_then_look: in the same step) and read just
 * after the poll. That admits every interleaving of the code: only the local holder
 * writes them, so nothing can change them between the model's two steps, and the code's
 * one step is the model's two with nothing in between.
 * pass_then_look() in the model: the add is one step, and with it the thread notes
 * whether ticket my + 1 is taken yet (it still holds the lock then, so queued() is
 * exact); if it is, the thread is done. Else the take-back is the next step: it succeeds
 * when ticket my + 1 is still not taken, and then release_top and the serving add follow
 * as in unlock_on(). The code's load of tickets_taken, before or after the add, only
 * chooses between returning and trying the compare-exchange, both invisible to the other
 * threads: wherever the load goes, the thread takes the ticket back exactly when ticket
 * my + 1 is not taken at its compare-exchange, else it returns, which is what the model's
 * two steps allow. -DSPLIT_LOOK models the load as a step of its own, after the add or
 * before it (spin picks; -DSERVE_FIRST: only after), as the code reads; it passes the
 * same checks (split_look_safety), and the seeded bugs of this path use it. While the
 * thread is between its add and its take-back it holds no ticket, and the other threads
 * of its side may cycle through the lock: the counters modulo TM can come back to the
 * value it saw, the code's 64-bit ones cannot. The ghost unclaimed[s] (id + 1 of the
 * thread whose served ticket nobody has taken since; any ticket taken clears it) stands
 * for the lost high bits: the take-back succeeds exactly while it names the thread.
 * try_lock() and try_lock_for() are modeled with -DTRY (see try_lock_on() below); the
 * group overloads only wrap these calls in one thread of the group and are not. The
 * tries' top_state == top_handed_over branch is never taken (asserted): that state is
 * left only with a thread queued behind (unlock_on() at the bound, or try_top() past it,
 * hands over only if queued() > 1, and so does a try that announced and gives up; the
 * GPU's lock() past the bound hands over itself and leaves top_held), so the local lock
 * goes next to that lock() caller, and a try, which never queues, finds the local lock
 * busy until that caller has set top_held and released it. A try may find top_held past
 * the bound (it takes the ticket a pass_then_look() served); try_top() then carries on
 * as lock() does, or, the other side waiting, hands over (queued() > 1) or releases the
 * top lock, and fails.
 *
 * Memory model: sequential consistency by default. Every load, store and
 * read-modify-write of the code is one atomic Promela step. The memory orders are not
 * modeled, and the seq_cst fences of announce_interest() and of the handed-over paths of
 * lock_on() are no-ops: sequential consistency gives Peterson's orders for free, so the
 * default model cannot check the fences (drop them and it still passes).
 * -DWEAK_MEMORY adds per-side store buffers for the top lock's words (interested[],
 * turn): a side's stores to them stay in its buffer, one slot per word, and a flusher
 * process per side makes them visible to the other side one at a time, in either order
 * (not FIFO: a later turn store may become visible before an earlier interest store, as
 * C++ and PTX allow for stores to different words without a fence between them). A
 * side's own loads of turn read its buffer first (store forwarding); the threads of a
 * side share the buffer, as a GPU thread that takes the local lock sees what the previous
 * holder stored (device scope) before the CPU does. A seq_cst fence blocks until the
 * side's buffer is empty. Release stores are buffered like relaxed ones: a release does
 * not order an earlier store to another word before a later store's coherence position
 * against the other side's stores (the "R" shape), and the correct code never has a store
 * pending when it makes one (asserted). The local ticket lock, top_state and passes stay
 * sequentially consistent (side-local words). The bypass ghosts assume stores visible at
 * once, so -DWEAK_MEMORY implies -DNO_BYPASS. Steps on words that only the
 * local holder reads or writes (top_state, passes, its own ticket, tickets_served's load
 * in unlock) are merged into the neighbouring shared step; ghost updates are merged into
 * the step they describe. Polls: the local lock's wait is a guard that blocks until
 * tickets_served == my ticket. Past the bound, the entry's load of interested[other] is
 * merged into that poll's step: tickets_served does not change once it shows the turn,
 * so the poll may as well succeed at the load. The top lock's poll reads
 * interested[other] and then turn
 * in two loads; it is modeled as one guard over both, which is equivalent: a real poll
 * that succeeds because the first load read 0 could have succeeded at that load (the
 * guard was true then), one that succeeds because turn != other was true at its second
 * load (the guard was true then), and what the thread does after the poll is invisible to
 * the other threads until it enters.
 *
 * Actors: NC CPU threads (side 0, ids 0..NC-1) and NG GPU threads (side 1), default 2 and
 * 2; each calls lock(); critical section; unlock() forever (unlock_on() on the CPU,
 * pass_then_look() on the GPU); with -DTRY some also try (see try_lock_on() below).
 * Pass bound B (default 1).
 *
 * Bypass instrumentation (ghosts; -DNO_BYPASS leaves it out). Each thread counts
 * (seen[id]) the other side's critical sections as the mixed stress test does
 * (test/mixed/lock_test.cu: a section counter incremented inside the critical section,
 * read before lock() and again inside its own section), and asserts a bound when it
 * enters. Q (qa[id]) is the number of tickets ahead of its own when it takes it:
 * tickets_taken - tickets_served at its fetch_add (the holder and the waiters ahead).
 *     HDR(Q) = 2 * (B + 1) * ceil((Q + 1) / (B + 1))    the bound the header first stated
 *     MAX(Q) = (B + 1) * (ceil((Q + 1) / (B + 1)) + 1)  the maximum spin finds, which
 *                                                       cohort_mutex.hpp now states
 * MAX(Q) <= HDR(Q) (equal when Q <= B).
 * "Announced" (announced[id]): the waiter's side has announced its interest in the top
 * lock, for this wait. It becomes true
 *   - at the waiter's ticket, if interested[me] == 1 then and no thread of its side has
 *     decided to release the top lock (the ghost releasing[me]: an unlock_on() that read
 *     queued() == 1, or a pass_then_look() that took its served ticket back); the side
 *     then holds the top lock, or waits for it, or has handed it over, with its interest
 *     stored (a ticket served by a pass_then_look() that has not taken it back is held
 *     with the top lock);
 *   - else at the first store interested[me] = 1 by a thread of its side after the ticket
 *     (announce_interest() of the waiter, or of the local holder ahead of it);
 * and stays true until the waiter enters. The model asserts that the side really stays
 * announced: no store interested[me] = 0 happens while a waiter of that side is announced
 * (the holders ahead of it see it queued behind them, so they pass, carry on or hand
 * over, never release; a GPU unlock() that found nobody queued releases only after taking
 * its served ticket back, which fails once the waiter has taken it; -DNO_ANNOUNCE_CHECK
 * leaves the assertion out).
 * Which sections count, from when, and the bound checked:
 *   default               every section of the other side that starts while the waiter is
 *                         announced (the header's "once a waiting thread's side has
 *                         announced its interest"), checked against MAX(Q)
 *   -DHDR                 the same count checked against HDR(Q)
 *   -DFROM_TICKET_ALL     every section of the other side from its ticket
 *   -DAS_TESTED           the stress test's measure: from the call (before the ticket),
 *                         every section of the other side, checked against its assertion
 *                         2 * MAX(Q), with Q = the side's other threads (what it assumes)
 *   -DLIMIT_FLAT=K        any measure checked against K for every Q
 *   -DQSEL=q -DCHECK_SIDE=s   check only waits of side s with Q == q (smaller searches)
 *
 * What spin finds (README.md, "Limits the models document", item 4), with the GPU's
 * pass_then_look() as with the unlock_on() it replaced:
 *   - Counted from the announcement, the count is bounded, by MAX(Q): the maxima spin
 *     finds (smallest K for which -DQSEL=q -DLIMIT_FLAT=K passes) equal MAX in every
 *     configuration tried. Two threads a side, Q = 0 and 1: 2 3 (B = 0), 4 4 (B = 1),
 *     6 6 (B = 2); three CPU threads, a CPU waiter with Q = 2: 4 (B = 0), 6 (B = 1), 6
 *     (B = 2); a GPU waiter against three CPU threads, B = 1, Q = 0 and 1: 4 4; B = 0,
 *     Q = 1: 3. HDR is 2 4, 4 4, 6 6, 6 8 6, 4 4, 4. Why: while the waiter is announced
 *     its side keeps interested[me] == 1, so the other side takes the top lock only
 *     through turn == other, stored by a handover of the waiter's side (once per turn of
 *     it: B + 1 foreign sections each) or by the waiter's side's announcement. A run of
 *     the other side lasts at most B + 1 sections: on the CPU its holder at the bound,
 *     on the GPU the thread served past the bound, sees interested[me] == 1 and hands
 *     over (turn = me); if the waiter's side's announcement stores turn = other after
 *     that, the other side's next holder (handed over, waiting) enters again, for a
 *     second run of B + 1 sections before the first turn of the waiter's side. Once the
 *     waiter's side holds the top lock it does not announce again before the waiter
 *     enters (it hands over, keeping its interest), so this happens once per wait, not
 *     once per turn as HDR allows: (B + 1) * (ceil((Q + 1) / (B + 1)) + 1). Shortest
 *     trace of the doubled first run (-DQSEL=0 -DLIMIT_FLAT=3, B = 1, two threads a side):
 *       G1 announces, takes the top lock, enters; G0 takes a ticket; C1 takes a ticket
 *       (Q = 0) and the free local lock, interested[0] = 1 (announced from here); G1
 *       section 1, passes (1) to G0, takes a ticket again; G0 section 2, passes (2); G1
 *       takes the local lock past the bound, reads interested[0] == 1: hands over (turn
 *       = 0) and waits; C1's announcement stores turn = 1 after it; G1 enters: section
 *       3, passes; G0 section 4, passes; G1, past the bound, hands over (turn = 0); C1
 *       enters: 4.
 *   - Before the announcement the other side is not held back: counted from the ticket
 *     (or from the call, as the stress test counts) there is no bound at all
 *     (-DLIMIT_FLAT=K fails for every K; the tests check 30, and the stress test's
 *     2 * MAX). While the waiter's side has no holder that has announced - the waiter, or
 *     the thread ahead of it, has taken the free local lock (top_free: the last holder
 *     released the top lock, nobody queued behind it then) and not yet stored
 *     interested[me] - the other side reads interested[me] == 0 at the bound (the GPU:
 *     the thread served past it) and carries on (passes = 0), B + 1 sections at a time,
 *     for as long as that lasts. Shortest trace (-DFROM_TICKET_ALL, B = 1, two threads a
 *     side): C1 takes its ticket and the free CPU local lock and stops before
 *     interested[0] = 1; G1 and G0 alternate, each entry past the bound finds
 *     interested[0] == 0 and carries on. The window of the previous code, after a side
 *     released the top lock at its bound while threads were still queued behind, is
 *     closed: such a side hands over and stays announced (the assertion above;
 *     -DBUG_HANDOVER_RELEASES reopens it).
 *
 * Proves (check_model.sh):
 *   --safety        mutual exclusion; FIFO within each side (the entering thread holds the
 *                   ticket after the previous holder of its side; a ticket taken back is
 *                   that one); unlock()'s debug check (top_state == top_held, local lock
 *                   held); no deadlock; an announced waiter's side stays announced until
 *                   it enters; the bypass bound MAX(Q) (or HDR(Q), -DHDR) from the
 *                   waiter's announcement; a holder's pass count is at most B
 *   --ltl liveN     starvation freedom under weak fairness: thread N, once it has taken
 *                   its ticket, enters (use -DNO_BYPASS)
 *   -DWEAK_MEMORY   the same with the store buffers above (mutual exclusion, FIFO, the
 *                   debug check and no deadlock with --safety; liveN with --ltl), so with
 *                   the fences where the code has them
 *   -DTRY           the same with the threads TRIES(id) (default: the last of each side)
 *                   choosing at every call between lock() and a try (try_lock() or
 *                   try_lock_for()); a try never finds the local lock handed over. The
 *                   bypass bound holds for the lock() callers with tries mixed in: a try
 *                   that announced its side's interest and gives up keeps it when a
 *                   lock() caller has queued behind it meanwhile (that caller was
 *                   announced when it took its ticket) and leaves the top lock handed
 *                   over to it
 * Seeded bugs:
 *   -DBUG_UNBOUNDED_PASS  the side passes whenever a thread waits behind, ignoring B: the
 *                         CPU's unlock() passes without counting, the GPU's entry does not
 *                         check the count: the other side starves (--ltl, acceptance
 *                         cycle), and the bypass bound fails (--safety, assertion)
 *   -DBUG_NO_TURN         announce_interest() does not store turn (a flag-only lock): both
 *                         sides announce and wait for each other (deadlock)
 *   -DBUG_LOCAL_BEFORE_TOP  unlock() releases the local lock before the top lock (the
 *                         code does the reverse; the GPU's after its take-back): the next
 *                         local holder announces, the old holder's interested[me] = 0 then
 *                         erases it, and both sides enter (assertion)
 *   -DBUG_HANDOVER_RELEASES  at the bound, with a thread behind and the other side
 *                         interested, the side releases the top lock (top_free,
 *                         interested[me] = 0) as the code did before the handover: the
 *                         CPU's unlock() for the next local holder, which must announce
 *                         again; the GPU's thread served past the bound, which announces
 *                         again itself. Until that announcement the other side carries on
 *                         (assertion: the side does not stay announced; with
 *                         -DNO_ANNOUNCE_CHECK -DLIMIT_FLAT=30 the count from the
 *                         announcement exceeds 30)
 *   -DBUG_HANDOVER_CLEARS_INTEREST  the handover (the CPU's unlock(), the GPU's entry past
 *                         the bound) stores interested[me] = 0 as well, so the side's
 *                         next holder waits for the top lock without announcing: the other
 *                         side's leader enters on interested[me] == 0 while this side's
 *                         holder enters on the other's turn store (assertion: mutual
 *                         exclusion, -DNO_BYPASS)
 *   -DBUG_HANDOVER_NO_TURN  the handover keeps the interest but does not store turn:
 *                         turn still names this side, so its next holder enters at once
 *                         and the other side waits for as long as this side has threads
 *                         queued (assertion: the bypass bound; --ltl: acceptance cycle)
 *   -DBUG_ENTRY_IGNORES_BOUND  lock() enters on top_held whatever the pass count (the
 *                         CPU's unlock() still counts): the GPU side, which passes
 *                         without looking at the bound, keeps the top lock while threads
 *                         of it queue (assertion: the bypass bound; --ltl live0: a CPU
 *                         thread starves, acceptance cycle)
 *   -DBUG_ENTRY_NO_WAIT   the GPU's thread served past the bound hands over (turn =
 *                         other) and enters without waiting for its turn: the other side
 *                         enters on that turn store as well (assertion: mutual exclusion,
 *                         -DNO_BYPASS)
 *   -DBUG_NO_TAKE_BACK    a GPU unlock() that found nobody queued releases the top lock
 *                         (top_free, interested[me] = 0) without taking the served ticket
 *                         back: a thread that took it meanwhile holds the local lock with
 *                         top_held and the side's interest withdrawn (assertion: the
 *                         side does not stay announced; -DNO_BYPASS: the debug check or
 *                         two holders)
 *   -DBUG_TAKE_BACK_UNCHECKED  the take-back is a fetch_add, not a compare-exchange: after
 *                         a thread took the served ticket, the unlocking thread takes the
 *                         next one and releases as if it held the lock (assertion: FIFO,
 *                         the ticket taken back is not the next to enter)
 *   -DBUG_RELEASE_BEFORE_TAKE_BACK  a GPU unlock() that found nobody queued stores
 *                         interested[me] = 0 before its take-back: when that fails, the
 *                         thread that took the ticket holds the local lock with top_held
 *                         and no interest, and the other side enters too (assertion:
 *                         mutual exclusion, -DNO_BYPASS)
 *   -DBUG_TRY_WITHDRAWS   (with -DTRY) a try that announced and gives up withdraws its
 *                         side's interest whoever queued behind it, as the code did: a
 *                         lock() caller that took its ticket after the announcement was
 *                         announced, and loses it (assertion: the side does not stay
 *                         announced). Shortest trace: C1 tries, takes the free local lock,
 *                         announces and gives up (its deadline passes); C0 takes a ticket
 *                         (announced); C1 stores interested[0] = 0. Until C0 announces
 *                         again the GPU side carries on past its bound
 *   -DBUG_NO_STORE_FENCE  (with -DWEAK_MEMORY) announce_interest() without the fence
 *                         between the interest store and the turn store, as the code was:
 *                         the "R" shape, both sides enter (assertion). Shortest trace
 *                         (pan -DBFS, -DNARRATE): G1 stores interested[1] = 1 (visible)
 *                         and turn = 0 (buffered); C1 stores interested[0] = 1 and turn =
 *                         1 (both buffered); the CPU's turn = 1 becomes visible, then the
 *                         GPU's turn = 0 (later in coherence order); G1's fence is done,
 *                         it reads interested[0] == 0 (still buffered) and enters; the
 *                         CPU's interest becomes visible (its fence), C1 reads turn == 0
 *                         != 1 and enters
 *   -DBUG_NO_ENTRY_FENCES  (with -DWEAK_MEMORY) announce_interest() without either fence:
 *                         also the store-buffering shape (a side's loads pass its own
 *                         buffered stores), both sides enter (assertion)
 *   -DBUG_NO_HANDOVER_FENCE  (with -DWEAK_MEMORY) lock_on()'s handed-over paths without
 *                         their fence (top_handed_over, and the GPU's own handover past
 *                         the bound): NOT caught, the model passes. The thread that handed
 *                         over read interested[other] == 1, and in this model memory is
 *                         one global copy and loads read its latest value, so the next
 *                         holder's load sees that interest whether or not the handover's
 *                         turn store is visible yet (the GPU's own turn store it reads from
 *                         its buffer). C++ and PTX do not give that (a load may read an
 *                         older value); the header's argument uses the fence.
 */

#ifndef NC
#define NC 2            /* CPU threads (side 0) */
#endif
#ifndef NG
#define NG 2            /* GPU threads (side 1) */
#endif
#define NT (NC + NG)
#ifndef B
#define B 1             /* pass_bound */
#endif
#ifndef TM
#define TM ((NC > NG -> NC : NG) + 1)  /* ticket counters modulo TM (> threads per side) */
#endif

#define SIDE(i) ((i) < NC -> 0 : 1)
#define SIDE_THREADS(s) ((s) == 0 -> NC : NG)

/* side.top_state */
#define TOP_FREE 0
#define TOP_HELD 1
#define TOP_HANDED_OVER 2

/* shared words */
byte taken[2];          /* side.local.tickets_taken (mod TM) */
byte served[2];         /* side.local.tickets_served (mod TM) */
byte top_state[2];      /* side.top_state */
byte passes[2];         /* side.passes */
bool interested[2];     /* top_.cpu_interested, top_.gpu_interested */
byte turn = 0;          /* top_.turn */
/* Ghost, for the high bits of the 64-bit ticket counts (see the top): id + 1 of the
 * thread whose pass_then_look() served a ticket (-DSPLIT_LOOK: or loaded tickets_taken
 * first) that nobody has taken since, else 0; any ticket taken clears it. The take-back
 * succeeds exactly while it names the thread. */
byte unclaimed[2];

/* -DWEAK_MEMORY: each side's stores to the top lock's words wait in the side's store
 * buffer, one slot per word (a newer store to the same word replaces the pending one, so
 * each word's coherence order is kept), until its flusher makes them visible to the
 * other side, in either order. Side s stores turn only as 1 - s. */
#if defined(WEAK_MEMORY)
#if !defined(NO_BYPASS)
#define NO_BYPASS       /* the bypass ghosts assume stores visible at once */
#endif
bool pending_interested[2];  /* side s's store to interested[s] not yet visible */
bool buffered_interested[2]; /* its value */
bool pending_turn[2];        /* side s's store turn = 1 - s not yet visible */
#define STORE_INTERESTED(s, v) pending_interested[s] = true; buffered_interested[s] = v
#define STORE_TURN(s) pending_turn[s] = true
#define TURN_SEEN_BY(s) (pending_turn[s] -> 1 - (s) : turn)  /* own pending store first */
#define BUFFER_EMPTY(s) (!pending_interested[s] && !pending_turn[s])
#else  /* !WEAK_MEMORY */
#define STORE_INTERESTED(s, v) interested[s] = v
#define STORE_TURN(s) turn = 1 - (s)
#define TURN_SEEN_BY(s) turn
#define BUFFER_EMPTY(s) true
#endif  /* WEAK_MEMORY */
/* The release stores (the handover's turn, release_top()'s interest) find the buffer
 * empty, so buffering them as relaxed stores loses nothing (checked unless a fence is
 * dropped). */
#if defined(WEAK_MEMORY) && !defined(BUG_NO_STORE_FENCE) && !defined(BUG_NO_ENTRY_FENCES) && \
    !defined(BUG_NO_HANDOVER_FENCE)
#define CHECK_NOTHING_PENDING(s) assert(BUFFER_EMPTY(s))
#else
#define CHECK_NOTHING_PENDING(s) skip
#endif
/* The system-scope seq_cst fences: each blocks until the side's earlier stores are visible.
 * The fence before the turn store is the guard of that store's step; the fence before the
 * top lock's loads (announce_interest()'s second, or lock_on()'s after a handover) is part
 * of the poll's guard: once the buffer is empty it stays empty until the thread enters (it
 * holds its side's local lock, and no other thread of its side stores to the top lock's
 * words meanwhile), so "empty, then a poll that succeeds" and "empty when a poll
 * succeeds" are the same. The seeded bugs drop fences. */
#if defined(BUG_NO_STORE_FENCE) || defined(BUG_NO_ENTRY_FENCES)
#define TURN_STORE_FENCED false
#else
#define TURN_STORE_FENCED true
#endif
#if defined(BUG_NO_TAKE_BACK) || defined(BUG_RELEASE_BEFORE_TAKE_BACK) || \
    defined(BUG_TAKE_BACK_UNCHECKED)
#define SPLIT_LOOK      /* these bugs act between the look and the take-back */
#endif
#if defined(BUG_NO_ENTRY_FENCES)
#define LOADS_FENCED(act) ((act) != 0)
#elif defined(BUG_NO_HANDOVER_FENCE)
#define LOADS_FENCED(act) ((act) == 0)
#else
#define LOADS_FENCED(act) true
#endif

/* ghosts */
byte in_cs = 0;         /* threads in the critical section */
byte next_entry[2];     /* per side: the ticket that must enter next (FIFO), mod TM */
bool waiting[NT];       /* ticket taken, not yet in the critical section */
bool cs[NT];            /* in the critical section */

#if !defined(NO_BYPASS)
bool counting[NT];      /* measuring: between its start and its entry */
bool announced[NT];     /* its side is announced for this wait (see the top) */
bool releasing[2];      /* a holder of the side read queued() == 1: it releases the top */
byte seen[NT];          /* sections of the other side counted (saturates above the limit) */
byte qa[NT];            /* tickets ahead of its own when it took it */

#define TURNS(q) (((q) + 1 + B) / (B + 1))     /* ceil((q + 1) / (B + 1)) */
#define HDR_BOUND(q) (2 * (B + 1) * TURNS(q))
#define MAX_BOUND(q) ((B + 1) * (TURNS(q) + 1))
#if defined(AS_TESTED)
#define START_AT_CALL
#define COUNT_ALL
#define QOF(i) (SIDE_THREADS(SIDE(i)) - 1)     /* as the stress test: the side's others */
#elif defined(FROM_TICKET_ALL)
#define COUNT_ALL
#endif
#ifndef QOF
#define QOF(i) (qa[i])
#endif
#if defined(LIMIT_FLAT)
#define LIMIT(i) (LIMIT_FLAT)
#elif defined(AS_TESTED)
#define LIMIT(i) (2 * MAX_BOUND(QOF(i)))       /* lock_test.cu's assertion */
#elif defined(HDR)
#define LIMIT(i) HDR_BOUND(QOF(i))
#else
#define LIMIT(i) MAX_BOUND(QOF(i))
#endif
#if defined(COUNT_ALL)
#define COUNTED(j) true
#else
#define COUNTED(j) announced[j]               /* from the announcement of its side */
#endif
#if defined(QSEL)
#define QOK(i) (qa[i] == QSEL)
#else
#define QOK(i) true
#endif
#if defined(CHECK_SIDE)
#define SIDE_OK(i) (SIDE(i) == CHECK_SIDE)
#else
#define SIDE_OK(i) true
#endif
#endif

#if defined(NARRATE)
#define SAY(f) printf f
#else
#define SAY(f) skip
#endif

#define ENTER(id, s, t) \
  in_cs++; assert(in_cs == 1); \
  assert(t == next_entry[s]); next_entry[s] = (next_entry[s] + 1) % TM; \
  waiting[id] = false; cs[id] = true

/* Ghost, inside a store interested[s] = 1: announces the counting waiters of side s that
 * hold a ticket. */
#if !defined(NO_BYPASS)
#define ANNOUNCE_WAITERS(s) \
  j = 0; \
  do \
  :: j < NT -> announced[j] = announced[j] || (counting[j] && waiting[j] && SIDE(j) == s); j++ \
  :: else -> j = 0; break \
  od
#else
#define ANNOUNCE_WAITERS(s) skip
#endif

/* Ghost, inside a store interested[s] = 0: no waiter of side s is announced. */
#if !defined(NO_BYPASS) && !defined(NO_ANNOUNCE_CHECK)
#define CHECK_STAYS_ANNOUNCED(s) \
  j = 0; \
  do \
  :: j < NT -> assert(!(announced[j] && SIDE(j) == s)); j++ \
  :: else -> j = 0; break \
  od
#else
#define CHECK_STAYS_ANNOUNCED(s) skip
#endif

#if !defined(NO_BYPASS)
#define SET_RELEASING(s, v) releasing[s] = v
#else
#define SET_RELEASING(s, v) skip
#endif

/* unlock_on()'s and lock_on()'s hand_over_top(): turn.store(other), the interest kept.
 * The seeded bugs clear the interest as well, or drop the turn store. */
#if defined(BUG_HANDOVER_CLEARS_INTEREST)
#define HANDOVER_CLEARS(s) \
  atomic { \
    STORE_INTERESTED(s, false); CHECK_STAYS_ANNOUNCED(s); /* BUG: interest withdrawn */ \
    SAY(("T%d clears interested[%d]\n", id, s)) \
  };
#else
#define HANDOVER_CLEARS(s)
#endif
#if !defined(BUG_HANDOVER_NO_TURN)
#define HAND_OVER(s) \
  HANDOVER_CLEARS(s) \
  atomic { \
    CHECK_NOTHING_PENDING(s); STORE_TURN(s); SAY(("T%d hands over: turn = %d\n", id, 1 - (s))) \
  }
#else
#define HAND_OVER(s) \
  HANDOVER_CLEARS(s) \
  SAY(("T%d hands over without turn\n", id))          /* BUG: turn not stored */
#endif

/* release_top() with the state it leaves: top_state = top_free, passes = 0 (stored with
 * the serving add), interested[me].store(0) */
#define RELEASE_TOP(s) \
  atomic { \
    top_state[s] = TOP_FREE; passes[s] = 0; \
    CHECK_NOTHING_PENDING(s); STORE_INTERESTED(s, false); \
    CHECK_STAYS_ANNOUNCED(s); SET_RELEASING(s, false); \
    SAY(("T%d releases top: interested[%d] = 0\n", id, s)) \
  }

/* announce_interest(): interested[me].store(1); seq_cst fence; turn.store(other);
 * seq_cst fence (the second fence is the guard of the poll that follows) */
#if !defined(BUG_NO_TURN)
#define ANNOUNCE_INTEREST(s) \
  atomic { \
    STORE_INTERESTED(s, true); ANNOUNCE_WAITERS(s); \
    SAY(("T%d interested[%d] = 1\n", id, s)) \
  }; \
  atomic { \
    !TURN_STORE_FENCED || BUFFER_EMPTY(s) -> STORE_TURN(s); \
    SAY(("T%d turn = %d\n", id, 1 - (s))) \
  }
#else
#define ANNOUNCE_INTEREST(s) \
  atomic { \
    STORE_INTERESTED(s, true); ANNOUNCE_WAITERS(s); \
    SAY(("T%d interested[%d] = 1\n", id, s)) \
  }                                                 /* BUG: no turn store */
#endif

/* unlock()'s debug check (top_state == top_held, local lock held); the holder leaves the
 * critical section */
#define CHECK_HOLDER_LEAVES(s) \
  assert(top_state[s] == TOP_HELD && (taken[s] + TM - served[s]) % TM != 0); \
  in_cs--; cs[id] = false

/* pass_then_look()'s add: tickets_served.fetch_add(1 + one pass), top_state kept; with
 * it the look (without -DSPLIT_LOOK): is ticket my + 1 taken yet (queued() > 1)? */
#define SERVE_NEXT(s) \
  atomic { \
    CHECK_HOLDER_LEAVES(s); \
    assert(unclaimed[s] == 0); \
    unclaimed[s] = (taken[s] == (my + 1) % TM -> id + 1 : 0); \
    LOOK_WITH_SERVE; \
    served[s] = (served[s] + 1) % TM; COUNT_PASS(s); \
    SAY(("T%d passes (%d)\n", id, passes[s])); \
    DONE_WITH_SERVE \
  }
#if !defined(SPLIT_LOOK)
#define LOOK_WITH_SERVE LOOKED(unclaimed[s] == id + 1)
#define DONE_WITH_SERVE DONE_UNLESS_LOOK
#else
#define LOOK_WITH_SERVE skip
#define DONE_WITH_SERVE skip
#endif

/* The look: act 6 if queued() == 1, else 0 (done: the thread forgets its ticket). The
 * counters give queued() exactly while the thread holds the lock; after its add the
 * ghost unclaimed[] does */
#define LOOKED(nobody_queued) act = ((nobody_queued) -> 6 : 0); my = (act == 6 -> my : 0)
/* Ends pass_then_look() where the look showed someone queued */
#define DONE_UNLESS_LOOK \
  if \
  :: act == 0 -> goto next_gpu \
  :: else -> skip \
  fi

/* take_back(): tickets_taken.compare_exchange(my + 1, my + 2) succeeds */
#if defined(BUG_TAKE_BACK_UNCHECKED)
#define TAKE_BACK_GUARD true                            /* BUG: a fetch_add, not a CAS */
#else
#define TAKE_BACK_GUARD (unclaimed[s] == id + 1)
#endif

/* The bound's check on entry: which holder state enters at once */
#if defined(BUG_UNBOUNDED_PASS) || defined(BUG_ENTRY_IGNORES_BOUND)
#define ENTERS_AT_ONCE(s) (top_state[s] == TOP_HELD)     /* BUG: passes not checked */
#else
#define ENTERS_AT_ONCE(s) (top_state[s] == TOP_HELD && passes[s] <= B)
#endif
/* pass_then_look()'s serving add counts the pass: up to B + 1 (saturated with the bugs
 * that let a holder enter past the bound, to keep the count finite) */
#if defined(BUG_UNBOUNDED_PASS) || defined(BUG_ENTRY_IGNORES_BOUND)
#define COUNT_PASS(s) passes[s] = (passes[s] <= B -> passes[s] + 1 : passes[s])
#else
#define COUNT_PASS(s) assert(passes[s] <= B); passes[s]++
#endif

/* lock_on(side, me): the local lock, then the top lock as the holder state says */
inline lock_on() {
#if !defined(NO_BYPASS) && defined(START_AT_CALL)
  atomic {                                                 /* before = sections_of(other) */
    counting[id] = SIDE_OK(id); SAY(("T%d start\n", id))
  }
#endif
  atomic {                                                 /* my = tickets_taken.fetch_add(1) */
    my = taken[s];
#if !defined(NO_BYPASS)
    qa[id] = (taken[s] + TM - served[s]) % TM;
#if defined(START_AT_CALL)
    counting[id] = counting[id] && QOK(id);
#else
    counting[id] = SIDE_OK(id) && QOK(id);
#endif
    announced[id] = counting[id] && interested[s] && !releasing[s];
    qa[id] = (counting[id] -> qa[id] : 0);
    SAY(("T%d ticket %d, Q = %d, announced %d\n", id, my, (taken[s] + TM - served[s]) % TM,
         announced[id]));
#endif
    taken[s] = (taken[s] + 1) % TM; unclaimed[s] = 0;
    waiting[id] = true
  }
  atomic {                                                 /* wait: tickets_served == my */
    served[s] == my ->
    if
    :: ENTERS_AT_ONCE(s) -> ENTER(id, s, my); act = 1;
       SAY(("T%d local lock, top held (%d passes): enters\n", id, passes[s]))
    :: top_state[s] == TOP_HELD && !ENTERS_AT_ONCE(s) ->
       if                                                  /* interested[other].load() */
       :: !interested[o] ->
          SAY(("T%d local lock, top held, %d passes, other side not waiting: enters\n",
               id, passes[s]));
          passes[s] = 0; ENTER(id, s, my); act = 1
#if defined(BUG_HANDOVER_RELEASES)
       :: else -> act = 5; SET_RELEASING(s, true)          /* BUG: releases, announces again */
#else
       :: else -> act = 4;
          SAY(("T%d local lock, top held, %d passes, other side waits\n", id, passes[s]))
#endif
       fi
    :: top_state[s] == TOP_FREE -> act = 0; SAY(("T%d local lock, top free\n", id))
    :: top_state[s] == TOP_HANDED_OVER -> act = 2;        /* seq_cst fence only */
       SAY(("T%d local lock, top handed over\n", id))
    fi
  }
  if
  :: act != 1 ->
     if
     :: act == 0 -> ANNOUNCE_INTEREST(s)
     :: act == 4 -> HAND_OVER(s)                           /* hand_over_top(), on entry */
#if defined(BUG_HANDOVER_RELEASES)
     :: act == 5 ->
        atomic {                                           /* BUG: releases the top lock */
          top_state[s] = TOP_FREE; passes[s] = 0; STORE_INTERESTED(s, false);
          CHECK_STAYS_ANNOUNCED(s); SET_RELEASING(s, false); act = 0;
          SAY(("T%d releases top: interested[%d] = 0\n", id, s))
        };
        ANNOUNCE_INTEREST(s)
#endif
     :: else -> skip
     fi;
     atomic {                                              /* seq_cst fence; wait until
                                                              forecast_to_top == 0 */
#if defined(BUG_NO_TURN)
       (!LOADS_FENCED(act) || BUFFER_EMPTY(s)) && !interested[o] ->
#elif defined(BUG_ENTRY_NO_WAIT)
       (!LOADS_FENCED(act) || BUFFER_EMPTY(s)) &&
       (act == 4 || !(interested[o] && TURN_SEEN_BY(s) == o)) ->   /* BUG: no wait */
#else
       (!LOADS_FENCED(act) || BUFFER_EMPTY(s)) && !(interested[o] && TURN_SEEN_BY(s) == o) ->
#endif
       top_state[s] = TOP_HELD; passes[s] = 0; ENTER(id, s, my);
       SAY(("T%d takes top: enters\n", id))
     }
  :: else -> skip
  fi
}

/* The critical section: foreign = sections_of(other) - before; sections[me]++ */
inline critical_section() {
  atomic {
    act = 0;
#if !defined(NO_BYPASS)
    if
    :: counting[id] -> SAY(("T%d section: counted %d, limit %d\n", id, seen[id], LIMIT(id)))
    :: else -> SAY(("T%d section\n", id))
    fi;
    assert(!counting[id] || seen[id] <= LIMIT(id));
    counting[id] = false; announced[id] = false; seen[id] = 0; qa[id] = 0;
    j = 0;
    do                                                     /* the other side's counters */
    :: j < NT ->
       if
       :: counting[j] && SIDE(j) == o && COUNTED(j) ->
          seen[j] = (seen[j] <= LIMIT(j) -> seen[j] + 1 : seen[j])
       :: else -> skip
       fi;
       j++
    :: else -> j = 0; break
    od
#else
    skip
#endif
  }
}

/* unlock_on(side, me): unlock() on the CPU (side 0) */
inline unlock_on() {
  atomic {
    CHECK_HOLDER_LEAVES(s);
    wb = (taken[s] + TM - served[s]) % TM > 1;            /* queued() > 1 */
    if
#if defined(BUG_UNBOUNDED_PASS)
    :: wb -> act = 1; SAY(("T%d passes (unbounded)\n", id))
#else
    :: wb && passes[s] < B -> passes[s]++; act = 1;       /* pass within the side */
       SAY(("T%d passes (%d)\n", id, passes[s]))
#endif
    :: !wb -> act = 2; SET_RELEASING(s, true)             /* nobody behind: release */
    :: else -> act = 3                                    /* bound reached, waiter behind */
    fi
  }
  if
  :: act == 3 ->
     atomic {                                              /* interested[other].load() */
       if
       :: !interested[o] -> passes[s] = 0; act = 1;        /* nobody waits there: carry on */
          SAY(("T%d carries on\n", id))
#if defined(BUG_HANDOVER_RELEASES)
       :: else -> act = 2; SET_RELEASING(s, true)          /* BUG: releases as before */
#else
       :: else -> top_state[s] = TOP_HANDED_OVER; passes[s] = 0; act = 4
#endif
       fi
     }
  :: else -> skip
  fi;
  if
  :: act == 4 -> HAND_OVER(s)
  :: else -> skip
  fi;
#if defined(BUG_LOCAL_BEFORE_TOP)
  if
  :: act == 2 -> top_state[s] = TOP_FREE; passes[s] = 0
  :: else -> skip
  fi;
  atomic { served[s] = (served[s] + 1) % TM }             /* BUG: local.unlock() first */
  if
  :: act == 2 ->
     atomic { STORE_INTERESTED(s, false); CHECK_STAYS_ANNOUNCED(s); SET_RELEASING(s, false) }
  :: else -> skip
  fi;
  atomic { act = 0; wb = false; my = 0 }
#else
  if
  :: act == 2 -> RELEASE_TOP(s)
  :: else -> skip
  fi;
  atomic {                                                 /* local.unlock() */
    served[s] = (served[s] + 1) % TM;
    act = 0; wb = false; my = 0
  }
#endif
}

/* pass_then_look(side, me): unlock() on the GPU (side 1). Serves the next ticket with
 * one more pass (top_state stays top_held), then looks at tickets_taken: nobody queued,
 * it takes the served ticket back unless a thread took it meanwhile, releases the top
 * lock and serves again. By default the look is made with the add and the take-back is
 * the next step (see the top); -DSPLIT_LOOK makes the load of tickets_taken a step of
 * its own, before or after the add (-DSERVE_FIRST: only after). A thread that is done
 * goes back to the loop's head (goto next_gpu: one program counter for an idle thread). */
inline pass_then_look() {
#if defined(SPLIT_LOOK)
  if
  :: SERVE_NEXT(s);
     atomic {                                              /* tickets_taken.load() */
       assert(unclaimed[s] != id + 1 || (taken[s] + TM - my) % TM == 1);
       LOOKED(unclaimed[s] == id + 1);
       SAY(("T%d looks: queued %d\n", id, (act == 6 -> 1 : 2)));
       DONE_UNLESS_LOOK
     }
#if !defined(SERVE_FIRST)
  :: atomic {                                              /* tickets_taken.load() first */
       CHECK_HOLDER_LEAVES(s);
       SAY(("T%d looks first: queued %d\n", id, (taken[s] + TM - my) % TM));
       assert(unclaimed[s] == 0);
       unclaimed[s] = ((taken[s] + TM - my) % TM == 1 -> id + 1 : 0);
       LOOKED(unclaimed[s] == id + 1)
     }
     atomic {                                              /* tickets_served.fetch_add */
       served[s] = (served[s] + 1) % TM; COUNT_PASS(s);
       SAY(("T%d passes (%d)\n", id, passes[s]));
       DONE_UNLESS_LOOK
     }
#endif
  fi;
#if defined(BUG_NO_TAKE_BACK)
  atomic {                                                 /* BUG: releases the top lock */
    top_state[s] = TOP_FREE; passes[s] = 0; unclaimed[s] = 0;
    CHECK_NOTHING_PENDING(s); STORE_INTERESTED(s, false); CHECK_STAYS_ANNOUNCED(s);
    SAY(("T%d releases top without taking the ticket back: interested[%d] = 0\n", id, s));
    act = 0; my = 0; goto next_gpu
  }
#elif defined(BUG_RELEASE_BEFORE_TAKE_BACK)
  atomic {                                                 /* BUG: release_top first */
    CHECK_NOTHING_PENDING(s); STORE_INTERESTED(s, false); CHECK_STAYS_ANNOUNCED(s);
    SAY(("T%d interested[%d] = 0 before the take-back\n", id, s))
  }
#endif
#else  /* !SPLIT_LOOK */
  SERVE_NEXT(s);
#endif
  atomic {                                                 /* take_back(): the CAS */
    if
    :: TAKE_BACK_GUARD ->
       my = taken[s]; taken[s] = (taken[s] + 1) % TM; unclaimed[s] = 0;
       assert(my == next_entry[s]); next_entry[s] = (next_entry[s] + 1) % TM;
       act = 2; SET_RELEASING(s, true);
       SAY(("T%d takes ticket %d back\n", id, my))
    :: else ->                                             /* taken meanwhile: done */
       SAY(("T%d: the ticket was taken meanwhile\n", id));
       act = 0; my = 0; goto next_gpu
    fi
  }
#if defined(BUG_LOCAL_BEFORE_TOP)
  atomic { top_state[s] = TOP_FREE; passes[s] = 0; served[s] = (served[s] + 1) % TM }
  atomic {                                                 /* BUG: local.unlock() first */
    STORE_INTERESTED(s, false); CHECK_STAYS_ANNOUNCED(s); SET_RELEASING(s, false);
    act = 0; my = 0
  }
#else
#if !defined(BUG_RELEASE_BEFORE_TAKE_BACK)
  RELEASE_TOP(s);
#else
  atomic { top_state[s] = TOP_FREE; passes[s] = 0; SET_RELEASING(s, false) }
#endif
  atomic {                                                 /* local.unlock() */
    assert(served[s] == my); served[s] = (served[s] + 1) % TM;
    act = 0; my = 0
  }
#endif
}

/* -DTRY: try_lock_on()/try_lock_within_on() and try_top(), for the threads TRIES(id) says
 * (default: the last thread of each side), which choose at every call between lock() and
 * a try. local.try_lock() is one step: it loads tickets_served, then compare-exchanges
 * tickets_taken from the value it loaded to one more, so it takes exactly the ticket
 * being served, with the state the last holder left, or fails without taking any
 * (nothing the other threads can see happens in between). The top lock's wait is a
 * single poll (try_lock) or a timed wait (try_lock_for): the guard of lock_on()'s wait,
 * or a give-up that may come at any moment, whatever the guard says (a deadline that
 * passes), so the model covers both. A try that fails after it took the local lock
 * leaves it with the state it found (the ticket served, not entered), except past the
 * bound with the other side waiting, where it leaves as a holder at the bound does
 * (unlock_on(): hand over with a thread queued behind, else release). */
#if defined(TRY)
#ifndef TRIES
#define TRIES(id) ((id) == NC - 1 || (id) == NT - 1)
#endif

/* The failed try serves the ticket it took; the next ticket enters next. */
#define TRY_SERVES(s) \
  assert(served[s] == my && my == next_entry[s]); next_entry[s] = (next_entry[s] + 1) % TM; \
  served[s] = (served[s] + 1) % TM; act = 0; wb = false; my = 0

/* A failed try withdraws its announced interest: release_top() without the top_free
 * store (the state it found was top_free already) */
#define RELEASE_TOP_FOR_TRY(s) \
  atomic { \
    CHECK_NOTHING_PENDING(s); STORE_INTERESTED(s, false); \
    CHECK_STAYS_ANNOUNCED(s); SET_RELEASING(s, false); \
    SAY(("T%d withdraws: interested[%d] = 0\n", id, s)) \
  }
inline try_lock_on() {
  atomic {                                                 /* local.try_lock() */
    if
    :: served[s] == taken[s] ->
       my = taken[s]; taken[s] = (taken[s] + 1) % TM; unclaimed[s] = 0;
       if
       :: ENTERS_AT_ONCE(s) -> ENTER(id, s, my); act = 1;
          SAY(("T%d tries: local lock, top held (%d passes): enters\n", id, passes[s]))
       :: top_state[s] == TOP_HELD && !ENTERS_AT_ONCE(s) ->
          if                                               /* other_side_waits() */
          :: !interested[o] -> passes[s] = 0; ENTER(id, s, my); act = 1;
             SAY(("T%d tries: local lock past the bound, other side not waiting: enters\n", id))
          :: else -> act = 3;
             SAY(("T%d tries: local lock past the bound, other side waits\n", id))
          fi
       :: top_state[s] == TOP_FREE -> act = 0; SAY(("T%d tries: local lock, top free\n", id))
       :: top_state[s] == TOP_HANDED_OVER ->               /* never: see the comment above */
          assert(false); act = 2; SAY(("T%d tries: local lock, top handed over\n", id))
       fi
    :: else -> act = 7; SAY(("T%d tries: local lock busy\n", id))
    fi
  }
  if
  :: act == 1 || act == 7 -> skip
  :: act == 3 ->                                           /* unlock_on() at the bound */
     atomic {
       wb = (taken[s] + TM - served[s]) % TM > 1;
       if
       :: !wb -> act = 2; SET_RELEASING(s, true)
       :: else -> act = 3
       fi
     }
     if
     :: act == 3 ->
        atomic {                                           /* interested[other].load() */
          if
          :: !interested[o] -> passes[s] = 0; act = 1
          :: else -> top_state[s] = TOP_HANDED_OVER; passes[s] = 0; act = 4
          fi
        }
     :: else -> skip
     fi;
     if
     :: act == 4 -> HAND_OVER(s)
     :: act == 2 -> RELEASE_TOP(s)
     :: else -> skip
     fi;
     atomic { SAY(("T%d's try fails past the bound\n", id)); TRY_SERVES(s); act = 7 }
  :: else ->                                               /* 0: top free, 2: handed over */
     if
     :: act == 0 -> ANNOUNCE_INTEREST(s)
     :: else -> skip
     fi;
     if
     :: atomic {                                           /* a poll that finds the turn */
          (act == 2 || BUFFER_EMPTY(s)) && !(interested[o] && TURN_SEEN_BY(s) == o) ->
          top_state[s] = TOP_HELD; passes[s] = 0; ENTER(id, s, my); act = 1;
          SAY(("T%d tries: takes top, enters\n", id))
        }
     :: atomic {                                           /* after announce_interest()'s
                                                              second fence, as every poll */
          act == 2 || BUFFER_EMPTY(s) -> SAY(("T%d's try gives up the top lock\n", id))
        }
        if
        :: act == 0 ->
           atomic {                                        /* queued() > 1 */
             wb = (taken[s] + TM - served[s]) % TM > 1;
#if defined(BUG_TRY_WITHDRAWS)
             wb = false;                                   /* BUG: withdraws whatever is queued */
#endif
             if
             :: wb -> skip
             :: else -> SET_RELEASING(s, true)
             fi
           }
           if
           :: wb ->                                        /* keeps the interest for the
                                                              thread behind: handed over */
              atomic {
                top_state[s] = TOP_HANDED_OVER; passes[s] = 0;
                SAY(("T%d's try leaves the top lock handed over\n", id)); TRY_SERVES(s); act = 7
              }
           :: else ->                                      /* withdraws, as Peterson allows */
              RELEASE_TOP_FOR_TRY(s);
              atomic { TRY_SERVES(s); act = 7 }
           fi
        :: else -> atomic { TRY_SERVES(s); act = 7 }       /* handed over: the interest stays */
        fi
     fi
  fi
}

#endif  /* TRY */

proctype thread(byte id) {
  byte s = SIDE(id);
  byte o = 1 - SIDE(id);
  byte my;              /* my ticket */
  byte act;             /* lock: 0 announce, 1 entered, 2 handed over (wait only), 4 handed
                           over by itself (past the bound), 5 releases (a seeded bug);
                           unlock_on: 1 pass / carry on, 2 release, 3 bound, 4 hand over;
                           pass_then_look: 6 nobody queued, 2 took the ticket back */
  byte j;
  bool wb;              /* unlock_on: waiter_behind, queued() > 1 */
#if defined(TRY)
  if
  :: s == 1 -> next_gpu: do
     :: lock_on(); critical_section(); pass_then_look()
     :: TRIES(id) -> try_lock_on();
        if
        :: act == 1 -> critical_section(); pass_then_look()
        :: else -> act = 0
        fi
     od
  :: else -> do
     :: lock_on(); critical_section(); unlock_on()
     :: TRIES(id) -> try_lock_on();
        if
        :: act == 1 -> critical_section(); unlock_on()
        :: else -> act = 0
        fi
     od
  fi
#else
  if
  :: s == 1 -> next_gpu: do :: lock_on(); critical_section(); pass_then_look() od
  :: else -> do :: lock_on(); critical_section(); unlock_on() od
  fi
#endif
}

#if defined(WEAK_MEMORY)
/* Makes side s's buffered stores visible, one at a time, in any order. */
proctype flusher(byte s) {
end:
  do
  :: atomic { pending_interested[s] -> interested[s] = buffered_interested[s];
              pending_interested[s] = false; buffered_interested[s] = false;
              SAY(("side %d: interested[%d] = %d visible\n", s, s, interested[s])) }
  :: atomic { pending_turn[s] -> turn = 1 - s; pending_turn[s] = false;
              SAY(("side %d: turn = %d visible\n", s, turn)) }
  od
}
#endif

init {
  byte i = 0;
  atomic {
    do
    :: i < NT -> run thread(i); i++
    :: else -> i = 0; break
    od;
#if defined(WEAK_MEMORY)
    run flusher(0); run flusher(1)
#endif
  }
}

ltl live0 { [] (waiting[0] -> <> cs[0]) }
ltl live1 { [] (waiting[1] -> <> cs[1]) }
ltl live2 { [] (waiting[2] -> <> cs[2]) }
ltl live3 { [] (waiting[3] -> <> cs[3]) }
ltl live4 { [] (waiting[4] -> <> cs[4]) }
