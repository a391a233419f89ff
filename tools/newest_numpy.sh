#!/usr/bin/env bash
# The suite under the newest NumPy on PyPI, whose wheels may need a newer
# Python than CI's (NumPy 2.5 starts at CPython 3.12; CI's python3 is 3.11
# and gets 2.4): a virtual environment of $PYTHON, else the first of
# python3.12, python3.13 or a pyenv 3.12+ that runs, in .venv-newest; a
# copy of the working tree in .venv-newest/src (Cython's generated C
# depends on the NumPy it was generated against, so it must not mix with
# the build beside it), titer built there; then the README's test command
# with any arguments given.
#
#   bash tools/newest_numpy.sh                 # the whole suite
#   bash tools/newest_numpy.sh -k nextafter    # a part of it
set -euo pipefail
cd "$(dirname "$0")/.."
find_python() {
    local candidate
    for candidate in ${PYTHON:-} python3.12 python3.13 \
            $(ls -d "$(pyenv root 2>/dev/null)"/versions/3.1[2-9]*/bin/python3 2>/dev/null); do
        if "$candidate" -c "import sys; assert sys.version_info >= (3, 12)" 2>/dev/null; then
            echo "$candidate"
            return 0
        fi
    done
    echo "no Python 3.12 or newer found (set PYTHON)" >&2
    return 1
}
PY=$(find_python)
"$PY" -m venv .venv-newest
# tracked and untracked files, not what git ignores (builds, generated C)
rm -rf .venv-newest/src
mkdir -p .venv-newest/src
git ls-files -z --cached --others --exclude-standard | while IFS= read -r -d '' file; do
    if [ -e "$file" ]; then cp --parents -- "$file" .venv-newest/src; fi
done
# shellcheck disable=SC1091
source .venv-newest/bin/activate
cd .venv-newest/src
pip install -q --upgrade numpy
pip install -q -e '.[test]'
python -c "import numpy, sys; print('NumPy', numpy.__version__, 'on Python', sys.version.split()[0])"
pytest "$@"
