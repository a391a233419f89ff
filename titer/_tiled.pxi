# Cache-blocked execution for plans whose operands disagree on the fastest
# dim (plan_cache_blocking in _build.pxi sets p.tile).  Dims 0 and 1 are
# walked in tile x tile blocks; an operand contiguous along dim 1 is copied
# (inputs) or written back (outputs) through a transposed buffer, so the
# 1-d loop always runs on unit-stride rows and every operand moves in
# cache-line runs.  Work is split over threads by (outer index, tile row).

cdef extern from "titer_tile.h" nogil:
    void titer_transpose(char *dst, int64_t dst_row_bytes, const char *src,
                         int64_t src_row_bytes, int64_t rows, int64_t cols, int itemsize)


cdef void run_tile(const Plan *p, const int64_t *base_offsets, int64_t i0, int64_t n0,
                   int64_t i1, int64_t n1, char *buffers) noexcept nogil:
    """One n0 x n1 tile at (i0, i1).  A transposed operand's tile lives in its
    buffer as n1 rows of n0 contiguous elements."""
    cdef char *ptrs[MAX_OPERANDS]
    cdef char *corner[MAX_OPERANDS]
    cdef char *buf
    cdef int64_t inner[MAX_OPERANDS]
    cdef int t, nt = p.ntensors
    cdef int64_t k
    cdef const Operand *op
    for t in range(nt):
        op = &p.op[t]
        corner[t] = op.data + base_offsets[t] + i0 * op.stride[0] + i1 * op.stride[1]
        inner[t] = op.itemsize if op.transposed else op.stride[0]
        if op.transposed and not op.is_output:
            titer_transpose(buffers + t * 2 * STAGE_BYTES, n0 * op.itemsize, corner[t],
                            op.stride[0], n0, n1, op.itemsize)
    for k in range(n1):
        for t in range(nt):
            op = &p.op[t]
            if op.transposed:
                ptrs[t] = buffers + t * 2 * STAGE_BYTES + k * n0 * op.itemsize
            else:
                ptrs[t] = corner[t] + k * op.stride[1]
        p.loop(ptrs, inner, n0)
    for t in range(p.noutputs):
        op = &p.op[t]
        if op.transposed:
            titer_transpose(corner[t], op.stride[0], buffers + t * 2 * STAGE_BYTES,
                            n0 * op.itemsize, n1, n0, op.itemsize)


cdef void run_tile_rows(const Plan *p, int64_t first, int64_t last, char *stage) noexcept nogil:
    """Work units [first, last): unit u = (outer index u // rows, tile row u % rows)."""
    cdef int64_t rows = (p.shape[1] + p.tile - 1) // p.tile
    cdef int64_t u, outer, row, i0, i1, rem
    cdef int64_t offsets[MAX_OPERANDS]
    cdef int t, d
    cdef char *buffers = stage          # this thread's (run_pieces)
    for u in range(first, last):
        outer = u // rows
        row = u % rows
        for t in range(p.ntensors):             # the outer dims' offset
            offsets[t] = 0
            rem = outer
            for d in range(2, p.ndim):
                offsets[t] += (rem % p.shape[d]) * p.op[t].stride[d]
                rem = rem // p.shape[d]
        i1 = row * p.tile
        i0 = 0
        while i0 < p.shape[0]:
            run_tile(p, offsets, i0, min(<int64_t>p.tile, p.shape[0] - i0),
                     i1, min(<int64_t>p.tile, p.shape[1] - i1), buffers)
            i0 += p.tile


cdef int for_each_tiled(const Plan *p, int64_t grain, int nthreads) noexcept nogil:
    cdef int64_t rows = (p.shape[1] + p.tile - 1) // p.tile
    cdef int64_t units = rows * (p.numel // (p.shape[0] * p.shape[1]))
    cdef titer_team team
    titer_clear_fp_flags(FPE_MASK)
    titer_team_open(&team, nthreads, min(work_units(p.numel, grain), units))
    return run_pieces(run_tile_rows, p, units, &team)
