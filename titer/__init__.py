"""titer: PyTorch's TensorIterator for NumPy arrays.

``titer.elementwise("add", out, a, b)`` computes ``numpy.add(a, b, out=out)``
with titer's own typed loops: layout-aware iteration (broadcasting, dim
reordering and coalescing, channels-last output), dtype conversion inside the
loops, OpenMP threads above the grain size.
"""
import contextlib as _contextlib

from ._core import (  # noqa: F401
    DTYPES,
    DimCounterView,
    IterConfig,
    TensorIterator,
    accumulate,
    all_ as all,
    any_ as any,
    ascontiguous,
    copy,
    empty_like,
    max_ as max,
    mean_ as mean,
    min_ as min,
    prod_ as prod,
    reduce,
    sum_ as sum,
    elementwise,
    get_grain_size,
    get_num_threads,
    has_openmp,
    is_contiguous,
    is_non_overlapping_and_dense,
    ops,
    set_grain_size,
    set_num_threads,
    suggest_memory_format,
)

__version__ = "0.1.0"

from . import _core  # noqa: E402
from ._config import show_config  # noqa: E402
from ._include import get_include  # noqa: E402
from ._evaluate import evaluate, explain_evaluate  # noqa: E402

__all__ = [
    "IterConfig", "TensorIterator", "elementwise", "ops",
    "reduce", "accumulate", "sum", "prod", "max", "min", "mean", "any", "all",
    "copy", "ascontiguous", "empty_like",
    "set_num_threads", "get_num_threads", "num_threads",
    "set_grain_size", "get_grain_size", "has_openmp",
    "is_contiguous", "is_non_overlapping_and_dense", "suggest_memory_format",
    "show_config", "get_include", "evaluate", "explain_evaluate",
]


@_contextlib.contextmanager
def num_threads(n):
    """``with titer.num_threads(n):`` runs the block with n threads."""
    previous = _core._thread_setting()     # None: back to following OpenMP
    set_num_threads(n)
    try:
        yield
    finally:
        set_num_threads(previous)
