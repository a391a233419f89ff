"""titer's Cython API (issue 25): a kernel module built outside titer, in a
temporary folder, with `from titer.api cimport loop2d_t, for_each` and
titer.get_include(); titer runs its loop on every layout and thread count."""
import os
import re
import shutil
import sys

import numpy as np
import pytest

import titer

pytest.importorskip("Cython")
from cython_build import build  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def readme_example():
    """The README's fused.pyx."""
    with open(os.path.join(os.path.dirname(HERE), "README.md")) as f:
        text = f.read()
    section = text[text.index("## Writing kernels in Cython"):]
    return re.search(r"```cython\n(.*?)```", section, re.S).group(1)


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = str(tmp_path_factory.mktemp("api_kernels"))
    shutil.copy(os.path.join(HERE, "data", "api_kernels.pyx"), folder)
    with open(os.path.join(folder, "fused.pyx"), "w") as f:
        f.write(readme_example())
    build(folder, '[Extension("api_kernels", ["api_kernels.pyx"]), '
                  'Extension("fused", ["fused.pyx"])]',
          include_path=[titer.get_include()])
    sys.path.insert(0, folder)
    yield folder
    sys.path.remove(folder)


@pytest.fixture(scope="module")
def kernels(folder):
    import api_kernels
    assert api_kernels.titer is titer       # built against, and running on, this titer
    return api_kernels


def test_the_readme_example(folder):
    import fused
    a, b, c = rand(50, 40), rand(40), rand(50, 1)
    with titer.num_threads(2):
        np.testing.assert_array_equal(fused.fused(a, b, c, 2.5), a * b + 2.5 * c)
        big = rand(300, 400)
        np.testing.assert_array_equal(fused.fused(big, big.T.T, 1.0, -1.0), big * big - 1.0)


def rand(*shape, dtype=np.float64, seed=[0]):
    seed[0] += 1
    return np.random.default_rng(seed[0]).standard_normal(shape).astype(dtype)


def layouts():
    """(name, a, b, c) with the layouts the issue lists."""
    a, b, c = rand(120, 300), rand(120, 300), rand(120, 300)
    yield "contiguous", a, b, c
    yield "broadcast", a, rand(300), rand(120, 1)
    yield "transposed", rand(300, 120).T, b, rand(300, 120).T
    yield "reversed", a[::-1, ::-1], b[:, ::-1], c[::-1]
    nhwc = rand(2, 20, 30, 16).transpose(0, 3, 1, 2)         # channels-last NCHW views
    yield "channels_last", nhwc, rand(2, 20, 30, 16).transpose(0, 3, 1, 2), rand(2, 16, 20, 30)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("grain_size", [-1, 1000])
@pytest.mark.parametrize("case", [case[0] for case in layouts()])
def test_fused_kernel_matches_numpy(kernels, case, threads, grain_size):
    _, a, b, c = next(x for x in layouts() if x[0] == case)
    expected = a * b + 2.5 * c
    with titer.num_threads(threads):
        got = kernels.fused(a, b, c, 2.5, grain_size=grain_size)
        np.testing.assert_array_equal(got, expected)
        out = np.full(expected.shape, np.nan)[..., ::-1]              # a strided out=
        assert kernels.fused(a, b, c, 2.5, out=out, grain_size=grain_size) is out
        np.testing.assert_array_equal(out, expected)
    if case == "channels_last":         # the iterator's output layout follows the inputs
        assert titer.suggest_memory_format(got) == "channels_last"


@pytest.mark.parametrize("threads", [1, 2])
def test_mixed_dtypes_through_the_iterators_casts(kernels, threads):
    """int32 * float32 + k * float64: the loop (float64 only) sees blocks
    the iterator converted; the float32 out= gets the result cast back."""
    a = np.arange(-3000, 3000, dtype=np.int32).reshape(60, 100)
    b = rand(100, dtype=np.float32)
    c = rand(60, 100)[:, ::-1]
    expected = a.astype(np.float64) * b.astype(np.float64) + 0.5 * c
    with titer.num_threads(threads):
        got = kernels.fused(a, b, c, 0.5, grain_size=512, promote=True)
        assert got.dtype == np.float64
        np.testing.assert_array_equal(got, expected)
        out = np.zeros((60, 100), np.float32)
        kernels.fused(a, b, c, 0.5, out=out, grain_size=512, promote=True)
        np.testing.assert_array_equal(out, expected.astype(np.float32))
        swapped = a.astype(">i4")                                     # staged too
        np.testing.assert_array_equal(kernels.fused(swapped, b, c, 0.5, promote=True), expected)


def test_same_dtype_is_checked_without_promotion(kernels):
    with pytest.raises(TypeError, match="same dtype"):
        kernels.fused(rand(4), rand(4, dtype=np.float32), rand(4), 1.0)


def test_only_a_tensor_iterator_is_accepted(kernels):
    with pytest.raises(TypeError, match="TensorIterator"):
        kernels.call_with(np.ones(3))


def test_get_include_holds_the_api():
    assert os.path.exists(os.path.join(titer.get_include(), "titer", "api.pxd"))
