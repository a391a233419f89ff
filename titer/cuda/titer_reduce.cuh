/* Reduction and scan kernels around an op's one-line device kernel (seed 000's
 * Reduce.cuh, simplified):
 *  - titer_rparams: the reduction plan the host passes by value -- reduced
 *    dims (R) and kept dims (K), fastest first, with IntDivider magic numbers
 *    and byte strides, the launch shape, the initial value;
 *  - <stem>_reduce / _reduce_cast: a 2-d block; either x threads index outputs
 *    and y threads share each output's reduction (outer reductions: the kept
 *    dim is fastest in memory, loads coalesce across outputs) or the other way
 *    round (inner reductions).  Each thread folds a strided slice in a fixed
 *    order (four accumulators, for four loads in flight; 16-byte vector loads
 *    where each output's reduction is one contiguous run), then a
 *    shared-memory tree combines the block's lanes in a fixed order.
 *    gridDim.y > 1 splits big reductions over blocks: each block writes its
 *    partial, and <stem>_reduce_final combines each output's partials with a
 *    row of lanes and the same tree.  No atomics: every launch gives the
 *    same bits.
 *  - <stem>_scan / _scan_cast: np.<op>.accumulate, one thread per line,
 *    sequential (NumPy's order, so NumPy's bits).
 * Indices are 64-bit here (a reduction of 2^33 int8 needs no splitting);
 * divisions use the 32-bit fast path whenever the index fits.
 * The layout of titer_rparams is mirrored in titer/cuda/plan.py. */
#ifndef TITER_REDUCE_CUH
#define TITER_REDUCE_CUH

/* after titer_scalar.cuh and titer_kernels.cuh (the .cu files include all three) */

#define TITER_RBLOCK 256        /* threads per reduction block (x * y) */

struct titer_rparams {
    const char *in;
    char *out;
    char *partial;                 /* nsplit * nout accumulators (gridDim.y > 1) */
    titer_scalar_slot init;        /* in the loop dtype */
    int64_t nred, nout;
    int32_t rndim, kndim;
    int32_t in_code;               /* the input's dtype in memory (cast kernels) */
    int32_t out_on_x;              /* 1: x threads index outputs */
    int32_t has_init;
    int32_t ordered;               /* not reorderable: init first, one lane */
    int32_t nsplit;                /* blocks along each reduction (gridDim.y) */
    int32_t vec;                   /* elements per 16-byte load where each output's
                                      reduction is one contiguous run (else 1) */
    int64_t rstride[TITER_MAX_DIMS];   /* input bytes along the reduced dims */
    int64_t kstride[TITER_MAX_DIMS];   /* input bytes along the kept dims */
    int64_t kout[TITER_MAX_DIMS];      /* output bytes along the kept dims */
    titer_divider rsize[TITER_MAX_DIMS];
    titer_divider ksize[TITER_MAX_DIMS];
    int64_t scan_out_stride;           /* accumulate: output bytes along the axis */
};

static __device__ __forceinline__ uint64_t titer_div64(const titer_divider &d, uint64_t n) {
    if (n < 0x80000000ull) return titer_div(d, (uint32_t)n);
    return n / d.divisor;
}

/* Byte offset of element `linear` of a dims block (fastest first). */
static __device__ __forceinline__ int64_t titer_dims_offset(const titer_divider *size,
                                                            const int64_t *stride, int ndim,
                                                            uint64_t linear) {
    int64_t off = 0;
#pragma unroll 1
    for (int dim = 0; dim < ndim; dim++) {
        uint64_t q = dim + 1 == ndim ? 0 : titer_div64(size[dim], linear);
        uint64_t r = linear - q * size[dim].divisor;
        off += (int64_t)r * stride[dim];
        linear = q;
    }
    return off;
}

/* Where a reduction's elements come from: titer_memory_source reads the
 * input (converting it to the loop dtype as it loads, CAST); a fused
 * titer.evaluate reduction's source (titer_fused.cuh) computes the element
 * at the same byte position of the result it does not write, so both fold
 * the same values in the same order.  load: the element at byte x;
 * vec<V>: vector v of V elements from base (16-byte aligned: its
 * `vectors` says whether titer_reduce_vec may run). */
template <class R, bool CAST> struct titer_memory_source {
    enum { vectors = !CAST };
    __device__ __forceinline__ typename R::A load(const titer_rparams &p, const char *x) const {
        if constexpr (CAST) return R::load(titer_load_as<R::code>(x, p.in_code));
        else return R::load(*(const typename R::T *)x);
    }
    template <int V>
    __device__ __forceinline__ titer_vec<typename R::T, V> vec(const titer_rparams &,
                                                              const char *base, uint64_t v) const {
        return ((const titer_vec<typename R::T, V> *)base)[v];
    }
};

template <class R>
static __device__ __forceinline__ typename R::A titer_reduce_init(const titer_rparams &p) {
    typename R::T v;
    memcpy(&v, p.init.bytes, sizeof(v));
    return R::load(v);
}

/* The value of output o: the initial value folded in (reorderable ops take it
 * last; ordered ones took it first), stored in the loop dtype. */
template <class R>
static __device__ __forceinline__ void titer_reduce_store(const titer_rparams &p, uint64_t o,
                                                          typename R::A v) {
    if (p.has_init && !p.ordered) v = R::comb(titer_reduce_init<R>(p), v);
    *(typename R::T *)(p.out + titer_dims_offset(p.ksize, p.kout, p.kndim, o)) = R::store(v);
}

/* Fold one output's run of 16-byte vectors when the host set p.vec (one
 * contiguous reduced dim, at least one whole vector for every thread of the
 * grid) and `base` is 16-byte aligned; false: fold it the general way.
 * Element k of a vector goes to accumulator k % 4, two vectors per lane in
 * flight, then the tail past the last whole vector, one element per thread. */
template <class R, class S>
static __device__ __forceinline__ bool titer_reduce_vec(const titer_rparams &p, const S &src,
                                                        const char *base, uint64_t first,
                                                        uint64_t step, typename R::A &acc) {
    typedef typename R::T T;
    typedef typename R::A A;
    constexpr int V = 16 / sizeof(T);
    constexpr int NACC = V < 4 ? V : 4;
    if constexpr (V < 2 || !S::vectors) {
        return false;
    } else {
        if (p.vec != V || ((size_t)base & 15) != 0) return false;
        typedef titer_vec<T, V> vec_t;
        const uint64_t nvec = (uint64_t)p.nred / V;
        A a[NACC];
        uint64_t v = first;
        const vec_t x0 = src.template vec<V>(p, base, v);
#pragma unroll
        for (int k = 0; k < NACC; k++) a[k] = R::load(x0.v[k]);
#pragma unroll
        for (int k = NACC; k < V; k++) a[k % NACC] = R::comb(a[k % NACC], R::load(x0.v[k]));
#pragma unroll 1
        for (v += step; v + step < nvec; v += 2 * step) {
            const vec_t y0 = src.template vec<V>(p, base, v);
            const vec_t y1 = src.template vec<V>(p, base, v + step);
#pragma unroll
            for (int k = 0; k < V; k++) a[k % NACC] = R::comb(a[k % NACC], R::load(y0.v[k]));
#pragma unroll
            for (int k = 0; k < V; k++) a[k % NACC] = R::comb(a[k % NACC], R::load(y1.v[k]));
        }
        if (v < nvec) {
            const vec_t y0 = src.template vec<V>(p, base, v);
#pragma unroll
            for (int k = 0; k < V; k++) a[k % NACC] = R::comb(a[k % NACC], R::load(y0.v[k]));
        }
        const uint64_t tail = nvec * V + first;
        if (tail < (uint64_t)p.nred) a[0] = R::comb(a[0], src.load(p, base + tail * sizeof(T)));
        acc = a[0];
#pragma unroll
        for (int k = 1; k < NACC; k++) acc = R::comb(acc, a[k]);
        return true;
    }
}

/* Combine each output's lanes in shared memory: lanes is a power of two;
 * lane k takes lane k + s, in a fixed order; lane 0's slot ends with the
 * result (lane_has 0: no lane had an element). */
template <class R>
static __device__ __forceinline__ void titer_lane_tree(typename R::A *lane_acc, int *lane_has,
                                                       int tid, int lane, int lanes,
                                                       int lane_step) {
    __syncthreads();
    for (int s = lanes / 2; s > 0; s >>= 1) {
        if (lane < s) {
            const int other = tid + s * lane_step;
            if (lane_has[other]) {
                lane_acc[tid] = lane_has[tid] ? R::comb(lane_acc[tid], lane_acc[other])
                                              : lane_acc[other];
                lane_has[tid] = 1;
            }
        }
        __syncthreads();
    }
}

template <class R, class S>
static __device__ __forceinline__ void titer_reduce(const titer_rparams &p, const S &src) {
    typedef typename R::A A;
    __shared__ A lane_acc[TITER_RBLOCK];
    __shared__ int lane_has[TITER_RBLOCK];
    const int outs_per_block = p.out_on_x ? blockDim.x : blockDim.y;
    const int lanes = p.out_on_x ? blockDim.y : blockDim.x;      /* threads per output */
    const int out_lane = p.out_on_x ? threadIdx.x : threadIdx.y;
    const int lane = p.out_on_x ? threadIdx.y : threadIdx.x;
    const int lane_step = p.out_on_x ? blockDim.x : 1;           /* tid distance of lane+1 */
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const uint64_t o = (uint64_t)blockIdx.x * outs_per_block + out_lane;
    A acc = A();
    int has = 0;
    if (o < (uint64_t)p.nout) {
        const char *base = p.in + titer_dims_offset(p.ksize, p.kstride, p.kndim, o);
        if (p.ordered && p.has_init) {
            acc = titer_reduce_init<R>(p);
            has = 1;
        }
        const uint64_t step = (uint64_t)lanes * gridDim.y;
        uint64_t r = (uint64_t)blockIdx.y * lanes + lane;
        bool done = false;
        done = titer_reduce_vec<R>(p, src, base, r, step, acc);
        if (done) {
            has = 1;
        } else {
            if (!p.ordered && r + 3 * step < (uint64_t)p.nred) {
                /* four loads in flight per lane (memory parallelism), four
                 * accumulators combined in a fixed order */
                A acc4[4];
#pragma unroll
                for (int k = 0; k < 4; k++)
                    acc4[k] = src.load(p, base + titer_dims_offset(p.rsize, p.rstride,
                                                                   p.rndim, r + k * step));
                r += 4 * step;
#pragma unroll 1
                for (; r + 3 * step < (uint64_t)p.nred; r += 4 * step) {
                    A x[4];
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        x[k] = src.load(p, base + titer_dims_offset(p.rsize, p.rstride,
                                                                    p.rndim, r + k * step));
#pragma unroll
                    for (int k = 0; k < 4; k++) acc4[k] = R::comb(acc4[k], x[k]);
                }
                acc = R::comb(R::comb(acc4[0], acc4[1]), R::comb(acc4[2], acc4[3]));
                has = 1;
            }
#pragma unroll 1
            for (; r < (uint64_t)p.nred; r += step) {
                A x = src.load(p, base + titer_dims_offset(p.rsize, p.rstride, p.rndim, r));
                acc = has ? R::comb(acc, x) : x;
                has = 1;
            }
        }
    }
    lane_acc[tid] = acc;
    lane_has[tid] = has;
    titer_lane_tree<R>(lane_acc, lane_has, tid, lane, lanes, lane_step);
    if (lane == 0 && o < (uint64_t)p.nout) {
        if (gridDim.y > 1) ((A *)p.partial)[(uint64_t)blockIdx.y * p.nout + o] = lane_acc[tid];
        else titer_reduce_store<R>(p, o, lane_acc[tid]);
    }
}

/* gridDim.y > 1: combine each output's nsplit partials -- a row of x lanes
 * per output (blockDim.y outputs per block), each folding partials
 * lane, lane + lanes, ... in order, then the lane tree. */
template <class R>
static __device__ __forceinline__ void titer_reduce_final(const titer_rparams &p) {
    typedef typename R::A A;
    __shared__ A lane_acc[TITER_RBLOCK];
    __shared__ int lane_has[TITER_RBLOCK];
    const int lanes = blockDim.x, lane = threadIdx.x;
    const int tid = threadIdx.y * blockDim.x + threadIdx.x;
    const uint64_t o = (uint64_t)blockIdx.x * blockDim.y + threadIdx.y;
    const A *partial = (const A *)p.partial;
    A v = A();
    int has = 0;
    if (o < (uint64_t)p.nout) {
#pragma unroll 1
        for (int s = lane; s < p.nsplit; s += lanes) {
            const A x = partial[(uint64_t)s * p.nout + o];
            v = has ? R::comb(v, x) : x;
            has = 1;
        }
    }
    lane_acc[tid] = v;
    lane_has[tid] = has;
    titer_lane_tree<R>(lane_acc, lane_has, tid, lane, lanes, 1);
    if (lane == 0 && o < (uint64_t)p.nout) titer_reduce_store<R>(p, o, lane_acc[tid]);
}

/* np.<op>.accumulate along one axis (rsize[0] / rstride[0]); each step is
 * the op's own kernel in the loop dtype, as on the CPU. */
template <class R, bool CAST>
static __device__ __forceinline__ void titer_scan(const titer_rparams &p) {
    typedef typename R::T T;
    const uint64_t o = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (o >= (uint64_t)p.nout) return;
    const char *x = p.in + titer_dims_offset(p.ksize, p.kstride, p.kndim, o);
    char *y = p.out + titer_dims_offset(p.ksize, p.kout, p.kndim, o);
    T acc = T();
#pragma unroll 1
    for (int64_t r = 0; r < p.nred; r++) {
        T v;
        if constexpr (CAST) v = titer_load_as<R::code>(x, p.in_code);
        else v = *(const T *)x;
        acc = r == 0 ? v : R::step(acc, v);
        *(T *)y = acc;
        x += p.rstride[0];
        y += p.scan_out_stride;
    }
}

/* One reducible signature's kernels: <stem>_reduce, _reduce_cast,
 * _reduce_final, _scan, _scan_cast. */
#define TITER_DEFINE_REDUCE_KERNELS(STEM, RED)                                        \
    extern "C" __global__ void __launch_bounds__(TITER_RBLOCK)                        \
    STEM##_reduce(const titer_rparams p) {                                            \
        titer_reduce<RED>(p, titer_memory_source<RED, false>());                      \
    }                                                                                 \
    extern "C" __global__ void __launch_bounds__(TITER_RBLOCK)                        \
    STEM##_reduce_cast(const titer_rparams p) {                                       \
        titer_reduce<RED>(p, titer_memory_source<RED, true>());                       \
    }                                                                                 \
    extern "C" __global__ void __launch_bounds__(TITER_RBLOCK)                        \
    STEM##_reduce_final(const titer_rparams p) { titer_reduce_final<RED>(p); }        \
    extern "C" __global__ void __launch_bounds__(TITER_RBLOCK)                        \
    STEM##_scan(const titer_rparams p) { titer_scan<RED, false>(p); }                 \
    extern "C" __global__ void __launch_bounds__(TITER_RBLOCK)                        \
    STEM##_scan_cast(const titer_rparams p) { titer_scan<RED, true>(p); }

#endif
