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
import argparse

import mpmath as mp

RMAX = mp.mpf("0.4143")


def target(z):
    if z == 0:
        return mp.mpf(-1) / 3
    r = mp.sqrt(z)
    return (mp.atan(r) / r - 1) / z


def fit(degree, nodes=300):
    zmax = RMAX * RMAX
    zs = [zmax / 2 * (1 - mp.cos(mp.pi * (i + 0.5) / nodes)) for i in range(nodes)]
    rows, rhs = mp.matrix(nodes, degree + 1), mp.matrix(nodes, 1)
    for i, z in enumerate(zs):
        weight = z / (1 - z / 3)
        for j in range(degree + 1):
            rows[i, j] = weight * z ** j
        rhs[i] = weight * target(z)
    solution = mp.lu_solve(rows.T * rows, rows.T * rhs)
    return [float(solution[j]) for j in range(degree + 1)]


def worst_relative_error(coefficients, samples=2000):
    worst = 0
    for k in range(samples):
        r = mp.mpf(1e-4) + (RMAX - mp.mpf(1e-4)) * k / (samples - 1)
        z = r * r
        p = sum(mp.mpf(c) * z ** j for j, c in enumerate(coefficients))
        worst = max(worst, abs((r + r * z * p) / mp.atan(r) - 1))
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--degree", type=int, default=10)
    args = parser.parse_args()
    mp.mp.prec = 150
    coefficients = fit(args.degree)
    for c in coefficients:
        print(c.hex())
    print("largest relative error: 2^%.1f" % float(mp.log(worst_relative_error(coefficients), 2)))


if __name__ == "__main__":
    main()
