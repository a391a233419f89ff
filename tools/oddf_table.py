"""The tables of titer's 16-lane float32 tanh and arctan
(titer/src/titer_voddf.h), odd functions f fitted on |x| in [0, 16).

|x| in [2^-4, 16) is cut into 31 pieces of a quarter octave by its float32
bits (bits >> 21), and piece 0 takes [0, 2^-4 2^(1/4)): f |x| =
a0 + t P(t) with t = |x| - c, P = a1 + a2 t + ... of degree DEGREE - 1.
Piece 0 has c = 0 and a0 = 0 (P fitted to f(t) / t, so the result keeps
its relative precision down to 0); piece i > 0 a center c in its middle
whose f is within about 2^-36 of a float, which is a0, so the one
rounding of a0 costs nothing; P by Chebyshev interpolation (mpmath's
chebyfit), coefficients rounded to float32 (tools/_piecewise.py).

    pip install mpmath
    python tools/oddf_table.py tanh|arctan [DEGREE]

Prints each piece's relative error as rounded, then the C initializers (a
table of the centers, then one per coefficient, the pieces in order)."""
import sys

import mpmath as mp
import numpy as np

from _piecewise import center, f32, fit_around, from_bits, print_tables, relative_error

FIRST = 0x3d800000 >> 21          # 2^-4, in quarter octaves
PIECES = 32
FUNCTIONS = {"tanh": (mp.tanh, np.tanh), "arctan": (mp.atan, np.arctan)}


def fit(f, f_long, i, degree):
    """(c, [a0, ..., a_degree], largest relative error with them rounded)."""
    lo, hi = from_bits((FIRST + i) << 21), from_bits((FIRST + i + 1) << 21)
    if i == 0:
        poly = mp.chebyfit(lambda t: f(t) / t if t else mp.mpf(1), [0, hi], degree)
        coef = [0.0] + [f32(v) for v in reversed(poly)]
        return 0.0, coef, relative_error(f, mp.mpf(0), mp.mpf(0), hi, coef)
    c = center(f_long, lo, hi)
    coef, err = fit_around(f, c, lo, hi, degree)
    return f32(c), coef, err


def main():
    f, f_long = FUNCTIONS[sys.argv[1]]
    degree = int(sys.argv[2]) if len(sys.argv) > 2 else 6
    print_tables([fit(f, f_long, i, degree) for i in range(PIECES)])


if __name__ == "__main__":
    main()
