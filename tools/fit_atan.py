"""The coefficients of titer's float64 arctan2 polynomial (titer/src/titer_scalar.h,
titer_fast_arctan2): a least-squares fit, on Chebyshev nodes of [0, ZMAX], of
g(z) = (atan(r) - r) / r^3 with z = r^2, weighted by z (the error of atan
relative to itself is about z times the error of g), in 150-bit arithmetic.
ZMAX is 0.4143^2: the reduced argument r stays below tan(pi/8) = 0.41421...
but for the rounding of the test that picks the reduction.

    pip install mpmath            # PyTorch's wheel brings it too
    python tools/fit_atan.py [--degree 10]

Prints the coefficients (constant term first, as hex doubles) and the
largest relative error of r + r z P(z) against atan(r) on [1e-4, 0.4143]."""
import mpmath as mp

import _odd_fit

RMAX = mp.mpf("0.4143")


def target(z):
    if z == 0:
        return mp.mpf(-1) / 3
    r = mp.sqrt(z)
    return (mp.atan(r) / r - 1) / z


def fit(degree, nodes=300):
    zmax = RMAX * RMAX
    zs = [zmax / 2 * (1 - mp.cos(mp.pi * (i + 0.5) / nodes)) for i in range(nodes)]
    return _odd_fit.weighted_least_squares(zs, target, lambda z: z / (1 - z / 3), degree)


def radii(samples=2000):
    return [mp.mpf(1e-4) + (RMAX - mp.mpf(1e-4)) * k / (samples - 1) for k in range(samples)]


if __name__ == "__main__":
    _odd_fit.main(__doc__, fit, mp.atan, radii, degree=10, precision=150)
