/* Thread teams for titer's parallel loops: how many threads a call gets,
 * and the bookkeeping that lets the next call learn from this one.
 *
 * NOTE: [busy machines]
 * An OpenMP parallel region ends in a barrier that waits for every member
 * of its team, so a worker that the scheduler has parked (another process
 * holds its core) delays the whole call by a scheduler slice, milliseconds
 * for a call that takes tenths of one.  titer keeps OpenMP (Cython's
 * prange) and bounds that cost three ways:
 *   1. the work is cut into more pieces than threads, claimed dynamically
 *      (schedule(dynamic)): the calling thread, always running, takes
 *      piece after piece, so a late worker delays the call by at most the
 *      piece it holds, never by a fixed share of the work.  Piece
 *      boundaries never change what an element is (reductions combine
 *      fixed partials in a fixed order), so results stay bit-identical;
 *   2. each parallel call measures itself: every thread times its pieces,
 *      and the quickest thread's pace estimates what the call would have
 *      cost on one thread.  Parallel calls that beat the estimate earn credit,
 *      calls that lose to it (a worker arrived late, or never, or shares
 *      the caller's core, where the scheduler puts it when the other cores
 *      are taken) spend it; when the credit runs out, the following calls
 *      run on the calling thread alone for a while (titer_team_judge),
 *      then a call probes the team again.  On a quiet machine the credit
 *      never runs out and nothing changes;
 *   3. a budget of cores shared by every titer call in the process: a call
 *      takes at most the usable cores that other running titer calls have
 *      left (at least its own thread; a call that runs on one thread also
 *      holds one core in the books), so several Python threads calling
 *      titer at once do not oversubscribe the machine, and no thread count
 *      asked for can start more threads than there are cores.
 * All of it is a few relaxed atomics per parallel call; calls below the
 * grain never reach it. */
#ifndef TITER_THREADS_H
#define TITER_THREADS_H

#include <stdint.h>
#include <time.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#define TITER_PIECES_PER_THREAD 4    /* 8 cost ~10 % on a 2^20 add here */
#define TITER_HOLD_MIN_NS 50000000LL       /* 50 ms: a probe also leaves OpenMP's
                                              workers spinning for a few ms */
#define TITER_CREDIT_MAX_NS 20000000LL     /* 20 ms */
#define TITER_LOSS_HOLD_NS 1000000LL       /* 1 ms: a loss this big and bigger than the
                                              estimate holds at once (a scheduler slice) */
#define TITER_TEAM_TIMED 64                /* threads of a team whose pieces are timed */

typedef struct {
    int size;               /* threads in the team (1: the calling thread alone) */
    int reserved;           /* cores taken from the budget */
    int flags;              /* floating-point flags of every piece, OR-ed */
    int64_t start_ns;
    int64_t pieces_ns[TITER_TEAM_TIMED];    /* per thread: the time in its pieces, */
    int64_t pieces_run[TITER_TEAM_TIMED];   /* and how many it ran */
    int64_t pieces;
    int tables_filled;      /* titer_half_tables_filled when the call began */
} titer_team;
/* float16 result tables filled so far (titer_loops.h NOTE [float16 tables];
 * defined in _core.pyx): a call during which one was filled spent
 * milliseconds on one thread that say nothing about the machine, so it is
 * not judged */
extern int titer_half_tables_filled;

/* Process-wide state (one copy per titer build: vendored copies are
 * independent).  titer_usable_cores is set at import. */
static int titer_usable_cores = 1;
static int titer_cores_in_use = 0;
static int64_t titer_serial_until_ns = 0;
static int64_t titer_hold_ns = 0;
static int64_t titer_credit_ns = TITER_CREDIT_MAX_NS; /* time recent parallel calls saved;
                                                   full at first: the first call starts the threads */
static int64_t titer_hold_max_ns = 1000000000LL;  /* 1 s; 0: never hold (tests) */
/* What tests and show_config look at: the last team's size, the most
 * cores titer calls held at once. */
static int titer_last_team = 0;
static int titer_peak_cores = 0;
static int titer_teams_started = 0;     /* a parallel call has been judged */
/* The last judged call, for _team_stats (diagnostics: written without
 * atomics): elapsed, estimate, then the first two threads' time in pieces
 * and piece count. */
static int64_t titer_last_judged[6] = {0, 0, 0, 0, 0, 0};

static inline int64_t titer_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int titer_thread_num(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* OpenMP's thread count for a region started from this thread. */
static inline int titer_omp_max_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Pieces to cut `units` of work into for a team of `size`. */
static inline int64_t titer_team_pieces(int size, int64_t units) {
    int64_t want = (int64_t)size * TITER_PIECES_PER_THREAD;
    return size <= 1 ? 1 : (units < want ? units : want);
}

/* Open a team of at most `requested` threads for `units` independent units
 * of work (a unit is the smallest piece worth a thread: below 2 units the
 * call is serial and keeps no books).  Returns the team size;
 * titer_team_close must follow. */
static inline int titer_team_open(titer_team *t, int requested, int64_t units) {
    int want = requested < units ? requested : (int)units, granted, in_use, peak;
    t->size = 1;
    t->reserved = 0;
    t->flags = 0;
    t->pieces = 1;
    __atomic_store_n(&titer_last_team, 1, __ATOMIC_RELAXED);
    if (units < 2)
        return 1;
    if (want > 1) {
        t->start_ns = titer_now_ns();
        t->tables_filled = __atomic_load_n(&titer_half_tables_filled, __ATOMIC_RELAXED);
        if (t->start_ns < __atomic_load_n(&titer_serial_until_ns, __ATOMIC_RELAXED))
            want = 1;                       /* holding off after a slow parallel call */
    }
    if (want < 1)
        want = 1;
    in_use = __atomic_load_n(&titer_cores_in_use, __ATOMIC_RELAXED);
    do {                                    /* what other titer calls left, at least 1 */
        granted = titer_usable_cores - in_use;
        granted = granted > want ? want : granted < 1 ? 1 : granted;
    } while (!__atomic_compare_exchange_n(&titer_cores_in_use, &in_use, in_use + granted, 1,
                                          __ATOMIC_RELAXED, __ATOMIC_RELAXED));
    in_use += granted;
    peak = __atomic_load_n(&titer_peak_cores, __ATOMIC_RELAXED);
    while (in_use > peak && !__atomic_compare_exchange_n(&titer_peak_cores, &peak, in_use, 1,
                                                         __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
    __atomic_store_n(&titer_last_team, granted, __ATOMIC_RELAXED);
    for (int i = 0; i < granted && i < TITER_TEAM_TIMED; i++)
        t->pieces_ns[i] = t->pieces_run[i] = 0;
    t->size = t->reserved = granted;
    t->pieces = titer_team_pieces(granted, units);
    return granted;
}

/* A piece's bracket, run by every thread of the team. */
static inline int64_t titer_piece_begin(void) {
    return titer_now_ns();
}

static inline void titer_piece_end(titer_team *t, int64_t began, int flags) {
    int i = titer_thread_num();
    if (flags)
        __atomic_fetch_or(&t->flags, flags, __ATOMIC_RELAXED);
    if (i < TITER_TEAM_TIMED) {             /* slot i is this thread's alone */
        t->pieces_ns[i] += titer_now_ns() - began;
        t->pieces_run[i] += 1;
    }
}

/* Learn from a parallel call that took `elapsed_ns` (NOTE: [busy
 * machines], 2).  The quickest thread's mean piece time, times the pieces,
 * estimates the call on one thread: a thread on a free core runs at the
 * pace one thread would (a worker or caller sharing its core with another
 * process runs slower, and a single piece can be quick from a warm cache,
 * so neither the sum nor the quickest piece will do).  What a call saves
 * over that goes into a credit (at most 20 ms), what it loses (the wait for
 * a late worker) comes out.  When the credit runs out, or a call lost more
 * than the estimate and more than 1 ms (on a busy core a 3 ms call lost
 * ~5 ms a time, and 20 ms of credit let four of them through in a row;
 * below 1 ms a tiny call's late wake-up on a quiet machine would hold it,
 * where the credit pays for it), the following calls
 * run on one thread for a while: 50 ms after the first loss in a while,
 * then 16x the losing call's time, at least double the previous hold, up
 * to 1 s; a call that saves time halves the next hold.  The short first
 * hold is for the loss that does not come back: on a quiet machine the
 * first call that writes freshly allocated memory can lose to its own
 * estimate (one thread's page faults ran ~5x slower than the other's in a
 * KVM guest), and 16x that 90 ms call held a quiet machine to one thread
 * for a second. */
static inline void titer_team_judge(const titer_team *t, int64_t elapsed_ns) {
    int64_t pace = INT64_MAX, estimate, loss, credit, hold;
    int first;
    if (__atomic_load_n(&titer_half_tables_filled, __ATOMIC_RELAXED) != t->tables_filled)
        return;
    for (int i = 0; i < t->size && i < TITER_TEAM_TIMED; i++)
        if (t->pieces_run[i] > 0 && t->pieces_ns[i] / t->pieces_run[i] < pace)
            pace = t->pieces_ns[i] / t->pieces_run[i];
    if (pace == INT64_MAX)
        return;
    estimate = pace * t->pieces;
    titer_last_judged[0] = elapsed_ns;
    titer_last_judged[1] = estimate;
    for (int i = 0; i < 2; i++) {
        titer_last_judged[2 + 2 * i] = i < t->size ? t->pieces_ns[i] : 0;
        titer_last_judged[3 + 2 * i] = i < t->size ? t->pieces_run[i] : 0;
    }
    loss = elapsed_ns - estimate;
    credit = __atomic_load_n(&titer_credit_ns, __ATOMIC_RELAXED) - loss;
    first = !__atomic_load_n(&titer_teams_started, __ATOMIC_RELAXED);
    if (first)                              /* the first call also starts the threads */
        __atomic_store_n(&titer_teams_started, 1, __ATOMIC_RELAXED);
    if (credit >= 0 && (loss <= estimate || loss < TITER_LOSS_HOLD_NS || first)) {
        __atomic_store_n(&titer_credit_ns, credit < TITER_CREDIT_MAX_NS ? credit
                         : TITER_CREDIT_MAX_NS, __ATOMIC_RELAXED);
        if (loss < 0)                       /* a call that paid: the next hold is shorter */
            __atomic_store_n(&titer_hold_ns, __atomic_load_n(&titer_hold_ns, __ATOMIC_RELAXED) / 2,
                             __ATOMIC_RELAXED);
        return;
    }
    __atomic_store_n(&titer_credit_ns, 0, __ATOMIC_RELAXED);
    hold = __atomic_load_n(&titer_hold_ns, __ATOMIC_RELAXED);
    if (hold < TITER_HOLD_MIN_NS)           /* the first loss in a while */
        hold = TITER_HOLD_MIN_NS;
    else                                    /* it came back */
        hold = 2 * hold > 16 * elapsed_ns ? 2 * hold : 16 * elapsed_ns;
    hold = hold > titer_hold_max_ns ? titer_hold_max_ns : hold;
    __atomic_store_n(&titer_hold_ns, hold, __ATOMIC_RELAXED);
    __atomic_store_n(&titer_serial_until_ns, titer_now_ns() + hold, __ATOMIC_RELAXED);
}

/* Give the cores back and judge the call. */
static inline void titer_team_close(titer_team *t) {
    if (t->reserved == 0)
        return;
    __atomic_fetch_sub(&titer_cores_in_use, t->reserved, __ATOMIC_RELAXED);
    if (t->size > 1)
        titer_team_judge(t, titer_now_ns() - t->start_ns);
}

#endif
