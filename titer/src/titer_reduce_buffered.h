/* NumPy's buffered reductions: a pairwise sum whose input goes through
 * the iterator's buffers (converted to the loop type on the way, or moved).
 *
 * NOTE [buffered reductions]: NumPy reduces an input it must convert
 * (dtype=, an out= of another type, a byte-swapped or unaligned input),
 * and one whose dims do not coalesce where its cost model prefers copying
 * to short inner loops (_numpy_buffers_input in _reduce.pxi: a[:, :100]
 * over everything), through its iterator's buffers of B = np.getbufsize()
 * elements: each
 * inner-loop call converts its elements, the loop sums them pairwise and
 * adds the sum to the output, which holds the loop type between calls.  For
 * the loops that sum pairwise (float and complex add) the calls' cut decides
 * the bits.  NumPy 2.4's cut (nditer's npyiter_find_buffering_setup, new
 * in 2.3; older NumPys cut otherwise), where
 * the iteration's fastest dims are reduced ones: with P_k the product of the
 * sizes of the reduced dims 0..k that come before any kept dim, q is the
 * first k with P_k >= B, or the last of them; a period is a sweep of dims
 * 0..q (calls never cross one), cut from its start into calls of P_q
 * elements where P_q <= B, else of P_(q-1) floor(B / P_(q-1)) (whole sweeps
 * of the faster dims; a row cut into pieces of B when q = 0).  Each output's
 * calls follow its periods in iteration order, their sums added from the
 * identity (or initial=; without either, from the first element, which
 * leaves the first call).  Where a kept dim is fastest NumPy adds element by
 * element, in order, and the cut does not matter.  (An out= whose layout
 * orders the kept dims otherwise than the input's strides changes NumPy's
 * axis order in ways titer's plan does not follow: such calls keep the
 * plain reduction, _orders_agree in _reduce.pxi.)  So here: each call's
 * elements converted by the cast loop into a thread's buffer, the kit's
 * pairwise loop over them, the sums added in order, rounded to the loop type
 * after each (float16 sums in float).
 *
 * NOTE [held outputs]: an out= of another type than the loop's (float64
 * values summed into a float32 out=) is an operand NumPy's iterator buffers
 * too, and it writes that buffer back into out= after each call of the
 * cut above and reads it again for the next: the output's running value is
 * rounded to out='s type between calls (its start too), and its
 * conversion's flags are the reduction's.  So a held reduction keeps the
 * cut, rounds its accumulator through out='s type after each call, and
 * runs for every op whose result such rounding can change (float and
 * complex loops but max/min): the sums as above, the others folded call
 * after call in order (`folds`).  NumPy skips the reload (so the rounding)
 * only where it reuses a buffer, and it reuses buffers only in its reduce
 * mode (nditer's npyiter_find_buffering_setup makes the dim where out='s
 * stride turns to or from 0 the outer one; _numpy_reduce_mode in
 * _reduce.pxi repeats its cost model): the next buffer starts at the same
 * place of out= and the last one was whole or a reduce-mode one
 * (BUF_REUSABLE).  So where a kept dim is fastest, reduce mode rounds once
 * at the end and otherwise every reduced index rounds (_reduce_held_rows);
 * where a kept dim splits the reduced ones, reduce mode keeps the output
 * across periods while the sweep times that dim fits in a buffer and a
 * reduced dim follows it (_output_buffer_reused). */
#ifndef TITER_REDUCE_BUFFERED_H
#define TITER_REDUCE_BUFFERED_H

#include "titer_reduce.h"
#include "titer_loops.h"     /* titer_copy_bytes */

typedef void (*titer_red_cast)(const char *src, int64_t src_stride, char *dst,
                               int64_t dst_stride, int64_t n);

typedef struct {
    titer_red_cast cast;    /* input type -> loop type */
    int64_t item;           /* the loop type's size */
    int64_t size;           /* B: elements a buffer holds */
    int64_t piece;          /* > 0: a call is this many elements of one row */
    int64_t per_row;        /* calls a row takes (piece > 0) */
    int64_t rows;           /* else: a call is this many whole rows, */
    int64_t period;         /* of a period of this many rows, */
    int64_t per_period;     /* in this many calls */
    int64_t per_out;        /* calls an output takes */
    int64_t in_item;        /* the input's size */
    int swap_unit;          /* 0: read in place; else moved first (1: unaligned, > 1:
                               byte-swapped in words of this size) */
    titer_red_cast hold_out;    /* loop type -> out='s, where NumPy's output buffer holds
                                   out='s type between calls (NOTE [held outputs]); else NULL */
    titer_red_cast hold_in;     /* out='s type -> the loop type */
    int folds;              /* each call folded into its output in order (an op NumPy does
                               not sum pairwise), else summed pairwise and added */
} titer_buffering;

/* NumPy's cut of r's reduction (r->rd's first `prefix` dims come before any
 * kept dim in the iteration) into calls of at most `size` elements */
static inline titer_buffering titer_buffering_of(const titer_reduction *r, titer_red_cast cast,
                                                 int64_t item, int64_t size, int64_t in_item,
                                                 int swap_unit, int prefix) {
    titer_buffering b;
    int64_t n0 = r->rd.shape[0], nrows = r->nred / n0, faster = 1, sweep = n0;
    int q = 0;
    while (q + 1 < prefix && sweep < size) {
        faster = sweep;
        sweep *= r->rd.shape[++q];
    }
    b.cast = cast;
    b.item = item;
    b.size = size;
    b.in_item = in_item;
    b.swap_unit = swap_unit;
    b.hold_out = b.hold_in = NULL;
    b.folds = 0;
    if (q == 0 && n0 > size) {
        b.piece = size;
        b.per_row = (n0 + size - 1) / size;
        b.rows = b.period = b.per_period = 0;
        b.per_out = nrows * b.per_row;
    } else {
        int64_t call = sweep <= size ? sweep : faster * (size / faster);
        b.piece = b.per_row = 0;
        b.rows = call / n0;
        b.period = sweep / n0;
        b.per_period = (b.period + b.rows - 1) / b.rows;
        b.per_out = nrows / b.period * b.per_period;
    }
    return b;
}

/* n input elements from src (stride s) into dst in the loop type, through
 * `stage` where they must be moved first */
static inline void titer_buffer_convert(const titer_buffering *b, const char *src, int64_t s,
                                        char *dst, int64_t n, char *stage) {
    if (b->swap_unit) {
        titer_copy_bytes(src, s, stage, b->in_item, n, (int)b->in_item, b->swap_unit);
        src = stage;
        s = b->in_item;
    }
    b->cast(src, s, dst, b->item, n);
}

/* Call k of the output whose input starts at `base`: its elements
 * converted into `buf` (`stage` after it); returns how many. */
static int64_t titer_buffer_fill(const titer_reduction *r, const titer_buffering *b,
                                 const char *base, int64_t k, char *buf) {
    char *stage = buf + (b->size * b->item + 63) / 64 * 64;
    int64_t n0 = r->rd.shape[0], s0 = r->rd.stride[0];
    if (b->piece) {
        int64_t row = k / b->per_row, begin = (k % b->per_row) * b->piece;
        int64_t n = titer_min64(b->piece, n0 - begin);
        titer_buffer_convert(b, base + titer_rdims_offset(&r->rd, 1, row, NULL) + begin * s0, s0,
                             buf, n, stage);
        return n;
    }
    int64_t idx[TITER_RED_MAXDIMS];
    int64_t first = k / b->per_period * b->period, row0 = first + k % b->per_period * b->rows;
    int64_t row1 = titer_min64(row0 + b->rows, first + b->period);
    titer_rdims rows = r->rd;          /* the row dims alone, walked in order */
    rows.ndim = r->rd.ndim - 1;
    memmove(rows.shape, r->rd.shape + 1, sizeof(int64_t) * (size_t)rows.ndim);
    memmove(rows.stride, r->rd.stride + 1, sizeof(int64_t) * (size_t)rows.ndim);
    const char *p = titer_rdims_start(&rows, base, row0, idx);
    for (int64_t row = row0; row < row1; row++) {
        titer_buffer_convert(b, p, s0, buf + (row - row0) * n0 * b->item, n0, stage);
        p = titer_rdims_next(&rows, p, idx);
    }
    return (row1 - row0) * n0;
}

/* acc as NumPy's output holds it between calls: in the loop type, or
 * through out='s type where that differs (NOTE [held outputs]) */
static inline void titer_buffer_hold(const titer_reduction *r, const titer_buffering *b,
                                     void *acc) {
    char held[TITER_ACC_MAX], narrow[TITER_ACC_MAX];
    r->kit->store(held, acc);
    if (b->hold_out) {
        b->hold_out(held, 0, narrow, 0, 1);
        b->hold_in(narrow, 0, held, 0, 1);
    }
    r->kit->load_out(acc, held);
}

/* Call k's pairwise sum into `sum`; returns 0 where it has no elements.
 * Without an initial value, call 0's first element is the output's start
 * (into `first`, as NumPy copies it into the output) and leaves the call. */
static int titer_buffer_sum(const titer_reduction *r, const titer_buffering *b,
                            const char *base, int64_t k, char *buf, void *sum, void *first) {
    int64_t n = titer_buffer_fill(r, b, base, k, buf);
    if (k == 0 && !r->has_init) {
        r->kit->load(first, buf);
        titer_buffer_hold(r, b, first);
        buf += b->item;
        n -= 1;
    }
    if (n > 0)
        r->kit->pairwise(buf, b->item, n, sum);
    return n > 0;
}

/* Call k folded into its output's acc in order (b->folds), then held. */
static void titer_buffer_fold(const titer_reduction *r, const titer_buffering *b,
                              const char *base, int64_t k, char *buf, void *acc) {
    int64_t n = titer_buffer_fill(r, b, base, k, buf);
    if (k == 0 && !r->has_init) {
        r->kit->load(acc, buf);
        titer_buffer_hold(r, b, acc);
        buf += b->item;
        n -= 1;
    }
    if (n > 0) {
        r->kit->fold(buf, b->item, n, acc);
        titer_buffer_hold(r, b, acc);
    }
}

/* acc += sum, held as NumPy's output is between calls */
static inline void titer_buffer_add(const titer_reduction *r, const titer_buffering *b,
                                    void *acc, const void *sum) {
    r->kit->combine(acc, sum);
    titer_buffer_hold(r, b, acc);
}

/* Outputs [j0, j1), each by one thread, its calls in turn. */
static void titer_buffered_outputs(const titer_reduction *r, const titer_buffering *b,
                                   int64_t j0, int64_t j1, char *buf) {
    char acc[TITER_ACC_MAX], sum[TITER_ACC_MAX];
    for (int64_t j = j0; j < j1; j++) {
        int64_t in_off, out_off;
        titer_red_kept(r, 0, j, &in_off, &out_off);
        if (r->has_init) {
            memcpy(acc, r->init, (size_t)r->kit->acc_size);
            if (b->hold_out)        /* the start, written into out= first */
                titer_buffer_hold(r, b, acc);
        }
        for (int64_t k = 0; k < b->per_out; k++)
            if (b->folds)
                titer_buffer_fold(r, b, r->in + in_off, k, buf, acc);
            else if (titer_buffer_sum(r, b, r->in + in_off, k, buf, sum, acc))
                titer_buffer_add(r, b, acc, sum);
        r->kit->store(r->out + out_off, acc);
    }
}

/* Every call's sum of outputs whose calls run in parallel (units [u0, u1)
 * of (output, call)), each with a flag byte: whether it has elements. */
static void titer_buffered_calls(const titer_reduction *r, const titer_buffering *b,
                                 int64_t u0, int64_t u1, char *buf, char *partials,
                                 char *firsts, char *filled) {
    size_t sz = (size_t)r->kit->acc_size;
    for (int64_t u = u0; u < u1; u++) {
        int64_t in_off, out_off, j = u / b->per_out;
        titer_red_kept(r, 0, j, &in_off, &out_off);
        filled[u] = (char)titer_buffer_sum(r, b, r->in + in_off, u % b->per_out, buf,
                                           partials + (size_t)u * sz, firsts + (size_t)j * sz);
    }
}

/* Runs a buffered reduction (nred >= 1, nout >= 1, rd's fastest dim before
 * any kept one) on at most `nthreads` threads: over outputs where there are
 * enough, else every call's sum in parallel, then each output's in order
 * (the same bits).  Returns the FP flags raised (the conversions' too:
 * NumPy reports them as the reduction's), -1 when memory ran out (nothing
 * written). */
static int titer_buffered_run(const titer_reduction *r, const titer_buffering *b, int nthreads,
                              int64_t grain) {
    titer_team team;
    size_t sz = (size_t)r->kit->acc_size;
    size_t buf_bytes = (size_t)((b->size * b->item + 63) / 64 * 64
                                + (b->swap_unit ? (b->size * b->in_item + 63) / 64 * 64 : 0));
    titer_clear_fp_flags(TITER_FPE_MASK);
    if ((double)r->nred * (double)r->nout < (double)grain) nthreads = 1;
    int by_output = nthreads == 1 || r->nout >= 4 * nthreads || b->per_out == 1 || b->folds;
    int64_t units = by_output ? r->nout : r->nout * b->per_out;
    titer_team_open(&team, nthreads, units);
    size_t slots = (size_t)(team.size > 1 ? team.size : 1);
    size_t call_bytes = by_output ? 0 : (sz + 1) * (size_t)units + sz * (size_t)r->nout;
    char *mem = (char *)titer_reduce_alloc(buf_bytes * slots + call_bytes);
    if (!mem) {
        titer_team_close(&team);
        return -1;
    }
    char *partials = mem + buf_bytes * slots;
    char *firsts = partials + sz * (size_t)units;
    char *filled = firsts + sz * (size_t)r->nout;
    if (by_output) {
        TITER_TEAM_FOR(&team, units, j0, j1,
                       titer_buffered_outputs(r, b, j0, j1, mem + (size_t)team_slot_ * buf_bytes))
    } else {
        TITER_TEAM_FOR(&team, units, u0, u1,
                       titer_buffered_calls(r, b, u0, u1, mem + (size_t)team_slot_ * buf_bytes,
                                            partials, firsts, filled))
        for (int64_t j = 0; j < r->nout; j++) {
            char acc[TITER_ACC_MAX];
            int64_t in_off, out_off;
            memcpy(acc, r->has_init ? r->init : firsts + (size_t)j * sz, sz);
            if (r->has_init && b->hold_out)
                titer_buffer_hold(r, b, acc);
            for (int64_t k = 0; k < b->per_out; k++)
                if (filled[j * b->per_out + k])
                    titer_buffer_add(r, b, acc, partials + (size_t)(j * b->per_out + k) * sz);
            titer_red_kept(r, 0, j, &in_off, &out_off);
            r->kit->store(r->out + out_off, acc);
        }
    }
    free(mem);
    titer_team_close(&team);
    return team.flags | fetestexcept(TITER_FPE_MASK);
}

#endif
