"""The contiguous leaves that run as GCC vectors (titer/_codegen_reduce.py
kit_shape): every such integer kit and float max/min kit, on rows whose
lengths straddle its accumulator count and its block, from aligned and
offset starts, against NumPy exactly (integer arithmetic wraps the same in
any order; max/min do not depend on it).  Float sums and products are
checked to the bit in test_reduce.py, NaN in these leaves there too."""
import numpy as np
import pytest

import titer
from titer import _codegen_reduce, _ops

KITS = []
for _op in _ops.OPS:
    for _sig in _codegen_reduce.reducible_signatures(_op):
        _nacc, _vectors = _codegen_reduce.kit_shape(_op, _sig)
        if _vectors and (_sig[0] not in "fd" or _op.name in _codegen_reduce.ORDER_FREE):
            KITS.append((_op.name, _sig[0], _nacc))


def test_the_vector_kits_include_every_integer_sum_and_max():
    names = {(name, char) for name, char, _ in KITS}
    for char in "bBhHiIlL":
        for name in ("add", "multiply", "maximum", "minimum", "bitwise_or"):
            assert (name, char) in names


@pytest.mark.parametrize("name,char,nacc", KITS)
def test_vector_leaves_against_numpy(name, char, nacc):
    ufunc = getattr(np, name)
    rng = np.random.default_rng(nacc)
    info = np.iinfo(char) if np.dtype(char).kind in "iu" else None
    block = 16 * nacc
    n_max = 3 * block + 5
    if info is not None:
        base = rng.integers(info.min, info.max, n_max + 1, endpoint=True, dtype=char)
    else:
        base = rng.standard_normal(n_max + 1).astype(char)
    for n in (nacc - 1, nacc, nacc + 1, block - 1, block, block + 1, n_max):
        for x in (base[:n], base[1:n + 1]):
            np.testing.assert_array_equal(titer.reduce(name, x), ufunc.reduce(x),
                                          err_msg="n=%d %s" % (n, x.ctypes.data % 64))
    rows = base[:3 * (block + 3)].reshape(3, -1)
    np.testing.assert_array_equal(titer.reduce(name, rows, axis=1), ufunc.reduce(rows, axis=1))
