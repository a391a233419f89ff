"""Every signature of the op table against NumPy, one thread and two, at this
machine's best instruction-set level and with AVX-512 disabled on both sides
(issue 24).

    python benchmarks/catalog.py --markdown benchmarks/catalog.md --plot benchmarks/catalog.png

Each level runs in a child process: NumPy reads NPY_DISABLE_CPU_FEATURES and
titer TITER_CPU_DISPATCH at import.  Per signature: every operand of the
signature's dtype, 2^20 elements (in each op's domain), ``out=`` given to
both libraries (``where``: both allocate, as np.where has no out=), NumPy,
titer on 1 thread and titer on 2 threads timed in alternating rounds (three
calls in a row each, the first warming the caches), each the best of its
calls; every signature below a target (1.0x on one thread, 1.8x on two)
is timed again after the whole sweep, ``--confirm`` more rounds of all
three, each keeping its best of both passes, so that a busy spell of a
shared machine during one signature's rounds does not make a gap (most
of the simple loops a one-pass sweep put below 0.9x on a busy VM were at
0.95-1.15x when rerun; retimed at once, within the same spell, many were
not).  Casts (``titer.copy`` against ``np.copyto``)
between every pair of dtypes come after the ops.  Ratios are NumPy's time /
titer's: above 1, titer is faster.  NumPy runs on one thread throughout."""
import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time

import numpy as np

# NumPy 2.x dispatch targets that hold AVX-512 code (X86_V4 = AVX512_SKX)
NUMPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR AVX512_SKX AVX512_CLX AVX512_CNL"
TARGET_1T, TARGET_2T = 1.0, 1.8
# inputs: floats uniform in the op's domain, integers in [1, 60), bools even
FLOAT_DOMAIN = {"arccosh": (1.1, 1.9)}
FLOAT_DEFAULT = (0.1, 0.9)


def _operand(rng, char, n, op_name):
    dtype = np.dtype(char)
    if dtype.kind == "b":
        return rng.random(n) < 0.5
    if dtype.kind in "iu":
        return rng.integers(1, 60, n).astype(dtype)
    lo, hi = FLOAT_DOMAIN.get(op_name, FLOAT_DEFAULT)
    if dtype.kind == "c":
        return (rng.uniform(lo, hi, n) + 1j * rng.uniform(-hi, hi, n)).astype(dtype)
    return rng.uniform(lo, hi, n).astype(dtype)


def _best_rounds(calls, rounds, repeat=3):
    """Each call timed `repeat` times in a row per round (the first warms the
    caches for it: a 2^20-element operand fits in L2, and the contestant
    before leaves it in another core's), the calls in turn, so a burst on a
    shared machine hits all alike; the best time of each."""
    best = [math.inf] * len(calls)
    for _ in range(rounds):
        for k, call in enumerate(calls):
            for _ in range(repeat):
                start = time.perf_counter()
                call()
                best[k] = min(best[k], time.perf_counter() - start)
    return best


def _time_titer_and_numpy(titer, numpy_call, titer_call, rounds):
    def threads(count):
        def call():
            titer.set_num_threads(count)
            titer_call()
        return call
    numpy_s, one_s, two_s = _best_rounds([numpy_call, threads(1), threads(2)], rounds)
    titer.set_num_threads(None)
    return numpy_s, one_s, two_s


def _behind(row):
    return (row["numpy"] / row["titer_1t"] < TARGET_1T
            or row["numpy"] / row["titer_2t"] < TARGET_2T)


def _op_rows(titer, n, rounds, only, keys=None):
    """The op signatures' rows (those of `keys`, (kind, name, sig), if given)."""
    from titer import _ops
    rng = np.random.default_rng(0)
    for op in _ops.OPS:
        if only and op.name not in only:
            continue
        for sig in op.types:
            if keys is not None and ("op", op.name, sig) not in keys:
                continue
            ins, outs = _ops.parse_signature(sig)
            args = [_operand(rng, c, n, op.name) for c in ins]
            if op.name == "where":
                numpy_call = lambda: np.where(*args)                     # noqa: E731
                titer_call = lambda: titer.elementwise("where", None, *args)  # noqa: E731
            else:
                ufunc = np.clip if op.name == "clip" else getattr(np, op.name)
                mine = tuple(np.empty(n, c) for c in outs)
                theirs = tuple(np.empty(n, c) for c in outs)
                out_t = mine if len(mine) > 1 else mine[0]
                out_n = theirs if len(theirs) > 1 else theirs[0]
                numpy_call = lambda: ufunc(*args, out=out_n)             # noqa: E731
                titer_call = lambda: titer.elementwise(op.name, out_t, *args)  # noqa: E731
            with np.errstate(all="ignore"):
                numpy_s, one_s, two_s = _time_titer_and_numpy(titer, numpy_call, titer_call,
                                                              rounds)
            yield {"kind": "op", "name": op.name, "sig": sig, "numpy": numpy_s,
                   "titer_1t": one_s, "titer_2t": two_s}


def _cast_rows(titer, n, rounds, keys=None):
    from titer import _ops
    rng = np.random.default_rng(1)
    chars = sorted(set("".join(_ops.parse_signature(s)[0] for op in _ops.OPS for s in op.types)),
                   key="?bBhHiIlLqQefdFD".find)
    chars = [c for c in chars if c in "?bBhHiIlLefdFD"]
    for src_char in chars:
        src = _operand(rng, src_char, n, "copy")
        for dst_char in chars:
            if dst_char == src_char or (keys is not None and ("cast", "copy", "%s->%s" % (
                    src_char, dst_char)) not in keys):
                continue
            mine, theirs = np.empty(n, dst_char), np.empty(n, dst_char)
            with np.errstate(all="ignore"):
                numpy_s, one_s, two_s = _time_titer_and_numpy(
                    titer, lambda: np.copyto(theirs, src, casting="unsafe"),
                    lambda: titer.copy(mine, src, casting="unsafe"), rounds)
            yield {"kind": "cast", "name": "copy", "sig": "%s->%s" % (src_char, dst_char),
                   "numpy": numpy_s, "titer_1t": one_s, "titer_2t": two_s}


def child(args):
    import warnings
    warnings.simplefilter("ignore")
    import titer
    from numpy._core._multiarray_umath import __cpu_features__
    from titer import _core
    only = set(args.ops.split(",")) if args.ops else None
    info = {"titer_level": _core.isa_levels()[1],
            "numpy_avx512": bool(__cpu_features__.get("AVX512_SKX")),
            "vector_libm": _core.has_vector_libm()}
    print(json.dumps({"info": info}), flush=True)
    casts = not args.no_casts and not only
    rows = list(_op_rows(titer, args.size, args.rounds, only))
    if casts:
        rows += list(_cast_rows(titer, args.size, args.rounds))
    if args.confirm:            # the ones behind, again after the whole sweep
        keys = {(r["kind"], r["name"], r["sig"]) for r in rows if _behind(r)}
        again = list(_op_rows(titer, args.size, args.confirm, only, keys))
        if casts:
            again += list(_cast_rows(titer, args.size, args.confirm, keys))
        again = {(r["kind"], r["name"], r["sig"]): r for r in again}
        for row in rows:
            retimed = again.get((row["kind"], row["name"], row["sig"]))
            if retimed:
                for key in ("numpy", "titer_1t", "titer_2t"):
                    row[key] = min(row[key], retimed[key])
    for row in rows:
        print(json.dumps(row), flush=True)


def run_level(level, args):
    import titer
    # the child imports the titer this process imports (an in-place build too)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [os.path.dirname(os.path.dirname(titer.__file__)), os.environ.get("PYTHONPATH", "")]))
    if level == "avx2":
        env["TITER_CPU_DISPATCH"] = "avx2"
        env["NPY_DISABLE_CPU_FEATURES"] = NUMPY_AVX512
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--size", str(args.size),
           "--rounds", str(args.rounds), "--confirm", str(args.confirm)] + (["--ops", args.ops] if args.ops else []) + (
           ["--no-casts"] if args.no_casts else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode:
        raise SystemExit("level %s failed:\n%s" % (level, proc.stderr[-3000:]))
    lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    info = lines[0]["info"]
    info["level"] = level
    return {"info": info, "rows": lines[1:]}


def _ratio(row, key):
    return row["numpy"] / row[key]


def _geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def machine_text():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    import titer
    return "%s, %d cores, Python %s, NumPy %s, titer %s" % (
        model, os.cpu_count(), platform.python_version(), np.__version__, titer.__version__)


def summary_lines(result):
    lines = ["| level | kind | signatures | 1 thread: median x NumPy | geomean | "
             "below %.1fx | below 0.9x | 2 threads: median | geomean | below %.1fx |"
             % (TARGET_1T, TARGET_2T),
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for level in result["levels"]:
        for kind in ("op", "cast"):
            rows = [r for r in level["rows"] if r["kind"] == kind]
            if not rows:
                continue
            one = sorted(_ratio(r, "titer_1t") for r in rows)
            two = sorted(_ratio(r, "titer_2t") for r in rows)
            lines.append("| %s | %s | %d | %.2f | %.2f | %d | %d | %.2f | %.2f | %d |" % (
                level["info"]["level"], kind, len(rows), one[len(one) // 2], _geomean(one),
                sum(v < TARGET_1T for v in one), sum(v < 0.9 for v in one),
                two[len(two) // 2], _geomean(two), sum(v < TARGET_2T for v in two)))
    return lines


# a signature "behind": below these, clear of run-to-run noise (memory-bound
# loops sit at 0.9-1.1x on one thread: both libraries at the bandwidth)
BEHIND_1T, BEHIND_2T = 0.9, 1.6


def below_target_lines(result, one=BEHIND_1T, two=BEHIND_2T):
    lines = ["| level | signature | NumPy ms | titer 1T ms | 1T x NumPy | titer 2T ms | 2T x NumPy |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]
    for level in result["levels"]:
        rows = [r for r in level["rows"] if _ratio(r, "titer_1t") < one
                or _ratio(r, "titer_2t") < two]
        for r in sorted(rows, key=lambda r: _ratio(r, "titer_1t")):
            lines.append("| %s | %s %s | %.3f | %.3f | %.2f | %.3f | %.2f |" % (
                level["info"]["level"], r["name"], r["sig"], r["numpy"] * 1e3,
                r["titer_1t"] * 1e3, _ratio(r, "titer_1t"), r["titer_2t"] * 1e3,
                _ratio(r, "titer_2t")))
    return lines


def load(path):
    with open(path) as f:
        return json.load(f)


def markdown(result):
    out = ["Machine: %s.  Date: %s.  Command: `%s`.  %d elements per operand, "
           "best of %d rounds (%s); ratios are NumPy's time / titer's (above 1: titer faster).  "
           "Levels: %s." % (result["machine"], result["date"], result["command"], result["size"],
                           result["rounds"], "a signature below a target timed again after the "
                           "sweep, %d more"
                           % result["confirm"] if result.get("confirm") else "one pass",
                           "; ".join(
                               "%(level)s (titer %(titer_level)s, NumPy AVX-512 %(numpy_avx512)s, "
                               "libmvec %(vector_libm)s)" % lv["info"] for lv in result["levels"])),
           ""] + summary_lines(result) + [
           "", "Behind NumPy (below %.1fx on one thread or %.1fx on two):" % (BEHIND_1T, BEHIND_2T),
           ""] + below_target_lines(result) + ["", "Every signature:", ""] + every_row_lines(result)
    return "\n".join(out) + "\n"


def every_row_lines(result):
    levels = result["levels"]
    lines = ["| signature | " + " | ".join("%s: NumPy ms | 1T x | 2T x" % lv["info"]["level"]
                                          for lv in levels) + " |",
             "| --- |" + " ---: | ---: | ---: |" * len(levels)]
    keyed = [{(r["name"], r["sig"]): r for r in lv["rows"]} for lv in levels]
    for r in levels[0]["rows"]:
        key = (r["name"], r["sig"])
        cells = []
        for rows in keyed:
            other = rows.get(key)
            cells += (["%.3f" % (other["numpy"] * 1e3), "%.2f" % _ratio(other, "titer_1t"),
                       "%.2f" % _ratio(other, "titer_2t")] if other else ["-"] * 3)
        lines.append("| %s %s | %s |" % (key[0], key[1], " | ".join(cells)))
    return lines


def plot(result, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, axes = plt.subplots(1, len(result["levels"]), figsize=(7 * len(result["levels"]), 4.5),
                             squeeze=False)
    for ax, level in zip(axes[0], result["levels"]):
        for key, label, target in (("titer_1t", "1 thread", TARGET_1T),
                                   ("titer_2t", "2 threads", TARGET_2T)):
            ratios = sorted(_ratio(r, key) for r in level["rows"])
            ax.plot(range(len(ratios)), ratios, label=label)
            ax.axhline(target, ls="--", lw=0.8, color="gray")
        ax.set_yscale("log")
        ax.set_title("level %s: titer vs NumPy, every signature" % level["info"]["level"])
        ax.set_xlabel("signatures and casts, sorted")
        ax.set_ylabel("NumPy time / titer time")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="best,avx2",
                        help="comma-separated: best (this machine's), avx2 (AVX-512 off on both sides)")
    parser.add_argument("--size", type=int, default=2 ** 20)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--confirm", type=int, default=7,
                        help="more rounds for a signature below a target (0: none)")
    parser.add_argument("--ops", default="", help="only these ops (comma-separated)")
    parser.add_argument("--no-casts", action="store_true")
    parser.add_argument("--json")
    parser.add_argument("--markdown")
    parser.add_argument("--plot")
    parser.add_argument("--from-json", help="redo the tables and plot of a saved --json run")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    result = load(args.from_json) if args.from_json else {"machine": machine_text(), "date": time.strftime("%Y-%m-%d"),
              "command": "python benchmarks/catalog.py " + " ".join(sys.argv[1:]),
              "size": args.size, "rounds": args.rounds, "confirm": args.confirm,
              "levels": [run_level(level, args) for level in args.levels.split(",")]}
    text = markdown(result)
    print(text)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.plot:
        plot(result, args.plot)


if __name__ == "__main__":
    main()
