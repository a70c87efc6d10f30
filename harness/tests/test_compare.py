"""`codecbench compare` on copies of the recorded run (tests/data/report-run/), with changes
planted in run B. No control is needed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from codecbench import compare, results

from conftest import DATA, run_cli

FIXTURE = DATA / "report-run"
NO_CONTROL = {"CODECBENCH_CONTROL": "127.0.0.1:9"}
# A cell with rounds from both Rust workers: beers × 100, json typed, rust → rust.
PLANT = dict(dataset="beers", codec="json", decode_mode="typed", operation="decode", record_count=100)


def _select(df, **key):
    mask = True
    for k, v in key.items():
        mask = mask & (df[k] == v)
    return mask


def make_run(base: Path, name: str, change=None) -> Path:
    """A results folder `name` holding the fixture, with `change(df)` applied to its measurements."""
    out = base / name
    shutil.copytree(FIXTURE, out)
    if change is not None:
        df = results.read_measurements(out)
        change(df)
        df.to_parquet(out / "measurements.parquet", index=False)
    return out


def scale(df, factor, **key):
    mask = _select(df, **key) if key else df["rounds"] > 0
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
    assert doc["counts"]["no significant change"] > 50
    assert doc["rule"].startswith("slower: B/A ≥ threshold")


def test_a_planted_2x_slowdown_is_detected_and_fails_the_gate(tmp_path):
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", lambda df: scale(df, 2.0, **PLANT))
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 1, res.stdout + res.stderr
    r = row(doc, **PLANT, producer_language="rust", consumer_language="rust")
    assert r["verdict"] == "slower"
    assert r["ratio"] == pytest.approx(2.0)
    assert r["a_workers"] == "rust-1, rust-2", "the two Rust workers' rounds are pooled"
    assert doc["counts"]["slower"] == 1 and doc["regressions"] == 1
    # The table names it too.
    text = run_cli("compare", "a", "b", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert text.returncode == 1
    assert "slower" in text.stdout and "×2.00" in text.stdout and "1 slower" in text.stdout


def test_a_change_inside_the_spread_is_not_significant(tmp_path):
    # Every measurement 5 % slower: under the 1.10 threshold.
    make_run(tmp_path, "a")
    make_run(tmp_path, "b", lambda df: scale(df, 1.05))
    res, doc = cmp(tmp_path, "a", "b")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "slower" not in doc["counts"]

    # 30 % slower, beyond the threshold, but the rounds spread so wide that the interquartile
    # ranges overlap: no significant change.
    def wide(df):
        mask = _select(df, **PLANT)
        df.loc[mask, "round_ns_per_op"] = df.loc[mask, "round_ns_per_op"].map(
            lambda r: [100_000.0, 200_000.0, 300_000.0, 400_000.0, 500_000.0])

    def wide_slower(df):
        wide(df)
        scale(df, 1.3, **PLANT)

    make_run(tmp_path, "wa", wide)
    make_run(tmp_path, "wb", wide_slower)
    res, doc = cmp(tmp_path, "wa", "wb")
    assert res.returncode == 0, res.stdout + res.stderr
    r = row(doc, **PLANT, producer_language="rust", consumer_language="rust")
    assert r["ratio"] == pytest.approx(1.3)
    assert r["verdict"] == "no significant change"


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
    assert res.returncode == 2 and "--threshold" in res.stderr

    def other(df):
        df["dataset"] = "owners"
    make_run(tmp_path, "other", other)
    res = run_cli("compare", "a", "other", "--results-dir", str(tmp_path), env=NO_CONTROL)
    assert res.returncode == 2 and "no measurement in common" in res.stderr


def test_verdict_rule():
    a = compare.Side(median=100, q1=95, q3=105, rounds=5, ok=True)
    assert compare.verdict(a, compare.Side(median=200, q1=190, q3=210, rounds=5, ok=True), 1.1)[0] == "slower"
    # Beyond the threshold but overlapping quartiles.
    assert compare.verdict(a, compare.Side(median=112, q1=104, q3=120, rounds=5, ok=True), 1.1)[0] == \
        "no significant change"
    assert compare.verdict(a, compare.Side(median=50, q1=45, q3=55, rounds=5, ok=True), 1.1)[0] == "faster"
    assert compare.verdict(a, None, 1.1)[0] == "only in A"
    assert compare.verdict(None, a, 1.1)[0] == "only in B"
