/* Reduction and scan drivers: walk a reduction plan (reduced dims with
 * output stride 0, kept dims) and split it over OpenMP threads.
 *
 * Reproducibility: what a result element is does not depend on the number
 * of threads.  It is defined on fixed pieces of the reduced range, reduced
 * pairwise; threads only decide who computes which piece.  A reduced fast
 * axis longer than TITER_RED_PIECE is cut where NumPy's pairwise recursion
 * halves it, and the pieces' partials are combined in that same tree, so a
 * contiguous or strided row sums to NumPy's bits at any length.  Shorter
 * rows grouped into one piece, and chunks of TITER_RED_CHUNK rows (outer
 * layout), are combined by a binary-counter cascade in index order.  Float
 * sums are pairwise on every axis (error O(log n) ulps).
 *
 * Two layouts: "inner" when a reduced dim is the input's fastest (pairwise
 * along it, parallel over outputs or over leaves), "outer" when a kept dim
 * is (tiles of outputs accumulated row by row, vectorised,
 * parallel over tiles or over chunks).  Ops NumPy cannot reorder (subtract,
 * divide, ...) take an in-order left fold, parallel over outputs only. */
#ifndef TITER_REDUCE_H
#define TITER_REDUCE_H

#include <fenv.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "titer_fpflags.h"   /* titer_clear_fp_flags */
#include "titer_threads.h"

extern int titer_loop_error;      /* _elementwise.pxi: a Python error from a nogil loop */
extern int titer_workspace_failures;    /* _execute.pxi: the test hook _fail_workspaces */

/* Memory a reduction needs, taken before any thread writes an output (a
 * NULL makes the run return -1: MemoryError, nothing written). */
static inline void *titer_reduce_alloc(size_t n) {
    if (titer_workspace_failures > 0) {
        titer_workspace_failures--;
        return NULL;
    }
    return malloc(n);
}

#define TITER_RED_MAXDIMS 64
#define TITER_PW_BLOCK 128       /* NumPy's PW_BLOCKSIZE */
#define TITER_RED_PIECE 32768    /* reduced elements per leaf partial (inner) */
#define TITER_RED_CHUNK 1024     /* reduced rows per chunk partial (outer) */
#define TITER_RED_TILE_BYTES 65536 /* accumulators per tile row (outer): the tile width
                                   * changes which outputs share a pass, never a value */
#define TITER_RED_LEAF 16        /* rows taken in order before the cascade (outer) */
#define TITER_RED_LEVELS 16      /* cascade depth inside one chunk: log2(CHUNK/LEAF) + 1 < 16 */
#define TITER_SCAN_TILE 1024
#define TITER_ACC_MAX 16
#define TITER_FPE_MASK (FE_DIVBYZERO | FE_OVERFLOW | FE_UNDERFLOW | FE_INVALID)
/* Bytes per GCC vector in the kits' contiguous leaves: one register of
 * the translation unit's instruction set (kits compile once per ISA level). */
#ifdef __AVX__
#define TITER_RED_VB 32
#else
#define TITER_RED_VB 16
#endif
#define TITER_RED_PREFETCH 256  /* bytes ahead of the vector leaves' reads */

typedef struct {
    int ndim;
    int64_t shape[TITER_RED_MAXDIMS];
    int64_t stride[TITER_RED_MAXDIMS];   /* input bytes, dim 0 fastest */
} titer_rdims;

typedef struct {
    int acc_size;
    int split;    /* pairwise halves fall on multiples of this (its accumulator count) */
    void (*pairwise)(const char *p, int64_t s, int64_t n, void *acc);   /* n >= 1 */
    void (*fold)(const char *p, int64_t s, int64_t n, void *acc);       /* acc op= x[i], in order */
    void (*combine)(void *a, const void *b);                            /* a = a op b */
    void (*combine_vec)(void *a, const void *b, int64_t w);
    void (*outer)(const char *base, int64_t es, int64_t w, const titer_rdims *rd,
                  int64_t i0, int64_t i1, int64_t leaf_rows, void *acc, void *scratch);
    void (*load)(void *acc, const char *x);          /* from the input type */
    void (*load_out)(void *acc, const char *x);      /* from the output type (initial values) */
    void (*store)(char *out, const void *acc);       /* to the output type */
    void (*scan)(char *out, int64_t os, const char *in, int64_t is, int64_t n);
} titer_reduce_kit;

/* One kit per (op, signature): the table an instruction-set build exports. */
typedef struct { const char *op; const char *sig; const titer_reduce_kit *kit; } titer_kit_entry;

/* Offset of linear index i over rd's dims (from `first`), with its multi-index. */
static inline int64_t titer_rdims_offset(const titer_rdims *rd, int first, int64_t i,
                                         int64_t *idx) {
    int64_t off = 0;
    for (int d = first; d < rd->ndim; d++) {
        int64_t v = i % rd->shape[d];
        i /= rd->shape[d];
        if (idx) idx[d] = v;
        off += v * rd->stride[d];
    }
    return off;
}

static inline const char *titer_rdims_start(const titer_rdims *rd, const char *base,
                                            int64_t i, int64_t *idx) {
    return base + titer_rdims_offset(rd, 0, i, idx);
}

static inline const char *titer_rdims_next(const titer_rdims *rd, const char *p, int64_t *idx) {
    for (int d = 0; d < rd->ndim; d++) {
        p += rd->stride[d];
        if (++idx[d] < rd->shape[d]) return p;
        p -= idx[d] * rd->stride[d];
        idx[d] = 0;
    }
    return p;
}

/* Binary-counter cascade of scalar partials: level l holds 2^l partials;
 * earlier partials are always the left operand. */
typedef struct {
    uint64_t occupied;
    char stack[64][TITER_ACC_MAX];
} titer_cascade;

static inline void titer_cascade_push(titer_cascade *c, const titer_reduce_kit *k,
                                      const void *v) {
    char cur[TITER_ACC_MAX];
    int level = 0;
    memcpy(cur, v, (size_t)k->acc_size);
    while ((c->occupied >> level) & 1) {
        k->combine(c->stack[level], cur);
        memcpy(cur, c->stack[level], (size_t)k->acc_size);
        c->occupied &= ~(1ull << level);
        level++;
    }
    memcpy(c->stack[level], cur, (size_t)k->acc_size);
    c->occupied |= 1ull << level;
}

static inline void titer_cascade_result(const titer_cascade *c, const titer_reduce_kit *k,
                                        void *out) {
    int first = 1;
    for (int level = 63; level >= 0; level--) {
        if (!((c->occupied >> level) & 1)) continue;
        if (first) memcpy(out, c->stack[level], (size_t)k->acc_size);
        else k->combine(out, c->stack[level]);
        first = 0;
    }
}

typedef struct {
    const titer_reduce_kit *kit;
    const char *in;
    char *out;
    titer_rdims rd;                      /* reduced dims */
    titer_rdims kd;                      /* kept dims (input strides) */
    int64_t kout[TITER_RED_MAXDIMS];     /* kept dims, output strides */
    int64_t nred, nout;
    int has_init;
    int init_given;                      /* initial= (not the identity: 0 + x and 1 * x
                                            are x, so only a given one must come first) */
    int ordered;                         /* NumPy's in-order left fold (see _frontend.folds_in_order) */
    int rows_in_order;                   /* NumPy adds rows in order: an outer layout's
                                            (its elementwise row loop: no chunks, one leaf)
                                            and an inner layout's row sums */
    char init[TITER_ACC_MAX];            /* combined first: identity or initial */
    const char *mask;                    /* where= of a fold from initial= (NULL: none), */
    int64_t mred[TITER_RED_MAXDIMS];     /* its strides along rd's dims */
    int64_t mkept[TITER_RED_MAXDIMS];    /* and along kd's */
} titer_reduction;

static inline int64_t titer_min64(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t titer_abs64(int64_t a) { return a < 0 ? -a : a; }

static inline void titer_red_finish(const titer_reduction *r, char *out, const void *acc) {
    if (r->has_init) {
        char tmp[TITER_ACC_MAX];
        memcpy(tmp, r->init, (size_t)r->kit->acc_size);
        r->kit->combine(tmp, acc);
        r->kit->store(out, tmp);
    } else {
        r->kit->store(out, acc);
    }
}

static inline void titer_red_kept(const titer_reduction *r, int first, int64_t j,
                                  int64_t *in_off, int64_t *out_off) {
    int64_t a = 0, b = 0;
    for (int d = first; d < r->kd.ndim; d++) {
        int64_t v = j % r->kd.shape[d];
        j /= r->kd.shape[d];
        a += v * r->kd.stride[d];
        b += v * r->kout[d];
    }
    *in_off = a;
    *out_off = b;
}

/* -- inner layout: leaves of the reduced range ------------------------------ */

/* A row of n0 > TITER_RED_PIECE elements is cut into the subtrees of NumPy's
 * pairwise recursion (halves at multiples of the kit's split) that hold at
 * most TITER_RED_PIECE elements; starts[] lists their first elements, then n0.
 * Shorter rows are leaves of `group` whole rows each. */
typedef struct { int64_t n0, nrows, per_row, group, nleaves, split; int64_t *starts; } titer_leaves;

static inline int64_t titer_pw_half(int64_t n, int64_t split) {
    int64_t h = n / 2;
    return h - h % split;
}

/* Numbers the leaves of [start, start + n) -- the subtrees of at most
 * `piece` elements -- from `count` on, recording their starts when `starts`
 * is given; returns the count after them. */
static int64_t titer_pw_cut(int64_t start, int64_t n, int64_t split, int64_t piece,
                            int64_t *starts, int64_t count) {
    if (n <= piece) {
        if (starts) starts[count] = start;
        return count + 1;
    }
    int64_t h = titer_pw_half(n, split);
    count = titer_pw_cut(start, h, split, piece, starts, count);
    return titer_pw_cut(start + h, n - h, split, piece, starts, count);
}

/* The partials of titer_pw_cut's leaves over n elements (acc_size bytes
 * each, from *leaf on) combined in its tree into acc. */
static void titer_pw_join(const titer_reduce_kit *k, const char *partials, int64_t n,
                          int64_t split, int64_t piece, int64_t *leaf, void *acc) {
    if (n <= piece) {
        memcpy(acc, partials + (*leaf)++ * k->acc_size, (size_t)k->acc_size);
        return;
    }
    char right[TITER_ACC_MAX];
    int64_t h = titer_pw_half(n, split);
    titer_pw_join(k, partials, h, split, piece, leaf, acc);
    titer_pw_join(k, partials, n - h, split, piece, leaf, right);
    k->combine(acc, right);
}

/* Returns -1 when the leaf starts cannot be allocated; titer_free_leaves after. */
static inline int titer_inner_leaves(const titer_reduction *r, titer_leaves *g) {
    g->n0 = r->rd.shape[0];
    g->nrows = r->nred / g->n0;
    g->split = r->kit->split;
    g->starts = NULL;
    if (g->n0 > TITER_RED_PIECE) {
        g->per_row = titer_pw_cut(0, g->n0, g->split, TITER_RED_PIECE, NULL, 0);
        g->starts = (int64_t *)titer_reduce_alloc(sizeof(int64_t) * (size_t)(g->per_row + 1));
        if (!g->starts) return -1;
        titer_pw_cut(0, g->n0, g->split, TITER_RED_PIECE, g->starts, 0);
        g->starts[g->per_row] = g->n0;
        g->group = 1;
        g->nleaves = g->nrows * g->per_row;
    } else {
        g->per_row = 1;
        /* rows added in order (NumPy's): one row a leaf, leaves folded in turn */
        g->group = r->rows_in_order ? 1 : TITER_RED_PIECE / g->n0;
        g->nleaves = (g->nrows + g->group - 1) / g->group;
    }
    return 0;
}

static inline void titer_free_leaves(titer_leaves *g) { free(g->starts); }

static void titer_inner_leaf(const titer_reduction *r, const titer_leaves *g,
                             const char *base, int64_t leaf, void *acc) {
    const titer_reduce_kit *k = r->kit;
    int64_t s0 = r->rd.stride[0];
    if (g->n0 > TITER_RED_PIECE) {
        int64_t row = leaf / g->per_row, piece = leaf % g->per_row;
        const char *p = base + titer_rdims_offset(&r->rd, 1, row, NULL) + g->starts[piece] * s0;
        k->pairwise(p, s0, g->starts[piece + 1] - g->starts[piece], acc);
        return;
    }
    int64_t row0 = leaf * g->group, row1 = titer_min64(row0 + g->group, g->nrows);
    if (row1 - row0 == 1) {
        k->pairwise(base + titer_rdims_offset(&r->rd, 1, row0, NULL), s0, g->n0, acc);
        return;
    }
    titer_cascade c;
    char tmp[TITER_ACC_MAX];
    int64_t idx[TITER_RED_MAXDIMS];
    titer_rdims rows = r->rd;          /* the row dims alone, walked in order */
    rows.ndim = r->rd.ndim - 1;
    memmove(rows.shape, r->rd.shape + 1, sizeof(int64_t) * (size_t)rows.ndim);
    memmove(rows.stride, r->rd.stride + 1, sizeof(int64_t) * (size_t)rows.ndim);
    const char *p = titer_rdims_start(&rows, base, row0, idx);
    c.occupied = 0;
    for (int64_t row = row0; row < row1; row++) {
        k->pairwise(p, s0, g->n0, tmp);
        titer_cascade_push(&c, k, tmp);
        p = titer_rdims_next(&rows, p, idx);
    }
    titer_cascade_result(&c, k, acc);
}

/* A leaf's partial: computed here (partials NULL) or read from
 * partials[leaf] (acc_size bytes each). */
static inline void titer_leaf_value(const titer_reduction *r, const titer_leaves *g,
                                    const char *base, const char *partials, int64_t leaf,
                                    void *acc) {
    if (partials)
        memcpy(acc, partials + leaf * r->kit->acc_size, (size_t)r->kit->acc_size);
    else
        titer_inner_leaf(r, g, base, leaf, acc);
}

/* The partials of one row's leaves, from *leaf on, combined in the pairwise
 * tree of titer_pw_cut over n elements. */
static void titer_pw_combine(const titer_reduction *r, const titer_leaves *g, const char *base,
                             const char *partials, int64_t n, int64_t *leaf, void *acc) {
    if (partials) {
        titer_pw_join(r->kit, partials, n, g->split, TITER_RED_PIECE, leaf, acc);
        return;
    }
    if (n <= TITER_RED_PIECE) {
        titer_leaf_value(r, g, base, partials, (*leaf)++, acc);
        return;
    }
    char right[TITER_ACC_MAX];
    int64_t h = titer_pw_half(n, g->split);
    titer_pw_combine(r, g, base, partials, h, leaf, acc);
    titer_pw_combine(r, g, base, partials, n - h, leaf, right);
    r->kit->combine(acc, right);
}

/* Whether rows added in order start from initial= (NumPy's output holds
 * it before the first row's sum is added: (init + s0) + s1, where adding
 * it last gives init + (s0 + s1)); a single row's sum is added to it
 * either way. */
static inline int titer_rows_from_init(const titer_reduction *r, const titer_leaves *g) {
    return r->rows_in_order && r->init_given && g->nleaves > 1;
}

/* One output's leaves (computed, or read from its partials) combined:
 * the rows' pairwise trees, then the rows' cascade in index order (rows in
 * order: each row's sum added in turn, from initial= where
 * titer_rows_from_init; titer_inner_finish stores the result). */
static void titer_inner_combine(const titer_reduction *r, const titer_leaves *g,
                                const char *base, const char *partials, void *acc) {
    if (g->nleaves == 1) {
        titer_leaf_value(r, g, base, partials, 0, acc);
        return;
    }
    titer_cascade c;
    char tmp[TITER_ACC_MAX];
    int64_t leaf = 0;
    c.occupied = 0;
    while (leaf < g->nleaves) {
        int first = leaf == 0;
        if (g->n0 > TITER_RED_PIECE)
            titer_pw_combine(r, g, base, partials, g->n0, &leaf, tmp);
        else
            titer_leaf_value(r, g, base, partials, leaf++, tmp);
        if (!r->rows_in_order) {
            titer_cascade_push(&c, r->kit, tmp);
        } else if (first && !titer_rows_from_init(r, g)) {
            memcpy(acc, tmp, (size_t)r->kit->acc_size);   /* NumPy adds each row's */
        } else {                                          /* sum to the output in turn */
            if (first)
                memcpy(acc, r->init, (size_t)r->kit->acc_size);
            r->kit->combine(acc, tmp);
        }
    }
    if (!r->rows_in_order)
        titer_cascade_result(&c, r->kit, acc);
}

/* The output of titer_inner_combine's acc: the start value added last
 * (titer_red_finish) unless the rows started from it. */
static inline void titer_inner_finish(const titer_reduction *r, const titer_leaves *g,
                                      char *out, const void *acc) {
    if (titer_rows_from_init(r, g))
        r->kit->store(out, acc);
    else
        titer_red_finish(r, out, acc);
}

static void titer_inner_outputs(const titer_reduction *r, const titer_leaves *g,
                                int64_t j0, int64_t j1) {
    char acc[TITER_ACC_MAX];
    for (int64_t j = j0; j < j1; j++) {
        int64_t in_off, out_off;
        titer_red_kept(r, 0, j, &in_off, &out_off);
        titer_inner_combine(r, g, r->in + in_off, NULL, acc);
        titer_inner_finish(r, g, r->out + out_off, acc);
    }
}

/* -- outer layout: tiles of outputs, chunks of rows ------------------------- */

typedef struct { int64_t k0, w, per_line, ntiles, nchunks, chunk_rows, leaf_rows; } titer_tiles;

static inline titer_tiles titer_outer_tiles(const titer_reduction *r, int nthreads) {
    titer_tiles t;
    t.k0 = r->kd.shape[0];
    /* whole lines where they fit: row segments of a few KB defeat the
     * prefetcher; threads split chunks of rows instead (mode 2) */
    t.w = titer_min64(t.k0, TITER_RED_TILE_BYTES / r->kit->acc_size);
    if (r->rows_in_order && nthreads > 1 && r->nout / t.k0 < 4 * nthreads) {
        /* rows cannot be split: threads split the line into tiles of >= 4 KB */
        int64_t narrow = (t.k0 + 4 * nthreads - 1) / (4 * nthreads);
        int64_t least = 4096 / r->kit->acc_size;
        t.w = titer_min64(t.w, narrow > least ? narrow : least);
    }
    t.per_line = (t.k0 + t.w - 1) / t.w;
    t.ntiles = t.per_line * (r->nout / t.k0);
    t.chunk_rows = r->rows_in_order ? (r->nred > 0 ? r->nred : 1) : TITER_RED_CHUNK;
    t.leaf_rows = r->rows_in_order ? INT64_MAX : TITER_RED_LEAF;
    t.nchunks = (r->nred + t.chunk_rows - 1) / t.chunk_rows;
    return t;
}

static inline int64_t titer_tile_at(const titer_reduction *r, const titer_tiles *t,
                                    int64_t tile, const char **in, char **out) {
    int64_t in_off, out_off, k = (tile % t->per_line) * t->w;
    titer_red_kept(r, 1, tile / t->per_line, &in_off, &out_off);   /* the line, over dims 1.. */
    *in = r->in + in_off + k * r->kd.stride[0];
    *out = r->out + out_off + k * r->kout[0];
    return titer_min64(t->w, t->k0 - k);
}

static void titer_outer_chunk(const titer_reduction *r, const titer_tiles *t, int64_t tile,
                              int64_t chunk, void *acc, void *scratch) {
    const char *in;
    char *out;
    int64_t w = titer_tile_at(r, t, tile, &in, &out);
    int64_t i0 = chunk * t->chunk_rows;
    r->kit->outer(in, r->kd.stride[0], w, &r->rd, i0,
                  titer_min64(i0 + t->chunk_rows, r->nred), t->leaf_rows, acc, scratch);
}

static int titer_levels_for(int64_t n) {
    int levels = 1;
    while (n > 1) { n >>= 1; levels++; }
    return levels + 1;
}

/* Cascade chunk partials (w each, `stride` bytes apart) and store the tile. */
static void titer_outer_finish(const titer_reduction *r, const titer_tiles *t, int64_t tile,
                               char *partials, int64_t pstride, char *stack, char *acc) {
    const titer_reduce_kit *k = r->kit;
    const char *in;
    char *out;
    int64_t w = titer_tile_at(r, t, tile, &in, &out);
    size_t row = (size_t)w * (size_t)k->acc_size;
    const char *result = partials;
    if (t->nchunks > 1) {
        uint64_t occupied = 0;
        for (int64_t c = 0; c < t->nchunks; c++) {
            const char *cur = partials + c * pstride;
            int level = 0;
            while ((occupied >> level) & 1) {
                char *slot = stack + (size_t)level * row;
                k->combine_vec(slot, cur, w);
                cur = slot;
                occupied &= ~(1ull << level);
                level++;
            }
            char *dst = stack + (size_t)level * row;
            if (dst != cur) memcpy(dst, cur, row);
            occupied |= 1ull << level;
        }
        int first = 1;
        for (int level = 63; level >= 0; level--) {
            if (!((occupied >> level) & 1)) continue;
            if (first) memcpy(acc, stack + (size_t)level * row, row);
            else k->combine_vec(acc, stack + (size_t)level * row, w);
            first = 0;
        }
        result = acc;
    }
    for (int64_t j = 0; j < w; j++)
        titer_red_finish(r, out + j * r->kout[0], result + (size_t)j * (size_t)k->acc_size);
}

/* One thread's memory for titer_outer_tiles_run. */
static inline size_t titer_outer_tiles_bytes(const titer_reduction *r, const titer_tiles *t) {
    size_t row = (size_t)t->w * (size_t)r->kit->acc_size;
    return row * ((size_t)t->nchunks + 1 + TITER_RED_LEVELS
                  + (size_t)titer_levels_for(t->nchunks) + 1);
}

/* Tiles [t0, t1) with `mem`, this thread's titer_outer_tiles_bytes. */
static void titer_outer_tiles_run(const titer_reduction *r, const titer_tiles *t,
                                  int64_t t0, int64_t t1, char *mem) {
    size_t row = (size_t)t->w * (size_t)r->kit->acc_size;
    int levels = titer_levels_for(t->nchunks);
    char *scratch = mem;
    char *partials = scratch + row * (1 + TITER_RED_LEVELS);
    char *stack = partials + row * (size_t)t->nchunks;
    char *acc = stack + row * (size_t)levels;
    for (int64_t tile = t0; tile < t1; tile++) {
        for (int64_t c = 0; c < t->nchunks; c++)
            titer_outer_chunk(r, t, tile, c, partials + (size_t)c * row, scratch);
        titer_outer_finish(r, t, tile, partials, (int64_t)row, stack, acc);
    }
}

/* -- in-order fold (ops NumPy does not reorder; one reduced dim) ------------ */

static void titer_fold_outputs(const titer_reduction *r, int64_t j0, int64_t j1) {
    char acc[TITER_ACC_MAX];
    int64_t s = r->rd.stride[0], n = r->rd.shape[0];
    int64_t rows = r->nred / n;         /* the slower reduced dims, in the plan's order */
    for (int64_t j = j0; j < j1; j++) {
        int64_t in_off, out_off;
        titer_red_kept(r, 0, j, &in_off, &out_off);
        for (int64_t row = 0; row < rows; row++) {
            int64_t off = in_off, k = row;
            for (int d = 1; d < r->rd.ndim; d++) {
                off += (k % r->rd.shape[d]) * r->rd.stride[d];
                k /= r->rd.shape[d];
            }
            const char *p = r->in + off;
            if (row > 0) {
                r->kit->fold(p, s, n, acc);
            } else if (r->has_init) {
                memcpy(acc, r->init, (size_t)r->kit->acc_size);
                r->kit->fold(p, s, n, acc);
            } else {
                r->kit->load(acc, p);
                r->kit->fold(p + s, s, n - 1, acc);
            }
        }
        r->kit->store(r->out + out_off, acc);
    }
}

/* NumPy's where= fold of an op without an identity: from initial=, the
 * selected elements of each output's reduced range, in order. */
static void titer_fold_masked(const titer_reduction *r, int64_t j0, int64_t j1) {
    char acc[TITER_ACC_MAX];
    int64_t s = r->rd.stride[0], ms = r->mred[0], n = r->rd.shape[0];
    int64_t rows = r->nred / n;
    for (int64_t j = j0; j < j1; j++) {
        int64_t in_off, out_off, mask_off = 0, k = j;
        titer_red_kept(r, 0, j, &in_off, &out_off);
        for (int d = 0; d < r->kd.ndim; d++) {
            mask_off += (k % r->kd.shape[d]) * r->mkept[d];
            k /= r->kd.shape[d];
        }
        memcpy(acc, r->init, (size_t)r->kit->acc_size);
        for (int64_t row = 0; row < rows; row++) {
            int64_t off = in_off, moff = mask_off, q = row;
            for (int d = 1; d < r->rd.ndim; d++) {
                off += (q % r->rd.shape[d]) * r->rd.stride[d];
                moff += (q % r->rd.shape[d]) * r->mred[d];
                q /= r->rd.shape[d];
            }
            for (int64_t i = 0; i < n; i++)
                if (r->mask[moff + i * ms]) r->kit->fold(r->in + off + i * s, s, 1, acc);
        }
        r->kit->store(r->out + out_off, acc);
    }
}

/* -- the driver -------------------------------------------------------------- */

/* Run `body` on units [first, last) of [0, units): all of them on the
 * calling thread when the team is one thread, else in the team's pieces,
 * claimed dynamically, each piece timed and its FP flags kept
 * (NOTE: [busy machines] in titer_threads.h).  The body is the last
 * argument (commas and all). */
#define TITER_TEAM_FOR(team, units, first, last, ...)                               \
    if ((team)->size <= 1) {                                                        \
        int64_t first = 0, last = (units);                                          \
        int team_slot_ = 0;                                                         \
        (void)team_slot_;                                                           \
        __VA_ARGS__;                                                                \
    } else {                                                                        \
        int64_t npieces_ = (team)->pieces = titer_min64((team)->pieces, (units));   \
        int nthreads_ = (team)->size;                                               \
        _Pragma("omp parallel for schedule(dynamic, 1) num_threads(nthreads_)")     \
        for (int64_t piece_ = 0; piece_ < npieces_; piece_++) {                     \
            int64_t first = piece_ * (units) / npieces_;                            \
            int64_t last = (piece_ + 1) * (units) / npieces_;                       \
            int64_t began_ = titer_piece_begin();                                   \
            int team_slot_ = titer_thread_num();    /* < the team's size */         \
            (void)team_slot_;                                                       \
            titer_clear_fp_flags(TITER_FPE_MASK);                                   \
            __VA_ARGS__;                                                            \
            titer_piece_end((team), began_, fetestexcept(TITER_FPE_MASK));          \
        }                                                                           \
    }

static inline int titer_kept_dim_fastest(const titer_reduction *r) {
    return r->kd.ndim >= 1 && titer_abs64(r->kd.stride[0]) < titer_abs64(r->rd.stride[0]);
}

/* The per-output left fold, from the initial value when there is one:
 * reductions NumPy does not reorder, and in-order outer layouts that start
 * from initial= (NumPy's row loop adds the first row to it). */
static inline int titer_reduce_folds(const titer_reduction *r) {
    if (r->mask) return 1;
    if (r->ordered && (r->init_given || !r->rows_in_order)) return 1;
    if (r->rows_in_order && r->init_given && titer_kept_dim_fastest(r)) return 1;
    return r->ordered && !titer_kept_dim_fastest(r);
}

static inline int titer_reduce_is_outer(const titer_reduction *r) {
    /* an in-order outer layout is one whatever its width (NumPy's iterator
     * hands its elementwise loop rows of the fastest kept dim) */
    return !titer_reduce_folds(r) && titer_kept_dim_fastest(r)
           && (r->kd.shape[0] >= 4 || r->rows_in_order);
}

/* Outer layout, few tiles and many chunks: every (tile, chunk) partial in
 * parallel, then each tile's cascade.  Returns -1 when memory ran out. */
static int titer_outer_chunks_run(const titer_reduction *r, const titer_tiles *t,
                                  titer_team *team) {
    size_t row = (size_t)t->w * (size_t)r->kit->acc_size;
    int64_t units = t->ntiles * t->nchunks;
    size_t scratch_bytes = row * (1 + TITER_RED_LEVELS);
    size_t slots = (size_t)(team->size > 1 ? team->size : 1);
    int levels = titer_levels_for(t->nchunks);
    /* partials, every thread's scratch and the cascade's stack, at once */
    char *partials = (char *)titer_reduce_alloc(row * (size_t)units + scratch_bytes * slots
                                                + row * ((size_t)levels + 1));
    if (!partials) return -1;
    char *scratch0 = partials + row * (size_t)units;
    char *stack = scratch0 + scratch_bytes * slots;
    TITER_TEAM_FOR(team, units, u0, u1, {
        char *scratch = scratch0 + (size_t)team_slot_ * scratch_bytes;
        for (int64_t u = u0; u < u1; u++)
            titer_outer_chunk(r, t, u / t->nchunks, u % t->nchunks,
                              partials + (size_t)u * row, scratch);
    })
    for (int64_t tile = 0; tile < t->ntiles; tile++)
        titer_outer_finish(r, t, tile, partials + (size_t)tile * t->nchunks * row,
                           (int64_t)row, stack, stack + row * (size_t)levels);
    free(partials);
    return 0;
}

/* Inner layout, few outputs and many leaves: every (output, leaf) partial
 * in parallel, then each output's combine. */
static int titer_inner_leaves_run(const titer_reduction *r, const titer_leaves *g,
                                  titer_team *team) {
    size_t sz = (size_t)r->kit->acc_size;
    int64_t units = r->nout * g->nleaves;
    char *partials = (char *)titer_reduce_alloc(sz * (size_t)units);
    if (!partials) return -1;
    TITER_TEAM_FOR(team, units, u0, u1, {
        for (int64_t u = u0; u < u1; u++) {
            int64_t in_off, out_off;
            titer_red_kept(r, 0, u / g->nleaves, &in_off, &out_off);
            titer_inner_leaf(r, g, r->in + in_off, u % g->nleaves, partials + (size_t)u * sz);
        }
    })
    for (int64_t j = 0; j < r->nout; j++) {
        char acc[TITER_ACC_MAX];
        int64_t in_off, out_off;
        titer_inner_combine(r, g, NULL, partials + (size_t)(j * g->nleaves) * sz, acc);
        titer_red_kept(r, 0, j, &in_off, &out_off);
        titer_inner_finish(r, g, r->out + out_off, acc);
    }
    free(partials);
    return 0;
}

/* Runs the reduction (nred >= 1, nout >= 1) on at most `nthreads` threads;
 * returns the FP flags raised, -1 when memory ran out.  Which layout runs
 * is chosen from `nthreads`; a smaller team (titer_team_open) only changes
 * who computes which partial, never a value. */
static int titer_reduce_run(const titer_reduction *r, int nthreads, int64_t grain) {
    titer_team team;
    int status = 0;
    titer_clear_fp_flags(TITER_FPE_MASK);
    if ((double)r->nred * (double)r->nout < (double)grain) nthreads = 1;
    if (titer_reduce_folds(r)) {
        titer_team_open(&team, nthreads, r->nout);
        TITER_TEAM_FOR(&team, r->nout, j0, j1,
                       r->mask ? titer_fold_masked(r, j0, j1) : titer_fold_outputs(r, j0, j1))
    } else if (titer_reduce_is_outer(r)) {
        titer_tiles t = titer_outer_tiles(r, nthreads);
        if (nthreads == 1 || t.ntiles >= 4 * nthreads || t.nchunks < t.ntiles * nthreads) {
            /* every thread's memory before any thread writes an output */
            titer_team_open(&team, nthreads, t.ntiles);
            size_t per = titer_outer_tiles_bytes(r, &t);
            char *mem = (char *)titer_reduce_alloc(per * (size_t)(team.size > 1 ? team.size : 1));
            if (!mem) {
                titer_team_close(&team);
                return -1;
            }
            TITER_TEAM_FOR(&team, t.ntiles, t0, t1,
                           titer_outer_tiles_run(r, &t, t0, t1, mem + (size_t)team_slot_ * per))
            free(mem);
        } else {
            titer_team_open(&team, nthreads, t.ntiles * t.nchunks);
            status = titer_outer_chunks_run(r, &t, &team);
        }
    } else {
        titer_leaves g;
        if (titer_inner_leaves(r, &g) < 0) return -1;
        if (nthreads == 1 || r->nout >= 4 * nthreads || g.nleaves == 1) {
            titer_team_open(&team, nthreads, r->nout);
            TITER_TEAM_FOR(&team, r->nout, j0, j1, titer_inner_outputs(r, &g, j0, j1))
        } else {
            titer_team_open(&team, nthreads, r->nout * g.nleaves);
            status = titer_inner_leaves_run(r, &g, &team);
        }
        titer_free_leaves(&g);
    }
    titer_team_close(&team);
    return status < 0 ? -1 : team.flags | fetestexcept(TITER_FPE_MASK);
}

/* -- scans (np.<op>.accumulate) ---------------------------------------------- */

typedef void (*titer_row_loop)(char **data, const int64_t *strides, int64_t n);
typedef void (*titer_row_cast)(const char *src, int64_t src_stride,
                               char *dst, int64_t dst_stride, int64_t n);

typedef struct {
    const titer_reduce_kit *kit;
    titer_row_loop rowloop;             /* the op's binary 1-d loop, T T -> T */
    titer_row_loop copyloop;            /* identity loop for T */
    titer_row_cast castrow;             /* input type -> T, or NULL when the input is T:
                                           a widening scan converts a tile at a time */
    int64_t tsize;                      /* bytes of one T */
    const char *in;
    char *out;
    int64_t n, is, os;                  /* the scanned axis */
    titer_rdims kd;                     /* every other dim (input strides) */
    int64_t kout[TITER_RED_MAXDIMS];
    int64_t nout;
} titer_scan_plan;

static inline int titer_scan_rowwise(const titer_scan_plan *s) {
    return s->kd.ndim >= 1 && s->kd.shape[0] >= 4
           && titer_abs64(s->kd.stride[0]) < titer_abs64(s->is);
}

static inline void titer_scan_kept(const titer_scan_plan *s, int first, int64_t j,
                                   int64_t *in_off, int64_t *out_off) {
    int64_t a = 0, b = 0;
    for (int d = first; d < s->kd.ndim; d++) {
        int64_t v = j % s->kd.shape[d];
        j /= s->kd.shape[d];
        a += v * s->kd.stride[d];
        b += v * s->kout[d];
    }
    *in_off = a;
    *out_off = b;
}

static void titer_scan_units(const titer_scan_plan *s, int rowwise, int64_t u0, int64_t u1) {
    if (!rowwise) {
        for (int64_t j = u0; j < u1; j++) {
            int64_t in_off, out_off;
            titer_scan_kept(s, 0, j, &in_off, &out_off);
            s->kit->scan(s->out + out_off, s->os, s->in + in_off, s->is, s->n);
        }
        return;
    }
    int64_t k0 = s->kd.shape[0];
    int64_t per_line = (k0 + TITER_SCAN_TILE - 1) / TITER_SCAN_TILE;
    _Alignas(64) char buf[TITER_SCAN_TILE * 16];     /* a tile of T, castrow only */
    for (int64_t u = u0; u < u1; u++) {
        int64_t in_off, out_off, k = (u % per_line) * TITER_SCAN_TILE;
        int64_t w = titer_min64(TITER_SCAN_TILE, k0 - k);
        titer_scan_kept(s, 1, u / per_line, &in_off, &out_off);
        const char *in = s->in + in_off + k * s->kd.stride[0];
        char *out = s->out + out_off + k * s->kout[0];
        char *data[3];
        int64_t strides[3];
        if (s->castrow) {
            s->castrow(in, s->kd.stride[0], out, s->kout[0], w);
        } else {
            data[0] = out; data[1] = (char *)in;
            strides[0] = s->kout[0]; strides[1] = s->kd.stride[0];
            s->copyloop(data, strides, w);
        }
        strides[0] = strides[1] = s->kout[0];
        for (int64_t i = 1; i < s->n; i++) {
            data[0] = out + i * s->os;
            data[1] = out + (i - 1) * s->os;
            data[2] = (char *)in + i * s->is;
            strides[2] = s->kd.stride[0];
            if (s->castrow) {
                /* a narrower input: this row's tile converted into a buffer
                   of T, never the whole input */
                s->castrow(data[2], strides[2], buf, s->tsize, w);
                data[2] = buf;
                strides[2] = s->tsize;
            }
            s->rowloop(data, strides, w);
        }
    }
}

static int titer_scan_run(const titer_scan_plan *s, int nthreads, int64_t grain) {
    titer_team team;
    int rowwise = titer_scan_rowwise(s);
    int64_t units;
    titer_clear_fp_flags(TITER_FPE_MASK);
    if (rowwise) {
        int64_t k0 = s->kd.shape[0];
        units = (k0 + TITER_SCAN_TILE - 1) / TITER_SCAN_TILE * (s->nout / k0);
    } else {
        units = s->nout;
    }
    if ((double)s->n * (double)s->nout < (double)grain || units < 2) nthreads = 1;
    titer_team_open(&team, nthreads, units);
    TITER_TEAM_FOR(&team, units, u0, u1, titer_scan_units(s, rowwise, u0, u1))
    titer_team_close(&team);
    return team.flags | fetestexcept(TITER_FPE_MASK);
}

#endif
