"""The GPU side's host machinery, without a GPU: IntDivider magic numbers,
the 32-bit split plan, kernel naming, launch configuration, the kernel
manifest (coverage of the op table), architecture parsing, and that
importing titer never touches CuPy."""
import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from titer import _ops
from titer.cuda import build, plan
from titer.cuda.plan import Piece


# -- IntDivider -------------------------------------------------------------------

def _dividends(d, rng, k=24):
    top = 2**31 - 1
    fixed = [0, 1, d - 1, d, d + 1, 2 * d - 1, 2 * d, top, top - 1,
             (top // d) * d, (top // d) * d - 1]
    return np.array([min(max(v, 0), top) for v in fixed]
                    + list(rng.integers(0, 2**31, size=k)), dtype=np.uint64)


def _check_divisors(divisors, rng):
    for d in divisors:
        d = int(d)
        magic, shift = plan.int_divider(d)
        n = _dividends(d, rng)
        q = plan.fast_div(n, magic, shift)
        np.testing.assert_array_equal(q, n // np.uint64(d), err_msg="divisor %d" % d)


def test_int_divider_every_divisor_up_to_2_16():
    """Vectorized over all 65536 divisors at once: edges and random dividends."""
    d = np.arange(1, 2**16 + 1, dtype=np.uint64)
    shift = np.array([(int(x) - 1).bit_length() for x in d], dtype=np.uint64)
    magic = ((np.uint64(1) << np.uint64(32)) * ((np.uint64(1) << shift) - d)) // d + np.uint64(1)
    for x in (1, 2, 3, 7, 1000, 65535, 65536):        # the vector form is int_divider's
        assert plan.int_divider(x) == (int(magic[x - 1]), int(shift[x - 1]))
    rng = np.random.default_rng(0)
    top = np.uint64(2**31 - 1)
    cols = [np.zeros_like(d), d - np.uint64(1), d, d + np.uint64(1), np.full_like(d, top),
            (top // d) * d, (top // d) * d - np.uint64(1)]
    cols += [rng.integers(0, 2**31, size=d.size).astype(np.uint64) for _ in range(16)]
    for n in cols:
        n = np.minimum(n, top)
        t = (n * magic) >> np.uint64(32)
        q = ((t + n) & np.uint64(0xFFFFFFFF)) >> shift
        np.testing.assert_array_equal(q, n // d)


def test_int_divider_random_divisors_up_to_2_31():
    rng = np.random.default_rng(1)
    divisors = list(rng.integers(1, 2**31, size=3000)) + [2**31 - 1, 2**31, 2**30 + 1,
                                                         3 * 2**29, 2**16 + 1]
    _check_divisors(divisors, rng)


def test_int_divider_rejects_out_of_range():
    with pytest.raises(ValueError):
        plan.int_divider(0)
    with pytest.raises(ValueError):
        plan.int_divider(2**31 + 1)


# -- 32-bit splitting -----------------------------------------------------------

def _element_offsets(piece):
    """Every element's offset tuple (one per operand), as a sorted list."""
    out = []
    for idx in itertools.product(*[range(s) for s in piece.shape]):
        out.append(tuple(o + sum(i * st[d] for d, i in enumerate(idx))
                         for o, st in zip(piece.offsets, piece.strides)))
    return sorted(out)


@pytest.mark.parametrize("seed", range(30))
def test_split_32bit_covers_every_element_once(seed):
    rng = np.random.default_rng(seed)
    nd = int(rng.integers(1, 4))
    shape = tuple(int(s) for s in rng.integers(1, 9, size=nd))
    strides = tuple(tuple(int(x) * 4 for x in rng.integers(-20, 21, size=nd))
                    for _ in range(int(rng.integers(1, 4))))
    piece = Piece(shape, strides, (0,) * len(strides))
    limit = int(rng.integers(8, 200))
    pieces = plan.split_32bit(piece, limit)
    for p in pieces:
        assert plan.can_use_32bit_indexing(p, limit)
    got = sorted(itertools.chain.from_iterable(_element_offsets(p) for p in pieces))
    assert got == _element_offsets(piece)


def test_split_32bit_huge_plan():
    """int8, 3 * 2**30 contiguous elements (3 GiB): halves until each fits;
    float32 of the same count needs one more halving (bytes count)."""
    n = 3 * 2**30
    piece = Piece((n,), ((1,), (1,)), (0, 0))
    assert not plan.can_use_32bit_indexing(piece)
    pieces = plan.split_32bit(piece)
    assert [p.shape for p in pieces] == [(3 * 2**29,)] * 2
    assert [p.offsets[0] for p in pieces] == [0, 3 * 2**29]
    pieces = plan.split_32bit(Piece((n,), ((4,), (1,)), (0, 0)))
    assert [p.shape for p in pieces] == [(3 * 2**27,)] * 8
    assert [p.offsets for p in pieces] == [(4 * k * 3 * 2**27, k * 3 * 2**27) for k in range(8)]
    # 2-d float32 (2**16 x 2**15): by bytes, the slow dim is split first
    piece = Piece((2**15, 2**16), ((4, 4 * 2**15), (4, 4 * 2**15)), (0, 0))
    pieces = plan.split_32bit(piece)
    assert len(pieces) == 4 and all(p.shape == (2**15, 2**14) for p in pieces)
    assert [p.offsets[0] for p in pieces] == [i * 2**14 * 2**17 for i in range(4)]


def test_split_32bit_extent_not_count():
    """Few elements but a stride that reaches past 2**31 bytes: split."""
    piece = Piece((4, 3), ((4, 2**30), (4, 2**30)), (0, 0))
    assert plan.numel(piece.shape) == 12 and not plan.can_use_32bit_indexing(piece)
    pieces = plan.split_32bit(piece)
    assert all(plan.can_use_32bit_indexing(p) for p in pieces)
    assert sum(plan.numel(p.shape) for p in pieces) == 12


def test_split_dims_beyond_max():
    shape = (2,) * 14
    strides = (tuple(4 * 2**k for k in range(14)),)
    piece = Piece(shape, strides, (0,))
    pieces = plan.split_dims(piece, 12)
    assert len(pieces) == 4 and all(len(p.shape) == 12 for p in pieces)
    got = sorted(itertools.chain.from_iterable(_element_offsets(p) for p in pieces))
    assert got == _element_offsets(piece)


def test_split_empty_plan():
    assert plan.split_32bit(Piece((0, 5), ((4, 0),), (0,))) == []


# -- kernel choice, launch configuration, params ---------------------------------

def test_choose_kernel():
    contiguous = Piece((1000,), ((4,), (4,), (4,)), (0, 0, 0))
    f = [10, 10, 10]
    aligned = [4096, 8192, 16384]
    assert plan.choose_kernel(contiguous, aligned, f, f, [False] * 3, [4]) == "vec4"
    # a pointer off by one element: ATen's can_vectorize_up_to says 1 -> offset kernel
    assert plan.choose_kernel(contiguous, [4096, 8196, 16384], f, f, [False] * 3, [4]) == "offset"
    # a scalar operand does not block vectorization
    piece = Piece((1000,), ((4,), (4,), (0,)), (0, 0, 0))
    assert plan.choose_kernel(piece, [4096, 8192, 0], f, f, [False, False, True], [4]) == "vec4"
    strided = Piece((10, 10), ((4, 40), (4, 80), (4, 40)), (0, 0, 0))
    assert plan.choose_kernel(strided, aligned, f, f, [False] * 3, [4]) == "offset"
    # an operand stored as int32 but read as float32: LoadWithCast
    assert plan.choose_kernel(contiguous, aligned, [10, 5, 10], f, [False] * 3, [4]) == "cast"


def test_launch_config():
    assert plan.launch_config("vec4", 1000) == ((1, 1, 1), (128, 1, 1))
    assert plan.launch_config("vec4", 2049) == ((2, 1, 1), (128, 1, 1))
    assert plan.launch_config("vec8", 10**6) == (((10**6 + 4095) // 4096, 1, 1), (128, 1, 1))
    assert plan.launch_config("offset", 513) == ((2, 1, 1), (128, 1, 1))
    assert plan.launch_config("cast", 2**31 - 1)[0][0] == (2**31 - 1 + 511) // 512


def test_pack_params():
    piece = Piece((5, 7), ((4, 20), (8, 40), (0, 0)), (0, 0, 0))
    rec = plan.pack_params(piece, [1024, 2048, 0], [10, 11, 10], [None, None, b"\x00\x00\x80?"])
    assert rec.shape == (1,) and rec.dtype == plan.PARAMS_DTYPE
    rec = rec[0]
    assert plan.PARAMS_DTYPE.itemsize == 456
    assert list(rec["data"][:3]) == [1024, 2048, 0]
    assert rec["ndim"] == 2 and rec["numel"] == 35
    assert tuple(rec["divider"][0]) == (5,) + plan.int_divider(5)
    assert tuple(rec["divider"][1]) == (7,) + plan.int_divider(7)
    assert list(rec["stride"][:2, :3].ravel()) == [4, 8, 0, 20, 40, 0]
    assert bytes(rec["scalar"][2][:4]) == b"\x00\x00\x80?"
    with pytest.raises(ValueError):
        plan.pack_params(Piece((2,) * 13, ((4,) * 13,), (0,)), [0], [10], [None])


def test_plan_launches_splits_and_names():
    piece = Piece((3 * 2**30,), ((1,), (1,), (1,)), (0, 0, 0))
    codes = [1, 1, 1]
    launches = plan.plan_launches("titer_add_bb_b", piece, [2**20] * 3, codes, codes,
                                  [None] * 3, [8])
    assert [l.kernel for l in launches] == ["titer_add_bb_b_vec8"] * 2
    assert sum(l.numel for l in launches) == 3 * 2**30
    assert [int(l.params[0]["data"][0]) for l in launches] == [2**20, 2**20 + 3 * 2**29]



def test_launch_template_moves_pointers_with_their_bases():
    """A recorded split launch replayed at other addresses: every data
    pointer keeps its offset from its operand's base, the scalar slot takes
    the new value; the same operands again reuse the last Launch objects,
    different ones never do."""
    piece = Piece((3 * 2**30,), ((1,), (1,), (0,)), (0, 0, 0))
    codes = [1, 1, 1]
    one = b"\x01"
    recorded = plan.plan_launches("titer_add_bb_b", piece, [2**20, 2**21, 0], codes, codes,
                                  [None, None, one], [8])
    template = plan.LaunchTemplate(recorded, [2**20, 2**21, 0])
    bases = [2**40, 2**41 + 16, 0]
    replayed = template.replay(bases, {2: b"\x07"})
    for old, new in zip(recorded, replayed):
        assert new.kernel == old.kernel and new.grid == old.grid and new.numel == old.numel
        moved = [int(new.params[0]["data"][i]) - bases[i] for i in range(2)]
        assert moved == [int(old.params[0]["data"][i]) - b for i, b in enumerate([2**20, 2**21])]
        assert int(new.params[0]["data"][2]) == 0 and new.params[0]["scalar"][2][0] == 7
        assert (new.params[0]["divider"] == old.params[0]["divider"]).all()
    assert template.replay(list(bases), {2: b"\x07"}) is replayed
    assert template.replay(bases, {2: b"\x08"})[0].params[0]["scalar"][2][0] == 8
    other = template.replay([2**40 + 32, 2**41 + 16, 0], {2: b"\x08"})
    assert int(other[0].params[0]["data"][0]) == 2**40 + 32


def test_launch_template_resized_to_another_length():
    """A one-dim template replayed over n elements has exactly the launch a
    fresh plan for n gets: count, divider and grid."""
    codes = [5, 5, 5]
    for kind_widths, itemsize in (([4, 2], 4), ([1], 4)):
        piece = Piece((1000,), ((itemsize,),) * 3, (0, 0, 0))
        recorded = plan.plan_launches("titer_add_ff_f", piece, [2**20] * 3, codes, codes,
                                      [None] * 3, kind_widths)
        template = plan.LaunchTemplate(recorded, [2**20] * 3)
        assert template.resizable()
        for n in (1, 2, 77, 4096, 2**29):      # 2**29 float32: the most one piece holds
            fresh = plan.plan_launches("titer_add_ff_f", Piece((n,), piece.strides, (0, 0, 0)),
                                       [2**21] * 3, codes, codes, [None] * 3, kind_widths)
            got = template.replay([2**21] * 3, {}, numel=n)
            assert len(fresh) == len(got) == 1
            assert (got[0].kernel, got[0].grid, got[0].block, got[0].numel) == \
                (fresh[0].kernel, fresh[0].grid, fresh[0].block, fresh[0].numel)
            assert got[0].params.tobytes() == fresh[0].params.tobytes()
    two_dims = Piece((10, 10), ((4, 40),) * 3, (0, 0, 0))
    recorded = plan.plan_launches("titer_add_ff_f", two_dims, [2**20] * 3, codes, codes,
                                  [None] * 3, [4])
    assert not plan.LaunchTemplate(recorded, [2**20] * 3).resizable()


# -- naming and the manifest -------------------------------------------------------

def test_kernel_names():
    assert build.kernel_stem("add", "ff->f") == "titer_add_ff_f"
    assert build.kernel_stem("less", "??->?") == "titer_less_B1B1_B1"
    assert build.kernel_name("add", "ee->e", "cast") == "titer_add_ee_e_cast"
    assert build.vector_widths("ff->f") == [4, 2]
    assert build.vector_widths("bb->b") == [8, 4, 2]
    assert build.vector_widths("ff->?") == [4, 2]
    assert build.vector_widths("dd->d") == [2]
    assert build.vector_widths("DD->D") == [1]
    stems = [build.kernel_stem(op.name, s) for op in _ops.OPS for s in op.types]
    assert len(stems) == len(set(stems))


@pytest.fixture(scope="module")
def manifest(tmp_path_factory):
    return build.generate(str(tmp_path_factory.mktemp("cuda-src")))



def test_every_kernel_expression_the_cpu_has_the_gpu_has(manifest):
    """A signature is left out of the CUDA modules only for its operand
    count: an op-table expression naming a CPU helper the device header
    lacks (signbit's titer_signbit once) is a GPU gap, not a skip."""
    gaps = {k: v for k, v in manifest["unsupported"].items() if "titer_scalar.cuh" in v}
    assert gaps == {}

def test_manifest_covers_the_op_table(manifest):
    """Every signature of every op (the table grows) has kernels or a reason."""
    for op in _ops.OPS:
        kernels = manifest["ops"][op.name]["kernels"]
        for sig in op.types:
            key = "%s %s" % (op.name, sig)
            assert (sig in kernels) != (key in manifest["unsupported"]), key
            if key in manifest["unsupported"]:
                assert manifest["unsupported"][key]
    covered = sum(len(e["kernels"]) for e in manifest["ops"].values())
    total = sum(len(op.types) for op in _ops.OPS)
    assert covered >= 0.8 * total, (covered, total)
    for name in ("add", "subtract", "multiply", "divide", "equal", "less", "maximum",
                 "negative", "absolute"):
        if name in _ops.OPS_BY_NAME:
            assert set(manifest["ops"][name]["kernels"]) == set(_ops.OPS_BY_NAME[name].types)


def test_generated_sources_define_every_kernel(manifest, tmp_path):
    build.generate(str(tmp_path))
    for name, entry in manifest["ops"].items():
        if not entry["kernels"]:
            assert not (tmp_path / (name + ".cu")).exists()
            continue
        text = (tmp_path / (name + ".cu")).read_text()
        for sig, k in entry["kernels"].items():
            assert "TITER_DEFINE_KERNELS(%s, " % k["stem"] in text
            for w in k["vec"]:
                assert "TITER_DEFINE_VEC_KERNEL(%s, %s_op, %d)" % (k["stem"], k["stem"], w) in text


def test_missing_names():
    known = build.device_names()
    assert build.missing_names("titer_cmul(a, b)", known) == []
    assert build.missing_names("titer_m1(sqrt, a) + 1.5e-3f", known) == []
    assert build.missing_names("titer_cfn(frob, a)", known) == ["titer_cfrob"]
    assert build.missing_names("titer_cfn(asin, a)", known) == []
    assert build.missing_names("titer_cfn2(pow, a, b)", known) == []
    assert build.missing_names("a.re + titer_new_helper(b) * 0x7fffu", known) == ["titer_new_helper"]


def test_new_op_with_unknown_helper_is_skipped_and_reported(tmp_path):
    op = _ops.Op("frobnicate", 2, 1, ["ff->f", "dd->d"],
                 {"f": "titer_frob(a, b)", "d": "a + b"}, (), "frob")
    m = build.generate(str(tmp_path), [op])
    assert list(m["ops"]["frobnicate"]["kernels"]) == ["dd->d"]
    assert "titer_frob" in m["unsupported"]["frobnicate ff->f"]


def test_cuda_archs():
    assert build.cuda_archs("ptx", [75, 80, 90]) == ([], 75, [])
    assert build.cuda_archs("80;90+ptx", [75, 80, 90]) == ([80, 90], 80, [])
    archs, ptx, dropped = build.cuda_archs("full", [75, 80, 86, 89, 90, 100])
    assert archs == [75, 80, 86, 89, 90] and ptx == 75 and dropped == [70]
    assert build.cuda_archs("sm_86", None) == ([86], None, [])
    # auto: SASS for the building machine's GPUs plus PTX for the rest
    assert build.cuda_archs("auto", [75, 80, 90], native=[90]) == ([90], 75, [])
    assert build.cuda_archs("auto", [75, 80, 90], native=[]) == ([], 75, [])
    assert build.cuda_archs("auto", [75, 80, 90], native=[80, 120]) == ([80], 75, [120])
    assert build.cuda_archs("native", [75, 80, 90], native=[86, 80]) == ([80], None, [86])
    assert build.cuda_archs("native+ptx", [75, 80, 86], native=[86]) == ([86], 86, [])
    assert build.cuda_archs("native", [75, 80], native=[]) == ([], 75, [])


def test_native_archs_reads_nvidia_smi(tmp_path, monkeypatch):
    """The GPUs' compute capabilities as nvidia-smi prints them; nothing
    when it is missing or fails (a machine without a GPU or driver)."""
    smi = tmp_path / "nvidia-smi"
    monkeypatch.setenv("PATH", str(tmp_path))
    assert build.native_archs() == []
    smi.write_text("#!/bin/sh\nprintf '9.0\\n8.6\\n9.0\\n'\n")
    smi.chmod(0o755)
    assert build.native_archs() == [86, 90]
    smi.write_text("#!/bin/sh\necho 'NVIDIA-SMI has failed' >&2\nexit 9\n")
    assert build.native_archs() == []


def test_build_without_nvcc(tmp_path, monkeypatch):
    monkeypatch.setenv("TITER_NO_CUDA", "1")
    logs = []
    m = build.build_kernels(str(tmp_path), log=logs.append,
                            op_list=[_ops.OPS_BY_NAME["add"]])
    assert m["compiled"] is False and (tmp_path / "add.cu").exists()
    assert (tmp_path / "manifest.json").exists()
    assert any("TITER_NO_CUDA set" in msg for msg in logs)
    assert m["not_compiled"] == "TITER_NO_CUDA set"


def test_nvcc_only_where_a_driver_could_load_fatbins(monkeypatch):
    """No driver: no nvcc unless TITER_CUDA=1; TITER_NO_CUDA=1 always wins."""
    monkeypatch.delenv("TITER_NO_CUDA", raising=False)
    monkeypatch.delenv("TITER_CUDA", raising=False)
    monkeypatch.setattr(build, "driver_present", lambda: False)
    wanted, why = build.want_nvcc()
    assert not wanted and "no GPU driver" in why
    monkeypatch.setenv("TITER_CUDA", "1")
    assert build.want_nvcc() == (True, None)
    monkeypatch.setenv("TITER_NO_CUDA", "1")
    assert build.want_nvcc()[0] is False
    monkeypatch.delenv("TITER_NO_CUDA")
    monkeypatch.delenv("TITER_CUDA")
    monkeypatch.setattr(build, "driver_present", lambda: True)
    assert build.want_nvcc() == (True, None)


def test_driver_probe_answers_without_a_gpu():
    assert build.driver_present() in (True, False)


def test_import_titer_never_imports_cupy():
    code = ("import sys, numpy as np, titer\n"
            "titer.elementwise('add', None, np.ones(3), 1.0)\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('cupy', 'cupy_backends')"
            " or m == 'titer.cuda._cupy']\n"
            "assert not bad, bad\n")
    env = dict(os.environ)
    subprocess.run([sys.executable, "-c", code], check=True, env=env,
                   cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
