"""codecbench.fidelity's parsing and arithmetic on recorded output of real runs
(tests/data/fidelity/: criterion's estimates, JMH's -rf json, a trimmed codecbench fidelity run)."""

from __future__ import annotations

import json
import math
import os
import shutil
from pathlib import Path

import pytest

from codecbench import fidelity as fid
from codecbench import stats

DATA = Path(__file__).parent / "data" / "fidelity"


def test_criterion_medians_and_intervals_of_all_twelve_benches():
    figs = fid.read_criterion(DATA / "criterion")
    assert set(figs) == {k for k in fid.wanted_cells(("rust",))}
    est = json.loads((DATA / "criterion/dummy_json/encode/new/estimates.json").read_text())["median"]
    f = figs[("rust", "dummy", "json", "encode")]
    assert f.median == est["point_estimate"]
    assert (f.lo, f.hi) == (est["confidence_interval"]["lower_bound"], est["confidence_interval"]["upper_bound"])
    assert f.source == "criterion" and f.n > 0
    for f in figs.values():
        assert 0 < f.lo <= f.median <= f.hi


def test_criterion_ignores_results_older_than_this_run(tmp_path):
    shutil.copytree(DATA / "criterion", tmp_path / "criterion")
    est = tmp_path / "criterion/numeric_bson/encode/new/estimates.json"
    old = est.stat().st_mtime - 3600
    os.utime(est, (old, old))
    figs = fid.read_criterion(tmp_path / "criterion", since=old + 60)
    assert ("rust", "numeric", "bson", "encode") not in figs
    assert len(figs) == 11


def test_criterion_without_results_names_the_folder(tmp_path):
    with pytest.raises(fid.FidelityError, match="no criterion results"):
        fid.read_criterion(tmp_path / "nope")
    bad = tmp_path / "c/x/new"
    bad.mkdir(parents=True)
    (bad / "benchmark.json").write_text('{"full_id": "dummy/json/encode"}')
    (bad / "estimates.json").write_text('{"mean": {}}')
    with pytest.raises(fid.FidelityError, match="no median with a confidence interval"):
        fid.read_criterion(tmp_path / "c")


def test_jmh_median_over_all_iterations_of_all_forks():
    figs, extra = fid.read_jmh(DATA / "jmh.json")
    assert set(figs) == {k for k in fid.wanted_cells(("java",))}
    doc = json.loads((DATA / "jmh.json").read_text())
    b = next(b for b in doc if b["benchmark"].endswith(".decodeTyped")
             and b["params"] == {"codec": "bson", "dataset": "numeric"})
    values = [v for fork in b["primaryMetric"]["rawData"] for v in fork]
    assert len(b["primaryMetric"]["rawData"]) >= 2, "recorded with at least 2 forks"
    f = figs[("java", "numeric", "bson", "decode")]
    ci = stats.median_ci(values)
    assert (f.median, f.lo, f.hi, f.n) == (ci.median, ci.lo, ci.hi, len(values))
    e = extra[("java", "numeric", "bson", "decode")]
    assert e["forks"] == len(b["primaryMetric"]["rawData"]) and e["iterations"] == len(values)
    assert e["jmh_mean_ns"] == b["primaryMetric"]["score"]


def test_jmh_converts_units_and_rejects_throughput(tmp_path):
    doc = json.loads((DATA / "jmh.json").read_text())
    b = dict(doc[0])
    pm = dict(b["primaryMetric"])
    pm["scoreUnit"] = "us/op"
    pm["rawData"] = [[v / 1000 for v in fork] for fork in pm["rawData"]]
    b["primaryMetric"] = pm
    (tmp_path / "us.json").write_text(json.dumps([b]))
    us, _ = fid.read_jmh(tmp_path / "us.json")
    ns, _ = fid.read_jmh(DATA / "jmh.json")
    (key,) = us
    assert us[key].median == pytest.approx(ns[key].median)
    pm["scoreUnit"] = "ops/s"
    (tmp_path / "thrpt.json").write_text(json.dumps([b]))
    with pytest.raises(fid.FidelityError, match="expected a time per op"):
        fid.read_jmh(tmp_path / "thrpt.json")
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(fid.FidelityError, match="unreadable JMH result"):
        fid.read_jmh(tmp_path / "junk.json")


def test_codecbench_cells_are_encode_and_typed_decode_of_the_rust_payload():
    figs, failures = fid.read_codecbench(DATA / "codecbench-run", ("rust", "java"))
    assert not failures
    assert set(figs) == set(fid.wanted_cells(("rust", "java")))
    from codecbench import results
    df = results.read_measurements(DATA / "codecbench-run")
    # java decoding the rust producer's payload, not java's own (byte-identical, a separate cell)
    rows = df[(df.operation == "decode") & (df.dataset == "dummy") & (df.codec == "json")
              & (df.consumer.str.startswith("java")) & (df.producer.str.startswith("rust")) & (~df.aa_twin)]
    trial_figures = [stats.trial_figure(r) for r in rows.round_ns_per_op]
    fig = figs[("java", "dummy", "json", "decode")]
    # The cell's figure as every table shows it (pass-adjusted), the interval of its raw trials.
    cells = results.cells_frame(df)
    [cell] = cells[cells["cell_id"].isin(set(rows["cell_id"])) & (cells["operation"] == "decode")].to_dict("records")
    assert fig.median == cell["median_ns_per_op"]
    raw = stats.median_ci(trial_figures)
    assert (fig.lo, fig.hi) == (raw.lo, raw.hi)
    assert fig.n == len(trial_figures) >= 5


def test_testing_b_median_over_every_count_of_each_cell():
    """A real `go test -bench BenchmarkFidelity -count 10 -cpu 1` log (make fidelity's go-bench.log)."""
    text = (DATA / "go-bench.log").read_text()
    figs = fid.read_go_bench(text)
    assert set(figs) == set(fid.wanted_cells(("go",)))
    values = [float(line.split()[2]) for line in text.splitlines()
              if line.startswith("BenchmarkFidelity/numeric/bson/decode-typed")]
    assert len(values) == 10
    ci = stats.median_ci(values)
    f = figs[("go", "numeric", "bson", "decode")]
    assert (f.median, f.lo, f.hi, f.n, f.source) == (ci.median, ci.lo, ci.hi, 10, "testing.B")
    # GOMAXPROCS above 1 suffixes every name with "-N"; the figures are the same cells.
    suffixed = fid.read_go_bench(text.replace("/encode ", "/encode-2 ").replace("/decode-typed ", "/decode-typed-2 "))
    assert suffixed == figs
    with pytest.raises(fid.FidelityError, match="no BenchmarkFidelity result lines"):
        fid.read_go_bench("--- SKIP: BenchmarkFidelity\nPASS\n")


def test_ratio_interval_is_conservative():
    ref = fid.Figure(100.0, 90.0, 110.0, 20, "criterion")
    cb = fid.Figure(102.0, 99.0, 105.0, 6, "codecbench")
    r, lo, hi = fid.ratio_interval(cb, ref)
    assert r == pytest.approx(1.02) and lo == pytest.approx(99 / 110) and hi == pytest.approx(105 / 90)
    rows = fid.build_rows({("rust", "dummy", "json", "encode"): ref},
                          {("rust", "dummy", "json", "encode"): cb}, ("rust",))
    row = rows[0]
    assert row.within is True and row.interval_inside is False
    assert all(r.within is None for r in rows[1:]), "cells without both figures have no verdict"
    far = fid.build_rows({("rust", "dummy", "json", "encode"): ref},
                         {("rust", "dummy", "json", "encode"): fid.Figure(120, 118, 122, 6, "codecbench")},
                         ("rust",))[0]
    assert far.within is False
    assert math.isnan(fid.ratio_interval(cb, fid.Figure(0, 0, 0, 0, "JMH"))[0])


def test_table_from_the_recorded_runs_lists_every_cell_with_its_ratio():
    ref = fid.read_criterion(DATA / "criterion")
    ref.update(fid.read_jmh(DATA / "jmh.json")[0])
    cb, _ = fid.read_codecbench(DATA / "codecbench-run", ("rust", "java"))
    rows = fid.build_rows(ref, cb, ("rust", "java"))
    assert len(rows) == 24 and all(r.within is not None for r in rows)
    text = fid.format_table(rows)
    for r in rows:
        line = next(line for line in text.splitlines() if line.startswith(r.cell + " "))
        assert f"{r.ratio:.3f} [{r.ratio_lo:.3f}, {r.ratio_hi:.3f}]" in line
        assert ("criterion:" if r.language == "rust" else "JMH:") in line
    assert "of 24 measured cell(s) have a ratio inside 0.95-1.05" in text
    doc = fid.rows_json(rows)
    assert json.loads(json.dumps(doc, default=str))[0]["cell"] == rows[0].cell


def test_main_rejects_fewer_than_two_forks(capsys):
    with pytest.raises(SystemExit) as exc:
        fid.main(["--forks", "1"])
    assert exc.value.code == 2
    assert "at least 2" in capsys.readouterr().err


def test_busy_machine_is_named_in_a_warning():
    assert fid.busy_warning({"end of criterion": 1.2, "end of jmh": 1.4}, 2) == ""
    w = fid.busy_warning({"end of criterion": 1.2, "end of jmh": 4.9}, 2)
    assert "4.9 on 2 cores" in w and "end of jmh" in w
