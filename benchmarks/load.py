"""titer's threads on a machine that is not quiet (issue 23).

Times titer with all usable cores ("N threads", the default) against titer
on one thread, in the same run, under each load condition:

  idle            nothing else running
  busy            one busy-loop process, free to run on any core
  busy@cpuK       the busy loop pinned to core K (each of the first two)

and, in each condition, three kinds of calls:

  back-to-back    median of repeated calls (add, exp, sum; 2^20 and 2^24 float32)
  spaced          calls 2 ms apart (2^20): median and p90 of each call's time
  callers         1, 2 and 4 Python threads calling titer (add 2^20) for a
                  fixed time: total calls per second

The busy loop is a child process started and killed by its pid here, and
it stops itself after 60 s whatever happens.  Ratios are N threads / 1
thread for times (< 1 = threads help) and N threads / 1 thread for calls
per second in the callers table (> 1 = threads help).

    python benchmarks/load.py                   # full run, ~2 minutes on 2 cores
    python benchmarks/load.py --quick           # fewer repeats, ~40 s
    python benchmarks/load.py --json load.json  # also the raw numbers
    python benchmarks/load.py --compare before.json after.json   # two runs' ratios, no timing
"""
import argparse
import contextlib
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time

import numpy as np

import titer

BUSY_LOOP = ("import time\n"
             "deadline = time.monotonic() + 60\n"
             "while time.monotonic() < deadline:\n"
             "    for _ in range(100000): pass\n")


@contextlib.contextmanager
def busy_process(cpu):
    """One process spinning on a core (cpu=None: anywhere), for the block."""
    def pin():
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})
    proc = subprocess.Popen([sys.executable, "-c", BUSY_LOOP], preexec_fn=pin)
    time.sleep(0.3)                     # let it start and settle on its core
    try:
        yield
    finally:
        proc.kill()
        proc.wait()


def conditions():
    cpus = sorted(os.sched_getaffinity(0))
    yield "idle", contextlib.nullcontext
    yield "busy", lambda: busy_process(None)
    for cpu in cpus[:2]:
        yield "busy@cpu%d" % cpu, (lambda c=cpu: busy_process(c))


def make_calls(n):
    rng = np.random.default_rng(0)
    a = rng.random(n, dtype=np.float32)
    b = rng.random(n, dtype=np.float32)
    out = np.empty_like(a)
    return {
        "add": lambda: titer.elementwise("add", out, a, b),
        "exp": lambda: titer.elementwise("exp", out, a),
        "sum": lambda: titer.sum(a),
    }


def timed(call):
    t0 = time.perf_counter()
    call()
    return time.perf_counter() - t0


def back_to_back(call, repeats):
    """Each call's time, `repeats` calls in a row after one warm-up call."""
    call()
    return [timed(call) for _ in range(repeats)]


def spaced(call, repeats, gap=0.002):
    """Each call's time, calls `gap` seconds apart."""
    call()
    times = []
    for _ in range(repeats):
        time.sleep(gap)
        times.append(timed(call))
    return times


def p90(times):
    times = sorted(times)
    return times[int(0.9 * (len(times) - 1))]


def callers_rate(call, ncallers, seconds):
    """Total calls per second of ncallers Python threads calling for `seconds`."""
    counts = [0] * ncallers
    start = threading.Barrier(ncallers + 1)
    stop = threading.Event()

    def work(i):
        start.wait()
        while not stop.is_set():
            call()
            counts[i] += 1

    threads = [threading.Thread(target=work, args=(i,)) for i in range(ncallers)]
    for t in threads:
        t.start()
    start.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


CASES = [("%s 2^20" % name, 1 << 20, name, back_to_back, 5) for name in ("add", "exp", "sum")] \
    + [("%s 2^24" % name, 1 << 24, name, back_to_back, 1) for name in ("add", "exp", "sum")] \
    + [("%s 2^20 spaced" % name, 1 << 20, name, spaced, 5) for name in ("add", "exp", "sum")]


def measure(threads, quick):
    """{case: [many-thread result, one-thread result]}: the two settings
    take turns in rounds, so a drift in the load hits both alike."""
    rounds, per_round = (2, 4) if quick else (4, 5)
    calls = {1 << 20: make_calls(1 << 20), 1 << 24: make_calls(1 << 24)}
    result = {}
    for case, n, name, how, scale in CASES:
        times = {threads: [], 1: []}
        for _ in range(rounds):
            for k in (threads, 1):
                with titer.num_threads(k):
                    times[k] += how(calls[n][name], per_round * scale)
        if how is spaced:
            result[case] = [(statistics.median(times[k]), p90(times[k])) for k in (threads, 1)]
        else:
            result[case] = [statistics.median(times[k]) for k in (threads, 1)]
    for k in (1, 2, 4):
        rates = {threads: [], 1: []}
        for _ in range(rounds):
            for t in (threads, 1):
                with titer.num_threads(t):
                    rates[t].append(callers_rate(calls[1 << 20]["add"], k,
                                                 0.15 if quick else 0.25))
        result["callers %d" % k] = [statistics.median(rates[t]) for t in (threads, 1)]
    return result


def run(quick):
    usable = len(os.sched_getaffinity(0))
    rows = {}
    for label, load in conditions():
        with load():
            both = measure(usable, quick)
        rows[label] = {"threads": usable, "many": {c: v[0] for c, v in both.items()},
                       "one": {c: v[1] for c, v in both.items()}}
        print("measured:", label, file=sys.stderr)
    return rows


def ms(seconds):
    return "%.2f" % (seconds * 1e3)


def report(rows):
    usable = next(iter(rows.values()))["threads"]
    lines = ["Times in ms (median; p90 for spaced calls); ratio = %d threads / 1 thread "
             "(below 1: the threads help)." % usable, "",
             "| condition | case | %d threads | 1 thread | ratio |" % usable,
             "| --- | --- | ---: | ---: | ---: |"]
    for label, row in rows.items():
        many, one = row["many"], row["one"]
        for case in many:
            if case.startswith("callers"):
                continue
            if case.endswith("spaced"):
                for i, what in ((0, "median"), (1, "p90")):
                    lines.append("| %s | %s, %s | %s | %s | %.2f |" % (
                        label, case, what, ms(many[case][i]), ms(one[case][i]),
                        many[case][i] / one[case][i]))
            else:
                lines.append("| %s | %s | %s | %s | %.2f |" % (
                    label, case, ms(many[case]), ms(one[case]), many[case] / one[case]))
    lines += ["", "Python callers, each calling add 2^20 float32 in a loop: total calls/s; "
              "ratio = titer on %d threads / titer on 1 thread (above 0.9: target met)."
              % usable, "",
              "| condition | callers | titer %d threads | titer 1 thread | ratio |" % usable,
              "| --- | ---: | ---: | ---: | ---: |"]
    for label, row in rows.items():
        for k in (1, 2, 4):
            key = "callers %d" % k
            lines.append("| %s | %d | %.0f | %.0f | %.2f |" % (
                label, k, row["many"][key], row["one"][key], row["many"][key] / row["one"][key]))
    return "\n".join(lines)


def ratios(rows):
    """{(condition, case): N threads / 1 thread} of one run (for calls/s, 1 / that)."""
    out = {}
    for label, row in rows.items():
        for case, many in row["many"].items():
            one = row["one"][case]
            if case.startswith("callers"):
                out[label, case + " (calls/s)"] = many / one
            elif case.endswith("spaced"):
                out[label, case + ", p90"] = many[1] / one[1]
            else:
                out[label, case] = many / one
    return out


def target(key):
    """The issue's target for a (condition, case) ratio, as text."""
    condition, case = key
    if case.endswith("(calls/s)"):
        return ">= 0.90" if not case.startswith("callers 1 ") else "-"
    if condition == "idle":
        return "<= 0.60" if case.endswith("2^24") else "no slower"
    return "<= 1.10" if case.endswith("2^24") else "<= 1.50" if case.endswith("p90") else "-"


def compare(files):
    """The runs' ratios side by side, one column per JSON file of --json."""
    runs = []
    for name in files:
        with open(name) as f:
            runs.append(ratios(json.load(f)))
    names = [os.path.splitext(os.path.basename(name))[0] for name in files]
    lines = ["| condition | case | target | %s |" % " | ".join(names),
             "| --- | --- | --- |%s" % (" ---: |" * len(files))]
    for key in runs[-1]:
        if all(key in run for run in runs) and target(key) != "-":
            lines.append("| %s | %s | %s | %s |" % (key[0], key[1], target(key), " | ".join(
                "%.2f" % run[key] for run in runs)))
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--json", help="write the raw numbers here")
    parser.add_argument("--compare", nargs="+", metavar="RUN",
                        help="print runs' ratios side by side (JSON files of --json)")
    args = parser.parse_args()
    if args.compare:
        print(compare(args.compare))
        return
    rows = run(args.quick)
    print("Machine: %s, %d usable cores; titer %s, NumPy %s, Python %s; %s" % (
        platform.processor() or platform.machine(), len(os.sched_getaffinity(0)),
        titer.__version__, np.__version__, platform.python_version(),
        time.strftime("%Y-%m-%d")))
    print(report(rows))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
