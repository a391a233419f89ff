"""``python -m titer``: time titer against NumPy on this machine and print a table.
``python -m titer gpu``: the same cases on CuPy arrays, titer against CuPy.
``python -m titer info``: the build and machine facts (titer.show_config())."""
import argparse
import sys

from ._demo import CASES, main


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m titer",
        description="Time titer.elementwise('add', ...) against numpy.add on "
                    "contiguous, broadcast, strided, mixed-dtype, transposed, "
                    "channels-last and tiny arrays. Every titer result is checked "
                    "against NumPy's once; the exit status is 1 on any mismatch or error.",
        epilog="`python -m titer gpu [--quick] [--case ID]` runs the cases on CuPy arrays "
               "(titer's CUDA kernels vs cupy.add); `python -m titer info` prints the build "
               "configuration.")
    parser.add_argument("--threads", type=int, default=None, metavar="N",
                        help="titer threads (default: titer.get_num_threads())")
    parser.add_argument("--quick", action="store_true",
                        help="16x smaller arrays and 3 rounds: a smoke run in a few seconds")
    parser.add_argument("--repeat", type=int, default=None, metavar="R",
                        help="timing rounds per case, best one reported (default 5, 3 with --quick)")
    parser.add_argument("--case", action="append", metavar="ID",
                        choices=[case.id for case in CASES],
                        help="run only this case (repeatable): %(choices)s")
    args = parser.parse_args(argv)
    if args.threads is not None and args.threads < 1:
        parser.error("--threads must be at least 1")
    return args


if __name__ == "__main__":
    if sys.argv[1:2] == ["info"]:
        from . import show_config
        show_config()
        sys.exit(0)
    on_gpu = sys.argv[1:2] == ["gpu"]
    args = parse_args(sys.argv[2:] if on_gpu else None)
    selected = [case for case in CASES if not args.case or case.id in args.case]
    repeat = args.repeat or (3 if args.quick else 5)
    if on_gpu:
        from ._demo_gpu import main as gpu_main
        sys.exit(gpu_main(small=args.quick, repeat=repeat, cases=selected, progress=sys.stderr))
    sys.exit(main(threads=args.threads, small=args.quick, repeat=repeat, cases=selected))
