"""titer.get_include(): where a downstream Cython build finds titer/api.pxd."""
import os


def get_include():
    """The folder to put on a downstream Cython build's include path
    (``cythonize(..., include_path=[titer.get_include()])``) so that a .pyx
    can write ``from titer.api cimport loop2d_t, for_each``: the folder that
    holds the ``titer`` package -- for a vendored copy, the one that holds
    its top-level package (``from mypkg._titer.api cimport ...``).  The API
    needs no C headers."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    while os.path.exists(os.path.join(root, "__init__.py")):
        root = os.path.dirname(root)
    return root
