"""The report, from the recorded run in tests/data/report-run/ (tests/make_report_fixture.py):
two Rust workers and a fake worker whose codec fails, datasets beers and dummy, json/bson/protobuf
at 1, 10 and 100 records, with transfer. No control is needed."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from codecbench import report, results

from conftest import DATA, run_cli

FIXTURE = DATA / "report-run"
DATASETS = ("beers", "dummy")
PLOTS = ("size", "encode", "decode", "matrix", "e2e", "memory")
EXPECTED_PLOTS = {f"{ds}-{kind}.png" for ds in DATASETS for kind in PLOTS}
SECTIONS = ["run", "warnings", "environment", "dataset-beers", "dataset-dummy", "failures",
            "all-results", "method"]
NO_CONTROL = {"CODECBENCH_CONTROL": "127.0.0.1:9"}  # nothing listens there: the folder must do


def run_id() -> str:
    return json.loads((FIXTURE / "run.json").read_text())["run"]["id"]


@pytest.fixture
def results_dir(tmp_path) -> Path:
    """results/<run-id>/ holding a copy of the fixture."""
    out = tmp_path / "results"
    shutil.copytree(FIXTURE, out / run_id())
    return out


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """The report of the fixture, written once with the command, as a user runs it: the run by its
    id under --results-dir, the report to --out (without --out it goes beside the results, as
    test_e2e checks)."""
    base = tmp_path_factory.mktemp("report")
    shutil.copytree(FIXTURE, base / "results" / run_id())
    res = run_cli("report", run_id(), "--results-dir", str(base / "results"), "--out", str(base / "out"),
                  env=NO_CONTROL)
    assert res.returncode == 0, res.stdout + res.stderr
    assert not (base / "results" / run_id() / "report.html").exists(), "--out leaves the run folder alone"
    out = base / "out"
    return res, out, (out / "report.html").read_text(encoding="utf-8")


def test_report_command_writes_html_md_and_plots_and_says_where(built):
    res, run_dir, _ = built
    lines = res.stdout.strip().splitlines()
    assert lines[-1] == f"report: {run_dir / 'report.html'}"
    assert f"md:     {run_dir / 'report.md'}" in lines
    assert (run_dir / "report.md").exists()
    assert {p.name for p in (run_dir / "plots").glob("*.png")} == EXPECTED_PLOTS
    for p in (run_dir / "plots").glob("*.png"):
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The warnings the report carries are echoed on stderr.
    assert "warning: " in res.stderr and "failed" in res.stderr


def test_html_is_self_contained(built):
    _, _, html = built
    assert html.startswith("<!DOCTYPE html>")
    # Nothing to fetch: no external scripts, styles, images or links.
    assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", html, re.I)
    assert "<script" not in html.lower() and "<link" not in html.lower()
    assert "@import" not in html and "url(" not in html
    srcs = re.findall(r'<img [^>]*src="([^"]*)"', html)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    # Every href is an anchor inside the page, and every anchor exists.
    ids = set(re.findall(r'id="([^"]+)"', html))
    for href in re.findall(r'href="([^"]*)"', html):
        assert href.startswith("#") and href[1:] in ids, href


def test_html_has_every_section_and_one_image_per_expected_plot(built):
    _, run_dir, html = built
    ids = re.findall(r'<h[12] id="([^"]+)"', html)
    for section in SECTIONS:
        assert section in ids, f"section {section} missing; have {ids}"
    for ds in DATASETS:
        for kind in PLOTS:
            assert f'id="{ds}-{kind}"' in html, f"{ds}-{kind}"
    # One embedded image per plot file, each the bytes of that file.
    embedded = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(embedded) == len(EXPECTED_PLOTS)
    files = {base64.b64encode(p.read_bytes()).decode() for p in (run_dir / "plots").glob("*.png")}
    assert set(embedded) == files
    alts = re.findall(r'<img alt="([^"]+)"', html)
    assert len(alts) == len(set(alts)) == len(EXPECTED_PLOTS)


def test_html_content_environment_failures_matrix_and_relative_tables(built):
    _, _, html = built
    # Environment of every worker that measured.
    for text in ("rust-1", "rust-2", "rustc", "release", "debug_assertions = false"):
        assert text in html, text
    # Failures are listed with their messages, never dropped.
    assert "encode failed: the fake worker&#x27;s codec is broken on purpose" in html
    assert "not run: the payload&#x27;s encode" in html
    assert html.count('class="fail"') >= 10
    # The producer × consumer matrix has verified cells and the failed producer.
    assert "producer ↓ / consumer →" in html and "✓" in html and "fake-1" in html
    # Raw and relative tables.
    assert "Relative to best" in html and "100 %" in html
    assert "ns per record" in html and "bytes per record" in html
    # End to end.
    assert "encode + transfer + decode" in html
    # Warnings: the failures, and the spread threshold is stated.
    warnings = html.split('id="warnings"')[1].split("<h2")[0]
    assert "failed" in warnings


def test_markdown_has_the_sections_and_links_every_plot(built):
    _, run_dir, _ = built
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    for title in ("## Run", "## Can these numbers be trusted?", "## Environment of every worker",
                  "## Dataset beers", "## Dataset dummy", "## Failures and unverified results"):
        assert title in md, title
    linked = set(re.findall(r"!\[[^\]]*\]\(plots/([^)]+)\)", md))
    assert linked == EXPECTED_PLOTS
    assert "| codec |" in md


def test_warnings_for_debug_builds_isolation_and_few_rounds(results_dir, tmp_path):
    run_dir = results_dir / run_id()
    doc = json.loads((run_dir / "run.json").read_text())
    doc["workers"]["rust-1"]["buildProfile"] = "debug"
    doc["workers"]["rust-1"]["details"]["debug_assertions"] = "true"
    doc["workers"]["browser-1"] = {"language": "browser", "runtime": "Chromium", "runtimeVersion": "1",
                                   "buildProfile": "production",
                                   "details": {"crossOriginIsolated": "false", "timerResolutionUs": "100"}}
    (run_dir / "run.json").write_text(json.dumps(doc))
    df = results.read_measurements(run_dir)
    df["round_ns_per_op"] = df["round_ns_per_op"].map(lambda r: r[:3])
    df["rounds"] = df["round_ns_per_op"].map(len)
    df.to_parquet(run_dir / "measurements.parquet", index=False)
    text = "\n".join(report.trust_warnings(run_dir))
    assert "rust-1: a debug build" in text
    assert "browser-1: the page is not cross-origin isolated" in text and "100 µs" in text
    assert "fewer than 5 rounds" in text
    assert "failed or were not verified" in text


def test_spread_warning_names_its_threshold(results_dir):
    run_dir = results_dir / run_id()
    df = results.read_measurements(run_dir)
    mask = df["rounds"] > 0
    first = df.index[mask][0]
    df["round_ns_per_op"] = [([100.0, 150.0, 200.0, 250.0, 300.0] if i == first else [100.0] * 5) if m else r
                             for i, m, r in zip(df.index, mask, df["round_ns_per_op"])]
    df["spread"] = [results.round_stats(r)[3] if r else float("nan") for r in df["round_ns_per_op"]]
    df.to_parquet(run_dir / "measurements.parquet", index=False)
    text = "\n".join(report.trust_warnings(run_dir))
    assert f"1 of {int(mask.sum())} timed measurements spread more than ±10%" in text
    assert "half the interquartile range" in text


def test_report_reads_csv_when_there_is_no_parquet(results_dir, tmp_path):
    run_dir = results_dir / run_id()
    df = results.read_measurements(run_dir)
    csv = df.copy()
    csv["round_ns_per_op"] = csv["round_ns_per_op"].map(json.dumps)
    csv.to_csv(run_dir / "measurements.csv", index=False)
    (run_dir / "measurements.parquet").unlink()
    back = results.read_measurements(run_dir)
    pd.testing.assert_frame_equal(results.summary_frame(back), results.summary_frame(df))
    assert report.trust_warnings(run_dir) == report.trust_warnings(FIXTURE)


def test_report_of_an_unknown_run_without_control_says_so(tmp_path):
    res = run_cli("report", "no-such-run", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 1
    assert "no results for 'no-such-run'" in res.stderr and "not reachable" in res.stderr


def test_end_to_end_column_sums_encode_transfer_and_decode():
    df = results.read_measurements(FIXTURE)
    s = results.summary_frame(df)
    full = s[s["transfer_ns_per_op"].notna() & s["encode_ns_per_op"].notna() & s["decode_ns_per_op"].notna()]
    assert not full.empty
    assert (full["end_to_end_ns_per_op"] == full["encode_ns_per_op"] + full["transfer_ns_per_op"]
            + full["decode_ns_per_op"]).all()
    assert (full["end_to_end_ns_per_record"] == full["end_to_end_ns_per_op"] / full["record_count"]).all()
    partial = s[s["decode_ns_per_op"].isna() | s["transfer_ns_per_op"].isna()]
    assert partial["end_to_end_ns_per_op"].isna().all(), "no sum with a missing part"
