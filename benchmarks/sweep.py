"""Size sweep (issue 6): GB/s of `out = a + b` for float32 from 2^4 to 2^26
elements, contiguous and stride-2, with 1 and 2 threads, for titer, NumPy,
PyTorch and numexpr; a PNG plot and the crossover sizes.

    python benchmarks/sweep.py --png benchmarks/sweep.png --json sweep.json

Bytes moved = 3 x 4 x n (two reads, one write), timed as the best of
five rounds of enough calls to fill ~20 ms (titer._demo.best_seconds).
"""
import argparse
import json

import numpy as np

import titer
from titer._demo import best_seconds

try:
    import torch
except ImportError:
    torch = None
try:
    import numexpr
except ImportError:
    numexpr = None


def impls(a, b, out, threads):
    """name -> zero-argument call computing a + b into out."""
    calls = {
        "titer": lambda: titer.elementwise("add", out, a, b),
        "numpy": lambda: np.add(a, b, out=out),
    }
    if torch is not None:
        ta, tb, to = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(out)
        calls["torch"] = lambda: torch.add(ta, tb, out=to)
    if numexpr is not None:
        calls["numexpr"] = lambda: numexpr.evaluate("a + b", local_dict={"a": a, "b": b}, out=out)
    return calls


def sweep(powers, threads_list, layouts):
    rows = []
    for layout in layouts:
        for threads in threads_list:
            titer.set_num_threads(threads)
            if torch is not None:
                torch.set_num_threads(threads)
            if numexpr is not None:
                numexpr.set_num_threads(threads)
            for p in powers:
                n = 2 ** p
                step = 2 if layout == "stride-2" else 1
                a = np.random.rand(n * step).astype(np.float32)[::step]
                b = np.random.rand(n * step).astype(np.float32)[::step]
                out = np.empty(n, np.float32)
                for name, call in impls(a, b, out, threads).items():
                    if name == "torch" and step != 1:
                        pass                    # torch handles strided views too
                    seconds = best_seconds(call, repeat=5)
                    rows.append({"impl": name, "layout": layout, "threads": threads, "n": n,
                                 "seconds": seconds, "gbps": 12 * n / seconds / 1e9})
                    print("%-8s %-10s %d thr 2^%-2d %8.3f us %6.1f GB/s" % (
                        name, layout, threads, p, seconds * 1e6, rows[-1]["gbps"]), flush=True)
    return rows


def crossovers(rows):
    """Per (layout, threads): the smallest size from which titer stays at
    least as fast as NumPy, and each size where it is slower."""
    notes = []
    for layout in sorted({r["layout"] for r in rows}):
        for threads in sorted({r["threads"] for r in rows}):
            ours = {r["n"]: r["seconds"] for r in rows
                    if r["impl"] == "titer" and r["layout"] == layout and r["threads"] == threads}
            theirs = {r["n"]: r["seconds"] for r in rows
                      if r["impl"] == "numpy" and r["layout"] == layout and r["threads"] == threads}
            slower = [n for n in sorted(ours) if ours[n] > theirs[n]]
            notes.append("%s, %d thread(s): titer slower than NumPy at %s" % (
                layout, threads, ", ".join("2^%d" % int(np.log2(n)) for n in slower) or "no size"))
    return notes


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    layouts = sorted({r["layout"] for r in rows})
    threads = sorted({r["threads"] for r in rows})
    fig, axes = plt.subplots(len(layouts), len(threads), figsize=(6 * len(threads),
                                                                   4 * len(layouts)),
                             squeeze=False, sharey=True)
    for i, layout in enumerate(layouts):
        for j, thr in enumerate(threads):
            ax = axes[i][j]
            for impl in ("titer", "numpy", "torch", "numexpr"):
                pts = sorted((r["n"], r["gbps"]) for r in rows if r["impl"] == impl
                             and r["layout"] == layout and r["threads"] == thr)
                if pts:
                    ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", ms=3,
                            label=impl)
            ax.set_xscale("log", base=2)
            ax.set_title("float32 a + b, %s, %d thread(s)" % (layout, thr))
            ax.set_xlabel("elements")
            ax.set_ylabel("GB/s (3 x 4 bytes per element)")
            ax.grid(True, alpha=0.3)
            ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=90)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", default="benchmarks/sweep.png")
    parser.add_argument("--json", default=None)
    parser.add_argument("--max-power", type=int, default=26)
    parser.add_argument("--step", type=int, default=2, help="power-of-two step between sizes")
    args = parser.parse_args()
    powers = list(range(4, args.max_power + 1, args.step))
    rows = sweep(powers, [1, 2], ["contiguous", "stride-2"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    plot(rows, args.png)
    for note in crossovers(rows):
        print(note)


if __name__ == "__main__":
    main()
