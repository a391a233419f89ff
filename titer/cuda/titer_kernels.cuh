/* The loop shapes around titer's one-line device kernels (seed 000):
 *  - titer_params: what the host passes by value (pointers, dtype codes,
 *    scalar operands, the OffsetCalculator with IntDivider magic numbers);
 *  - a vectorized kernel for contiguous operands (VEC elements per access,
 *    VEC chosen on the host from every pointer's alignment);
 *  - an unrolled offset-calculator kernel for any other layout;
 *  - the same with LoadWithCast / StoreWithCast for operands whose dtype is
 *    not the loop's (casts happen per element: no converted copies).
 * Indices are 32-bit: the host splits bigger plans (with_32bit_indexing).
 * The layout of titer_params is mirrored in titer/cuda/plan.py. */
#ifndef TITER_KERNELS_CUH
#define TITER_KERNELS_CUH

#define TITER_MAX_DIMS 12       /* coalesced dims per launch; the host loops over more */
#define TITER_MAX_ARGS 4        /* outputs + inputs: 1 + 1..3, or 2 + 1..2 */
#define TITER_BLOCK 128         /* threads per block, every kernel */
#define TITER_UNROLL 4          /* elements (or vectors) per thread */

/* Fast division by a fixed divisor (Granlund & Montgomery; ATen's
 * IntDivider<uint32_t>): q = (umulhi(n, magic) + n) >> shift, exact for
 * every n < 2^31.  magic and shift are computed on the host. */
struct titer_divider {
    uint32_t divisor, magic, shift;
};

struct __align__(8) titer_scalar_slot {
    unsigned char bytes[16];
};

struct titer_params {
    char *data[TITER_MAX_ARGS];            /* outputs first; NULL: a scalar operand */
    titer_scalar_slot scalar[TITER_MAX_ARGS];  /* scalar operands, in the loop dtype */
    int32_t code[TITER_MAX_ARGS];          /* dtype code in memory (cast kernels) */
    int32_t ndim;                          /* coalesced dims, fastest first */
    int32_t numel;
    titer_divider size[TITER_MAX_DIMS];
    int32_t stride[TITER_MAX_DIMS][TITER_MAX_ARGS];   /* bytes */
};

static __device__ __forceinline__ uint32_t titer_div(const titer_divider &d, uint32_t n) {
    return (__umulhi(n, d.magic) + n) >> d.shift;
}

/* Byte offsets of element `linear` for the first NARGS operands of a plan
 * of `ndim` dims (`stride` rows of WIDTH operands): divmod through the
 * dims fastest first; the slowest dim needs no division. */
template <int NARGS, int WIDTH>
static __device__ __forceinline__ void titer_offsets_of(const titer_divider *size,
                                                        const int32_t (*stride)[WIDTH],
                                                        int32_t ndim, uint32_t linear,
                                                        int32_t *off) {
#pragma unroll
    for (int arg = 0; arg < NARGS; arg++) off[arg] = 0;
#pragma unroll
    for (int dim = 0; dim < TITER_MAX_DIMS; dim++) {
        if (dim == ndim) break;
        uint32_t q = dim + 1 == ndim ? 0 : titer_div(size[dim], linear);
        uint32_t r = linear - q * size[dim].divisor;
        linear = q;
#pragma unroll
        for (int arg = 0; arg < NARGS; arg++)
            off[arg] += (int32_t)r * stride[dim][arg];
    }
}

static __device__ __forceinline__ void titer_offsets(const titer_params &p, uint32_t linear,
                                                     int32_t *off) {
    titer_offsets_of<TITER_MAX_ARGS, TITER_MAX_ARGS>(p.size, p.stride, p.ndim, linear, off);
}

struct titer_none {};           /* the type of an input slot an op does not have */

template <class T> static __device__ __forceinline__ T titer_scalar_value(const titer_params &p, int i) {
    T v;
    memcpy(&v, p.scalar[i].bytes, sizeof(T));
    return v;
}

template <class T, int VEC> struct __align__(sizeof(T) * VEC) titer_vec {
    T v[VEC];
};

template <class Op>
static __device__ __forceinline__ typename Op::out_t
titer_invoke(const typename Op::in0_t &a, const typename Op::in1_t &b, const typename Op::in2_t &c,
             typename Op::out1_t *o1) {
    /* a second output (divmod, modf, frexp) is written through o1 */
    if constexpr (Op::nout == 2) {
        if constexpr (Op::nin == 1) return Op::apply(a, o1);
        else return Op::apply(a, b, o1);
    } else {
        if constexpr (Op::nin == 1) return Op::apply(a);
        else if constexpr (Op::nin == 2) return Op::apply(a, b);
        else return Op::apply(a, b, c);
    }
}

/* Store VEC results at element `start` of operand i (whole vector or tail). */
template <class O, int VEC>
static __device__ __forceinline__ void titer_vec_store(const titer_params &p, int i,
                                                       const titer_vec<O, VEC> &r, uint32_t start,
                                                       bool full, uint32_t n) {
    if (full) {
        *(titer_vec<O, VEC> *)(p.data[i] + (size_t)start * sizeof(O)) = r;
    } else {
        O *dst = (O *)p.data[i] + start;
#pragma unroll
        for (int k = 0; k < VEC; k++)
            if (start + k < n) dst[k] = r.v[k];
    }
}

/* ---- vectorized kernel: every operand contiguous (or a scalar) ---- */


template <class T, int VEC> struct titer_vec_input {
    T v[VEC];
    __device__ __forceinline__ void load(const titer_params &p, int i, uint32_t start, bool full,
                                         uint32_t n) {
        if (p.data[i] == nullptr) {
            T s = titer_scalar_value<T>(p, i);
#pragma unroll
            for (int k = 0; k < VEC; k++) v[k] = s;
        } else if (full) {
            titer_vec<T, VEC> x = *(const titer_vec<T, VEC> *)(p.data[i] + (size_t)start * sizeof(T));
#pragma unroll
            for (int k = 0; k < VEC; k++) v[k] = x.v[k];
        } else {
            const T *src = (const T *)p.data[i] + start;
#pragma unroll
            for (int k = 0; k < VEC; k++)
                if (start + k < n) v[k] = src[k];
        }
    }
};
template <int VEC> struct titer_vec_input<titer_none, VEC> {
    titer_none v[VEC];
    __device__ __forceinline__ void load(const titer_params &, int, uint32_t, bool, uint32_t) {}
};

template <class Op, int VEC>
static __device__ __forceinline__ void titer_vectorized(const titer_params &p) {
    typedef typename Op::out_t O;
    const uint32_t n = (uint32_t)p.numel;
    /* VEC elements per access is the memory parallelism; unrolling the
     * TITER_UNROLL accesses as well would quadruple compile time. */
#pragma unroll 1
    for (int u = 0; u < TITER_UNROLL; u++) {
        uint32_t chunk = ((uint32_t)blockIdx.x * TITER_UNROLL + u) * TITER_BLOCK + threadIdx.x;
        uint64_t start64 = (uint64_t)chunk * VEC;
        if (start64 >= n) return;
        uint32_t start = (uint32_t)start64;
        bool full = start64 + VEC <= n;
        titer_vec_input<typename Op::in0_t, VEC> x0;
        titer_vec_input<typename Op::in1_t, VEC> x1;
        titer_vec_input<typename Op::in2_t, VEC> x2;
        x0.load(p, Op::nout + 0, start, full, n);
        x1.load(p, Op::nout + 1, start, full, n);
        x2.load(p, Op::nout + 2, start, full, n);
        titer_vec<O, VEC> r;
        titer_vec<typename Op::out1_t, VEC> r1;
#pragma unroll
        for (int k = 0; k < VEC; k++)
            if (full || start + k < n)
                r.v[k] = titer_invoke<Op>(x0.v[k], x1.v[k], x2.v[k], &r1.v[k]);
        titer_vec_store<O, VEC>(p, 0, r, start, full, n);
        if constexpr (Op::nout == 2)
            titer_vec_store<typename Op::out1_t, VEC>(p, 1, r1, start, full, n);
    }
}

/* ---- unrolled offset-calculator kernels (ATen's legacy kernel shape) ---- */

template <class Op, int I> struct titer_input_code;
template <class Op> struct titer_input_code<Op, 0> { enum { value = Op::in0_code }; };
template <class Op> struct titer_input_code<Op, 1> { enum { value = Op::in1_code }; };
template <class Op> struct titer_input_code<Op, 2> { enum { value = Op::in2_code }; };

template <class Op, int I, class T>
static __device__ __forceinline__ T titer_load_input(const titer_params &p, const int32_t *off,
                                                     bool cast) {
    if constexpr (I >= Op::nin) {
        return T();
    } else {
        const int i = I + Op::nout;
        if (p.data[i] == nullptr) return titer_scalar_value<T>(p, i);
        if (cast) return titer_load_as<titer_input_code<Op, I>::value>(p.data[i] + off[i], p.code[i]);
        return *(const T *)(p.data[i] + off[i]);
    }
}

template <class Op, bool CAST>
static __device__ __forceinline__ void titer_unrolled(const titer_params &p) {
    typedef typename Op::out_t O;
    const uint32_t n = (uint32_t)p.numel;
    const uint32_t first = (uint32_t)blockIdx.x * (TITER_BLOCK * TITER_UNROLL) + threadIdx.x;
    /* ATen's unrolled kernel: every element's offsets and loads first, so
     * TITER_UNROLL loads per operand are in flight (one at a time, a strided
     * or transposed operand leaves most of the memory bandwidth idle), then
     * compute and store */
    int32_t off[TITER_UNROLL][TITER_MAX_ARGS];
    typename Op::in0_t x0[TITER_UNROLL];
    typename Op::in1_t x1[TITER_UNROLL];
    typename Op::in2_t x2[TITER_UNROLL];
#pragma unroll
    for (int u = 0; u < TITER_UNROLL; u++) {
        if (first + u * TITER_BLOCK < n) {
            titer_offsets(p, first + u * TITER_BLOCK, off[u]);
            x0[u] = titer_load_input<Op, 0, typename Op::in0_t>(p, off[u], CAST);
            x1[u] = titer_load_input<Op, 1, typename Op::in1_t>(p, off[u], CAST);
            x2[u] = titer_load_input<Op, 2, typename Op::in2_t>(p, off[u], CAST);
        }
    }
#pragma unroll
    for (int u = 0; u < TITER_UNROLL; u++) {
        if (first + u * TITER_BLOCK < n) {
            typename Op::out1_t r1;
            O r = titer_invoke<Op>(x0[u], x1[u], x2[u], &r1);
            if (CAST) titer_store_as<Op::out_code>(p.data[0] + off[u][0], p.code[0], r);
            else *(O *)(p.data[0] + off[u][0]) = r;
            if constexpr (Op::nout == 2) {
                if (CAST) titer_store_as<Op::out1_code>(p.data[1] + off[u][1], p.code[1], r1);
                else *(typename Op::out1_t *)(p.data[1] + off[u][1]) = r1;
            }
        }
    }
}

/* One op-table signature's kernels: <stem>_vec{1,2,4,8}, <stem>_offset, <stem>_cast. */
#define TITER_DEFINE_KERNELS(STEM, OP)                                       \
    extern "C" __global__ void __launch_bounds__(TITER_BLOCK)                \
    STEM##_offset(const titer_params p) { titer_unrolled<OP, false>(p); }    \
    extern "C" __global__ void __launch_bounds__(TITER_BLOCK)                \
    STEM##_cast(const titer_params p) { titer_unrolled<OP, true>(p); }
#define TITER_DEFINE_VEC_KERNEL(STEM, OP, VEC)                               \
    extern "C" __global__ void __launch_bounds__(TITER_BLOCK)                \
    STEM##_vec##VEC(const titer_params p) { titer_vectorized<OP, VEC>(p); }

#endif
