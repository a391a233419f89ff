"""nvcc compiles the generated kernels (skipped without nvcc): a sample of
op modules (binary and reducible, transcendental with complex loops,
integer power, two outputs, bool outputs, ternary) and the copy module,
or every module with
TITER_TEST_NVCC_ALL=1.  Every module's source is compiled in CI all the
same, by NVRTC (test_cuda_nvrtc.py); a build with TITER_CUDA=1 (or on a
machine with a GPU driver) runs nvcc over every one.

The compile is the build's own (titer.cuda.build.build_kernels, told to
compile: the install runs nvcc only where a GPU driver is), cached by content
hash in a temp dir that starts from the in-tree build's fatbins if there are
any: after a build with fatbins, or a second run, this costs nothing; after an
op-table change only the changed op modules compile.  Nothing here needs a
GPU."""
import os
import shutil
import subprocess
import tempfile

import pytest

import background
from titer import _ops
from titer.cuda import build

NVCC = build.find_nvcc()
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc not found (CUDA toolkit absent)")


SAMPLE = ["add", "exp", "power", "divmod", "isnan", "clip"]


def sampled_ops():
    """The op modules this run compiles: the sample, or None for all of them."""
    if os.environ.get("TITER_TEST_NVCC_ALL", "") not in ("", "0"):
        return None
    return [_ops.OPS_BY_NAME[name] for name in SAMPLE]


def background_build():
    """The modules compiled (cached), started with the session: see
    tests/background.py."""
    if NVCC is None:
        return None
    cache = os.path.join(tempfile.gettempdir(), "titer-cuda-nvcc")
    os.makedirs(cache, exist_ok=True)
    if os.path.isdir(build.KERNEL_DIR):                # seed from the in-tree build
        for f in os.listdir(build.KERNEL_DIR):
            if not f.endswith(".fatbin.hash"):
                continue
            stamp, mine = os.path.join(build.KERNEL_DIR, f), os.path.join(cache, f)
            if os.path.exists(mine) and open(mine).read() == open(stamp).read():
                continue
            shutil.copy2(stamp[:-len(".hash")], mine[:-len(".hash")])
            shutil.copy2(stamp, mine)
    old = os.environ.pop("TITER_CUDA_ARCHS", None)
    logs = []
    try:
        manifest = build.build_kernels(cache, log=logs.append, compile=True,
                                       op_list=sampled_ops())
    finally:
        if old is not None:
            os.environ["TITER_CUDA_ARCHS"] = old
    return cache, manifest, logs


@pytest.fixture(scope="module")
def built():
    return background.result(__name__, background_build)


def test_generated_kernel_modules_compile(built):
    cache, manifest, logs = built
    assert manifest["compiled"], logs
    rejected = {k: v for k, v in manifest["unsupported"].items() if "nvcc" in v}
    assert not rejected, rejected
    for name, entry in manifest["ops"].items():
        if entry["kernels"]:
            assert os.path.getsize(os.path.join(cache, name + ".fatbin")) > 0, name
    assert os.path.getsize(os.path.join(cache, build.COPY_MODULE + ".fatbin")) > 0
    assert len(manifest["copy"]["kernels"]) == 14
    generated = build.generate(tempfile.mkdtemp(), sampled_ops())
    assert {n: set(e["kernels"]) for n, e in manifest["ops"].items()} == \
        {n: set(e["kernels"]) for n, e in generated["ops"].items()}


def ptx_text(folder, module):
    """<module>.cu in folder compiled to PTX text."""
    ptx = folder / (module + ".ptx")
    archs, ptx_arch, _ = build.cuda_archs("ptx", build.nvcc_archs(NVCC))
    subprocess.run([NVCC, "-ptx", "-std=c++17", "-I", build.HERE,
                    "-arch=compute_%d" % ptx_arch, "-o", str(ptx), str(folder / (module + ".cu"))],
                   check=True, capture_output=True)
    return ptx.read_text()


def test_ptx_has_every_kernel_name(tmp_path):
    """One module to PTX text: every extern "C" name the manifest promises."""
    m = build.generate(str(tmp_path), [_ops.OPS_BY_NAME["add"]])
    text = ptx_text(tmp_path, "add")
    reductions = 0
    for sig, k in m["ops"]["add"]["kernels"].items():
        variants = ["offset", "cast"] + ["vec%d" % w for w in k["vec"]]
        if "reduce_acc" in k:
            variants += ["reduce", "reduce_cast", "reduce_final", "scan", "scan_cast"]
            reductions += 1
        for variant in variants:
            assert ".entry %s_%s(" % (k["stem"], variant) in text, (sig, variant)
    assert reductions == 14                      # every add loop of one type


def test_copy_module_has_every_dtype(tmp_path):
    m = build.generate(str(tmp_path), [])
    text = ptx_text(tmp_path, build.COPY_MODULE)
    for sig, k in m["copy"]["kernels"].items():
        for variant in ["offset", "cast"] + ["vec%d" % w for w in k["vec"]]:
            assert ".entry %s_%s(" % (k["stem"], variant) in text, (sig, variant)


def test_nvcc_rejection_is_recorded_not_fatal(tmp_path):
    """An expression the device header accepts by name but nvcc rejects:
    that signature is dropped and reported, the others still compile."""
    op = _ops.Op("frobnicate", 2, 1, ["ff->f", "dd->d"],
                 {"f": "a + b", "d": "a + titer_fabs(b, b)"}, (), "frob")
    m = build.build_kernels(str(tmp_path), log=lambda msg: None, op_list=[op], compile=True)
    assert list(m["ops"]["frobnicate"]["kernels"]) == ["ff->f"]
    assert "nvcc rejected" in m["unsupported"]["frobnicate dd->d"]
    assert (tmp_path / "frobnicate.fatbin").exists()
