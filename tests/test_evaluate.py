"""titer.evaluate (issue 26): fused expressions, checked against the same
expression computed by composing titer.elementwise calls (bit for bit) and
by NumPy's ufuncs (the elementwise standard), on seeded random trees."""
import collections
import math
import shutil
import subprocess
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import titer

# -- random expression trees ------------------------------------------------------
# A tree is ("name", id) / ("lit", value) / (op, child, ...); op is a titer op
# name or one of the Python operators below.

OPERATORS = {"+": "add", "-": "subtract", "*": "multiply", "/": "divide", "//": "floor_divide",
             "%": "remainder", "**": "**", "&": "bitwise_and", "|": "bitwise_or",
             "^": "bitwise_xor", "<": "less", "<=": "less_equal", "==": "equal",
             "!=": "not_equal", ">": "greater", ">=": "greater_equal"}
UNARY_OPERATORS = {"neg": "-", "pos": "+", "inv": "~"}
FAMILIES = {
    "arithmetic": ["+", "-", "*", "/", "//", "%", "**", "neg", "pos", "absolute", "square",
                   "maximum", "minimum"],
    "comparison": ["<", "<=", "==", "!=", ">", ">="],
    "logical": ["&", "|", "^", "inv", "logical_and", "logical_or", "logical_not"],
    "transcendental": ["sin", "cos", "exp", "log", "sqrt", "tanh", "arctan2", "hypot", "log1p"],
    "select": ["where", "clip"],
}
ARITY = {"absolute": 1, "square": 1, "logical_not": 1, "sin": 1, "cos": 1, "exp": 1, "log": 1,
         "sqrt": 1, "tanh": 1, "log1p": 1, "neg": 1, "pos": 1, "inv": 1, "where": 3,
         "clip": 3}
APPROX = {"sin", "cos", "exp", "log", "tanh", "arctan2", "hypot", "log1p", "**"}
DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32, np.float64,
          np.complex64, np.complex128]


def render(tree):
    kind = tree[0]
    if kind == "name":
        return tree[1]
    if kind == "lit":
        return repr(tree[1])
    args = [render(t) for t in tree[1:]]
    if kind in OPERATORS:
        return "(%s %s %s)" % (args[0], kind, args[1])
    if kind in UNARY_OPERATORS:
        return "(%s%s)" % (UNARY_OPERATORS[kind], args[0])
    return "%s(%s)" % (kind, ", ".join(args))


def op_name(kind):
    return {"neg": "negative", "pos": "positive", "inv": "invert"}.get(
        kind, OPERATORS.get(kind, kind))


def fast_power(base, exponent):
    """ndarray's `**` (NumPy's fast_scalar_power)."""
    dt = None if type(base) in (bool, int, float, complex) else np.asarray(base).dtype
    if dt is not None and dt.kind in "fc" and type(exponent) in (int, float):
        return {(int, 2): "square", (int, -1): "reciprocal",
                (float, 0.5): "sqrt"}.get((type(exponent), exponent))
    return None


def compose(tree, env, call):
    """The tree computed by `call(op, *args)` node by node."""
    kind = tree[0]
    if kind == "name":
        return env[tree[1]]
    if kind == "lit":
        return tree[1]
    args = [compose(t, env, call) for t in tree[1:]]
    op = op_name(kind)
    if op == "**":
        special = fast_power(args[0], args[1])
        op, args = (special, args[:1]) if special else ("power", args)
    return call(op, *args)


def titer_call(op, *args):
    return titer.elementwise(op, None, *args)


def numpy_call(op, *args):
    # clip: NumPy's clip ufunc, the one titer.elementwise("clip") is (np.clip
    # the function adds its own handling of out-of-range Python ints)
    return (np._core.umath.clip if op == "clip" else getattr(np, op))(*args)


def leaf_array(rng, dtype, shape):
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        info = np.iinfo(dt)
        return rng.integers(max(info.min, -50), min(info.max, 50), shape, endpoint=True).astype(dt)
    x = rng.standard_normal(shape) * 3
    if dt.kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dt)


def layout(rng, x):
    """x in one of the layouts the iterator meets: contiguous, strided,
    reversed, transposed (2-d)."""
    choice = rng.integers(4)
    if choice == 1:
        big = np.empty(x.shape[:-1] + (2 * x.shape[-1],), x.dtype) if x.ndim else None
        if big is not None:
            big[..., ::2] = x
            return big[..., ::2]
    if choice == 2 and x.ndim:
        return np.ascontiguousarray(x[..., ::-1])[..., ::-1]
    if choice == 3 and x.ndim == 2:
        return np.asfortranarray(x)
    return x


def random_case(seed, families=tuple(FAMILIES), max_depth=5):
    rng = np.random.default_rng(seed)
    shape = [(), (7,), (5, 6), (0, 3), (3, 1, 4), (2000,)][rng.integers(6)]
    nnames = rng.integers(1, 4)
    env, names = {}, []
    for i in range(nnames):
        dtype = DTYPES[rng.integers(len(DTYPES))]
        s = tuple(n if rng.random() < 0.8 else 1 for n in shape)
        if rng.random() < 0.15:
            s = s[1:]                               # broadcast from fewer dims
        name = "v%d" % i
        value = layout(rng, leaf_array(rng, dtype, s))
        if rng.random() < 0.1:
            value = value.dtype.type(leaf_array(rng, dtype, ()))   # a NumPy scalar
        env[name] = value
        names.append(name)
    ops = [op for f in families for op in FAMILIES[f]]

    def literal():
        return ("lit", [2, -1, 3, 0.5, 2.5, -0.75, 1.5j, True][rng.integers(8)])

    def tree(depth, need_name):
        if depth == 0 or rng.random() < 0.25:
            if need_name or rng.random() < 0.7:
                return ("name", names[rng.integers(len(names))])
            return literal()
        op = ops[rng.integers(len(ops))]
        n = ARITY.get(op, 2)
        named = rng.integers(n)                     # one child keeps a name: no literal-only nodes
        return (op,) + tuple(tree(depth - 1, i == named) for i in range(n))

    return tree(rng.integers(1, max_depth + 1), True), env


def outcome(fn):
    """(result, warnings, exception class) of fn() with every warning kept."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except (TypeError, ValueError, OverflowError, FloatingPointError) as exc:
            return None, [], type(exc)
    return result, sorted(set(str(w.message) for w in caught)), None


def ulps(a, b):
    """Distance in units of the last place of b's dtype (complex: the worse part)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype.kind == "c":
        return max(ulps(a.real, b.real), ulps(a.imag, b.imag))
    if a.dtype.kind != "f" or a.size == 0:
        return 0 if np.array_equal(a, b, equal_nan=True) else np.inf
    both_nan = np.isnan(a) & np.isnan(b)
    same = (a == b) | both_nan
    if same.all():
        return 0
    spacing = np.spacing(np.abs(b).astype(b.dtype))
    with np.errstate(all="ignore"):
        d = np.abs(a.astype(np.float64) - b.astype(np.float64)) / spacing.astype(np.float64)
    return float(np.max(np.where(same, 0, d)))


def assert_same(got, want, exact=True, bound=0):
    assert type(got) is type(want) or (isinstance(got, np.ndarray)
                                       and isinstance(want, np.ndarray)), (type(got), type(want))
    assert np.asarray(got).dtype == np.asarray(want).dtype
    assert np.shape(got) == np.shape(want)
    if exact:
        assert np.array_equal(got, want, equal_nan=True), (got, want)
    else:
        assert ulps(got, want) <= bound, (got, want)


def has_op(tree, ops):
    return tree[0] in ops or any(has_op(t, ops) for t in tree[1:] if isinstance(t, tuple))


def contiguous_leaves(env):
    return all(not isinstance(x, np.ndarray) or x.flags.c_contiguous or x.size <= 1
               for x in env.values())


# -- differential: composed titer.elementwise calls, bit for bit -------------------

@settings(max_examples=500, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32 - 1))
def test_matches_composed_elementwise(seed):
    tree, env = random_case(seed)
    expr = render(tree)
    got, got_w, got_exc = outcome(lambda: titer.evaluate(expr, env))
    want, want_w, want_exc = outcome(lambda: compose(tree, env, titer_call))
    assert got_exc == want_exc, expr
    if want_exc is not None:
        return
    assert got_w == want_w, expr
    exact = contiguous_leaves(env) or not has_op(tree, APPROX)
    assert_same(got, want, exact, 4 if exact is False else 0)


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32 - 1))
def test_matches_composed_on_threads_in_small_pieces(seed):
    """A tiny grain: every case runs in many pieces on 2 threads, blocks
    cut mid-row; every output streamed and every leaf prefetched as a pass
    from memory is (NOTE: [evaluate prefetch]), the prefetches reaching past
    the rows' ends."""
    tree, env = random_case(seed)
    expr = render(tree)
    old = titer.get_grain_size()
    titer.set_grain_size(97)
    old_stream = titer._core._set_stream_min_bytes(0)
    try:
        with titer.num_threads(2):
            got, got_w, got_exc = outcome(lambda: titer.evaluate(expr, env))
    finally:
        titer.set_grain_size(old)
        titer._core._set_stream_min_bytes(old_stream)
    want, want_w, want_exc = outcome(lambda: compose(tree, env, titer_call))
    assert got_exc == want_exc, expr
    if want_exc is None:
        assert got_w == want_w, expr
        assert_same(got, want, contiguous_leaves(env) or not has_op(tree, APPROX), 4)


@settings(max_examples=100, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32 - 1))
def test_rows_packed_or_not_give_the_same_results(seed):
    """NOTE: [packed rows]: the random cases (short rows, mostly) with rows
    packed into blocks and with every row run on its own, on 2 threads in
    small pieces: the same values, warnings and errors."""
    tree, env = random_case(seed)
    expr = render(tree)
    old = titer.get_grain_size()
    titer.set_grain_size(97)
    outcomes = []
    try:
        with titer.num_threads(2):
            for ratio in (0, 1 << 20):
                old_ratio = titer._core._set_evaluate_pack_ratio(ratio)
                try:
                    outcomes.append(outcome(lambda: titer.evaluate(expr, env)))
                finally:
                    titer._core._set_evaluate_pack_ratio(old_ratio)
    finally:
        titer.set_grain_size(old)
    (got, got_w, got_exc), (want, want_w, want_exc) = outcomes
    assert got_exc == want_exc, expr
    if want_exc is None:
        assert got_w == want_w, expr
        assert_same(got, want)


@pytest.mark.parametrize("threads", [1, 2])
def test_short_rows_packed_into_blocks(threads):
    """Leaves whose fastest dim is a few elements of a wide array (NOTE:
    [packed rows]): rows of a few elements and of 128 bytes (copied
    whole), many rows a block, rows cut by the threads' pieces,
    a broadcast column and a broadcast row, a leaf read only through a
    cast, out= of another dtype, a strided out=, 3-d slices, and the fused
    reductions over them -- the composed calls' values, bits included."""
    rng = np.random.default_rng(41)
    wide = rng.standard_normal((3001, 64))
    wide32 = rng.standard_normal((3001, 64)).astype(np.float32)
    col = rng.standard_normal((3001, 1))
    cube = rng.standard_normal((40, 50, 30))
    env = dict(a=wide[:, :3], b=wide[:, 10:13], f=wide32[:, 5:8], c=col, r=wide[0, :3],
               s=wide[::2, 1:6:2], t=cube[:, :, 1:3], u=cube[:, :, 10:12], g=wide[:, 8:24])
    old = titer.get_grain_size()
    titer.set_grain_size(1000)
    try:
        with titer.num_threads(threads):
            for expr, composed in [
                    ("a*b + 1", lambda e: titer_call("add", titer_call("multiply", e["a"],
                                                                         e["b"]), 1)),
                    ("a*c - r", lambda e: titer_call("subtract", titer_call(
                        "multiply", e["a"], e["c"]), e["r"])),
                    ("f*a + sin(f)", lambda e: titer_call("add", titer_call(
                        "multiply", e["f"], e["a"]), titer_call("sin", e["f"]))),
                    ("s*s + s", lambda e: titer_call("add", titer_call("multiply", e["s"],
                                                                         e["s"]), e["s"])),
                    ("t*u + t", lambda e: titer_call("add", titer_call("multiply", e["t"],
                                                                         e["u"]), e["t"])),
                    ("g*g - c", lambda e: titer_call("subtract", titer_call(
                        "multiply", e["g"], e["g"]), e["c"]))]:
                want = composed(env)
                got = titer.evaluate(expr, env)
                assert got.tobytes() == want.tobytes() and got.shape == want.shape, expr
                out = np.full(want.shape, 7.0, np.float32)       # the last op's cast out
                titer.evaluate(expr, env, out=out, casting="unsafe")
                assert out.tobytes() == want.astype(np.float32).tobytes(), expr
                big = np.full(want.shape[:-1] + (want.shape[-1] * 3,), 9.0)
                strided = big[..., ::3]
                titer.evaluate(expr, env, out=strided)
                assert strided.tobytes() == want.tobytes(), expr
                assert (big[..., 1::3] == 9.0).all(), expr
            product = titer_call("multiply", env["a"], env["b"])
            for kind, name in [("sum", "add"), ("max", "maximum")]:
                for axis in (None, 1):
                    got = titer.evaluate("%s(a*b, axis=%r)" % (kind, axis), env)
                    want = titer.reduce(name, product, axis)
                    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (kind, axis)
            twelve = wide[:, 20:32]
            got = titer.evaluate("sum(twelve*2, axis=0)", dict(twelve=twelve))
            want = titer.reduce("add", titer_call("multiply", twelve, 2), 0)
            assert got.tobytes() == want.tobytes()
    finally:
        titer.set_grain_size(old)


@pytest.mark.parametrize("threads", [1, 2])
def test_operands_that_disagree_on_the_fastest_dim_run_in_tiles(threads):
    """a.T with b, a transposed out=, channels-last with channels-first
    (NOTE: [packed rows]: square tiles where the transposed operands' strides
    alias, transposed leaves and outputs through the tile transposes; NOTE:
    [tile rows in place]: the straight operands read and written where they
    are, wherever operands disagree): every dtype width, edges that do not
    fill a tile, strides that do not alias, a leaf read through a cast, an
    out= of another dtype, the fused reductions -- bit for bit the composed
    calls, in every tile mode and with tiles off."""
    from titer import _core
    rng = np.random.default_rng(43)
    env = {}
    # rows and columns of a multiple of 2 KiB (where the tiles pay: ev_tiles_pay),
    # less a few elements (tiles cut at the edges)
    for name, dt, shape in [("f", np.float32, (1024, 512)), ("d", np.float64, (1024, 512)),
                            ("z", np.complex128, (1024, 512)), ("h", np.float16, (1024, 1024)),
                            ("i", np.int8, (2048, 2048)), ("q", np.bool_, (2048, 2048))]:
        x = rng.standard_normal(shape) * 10
        x = (x > 0) if dt is np.bool_ else x.astype(dt)
        env[name] = x[:-3, :-5]
        env[name + "T"] = np.asfortranarray(x)[:-3, :-5]        # same shape, F order
    x = rng.standard_normal((203, 157))                 # rows of 1256 bytes: no aliasing
    env["g"], env["gT"] = x[:-3, :-5], np.asfortranarray(x)[:-3, :-5]
    env["nchw"] = rng.standard_normal((3, 5, 70, 90)).astype(np.float32)
    env["nhwc"] = np.ascontiguousarray(env["nchw"].transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)
    cases = [("fT*f + 1", lambda e: titer_call("add", titer_call("multiply", e["fT"], e["f"]), 1)),
             ("dT*d - f", lambda e: titer_call("subtract", titer_call("multiply", e["dT"],
                                                                        e["d"]), e["f"])),
             ("fT*d", lambda e: titer_call("multiply", e["fT"], e["d"])),
             ("hT + h*h", lambda e: titer_call("add", e["hT"], titer_call("multiply", e["h"],
                                                                            e["h"]))),
             ("zT*z + z", lambda e: titer_call("add", titer_call("multiply", e["zT"], e["z"]),
                                               e["z"])),
             ("iT + i*i", lambda e: titer_call("add", e["iT"], titer_call("multiply", e["i"],
                                                                            e["i"]))),
             ("qT & q | q", lambda e: titer_call("bitwise_or", titer_call("bitwise_and", e["qT"],
                                                                            e["q"]), e["q"])),
             ("gT*g + 1", lambda e: titer_call("add", titer_call("multiply", e["gT"], e["g"]),
                                               1)),
             ("nchw*nhwc + 1", lambda e: titer_call("add", titer_call("multiply", e["nchw"],
                                                                        e["nhwc"]), 1))]
    # (mode, row bytes): in place wherever operands disagree, titer's choice
    # (in place where packed tiles pay), packed only, and rows of 16 elements
    # (tile edges everywhere)
    modes = [(1, 1024), (2, 1024), (0, 1024), (1, 64)]
    old = titer.get_grain_size()
    titer.set_grain_size(5000)
    try:
        with titer.num_threads(threads):
            for expr, composed in cases:
                want = composed(env)
                for mode in modes:
                    old_mode = _core._set_evaluate_tiles_in_place(*mode)
                    try:
                        got = titer.evaluate(expr, env)
                        assert got.tobytes() == want.tobytes() and got.shape == want.shape, \
                            (expr, mode)
                        out = np.full(want.shape[::-1], 3, want.dtype).T  # a transposed out=
                        titer.evaluate(expr, env, out=out)
                        assert np.array_equal(out, want), (expr, mode)
                        wide = np.full(want.shape, 3, np.complex128)  # out= of another dtype
                        titer.evaluate(expr, env, out=wide, casting="unsafe")
                        assert np.array_equal(wide, want.astype(np.complex128)), (expr, mode)
                    finally:
                        _core._set_evaluate_tiles_in_place(*old_mode)
                old_ratio = _core._set_evaluate_pack_ratio(0)
                try:
                    assert titer.evaluate(expr, env).tobytes() == want.tobytes(), expr
                finally:
                    _core._set_evaluate_pack_ratio(old_ratio)
            product = titer_call("multiply", env["dT"], env["d"])
            for axis in (None, 0, 1):
                got = titer.evaluate("sum(dT*d, axis=%r)" % (axis,), env)
                want = titer.reduce("add", product, axis)
                assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), axis
    finally:
        titer.set_grain_size(old)


@settings(max_examples=250, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2 ** 32 - 1))
def test_matches_numpy_on_exact_ops(seed):
    tree, env = random_case(seed, ("arithmetic", "comparison", "logical", "select"))
    if has_op(tree, APPROX):
        return                                  # `**` is libm's pow: the ULP test below
    expr = render(tree)
    got, _, got_exc = outcome(lambda: titer.evaluate(expr, env))
    want, _, want_exc = outcome(lambda: compose(tree, env, numpy_call))
    assert got_exc == want_exc, expr
    if want_exc is None:
        assert np.asarray(got).dtype == np.asarray(want).dtype, expr
        if np.asarray(want).dtype == np.complex64:
            # README: NumPy's own complex64 multiply/square bits depend on
            # its loop (SIMD for arrays, scalar code for 0-d and strided)
            assert ulps(got, want) <= 2, expr
        else:
            assert np.array_equal(got, want, equal_nan=True), expr


@pytest.mark.parametrize("fn", ["sin", "cos", "exp", "log", "tanh", "sqrt", "log1p"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_transcendental_within_numpy_ulp_bounds(fn, dtype):
    rng = np.random.default_rng(3)
    a = (rng.random(5000) * 4).astype(dtype)
    b = (rng.random(5000) * 4).astype(dtype)
    got = titer.evaluate("%s(a * b + 0.5)" % fn)
    want = getattr(np, fn)(a * b + 0.5)
    assert got.dtype == want.dtype
    assert ulps(got, want) <= (4 if dtype == np.float32 else 2)


# -- layouts, out=, order= --------------------------------------------------------

def test_broadcast_strided_and_transposed_leaves():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((300, 200)).astype(np.float32)
    b = rng.standard_normal(200)
    c = rng.standard_normal((300, 1)).astype(np.float32)[::-1]
    t = rng.standard_normal((200, 300)).T
    got = titer.evaluate("a * b - c / 3 + t")
    want = titer_call("add", titer_call("subtract", titer_call("multiply", a, b),
                                        titer_call("divide", c, 3)), t)
    assert_same(got, want)
    np.testing.assert_array_equal(got, a * b - c / 3 + t)


@pytest.mark.parametrize("out_dtype", [np.float64, np.float32, np.complex128])
def test_out_of_another_dtype(out_dtype):
    a = np.linspace(-3, 3, 10000, dtype=np.float32)
    out = np.empty(10000, out_dtype)
    r = titer.evaluate("a * 2.5 + 1", out=out)
    assert r is out
    assert_same(out, titer.elementwise("add", np.empty(10000, out_dtype),
                                       titer_call("multiply", a, 2.5), 1))


def test_out_casting_error_writes_nothing():
    a = np.ones(100)
    out = np.full(100, 7, np.int32)
    with pytest.raises(TypeError):
        titer.evaluate("a + 1", out=out)
    with pytest.raises(TypeError):
        titer.evaluate("a + 1", out=out, casting="safe")
    assert (out == 7).all()
    titer.evaluate("a + 1", out=out, casting="unsafe")
    assert (out == 2).all()


def test_integer_power_error_leaves_out_untouched():
    a = np.arange(-3, 3)
    out = np.full(6, 9)
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.evaluate("2 + a ** a", out=out)
    assert (out == 9).all()


def test_out_aliasing_an_input():
    a = np.arange(10.0)
    b = a.copy()
    titer.evaluate("a * a + 1", out=a)
    np.testing.assert_array_equal(a, b * b + 1)
    x = np.arange(12.0)
    y = x.copy()
    titer.evaluate("x0 * 2", {"x0": x[:-2]}, out=x[2:])     # overlaps partially: as if copied
    np.testing.assert_array_equal(x[2:], y[:-2] * 2)


def _layouts_of(base):
    """base (2-d) in layouts a kept plan must tell apart: C, F, transposed,
    strided, reversed, a broadcast row."""
    wide = np.empty((base.shape[0], 2 * base.shape[1]), base.dtype)
    wide[:, ::2] = base
    return [base, np.asfortranarray(base), np.ascontiguousarray(base.T).T, wide[:, ::2],
            np.ascontiguousarray(base[::-1])[::-1],
            np.broadcast_to(base[:1], base.shape)]


def test_repeated_calls_reuse_the_plan_only_where_it_fits():
    """NOTE [evaluate plans]: each call, repeated, in every order of layouts
    and with out= given, allocated, aliased and partly overlapping, gives the
    composed calls' values and, allocated, the layout a first build gives
    (the same expression spelled anew has no kept plan)."""
    rng = np.random.default_rng(5)
    a_all = _layouts_of(rng.standard_normal((6, 9)))
    b_all = _layouts_of(rng.integers(-5, 5, (6, 9)).astype(np.int16))
    order = [(i, j) for i in range(len(a_all)) for j in range(len(b_all))]
    rng.shuffle(order)
    for n, (i, j) in enumerate(order):
        env = {"a": a_all[i], "b": b_all[j]}
        want = titer.elementwise("add", None, titer.elementwise("multiply", None, env["a"],
                                                                env["b"]), 1.5)
        fresh = titer.evaluate("a*b + 1.5" + " " * (n + 1), env)     # built, no kept plan
        for _ in range(2):
            got = titer.evaluate("a*b + 1.5", env)
            assert_same(got, want)
            assert got.strides == fresh.strides
            out = np.full((9, 6), np.nan).T
            assert titer.evaluate("a*b + 1.5", env, out=out) is out
            assert_same(out, want)
    for _ in range(2):                      # out= aliasing a leaf, then overlapping one
        x = np.arange(12.0)
        titer.evaluate("x * x + 1", {"x": x}, out=x)
        np.testing.assert_array_equal(x, np.arange(12.0) ** 2 + 1)
        x = np.arange(12.0)
        titer.evaluate("x * x + 1", {"x": x[2:]}, out=x[:-2])
        np.testing.assert_array_equal(x[:-2], np.arange(2.0, 12.0) ** 2 + 1)
        x = np.arange(12.0)
        titer.evaluate("x * x + 1", {"x": x[:-2]}, out=x[2:])
        np.testing.assert_array_equal(x[2:], np.arange(10.0) ** 2 + 1)


@pytest.mark.parametrize("order", ["C", "F", "K", "A"])
def test_order(order):
    a = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    got = titer.evaluate("a + 1", order=order)
    assert_same(got, np.add(a, 1, order=order))
    assert got.flags.c_contiguous == np.add(a, 1, order=order).flags.c_contiguous


def test_zero_size_and_scalar_results():
    a = np.empty((0, 3), np.float32)
    assert_same(titer.evaluate("a * 2 + 1"), a * 2 + 1)
    s = np.float32(2)
    assert_same(titer.evaluate("s * 2 + 1"), s * 2 + 1)        # NumPy scalar in, scalar out
    z = np.array(3.0)
    assert_same(titer.evaluate("z * 2"), titer_call("multiply", z, 2))


def test_python_scalars_are_weak_and_literals_fold_as_ufuncs():
    a = np.ones(4, np.float32)
    k = 3
    assert titer.evaluate("a * k + 2.5").dtype == np.float32      # NEP 50
    assert titer.evaluate("a * -3").dtype == np.float32           # a signed literal is one literal
    # two Python numbers meet in a ufunc: np.multiply(2, 3) is an int64,
    # computed by titer.elementwise before the pass
    assert titer.evaluate("a * (2 * 3)").dtype == np.float64
    pi = math.pi
    x = np.linspace(-2, 2, 1001, dtype=np.float32)
    got = titer.evaluate("exp(-x**2/2) / sqrt(2*pi)")
    assert_same(got, compose(("/", ("exp", ("/", ("neg", ("**", ("name", "x"), ("lit", 2))),
                                                ("lit", 2))),
                                 ("sqrt", ("*", ("lit", 2), ("name", "pi")))),
                            {"x": x, "pi": pi}, titer_call))
    np.testing.assert_allclose(got, np.exp(-x ** 2 / 2) / np.sqrt(2 * pi), rtol=1e-6)


def test_out_of_range_python_int():
    a = np.arange(5, dtype=np.int8)
    with pytest.raises(OverflowError):
        titer.evaluate("a + 1000")
    assert_same(titer.evaluate("a < 1000"), np.less(a, 1000))   # NumPy's one answer


def test_names_from_caller_and_local_dict():
    a = np.arange(5.0)
    assert_same(titer.evaluate("a + GLOBAL_B"), a + GLOBAL_B)
    assert_same(titer.evaluate("a + b", {"a": a, "b": 1.5}), a + 1.5)
    # any mapping; a name it lacks comes from the caller's globals
    scope = collections.ChainMap({"a": a}, {"c": np.float32(2)})
    assert_same(titer.evaluate("a * c + GLOBAL_B", scope), a * np.float32(2) + GLOBAL_B)
    with pytest.raises(NameError, match="'nope'"):
        titer.evaluate("a + nope")
    with pytest.raises(NameError, match="'nope'"):
        titer.evaluate("a + nope", scope)


GLOBAL_B = np.ones(5)


def test_many_leaves_and_long_programs_compose_instead():
    env = {"x%d" % i: np.full(10, float(i)) for i in range(10)}
    expr = " + ".join(env)
    assert_same(titer.evaluate(expr, env), compose(
        _chain(list(env)), env, titer_call))
    a = np.arange(10.0)
    long_expr = "a" + " + a" * 80
    np.testing.assert_array_equal(titer.evaluate(long_expr), a * 81)
    # order= reaches the composed calls' last op
    grid = {"x%d" % i: np.full((3, 4), float(i)) for i in range(10)}
    got = titer.evaluate(" + ".join(grid), grid, order="F")
    assert got.flags.f_contiguous and not got.flags.c_contiguous
    assert_same(got, compose(_chain(list(grid)), grid, titer_call))


def _chain(names):
    tree = ("name", names[0])
    for n in names[1:]:
        tree = ("+", tree, ("name", n))
    return tree


def test_byteswapped_and_unaligned_operands():
    a = np.arange(100, dtype=">f8")
    buf = np.zeros(8 * 100 + 1, np.uint8)
    u = buf[1:].view(np.float64)
    u[:] = np.arange(100.0)
    out = np.empty(100, ">f4")
    titer.evaluate("a * u + 1", out=out)
    np.testing.assert_array_equal(out, np.arange(100.0) ** 2 + 1)


# -- the whitelist ------------------------------------------------------------------

@pytest.mark.parametrize("expr, part", [
    ("a.T + 1", "a.T"), ("a[0] * 2", "a[0]"), ("eval('1')", "eval"),
    ("__import__('os')", "__import__"), ("a if a else b", "IfExp"),
    ("lambda: 1", "Lambda"), ("a < b < c", "chained"), ("a and b", "and"),
    ("foo(a)", "foo"), ("sin(a, out=a)", "keyword"), ("sum(sum(a))", "sum"),
    ("'x'", "constant"), ("[a]", "List"), ("a @ a", "MatMult"), ("not a", "Not"),
    ("modf(a)", "modf"), ("sin(a, a)", "sin"), ("a +", "not a Python expression"),
])
def test_whitelist_rejections(expr, part):
    a = b = c = np.ones(3)  # noqa: F841
    with pytest.raises(ValueError, match="titer.evaluate") as info:
        titer.evaluate(expr)
    assert part in str(info.value)


def test_gpu_arrays_run_the_composed_calls_and_duck_arrays_are_refused():
    """A GPU array (operand or out=) goes to titer.elementwise's device
    executor (tests/test_cuda_gpu_evaluate.py: on a GPU): here a stand-in
    gets the error that call gives it."""
    class Device:
        __cuda_array_interface__ = {}

    def error(fn):
        with pytest.raises(Exception) as info:
            fn()
        return type(info.value), str(info.value)

    d = Device()
    assert error(lambda: titer.evaluate("d + 1", {"d": d})) == \
        error(lambda: titer.elementwise("add", None, d, 1))
    assert error(lambda: titer.evaluate("x + 1", {"x": np.ones(3)}, out=d)) == \
        error(lambda: titer.elementwise("add", d, np.ones(3), 1))
    assert "on the GPU" in titer.explain_evaluate("d + 1", {"d": d})
    with pytest.raises(TypeError, match="plain NumPy arrays"):
        titer.evaluate("m + 1", {"m": np.ma.masked_array([1.0, 2.0])})


# -- warnings ------------------------------------------------------------------------

def test_errstate_warnings_name_each_op():
    a = np.array([0.0, 1.0, -1.0, 1e308] * 5000)
    for expr in ["log(a) + a / a", "a * 10 - sqrt(a)", "where(a > 0, log(a), 0)"]:
        got = outcome(lambda: titer.evaluate(expr, {"a": a}))
        want = outcome(lambda: compose(_tree(expr), {"a": a}, titer_call))
        assert got[1] == want[1], expr
        assert got[1], expr                      # something was raised
    with np.errstate(all="ignore"):
        got = outcome(lambda: titer.evaluate("log(a) + a / a", {"a": a}))
    assert got[1] == []
    out = np.full(a.shape, 5.0)
    with np.errstate(divide="raise"):
        with pytest.raises(FloatingPointError, match="log"):
            titer.evaluate("log(a) + 1", out=out)
    assert (out == 5).all()


def _tree(expr):
    return {"log(a) + a / a": ("+", ("log", ("name", "a")), ("/", ("name", "a"), ("name", "a"))),
            "a * 10 - sqrt(a)": ("-", ("*", ("name", "a"), ("lit", 10)), ("sqrt", ("name", "a"))),
            "where(a > 0, log(a), 0)": ("where", (">", ("name", "a"), ("lit", 0)),
                                        ("log", ("name", "a")), ("lit", 0))}[expr]


def test_complex_discard_warning():
    z = np.ones(3, np.complex128)
    out = np.empty(3)
    with pytest.warns(np.exceptions.ComplexWarning):
        titer.evaluate("z + 1", out=out, casting="unsafe")


# -- threads ----------------------------------------------------------------------------

def test_thread_count_does_not_change_bits():
    rng = np.random.default_rng(5)
    a = rng.standard_normal(300001).astype(np.float32)
    b = rng.standard_normal(300001)
    expr = "where(a > 0, log(abs(a) + 1), sin(b) * a) / (1 + b ** 2)"
    with titer.num_threads(1):
        one = titer.evaluate(expr)
        s1 = titer.evaluate("sum(a * b)")
    with titer.num_threads(2):
        two = titer.evaluate(expr)
        s2 = titer.evaluate("sum(a * b)")
    assert_same(one, two)
    assert_same(s1, s2)


# -- reductions ---------------------------------------------------------------------

@pytest.mark.parametrize("kind, op, dtype", [
    (kind, op, dtype) for kind, op in [("sum", "add"), ("prod", "multiply"), ("max", "maximum"),
                                       ("min", "minimum")]
    for dtype in [np.float32, np.float64, np.int32, np.float16, np.complex64]
    if not (dtype == np.complex64 and kind in ("max", "min"))])
@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 1)])
def test_reductions_match_composed(kind, op, dtype, axis):
    rng = np.random.default_rng(7)
    a = leaf_array(rng, dtype, (301, 257))
    b = leaf_array(rng, dtype, (257,))
    if kind == "prod":
        a = (a / 40 + 1).astype(dtype) if np.dtype(dtype).kind in "fc" else a % 3
    expr = "%s(a * b + 1, axis=%r)" % (kind, axis)
    got = outcome(lambda: titer.evaluate(expr, {"a": a, "b": b}))
    want = outcome(lambda: titer.reduce(op, titer_call("add", titer_call("multiply", a, b), 1),
                                        axis))
    assert got[2] == want[2]
    assert_same(got[0], want[0])


@pytest.fixture
def small_leaves():
    """NOTE: [fused reduction] with leaves of 1000 bytes (at least 128
    elements): many leaves, across rows and threads."""
    from titer import _core
    old = _core._set_evaluate_reduce_piece_bytes(1000)
    yield
    _core._set_evaluate_reduce_piece_bytes(old)


@pytest.mark.parametrize("threads", [1, 2])
def test_full_float_sum_follows_pairwise_tree(small_leaves, threads):
    rng = np.random.default_rng(11)
    with titer.num_threads(threads):
        for n in [1, 5, 127, 128, 129, 999, 1000, 1001, 12345, 77777]:
            a = rng.standard_normal(n).astype(np.float32) * 1000
            b = np.asfortranarray(rng.standard_normal((3, n)).astype(np.float32))
            c = rng.standard_normal(n)
            assert_same(titer.evaluate("sum(a * a)"), titer.sum(titer_call("multiply", a, a)))
            assert_same(titer.evaluate("sum(b - a)"), titer.sum(titer_call("subtract", b, a)))
            assert_same(titer.evaluate("sum(c * a)"), titer.sum(titer_call("multiply", c, a)))


def fails_if_computed_in_full(monkeypatch):
    """Patch titer.evaluate's fallbacks that materialize the expression (the
    whole of it, or slabs) to fail."""
    from titer import _core, _evaluate

    def materialized(*args, **kwargs):
        raise AssertionError("the expression was materialized")
    monkeypatch.setattr(_evaluate, "_reduce_slabs", materialized)
    monkeypatch.setattr(_core, "reduce", materialized)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float16, np.complex64, np.complex128])
def test_full_half_and_complex_sums_follow_pairwise_tree(small_leaves, threads, dtype,
                                                         monkeypatch):
    """float16 sums (NumPy's pairwise tree in float, rounded once) and
    complex ones (the tree over real and imaginary parts: halves at
    multiples of 4 elements, blocks of 64) inside the pass: NumPy's bits on
    contiguous operands, whichever leaf edges the pieces of 1000 bytes
    cut, with NumPy's scalar type; products fold in order across pieces."""
    rng = np.random.default_rng(13)
    cases = []
    for n in [1, 3, 4, 5, 63, 64, 65, 127, 128, 129, 500, 501, 1000, 1001, 4099, 12345, 77777]:
        a = rng.standard_normal(n).astype(dtype) * 4
        if np.dtype(dtype).kind == "c":
            a += 1j * rng.standard_normal(n).astype(dtype)
            near_one = (1 + 1e-3j * rng.standard_normal(n)).astype(dtype)
        else:   # products of 1 - 2^-11 (twice as often), 1 + 2^-10 and 1 stay in range
            near_one = (1 + rng.choice([-2.0 ** -11, -2.0 ** -11, 2.0 ** -10, 0.0], n)).astype(dtype)
        cases.append((a, near_one, np.add.reduce(a * 2), np.multiply.reduce(near_one * 1)))
    fails_if_computed_in_full(monkeypatch)
    with titer.num_threads(threads):
        for a, near_one, total, product in cases:
            env = {"a": a, "b": near_one}
            assert_same(titer.evaluate("sum(a * 2)", env), total)
            assert_same(titer.evaluate("prod(b * 1)", env), product)


@pytest.mark.parametrize("threads", [1, 2])
def test_slab_reductions_are_laid_out_as_the_composed_ones(threads):
    """A reduction in slabs (here: a middle axis after fewer than 8 kept
    columns) reduces into a result laid out as titer.reduce lays out the
    composed result's -- that layout orders the reduction, so the bits
    (NumPy's reduce into a C-order out= adds in another order)."""
    from titer import _evaluate
    assert _evaluate._FUSED_COLUMNS_MIN > 2
    rng = np.random.default_rng(23)
    cases = [rng.standard_normal((3, 180, 2)).astype(np.float32).transpose(2, 1, 0),
             (rng.standard_normal((30, 115, 5)) * (1 + 1j)).transpose(2, 1, 0),
             np.asfortranarray(rng.standard_normal((4, 300, 6)))]
    with titer.num_threads(threads):
        for x in cases:
            for axis in (1, (0, 1), (1, 2)):
                got = titer.evaluate("sum(x * x + 1, axis=%r)" % (axis,))
                want = titer.reduce("add", titer.evaluate("x * x + 1"), axis)
                assert_same(got, want)
                assert got.tobytes() == want.tobytes() and got.strides == want.strides, axis


def test_a_float16_sum_that_overflows_as_it_is_stored_warns():
    """A float16 sum kept in float overflows only when it is rounded to
    float16 at the end (after the pass's pieces are joined): NumPy's
    warning, and under errstate(over="raise") its error."""
    x = np.full(40000, 2.0, np.float16)
    got, caught = ordered_warnings(lambda: titer.evaluate("sum(x * 1)", {"x": x}))
    want, expected = ordered_warnings(lambda: titer.reduce("add", titer_call("multiply", x, 1)))
    assert caught == expected == ["overflow encountered in reduce"]
    assert_same(got, want)
    with np.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            titer.evaluate("prod(x * 1)", {"x": x})


def ordered_warnings(fn):
    """(result or exception class, the warnings' messages in order)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn()
        except FloatingPointError as exc:
            result = type(exc)
    return result, [str(w.message) for w in caught]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int8, np.int64, np.uint16,
                                   np.bool_, np.float16, np.complex64, np.complex128])
def test_fused_full_reductions_match_composed(small_leaves, threads, dtype, monkeypatch):
    """Strided and broadcast leaves (leaves of the reduction cross rows),
    NaNs for max/min, the integer sums' wider loop, the in-order folds
    (float products, complex max/min), float16 and complex sums: every one
    inside the pass, none computing the expression in full."""
    rng = np.random.default_rng(12)
    a = leaf_array(rng, dtype, (37, 1002))[:, ::2]
    b = leaf_array(rng, dtype, (501,))
    if np.dtype(dtype).kind in "fc":
        a[3, 7] = a[20, 100] = np.nan
    reductions = [("sum", "add"), ("max", "maximum"), ("min", "minimum"), ("prod", "multiply")]
    with titer.num_threads(threads):
        wanted = [ordered_warnings(lambda: titer.reduce(op, titer_call("multiply", a, b)))
                  for kind, op in reductions]
        fails_if_computed_in_full(monkeypatch)
        for (kind, op), want in zip(reductions, wanted):
            got = ordered_warnings(lambda: titer.evaluate("%s(a * b)" % kind, {"a": a, "b": b}))
            assert got[1] == want[1]
            assert_same(got[0], want[0])


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_row_reductions_match_composed(small_leaves, threads, monkeypatch):
    """A reduction that keeps axes runs inside the pass where the reduced
    axes are the iteration's fastest (NOTE: [fused rows]): rows of several
    leaves, C and Fortran layouts, two reduced axes, a transposed leaf, a
    broadcast one, unit dims kept, out=; the result's values, dtype, shape
    and layout are the composed reduction's."""
    from titer import _evaluate
    assert _evaluate._FUSED_ROW_MIN <= 600

    def no_slabs(*args):
        raise AssertionError("materialized in slabs")
    monkeypatch.setattr(_evaluate, "_reduce_slabs", no_slabs)
    rng = np.random.default_rng(21)
    c = rng.standard_normal((30, 2000))
    f = np.asfortranarray(rng.standard_normal((2000, 30))).astype(np.float32)
    three = rng.standard_normal((5, 20, 60))
    t = rng.standard_normal((6, 4, 700)).transpose(1, 0, 2)
    u = rng.standard_normal((3, 1, 900))
    i = rng.integers(-9, 9, (40, 1500)).astype(np.int8)
    z = (rng.standard_normal((8, 600)) / 9 + 1).astype(np.complex64)
    h = (rng.standard_normal((8, 700)) / 9 + 1).astype(np.float16)
    row = rng.standard_normal(2000)
    cases = [("%s(c * row, axis=1)", c, row, 1), ("%s(f * 2, axis=0)", f, None, 0),
             ("%s(three * three, axis=(1, 2))", three, three, (1, 2)),
             ("%s(t + 1, axis=-1)", t, None, -1), ("%s(u * u, axis=2)", u, u, 2),
             ("%s(i * i, axis=1)", i, i, 1), ("%s(z * z, axis=1)", z, z, 1),
             ("%s(h * h, axis=1)", h, h, 1)]
    env = dict(c=c, f=f, three=three, t=t, u=u, i=i, z=z, h=h, row=row)
    with titer.num_threads(threads):
        for expr, x, y, axis in cases:
            op = expr.split("(")[1].split()[1]
            tmp = titer_call({"*": "multiply", "+": "add"}[op], x, 2 if y is None and op == "*"
                             else 1 if y is None else y)
            for kind, name in [("sum", "add"), ("max", "maximum"), ("min", "minimum"),
                               ("prod", "multiply")]:
                got, caught = ordered_warnings(lambda: titer.evaluate(expr % kind, env))
                want, expected = ordered_warnings(lambda: titer.reduce(name, tmp, axis))
                assert caught == expected, expr % kind
                assert_same(got, want)
                assert got.strides == want.strides, (expr % kind, got.strides, want.strides)
        out = np.empty(30, np.float32)
        titer.evaluate("sum(c * row, axis=1)", env, out=out)
        assert_same(out, titer.reduce("add", titer_call("multiply", c, row), 1, None,
                                      np.empty(30, np.float32)))


@pytest.fixture
def small_column_tiles():
    """NOTE: [fused columns] with tiles of 256 bytes and threads on rows of
    64 bytes: many tiles, split between threads."""
    from titer import _core
    old_tile = _core._set_evaluate_column_tile_bytes(256)
    old_run = _core._set_evaluate_column_run_bytes(64)
    yield
    _core._set_evaluate_column_tile_bytes(old_tile)
    _core._set_evaluate_column_run_bytes(old_run)


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_column_reductions_match_composed(small_column_tiles, threads, monkeypatch):
    """A reduction over the iteration's slowest axes runs inside the pass
    after kept ones (NOTE: [fused columns]), each column a fold in order as
    NumPy's: C and Fortran layouts, two reduced axes, middle axes (batches
    of columns), a transposed leaf, a broadcast one,
    unit dims reduced and kept, NaNs, signed zeros, integer sums in their
    wider loop, complex ones, bool, out=; values (bits for the float folds),
    warnings in order, dtype, shape and layout are the composed
    reduction's; float16 sums and products folded in float and rounded
    once, as titer.reduce keeps them, their overflow in that rounding."""
    from titer import _evaluate
    assert _evaluate._FUSED_COLUMNS_MIN <= 40

    def no_slabs(*args):
        raise AssertionError("materialized in slabs")
    monkeypatch.setattr(_evaluate, "_reduce_slabs", no_slabs)
    rng = np.random.default_rng(22)
    c = rng.standard_normal((300, 700)) * 1e300        # overflows in the sums
    c[5, 3] = c[9, 4] = np.nan
    c[:, 10] = -0.0
    f = np.asfortranarray(rng.standard_normal((600, 50))).astype(np.float32)
    three = rng.standard_normal((6, 7, 90))
    t = rng.standard_normal((500, 3, 40)).transpose(1, 0, 2)
    u = rng.standard_normal((1, 900))
    u[0, :3] = -0.0
    i = rng.integers(-100, 100, (90, 515)).astype(np.int8)
    h = (rng.standard_normal((70, 333)) * 100).astype(np.float16)    # h * h overflows
    g = (rng.standard_normal((40, 20, 30)) * 3).astype(np.float16)
    g[:, 4] = -0.0
    z = (rng.standard_normal((60, 400)) / 9 + 1 + 1j * rng.standard_normal((60, 400))).astype(
        np.complex64)
    q = rng.random((50, 300)) < 0.5
    m = rng.standard_normal((40, 30, 50))             # batches of 50 columns
    m[7, :, 3] = -0.0
    mf = np.asfortranarray(rng.standard_normal((9, 20, 11, 6))).astype(np.float32)
    row = rng.standard_normal(700)
    cases = [("%s(c * row, axis=0)", c, row, 0), ("%s(f * 2, axis=1)", f, None, 1),
             ("%s(three * three, axis=(0, 1))", three, three, (0, 1)),
             ("%s(t + 1, axis=1)", t, None, 1), ("%s(u * u, axis=0)", u, u, 0),
             ("%s(i * i, axis=0)", i, i, 0),
             ("%s(z * z, axis=0)", z, z, 0), ("%s(q & q, axis=0)", q, q, 0),
             ("%s(m * m, axis=1)", m, m, 1), ("%s(mf + 1, axis=(1, 2))", mf, None, (1, 2)),
             ("%s(h * h, axis=0)", h, h, 0), ("%s(g * 2, axis=(0, 1))", g, None, (0, 1)),
             ("%s(g + 1, axis=0)", g, None, 0)]
    env = dict(c=c, f=f, three=three, t=t, u=u, i=i, h=h, g=g, z=z, q=q, m=m, mf=mf, row=row)
    ops = {"*": "multiply", "+": "add", "&": "bitwise_and"}
    with titer.num_threads(threads):
        for expr, x, y, axis in cases:
            op = expr.split("(")[1].split()[1]
            tmp = (lambda: titer_call(ops[op], x, 2 if y is None and op == "*"
                                      else 1 if y is None else y))
            for kind, name in [("sum", "add"), ("max", "maximum"), ("min", "minimum"),
                               ("prod", "multiply")]:
                got, caught = ordered_warnings(lambda: titer.evaluate(expr % kind, env))
                want, expected = ordered_warnings(lambda: titer.reduce(name, tmp(), axis))
                assert caught == expected, expr % kind
                assert_same(got, want)
                if got.dtype.kind == "f":       # the folds' bits, signed zeros and all
                    assert got.tobytes() == want.tobytes(), expr % kind
                assert got.strides == want.strides, (expr % kind, got.strides, want.strides)
        out = np.empty(700)
        titer.evaluate("sum(c * row, axis=0)", env, out=out)
        assert out.tobytes() == titer.reduce("add", titer_call("multiply", c, row), 0).tobytes()
        assert titer.evaluate("sum(u * u, axis=0)", env).tobytes() == (u * u)[0].tobytes()
        big = {"big": np.full((40, 20), 2000, np.float16)}     # sums of 80000 round to inf
        got, caught = ordered_warnings(lambda: titer.evaluate("sum(big * 1, axis=0)", big))
        want, expected = ordered_warnings(lambda: titer.reduce("add", big["big"], 0))
        assert caught == expected == ["overflow encountered in reduce"]
        assert_same(got, want)
        hout = np.zeros(20, np.float16)
        with np.errstate(over="raise"):
            raised = ordered_warnings(lambda: titer.evaluate("sum(big * 1, axis=0)", big,
                                                             out=hout))
        assert raised == (FloatingPointError, []) and not hout.any()


@pytest.mark.parametrize("tile_bytes", [256, None])
@pytest.mark.parametrize("threads", [1, 2])
def test_narrow_fused_columns_walk_rows_together(tile_bytes, threads, monkeypatch):
    """A tile of every column walks several reduced rows at a time (NOTE:
    [fused columns]), still folding each column in order: rows that do not
    divide into the tile, batches of narrow columns, a first-value fold
    (max/min), NaNs and signed zeros, sums widened for the fold (int8 into
    int64, float16 kept in float) and out= -- the bits, warnings, dtype and
    strides of titer.reduce of the composed values."""
    from titer import _core, _evaluate

    def no_slabs(*args):
        raise AssertionError("materialized in slabs")
    monkeypatch.setattr(_evaluate, "_reduce_slabs", no_slabs)
    old_tile = _core._set_evaluate_column_tile_bytes(tile_bytes or (32 * 1024))
    rng = np.random.default_rng(31)
    d = rng.standard_normal((1001, 8)) * 1e300          # overflows in the sums
    d[7, 2] = d[500, 5] = np.nan
    d[:, 6] = -0.0
    b = rng.standard_normal((7, 301, 9)).astype(np.float32)
    i = rng.integers(-100, 100, (3333, 16)).astype(np.int8)
    h = (rng.standard_normal((4097, 12)) * 30).astype(np.float16)
    env = dict(d=d, b=b, i=i, h=h)
    cases = [("%s(d * 2, axis=0)", d, 0), ("%s(b * 2, axis=1)", b, 1),
             ("%s(i * 2, axis=0)", i, 0), ("%s(h * 2, axis=0)", h, 0)]
    try:
        with titer.num_threads(threads):
            for expr, x, axis in cases:
                for kind, name in [("sum", "add"), ("max", "maximum"), ("min", "minimum"),
                                   ("prod", "multiply")]:
                    got, caught = ordered_warnings(lambda: titer.evaluate(expr % kind, env))
                    want, expected = ordered_warnings(
                        lambda: titer.reduce(name, titer_call("multiply", x, 2), axis))
                    assert caught == expected, expr % kind
                    assert_same(got, want)
                    assert got.tobytes() == want.tobytes(), expr % kind
                    assert got.strides == want.strides, expr % kind
            out = np.full(8, 7.0)
            titer.evaluate("sum(d * 2, axis=0)", env, out=out)
            assert out.tobytes() == titer.reduce("add", titer_call("multiply", d, 2), 0).tobytes()
    finally:
        _core._set_evaluate_column_tile_bytes(old_tile)


@pytest.mark.parametrize("threads", [1, 2])
def test_fused_sums_start_from_the_identity(small_leaves, threads):
    """NumPy's add.reduce starts from 0: a sum of -0.0s is +0.0 over
    everything, along rows and along columns (a product of them keeps its
    sign: 1 * -0.0), as titer.reduce of the composed result gives."""
    x = np.full((40, 700), -0.0)
    x[3, 5] = 1.0
    with titer.num_threads(threads):
        for axis in (None, 0, 1):
            for kind, name in [("sum", "add"), ("prod", "multiply")]:
                got = titer.evaluate("%s(x * 1, axis=%r)" % (kind, axis))
                want = titer.reduce(name, titer_call("multiply", x, 1), axis)
                assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (kind, axis)
                assert np.asarray(want).tobytes() == np.asarray(
                    getattr(np, name).reduce(x * 1, axis=axis)).tobytes()


def test_fused_column_reduction_errors_leave_out_untouched():
    """Along columns as over everything: a loop error is NumPy's ValueError
    with out= untouched; a reduction's overflow under errstate(over="raise")
    raises after the program's warning, out= untouched (running out of
    memory: test_fused_reduction_out_of_memory_writes_nothing)."""
    a = np.ones((300, 400))
    out = np.zeros(400)
    i = np.full((300, 400), 2, np.int64)
    i[150, 7] = -1
    iout = np.zeros(400, np.int64)
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.evaluate("sum(i ** i, axis=0)", out=iout)
    assert not iout.any()
    big = np.full((300, 400), 1e308)
    big[3, 5] = -1.0
    with np.errstate(over="raise"):
        raised = ordered_warnings(lambda: titer.evaluate(
            "sum(fmin(sqrt(big), 0) + big, axis=0)", {"big": big}, out=out))
    assert raised == (FloatingPointError, ["invalid value encountered in sqrt"])
    assert not out.any()
    assert_same(titer.evaluate("sum(a * 2, axis=0)", out=out), np.full(400, 600.0))


def test_reduction_out_of_the_wrong_shape_is_refused():
    """NumPy's ValueError for an out= of the wrong shape or read-only, over
    everything and along rows, with out= untouched (a shape that the result
    broadcasts to is wrong too)."""
    a = np.ones((4, 1000))
    for expr, shapes in [("sum(a * 2)", [(3,), (2, 4), (4,)]),
                         ("sum(a * 2, axis=1)", [(3,), (2, 4), ()]),
                         ("max(a * 2, axis=(0, 1))", [(1,)])]:
        for shape in shapes:
            out = np.zeros(shape)
            with pytest.raises(ValueError, match="wrong shape"):
                titer.evaluate(expr, {"a": a}, out=out)
            assert not out.any()
    frozen = np.zeros(4)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        titer.evaluate("sum(a * 2, axis=1)", {"a": a}, out=frozen)


def test_fused_reduction_reports_its_flags_after_the_programs():
    a = np.full(40000, 1e308)
    a[5] = -1.0
    expr = "sum(fmin(sqrt(a), 0) + a)"
    composed = lambda: titer.sum(titer_call("add", titer_call("fmin", titer_call(
        "sqrt", a), 0), a))
    got = ordered_warnings(lambda: titer.evaluate(expr, {"a": a}))
    assert got == ordered_warnings(composed)
    assert got[1] == ["invalid value encountered in sqrt", "overflow encountered in reduce"]
    with np.errstate(over="raise"):
        assert ordered_warnings(lambda: titer.evaluate(expr, {"a": a})) == ordered_warnings(
            composed)
    out = np.zeros(())
    with np.errstate(over="raise"):
        raised = ordered_warnings(lambda: titer.evaluate(expr, {"a": a}, out=out))
    assert raised == (FloatingPointError, ["invalid value encountered in sqrt"])
    assert out == 0


def test_fused_reduction_raises_the_loops_error():
    i = np.array([2, 3, -1] * 50000, np.int64)
    out = np.zeros((), np.int64)
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.evaluate("sum(i ** i)", out=out)
    assert out == 0


@pytest.mark.parametrize("shape, axis", [((100000,), None), ((300, 400), 0)])
def test_fused_reduction_out_of_memory_writes_nothing(shape, axis):
    """Over everything and along columns."""
    a = np.ones(shape)
    out = np.zeros(shape[1:])
    expr = "sum(a * 2, axis=%r)" % (axis,)
    titer._core._fail_workspaces(1)
    try:
        with pytest.raises(MemoryError):
            titer.evaluate(expr, out=out)
    finally:
        titer._core._fail_workspaces(0)
    assert not out.any()
    assert_same(titer.evaluate(expr, out=out), np.full(shape[1:], 2.0 * shape[0]))


def test_collected_flags_are_the_collecting_threads_own():
    """_core.collect_fpe (the slabs' reduce flags, reported after the
    program's) gathers its own thread's flags: another thread's call in the
    meantime warns as usual."""
    import threading
    from titer import _core
    seen = []

    def other_thread():
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            titer.elementwise("sqrt", None, np.array([-1.0]))
        seen.extend(str(w.message) for w in caught)

    def collecting():
        worker = threading.Thread(target=other_thread)
        worker.start()
        worker.join()
        titer.elementwise("log", None, np.array([0.0]))
        return "done"

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result, found = _core.collect_fpe(collecting)
    assert result == "done" and list(found) == ["log"]
    assert seen == ["invalid value encountered in sqrt"]
    assert caught == []


def test_reduction_with_out_and_slabs(monkeypatch):
    from titer import _evaluate
    monkeypatch.setattr(_evaluate, "_SLAB_ELEMENTS", 64)       # many slabs
    rng = np.random.default_rng(2)
    a = rng.standard_normal((40, 30, 20))
    out = np.empty((40, 20), np.float32)
    titer.evaluate("sum(a * 2, axis=1)", out=out)
    assert_same(out, titer.reduce("add", titer_call("multiply", a, 2), 1, None,
                                  np.empty((40, 20), np.float32)))
    big = np.full((40, 30, 20), 1e308)
    big[3, 4, 5] = -1.0
    expr = "sum(fmin(sqrt(big), 0) + big, axis=(0, 2))"      # slabs along dim 1
    got = ordered_warnings(lambda: titer.evaluate(expr, {"big": big}))
    want = ordered_warnings(lambda: titer.reduce("add", titer_call("add", titer_call(
        "fmin", titer_call("sqrt", big), 0), big), (0, 2)))
    assert got[1] == want[1] == ["invalid value encountered in sqrt",
                                 "overflow encountered in reduce"]
    assert_same(got[0], want[0])
    with pytest.raises(ValueError):
        titer.evaluate("sum(a, axis=1)", out=np.empty((3, 3)))
    with pytest.raises(np.exceptions.AxisError):
        titer.evaluate("sum(a * 2, axis=3)")
    with pytest.raises(ValueError, match="zero-size"):
        titer.evaluate("max(e + 1)", {"e": np.empty(0)})


# -- program cache, explain --------------------------------------------------------------

def test_explain_shows_the_program():
    a = np.ones(10, np.float32)
    b = np.ones(10)
    text = titer.explain_evaluate("a * b + sin(a)")
    assert "multiply[dd->d]" in text and "sin[f->f]" in text and "add[dd->d]" in text
    assert "cast float32->float64" in text
    # the reduction's strategies, as _reduce_fused picks among them
    h = np.ones((3, 4), np.float16)
    text = titer.explain_evaluate("sum(h * h, axis=0)")
    assert "over everything or over rows" in text and "over columns" in text and "slabs" in text


def test_repeated_call_reuses_its_program(monkeypatch):
    from titer import _evaluate
    a = np.ones(3)
    b = np.ones(3, np.float32)
    titer.evaluate("a * b + 1", {"a": a, "b": b})
    planned = []

    def counting_plan(*args, **kwargs):
        planned.append(args[0])
        return _evaluate_plan.plan(*args, **kwargs)

    from titer import _evaluate_plan
    monkeypatch.setattr(_evaluate, "plan", counting_plan)
    for x in (np.arange(5.0), np.ones((2, 3))):     # other shapes, the same dtypes
        assert_same(titer.evaluate("a * b + 1", {"a": x, "b": b[:1]}),
                    titer_call("add", titer_call("multiply", x, b[:1]), 1))
    assert planned == []
    titer.evaluate("a * b + 1", {"a": a.astype(np.int16), "b": b})     # new dtypes: planned
    assert len(planned) == 1


def test_warnings_point_at_the_callers_line():
    a = np.array([0.0, 1.0])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        titer.evaluate("log(a) * 2", {"a": a})
        titer.evaluate("sum(log(a) * 2)", {"a": a})
    assert [w.filename for w in caught] == [__file__, __file__]


def test_full_reductions_in_leaves_and_out_dtypes(small_leaves):
    rng = np.random.default_rng(4)
    a = (rng.random(10000) + 0.5).astype(np.float32)
    b = rng.integers(-5, 5, 10000).astype(np.int8)
    tmp = titer_call("multiply", a, 1.0001)
    for kind, op in [("sum", "add"), ("prod", "multiply"), ("max", "maximum"), ("min", "minimum")]:
        assert_same(titer.evaluate("%s(a * 1.0001)" % kind), titer.reduce(op, tmp))
        assert_same(titer.evaluate("%s(b * 3)" % kind),
                    titer.reduce(op, titer_call("multiply", b, 3)))
        out = np.empty((), np.float64)          # a float64 loop: NumPy sums in it
        got = titer.evaluate("%s(a * 1.0001)" % kind, out=out)
        assert_same(got, titer.reduce(op, tmp, None, None, np.empty((), np.float64)))


def _buffered_sum_cases(rng):
    """(expression, leaves, axis, out) whose out= changes the sum's loop
    dtype: over everything, at, below and across np.getbufsize(), and
    along rows shorter and longer than a buffer."""
    f32 = rng.standard_normal(3 * 8192 + 17).astype(np.float32)
    rows = rng.standard_normal((5, 20011)).astype(np.float32)
    short = rng.standard_normal((40, 300)).astype(np.float32)
    f64 = rng.standard_normal(50000) * 1e37
    c64 = (rng.standard_normal(30000) + 1j * rng.standard_normal(30000)).astype(np.complex64)
    h = rng.standard_normal(20000).astype(np.float16)
    return [("sum(a * 1.0001 - 0.5)", {"a": f32[:n]}, None, np.empty((), np.float64))
            for n in (1000, 8192, 8193, f32.size)] + [
        ("sum(a * 1.0001 - 0.5, axis=1)", {"a": rows}, 1, np.empty(5, np.float64)),
        ("sum(a * 1.0001 - 0.5, axis=1)", {"a": short}, 1, np.empty(40, np.float64)),
        ("sum(a * 3.0)", {"a": f64}, None, np.empty((), np.float32)),     # held, overflows
        ("sum(c * c)", {"c": c64}, None, np.empty((), np.complex128)),
        ("sum(h + h)", {"h": h}, None, np.empty((), np.float64)),
    ]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("bufsize", [8192, 1024, 3 * 8192])
def test_a_sum_into_an_out_of_another_dtype_is_fused_in_numpys_buffers(threads, bufsize):
    """NumPy converts a sum's values to out='s loop dtype in buffers of
    np.getbufsize() elements and adds each buffer's pairwise sum in order
    (NOTE [buffered reductions]); the fused pass cuts its calls there too:
    the composed calls' bits and warnings, NumPy's where every step is
    exact, and no full-size temporary (traced allocations)."""
    import tracemalloc
    rng = np.random.default_rng(31)
    old = np.getbufsize()
    np.setbufsize(bufsize)
    try:
        with titer.num_threads(threads):
            for expr, env, axis, out in _buffered_sum_cases(rng):
                body = expr[4:expr.index(",") if "," in expr else -1]
                want, expected = ordered_warnings(lambda: titer.reduce(
                    "add", titer.evaluate(body, env), axis, None, out.copy()))
                ordered_warnings(lambda: titer.evaluate(expr, env, out=out))    # planned
                tracemalloc.start()
                try:
                    got, caught = ordered_warnings(lambda: titer.evaluate(expr, env, out=out))
                    peak = tracemalloc.get_traced_memory()[1]
                finally:
                    tracemalloc.stop()
                assert got is out and caught == expected, expr
                assert got.tobytes() == want.tobytes(), (expr, got, want)
                leaf = next(iter(env.values()))
                if "3.0" in expr:       # out= narrower: computed in full (NOTE [held outputs])
                    assert "overflow encountered in reduce" in caught
                else:
                    assert leaf.nbytes < 65536 or peak < leaf.nbytes // 2, (expr, peak)
                if expr.startswith("sum(a * 1.0001"):     # exact steps: NumPy's sum
                    a = env["a"]
                    oracle = np.add.reduce(np.subtract(np.multiply(a, np.float32(1.0001)),
                                                       np.float32(0.5)), axis=axis,
                                           out=np.empty_like(out))
                    assert got.tobytes() == oracle.tobytes(), expr
    finally:
        np.setbufsize(old)


def test_errors_come_in_the_composed_calls_order():
    i = np.array([1, -1], np.int64)
    f = np.ones(2)
    small = np.ones(2, np.int8)
    # the power fails at run time before `~f` (a TypeError) is reached
    with pytest.raises(ValueError, match="negative integer powers"):
        titer.evaluate("(i ** i) + (~f)")
    with pytest.raises(OverflowError):
        titer.evaluate("(small + 1000) + (~f)")
    with pytest.raises(TypeError):
        titer.evaluate("(~f) + (i ** i)")


def _getconf(name):
    """What the C library reports for a cache (getconf; Python's os.sysconf
    has no cache names), 0 where it does not."""
    getconf = shutil.which("getconf")
    text = subprocess.run([getconf, name], capture_output=True,
                          text=True).stdout.strip() if getconf else ""
    return int(text) if text.isdigit() else 0


def test_evaluate_blocks_take_a_third_of_the_l1_data_cache():
    """NOTE: [evaluate blocks]: the registers of a block take a third of the
    L1 data cache (4 KiB steps, at least 8 KiB), the L1 read from sysfs as
    the C library reports it."""
    from titer import _core
    l1 = _core._l1_data_cache_bytes()
    assert 4096 <= l1 <= 2 ** 20
    old = _core._set_evaluate_scratch_bytes(0)
    _core._set_evaluate_scratch_bytes(old)
    assert old == max(8192, l1 // 3 // 4096 * 4096)
    reported = _getconf("LEVEL1_DCACHE_SIZE")
    if reported > 0:
        assert l1 == reported
