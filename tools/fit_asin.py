"""The coefficients of titer's float64 arcsin polynomial (titer/src/titer_scalar.h,
titer_fast_arcsin): a least-squares fit, on Chebyshev nodes of [0, 1/4], of
g(z) = (asin(a) - a) / a^3 with z = a^2, weighted by z (the error of asin
relative to itself is about z times the error of g), in 150-bit arithmetic.

    pip install mpmath            # PyTorch's wheel brings it too
    python tools/fit_asin.py [--degree 11]

Prints the coefficients (constant term first, as hex doubles) and the
largest relative error of a + a z P(z) against asin(a) on [1e-4, 1/2]."""
import mpmath as mp

import _odd_fit


def target(z):
    if z == 0:
        return mp.mpf(1) / 6
    s = mp.sqrt(z)
    return (mp.asin(s) / s - 1) / z


def fit(degree, nodes=300):
    zs = [mp.mpf(0.125) * (1 - mp.cos(mp.pi * (i + 0.5) / nodes)) for i in range(nodes)]
    return _odd_fit.weighted_least_squares(zs, target, lambda z: z / (1 + z / 6), degree)


def radii(samples=2000):
    return [mp.mpf(1e-4) + (mp.mpf(0.5) - mp.mpf(1e-4)) * k / (samples - 1) for k in range(samples)]


if __name__ == "__main__":
    _odd_fit.main(__doc__, fit, mp.asin, radii, degree=11, precision=150)
