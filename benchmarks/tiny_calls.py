"""The fixed cost of a call: each public entry point on a 16-element array,
titer against the NumPy call it stands for, interleaved in one process (each
side's best of --rounds rounds of 3 x --number calls), as us a call and the
ratio NumPy / titer (above 1: titer costs less).  Every pair's results are
compared first.  `python benchmarks/tiny_calls.py [--rounds 5] [--markdown]`,
~40 s."""
import argparse
import platform
import sys
import timeit
import warnings

import numpy as np

import titer

N = 16


def operands():
    a, b = np.linspace(0.5, 2.0, N), np.linspace(1.0, 3.0, N)
    return {"a": a, "b": b, "out": np.zeros(N), "f": a.astype(np.float32),
            "i": np.arange(N), "iout": np.zeros(N, np.int64), "mask": np.arange(N) % 3 == 0,
            "bout": np.zeros(N, bool), "m": a.reshape(4, 4).copy(), "mout": np.zeros(4),
            "zero_d": np.array(2.0)}


# (label, NumPy's call, titer's call): each a function of the operands
CASES = [
    ("add, out=", lambda o: np.add(o["a"], o["b"], out=o["out"]),
     lambda o: titer.elementwise("add", o["out"], o["a"], o["b"])),
    ("add, allocating", lambda o: np.add(o["a"], o["b"]),
     lambda o: titer.elementwise("add", None, o["a"], o["b"])),
    ("add a Python float", lambda o: np.add(o["a"], 2.0, out=o["out"]),
     lambda o: titer.elementwise("add", o["out"], o["a"], 2.0)),
    ("add a Python int", lambda o: np.add(o["i"], 3, out=o["iout"]),
     lambda o: titer.elementwise("add", o["iout"], o["i"], 3)),
    ("add an np.intp", lambda o: np.add(o["a"], np.intp(3), out=o["out"]),
     lambda o: titer.elementwise("add", o["out"], o["a"], np.intp(3))),
    ("float32 + float64", lambda o: np.add(o["f"], o["a"], out=o["out"]),
     lambda o: titer.elementwise("add", o["out"], o["f"], o["a"])),
    ("add, casting='unsafe'", lambda o: np.add(o["a"], o["b"], out=o["out"], casting="unsafe"),
     lambda o: titer.elementwise("add", o["out"], o["a"], o["b"], casting="unsafe")),
    ("add, dtype=", lambda o: np.add(o["a"], o["b"], dtype=np.float32),
     lambda o: titer.elementwise("add", None, o["a"], o["b"], dtype=np.float32)),
    ("add, where=", lambda o: np.add(o["a"], o["b"], out=o["out"], where=o["mask"]),
     lambda o: titer.elementwise("add", o["out"], o["a"], o["b"], where=o["mask"])),
    ("add of two Python floats", lambda o: np.add(1.0, 2.0),
     lambda o: titer.elementwise("add", None, 1.0, 2.0)),
    ("exp, allocating", lambda o: np.exp(o["a"]),
     lambda o: titer.elementwise("exp", None, o["a"])),
    ("less, out=", lambda o: np.less(o["a"], o["b"], out=o["bout"]),
     lambda o: titer.elementwise("less", o["bout"], o["a"], o["b"])),
    ("divmod, allocating", lambda o: np.divmod(o["a"], o["b"]),
     lambda o: titer.elementwise("divmod", None, o["a"], o["b"])),
    ("sum", lambda o: np.sum(o["a"]), lambda o: titer.sum(o["a"])),
    ("sum, axis=0", lambda o: np.sum(o["m"], axis=0), lambda o: titer.sum(o["m"], axis=0)),
    ("sum, axis=0, out=", lambda o: np.sum(o["m"], axis=0, out=o["mout"]),
     lambda o: titer.sum(o["m"], axis=0, out=o["mout"])),
    ("max", lambda o: np.max(o["a"]), lambda o: titer.max(o["a"])),
    ("mean", lambda o: np.mean(o["a"]), lambda o: titer.mean(o["a"])),
    ("any", lambda o: np.any(o["mask"]), lambda o: titer.any(o["mask"])),
    ("add.reduce", lambda o: np.add.reduce(o["a"]), lambda o: titer.reduce("add", o["a"])),
    ("add.accumulate", lambda o: np.add.accumulate(o["a"]),
     lambda o: titer.accumulate("add", o["a"])),
    ("copy", lambda o: np.copyto(o["out"], o["b"]), lambda o: titer.copy(o["out"], o["b"])),
    ("copy float32 -> float64", lambda o: np.copyto(o["out"], o["f"]),
     lambda o: titer.copy(o["out"], o["f"])),
    ("copy a Python float", lambda o: np.copyto(o["out"], 1.5),
     lambda o: titer.copy(o["out"], 1.5)),
    ("copy a broadcast row", lambda o: np.copyto(o["m"], o["a"][:4]),
     lambda o: titer.copy(o["m"], o["a"][:4])),
    ("ascontiguous of a transpose", lambda o: np.ascontiguousarray(o["m"].T),
     lambda o: titer.ascontiguous(o["m"].T)),
    ("empty_like", lambda o: np.empty_like(o["a"]), lambda o: titer.empty_like(o["a"])),
    ("evaluate 'a*b + 1'", lambda o: np.add(np.multiply(o["a"], o["b"]), 1),
     lambda o: titer.evaluate("a*b + 1", {"a": o["a"], "b": o["b"]})),
]
# (results not compared: what empty_like and an unselected where= leave)
UNDEFINED = {"empty_like", "add, where="}


def check():
    """Each pair's results agree before anything is timed."""
    for label, numpy_call, titer_call in CASES:
        if label in UNDEFINED:
            continue
        numpy_ops, titer_ops = operands(), operands()
        want, got = numpy_call(numpy_ops), titer_call(titer_ops)
        if want is None:                # np.copyto: what it wrote
            want, got = tuple(numpy_ops.values()), tuple(titer_ops.values())
        want = want if isinstance(want, tuple) else (want,)
        got = got if isinstance(got, tuple) else (got,)
        for w, g in zip(want, got):
            if type(w) is not type(g) or not np.array_equal(w, g):
                raise SystemExit("%s: titer %r, NumPy %r" % (label, g, w))


def best_us(call, ops, number):
    return min(timeit.repeat(lambda: call(ops), number=number, repeat=3)) / number * 1e6


def measure(rounds, number):
    ops = operands()
    best = {label: [float("inf"), float("inf")] for label, _, _ in CASES}
    for _ in range(rounds):
        for label, numpy_call, titer_call in CASES:
            for k, call in enumerate((numpy_call, titer_call)):
                best[label][k] = min(best[label][k], best_us(call, ops, number))
    return best


def report(best, markdown):
    print("%s, Python %s, NumPy %s, titer %s; %d elements; us a call, best of each side"
          % (platform.processor() or platform.machine(), platform.python_version(),
             np.__version__, titer.__version__, N))
    if markdown:
        print("\n| call | NumPy us | titer us | x NumPy |\n| --- | ---: | ---: | ---: |")
    for label, (numpy_us, titer_us) in best.items():
        if markdown:
            print("| %s | %.3f | %.3f | %.2f |" % (label, numpy_us, titer_us, numpy_us / titer_us))
        else:
            print("%-30s numpy %7.3f  titer %7.3f  %5.2fx" % (label, numpy_us, titer_us,
                                                               numpy_us / titer_us))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--number", type=int, default=20000, help="calls per timing")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args(argv)
    titer.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check()
        report(measure(args.rounds, args.number), args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
