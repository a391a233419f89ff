"""For the piecewise-polynomial table makers (oddf_table.py): a piece's
center whose function value is nearly a float, the Chebyshev fit around
it, and C float literals."""
import struct

import mpmath as mp
import numpy as np

mp.mp.prec = 200


def f32(value):
    return struct.unpack("<f", struct.pack("<f", float(value)))[0]


def from_bits(bits):
    return mp.mpf(struct.unpack("<f", struct.pack("<I", bits))[0])


def c_float(value):
    """A float32 as a C literal: hex, without float.hex's trailing zeros."""
    mantissa, exponent = float.hex(value).split("p")
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + "p" + exponent + "f"


def center(f_long, lo, hi):
    """The float in the middle 60% of [lo, hi) (every one, or 2^21 evenly
    spread) whose f (f_long: NumPy's long double function) is relatively
    nearest a float."""
    first = np.float32(float(lo + (hi - lo) / 5)).view(np.int32)
    last = np.float32(float(hi - (hi - lo) / 5)).view(np.int32)
    c = np.unique(np.linspace(first, last, 1 << 21).astype(np.int32)).view(np.float32)
    v = f_long(c.astype(np.longdouble))
    err = np.abs(v.astype(np.float32).astype(np.longdouble) - v) / np.abs(v)
    return mp.mpf(float(c[np.argmin(err)]))


def fit_around(f, c, lo, hi, degree):
    """[a0, ..., a_degree] with f(x) ~ a0 + t (a1 + a2 t + ...), t = x - c,
    by Chebyshev interpolation (mpmath's chebyfit) on [lo, hi), a0 = f(c)
    rounded to float, the others rounded; and the largest relative error over
    [lo, hi) with them as rounded."""
    poly = mp.chebyfit(lambda t: f(c + t), [lo - c, hi - c], degree + 1)
    coef = [f32(f(c))] + [f32(v) for v in reversed(poly[:-1])]
    return coef, relative_error(f, c, lo, hi, coef)


def relative_error(f, c, lo, hi, coef):
    xs = mp.linspace(max(lo, hi / 1000), hi, 400)
    return max(abs((coef[0] + (x - c) * sum(mp.mpf(v) * (x - c) ** j
                                            for j, v in enumerate(coef[1:]))) / f(x) - 1)
               for x in xs)


def print_tables(pieces):
    """pieces: (c, coefficients, error) each; the errors, then the C
    initializers (the centers, then one table per coefficient)."""
    print("relative error, log2:", " ".join("%.1f" % float(mp.log(p[2], 2)) for p in pieces))
    print("c:", ", ".join(c_float(p[0]) for p in pieces))
    for j in range(len(pieces[0][1])):
        print("a%d:" % j, ", ".join(c_float(p[1][j]) for p in pieces))
