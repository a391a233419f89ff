"""benchmarks/report.py: ratios against the reference, and the bandwidth
columns the GPU suite's copy bar needs (issue 5: add at >= 90% of the
device-to-device copy's bytes per second)."""
import importlib.util
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location(
    "report", os.path.join(HERE, "..", "benchmarks", "report.py"))
report = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(report)


def bench(group, impl, median, moved=None):
    b = {"group": group, "params": {"impl": impl}, "stats": {"median": median}}
    if moved:
        b["extra_info"] = {"bytes": moved}
    return b


def test_bandwidth_share_of_the_copy_bar(tmp_path, capsys):
    n = 1 << 28                                    # 256 MiB per stream
    data = {"datetime": "2026-11-22", "machine_info": {}, "benchmarks": [
        bench("add big", "titer", 0.300e-3, 3 * n), bench("add big", "cupy", 0.310e-3, 3 * n),
        bench("add big", "d2d-copy", 0.180e-3, 2 * n), bench("sum", "titer", 2e-5),
        bench("sum", "cupy", 4e-5)]}
    path = tmp_path / "gpu.json"
    path.write_text(json.dumps(data))
    report.main([str(path), "--reference", "cupy"])
    out = capsys.readouterr().out
    titer_rate, copy_rate = 3 * n / 0.300e-3, 2 * n / 0.180e-3
    row = next(line for line in out.splitlines() if line.startswith("| titer | 300.00 us"))
    assert "%.0f" % (titer_rate / 1e9) in row and "%.0f%%" % (100 * titer_rate / copy_rate) in row
    assert "| 1.03x |" in row                      # cupy median / titer median
    sum_row = next(line for line in out.splitlines() if line.startswith("| titer | 20.00 us"))
    assert sum_row.count("|") == 4 and "2.00x" in sum_row   # no bandwidth columns
