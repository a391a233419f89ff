"""The coefficients of titer's float64 tan polynomial (titer/src/titer_scalar.h,
titer_fast_tan): tan(r) = r + r z P(z) with z = r^2 on |r| <= pi/4 (and a
hair more: the reduction's q can be one off where x 2/pi nears a
half-integer).  P's constant term is fixed at the double nearest 1/3 and
the others fitted by least squares on Chebyshev nodes, weighted by
r z / tan(r) (the error of tan relative to itself is that times P's error),
the weights then refined toward the minimax error (Lawson's iteration), in
200-bit arithmetic.

    pip install mpmath            # PyTorch's wheel brings it too
    python tools/fit_tan.py [--degree 14]

Prints the coefficients (constant term first, as hex doubles) and the
largest relative error of r + r z P(z) against tan(r) with them rounded to
double."""
import argparse

import mpmath as mp


def z_max():
    return (mp.pi / 4 * (1 + mp.mpf(2) ** -20)) ** 2


def target(z):
    """(tan(r) / r - 1) / z, and its limit 1/3 at 0."""
    if z == 0:
        return mp.mpf(1) / 3
    r = mp.sqrt(z)
    return (mp.tan(r) / r - 1) / z


def weight(z):
    r = mp.sqrt(z)
    return z * r / mp.tan(r) if z > 0 else mp.mpf(0)


def fit(degree, iterations=30):
    n = 6 * (degree + 1)
    zs = [z_max() * (1 - mp.cos(mp.pi * (k + mp.mpf(0.5)) / n)) / 2 for k in range(n)]
    constant = mp.mpf(float(mp.mpf(1) / 3))
    values = [target(z) - constant for z in zs]
    weights = [weight(z) for z in zs]
    lawson = [mp.mpf(1)] * n
    for _ in range(iterations):
        rows, rhs = mp.matrix(n, degree), mp.matrix(n, 1)
        for i, z in enumerate(zs):
            w = mp.sqrt(lawson[i]) * weights[i]
            for j in range(degree):
                rows[i, j] = w * z ** (j + 1)
            rhs[i] = w * values[i]
        solution = mp.lu_solve(rows.T * rows, rows.T * rhs)
        errors = [abs(weights[i] * (sum(solution[j] * zs[i] ** (j + 1) for j in range(degree))
                                    - values[i])) for i in range(n)]
        total = sum(lawson[i] * errors[i] for i in range(n))
        lawson = [lawson[i] * errors[i] / total * n for i in range(n)]
    return [float(constant)] + [float(solution[j]) for j in range(degree)]


def worst_relative_error(coefficients, samples=2000):
    worst = 0
    for k in range(1, samples + 1):
        z = z_max() * k / samples
        r = mp.sqrt(z)
        p = sum(mp.mpf(c) * z ** j for j, c in enumerate(coefficients))
        worst = max(worst, abs((r + r * z * p) / mp.tan(r) - 1))
    return worst


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--degree", type=int, default=14)
    args = parser.parse_args()
    mp.mp.prec = 200
    coefficients = fit(args.degree)
    for c in coefficients:
        print(c.hex())
    print("largest relative error: 2^%.1f" % float(mp.log(worst_relative_error(coefficients), 2)))


if __name__ == "__main__":
    main()
