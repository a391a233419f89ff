"""Build a Cython extension in a folder as a downstream package would:
setuptools + Cython in a child process (the test's process keeps its titer)."""
import os
import subprocess
import sys
import textwrap

SETUP = """
from Cython.Build import cythonize
from setuptools import Extension, setup
setup(script_args=["build_ext", "--inplace", "-q"],
      ext_modules=cythonize({extensions}, include_path={include_path},
                            compiler_directives={{"language_level": 3}}, quiet=True))
"""


def build(folder, extensions, include_path=(), env=None):
    """`extensions`: source text of a list of setuptools Extensions (built
    in `folder`, which it is run from); returns the child's output."""
    script = os.path.join(folder, "build_here.py")
    with open(script, "w") as f:
        f.write(textwrap.dedent(SETUP.format(extensions=extensions,
                                             include_path=list(include_path))))
    proc = subprocess.run([sys.executable, script], cwd=folder, capture_output=True,
                          text=True, env=dict(os.environ, **(env or {})))
    if proc.returncode != 0:
        raise RuntimeError("build failed:\n%s\n%s" % (proc.stdout[-4000:], proc.stderr[-8000:]))
    return proc.stdout + proc.stderr
