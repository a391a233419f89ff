"""The tables and polynomial of titer's float64 power at AVX-512
(titer/src/titer_vpow.h): x = 2^k z with z's bits in [OFF, OFF + 2^52)
(z in [0.703125, 1.40625)), cut into 16 pieces by the top four bits of
z's mantissa after the offset.  Piece i has a center c (1 exactly for the
piece that holds 1, so log x keeps its relative precision near 1), invc =
1/c rounded to double, and log c = -log(invc) as a head that is a multiple
of 2^-42 (so k ln2_hi + head is exact with ln2_hi a multiple of 2^-42) and
a tail.  log(1 + r) = r - r^2/2 + r^3 P(r) for r = z invc - 1, P fitted so
that r^2 (P - exact) is smallest over the pieces' r range (the error
relative to log x near 1).

    pip install mpmath
    python tools/pow_table.py

Prints the C initializers and the fit's error."""
import struct

import mpmath as mp

mp.mp.prec = 300
OFF = 0x3fe6800000000000
DEGREE = 8


def f64(bits):
    return mp.mpf(struct.unpack("<d", struct.pack("<Q", bits))[0])


def head_tail(value, unit_bits=42):
    head = mp.floor(value * 2 ** unit_bits + mp.mpf(0.5)) / 2 ** unit_bits
    return float(head), float(value - head)


def pieces():
    """(invc, logc head, logc tail, r range) per piece."""
    out = []
    for i in range(16):
        lo, hi = f64(OFF + (i << 48)), f64(OFF + ((i + 1) << 48))
        c = mp.mpf(1) if lo <= 1 < hi else (lo + hi) / 2
        invc = float(1 / c)
        logc = -mp.log(mp.mpf(invc))
        out.append((invc,) + head_tail(logc) + (lo * mp.mpf(invc) - 1, hi * mp.mpf(invc) - 1))
    return out


def fit(lo, hi, degree, n=600):
    """P of the given degree with r^3 P(r) ~ log(1 + r) - r + r^2/2, least
    squares on r^2 (P - exact) at Chebyshev nodes of [lo, hi]."""
    def exact(r):
        return (mp.log1p(r) - r + r * r / 2) / r ** 3
    xs = [(lo + hi) / 2 + (hi - lo) / 2 * mp.cos(mp.pi * (k + 0.5) / n) for k in range(n)]
    rows = [[x ** (j + 2) for j in range(degree + 1)] for x in xs]
    a = mp.matrix(rows)
    b = mp.matrix([x ** 2 * exact(x) for x in xs])
    coef = [float(c) for c in mp.lu_solve(a.T * a, a.T * b)]
    err = max(abs(x ** 2 * (sum(mp.mpf(c) * x ** j for j, c in enumerate(coef)) - exact(x)))
              for x in xs[::3])
    return coef, err


def main():
    table = pieces()
    print("invc:", ", ".join(float.hex(t[0]) for t in table))
    print("logc head:", ", ".join(float.hex(t[1]) for t in table))
    print("logc tail:", ", ".join(float.hex(t[2]) for t in table))
    rlo, rhi = min(t[3] for t in table), max(t[4] for t in table)
    print("r range: %.6f %.6f" % (rlo, rhi))
    ln2_hi, ln2_lo = head_tail(mp.log(2))
    print("ln2 head %s tail %s" % (float.hex(ln2_hi), float.hex(ln2_lo)))
    coef, err = fit(rlo, rhi, DEGREE)
    print("P (c0 first):", ", ".join(float.hex(c) for c in coef))
    print("max r^2 |P - exact|: 2^%.2f" % float(mp.log(err, 2)))


if __name__ == "__main__":
    main()
