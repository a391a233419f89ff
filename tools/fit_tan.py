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
    python tools/fit_tan.py --degree 6 --float32    # titer_vtanf.h's float form

Prints the coefficients (constant term first, as hex doubles) and the
largest relative error of r + r z P(z) against tan(r) with them rounded to
double (to float32 with --float32)."""
import mpmath as mp

import _odd_fit


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


def radii(samples=2000):
    return [mp.sqrt(z_max() * k / samples) for k in range(1, samples + 1)]


if __name__ == "__main__":
    _odd_fit.main(__doc__, fit, mp.tan, radii, degree=14, precision=200)
