"""`codecbench compare` on two runs of one scenario back to back (tests/data/trials-a and trials-b,
tests/make_trials_fixture.py: cells of 5 trials each), with changes planted in run B. No control
is needed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codecbench import compare, results

from conftest import DATA, run_cli

FIXTURE = DATA / "trials-a"
FIXTURE_B = DATA / "trials-b"
NO_CONTROL = {"CODECBENCH_CONTROL": "127.0.0.1:9"}
# One matched entry: beers × 100, json typed, decoded by rust from rust's payload.
PLANT = dict(dataset="beers", codec="json", decode_mode="typed", operation="decode", record_count=100)
PLANT_WHO = dict(producer_language="rust", consumer_language="rust")


def _select(df, **key):
    mask = True
    for k, v in key.items():
        mask = mask & (df[k] == v)
    return mask


def make_run(base: Path, name: str, change=None, source: Path = FIXTURE) -> Path:
    """A results folder `name` holding a fixture run, with `change(df)` applied to its measurements."""
    out = base / name
    shutil.copytree(source, out)
    if change is not None:
        df = results.read_measurements(out)
        change(df)
        df.to_parquet(out / "measurements.parquet", index=False)
    return out


def scale(df, factor, **key):
    """Every round of the matching measurements × factor (producer/consumer: worker ids)."""
    who = {k: key.pop(k) for k in ("producer", "consumer") if k in key}
    mask = _select(df, **key, **who) if key or who else df["rounds"] > 0
    df.loc[mask, "round_ns_per_op"] = df.loc[mask, "round_ns_per_op"].map(lambda r: [x * factor for x in r])


def cmp(base: Path, a: str, b: str, *extra: str):
    res = run_cli("compare", a, b, "--results-dir", str(base), "--json", *extra, env=NO_CONTROL)
    doc = json.loads(res.stdout) if res.stdout.strip() else {}
    return res, doc


def row(doc, **key):
    rows = [r for r in doc["rows"] if all(r[k] == v for k, v in key.items())]
    assert len(rows) == 1, rows
    return rows[0]


def test_identical_runs_have_no_change(tmp_path):
    make_run(tmp_path, "a")
    make_run(tmp_path, "b")
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 0, res.stderr
    assert doc["regressions"] == 0
    assert set(doc["counts"]) <= {"no significant change", "fails in both"}
    assert doc["rule"].startswith("slower: B/A > threshold and > both runs' noise floors")


def test_two_runs_of_one_scenario_back_to_back_are_no_significant_change(tmp_path):
    # The A/A test of issue 9: the same scenario twice, independent noise in every trial.
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", source=FIXTURE_B)
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 0, res.stdout + res.stderr
    assert set(doc["counts"]) == {"no significant change", "fails in both"}, doc["counts"]
    assert doc["counts"]["no significant change"] > 400
    ratios = [r["ratio"] for r in doc["rows"] if r["ratio"] is not None]
    assert max(ratios) > 1.05, "the runs really differ by noise, and compare does not cry wolf"
    for key in ("noiseFloorA", "noiseFloorB"):
        nf = doc[key]
        assert nf["groups"] > 50 and 1.0 < nf["worstRatio"] < 1.25
        assert nf["text"].startswith("noise floor: identical work differed by ≤ ")
    text = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert text.returncode == 0
    assert "no significant change" in text.stdout and "slower" not in text.stdout.split("rule:")[0]
    assert "A (a) noise floor: identical work differed by ≤" in text.stdout
    assert "B (b) noise floor" in text.stdout
    # Each run's trust line travels with the comparison, as with every verdict.
    assert "A (a) Trust: " in text.stdout and "B (b) Trust: " in text.stdout
    assert doc["trustA"]["sentence"].startswith("Trust: ") and doc["trustB"]["cells"] > 0
    # The A/A figures a user reads off two runs: agreement within the intervals.
    agree = doc["agreement"]
    assert agree["pairs"] == doc["counts"]["no significant change"]
    # (The fixture's synthetic noise is not calibrated to issue 9's targets; real runs' figures
    # are in the note. Here: most agree, and the median difference is small.)
    assert 0.5 < agree["insideEachOthersIntervals"] <= 1.0
    assert 0 < agree["medianAbsDifference"] < 0.05
    assert "agreement: " in text.stdout and "medians lie inside each other's 95 % rerun intervals" in text.stdout
    # What identical conditions would give with 5 trials a side: about (5/6)², stated beside it.
    assert agree["expectedInside"] == pytest.approx((5 / 6) ** 2, abs=0.02)
    assert agree["insideEachOthersIntervals"] <= agree["insideOneWay"] <= 1.0
    assert f"identical conditions would give about {agree['expectedInside']:.0%}" in " ".join(text.stdout.split())


def test_transfer_legs_are_judged_by_their_own_noise_floor(tmp_path):
    # rust-1 downloading rust-1's beers json payload 30 % slower in B, while downloading the same
    # blob for java's and browser's cells was not: B's download A/A group says identical downloads
    # differed by 30 %, so that is no verdict, though the decode noise floor is lower.
    plant = dict(dataset="beers", codec="json", operation="download", record_count=100)
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", lambda df: scale(df, 1.3, **plant, producer="rust-1", consumer="rust-1"),
             source=FIXTURE_B)
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 0, res.stdout + res.stderr
    assert doc["noiseFloorB"]["worstRatio"] < 1.25
    assert doc["transferNoiseFloorB"]["worstRatio"] > 1.25 and doc["transferNoiseFloorA"]["groups"] > 10
    assert doc["transferNoiseFloorA"]["text"].startswith("transfer noise floor: identical downloads differed by ≤ ")
    rows = [r for r in doc["rows"] if all(r[k] == v for k, v in {**plant, **PLANT_WHO}.items())]
    assert rows and all(r["verdict"] == "no significant change" and r["ratio"] > 1.2 for r in rows), rows
    # The decode legs still answer to the decode floor: the same 30 % on a whole decode A/A group
    # is flagged (test_a_planted_30_percent_slowdown_is_flagged_and_fails_the_gate).
    text = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert "B (b) transfer noise floor: identical downloads differed by ≤" in text.stdout


def test_agreement_of_identical_runs_and_of_a_shifted_run(tmp_path):
    make_run(tmp_path, "a")
    make_run(tmp_path, "b")
    make_run(tmp_path, "c", lambda df: scale(df, 2.0))
    _, same = cmp(tmp_path, "a", "b")
    assert same["agreement"]["insideEachOthersIntervals"] == 1.0
    assert same["agreement"]["medianAbsDifference"] == 0.0
    _, shifted = cmp(tmp_path, "a", "c")
    assert shifted["agreement"]["insideEachOthersIntervals"] == 0.0
    assert abs(shifted["agreement"]["medianAbsDifference"] - 1.0) < 1e-9
    # Whole columns: every language's every operation moved ×2 in c, none in b.
    assert {(m["language"], m["operation"]) for m in shifted["shifts"]} >= {
        (lang, op) for lang in ("rust", "java", "browser") for op in ("encode", "decode")}
    for m in shifted["shifts"]:
        assert m["medianRatio"] == pytest.approx(2.0) and m["slower"] == m["cells"] > 0, m
    assert all(m["medianRatio"] == 1.0 and m["slower"] == 0 for m in same["shifts"])
    text = run_cli("compare", "a", "c", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert "whole columns, median B/A: browser decode ×2.000 (" in " ".join(text.stdout.split())


def test_a_planted_30_percent_slowdown_is_flagged_and_fails_the_gate(tmp_path):
    # Rust's json typed decode of beers × 100 made 30 % slower: a regression in the decoder slows
    # every payload it decodes (rust's, java's and browser's byte-identical ones alike).
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", lambda df: scale(df, 1.3, **PLANT, consumer="rust-1"), source=FIXTURE_B)
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 1, res.stdout + res.stderr
    for producer in ("rust", "java", "browser"):
        r = row(doc, **PLANT, producer_language=producer, consumer_language="rust")
        assert r["verdict"] == "slower", r
        assert r["ratio"] == pytest.approx(1.3, rel=0.05)
        assert r["a_trials"] == r["b_trials"] == 5
        assert r["b_lo_ns_per_op"] > r["a_hi_ns_per_op"], "the intervals do not overlap"
    assert doc["counts"]["slower"] == 3 and doc["regressions"] == 3
    assert set(doc["counts"]) == {"slower", "no significant change", "fails in both"}, "nothing else flagged"
    text = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert text.returncode == 1
    assert "3 slower" in text.stdout and "n5" in text.stdout


def test_a_slowdown_of_one_payload_alone_is_within_the_noise_floor(tmp_path):
    # One cell of an A/A group 30 % slower while its byte-identical siblings are not: B's own
    # noise floor says identical work differed by 30 %, so the change is not trusted as a verdict.
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", lambda df: scale(df, 1.3, **PLANT, producer="rust-1", consumer="rust-1"),
             source=FIXTURE_B)
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 0, res.stdout + res.stderr
    assert doc["noiseFloorB"]["worstRatio"] > 1.25
    assert row(doc, **PLANT, **PLANT_WHO)["verdict"] == "no significant change"


def test_a_change_inside_the_intervals_or_the_noise_floor_is_not_significant(tmp_path):
    # Every measurement 5 % slower: under the 1.10 threshold.
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", lambda df: scale(df, 1.05))
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "slower" not in doc["counts"]

    # 30 % slower, beyond the threshold, but the trials spread so wide that the intervals overlap.
    def wide(df):
        mask = _select(df, **PLANT, producer="rust-1", consumer="rust-1")
        idx = df.index[mask]
        assert len(idx) == 5, "one measurement per trial"
        df["round_ns_per_op"] = df["round_ns_per_op"].astype(object)
        for i, v in zip(idx, (100_000.0, 200_000.0, 300_000.0, 400_000.0, 500_000.0)):
            df.at[i, "round_ns_per_op"] = [v] * 10

    def wide_slower(df):
        wide(df)
        scale(df, 1.3, **PLANT, producer="rust-1", consumer="rust-1")

    make_run(tmp_path, "wa", wide)
    make_run(tmp_path, "wb", wide_slower)
    res, doc = cmp(tmp_path, "wa", "wb")
    assert res.returncode == 0, res.stdout + res.stderr
    r = row(doc, **PLANT, **PLANT_WHO)
    assert r["ratio"] == pytest.approx(1.3)
    assert r["verdict"] == "no significant change"


def _column(doc, lang, op):
    return next(m for m in doc["shifts"] if (m["language"], m["operation"]) == (lang, op))


def _column_and_cell(tmp_path, column: float, cell: float):
    """Runs a and b of one fixture, b with every Rust decode × `column` and PLANT's decoder (all
    producers) × `cell` in all; compare's result."""
    def change(df):
        scale(df, column, operation="decode", language="rust")
        scale(df, cell / column, **PLANT, consumer="rust-1")
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", change)
    return cmp(tmp_path, "a", "b")


def test_a_drifting_machine_moves_a_column_and_cries_no_wolf(tmp_path):
    # The machine 8 % slower for every decode Rust timed in B (drift shared by a whole column,
    # docs/DESIGN.md rule 3), and one decoder 12 % slower in all: beyond the 1.10 threshold by
    # itself, but only 3.7 % beyond its column. Judged against the column, that is a tie.
    res, doc = _column_and_cell(tmp_path, 1.08, 1.12)
    assert res.returncode == 0, res.stdout + res.stderr
    col = _column(doc, "rust", "decode")
    assert col["medianRatio"] == pytest.approx(1.08) and col["cellsJudgedAgainstIt"]
    assert col["verdict"] == "no significant change", "8 % is under the threshold"
    r = row(doc, **PLANT, **PLANT_WHO)
    assert r["ratio"] == pytest.approx(1.12) and r["adjusted_ratio"] == pytest.approx(1.12 / 1.08)
    assert r["column_shift"] == pytest.approx(1.08) and r["verdict"] == "no significant change"
    assert set(doc["counts"]) <= {"no significant change", "fails in both"}, doc["counts"]
    # Inside each other's intervals once the column's shift is taken out, not before.
    assert doc["agreement"]["insideAfterColumnShift"] > doc["agreement"]["insideEachOthersIntervals"]
    # Per language: only Rust's column moved, so only Rust's medians left the other run's intervals.
    by = doc["agreement"]["byLanguage"]
    assert set(by) >= {"rust", "java", "browser"}, by
    assert by["java"]["insideEachOthersIntervals"] == by["browser"]["insideEachOthersIntervals"] == 1.0
    # (Rust's transfer legs did not move: its decode column is 73 of its 168 measurements.)
    assert by["rust"]["insideEachOthersIntervals"] < 0.75 < 0.95 < by["rust"]["insideAfterColumnShift"], by["rust"]
    text = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert "by language, inside each other's intervals (after each column's shift; host intervals)" in " ".join(text.stdout.split())


def test_a_decoder_slower_while_the_machine_got_faster_is_flagged(tmp_path):
    # Every Rust decode 8 % faster in B (a quieter machine), except one decoder, 5 % slower: raw
    # B/A ×1.05 is under the threshold, but against its column it is 1.05 / 0.92 = ×1.14: slower.
    res, doc = _column_and_cell(tmp_path, 0.92, 1.05)
    assert res.returncode == 1, res.stdout + res.stderr
    for producer in ("rust", "java", "browser"):
        r = row(doc, **PLANT, producer_language=producer, consumer_language="rust")
        assert r["ratio"] == pytest.approx(1.05) and r["verdict"] == "slower", r
    assert doc["counts"]["slower"] == 3 and _column(doc, "rust", "decode")["verdict"] == "no significant change"
    text = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert "÷ column ×0.920 = ×1.14" in " ".join(text.stdout.split())


def test_a_whole_column_slower_is_one_regression(tmp_path):
    # Every decode Rust timed 30 % slower (a runtime or shared-code regression): one column verdict,
    # not 73 cell verdicts, and the gate fails.
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", lambda df: scale(df, 1.3, operation="decode", language="rust"), source=FIXTURE_B)
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 1, res.stdout + res.stderr
    col = _column(doc, "rust", "decode")
    assert col["verdict"] == "slower" and col["medianRatio"] == pytest.approx(1.3, rel=0.03)
    assert doc["regressions"] == 1 and "slower" not in doc["counts"], doc["counts"]
    assert all(m["verdict"] == "no significant change" for m in doc["shifts"] if m is not col)
    text = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert text.returncode == 1 and "column rust decode: slower (×1.2" in " ".join(text.stdout.split())


def test_column_shift_needs_enough_cells_and_one_direction():
    assert compare.sign_test(6, 6) == pytest.approx(2 / 64)
    assert compare.sign_test(0, 6) == pytest.approx(2 / 64)
    assert compare.sign_test(3, 6) == 1.0 and compare.sign_test(0, 0) == 1.0
    side = lambda m: compare.Side(median=m, lo=m * 0.98, hi=m * 1.02, trials=9, coverage=0.96, ok=True)
    key = lambda i: ("dummy", "json", "typed", "decode", i, "rust", "rust")
    # Five cells all ×1.5: too few to estimate a shift from; the cells are judged one by one.
    few = compare.column_shifts({key(i): side(100) for i in range(5)}, {key(i): side(150) for i in range(5)},
                                1.1, {key(i): 1.0 for i in range(5)})
    assert not few[("rust", "decode")].adjusts and few[("rust", "decode")].verdict == "no significant change"
    # Six cells all ×1.5, inside intervals as wide as the transfer legs' (1 ms or 6 ms): a shift,
    # but no cell slower by itself, so no column verdict.
    wide = lambda m: compare.Side(median=m, lo=m / 8, hi=m * 8, trials=5, coverage=0.94, ok=True)
    loose = compare.column_shifts({key(i): wide(100) for i in range(6)}, {key(i): wide(150) for i in range(6)},
                                  1.1, {key(i): 1.0 for i in range(6)})
    assert loose[("rust", "decode")].median_ratio == pytest.approx(1.5)
    assert loose[("rust", "decode")].verdict == "no significant change"
    tight = compare.column_shifts({key(i): side(100) for i in range(6)}, {key(i): side(150) for i in range(6)},
                                  1.1, {key(i): 1.0 for i in range(6)})
    assert tight[("rust", "decode")].verdict == "slower"
    # Six cells, median ×1.5 but split three up, three down: no consistent shift.
    b = {key(i): side(150 if i < 3 else 90) for i in range(6)}
    mixed = compare.column_shifts({key(i): side(100) for i in range(6)}, b, 1.1, {key(i): 1.0 for i in range(6)})
    assert mixed[("rust", "decode")].adjusts and mixed[("rust", "decode")].verdict == "no significant change"


def test_verdict_needs_the_ratio_beyond_the_noise_floor():
    a = compare.Side(median=100, lo=98, hi=102, trials=5, coverage=0.94, ok=True)
    b = compare.Side(median=120, lo=118, hi=123, trials=5, coverage=0.94, ok=True)
    assert compare.verdict(a, b, 1.1, noise_floor=1.05)[0] == "slower"
    # A noisy run: identical work differed by 25 %, so a 20 % difference is a tie.
    assert compare.verdict(a, b, 1.1, noise_floor=1.25)[0] == "no significant change"


def test_faster_threshold_and_new_failures(tmp_path):
    make_run(tmp_path, "a")
    make_run(tmp_path, "fast", lambda df: scale(df, 0.5, **PLANT))
    res, doc = cmp(tmp_path, "a", "fast")
    assert res.returncode == 0
    assert row(doc, **PLANT, producer_language="rust", consumer_language="rust")["verdict"] == "faster"

    # A 2x slowdown with a threshold above 2 is no change.
    make_run(tmp_path, "slow", lambda df: scale(df, 2.0, **PLANT))
    res, doc = cmp(tmp_path, "a", "slow", "--threshold", "2.5")
    assert res.returncode == 0 and doc["threshold"] == 2.5

    # A measurement that worked in A and fails in B fails the gate.
    def broken(df):
        mask = _select(df, **PLANT)
        df.loc[mask, "failure"] = "decode failed: planted"
        df.loc[mask, "verified"] = False
    make_run(tmp_path, "broken", broken)
    res, doc = cmp(tmp_path, "a", "broken")
    assert res.returncode == 1
    r = row(doc, **PLANT, producer_language="rust", consumer_language="rust")
    assert r["verdict"] == "now fails" and "planted" in r["b_failure"]


def test_bad_threshold_and_nothing_in_common(tmp_path):
    make_run(tmp_path, "a")
    res = run_cli("compare", "a", "a", "--results-dir", str(tmp_path), "--threshold", "0.9", env=NO_CONTROL)
    assert res.returncode == 64 and "--threshold" in res.stderr

    def other(df):
        df["dataset"] = "owners"
    make_run(tmp_path, "other", other)
    res = run_cli("compare", "a", "other", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 3 and "no measurement in common" in res.stderr


def test_verdict_rule():
    a = compare.Side(median=100, lo=95, hi=105, trials=5, coverage=0.94, ok=True)
    assert compare.verdict(a, compare.Side(median=200, lo=190, hi=210, trials=5, ok=True), 1.1)[0] == "slower"
    # Beyond the threshold but overlapping intervals.
    assert compare.verdict(a, compare.Side(median=112, lo=104, hi=120, trials=5, ok=True), 1.1)[0] == \
        "no significant change"
    assert compare.verdict(a, compare.Side(median=50, lo=45, hi=55, trials=5, ok=True), 1.1)[0] == "faster"
    assert compare.verdict(a, None, 1.1)[0] == "only in A"
    assert compare.verdict(None, a, 1.1)[0] == "only in B"


def test_runs_recorded_before_trials_still_compare(tmp_path):
    # tests/data/report-run/ is a real run of the old protocol (one measurement per cell,
    # OPERATION_TRANSFER): each measurement is its cell's one trial, transfer is the download leg.
    shutil.copytree(DATA / "report-run", tmp_path / "old")
    res, doc = cmp(tmp_path, "old", "old")
    assert res.returncode == 0, res.stderr
    ops = {r["operation"] for r in doc["rows"]}
    assert "download" in ops and "transfer" not in ops
    # Two Rust workers: up to 2 × 2 producer → consumer cells of one trial each are pooled.
    assert max(r["a_trials"] for r in doc["rows"]) == 4


@pytest.mark.skipif(not (DATA / "recorded-a").exists() or not (DATA / "recorded-b").exists(),
                    reason="no real A/A pair recorded yet (tests/make_report_fixture.py records one)")
def test_recorded_runs_back_to_back_are_no_significant_change(tmp_path):
    make_run(tmp_path, "a", source=DATA / "recorded-a")
    make_run(tmp_path, "b", source=DATA / "recorded-b")
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 0, res.stdout + res.stderr
    assert set(doc["counts"]) <= {"no significant change", "fails in both"}, doc["counts"]


def test_runs_measured_under_different_conditions_are_refused_with_exit_3(tmp_path):
    make_run(tmp_path, "a")
    b = make_run(tmp_path, "b")
    doc = json.loads((b / "run.json").read_text())
    doc["run"]["scenario"]["sampling"]["rounds"] = 99
    rust = next(w for w in doc["workers"].values() if w["language"] == "rust")
    rust["buildProfile"] = "debug"
    (b / "run.json").write_text(json.dumps(doc))
    res = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 3, res.stdout + res.stderr
    said = " ".join(res.stderr.split())
    assert "measured under different conditions (2)" in said and "sampling.rounds:" in said, said
    assert "rust build profile: release in A, debug in B" in said and "--allow-mismatch" in said
    assert "matching measurement" not in res.stdout, "no verdicts from mismatched runs"
    # Told to, it compares, and says so first; the JSON carries the mismatches.
    res, out = cmp(tmp_path, "a", "b", "--allow-mismatch")
    assert res.returncode == 0, res.stdout + res.stderr
    assert len(out["conditionMismatches"]) == 2 and "measured under different conditions" in res.stderr
    # The trial order seed differs between any two runs and is not a mismatch.
    doc["run"]["scenario"]["sampling"]["rounds"] = json.loads((tmp_path / "a" / "run.json").read_text())["run"]["scenario"]["sampling"].get("rounds")
    rust["buildProfile"] = "release"
    doc["run"]["scenario"]["sampling"]["orderSeed"] = "12345"
    (b / "run.json").write_text(json.dumps(doc))
    res, out = cmp(tmp_path, "a", "b")
    assert res.returncode == 0 and out["conditionMismatches"] == [], res.stderr


def test_usage_errors_exit_64_and_validate_takes_many_files(tmp_path):
    res = run_cli("compare", "a", env=NO_CONTROL)
    assert res.returncode == 64 and "usage:" in res.stderr
    res = run_cli("--version")
    assert res.returncode == 0 and res.stdout.startswith("codecbench 0.")
    good = tmp_path / "good.yaml"
    good.write_text("datasets: [dummy]\ncodecs: [json]\ncounts: [1]\n")
    bad = tmp_path / "bad.yaml"
    bad.write_text("datasets: [dummy]\ncodecs: [json]\ncounts: [1]\nsampling: {rounds: -1}\n")
    res = run_cli("validate", str(good), str(good))
    assert res.returncode == 0 and res.stderr.count(": ok —") == 2, res.stderr
    res = run_cli("validate", str(good), str(bad))
    assert res.returncode == 2, res.stderr
    assert "good.yaml: ok" in res.stderr and "bad.yaml" in res.stderr and "1 of 2 scenario files are invalid" in res.stderr
