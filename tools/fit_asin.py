"""The coefficients of titer's float64 arcsin polynomial (titer/src/titer_scalar.h,
titer_fast_arcsin): a least-squares fit, on Chebyshev nodes of [0, 1/4], of
g(z) = (asin(a) - a) / a^3 with z = a^2, weighted by z (the error of asin
relative to itself is about z times the error of g), in 150-bit arithmetic.

    pip install mpmath            # PyTorch's wheel brings it too
    python tools/fit_asin.py [--degree 11]

Prints the coefficients (constant term first, as hex doubles) and the
largest relative error of a + a z P(z) against asin(a) on [1e-4, 1/2]."""
import argparse

import mpmath as mp


def target(z):
    if z == 0:
        return mp.mpf(1) / 6
    s = mp.sqrt(z)
    return (mp.asin(s) / s - 1) / z


def fit(degree, nodes=300):
    zs = [mp.mpf(0.125) * (1 - mp.cos(mp.pi * (i + 0.5) / nodes)) for i in range(nodes)]
    rows, rhs = mp.matrix(nodes, degree + 1), mp.matrix(nodes, 1)
    for i, z in enumerate(zs):
        weight = z / (1 + z / 6)
        for j in range(degree + 1):
            rows[i, j] = weight * z ** j
        rhs[i] = weight * target(z)
    solution = mp.lu_solve(rows.T * rows, rows.T * rhs)
    return [float(solution[j]) for j in range(degree + 1)]


def worst_relative_error(coefficients, samples=2000):
    worst = 0
    for k in range(samples):
        a = mp.mpf(1e-4) + (mp.mpf(0.5) - mp.mpf(1e-4)) * k / (samples - 1)
        z = a * a
        p = sum(mp.mpf(c) * z ** j for j, c in enumerate(coefficients))
        worst = max(worst, abs((a + a * z * p) / mp.asin(a) - 1))
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--degree", type=int, default=11)
    args = parser.parse_args()
    mp.mp.prec = 150
    coefficients = fit(args.degree)
    for c in coefficients:
        print(c.hex())
    print("largest relative error: 2^%.1f" % float(mp.log(worst_relative_error(coefficients), 2)))


if __name__ == "__main__":
    main()
