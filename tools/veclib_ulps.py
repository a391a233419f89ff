"""How far titer's float32 transcendental loops are from the correctly
rounded result, over every float32 (unary ops) or random pairs (binary ops),
at each instruction-set level this machine runs:

    python tools/veclib_ulps.py                 # every float32: ~10 minutes
    python tools/veclib_ulps.py --step 7 --ops log2,tanh

The reference is NumPy's float64 function rounded to float32 (a float64
result is far closer than half a float32 ULP, so this is the correctly
rounded value but in the rarest ties).  Counted: finite inputs whose
reference is a normal finite float32.  Each level runs in its own process
(TITER_CPU_DISPATCH is read at import).  The loops compared are the ones the
op table runs: glibc's vector math library where the build has it
(titer/src/titer_veclib.h), titer's own paths otherwise."""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

CHUNK = 1 << 24


def ulp_distance(got, want):
    ints = got.view(np.int32).astype(np.int64), want.view(np.int32).astype(np.int64)
    lowest = np.int64(np.iinfo(np.int32).min)
    g, w = (np.where(v < 0, lowest - v, v) for v in ints)
    return np.abs(g - w)


def measure(name, step, pairs):
    import titer
    from titer import _ops
    op = _ops.OPS_BY_NAME[name]
    fn = getattr(np, name)
    worst, worst_at, over1, count = 0, None, 0, 0
    if op.nin == 1:
        chunks = ((np.arange(start, min(start + CHUNK * step, 1 << 32), step,
                             dtype=np.uint64).astype(np.uint32).view(np.float32),)
                  for start in range(0, 1 << 32, CHUNK * step))
    else:
        rng = np.random.default_rng(0)
        chunks = ((np.exp2(rng.uniform(-60, 60, CHUNK)).astype(np.float32)
                   * rng.choice(np.float32([-1, 1]), CHUNK),
                   rng.uniform(-40, 40, CHUNK).astype(np.float32))
                  for _ in range(max(1, pairs // CHUNK)))
    for args in chunks:
        with np.errstate(all="ignore"):
            got = titer.elementwise(name, None, *args)
            want = fn(*[a.astype(np.float64) for a in args]).astype(np.float32)
        keep = np.isfinite(want) & (np.abs(want) >= np.finfo(np.float32).tiny)
        for a in args:
            keep &= np.isfinite(a)
        dist = ulp_distance(got[keep], want[keep])
        count += int(keep.sum())
        if dist.size:
            k = int(np.argmax(dist))
            if dist[k] > worst:
                worst, worst_at = int(dist[k]), [float(a[keep][k]) for a in args]
            over1 += int((dist > 1).sum())
    return {"op": name, "max_ulp": worst, "at": worst_at, "over_1_ulp": over1, "count": count}


def child(args):
    from titer import _core
    print(json.dumps({"level": _core.isa_levels()[1]}), flush=True)
    for name in args.ops.split(","):
        print(json.dumps(measure(name, args.step, args.pairs)), flush=True)


def main():
    from titer import _core, _ops
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = sorted({op.name for op in _ops.OPS for sig in (op.veclib or {}) if sig[0] == "f"})
    parser.add_argument("--ops", default=",".join(default))
    parser.add_argument("--step", type=int, default=1, help="every step-th float32 bit pattern")
    parser.add_argument("--pairs", type=int, default=1 << 26, help="random pairs (binary ops)")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        return child(args)
    levels = [name for name, (compiled, runnable) in _core.isa_levels()[0].items()
              if compiled and runnable]
    print("vector libm in this build: %s; levels: %s" % (_core.has_vector_libm(), levels))
    for level in levels:
        env = dict(os.environ, TITER_CPU_DISPATCH=level)
        cmd = [sys.executable, os.path.abspath(__file__), "--child", "--ops", args.ops,
               "--step", str(args.step), "--pairs", str(args.pairs)]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(proc.stderr[-3000:])
        rows = [json.loads(line) for line in proc.stdout.splitlines()]
        print("\nlevel %s" % rows[0]["level"])
        for row in rows[1:]:
            print("  %-8s max %d ULP at %s; %d of %d over 1 ULP"
                  % (row["op"], row["max_ulp"], row["at"], row["over_1_ulp"], row["count"]))


if __name__ == "__main__":
    main()
