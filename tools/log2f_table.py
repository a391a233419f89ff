"""The tables and polynomials of titer's float32 log2 and log10 at AVX-512
(titer/src/titer_vlog2f.h): 32 rows of m in [0.75, 1.5), each row's c a
short multiple of 2^-6 or 2^-7 near 1/centre such that r = m c - 1 is
exact in one FMA (checked for every m of the row), -log2 c and -log10 c as
a head (a multiple of 2^-16 / 2^-18) and a float tail, and minimax
polynomials of the given degree for the rest of log2(1 + r) / r and
log10(1 + r) / r.

    pip install mpmath
    python tools/log2f_table.py 3 > tables.h

Prints the C initializers (the fit's report on stderr)."""
# tables and polynomial for titer_vlog2f.h: raw index j = (bits(m) >> 18) & 31,
# m in [0.75, 1.5): j < 16 -> [1 + j/32, 1 + (j+1)/32); j >= 16 -> [0.5 + j/64, 0.5 + (j+1)/64)
import numpy as np, math, sys
from fractions import Fraction as F
import mpmath as mp
mp.mp.prec = 200
def f32(v): return float(np.float32(v))
def interval(j):
    return (F(32 + j, 32), F(33 + j, 32)) if j < 16 else (F(32 + j, 64), F(33 + j, 64))
def mant_ints(j):
    # all m in the interval as integers M * 2^-s
    lo, hi = interval(j)
    s = 23 if j < 16 else 24
    return np.arange(int(lo * 2**s), int(hi * 2**s), dtype=np.int64), s
def exact_r(M, s, cn, q):
    # r = M 2^-s * cn 2^-q - 1 exactly representable in float32?
    P = M * cn - (1 << (s + q))          # r * 2^(s+q)
    P = np.abs(P)
    nz = P[P != 0]
    # strip trailing zeros
    tz = (nz & -nz)
    odd = nz // tz
    return bool(np.all(odd < (1 << 24)))
C, Q = [], []
rmin = rmax = 0.0
for j in range(32):
    if j in (0, 31):
        C.append(F(1)); continue
    lo, hi = interval(j)
    M, s = mant_ints(j)
    best = None
    for q in range(12, 3, -1):
        centre = (lo + hi) / 2
        base = round(F(1) / centre * 2**q)
        for cn in (base - 1, base, base + 1):
            if not exact_r(M, s, cn, q): continue
            c = F(cn, 2**q)
            worst = max(abs(float(lo * c - 1)), abs(float(hi * c - 1)))
            if best is None or worst < best[0] - 1e-12:
                best = (worst, c, q)
        if best: break
    C.append(best[1])
for j in range(32):
    lo, hi = interval(j); c = C[j]
    rmin = min(rmin, float(lo * c - 1)); rmax = max(rmax, float(hi * c - 1))
print("r range", rmin, rmax, file=sys.stderr)
def th_tl(T, gran):
    th = round(T * 2**gran) / 2**gran
    tl = f32(T - th)
    return th, tl
L2 = [ -mp.log(mp.mpf(c.numerator) / c.denominator, 2) for c in C]
L10 = [ -mp.log10(mp.mpf(c.numerator) / c.denominator) for c in C]
def fit(Lconst, deg):
    Lh = f32(Lconst)
    # P(r) ~ (log_b(1+r) - Lh r) / r, minimax absolute (relative error of result / Lconst)
    def g(r):
        r = mp.mpf(r)
        if r == 0: return float(Lconst - Lh)
        return float((mp.log(1 + r) * (Lconst) - mp.mpf(Lh) * r) / r)
    n = 2000
    xs = np.array([(rmin + rmax) / 2 + (rmax - rmin) / 2 * math.cos(math.pi * (k + .5) / n) for k in range(n)])
    ys = np.array([g(x) for x in xs])
    # Remez-lite: iteratively reweighted least squares toward minimax
    w = np.ones(n)
    for it in range(60):
        A = np.vander(xs, deg + 1, increasing=True)
        coef = np.linalg.lstsq(A * w[:, None], ys * w, rcond=None)[0]
        err = A @ coef - ys
        w = w * (np.abs(err) / np.abs(err).max() + 1e-3) ** 0.5
        w /= w.max()
    coef32 = [f32(c) for c in coef]
    # error with float coefficients, relative to result ~ Lconst r
    xt = np.linspace(rmin, rmax, 20001)
    e = max(abs(sum(c * x**k for k, c in enumerate(coef32)) - g(x)) for x in xt) / float(Lconst)
    return Lh, coef32, e
deg = int(sys.argv[1]) if len(sys.argv) > 1 else 3
LOG2E = 1 / mp.log(2); LOG10E = 1 / mp.log(10)
for name, Lc in (("log2", LOG2E), ("log10", LOG10E)):
    Lh, coef, e = fit(Lc, deg)
    print(name, "Lh", Lh.hex(), "coef", [c.hex() for c in coef], "rel err 2^%.2f" % math.log2(e), file=sys.stderr)
# emit C
out = []
def arr(name, vals):
    out.append("static const float %s[32] __attribute__((aligned(64))) = {" % name)
    for k in range(0, 32, 4):
        out.append("    " + ", ".join(float(v).hex() + "f" for v in vals[k:k + 4]) + ",")
    out.append("};")
arr("titer_log2f_c", [float(c) for c in C])
t2 = [th_tl(T, 16) for T in L2]
arr("titer_log2f_th", [a for a, b in t2]); arr("titer_log2f_tl", [b for a, b in t2])
t10 = [th_tl(T, 18) for T in L10]
arr("titer_log10f_th", [a for a, b in t10]); arr("titer_log10f_tl", [b for a, b in t10])
G = mp.log10(2); Gh = round(G * 2**18) / 2**18; Gl = f32(G - Gh)
out.append("/* log10(2) = Gh + Gl: Gh = %s (a multiple of 2^-18), Gl = %s */" % (float(Gh).hex(), Gl.hex()))
for name, Lc in (("LOG2", LOG2E), ("LOG10", LOG10E)):
    Lh, coef, e = fit(Lc, deg)
    out.append("#define TITER_%sF_LH %sf" % (name, Lh.hex()))
    for k, c in enumerate(coef):
        out.append("#define TITER_%sF_P%d %sf" % (name, k, c.hex()))
out.append("#define TITER_LOG10F_GH %sf" % float(Gh).hex())
out.append("#define TITER_LOG10F_GL %sf" % Gl.hex())
print("\n".join(out))
print("c bits:", [ (float(c).hex()) for c in C], file=sys.stderr)
