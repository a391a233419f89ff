"""Long builds some tests need -- nvcc over every kernel module
(test_cuda_nvcc.py), a vendored copy of titer (test_vendoring.py) -- start
with the session and run beside the other tests: those are mostly one
Python thread, so on a 2-core machine a core would otherwise sit idle.

A test module that defines ``background_build()`` gets it started by
conftest.py as soon as one of its tests is selected, and its tests run last;
its fixture takes the result with ``result(module_name, background_build)``,
which builds in the foreground when nothing was started (a run by hand)."""
import os
import threading
from concurrent.futures import Future

_started = {}


def start(name, build):
    """Run build() (which mostly waits on child processes) in a daemon
    thread: a session that stops early (-x) does not wait for it."""
    if name in _started:
        return
    future = _started[name] = Future()

    def run():
        try:
            future.set_result(build())
        except BaseException as exc:  # noqa: BLE001  (re-raised in result())
            future.set_exception(exc)

    threading.Thread(target=run, name="titer-tests-" + name, daemon=True).start()


def result(name, build):
    future = _started.get(name)
    return build() if future is None else future.result()


def lower_priority():
    """preexec_fn for background child processes: the tests come first."""
    os.nice(10)
