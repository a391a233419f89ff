"""The tables and polynomials of titer's 16-lane float32 power
(titer/src/titer_vpowf.h): x = 2^k z with z in [0x3f330000, 0x3fb30000) as
float32 bits (about [0.699, 1.398)), cut into 16 pieces by the top four
bits of z's mantissa after the offset; piece i has a center c (1 exactly
for the piece that holds 1, so log2 x keeps its relative precision near 1),
invc = 1/c rounded to double and logc = log2(1/invc) rounded, so log2 x =
k + logc + log2(1 + r) with r = z invc - 1, |r| < 0.032; log2(1 + r) is
r P(r), P of degree 4 fitted for relative error (Chebyshev-weighted least
squares on the union of the pieces' r ranges).  2^t = 2^(j/16) 2^m 2^s
(titer_exp16_head from titer_vexp.h) with 2^s - 1 = s Q(s), Q of degree 2
on |s| <= 1/32, fitted the same way.

    pip install mpmath
    python tools/powf_table.py

Prints the C initializers and the fits' errors."""
import struct

import mpmath as mp

mp.mp.prec = 200
OFF = 0x3f330000


def f32(bits):
    return mp.mpf(struct.unpack("<f", struct.pack("<I", bits))[0])


def bits(d):
    return struct.unpack("<Q", struct.pack("<d", d))[0]


def pieces():
    """(invc, logc, r range) per piece."""
    out = []
    for i in range(16):
        lo, hi = f32(OFF + (i << 19)), f32(OFF + ((i + 1) << 19))
        c = mp.mpf(1) if lo <= 1 < hi else (lo + hi) / 2
        invc = float(1 / c)
        logc = float(-mp.log(mp.mpf(invc), 2))
        out.append((invc, logc, lo * mp.mpf(invc) - 1, hi * mp.mpf(invc) - 1))
    return out


def fit(f, lo, hi, degree, n=400):
    """Coefficients c0..c_degree of P with x P(x) ~ f(x), least squares on
    the relative error at Chebyshev nodes of [lo, hi]."""
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + 0.5) / n) for k in range(n)]
    rows = [[x ** (j + 1) / f(x) for j in range(degree + 1)] for x in xs]
    a = mp.matrix(rows)
    b = mp.matrix([1] * n)
    coef = mp.lu_solve(a.T * a, a.T * b)
    coef = [float(c) for c in coef]
    err = max(abs(sum(mp.mpf(c) * x ** (j + 1) for j, c in enumerate(coef)) / f(x) - 1)
              for x in xs[::7])
    return coef, err


def main():
    table = pieces()
    print("invc:", ", ".join(float.hex(t[0]) for t in table))
    print("logc:", ", ".join(float.hex(t[1]) for t in table))
    rlo, rhi = min(t[2] for t in table), max(t[3] for t in table)
    print("r range: %.5f %.5f" % (rlo, rhi))
    logp, err = fit(lambda r: mp.log(1 + r, 2), rlo, rhi, 4)
    print("log2(1+r) / r:", ", ".join(float.hex(c) for c in logp), "rel err %.3g" % err)
    expq, err = fit(lambda s: mp.power(2, s) - 1, -mp.mpf(1) / 32 - mp.mpf(2) ** -20,
                    mp.mpf(1) / 32 + mp.mpf(2) ** -20, 2)
    print("(2^s - 1) / s:", ", ".join(float.hex(c) for c in expq), "rel err %.3g" % err)


if __name__ == "__main__":
    main()
