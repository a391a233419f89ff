"""What tools/fit_asin.py, fit_atan.py and fit_tan.py share: titer's
polynomials for odd functions, f(r) = r + r z P(z) with z = r^2, fitted in
mpmath; each script brings its target (f(r) / r - 1) / z, nodes, weights
and range."""
import argparse
import struct

import mpmath as mp


def weighted_least_squares(zs, target, weight, degree):
    """P's coefficients (constant term first) minimizing the weighted squared
    error of P(z) against target(z) on the nodes zs."""
    rows, rhs = mp.matrix(len(zs), degree + 1), mp.matrix(len(zs), 1)
    for i, z in enumerate(zs):
        w = weight(z)
        for j in range(degree + 1):
            rows[i, j] = w * z ** j
        rhs[i] = w * target(z)
    solution = mp.lu_solve(rows.T * rows, rows.T * rhs)
    return [float(solution[j]) for j in range(degree + 1)]


def worst_relative_error(fn, coefficients, radii):
    """max |(r + r z P(z)) / fn(r) - 1| over radii, the coefficients as the
    doubles they are."""
    worst = 0
    for r in radii:
        z = r * r
        p = sum(mp.mpf(c) * z ** j for j, c in enumerate(coefficients))
        worst = max(worst, abs((r + r * z * p) / fn(r) - 1))
    return worst


def main(doc, fit, fn, radii, degree, precision):
    """The scripts' command line: --degree, then the coefficients as hex
    doubles and the largest relative error on radii() (computed at the
    working precision)."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--degree", type=int, default=degree)
    parser.add_argument("--float32", action="store_true",
                        help="round the coefficients to float32 (for a kernel in float)")
    args = parser.parse_args()
    mp.mp.prec = precision
    coefficients = fit(args.degree)
    if args.float32:
        coefficients = [struct.unpack("<f", struct.pack("<f", c))[0] for c in coefficients]
    for c in coefficients:
        print(c.hex())
    worst = worst_relative_error(fn, coefficients, radii())
    print("largest relative error: 2^%.1f" % float(mp.log(worst, 2)))
