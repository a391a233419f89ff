"""Generate the reduction and scan kits from the op table (run by setup.py).

Output: ``titer/src/titer_reduce_generated.h`` (not committed).  Every binary
op-table signature whose inputs and output share one type (``"ff->f"``, what
``np.<op>.reduce`` accepts) gets a *kit*: pairwise and in-order folds, a
vectorised cascade over rows, a scan, all built on the op's own scalar kernel
``titer_k_<op>_<sig>`` from ``titer_generated.h``.  New reducible ops in the
table get kits without any change here.  ``titer/src/titer_reduce.h`` holds
the drivers that walk the iteration space and split it over threads.
"""
import os
import re
import sys

import numpy as np

if __package__ in (None, ""):          # run as a script from setup.py
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import _codegen as codegen         # noqa: E402
    import _ops as ops                 # noqa: E402
else:
    from . import _codegen as codegen
    from . import _ops as ops

HERE = os.path.dirname(os.path.abspath(__file__))
TARGET = os.path.join(HERE, "src", "titer_reduce_generated.h")

# float16 sums and products accumulate in float and round once, as NumPy's
# HALF_add / HALF_multiply reduce loops do.
HALF_IN_FLOAT = {"add": "a + b", "multiply": "a * b"}
# NumPy's reduce and accumulate loops multiply complex numbers with separate
# products and sums (its contiguous elementwise loop fuses them: titer_cmul);
# the subtraction as titer_scalar.h's NOTE [no fused complex lanes].  An
# outer layout's rows are NumPy's elementwise loop (acc = acc op row, out= the
# first input): the op's own kernel there (ROWCOMB), fused as that loop is.
# (float16 sums and products stay in float on every layout, where NumPy's
# rows round to half: tests/test_reduce.py's reference.)
UNFUSED_COMB = {("multiply", "F"): "titer_cmake(a.re * b.re + a.im * titer_neg(b.im), "
                                   "a.re * b.im + a.im * b.re)"}
UNFUSED_COMB[("multiply", "D")] = UNFUSED_COMB[("multiply", "F")]
# Ops whose reduction value does not depend on the order of combination.
ORDER_FREE = ("maximum", "minimum", "fmax", "fmin")


def reducible_signatures(op):
    """The signatures np.<op>.reduce can use: binary, one output, one type."""
    if op.nin != 2 or op.nout != 1:
        return []
    sigs = []
    for sig in op.types:
        ins, outs = ops.parse_signature(sig)
        if len(outs) == 1 and ins[0] == ins[1] == outs:
            sigs.append(sig)
    return sigs


def kit_name(op, sig):
    return "titer_rk_%s_%s" % (op.name, sig[0].replace("?", "B1"))


KIT_TEMPLATE = r"""
TITER_INLINE {A} {N}_load({T} v) {{ return {LOAD}; }}
TITER_INLINE {A} {N}_comb({A} a, {A} b) {{ return {COMB}; }}
TITER_INLINE {A} {N}_rowcomb({A} a, {A} b) {{ return {ROWCOMB}; }}
TITER_INLINE {O} {N}_store({A} a) {{ return {STORE}; }}

/* Pairwise: {NACC} accumulators over runs of up to {BLOCK} elements, halves
 * above.  The accumulator loop must stay a loop (not unrolled) so that GCC
 * if-converts and vectorises kernels with branches (max/min). */
static {A} {N}_pw(const char *p, int64_t s, int64_t n) {{
    if (n < {NACC}) {{
        {A} r = {N}_load(*(const {T} *)p);
        for (int64_t i = 1; i < n; i++) r = {N}_comb(r, {N}_load(*(const {T} *)(p + i * s)));
        return r;
    }}
    if (n <= {BLOCK}) {{{VLEAF}
        {A} r[{NACC}], res;
        int64_t i;
        if (s == (int64_t)sizeof({T})) {{
            const {T} *x = (const {T} *)p;
            for (int k = 0; k < {NACC}; k++) r[k] = {N}_load(x[k]);
            for (i = {NACC}; i < n - (n % {NACC}); i += {NACC}) {{
                {UNROLL}
                for (int k = 0; k < {NACC}; k++) r[k] = {N}_comb(r[k], {N}_load(x[i + k]));
            }}
        }} else {{
            for (int k = 0; k < {NACC}; k++) r[k] = {N}_load(*(const {T} *)(p + k * s));
            for (i = {NACC}; i < n - (n % {NACC}); i += {NACC})
                for (int k = 0; k < {NACC}; k++)
                    r[k] = {N}_comb(r[k], {N}_load(*(const {T} *)(p + (i + k) * s)));
        }}
{FOLD}
        res = r[0];
        for (; i < n; i++) res = {N}_comb(res, {N}_load(*(const {T} *)(p + i * s)));
        return res;
    }}
    int64_t n2 = n / 2;
    n2 -= n2 % {NACC};{VPAIR}
    {A} left = {N}_pw(p, s, n2);
    return {N}_comb(left, {N}_pw(p + n2 * s, s, n - n2));
}}

static void {N}_pairwise(const char *p, int64_t s, int64_t n, void *acc) {{
    *({A} *)acc = {N}_pw(p, s, n);
}}

static void {N}_fold(const char *p, int64_t s, int64_t n, void *acc) {{
    {A} r = *({A} *)acc;
    for (int64_t i = 0; i < n; i++) r = {N}_comb(r, {N}_load(*(const {T} *)(p + i * s)));
    *({A} *)acc = r;
}}

static void {N}_combine(void *a, const void *b) {{
    *({A} *)a = {N}_comb(*({A} *)a, *(const {A} *)b);
}}

static void {N}_combine_vec(void *a_, const void *b_, int64_t w) {{
    {A} *a = ({A} *)a_;
    const {A} *b = (const {A} *)b_;
    for (int64_t k = 0; k < w; k++) a[k] = {N}_comb(a[k], b[k]);
}}

static void {N}_load1(void *acc, const char *x) {{ *({A} *)acc = {N}_load(*(const {T} *)x); }}
static void {N}_load_out(void *acc, const char *x) {{ *({A} *)acc = {LOADO}; }}
static void {N}_store1(char *out, const void *acc) {{ *({O} *)out = {N}_store(*(const {A} *)acc); }}

/* Rows [i0, i1) of the reduced space, each w elements at byte stride es,
 * reduced per element: leaf_rows rows in order, then a binary-counter
 * cascade (pairwise tree) over those leaves.  Buffers move between cascade
 * levels by pointer, never by copy.  scratch: (1 + TITER_RED_LEVELS) * w. */
static void {N}_outer(const char *base, int64_t es, int64_t w, const titer_rdims *rd,
                      int64_t i0, int64_t i1, int64_t leaf_rows, void *acc_, void *scratch) {{
    {A} *slot[TITER_RED_LEVELS];
    {A} *leaf = ({A} *)scratch;
    {A} *acc = ({A} *)acc_;
    uint64_t occupied = 0;
    int64_t idx[TITER_RED_MAXDIMS];
    const char *row = titer_rdims_start(rd, base, i0, idx);
    const int contig = es == (int64_t)sizeof({T});
    int64_t i = i0;
    for (int level = 0; level < TITER_RED_LEVELS; level++) slot[level] = leaf + (int64_t)(level + 1) * w;
    while (i < i1) {{
        int64_t m = i1 - i < leaf_rows ? i1 - i : leaf_rows;
        for (int64_t t = 0; t < m; t++) {{
            if (contig) {{
                const {T} *x = (const {T} *)row;
                if (t == 0) for (int64_t k = 0; k < w; k++) leaf[k] = {N}_load(x[k]);
                else for (int64_t k = 0; k < w; k++) leaf[k] = {N}_rowcomb(leaf[k], {N}_load(x[k]));
            }} else {{
                if (t == 0)
                    for (int64_t k = 0; k < w; k++) leaf[k] = {N}_load(*(const {T} *)(row + k * es));
                else
                    for (int64_t k = 0; k < w; k++)
                        leaf[k] = {N}_rowcomb(leaf[k], {N}_load(*(const {T} *)(row + k * es)));
            }}
            row = titer_rdims_next(rd, row, idx);
        }}
        i += m;
        int level = 0;
        {A} *cur = leaf;
        while ((occupied >> level) & 1) {{
            {A} *held = slot[level];
            for (int64_t k = 0; k < w; k++) held[k] = {N}_comb(held[k], cur[k]);
            slot[level] = cur;                 /* now free */
            cur = held;
            occupied &= ~(1ull << level);
            level++;
        }}
        leaf = slot[level];                    /* free buffer for the next leaf */
        slot[level] = cur;
        occupied |= 1ull << level;
    }}
    int first = 1;
    for (int level = TITER_RED_LEVELS - 1; level >= 0; level--) {{
        if (!((occupied >> level) & 1)) continue;
        {A} *held = slot[level];
        if (first) for (int64_t k = 0; k < w; k++) acc[k] = held[k];
        else for (int64_t k = 0; k < w; k++) acc[k] = {N}_comb(acc[k], held[k]);
        first = 0;
    }}
}}

{SCAN}

static const titer_reduce_kit {N} = {{
    (int)sizeof({A}), {NACC}, {N}_pairwise, {N}_fold, {N}_combine, {N}_combine_vec,
    {N}_outer, {N}_load1, {N}_load_out, {N}_store1, {N}_scan}};
"""


# The scan of np.<op>.accumulate: the op's own T kernel at every step (a
# float16 cumsum rounds to half at each step, as NumPy's does).
SCAN_TEMPLATE = r"""
static void {N}_scan(char *out, int64_t os, const char *in, int64_t is, int64_t n) {{
    if (n <= 0) return;
    {T} r = *(const {T} *)in;
    *({T} *)out = r;
    for (int64_t i = 1; i < n; i++) {{
        {T} a = r, b = *(const {T} *)(in + i * is);
        r = {SCOMB};
        *({T} *)(out + i * os) = r;
    }}
}}"""
# A widening kit's scan: each input converted, combined in the output type.
WIDE_SCAN_TEMPLATE = r"""
static void {N}_scan(char *out, int64_t os, const char *in, int64_t is, int64_t n) {{
    if (n <= 0) return;
    {A} r = {N}_load(*(const {T} *)in);
    *({O} *)out = {N}_store(r);
    for (int64_t i = 1; i < n; i++) {{
        r = {N}_comb(r, {N}_load(*(const {T} *)(in + i * is)));
        *({O} *)(out + i * os) = {N}_store(r);
    }}
}}"""

VECTOR_TEMPLATE = r"""
/* Contiguous leaves of {N}_pw as GCC vectors of TITER_RED_VB bytes: the
 * same {NACC} accumulators, each combined with the same operands in the same
 * order as the scalar leaf, so the bits are those of the scalar code.  For
 * sums and products (8 accumulators) a pair of sibling leaves runs
 * interleaved: one leaf is bound by the latency of its accumulator chains,
 * two keep twice as many in flight.  Reads are prefetched a few lines ahead:
 * without it the interleaved reads reached 0.6x a sequential loop's
 * bandwidth from memory here. */
typedef {T} {N}_vec __attribute__((vector_size(TITER_RED_VB)));
typedef {I} {N}_mask __attribute__((vector_size(TITER_RED_VB)));   /* comparison results */
typedef {U} {N}_uvec __attribute__((vector_size(TITER_RED_VB)));   /* wrapping integer lanes */
enum {{ {N}_LANES = TITER_RED_VB / (int)sizeof({T}), {N}_NV = {NACC} / {N}_LANES }};

static inline {N}_vec {N}_vsel({N}_mask m, {N}_vec a, {N}_vec b) {{   /* m ? a : b */
    return ({N}_vec)((({N}_mask)a & m) | (({N}_mask)b & ~m));
}}

static inline {N}_vec {N}_vcomb({N}_vec a, {N}_vec b) {{ return {VEXPR}; }}

static inline {N}_vec {N}_vload(const {T} *x) {{
    {N}_vec v;
    memcpy(&v, x, sizeof v);
    return v;
}}

static inline {T} {N}_vfold(const {N}_vec *v) {{
{VFOLD}
}}

static {T} {N}_vleaf(const {T} *x, int64_t n) {{      /* {NACC} <= n <= {BLOCK} */
    const int64_t e = n - n % {NACC};
    {N}_vec r[{N}_NV];
    int64_t i;
    for (int j = 0; j < {N}_NV; j++) r[j] = {N}_vload(x + j * {N}_LANES);
    for (i = {NACC}; i < e; i += {NACC}) {{
        __builtin_prefetch((const char *)(x + i) + TITER_RED_PREFETCH);
        for (int j = 0; j < {N}_NV; j++) r[j] = {N}_vcomb(r[j], {N}_vload(x + i + j * {N}_LANES));
    }}
    {T} res = {N}_vfold(r);
    for (; i < n; i++) res = {K}(res, x[i]);
    return res;
}}

static {T} {N}_vpair(const {T} *x, int64_t n1, int64_t n2) {{  /* two leaves */
    const {T} *y = x + n1;
    const int64_t e1 = n1 - n1 % {NACC}, e2 = n2 - n2 % {NACC};
    const int64_t both = e1 < e2 ? e1 : e2;
    {N}_vec r[{N}_NV], q[{N}_NV];
    int64_t i;
    for (int j = 0; j < {N}_NV; j++) {{
        r[j] = {N}_vload(x + j * {N}_LANES);
        q[j] = {N}_vload(y + j * {N}_LANES);
    }}
    for (i = {NACC}; i < both; i += {NACC}) {{
        __builtin_prefetch((const char *)(x + i) + TITER_RED_PREFETCH);
        __builtin_prefetch((const char *)(y + i) + TITER_RED_PREFETCH);
        for (int j = 0; j < {N}_NV; j++) {{
            r[j] = {N}_vcomb(r[j], {N}_vload(x + i + j * {N}_LANES));
            q[j] = {N}_vcomb(q[j], {N}_vload(y + i + j * {N}_LANES));
        }}
    }}
    for (int64_t k = i; k < e1; k += {NACC})
        for (int j = 0; j < {N}_NV; j++) r[j] = {N}_vcomb(r[j], {N}_vload(x + k + j * {N}_LANES));
    for (int64_t k = i; k < e2; k += {NACC})
        for (int j = 0; j < {N}_NV; j++) q[j] = {N}_vcomb(q[j], {N}_vload(y + k + j * {N}_LANES));
    {T} left = {N}_vfold(r), right = {N}_vfold(q);
    for (i = e1; i < n1; i++) left = {K}(left, x[i]);
    for (i = e2; i < n2; i++) right = {K}(right, y[i]);
    return {K}(left, right);
}}
"""
VECTOR_LEAF = """
        if (s == (int64_t)sizeof({T})) return {N}_vleaf((const {T} *)p, n);"""
VECTOR_PAIR = """
    if (s == (int64_t)sizeof({T}) && n - n2 <= {BLOCK})
        return {N}_vpair((const {T} *)p, n2, n - n2);"""
# How a leaf folds its accumulators: NumPy's order, ((r0 r1) (r2 r3)) ((r4 r5)
# (r6 r7)), where the order shows in the bits; halves (r[k] with r[k + w]),
# which vectorise, where it cannot (64 accumulators of integers or max/min).
NUMPY_FOLD = """        for (int w = 1; w < {NACC}; w *= 2)
            for (int k = 0; k < {NACC}; k += 2 * w) r[k] = {C}(r[k], r[k + w]);"""
HALVING_FOLD = """        for (int w = {NACC} / 2; w >= 1; w /= 2)
            for (int k = 0; k < w; k++) r[k] = {C}(r[k], r[k + w]);"""
# The folds of a vector leaf's accumulators, on the vectors, each giving
# the bits of the scalar fold it stands for.  Halving: vector j with vector
# j + m, then lane k with lane k ^ w (r[k] with r[k + w] either way).
# NumPy's order on the vectors themselves (sums and products, commutative
# to the bit): while there are several vectors, neighbours are combined
# (even lanes of a pair with odd lanes), which packs the pairs' results in
# index order into half as many vectors; in the last vector lane k takes
# lane k ^ w.  Lane 0 ends with the scalar fold's r[0].
HALVING_VFOLD = """    {N}_vec u[{N}_NV];
    {N}_mask lane;
    memcpy(u, v, sizeof u);
    for (int i = 0; i < {N}_LANES; i++) lane[i] = i;
    for (int m = {N}_NV / 2; m >= 1; m /= 2)
        for (int j = 0; j < m; j++) u[j] = {N}_vcomb(u[j], u[j + m]);
    for (int w = {N}_LANES / 2; w >= 1; w /= 2)
        u[0] = {N}_vcomb(u[0], __builtin_shuffle(u[0], lane ^ ({I})w));
    return u[0][0];"""
NUMPY_VFOLD = """    {N}_vec u[{N}_NV];
    {N}_mask lane, even, odd;
    memcpy(u, v, sizeof u);
    for (int i = 0; i < {N}_LANES; i++) {{
        lane[i] = i;
        even[i] = 2 * i;
        odd[i] = 2 * i + 1;
    }}
    for (int m = {N}_NV; m > 1; m /= 2)
        for (int j = 0; j < m / 2; j++)
            u[j] = {N}_vcomb(__builtin_shuffle(u[2 * j], u[2 * j + 1], even),
                             __builtin_shuffle(u[2 * j], u[2 * j + 1], odd));
    for (int w = 1; w < {N}_LANES; w *= 2)
        u[0] = {N}_vcomb(u[0], __builtin_shuffle(u[0], lane ^ ({I})w));
    return u[0][0];"""


# Integer kernels written for C's promotions, in their vector form: the
# wrapping add and multiply on unsigned lanes, bitwise ops as they are.
INT_VECTOR_EXPRS = {"(T)((U)a + (U)b)": "({N}_vec)(({N}_uvec)a + ({N}_uvec)b)",
                    "(T)((U)a * (U)b)": "({N}_vec)(({N}_uvec)a * ({N}_uvec)b)",
                    "(T)(a & b)": "a & b", "(T)(a | b)": "a | b", "(T)(a ^ b)": "a ^ b"}
VECTOR_TYPES = "fdbBhHiIlL"


def vector_expr(expr):
    """The GCC-vector form of a float or integer kernel, or None: one C
    operator on a and b works as is; a select ``((cond) ? a : b)`` over
    comparisons of a and b (max/min and their NaN rules) becomes a mask and
    a blend, lane by lane the scalar kernel."""
    if expr in ("a + b", "a * b"):
        return expr
    if expr in INT_VECTOR_EXPRS:
        return INT_VECTOR_EXPRS[expr]
    m = (re.fullmatch(r"\(\((.*)\) \? a : b\)", expr)
         or re.fullmatch(r"\(([^()]*) \? a : b\)", expr))
    if m and re.fullmatch(r"[ab<>=!|() ]+", m.group(1)):
        return "{N}_vsel((%s), a, b)" % m.group(1).replace(" || ", ") | (")
    return None


def order_shows(op, char):
    """Whether the order of combination shows in the bits (float sums and
    products): those kits keep NumPy's pairwise tree and fold."""
    return char in "efdFD" and op.name not in ORDER_FREE


def kit_shape(op, sig):
    """(accumulators, whether contiguous leaves are GCC vectors) of a kit."""
    char = sig[0]
    # Float sums keep the shape of NumPy's pairwise sum (8 accumulators up to
    # blocks of 128; complex: 4 and 64, NumPy counting real and imaginary
    # parts), so contiguous sums are NumPy's bit for bit; where the order
    # cannot change the value (integers, bool, max/min) wider blocks
    # vectorise better: 256 bytes, 8 AVX2 registers of accumulators.
    vexpr = vector_expr(ops.lookup_expr(op, sig[:2])[1]) if char in VECTOR_TYPES else None
    if order_shows(op, char):
        return (4 if char in "FD" else 8), vexpr is not None
    if vexpr:
        return 256 // np.dtype(char).itemsize, True
    return 64, False


def leaf_fields(name, nacc, numeric):
    """The template fields of a kit's scalar leaves.  BLOCK is the longest run
    one leaf reduces before the tree halves it: NumPy's 16 rounds of
    accumulators where the order shows, no limit where it cannot (one pass
    over each piece, one fold)."""
    fold = NUMPY_FOLD if numeric else HALVING_FOLD
    return dict(N=name, NACC=nacc, BLOCK=nacc * 16 if numeric else "INT64_MAX",
                VLEAF="", VPAIR="", UNROLL="" if numeric else "#pragma GCC unroll 1",
                FOLD=fold.format(NACC=nacc, C=name + "_comb"))


def emit_kit(op, sig):
    char = sig[0]
    t = ops.C_TYPE[char]
    kernel = codegen.kernel_name(op, sig)
    if char == "e" and op.name in HALF_IN_FLOAT:
        a, load, comb, store = ("float", "titer_h2f(v)", HALF_IN_FLOAT[op.name],
                                "titer_f2h(a)")
    else:
        a, load, comb, store = t, "v", UNFUSED_COMB.get((op.name, char), "%s(a, b)" % kernel), "a"
    numeric = order_shows(op, char)
    nacc, vectors = kit_shape(op, sig)
    size = np.dtype(char).itemsize
    fields = leaf_fields(kit_name(op, sig), nacc, numeric)
    fields.update(T=t, A=a, O=t, LOAD=load, COMB=comb, STORE=store, K=kernel,
                  LOADO="%s_load(*(const %s *)x)" % (fields["N"], t),
                  ROWCOMB=comb if a != t else "%s(a, b)" % kernel)
    fields["SCOMB"] = UNFUSED_COMB.get((op.name, char), kernel + "(a, b)")
    fields["SCAN"] = SCAN_TEMPLATE.format(**fields)
    if not vectors:
        return KIT_TEMPLATE.format(**fields)
    # Contiguous leaves as GCC vectors: same accumulators, same bits.
    vexpr = vector_expr(ops.lookup_expr(op, sig[:2])[1])
    fields.update(VEXPR=vexpr.format(N=fields["N"]), I="int%d_t" % (8 * size),
                  U="uint%d_t" % (8 * size),
                  VFOLD=(NUMPY_VFOLD if numeric else HALVING_VFOLD).format(
                      N=fields["N"], I="int%d_t" % (8 * size)),
                  VLEAF=VECTOR_LEAF.format(**fields))
    if numeric:                 # latency-bound chains: two sibling leaves at once
        fields["VPAIR"] = VECTOR_PAIR.format(**fields)
    return VECTOR_TEMPLATE.format(**fields) + KIT_TEMPLATE.format(**fields)


# Widening kits: a reduction whose loop type is wider than the input's
# (np.sum of bool or int8 -> int64, of uint16 -> uint64, np.mean's float64
# sum of integers) reads the input as it is and converts each element as it
# is loaded, instead of converting the whole input first.  Only conversions
# NumPy calls safe, into the output type's own kernel.
WIDENING = {"add": "lLd", "multiply": "lL"}
WIDE_INPUTS = "?bhiBHIlL"


def widening_signatures(op):
    """(input char, output char) pairs of op's widening kits."""
    pairs = []
    for out in WIDENING.get(op.name, ""):
        if out + out + "->" + out not in op.types:
            continue
        for c in WIDE_INPUTS:
            if c != out and np.can_cast(c, out, "safe"):
                pairs.append((c, out))
    return pairs


def wide_kit_name(op, c, out):
    return "titer_rk_%s_%s_from_%s" % (op.name, out, c.replace("?", "B1"))


def emit_wide_kit(op, c, out):
    t, a = ops.C_TYPE[c], ops.C_TYPE[out]
    numeric = order_shows(op, out)
    fields = leaf_fields(wide_kit_name(op, c, out), 8 if numeric else 64, numeric)
    fields.update(T=t, A=a, O=a, LOAD="(%s)v" % a, STORE="a", LOADO="*(const %s *)x" % a,
                  COMB="%s(a, b)" % codegen.kernel_name(op, out * 2 + "->" + out))
    fields["ROWCOMB"] = fields["COMB"]
    fields["SCAN"] = WIDE_SCAN_TEMPLATE.format(**fields)
    return KIT_TEMPLATE.format(**fields)


def generate():
    parts = ["/* Generated by titer/_codegen_reduce.py from titer/_ops.py: do not edit. */",
             "#ifndef TITER_REDUCE_GENERATED_H", "#define TITER_REDUCE_GENERATED_H",
             '#include "titer_generated.h"', '#include "titer_reduce.h"']
    entries = []
    for op in ops.OPS:
        for sig in reducible_signatures(op):
            parts.append(emit_kit(op, sig))
            entries.append('    {"%s", "%s", &%s}' % (op.name, sig.replace("?", "\\?"),
                                                    kit_name(op, sig)))
        for c, out in widening_signatures(op):      # signature "c->out"
            parts.append(emit_wide_kit(op, c, out))
            entries.append('    {"%s", "%s->%s", &%s}' % (op.name, c.replace("?", "\\?"), out,
                                                       wide_kit_name(op, c, out)))
    parts.append("static const titer_kit_entry titer_kit_table[] = {\n%s\n};"
                 % (",\n".join(entries) or '    {"", "", 0}'))
    parts.append("static const int titer_kit_table_len = %d;" % len(entries))
    parts.append("#endif")
    return "\n".join(parts) + "\n"


def write(target=TARGET):
    return codegen.write_if_changed(target, generate())


if __name__ == "__main__":
    print(write())
