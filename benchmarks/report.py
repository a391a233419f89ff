"""Markdown tables from a pytest-benchmark JSON file.

    python benchmarks/report.py bench.json [--reference cupy]

Per benchmark group: each library's median time and its ratio to the
reference's (NumPy by default; reference median / library median, so > 1
means faster than the reference).  An overview table of the ratios comes
first.  A benchmark that records the bytes it moves (``extra_info["bytes"]``)
gets its bandwidth in GB/s, and a group with a ``d2d-copy`` entry each
impl's share of that copy's bandwidth.
"""
import argparse
import json

REFERENCE = "numpy"


def format_time(seconds):
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e3:.2f} ms"


def medians_by_group(benchmarks):
    """{group: {impl: median seconds}}, groups and impls in run order."""
    groups = {}
    for bench in benchmarks:
        impl = bench["params"]["impl"]
        groups.setdefault(bench["group"], {})[impl] = bench["stats"]["median"]
    return groups


def ratio(medians, impl):
    if REFERENCE not in medians:
        return "-"
    return f"{medians[REFERENCE] / medians[impl]:.2f}x"


def set_reference(impl):
    global REFERENCE
    REFERENCE = impl


def markdown_table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "| " + " | ".join(["---"] + ["---:"] * (len(header) - 1)) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def overview(groups):
    impls = [impl for impl in dict.fromkeys(i for m in groups.values() for i in m)
             if impl != REFERENCE]
    header = ["group", f"{REFERENCE} median"] + [f"{impl} vs {REFERENCE}" for impl in impls]
    rows = []
    for group, medians in groups.items():
        row = [group, format_time(medians[REFERENCE]) if REFERENCE in medians else "-"]
        row += [ratio(medians, impl) if impl in medians else "-" for impl in impls]
        rows.append(row)
    return markdown_table(header, rows)


def bytes_by_group(benchmarks):
    """{group: {impl: bytes moved}} for the benchmarks that record it."""
    moved = {}
    for bench in benchmarks:
        n = bench.get("extra_info", {}).get("bytes")
        if n:
            moved.setdefault(bench["group"], {})[bench["params"]["impl"]] = n
    return moved


def group_table(medians, moved=None):
    if not moved:
        rows = [[impl, format_time(seconds), ratio(medians, impl)]
                for impl, seconds in medians.items()]
        return markdown_table(["impl", "median", f"{REFERENCE} / impl"], rows)
    rate = {impl: moved[impl] / seconds for impl, seconds in medians.items() if impl in moved}
    bar = rate.get("d2d-copy")
    rows = [[impl, format_time(seconds), ratio(medians, impl),
             f"{rate[impl] / 1e9:.0f}" if impl in rate else "-",
             f"{100 * rate[impl] / bar:.0f}%" if bar and impl in rate else "-"]
            for impl, seconds in medians.items()]
    return markdown_table(["impl", "median", f"{REFERENCE} / impl", "GB/s",
                           "of d2d-copy GB/s"], rows)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("json_file", help="written by pytest --benchmark-json=FILE")
    parser.add_argument("--overview-only", action="store_true",
                        help="print only the overview table")
    parser.add_argument("--reference", default="numpy",
                        help="the impl the ratios are taken against (default numpy)")
    args = parser.parse_args(argv)
    set_reference(args.reference)
    with open(args.json_file) as file:
        data = json.load(file)

    groups = medians_by_group(data["benchmarks"])
    moved = bytes_by_group(data["benchmarks"])
    versions = data["machine_info"].get("library_versions", {})
    print(f"Run {data['datetime']}, {data['machine_info'].get('cpu', {}).get('brand_raw', '')}; "
          + ", ".join(f"{name} {version}" for name, version in versions.items()))
    print(f"\nRatios are {REFERENCE} median / impl median: > 1 means faster than "
          f"{REFERENCE}.\n")
    print(overview(groups))
    if not args.overview_only:
        for group, medians in groups.items():
            print(f"\n### {group}\n")
            print(group_table(medians, moved.get(group)))


if __name__ == "__main__":
    main()
