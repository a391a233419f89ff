"""What this titer build is and how it runs here (titer.show_config(),
``python -m titer info``)."""
import importlib.util
import os
import platform
import sys

import numpy as np

from . import _core


def config():
    """A dict describing the build and the machine."""
    levels, active = _core.isa_levels()
    cuda = sys.modules.get(__package__ + ".cuda")
    if cuda is None:
        from . import cuda
    status = getattr(cuda, "status", None)
    return {
        "titer": sys.modules[__package__].__version__,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "openmp": _core.has_openmp(),
        "threads": _core.get_num_threads(),
        "thread source": _core._thread_source(),
        "usable cores": _core._usable_cores(),
        "grain size": _core.get_grain_size(),
        "instruction set": active,
        "vector libm (glibc libmvec)": _core.has_vector_libm(),
        "instruction sets (compiled, runnable)": levels,
        "forced by TITER_CPU_DISPATCH": os.environ.get("TITER_CPU_DISPATCH") or None,
        "streaming stores from (bytes)": _stream_threshold(),
        "cuda": status() if callable(status) else (
            "cupy installed" if importlib.util.find_spec("cupy") else "cupy not installed"),
    }


def _stream_threshold():
    threshold = _core._set_stream_min_bytes(0)
    _core._set_stream_min_bytes(threshold)
    return threshold


def show_config(file=None):
    """Print the build and machine facts titer runs with; return them."""
    info = config()
    width = max(len(k) for k in info)
    for key, value in info.items():
        print("%-*s  %s" % (width, key, value), file=file or sys.stdout)
    return info
