"""The report, from the run in tests/data/trials-a/ (tests/make_trials_fixture.py): rust, java and
browser workers and a fake worker whose codec fails, datasets beers and dummy, json/bson/protobuf
in typed/tree/lazy at 10 and 100 records, 5 trials per cell, upload and download, A/A twins.
tests/data/report-run/ (a real run from before trials) checks that old results still report.
No control is needed."""

from __future__ import annotations

import base64
import json
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from codecbench import report, results, stats

from conftest import DATA, run_cli

FIXTURE = DATA / "trials-a"
OLD = DATA / "report-run"
DATASETS = ("beers", "dummy")
PLOTS = ("size", "encode", "decode", "matrix", "e2e", "memory")
EXPECTED_PLOTS = {f"{ds}-{kind}.png" for ds in DATASETS for kind in PLOTS}
SECTIONS = ["verdict", "run", "warnings", "noise", "environment", "boundaries", "dataset-beers", "dataset-dummy",
            "failures", "all-results", "method"]
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


def test_the_verdict_and_leaderboards_come_first(built):
    _, run_dir, html = built
    ids = re.findall(r'<h[12] id="([^"]+)"', html)
    # The answer, then whether to trust it; the run's facts are folded further down.
    assert ids[:3] == ["top", "verdict", "warnings"], ids
    assert ids.index("run") > ids.index("dataset-beers")
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    verdict = md.split("## Verdict")[1].split("\n## ")[0]
    # One sentence per dataset × count × language, against json, and one leaderboard per
    # dataset × count whose rows are language × codec.
    for ds in DATASETS:
        for n in (10, 100):
            for lang in ("rust", "java", "browser"):
                assert f"- {ds} × {n}, {lang}: " in verdict, (ds, n, lang, verdict)
            assert f"*{ds} × {n} records: each language's own round trip" in verdict
    # The browser's bundle column (bundles.py) is there when web/ was built with its sizes.
    assert re.search(r"\| language \| codec \| bytes/rec \| (bundle gz \| )?encode /rec \| decode typed /rec \|", verdict)
    assert "★" in verdict and " %" in verdict and "than json" in verdict


def test_html_content_environment_failures_matrix_and_relative_tables(built):
    _, _, html = built
    # Environment of every worker that measured.
    for text in ("rust-1", "java-1", "browser-1", "rustc", "OpenJDK", "release", "debug_assertions = false"):
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
    # End to end: four legs, labelled as a sum of parts.
    assert "encode + upload + download + decode" in html and "a sum of parts" in html
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


def test_warnings_for_debug_builds_isolation_and_few_trials(results_dir, tmp_path):
    run_dir = results_dir / run_id()
    doc = json.loads((run_dir / "run.json").read_text())
    doc["workers"]["rust-1"]["buildProfile"] = "debug"
    doc["workers"]["rust-1"]["details"]["debug_assertions"] = "true"
    doc["workers"]["browser-1"]["details"] = {"crossOriginIsolated": "false", "timerResolutionUs": "100"}
    (run_dir / "run.json").write_text(json.dumps(doc))
    df = results.read_measurements(run_dir)
    df[df["trial"] < 3].to_parquet(run_dir / "measurements.parquet", index=False)
    text = "\n".join(report.trust_warnings(run_dir))
    assert "rust-1: a debug build" in text
    assert "browser-1: the page is not cross-origin isolated" in text and "100 µs" in text
    assert "fewer than 9 trials (as few as 3" in text and "holds an identical rerun's median only 60.0% of the time" in text
    assert "failed or were not verified" in text


def test_interval_unsteady_and_noise_warnings_name_their_thresholds(results_dir):
    text = "\n".join(report.trust_warnings(results_dir / run_id()))
    assert "timed cells have a 95 % interval wider than ±10% of their median" in text
    assert "never reached a steady state before sampling.maxWarmupMs" in text and "java" in text
    assert "noise floor: identical work differed by ≤ 13.1 %" in text


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
    assert res.returncode == 4  # no such run (1 is a failed run or a slowdown)
    assert "no results for 'no-such-run'" in res.stderr and "not reachable" in res.stderr


def test_end_to_end_column_sums_the_four_legs():
    df = results.read_measurements(FIXTURE)
    s = results.summary_frame(df)
    legs = ["encode_ns_per_op", "upload_ns_per_op", "download_ns_per_op", "decode_ns_per_op"]
    full = s[s[legs].notna().all(axis=1)]
    assert not full.empty
    assert (full["end_to_end_ns_per_op"] == full[legs].sum(axis=1)).all()
    assert (full["end_to_end_ns_per_record"] == full["end_to_end_ns_per_op"] / full["record_count"]).all()
    partial = s[s[legs].isna().any(axis=1)]
    assert not partial.empty and partial["end_to_end_ns_per_op"].isna().all(), "no sum with a missing part"


def test_report_names_the_method_seed_noise_floor_regions_and_lazy_fields(built):
    _, run_dir, html = built
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    run = md.split("## Run")[1].split("## ")[0]
    assert "| trial order seed | 424242 |" in run
    assert "95 % rerun interval" in run and "83.3 % for 5 trials" in run
    # (median 3.1 % with plain medians over trials; the pass adjustment takes the fixture's pass drift out)
    assert "identical work differed by ≤ 13.1 % (median 3.0 %, 72 A/A groups)" in run
    noise = md.split("## Noise floor")[1].split("## ")[0]
    assert "Every A/A group (72), worst first" in noise and "(A/A twin)" in noise
    # The method says what one run's interval cannot cover, and that trials are fresh Chromiums.
    method = md.split("## How to read this report")[1].split("## ")[0]
    assert "What an interval cannot see" in method and "less often than 95 %" in method
    assert "a fresh headless Chromium page" in method and "Web Worker" not in method
    assert "share one Chromium launch" in method
    # The codec × language table of declared timed regions.
    regions = md.split("## Timed regions")[1].split("## ")[0]
    assert "| codec | timed region | rust | java | browser |" in regions
    assert "| protobuf | encode | model-conversion, serialize | model-conversion, serialize | " \
           "model-conversion, serialize, copy — protobuf-es returns a fresh Uint8Array (a copy) |" in regions
    assert "| bson | decode lazy | field-lookup |" in regions
    assert "dummy: guid, favoriteFruit; beers: name, details" in regions
    # Tables carry the interval and the trial count; unsteady trials are marked.
    assert re.search(r"\| [\d,.]+ ±\d+\.\d% \(5\) \|", md)
    assert re.search(r"\(5\) ~\d", md)
    assert "≡" in md, "cells decoding byte-identical payloads say so"
    assert "same bytes as" in md


def test_relative_tables_never_name_a_winner_inside_a_tie(tmp_path):
    b = report._Builder(FIXTURE, tmp_path)
    piv = pd.DataFrame({10: [100.0, 104.0, 150.0]}, index=["json", "bson", "protobuf"])
    tie = {("json", 10): stats.Interval(100, 98, 103, 5, 0.94), ("bson", 10): stats.Interval(104, 101, 108, 5, 0.94),
           ("protobuf", 10): stats.Interval(150, 148, 155, 5, 0.94)}
    t = b.relative_table(piv, ["codec"], "fastest", intervals=tie).frame
    assert list(t["10 rec"]) == ["100 % tie", "104 % tie", "150 %"]
    # Intervals apart, but the ratio (×1.04) is inside this run's noise floor (×1.131): still a tie.
    apart = {**tie, ("bson", 10): stats.Interval(104, 103.5, 105, 5, 0.94)}
    assert list(b.relative_table(piv, ["codec"], "fastest", intervals=apart).frame["10 rec"])[:2] == \
        ["100 % tie", "104 % tie"]
    # A clear winner: apart and beyond the floor.
    far = {**tie, ("bson", 10): stats.Interval(130, 128, 133, 5, 0.94)}
    piv.loc["bson", 10] = 130.0
    assert list(b.relative_table(piv, ["codec"], "fastest", intervals=far).frame["10 rec"]) == \
        ["100 % best", "130 %", "150 %"]


def test_a_run_from_before_trials_still_reports(tmp_path):
    shutil.copytree(OLD, tmp_path / "old")
    rep = report.write_report(tmp_path / "old", tmp_path / "out")
    md = rep.md.read_text(encoding="utf-8")
    assert "| trial order seed | not recorded (a run from before trials) |" in md
    assert "Not recorded: this run's results hold no workers' codec declarations" in md
    assert "fewer than 9 trials (as few as 1" in "\n".join(rep.warnings)
    assert "download" in md


def test_exports_for_a_pr_or_a_wiki(results_dir):
    base = ["report", run_id(), "--results-dir", str(results_dir)]
    md = run_cli(*base, "--format", "md", env=NO_CONTROL)
    assert md.returncode == 0, md.stderr
    text = md.stdout
    assert text.startswith(f"## codecbench run {run_id()}") and "- beers × 10, rust: " in text
    assert "**dummy × 100 records** (each language's own round trip, per record)" in text
    assert "### Every producer → consumer row" in text
    # Every markdown table row has as many cells as its header.
    tables, current = [], []
    for line in text.splitlines() + [""]:
        if line.startswith("|"):
            current.append(line)
        elif current:
            tables.append(current)
            current = []
    assert len(tables) == 5, len(tables)  # 4 leaderboards (2 datasets × 2 counts) + every row
    for t in tables:
        assert len({row.count(" | ") for row in t[2:]} | {t[0].count(" | ")}) == 1, t[:3]
    csv = run_cli(*base, "--format", "csv", env=NO_CONTROL)
    assert csv.returncode == 0, csv.stderr
    import io
    frame = pd.read_csv(io.StringIO(csv.stdout))
    from codecbench.leaderboard import RECORD_FIELDS
    assert list(frame.columns) == RECORD_FIELDS and len(frame) > 0
    assert set(frame["language"]) == {"rust", "java", "browser"}
    assert frame.loc[frame["column"] == "encode", "unit"].eq("ns/record").all()
    js = run_cli(*base, "--format", "json", env=NO_CONTROL)
    assert js.returncode == 0, js.stderr
    doc = json.loads(js.stdout)
    assert doc["run"] == run_id() and doc["verdict"] and set(doc["noiseFloors"]) <= {"rust", "java", "browser"}
    assert all(isinstance(r["record_count"], int) for r in doc["rows"])
    assert all(r["value"] is None or isinstance(r["value"], (int, float)) for r in doc["leaderboards"])
    assert not (results_dir / run_id() / "report.html").exists(), "an export writes nothing"


def test_report_names_the_host_memory_policies_it_was_given(results_dir):
    # run.json's harness.hostMemory (results.host_memory) becomes one row of the run table; a run
    # recorded without it has no such row. (Two reports, not more: each costs its plots, ~25 s.)
    run_dir = results_dir / run_id()
    doc = json.loads((run_dir / "run.json").read_text())
    doc["harness"]["hostMemory"] = {"transparentHugepages": "madvise", "damon": "pageout of memory idle ≥ 60 s (paddr)"}
    (run_dir / "run.json").write_text(json.dumps(doc))
    report.write_report(run_dir)
    run = (run_dir / "report.md").read_text(encoding="utf-8").split("## Run")[1].split("## ")[0]
    assert ("| host memory | transparent huge pages: madvise; DAMON reclaims: pageout of memory idle ≥ 60 s "
            "(paddr) |") in run
    del doc["harness"]["hostMemory"]
    (run_dir / "run.json").write_text(json.dumps(doc))
    report.write_report(run_dir)
    assert "host memory" not in (run_dir / "report.md").read_text(encoding="utf-8")


def test_a_same_bytes_row_is_no_failure_and_its_cells_row_says_where_it_was_measured(results_dir):
    """A decode cell control did not run (its payload the same bytes its lead decodes) is neither a
    failure nor an unverified result, and its row in the tables names the lead's producer."""
    run_dir = results_dir / run_id()
    df = results.read_measurements(run_dir)
    ok = df[(df["failure"] == "") & df["verified"]]
    lead = ok[(ok["operation"] == "decode") & ~ok["aa_twin"]].iloc[0]
    row = lead.copy()
    row["operation"], row["same_bytes_as"], row["producer"] = results.SAME_BYTES, lead["cell_id"], "elsewhere-1"
    row["cell_id"], row["task_id"], row["round_ns_per_op"], row["rounds"], row["verified"] = \
        "same-bytes-cell", "t-same", [], 0, False
    pd.concat([ok, row.to_frame().T], ignore_index=True) \
        .astype(df.dtypes.to_dict()).to_parquet(run_dir / "measurements.parquet", index=False)
    text = "\n".join(report.trust_warnings(run_dir))
    assert "failed or were not verified" not in text and "not verified against" not in text
    summary = results.summary_frame(results.read_measurements(run_dir))
    mine = summary[summary["cell_id"] == "same-bytes-cell"].iloc[0]
    assert mine["measured_in"] == lead["producer"] and bool(mine["verified"])
