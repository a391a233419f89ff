#!/usr/bin/env python3
"""Generate tests/data/torch_strides.json: PyTorch (CPU) as the oracle for
titer's output layout and layout predicates.

    pip install torch==2.13.0
    python3 tools/make_torch_strides.py            # rewrites the golden file
    python3 tools/make_torch_strides.py --check    # fails if it would change

The file holds two lists:

* ``elementwise``: ``a + b`` (op ``add``) and ``-a`` (op ``negative``) with
  ``out=None``.  Each operand is ``{"shape", "strides", "dtype"}`` (strides in
  elements, all >= 0, storage offset 0) and ``result`` is PyTorch's result
  ``{"shape", "strides"}``.  Cases are enumerated systematically (shapes x
  layouts x which operand broadcasts x operand order) plus the worked examples
  of seed 001, so the file is deterministic.
* ``layouts``: every distinct operand layout above plus extra ones, with
  PyTorch's ``is_contiguous`` for the three memory formats,
  ``is_non_overlapping_and_dense`` and ``suggest_memory_format`` (with and
  without ``channels_last_strides_exact_match``).

PyTorch does not expose ``is_non_overlapping_and_dense`` or
``suggest_memory_format`` to Python, so both are read off C++ behaviour:
``empty_like`` (preserve_format) keeps the strides of exactly the NOD tensors,
and ``upsample_nearest{2,3}d`` allocates its output in
``input.suggest_memory_format()``.  Both are cross-checked against the
Python re-implementations in ``torch._prims_common``.

The module is importable without torch (tests/test_output_strides.py uses
``random_case`` and ``torch_elementwise`` for its live comparison).
"""
import argparse
import itertools
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, os.pardir, "tests", "data", "torch_strides.json")

# Dtypes cycled over the cases: strides are in elements, so the layout rule
# must not depend on the item size, and titer works in bytes.
DTYPES = ("float64", "float32", "int32", "int16", "float64", "int64")


# ---------------------------------------------------------------- layouts --

def contiguous_strides(shape):
    """PyTorch's contiguous strides (size-0/1 dims count as 1)."""
    strides, step = [0] * len(shape), 1
    for d in reversed(range(len(shape))):
        strides[d] = step
        step *= max(shape[d], 1)
    return strides


def dense_strides(shape, order):
    """Packed strides with the dims of `order` (slowest first) laid out in
    that order: ``empty(permuted shape).permute(inverse)``."""
    permuted = contiguous_strides([shape[d] for d in order])
    strides = [0] * len(shape)
    for k, d in enumerate(order):
        strides[d] = permuted[k]
    return strides


CHANNELS_LAST_ORDER = {4: (0, 2, 3, 1), 5: (0, 2, 3, 4, 1)}


def storage_size(shape, strides):
    """Elements a buffer needs to hold every element of the view."""
    if any(s == 0 for s in shape):
        return 0
    return 1 + sum((s - 1) * st for s, st in zip(shape, strides))


def layout_library(shape):
    """Named (strides) layouts of one shape: dense ones (contiguous,
    channels-last, permutations), strided views (step slices, padded rows),
    expanded (stride 0) dims and odd strides on size-1 dims."""
    n = len(shape)
    out = {"contiguous": contiguous_strides(shape)}
    if n in CHANNELS_LAST_ORDER:
        name = "channels_last" if n == 4 else "channels_last_3d"
        out[name] = dense_strides(shape, CHANNELS_LAST_ORDER[n])
    if n >= 2:
        out["reversed"] = dense_strides(shape, tuple(reversed(range(n))))
    if n == 3:
        for order in itertools.permutations(range(3)):
            out["perm%s" % "".join(map(str, order))] = dense_strides(shape, order)
    if n == 4:
        for order in ((1, 0, 2, 3), (0, 1, 3, 2), (2, 3, 0, 1), (0, 3, 1, 2)):
            out["perm%s" % "".join(map(str, order))] = dense_strides(shape, order)
    if n == 5:
        for order in ((4, 3, 2, 0, 1), (0, 1, 2, 4, 3), (2, 0, 1, 3, 4)):
            out["perm%s" % "".join(map(str, order))] = dense_strides(shape, order)
    big = [d for d in range(n) if shape[d] > 1]
    if big:
        # x[..., ::2, ...] on the last and on the first dim of size > 1.
        for d in sorted({big[-1], big[0]}):
            grown = list(shape)
            grown[d] *= 2
            strides = contiguous_strides(grown)
            strides[d] *= 2
            out["step2_dim%d" % d] = strides
        # Padded rows: x[..., :size] of a buffer one element wider.
        wider = list(shape)
        wider[-1] += 1
        out["padded_last"] = contiguous_strides(wider)
        # Broadcast by expand(): same shape, stride 0 on one dim.
        strides = contiguous_strides([1 if d == big[0] else s for d, s in enumerate(shape)])
        strides[big[0]] = 0
        out["expanded_dim%d" % big[0]] = strides
        if n in CHANNELS_LAST_ORDER:
            grown = list(shape)
            grown[-1] *= 2
            strides = dense_strides(grown, CHANNELS_LAST_ORDER[n])
            strides[-1] *= 2
            out["channels_last_step2"] = strides
    ones = [d for d in range(n) if shape[d] == 1]
    if ones and n >= 2:
        strides = contiguous_strides(shape)
        for d in ones:
            strides[d] = 7
        out["size1_stride7"] = strides
        strides = dense_strides(shape, tuple(reversed(range(n))))
        for d in ones:
            strides[d] = 11
        out["reversed_size1_stride11"] = strides
    return out


# Shapes of the systematic enumeration: ordinary ones, size-1 dims and the
# ambiguous channels-last shapes (C == 1: N1HW; H == W == 1: NC11 / N111;
# 1C1W), 5-d ones for channels_last_3d, and a few with size-0 dims.
SHAPES = [
    (5,), (1,),
    (3, 4), (1, 4), (3, 1), (4, 4),
    (2, 3, 4), (2, 1, 4), (3, 1, 1), (1, 3, 1),
    (2, 3, 4, 5), (2, 3, 1, 1), (2, 1, 4, 5), (1, 3, 1, 5), (2, 1, 1, 1),
    (1, 3, 4, 5), (2, 3, 4, 1), (2, 3, 1, 4), (1, 1, 4, 5),
    (2, 3, 2, 4, 5), (2, 1, 2, 3, 4), (2, 3, 1, 1, 1), (1, 3, 2, 1, 4),
]
ZERO_SHAPES = [(0,), (2, 0, 3), (0, 3, 1, 1), (2, 3, 0, 4), (2, 0, 4, 5), (0, 3, 2, 2, 2)]
# Same-shape cases try every ordered pair of these layouts (the first of each
# kind that the shape has).
KEY_LAYOUTS = ("contiguous", "channels_last", "reversed", "step2_dim", "expanded_dim")


def operand(shape, strides, dtype):
    return {"shape": list(shape), "strides": list(strides), "dtype": dtype}


def broadcast_shapes(shape):
    """Shapes that broadcast to `shape`: dims set to 1 (the first two masks
    of dims of size > 1), fewer leading dims (lower rank) and 0-d."""
    big = [d for d in range(len(shape)) if shape[d] > 1]
    masks = []
    for r in range(1, len(big) + 1):
        masks.extend(itertools.combinations(big, r))
    out = []
    for mask in masks[:2]:
        out.append(tuple(1 if d in mask else s for d, s in enumerate(shape)))
    for k in range(1, min(len(shape), 3)):
        out.append(tuple(shape[k:]))
    out.append(())
    return list(dict.fromkeys(out))


def systematic_cases():
    """All cases of the golden file, in a fixed order, without duplicates."""
    cases, seen = [], set()
    counter = itertools.count()

    def add(name, op, *ops):
        key = (op,) + tuple((tuple(s), tuple(st)) for s, st in ops)
        if key in seen:
            return
        seen.add(key)
        dtype = DTYPES[next(counter) % len(DTYPES)]
        cases.append({"id": name, "op": op,
                      "inputs": [operand(s, st, dtype) for s, st in ops]})

    for shape in SHAPES + ZERO_SHAPES:
        lib = layout_library(shape)
        if 0 in shape:      # empty: layouts matter little, keep the dense ones
            lib = {k: v for k, v in lib.items()
                   if k in ("contiguous", "reversed", "channels_last", "channels_last_3d")}
        tag = "x".join(map(str, shape))
        # Unary: every layout.
        for lname, strides in lib.items():
            add("neg %s %s" % (tag, lname), "negative", (shape, strides))
        # Same shape: every ordered pair of the key layouts, and every other
        # layout against contiguous, in both orders.
        keys = [next(k for k in lib if k.startswith(prefix)) for prefix in KEY_LAYOUTS
                if any(k.startswith(prefix) for k in lib)]
        for l1, l2 in itertools.product(keys, repeat=2):
            add("add %s %s+%s" % (tag, l1, l2), "add", (shape, lib[l1]), (shape, lib[l2]))
        for lname in lib:
            add("add %s %s+contiguous" % (tag, lname), "add", (shape, lib[lname]),
                (shape, lib["contiguous"]))
            add("add %s contiguous+%s" % (tag, lname), "add", (shape, lib["contiguous"]),
                (shape, lib[lname]))
        # Broadcasting: the full-shape operand contiguous, channels-last (or
        # reversed) or step-sliced against a smaller contiguous one, and
        # contiguous against a smaller reversed one, in both orders.
        full = [k for k in lib if k in ("contiguous", "channels_last", "channels_last_3d")
                or k.startswith("step2_dim")][:3]
        if len(full) < 3 and "reversed" in lib:
            full.append("reversed")
        for small in broadcast_shapes(shape):
            stag = "x".join(map(str, small)) or "0d"
            pairs = [(lname, "contiguous", contiguous_strides(small)) for lname in full]
            if len(small) >= 2:
                pairs.append(("contiguous", "reversed",
                              dense_strides(small, tuple(reversed(range(len(small)))))))
            for lname, sname, sstrides in pairs:
                add("add %s %s + %s %s" % (tag, lname, stag, sname), "add",
                    (shape, lib[lname]), (small, sstrides))
                add("add %s %s + %s %s" % (stag, sname, tag, lname), "add",
                    (small, sstrides), (shape, lib[lname]))
    # 0-d operands.
    add("add 0d+0d", "add", ((), ()), ((), ()))
    add("neg 0d", "negative", ((), ()))
    # Both operands broadcast (outer-product like), to a higher rank.
    for s1, s2 in [((3, 1, 5), (1, 4, 1)), ((4, 1), (3,)), ((2, 1, 4, 1), (3, 1, 5)),
                   ((1, 3, 1, 1), (2, 1, 4, 5)), ((2, 3, 1, 1), (1, 1, 4, 5)),
                   ((3, 1, 1), (2, 1, 4, 5)), ((5,), (2, 3, 4, 1)), ((1, 4), (3, 1)),
                   ((2, 1, 1, 3, 1), (1, 4, 5, 1, 2))]:
        t1, t2 = "x".join(map(str, s1)), "x".join(map(str, s2))
        lib1, lib2 = layout_library(s1), layout_library(s2)
        for l1, l2 in itertools.product(("contiguous", "reversed"), repeat=2):
            if l1 in lib1 and l2 in lib2:
                add("add %s %s + %s %s" % (t1, l1, t2, l2), "add", (s1, lib1[l1]), (s2, lib2[l2]))
                add("add %s %s + %s %s" % (t2, l2, t1, l1), "add", (s2, lib2[l2]), (s1, lib1[l1]))
    return cases + seed_examples()


def seed_examples():
    """The worked examples of seed 001, as PyTorch tensors would hold them."""
    f = "float32"
    return [
        # cl (2,3,4,5) + contiguous (3,4,5) -> (60, 1, 15, 3)
        {"id": "seed001 cl + ct", "op": "add",
         "inputs": [operand((2, 3, 4, 5), (60, 1, 15, 3), f),
                    operand((3, 4, 5), (20, 5, 1), f)]},
        # ambiguous cl (2,3,1,1) from .to(channels_last) + ct (3,1,1) -> (3,1,3,3)
        {"id": "seed001 ambiguous cl + ct", "op": "add",
         "inputs": [operand((2, 3, 1, 1), (3, 1, 3, 3), f),
                    operand((3, 1, 1), (1, 1, 1), f)]},
        # cl (2,3,1,1) + (3,1,3).transpose(0,2) -> (2,3,1,3), (9,1,3,3)
        {"id": "seed001 ambiguous cl + transposed ct", "op": "add",
         "inputs": [operand((2, 3, 1, 1), (3, 1, 3, 3), f),
                    operand((3, 1, 3), (1, 3, 3), f)]},
        # the blog's (2,1,4,4) and (2,4,1,1) ambiguous tensors
        {"id": "seed001 N1HW contiguous + its .to(cl)", "op": "add",
         "inputs": [operand((2, 1, 4, 4), (16, 16, 4, 1), f),
                    operand((2, 1, 4, 4), (16, 1, 4, 1), f)]},
        {"id": "seed001 NC11 + N111", "op": "add",
         "inputs": [operand((2, 4, 1, 1), (4, 1, 1, 1), f),
                    operand((2, 1, 1, 1), (1, 1, 1, 1), f)]},
        # non-overlapping-dense appendix: (3,4) strides (1,3), same strides
        {"id": "seed001 NOD (3,4)/(1,3) twice", "op": "add",
         "inputs": [operand((3, 4), (1, 3), f), operand((3, 4), (1, 3), f)]},
        {"id": "seed001 NOD (3,4)/(1,3) + ct", "op": "add",
         "inputs": [operand((3, 4), (1, 3), f), operand((3, 4), (4, 1), f)]},
        {"id": "seed001 not NOD (4,2,3)/(8,3,1)", "op": "negative",
         "inputs": [operand((4, 2, 3), (8, 3, 1), f)]},
    ]


def random_case(rng):
    """A random `a + b` or `-a` case: random rank and sizes (rarely 0), each
    operand a random dim order, maybe step-sliced, maybe broadcast (size-1
    dims, lower rank, expanded stride 0), odd strides on size-1 dims."""
    ndim = rng.choice((0, 1, 2, 3, 3, 4, 4, 4, 5, 5))
    shape = [rng.choice((1, 1, 2, 3, 4)) for _ in range(ndim)]
    if ndim and rng.random() < 0.05:
        shape[rng.randrange(ndim)] = 0
    dtype = rng.choice(DTYPES)

    def one_operand():
        s = list(shape)
        if rng.random() < 0.5:
            s = [1 if rng.random() < 0.3 else d for d in s]
        if s and rng.random() < 0.25:
            s = s[rng.randrange(len(s) + 1):]
        n = len(s)
        order = list(range(n))
        r = rng.random()
        if n in CHANNELS_LAST_ORDER and r < 0.35:
            order = list(CHANNELS_LAST_ORDER[n])
        elif r < 0.7:
            rng.shuffle(order)
        steps = [2 if rng.random() < 0.15 else 1 for _ in range(n)]
        grown = [d * st for d, st in zip(s, steps)]
        strides = dense_strides(grown, order)
        strides = [st * k for st, k in zip(strides, steps)]
        for d in range(n):
            if s[d] == 1 and rng.random() < 0.3:
                strides[d] = rng.choice((0, 5, 13))
            elif s[d] > 1 and rng.random() < 0.07:
                strides[d] = 0
        return operand(s, strides, dtype)

    if rng.random() < 0.2:
        return {"id": "random", "op": "negative", "inputs": [one_operand()]}
    return {"id": "random", "op": "add", "inputs": [one_operand(), one_operand()]}


# ----------------------------------------------------------------- oracle --

def torch_tensor(desc, value_offset=0):
    """A torch tensor with the operand's shape and strides over a storage of
    distinct values."""
    import torch
    size = max(storage_size(desc["shape"], desc["strides"]), 1)
    base = torch.arange(value_offset, value_offset + size).to(getattr(torch, desc["dtype"]))
    return torch.as_strided(base, desc["shape"], desc["strides"])


def torch_elementwise(case):
    """PyTorch's result shape and strides (elements) for the case, out=None."""
    tensors = [torch_tensor(d, 1000 * i) for i, d in enumerate(case["inputs"])]
    if case["op"] == "add":
        result = tensors[0] + tensors[1]
    elif case["op"] == "negative":
        result = -tensors[0]
    else:
        raise ValueError(case["op"])
    return {"shape": list(result.shape), "strides": list(result.stride())}


def torch_layout(desc):
    """PyTorch's layout predicates for one operand layout."""
    import torch
    from torch._prims_common import (are_strides_like_channels_last_or_false,
                                     is_non_overlapping_and_dense_or_false,
                                     make_channels_last_strides_for)
    t = torch_tensor(dict(desc, dtype="float32"))   # upsample needs a float dtype
    shape, strides = list(t.shape), list(t.stride())
    # empty_like(preserve_format) keeps the strides iff the input is NOD.
    nod = list(torch.empty_like(t).stride()) == strides
    assert nod == is_non_overlapping_and_dense_or_false(t), desc
    like = are_strides_like_channels_last_or_false(shape, strides) and t.ndim in (4, 5)
    fmt = ("channels_last" if t.ndim == 4 else "channels_last_3d") if like else "contiguous"
    if t.ndim in (4, 5) and all(s > 0 for s in shape[1:]):
        # upsample_nearest allocates in input.suggest_memory_format() (C++);
        # it tells the formats apart where their strides differ.
        up = getattr(torch.ops.aten, "upsample_nearest%dd" % (t.ndim - 2))(t, shape[2:])
        cl_name = "channels_last" if t.ndim == 4 else "channels_last_3d"
        cl_strides = list(torch.empty(shape, memory_format=getattr(torch, cl_name)).stride())
        if cl_strides != contiguous_strides(shape):
            cpp = cl_name if list(up.stride()) == cl_strides else "contiguous"
            assert cpp == fmt, (desc, cpp, fmt)
    exact = fmt
    if like and list(make_channels_last_strides_for(shape)) != strides:
        exact = "contiguous"
    return {
        "shape": shape, "strides": strides,
        "is_contiguous": t.is_contiguous(),
        "is_channels_last": t.is_contiguous(memory_format=torch.channels_last),
        "is_channels_last_3d": t.is_contiguous(memory_format=torch.channels_last_3d),
        "is_non_overlapping_and_dense": nod,
        "suggest_memory_format": fmt,
        "suggest_memory_format_exact": exact,
    }


def extra_layouts():
    """Layouts for the predicate tests beyond the elementwise operands."""
    out = [
        ((3, 4), (1, 3)), ((4, 2, 3), (8, 3, 1)), ((4, 2, 3), (6, 3, 1)),
        ((), ()), ((7,), (1,)), ((7,), (2,)), ((7,), (0,)), ((1,), (5,)), ((0,), (3,)),
        ((2, 1, 4, 4), (16, 16, 4, 1)), ((2, 1, 4, 4), (16, 1, 4, 1)),
        ((2, 4, 1, 1), (4, 1, 1, 1)), ((2, 4, 1, 1), (4, 1, 4, 4)),
        ((1, 3, 1, 5), (15, 5, 5, 1)), ((1, 3, 1, 5), (15, 1, 15, 3)),
        ((1, 3, 1, 5), (15, 1, 5, 3)), ((2, 1, 1, 1), (1, 1, 1, 1)),
        ((2, 3, 4, 5), (0, 1, 15, 3)), ((2, 3, 4, 5), (60, 0, 15, 3)),
        ((2, 3, 4, 5), (60, 1, 15, 3)), ((2, 3, 4, 5), (60, 1, 16, 3)),
        ((2, 3, 4, 5), (3, 1, 30, 6)), ((2, 3, 4, 5), (1, 2, 30, 6)),
        ((2, 3, 2, 2, 2), (24, 1, 12, 6, 3)), ((2, 1, 2, 2, 2), (8, 1, 4, 2, 1)),
        ((2, 3, 1, 1, 1), (3, 1, 3, 3, 3)), ((2, 3, 1, 1, 1), (3, 1, 1, 1, 1)),
        ((4, 3), (3, 0)), ((4, 3), (1, 1)), ((3, 3), (3, 2)),
        # empty tensors as torch.empty(..., memory_format=channels_last[_3d])
        # allocates them: channels-last contiguity has no numel == 0 shortcut
        ((0, 3, 4, 5), (60, 1, 15, 3)), ((2, 0, 4, 5), (0, 1, 0, 0)),
        ((2, 3, 0, 4), (0, 1, 12, 3)), ((2, 3, 4, 0), (0, 1, 0, 3)),
        ((0, 3, 2, 2, 2), (24, 1, 12, 6, 3)), ((2, 0, 2, 2, 2), (0, 1, 0, 0, 0)),
        ((0, 4), (0, 0)), ((3, 0), (5, 7)), ((2, 0), (1, 2)),
    ]
    return [operand(s, st, "float32") for s, st in out]


def generate():
    import torch
    cases = systematic_cases()
    for case in cases:
        case["result"] = torch_elementwise(case)
    seen, layouts = set(), []
    for desc in [d for c in cases for d in c["inputs"]] + extra_layouts():
        key = (tuple(desc["shape"]), tuple(desc["strides"]))
        if key in seen:
            continue
        seen.add(key)
        layouts.append(torch_layout(desc))
    return {
        "generator": "tools/make_torch_strides.py",
        "torch_version": torch.__version__.split("+")[0],
        "strides_unit": "elements",
        "elementwise": cases,
        "layouts": layouts,
    }


def dump(data):
    """JSON with one case / layout per line: diffable and compact."""
    lines = ["{"]
    for key in ("generator", "torch_version", "strides_unit"):
        lines.append("  %s: %s," % (json.dumps(key), json.dumps(data[key])))
    for key in ("elementwise", "layouts"):
        lines.append("  %s: [" % json.dumps(key))
        items = [json.dumps(x, separators=(", ", ": ")) for x in data[key]]
        lines.append(",\n".join("    " + x for x in items))
        lines.append("  ]," if key == "elementwise" else "  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--output", default=os.path.normpath(GOLDEN))
    parser.add_argument("--check", action="store_true",
                        help="exit 1 if the file on disk differs from a fresh run")
    args = parser.parse_args(argv)
    text = dump(generate())
    if args.check:
        with open(args.output) as f:
            same = f.read() == text
        print("up to date" if same else "%s is stale; rerun without --check" % args.output)
        return 0 if same else 1
    os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "w") as f:
        f.write(text)
    data = json.loads(text)
    print("wrote %s: %d elementwise cases, %d layouts"
          % (args.output, len(data["elementwise"]), len(data["layouts"])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
