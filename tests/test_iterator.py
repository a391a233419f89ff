"""The iterator's machinery against the seeds' worked examples: DimCounter,
coalescing, reordering, the IterConfig flags and what TensorIterator reports."""
import numpy as np
import pytest

import titer
from titer import DimCounterView


# -- DimCounter (seed 003) -----------------------------------------------------

def test_dim_counter_seed_example():
    """shape [64, 2000, 10], range [1066670, 1280000): values [46, 666, 8],
    then steps {18, 1}, {64, 1333}, {64, 2000}."""
    counter = DimCounterView([64, 2000, 10], 1066670, 1280000)
    assert counter.values == [46, 666, 8]
    steps = []
    while not counter.is_done():
        step = counter.max_2d_step()
        steps.append(step)
        counter.increment(step)
    assert steps == [(18, 1), (64, 1333), (64, 2000)]
    assert counter.offset == 1280000
    assert counter.values == [0, 0, 0]


def test_dim_counter_visits_every_element_once():
    rng = np.random.default_rng(0)
    for _ in range(50):
        shape = [int(s) for s in rng.integers(1, 6, size=rng.integers(1, 5))]
        numel = int(np.prod(shape))
        begin = int(rng.integers(0, numel))
        end = int(rng.integers(begin, numel + 1))
        counter = DimCounterView(shape, begin, end)
        seen = []
        while not counter.is_done():
            start = np.ravel_multi_index(counter.values[::-1], shape[::-1])
            size0, size1 = counter.max_2d_step()
            assert size1 == 1 or size0 == shape[0]
            seen.extend(range(start, start + size0 * size1))
            counter.increment((size0, size1))
        assert seen == list(range(begin, end)), (shape, begin, end)


# -- coalescing and reordering (seeds 001 and 003) -------------------------------

def test_coalescing_seed_example():
    """NHWC output, contiguous input, shape (1, 64, 5, 4) float32: reordered to
    [64, 4, 5, 1] and coalesced to [64, 20]; output strides [4, 256], input
    [80, 4]."""
    out = np.zeros((1, 5, 4, 64), np.float32).transpose(0, 3, 1, 2)
    assert out.strides == (5120, 4, 1024, 256)
    x = np.arange(1280, dtype=np.float32).reshape(1, 64, 5, 4)
    it = titer.IterConfig().add_output(out).add_input(x).build()
    assert it.fast_setup is None
    assert it.perm == (1, 3, 2, 0)
    assert it.shape == (64, 20)
    assert it.strides(0) == (4, 256)
    assert it.strides(1) == (80, 4)


def test_fast_setup_collapses_to_one_dim():
    a = np.ones((3, 4, 5), np.float32)
    it = titer.IterConfig().add_output(None).add_input(a).add_input(a).build()
    assert it.fast_setup == "contiguous"
    assert it.shape == (60,) and it.ndim == 1 and it.is_contiguous()
    cl = np.ones((2, 3, 4, 5), np.float32).transpose(0, 2, 3, 1).copy().transpose(0, 3, 1, 2)
    it = titer.IterConfig().add_output(None).add_input(cl).add_input(cl).build()
    assert it.fast_setup == "channels_last"
    assert it.output(0).strides == cl.strides
    f = np.asfortranarray(np.ones((3, 4)))
    it = titer.IterConfig().add_output(None).add_input(f).build()
    assert it.fast_setup == "non_overlapping_dense"
    assert it.output(0).flags.f_contiguous


def test_broadcast_dims_have_stride_zero():
    a = np.ones((4, 3), np.float64)
    b = np.ones(3, np.float64)
    it = titer.IterConfig().add_output(None).add_input(a).add_input(b).build()
    assert it.broadcast_shape == (4, 3)
    assert it.shape == (3, 4)
    assert it.strides(2) == (8, 0)
    assert it.has_contiguous_first_dim()


def test_enforce_linear_iteration_keeps_c_order():
    a = np.ones((5, 4)).T
    it = titer.IterConfig().add_output(None).add_input(a).enforce_linear_iteration().build()
    assert it.perm == (1, 0)
    assert it.output(0).flags.c_contiguous


def test_reorder_follows_left_operand():
    """Seed 001: left-hand operand first; reversed views sort by |stride|."""
    a = np.ones((6, 5)).T              # F-ordered left operand
    b = np.ones((5, 6))
    out = titer.elementwise("add", None, a, b)
    assert out.flags.f_contiguous
    out = titer.elementwise("add", None, b, a)
    assert out.flags.c_contiguous
    r = np.ones((6, 5))[::-1, ::-1]
    assert titer.elementwise("negative", None, r).flags.c_contiguous


# -- IterConfig flags ------------------------------------------------------------

def test_check_all_same_dtype():
    a, b = np.ones(3, np.float32), np.ones(3, np.float64)
    with pytest.raises(TypeError, match="same dtype"):
        titer.IterConfig().add_output(None).add_input(a).add_input(b).build()
    it = titer.IterConfig().add_output(None).add_input(a).add_input(b) \
        .check_all_same_dtype(False).build()
    assert it.common_dtype == np.float64 and it.dtype(0) == np.float64


def test_promote_and_cast_flags_show_in_the_plan():
    a, b = np.ones(3, np.int8), np.ones(3, np.float32)
    out = np.zeros(3, np.float64)
    it = (titer.IterConfig().add_output(out).add_input(a).add_input(b)
          .check_all_same_dtype(False).promote_inputs_to_common_dtype()
          .cast_common_dtype_to_outputs().build())
    text = it.explain()
    assert it.common_dtype == np.float32
    assert "cast to float32" in text and "cast from float32" in text


def test_enforce_safe_casting_to_output():
    a = np.ones(3, np.float64)
    with pytest.raises(TypeError, match="can't be cast"):
        (titer.IterConfig().add_output(np.zeros(3, np.int32)).add_input(a)
         .check_all_same_dtype(False).enforce_safe_casting_to_output().build())


def test_resize_outputs():
    a = np.ones((2, 3))
    old = np.zeros(5)
    it = titer.IterConfig().add_output(old).add_input(a).check_all_same_dtype(False).build()
    assert it.output(0).shape == (2, 3) and it.output(0) is not old
    with pytest.raises(ValueError, match="non-broadcastable"):
        titer.IterConfig().add_output(old).add_input(a).resize_outputs(False).build()


def test_check_mem_overlap():
    x = np.arange(10.0)
    with pytest.raises(ValueError, match="single memory location"):
        titer.IterConfig().add_output(x[1:]).add_input(x[:-1]).build()
    it = titer.IterConfig().add_output(x[1:]).add_input(x[:-1]).check_mem_overlap(False).build()
    assert it.numel == 9
    it = titer.IterConfig().add_output(x).add_input(x).build()     # exact alias is fine
    assert it.is_contiguous()


def test_declare_static_shape_squashes_a_dim():
    """Seed 002's trick: iterate all dims but the squashed one."""
    x = np.ones((4, 7, 3))
    out = np.zeros((4, 7, 3))
    it = (titer.IterConfig().add_output(out).add_input(x)
          .declare_static_shape(x.shape, squash_dims=1).build())
    assert it.broadcast_shape == (4, 1, 3)
    assert it.numel == 12


def test_is_reduction_orders_reduced_dims_first():
    x = np.ones((4, 5, 6))
    out = np.zeros((4, 1, 6))
    it = (titer.IterConfig().add_output(out).add_input(x).resize_outputs(False)
          .is_reduction().build())
    assert it.perm[0] == 1              # the reduced dim is walked fastest
    assert it.strides(0)[0] == 0


# -- TensorIterator reporting ------------------------------------------------------

def test_properties_and_explain():
    a = np.ones((8, 4), np.float32)
    b = np.ones(4, np.float32)
    it = titer.IterConfig().add_output(None).add_input(a).add_input(b).build()
    assert (it.ntensors, it.noutputs, it.numel) == (3, 1, 32)
    assert it.dtype(1) == np.float32 and it.common_dtype == np.float32
    assert it.output(0).shape == (8, 4)
    text = it.explain()
    for piece in ("broadcast shape: (8, 4)", "perm", "coalesced shape", "operand 2 (input)",
                  "inner loop", "threads"):
        assert piece in text
    with pytest.raises(IndexError):
        it.strides(3)
    with pytest.raises(IndexError):
        it.output(1)


def test_loop_variant_reported():
    a = np.ones(100, np.float64)
    assert titer.IterConfig().add_output(None).add_input(a).add_input(a).build() \
        .loop_variant() == "contiguous"
    it = titer.IterConfig().add_output(None).add_input(a).add_input(np.float64(2)) \
        .check_all_same_dtype(False).build()
    assert it.loop_variant().startswith("scalar operand")
    it = titer.IterConfig().add_output(None).add_input(a[::2]).build()
    assert it.loop_variant() == "strided"


def test_can_use_32bit_indexing():
    small = np.ones(10)
    assert titer.IterConfig().add_output(None).add_input(small).build().can_use_32bit_indexing()
    huge = np.lib.stride_tricks.as_strided(np.ones(1), shape=(2,), strides=(2 ** 31,))
    it = titer.IterConfig().add_output(np.zeros(2)).add_input(huge).check_mem_overlap(False).build()
    assert not it.can_use_32bit_indexing()
