# titer's core: the iterator (build steps of seed 000/001/003), its nogil
# execution (for_each / DimCounter / loop2d) and the elementwise entry point.
# The module is split into .pxi files by job; they share one C namespace.
import os
import warnings

import numpy as np
cimport cython
cimport numpy as cnp
from cpython.ref cimport PyTypeObject
from libc.stdint cimport int64_t, uintptr_t
from libc.stdlib cimport calloc, free
from cython.parallel cimport prange

from . import _ops

cnp.import_array()

cdef extern from "titer_generated.h" nogil:
    ctypedef struct titer_loop_entry:
        const char *op
        const char *sig
        titer_loop1d fn
    const titer_loop_entry titer_loop_table[]
    const int titer_loop_table_len
    const titer_cast_fn titer_cast_table[NUM_TYPES][NUM_TYPES]
    const titer_loop1d titer_copy_table[NUM_TYPES]

cdef extern from "numpy/arrayobject.h":
    object PyArray_NewFromDescr(PyTypeObject *subtype, cnp.dtype descr, int nd,
                                cnp.npy_intp *dims, cnp.npy_intp *strides, void *data,
                                int flags, object obj)

cdef extern from *:
    """
    int titer_use_fma = 0;   /* see titer_scalar.h */
    static int titer_cpu_has_fma(void) {
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __builtin_cpu_init();
        return __builtin_cpu_supports("fma") && __builtin_cpu_supports("avx2");
    #elif defined(__aarch64__)
        return 1;
    #else
        return 0;
    #endif
    }
    #ifdef _OPENMP
    #include <omp.h>
    #define TITER_HAVE_OPENMP 1
    #else
    #define TITER_HAVE_OPENMP 0
    #endif
    """
    int TITER_HAVE_OPENMP
    int titer_use_fma
    int titer_cpu_has_fma()


titer_use_fma = titer_cpu_has_fma()


# -- dtype codes -----------------------------------------------------------------
# titer's dtype code = index in _ops.TYPECHARS (bool, int8, uint8, ..., complex128).

cdef enum:
    CODE_FLOAT16 = 9
    CODE_COMPLEX64 = 12

cdef const titer_cast_fn (*CAST_TABLE)[NUM_TYPES]
CAST_TABLE = titer_cast_table
cdef int _CODE_OF_TYPENUM[32]
cdef int _ALIGNMENT[NUM_TYPES]
cdef int _ITEMSIZE[NUM_TYPES]
DTYPES = tuple(np.dtype(c) for c in _ops.TYPECHARS)


def _init_dtype_tables():
    cdef int num, code
    for num in range(32):
        _CODE_OF_TYPENUM[num] = -1
    for char in np.typecodes["All"]:
        dt = np.dtype(char)
        for code in range(NUM_TYPES):
            if (dt.num < 32 and DTYPES[code].kind == dt.kind
                    and DTYPES[code].itemsize == dt.itemsize):
                _CODE_OF_TYPENUM[dt.num] = code
    for code in range(NUM_TYPES):
        _ALIGNMENT[code] = DTYPES[code].alignment
        _ITEMSIZE[code] = DTYPES[code].itemsize


_init_dtype_tables()


cdef inline int dtype_code(cnp.dtype descr) except -1:
    cdef int num = descr.type_num
    cdef int code = _CODE_OF_TYPENUM[num] if 0 <= num < 32 else -1
    if code < 0:
        raise TypeError("titer does not support dtype %s (%s); supported: bool, int8-64, "
                        "uint8-64, float16/32/64, complex64/128" % (descr, descr.name))
    return code


cdef inline int alignment_of(int code) noexcept nogil:
    return _ALIGNMENT[code]


# -- threads -----------------------------------------------------------------------

def _default_num_threads():
    for var in ("TITER_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(var, "").split(",")[0].strip()
        if value:
            try:
                n = int(value)
            except ValueError:
                continue
            if n >= 1:
                return n
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


cdef int _num_threads = _default_num_threads() if TITER_HAVE_OPENMP else 1


def set_num_threads(int n):
    """Threads for loops above the grain size (1 = serial)."""
    global _num_threads
    if n < 1:
        raise ValueError("number of threads must be >= 1, got %d" % n)
    _num_threads = n if TITER_HAVE_OPENMP else 1


def get_num_threads():
    return _num_threads


def set_grain_size(int64_t n):
    """Fewest elements a thread is given; below it a loop runs serially."""
    global _grain_size
    if n < 1:
        raise ValueError("grain size must be >= 1, got %d" % n)
    _grain_size = n


def get_grain_size():
    return _grain_size


def _last_level_cache_bytes():
    """Size of the largest CPU cache (sysfs on Linux), 8 MiB if unknown."""
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for entry in os.listdir(base):
            with open(os.path.join(base, entry, "size")) as f:
                text = f.read().strip()
            scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[-1:], 1)
            best = max(best, int(text.rstrip("KMG")) * scale)
    except (OSError, ValueError):
        pass
    return best or 8 * 1024 ** 2


cdef int64_t _stream_min_bytes = _last_level_cache_bytes() // 2


def _set_stream_min_bytes(int64_t n):
    """Outputs of at least n bytes use streaming stores; returns the old
    threshold (tests and benchmarks move it)."""
    global _stream_min_bytes
    old, _stream_min_bytes = _stream_min_bytes, n
    return old


def has_openmp():
    return bool(TITER_HAVE_OPENMP)


include "_layout.pxi"
include "_build.pxi"
include "_execute.pxi"
include "_tiled.pxi"
include "_iterator.pxi"
include "_plan_cache.pxi"
include "_elementwise.pxi"
include "_reduce.pxi"
include "_accumulate.pxi"
include "_copy.pxi"
