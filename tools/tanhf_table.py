"""The tables of titer's 16-lane float32 tanh (titer/src/titer_vtanhf.h).

|x| in [2^-4, 16) is cut into 31 pieces of a quarter octave by its float32
bits (bits >> 21), and piece 0 takes [0, 2^-4 2^(1/4)): tanh |x| =
a0 + t P(t) with t = |x| - c, P = a1 + a2 t + ... of degree DEGREE - 1.
Piece 0 has c = 0 and a0 = 0 (P fitted to tanh(t) / t, so the result keeps
its relative precision down to 0); piece i > 0 a center c in its middle
whose tanh is within about 2^-36 of a float (the search below), which is
a0, so the one rounding of a0 costs nothing; P by Chebyshev interpolation
(mpmath's chebyfit), coefficients rounded to float32.

    pip install mpmath
    python tools/tanhf_table.py [DEGREE]

Prints each piece's relative error as rounded, then the C initializers (a
table of the centers, then one per coefficient, the pieces in order)."""
import struct
import sys

import mpmath as mp
import numpy as np

mp.mp.prec = 200
FIRST = 0x3d800000 >> 21          # 2^-4, in quarter octaves
PIECES = 32


def f32(value):
    return struct.unpack("<f", struct.pack("<f", float(value)))[0]


def from_bits(bits):
    return mp.mpf(struct.unpack("<f", struct.pack("<I", bits))[0])


def center(lo, hi):
    """The float in the middle 60% of the piece (every one, or 2^21 evenly
    spread) whose tanh is relatively nearest a float."""
    first = np.float32(float(lo + (hi - lo) / 5)).view(np.int32)
    last = np.float32(float(hi - (hi - lo) / 5)).view(np.int32)
    c = np.unique(np.linspace(first, last, 1 << 21).astype(np.int32)).view(np.float32)
    t = np.tanh(c.astype(np.longdouble))
    err = np.abs(t.astype(np.float32).astype(np.longdouble) - t) / t
    return mp.mpf(float(c[np.argmin(err)]))


def fit(i, degree):
    """(c, [a0, ..., a_degree], largest relative error with them rounded)."""
    lo, hi = from_bits((FIRST + i) << 21), from_bits((FIRST + i + 1) << 21)
    if i == 0:
        lo, c = mp.mpf(0), mp.mpf(0)
        poly = mp.chebyfit(lambda t: mp.tanh(t) / t if t else mp.mpf(1), [lo, hi], degree)
        coef = [0.0] + [f32(v) for v in reversed(poly)]
    else:
        c = center(lo, hi)
        poly = mp.chebyfit(lambda t: mp.tanh(c + t), [lo - c, hi - c], degree + 1)
        coef = [f32(mp.tanh(c))] + [f32(v) for v in reversed(poly[:-1])]
    xs = mp.linspace(max(lo, hi / 1000), hi, 400)
    err = max(abs((coef[0] + (x - c) * sum(mp.mpf(v) * (x - c) ** j
                                           for j, v in enumerate(coef[1:]))) / mp.tanh(x) - 1)
              for x in xs)
    return f32(c), coef, err


def c_float(value):
    """A float32 as a C literal: hex, without float.hex's trailing zeros."""
    mantissa, exponent = float.hex(value).split("p")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + "p" + exponent + "f"


def main():
    degree = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    pieces = [fit(i, degree) for i in range(PIECES)]
    print("relative error, log2:", " ".join("%.1f" % float(mp.log(p[2], 2)) for p in pieces))
    print("c:", ", ".join(c_float(p[0]) for p in pieces))
    for j in range(degree + 1):
        print("a%d:" % j, ", ".join(c_float(p[1][j]) for p in pieces))


if __name__ == "__main__":
    main()
