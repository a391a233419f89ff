# titer.api (issue 25): TensorIterator for kernel authors.  A downstream
# Cython module writes only a 2-d loop; a built TensorIterator brings the
# broadcasting, dtype checks and casts, reordering, coalescing and threads.
# This file is the implementation; titer/api.pyx and api.pxd are what
# another package cimports (`from titer.api cimport loop2d_t, for_each`).
#
# The loop is run by the same walk as titer's own plans: serial_for_each's
# DimCounter calls loop2d, which hands each 2-d block to the author's loop
# (Plan.user_loop), or, for an iterator whose operands need casting or
# staging, buffered_row hands it converted blocks of one row.

from cpython.pycapsule cimport PyCapsule_New


cdef int run_user_plan(const Plan *plan, int nthreads, int64_t grain) noexcept nogil:
    """for_each's split and teams (NOTE: [busy machines]), without its tiles,
    streaming stores and FP flags, which an author's loop does not have.
    -1: no memory for the staging buffers (nothing run)."""
    cdef titer_team team
    titer_team_open(&team, nthreads, work_units(plan.numel, grain))
    return run_pieces(serial_for_each, plan, plan.numel, &team)


cdef int api_for_each(object iterator, titer_loop2d_fn loop, void *ctx,
                      int64_t grain_size) except -1:
    """titer.api.for_each: run `loop` over every element of a built
    TensorIterator with this titer's threads; grain_size < 0 = titer's
    grain (set_grain_size).  A reduction iterator (outputs revisited across
    elements) runs on one thread: chunks would race on its outputs."""
    cdef TensorIterator it
    cdef Plan plan
    cdef int status
    cdef int nthreads = requested_threads()
    cdef int64_t grain = _grain_size if grain_size < 0 else max(grain_size, <int64_t>1)
    if not isinstance(iterator, TensorIterator):
        raise TypeError("for_each needs a built titer.TensorIterator (IterConfig().build()), "
                        "got %s" % type(iterator).__name__)
    if loop == NULL:
        raise ValueError("for_each: the loop is NULL")
    it = <TensorIterator>iterator
    # a copy per call: the author's loop and context, and none of the paths
    # that drive the 1-d op loop in tiles or through a streaming buffer
    plan = it.plan[0]
    plan.user_loop = loop
    plan.user_ctx = ctx
    plan.tile = 0
    plan.stream_output = False
    if plan.is_reduction:
        nthreads = 1
    if plan.numel == 0:
        return 0
    if plan.numel >= 16384:             # as run_plan: releasing the GIL costs ~0.1-0.2 us
        with nogil:
            status = run_user_plan(&plan, nthreads, grain)
    else:
        status = run_user_plan(&plan, nthreads, grain)
    if status < 0:
        raise MemoryError("titer: no memory for the staging buffers of this call")
    return 0


# what titer/api.pyx calls (a capsule, so that module needs none of this
# one's headers); the name is checked on the way out
_api_for_each = PyCapsule_New(<void *>api_for_each, b"titer.api.for_each", NULL)
