# titer's core: the iterator (build steps of seed 000/001/003), its nogil
# execution (for_each / DimCounter / loop2d) and the elementwise entry point.
# The module is split into .pxi files by job; they share one C namespace.
import functools
import itertools
import os
import threading
import warnings

import numpy as np
cimport cython
cimport numpy as cnp
from cpython.ref cimport PyTypeObject
from libc.stdint cimport int64_t, uintptr_t
from libc.stdlib cimport calloc, free
from cython.parallel cimport prange

from . import _frontend, _ops

cnp.import_array()

cdef extern from "titer_generated.h" nogil:
    ctypedef struct titer_loop_entry:
        const char *op
        const char *sig
        titer_loop1d fn
    const titer_loop_entry titer_loop_table[]
    const int titer_loop_table_len
    const titer_loop_entry titer_own_loop_table[]
    const int titer_own_loop_table_len
    const titer_cast_fn titer_cast_table[NUM_TYPES][NUM_TYPES]
    const titer_loop1d titer_copy_table[NUM_TYPES]

cdef extern from "numpy/arrayobject.h":
    object PyArray_NewFromDescr(PyTypeObject *subtype, cnp.dtype descr, int nd,
                                cnp.npy_intp *dims, cnp.npy_intp *strides, void *data,
                                int flags, object obj)

cdef extern from *:
    """
    int titer_use_fma = 0;   /* see titer_scalar.h */
    int titer_half_tables_filled = 0;   /* titer_loops.h NOTE [float16 tables] */
    int titer_half_nextafter_gives_y = 0;   /* titer_scalar.h, from _frontend */
    int titer_vpopcnt_enabled = 0;   /* titer_scalar.h */
    int titer_half_registers_first = 0;   /* titer_loops.h */
    #ifdef TITER_VL
    static const int titer_vector_libm = 1;   /* titer_veclib.h */
    #else
    static const int titer_vector_libm = 0;
    #endif

    #include "titer_reduce.h"

    /* Instruction-set builds of the loops (titer_isa_*.c) and of the
     * reduction kits (titer_kits_*.c): 0 baseline (this translation unit for
     * the loops), 1 AVX2+FMA, 2 AVX-512. */
    const titer_kit_entry *titer_kits_baseline(int *count);
    #ifdef TITER_HAVE_AVX2_TABLES
    const titer_kit_entry *titer_kits_avx2(int *count);
    const titer_loop_entry *titer_loops_avx2(int *count);
    const titer_cast_fn *titer_casts_avx2(void);
    const titer_loop1d *titer_cast_loops_avx2(void);
    const titer_loop1d *titer_copies_avx2(void);
    const titer_loop1d *titer_masked_avx2(void);
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
    const titer_kit_entry *titer_kits_avx512(int *count);
    const titer_loop_entry *titer_loops_avx512(int *count);
    const titer_cast_fn *titer_casts_avx512(void);
    const titer_loop1d *titer_cast_loops_avx512(void);
    const titer_loop1d *titer_copies_avx512(void);
    const titer_loop1d *titer_masked_avx512(void);
    #endif
    static int titer_isa_compiled(int level) {
        switch (level) {
        case 0: return 1;
    #ifdef TITER_HAVE_AVX2_TABLES
        case 1: return 1;
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
        case 2: return 1;
    #endif
        default: return 0;
        }
    }
    static int titer_isa_supported(int level) {
        if (level == 0) return 1;
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __builtin_cpu_init();
        int v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")
                 && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("f16c");
        if (level == 1) return v3;
        if (level == 2) return v3 && __builtin_cpu_supports("avx512f")
                 && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq")
                 && __builtin_cpu_supports("avx512vl");
    #endif
        return 0;
    }
    static const titer_loop_entry *titer_isa_loops(int level, int *count) {
    #ifdef TITER_HAVE_AVX2_TABLES
        if (level == 1) return titer_loops_avx2(count);
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
        if (level == 2) return titer_loops_avx512(count);
    #endif
        *count = titer_loop_table_len;
        return titer_loop_table;
    }
    static const titer_kit_entry *titer_isa_kits(int level, int *count) {
    #ifdef TITER_HAVE_AVX2_TABLES
        if (level == 1) return titer_kits_avx2(count);
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
        if (level == 2) return titer_kits_avx512(count);
    #endif
        return titer_kits_baseline(count);
    }
    static const titer_cast_fn *titer_isa_casts(int level) {
    #ifdef TITER_HAVE_AVX2_TABLES
        if (level == 1) return titer_casts_avx2();
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
        if (level == 2) return titer_casts_avx512();
    #endif
        return &titer_cast_table[0][0];
    }
    static const titer_loop1d *titer_isa_cast_loops(int level) {
    #ifdef TITER_HAVE_AVX2_TABLES
        if (level == 1) return titer_cast_loops_avx2();
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
        if (level == 2) return titer_cast_loops_avx512();
    #endif
        return &titer_cast_loop_table[0][0];
    }
    static const titer_loop1d *titer_isa_copies(int level) {
    #ifdef TITER_HAVE_AVX2_TABLES
        if (level == 1) return titer_copies_avx2();
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
        if (level == 2) return titer_copies_avx512();
    #endif
        return titer_copy_table;
    }
    static const titer_loop1d *titer_isa_masked(int level) {
    #ifdef TITER_HAVE_AVX2_TABLES
        if (level == 1) return titer_masked_avx2();
    #endif
    #ifdef TITER_HAVE_AVX512_TABLES
        if (level == 2) return titer_masked_avx512();
    #endif
        return titer_masked_loop_table;
    }
    static int titer_cpu_has_vpopcnt(void) {
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512vpopcntdq") && __builtin_cpu_supports("avx512bitalg");
    #else
        return 0;
    #endif
    }
    /* NOTE [float16 where gathers are slow] (titer_loops.h): AMD's
     * AVX-512 gathers are microcoded (Zen 4, Zen 5) */
    static int titer_cpu_gathers_slow(void) {
    #if defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
        __builtin_cpu_init();
        return __builtin_cpu_is("amd");
    #else
        return 0;
    #endif
    }
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
    int titer_half_tables_filled
    int titer_half_nextafter_gives_y
    int titer_vpopcnt_enabled
    int titer_half_registers_first
    const int titer_vector_libm
    int titer_cpu_has_fma()
    int titer_cpu_has_vpopcnt()
    int titer_cpu_gathers_slow()
    int titer_isa_compiled(int level)
    int titer_isa_supported(int level)
    const titer_loop_entry *titer_isa_loops(int level, int *count)
    const titer_cast_fn *titer_isa_casts(int level)
    const titer_loop1d *titer_isa_cast_loops(int level)
    const titer_loop1d *titer_isa_copies(int level)
    const titer_loop1d *titer_isa_masked(int level)


titer_use_fma = titer_cpu_has_fma()
titer_vpopcnt_enabled = titer_cpu_has_vpopcnt()
titer_half_registers_first = titer_cpu_gathers_slow()
titer_half_nextafter_gives_y = _frontend.KERNEL_FLAGS["titer_half_nextafter_gives_y"]


def _set_half_nextafter_gives_y(int value):
    """Tests: the float16 nextafter rule of the other NumPy versions
    (_frontend.HALF_NEXTAFTER_GIVES_Y); returns the old value."""
    global titer_half_nextafter_gives_y
    old, titer_half_nextafter_gives_y = titer_half_nextafter_gives_y, value
    return old

def _set_vpopcnt(int value):
    """Tests: the bitwise_count loops of the avx512 level with vector popcnt
    (1, where the CPU has it) or by SWAR steps (0); returns the old value."""
    global titer_vpopcnt_enabled
    old, titer_vpopcnt_enabled = titer_vpopcnt_enabled, value and titer_cpu_has_vpopcnt()
    return old

def _set_half_registers_first(int value):
    """Tests and benchmarks: the float16 loops of NOTE [float16 where gathers
    are slow] (titer_loops.h) in registers (1; AMD's default) or by their
    tables (0; elsewhere); returns the old value."""
    global titer_half_registers_first
    old, titer_half_registers_first = titer_half_registers_first, value
    return old

ISA_LEVELS = ("baseline", "avx2", "avx512")


def _choose_isa_level():
    """The best level compiled in and run by this CPU; TITER_CPU_DISPATCH
    forces one (a level the CPU cannot run falls back, with a warning)."""
    best = max(level for level in range(len(ISA_LEVELS))
               if titer_isa_compiled(level) and titer_isa_supported(level))
    forced = os.environ.get("TITER_CPU_DISPATCH", "").strip().lower()
    if not forced:
        return best
    if forced not in ISA_LEVELS:
        warnings.warn("TITER_CPU_DISPATCH=%r is not one of %s; using %s"
                      % (forced, ", ".join(ISA_LEVELS), ISA_LEVELS[best]), RuntimeWarning)
        return best
    level = ISA_LEVELS.index(forced)
    if not (titer_isa_compiled(level) and titer_isa_supported(level)):
        warnings.warn("TITER_CPU_DISPATCH=%s: %s; using %s" % (
            forced, "not built" if not titer_isa_compiled(level) else "this CPU cannot run it",
            ISA_LEVELS[best]), RuntimeWarning)
        return best
    return level


cdef int _isa_level = _choose_isa_level()
cdef const titer_cast_fn (*CAST_TABLE)[NUM_TYPES]
cdef const titer_loop1d *COPY_TABLE
cdef const titer_loop1d (*CAST_LOOP_TABLE)[NUM_TYPES]
CAST_TABLE = <const titer_cast_fn (*)[NUM_TYPES]>titer_isa_casts(_isa_level)
CAST_LOOP_TABLE = <const titer_loop1d (*)[NUM_TYPES]>titer_isa_cast_loops(_isa_level)
COPY_TABLE = titer_isa_copies(_isa_level)


def isa_levels():
    """{level: (compiled, runnable on this CPU)} and the level in use."""
    return ({ISA_LEVELS[level]: (bool(titer_isa_compiled(level)), bool(titer_isa_supported(level)))
             for level in range(len(ISA_LEVELS))}, ISA_LEVELS[_isa_level])


# -- dtype codes -----------------------------------------------------------------
# titer's dtype code = index in _ops.TYPECHARS (bool, int8, uint8, ..., complex128).

cdef enum:
    CODE_FLOAT16 = 9
    CODE_COMPLEX64 = 12

cdef int _CODE_OF_TYPENUM[32]
cdef int _ALIGNMENT[NUM_TYPES]
cdef int _ITEMSIZE[NUM_TYPES]
DTYPES = tuple(np.dtype(c) for c in _ops.TYPECHARS)
# per code, an integer dtype's (min, max), None for the others
INT_BOUNDS = tuple(_frontend.int_range(dt) if dt.kind in "iu" else None for dt in DTYPES)


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

cdef extern from "titer_threads.h" nogil:
    ctypedef struct titer_team:
        int size
        int flags
        int64_t pieces
        int64_t pieces_ns[64]
        int64_t pieces_run[64]
        int tables_filled
    int titer_usable_cores
    int titer_cores_in_use
    int titer_last_team
    int titer_peak_cores
    int64_t titer_hold_ns
    int64_t titer_credit_ns
    int64_t titer_serial_until_ns
    int64_t titer_hold_max_ns
    int64_t titer_last_judged[6]
    int64_t titer_now_ns()
    int titer_team_open(titer_team *t, int requested, int64_t units)
    int64_t titer_piece_begin()
    void titer_piece_end(titer_team *t, int64_t began, int flags)
    void titer_team_close(titer_team *t)
    void titer_team_judge(const titer_team *t, int64_t elapsed_ns)
    int titer_omp_max_threads()


def _usable_cores():
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def _threads_from_environment():
    """TITER_NUM_THREADS, when it is a count >= 1; else 0."""
    value = os.environ.get("TITER_NUM_THREADS", "").split(",")[0].strip()
    try:
        n = int(value)
    except ValueError:
        return 0
    return n if n >= 1 else 0


# NOTE: [thread count] The threads a call asks for, in scikit-learn's order
# of precedence (its _openmp_effective_n_threads): titer.set_num_threads(n),
# else TITER_NUM_THREADS, else OpenMP's own count in the calling thread,
# omp_get_max_threads(), read at call time, which follows OMP_NUM_THREADS
# and threadpoolctl's threadpool_limits.  A call never runs more threads
# than the usable cores that other running titer calls leave free
# (titer_threads.h), so a huge count is safe.
titer_usable_cores = _usable_cores()
cdef int _env_threads = _threads_from_environment()
cdef int _set_threads = 0               # 0: not set


cdef inline int requested_threads() noexcept nogil:
    if not TITER_HAVE_OPENMP:
        return 1
    if _set_threads > 0:
        return _set_threads
    if _env_threads > 0:
        return _env_threads
    return titer_omp_max_threads()


def set_num_threads(n):
    """Threads for loops above the grain size (1 = serial); None goes back
    to the default (TITER_NUM_THREADS, else OpenMP's count: NOTE [thread
    count]).  Counts above the usable cores run on the usable cores."""
    global _set_threads
    if n is None:
        _set_threads = 0
        return
    if isinstance(n, bool) or not hasattr(type(n), "__index__"):
        raise TypeError("number of threads must be an integer or None, got %r" % (n,))
    n = n.__index__()
    if n < 1:
        raise ValueError("number of threads must be >= 1, got %d" % n)
    _set_threads = min(n, 1 << 20)      # any count is safe; this keeps it a C int


def get_num_threads():
    """The threads a call from this Python thread asks for (NOTE [thread count])."""
    return requested_threads()


def _thread_setting():
    """What set_num_threads stored, None when it was not called (or reset)."""
    return _set_threads or None


def _team_stats():
    """The thread teams' state (NOTE: [busy machines] in titer_threads.h):
    usable cores, cores held by running calls now and at most so far, the
    last team's size, the time left of a hold on threads, the credit, and
    the last judged parallel call (its time, the one-thread estimate, the
    first two threads' time in pieces and piece counts); times in ms."""
    return {"usable cores": titer_usable_cores, "cores in use": titer_cores_in_use,
            "peak cores in use": titer_peak_cores, "last team": titer_last_team,
            "serial hold left (ms)": max(0, titer_serial_until_ns - titer_now_ns()) / 1e6,
            "credit (ms)": titer_credit_ns / 1e6,
            "last judged (ms)": {"elapsed": titer_last_judged[0] / 1e6,
                                 "estimate": titer_last_judged[1] / 1e6,
                                 "thread pieces": [(titer_last_judged[2 + 2 * i] / 1e6,
                                                    titer_last_judged[3 + 2 * i]) for i in range(2)]}}


def _configure_teams(cores=None, hold=True):
    """Tests: let a call have up to `cores` threads (None: the cores of
    this process) and turn the hold after a slow parallel call on or off;
    clears the hold, the peak and the last team."""
    global titer_usable_cores, titer_peak_cores, titer_serial_until_ns, titer_hold_ns
    global titer_last_team, titer_hold_max_ns, titer_credit_ns
    titer_usable_cores = _usable_cores() if cores is None else max(1, int(cores))
    titer_hold_max_ns = 1000000000 if hold else 0
    titer_peak_cores = titer_last_team = 0
    titer_serial_until_ns = titer_hold_ns = 0
    titer_credit_ns = 20000000              # TITER_CREDIT_MAX_NS: as at import


def _reserve_cores(int n):
    """Tests: book n cores (negative: give them back) as a running call would."""
    global titer_cores_in_use
    titer_cores_in_use += n


def _judge_team(double elapsed_ms, threads):
    """Tests: judge a parallel call of len(threads) threads that took
    `elapsed_ms`, thread i having run threads[i] = (ms in pieces, pieces),
    as titer_team_close does (NOTE: [busy machines])."""
    cdef titer_team t
    cdef int i
    if not 1 <= len(threads) <= 64:            # TITER_TEAM_TIMED
        raise ValueError("a team of 1 to 64 threads, not %d" % len(threads))
    t.size = len(threads)
    t.pieces = 0
    t.tables_filled = titer_half_tables_filled     # no float16 table filled meanwhile
    for i, (ms, runs) in enumerate(threads):
        t.pieces_ns[i] = <int64_t>(ms * 1e6)
        t.pieces_run[i] = runs
        t.pieces += runs
    titer_team_judge(&t, <int64_t>(elapsed_ms * 1e6))


def _hold_threads(double ms):
    """Tests: run parallel calls on one thread for the next `ms` milliseconds,
    as after a slow parallel call."""
    global titer_serial_until_ns
    titer_serial_until_ns = titer_now_ns() + <int64_t>(ms * 1e6)


def _thread_source():
    if _set_threads:
        return "titer.set_num_threads"
    if _env_threads:
        return "TITER_NUM_THREADS"
    return "OpenMP's omp_get_max_threads() (OMP_NUM_THREADS, threadpoolctl, else the cores)"


def set_grain_size(int64_t n):
    """Fewest elements a thread is given; below it a loop runs serially."""
    global _grain_size
    if n < 1:
        raise ValueError("grain size must be >= 1, got %d" % n)
    _grain_size = n


def get_grain_size():
    return _grain_size


@functools.lru_cache(maxsize=None)
def _cpu_caches():
    """(level, type, bytes) of cpu0's caches (sysfs on Linux; () if unknown),
    read once: the import asks for three sizes."""
    caches = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = os.listdir(base)
    except OSError:
        entries = []
    for entry in entries:
        try:
            fields = []
            for name in ("level", "type", "size"):
                with open(os.path.join(base, entry, name)) as f:
                    fields.append(f.read().strip())
            level, kind, text = fields
            digits = text.rstrip("KMG")
            # NOTE: no text[-1:] here: wraparound=False makes a negative
            # index undefined in a .pyx (newer Cython warns about it)
            scale = {"K": 1024, "M": 1024 ** 2, "G": 1024 ** 3}.get(text[len(digits):], 1)
            caches.append((int(level), kind, int(digits) * scale))
        except (OSError, ValueError):
            continue                    # not a cache index (uevent, power, ...)
    return tuple(caches)


def _last_level_cache_bytes():
    """Size of the largest CPU cache, 8 MiB if unknown."""
    return max([size for _, _, size in _cpu_caches()] or [8 * 1024 ** 2])


def _l1_data_cache_bytes():
    """Size of the first-level data cache, 32 KiB if unknown."""
    return min([size for level, kind, size in _cpu_caches()
                if level == 1 and kind in ("Data", "Unified")] or [32 * 1024])


def _stream_threshold_bytes():
    """The smallest output written with streaming stores: half the last-level
    cache, but at most 8 MiB per usable core.
    NOTE: [cache share] A VM or a container on a few cores sees its host
    socket's whole L3 (480 MiB on a 2-core Xeon VM) but shares it with the
    other tenants; per core, servers carry 1.5-5 MiB of L3.  There a 128 MiB
    output is not cached between calls (titer.copy ran at DRAM speed, 27-33
    GB/s), and plain stores cost evaluate('2*a + 3*b') on 2^24 float64 31%
    (18.4 ms against 12.6 ms streamed), add 10%."""
    return min(_last_level_cache_bytes() // 2, 8 * 1024 ** 2 * _usable_cores())


cdef int64_t _stream_min_bytes = _stream_threshold_bytes()


def _set_stream_min_bytes(int64_t n):
    """Outputs of at least n bytes use streaming stores; returns the old
    threshold (tests and benchmarks move it)."""
    global _stream_min_bytes
    old, _stream_min_bytes = _stream_min_bytes, n
    return old


def has_openmp():
    return bool(TITER_HAVE_OPENMP)


def has_vector_libm():
    """Whether the transcendental loops call glibc's vector math library
    (titer/src/titer_veclib.h), else titer's own paths and libm."""
    return bool(titer_vector_libm)


include "_layout.pxi"
include "_build.pxi"
include "_execute.pxi"
include "_tiled.pxi"
include "_iterator.pxi"
include "_plan_cache.pxi"
include "_elementwise.pxi"
include "_reduce.pxi"
include "_reduce_cache.pxi"
include "_accumulate.pxi"
include "_copy.pxi"
include "_api.pxi"
include "_evaluate.pxi"


def _cache_info():
    """How many entries this module's caches hold: type resolutions, ops
    with a cached plan, ops with a cached reduction (a vendored copy keeps
    its own: tests/test_vendoring.py)."""
    cdef OpEntry e
    cdef int plans = 0, reductions = 0
    for e in set(_OPS_BY_NAME.values()):
        plans += e.cache != NULL and e.cache.valid
        reductions += e.reduce_cache is not None
    return {"resolutions": len(_RESOLVED), "plans": plans, "reductions": reductions}


def _half_tables_filled():
    """Test hook: how many float16 result tables the loops have filled in
    this process, every instruction-set unit (titer_loops.h NOTE [float16
    tables])."""
    return titer_half_tables_filled


def _own_fast_path(name, sig, out, *inputs):
    """Test hook: titer's own vectorized loop for `sig` of op `name` (its
    float32/float64 fast path, built at the baseline level), run once over
    contiguous 1-d arrays of the signature's dtypes: out (a tuple for two
    outputs), then the inputs (one of length 1: a stride-0 scalar).  The
    loop the tables run may instead be the vector math library's
    (titer_veclib.h); this one is its fallback.  FP flags are dropped."""
    outs = out if isinstance(out, tuple) else (out,)
    arrays = list(outs) + list(inputs)
    types = sig.replace("->", "")
    cdef int k
    cdef titer_loop1d fn = NULL
    for k in range(titer_own_loop_table_len):
        if (titer_own_loop_table[k].op.decode() == name
                and titer_own_loop_table[k].sig.decode() == sig):
            fn = titer_own_loop_table[k].fn
    if fn == NULL:
        raise ValueError("no own fast path for %s %s" % (name, sig))
    if len(arrays) != len(types) or len(arrays) > 8:
        raise ValueError("%s %s takes %d arrays" % (name, sig, len(types)))
    cdef char *data[8]
    cdef int64_t strides[8]
    cdef int64_t n = -1
    cdef cnp.ndarray a
    n = outs[0].shape[0] if outs[0].ndim == 1 else -1
    for k in range(len(arrays)):
        a = arrays[k]
        scalar = k >= len(outs) and a.ndim == 1 and a.shape[0] == 1
        if (a.ndim != 1 or a.dtype != np.dtype(types[k]) or not a.flags.c_contiguous
                or (a.shape[0] != n and not scalar) or (k < len(outs) and not a.flags.writeable)):
            raise ValueError("operand %d: a contiguous 1-d %s array of out's length (or 1)"
                             % (k, np.dtype(types[k])))
        data[k] = <char *>cnp.PyArray_DATA(a)
        strides[k] = 0 if scalar else a.itemsize
    with nogil:
        fn(data, strides, n)
        titer_clear_fp_flags(FPE_MASK)
    return out
