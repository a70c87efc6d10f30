"""A report that fits its question (issue 31, item 3): "relative to best" never pools languages,
modes or operations; one unit (per record) in the time tables; a small run's report is short (the
answer first, sections with nothing to say left out, the facts behind it folded). From
tests/data/trials-a (make_trials_fixture.py); the small run is its dummy × 100, json/bson/protobuf,
typed decode, without the failing fake worker. No control is needed."""

from __future__ import annotations

import shutil

import pandas as pd
import pytest

from codecbench import report, results
from codecbench.report.blocks import Details, Heading, Image, TableBlock

from conftest import DATA

FIXTURE = DATA / "trials-a"
# The row names that say what was measured besides the codec (a language, a mode, an operation).
SAME = {"language", "producer", "mode", "operation", "producer → consumer"}


def _walk(blocks):
    for b in blocks:
        if isinstance(b, Details):
            yield from _walk(b.blocks)
        else:
            yield b


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    b = report._Builder(FIXTURE, tmp_path_factory.mktemp("full"))
    b.build()
    return b


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """One dataset, three codecs, one count, typed decode, no failures."""
    base = tmp_path_factory.mktemp("small")
    run_dir = base / "run"
    shutil.copytree(FIXTURE, run_dir)
    df = pd.read_parquet(run_dir / "measurements.parquet")
    keep = ((df["dataset"] == "dummy") & (df["record_count"] == 100) & (df["decode_mode"].isin(["", "typed"]))
            & ~df["producer"].str.startswith("fake") & ~df["consumer"].str.startswith("fake"))
    df[keep].to_parquet(run_dir / "measurements.parquet", index=False)
    (run_dir / "measurements.csv").unlink(missing_ok=True)
    rep = report.write_report(run_dir, base / "out")
    rep.run_dir = run_dir
    return rep


def _relative(blocks) -> list[tuple[TableBlock, list[str]]]:
    """Every "relative to best" table with its relative columns: a table of its own (several record
    counts), or the "relative to best" column of a one-count table."""
    out = []
    for t in _walk(blocks):
        if isinstance(t, TableBlock) and t.caption.startswith("Relative to best"):
            out.append((t, list(t.frame.columns[t.left:])))
        elif isinstance(t, TableBlock) and "relative to best" in t.frame.columns:
            out.append((t, ["relative to best"]))
    return out


@pytest.mark.parametrize("which", ["full", "small"])
def test_no_relative_to_best_table_pools_languages_modes_or_operations(which, full, small, tmp_path):
    if which == "small":
        b = report._Builder(small.run_dir, tmp_path)
        b.build()
        blocks, fewest = b.blocks, 4  # size, encode, decode, memory: one count, merged into their tables
    else:
        blocks, fewest = full.blocks, 8  # size, encode, decode, end to end, memory of two datasets
    tables = _relative(blocks)
    assert len(tables) >= fewest, len(tables)
    for t, columns in tables:
        names = list(t.frame.columns[:t.left])
        assert names[0] == "codec" and set(names[1:]) <= SAME and names[1:], names
        for col in columns:
            for key, rows in t.frame.groupby(names[1:]):
                values = [v for v in rows[col] if v != "—"]
                # Each language (and mode, operation) has its own best: one 100 % per group.
                assert not values or any(v.startswith("100 %") for v in values), (t.caption, key, col, values)
            # …so a column holds as many bests as it has groups with a value, never one for all.
            best = sum(v.startswith("100 %") for v in t.frame[col])
            groups = t.frame[t.frame[col] != "—"].groupby(names[1:]).ngroups
            assert best >= groups, (t.caption, col)


def test_time_tables_are_per_record(full):
    e2e = [t for t in _walk(full.blocks) if isinstance(t, TableBlock) and "End to end = " in t.caption]
    assert e2e and all("Unit: time per record" in t.caption for t in e2e)
    # The table's figure is the payload's sum over its record count.
    s = full.summary
    row = s[(s["dataset"] == "dummy") & (s["codec"] == "json") & (s["record_count"] == 100)
            & s["end_to_end_ns_per_op"].notna() & (s["producer_language"] == "rust") & (s["consumer_language"] == "rust")
            & (s["mode"] == "typed") & ~s["aa_twin"].astype(bool)]
    per_record = row["end_to_end_ns_per_op"].median() / 100
    from codecbench.units import fmt_time
    table = next(t for t in e2e if "dummy" in " ".join(h.text for h in full.blocks
                                                          if isinstance(h, Heading) and h.anchor == "dummy-e2e"))
    cell = table.frame[(table.frame["codec"] == "json") & (table.frame["mode"] == "typed")
                       & (table.frame["producer → consumer"] == "rust → rust")]["100 rec"].iloc[0]
    assert cell.startswith(fmt_time(per_record)), (cell, fmt_time(per_record))


def test_a_small_run_has_a_short_report(small):
    md = small.md.read_text(encoding="utf-8")
    # Nothing to say, nothing said: no failures section, no relative table of one codec.
    assert "failures" not in small.sections
    # The answer first: verdict, trust line, leaderboard and a picture before the contents.
    head = md.split("Contents: ")[0]
    assert "## Verdict" in head and "> Trust: " in head and "| language | codec |" in head
    assert "![dummy decode time per record](plots/dummy-decode.png)" in head
    assert md.count("](plots/dummy-decode.png)") == 1, "drawn once"
    # The facts behind it are folded.
    for title in ("## Run", "## Environment of every worker", "## How to read this report"):
        after = md.split(title)[1].lstrip()
        assert after.startswith("<details><summary>"), title
    # Sizes are drawn once per payload: the compressed-size plot carries raw bytes when producers agree.
    names = {p.name for p in small.plots}
    assert names >= {"dummy-encode.png", "dummy-decode.png"}
    assert len(names) <= 6, names
    html = small.html.read_text(encoding="utf-8")
    assert html.index('class="trust"') < html.index("<nav>") < html.index('id="warnings"')
    # The picture right after the trust line, beside the leaderboards on a wide screen.
    assert html.index('class="trust"') < html.index('<figure class="side">') < html.index("<table")


def test_plots_show_the_trials(full):
    images = [b for b in _walk(full.blocks) if isinstance(b, Image) and b.path.stem.endswith(("-encode", "-decode"))]
    assert images and all("trial" in i.caption.lower() for i in images)
    # The figures the plots draw: every trial of each cell, not only its median.
    cells = results.cells_frame(results.read_measurements(FIXTURE))
    c = cells[(cells["operation"] == "encode") & (cells["trials"] > 0)].iloc[0]
    from codecbench.report.common import pooled
    assert len(pooled(cells.loc[[c.name]])["trials"]) == c["trials"]


def test_the_matrix_draws_byte_identical_payloads_as_one_group(full):
    from codecbench.report.pairs import same_work

    s = full.summary
    dec = same_work(s[(s["consumer"] != "") & ~s["aa_twin"].astype(bool) & (s["record_count"] == 100)])
    shared = dec[dec["group_n"] > 1]
    assert not shared.empty, "the fixture's json/bson/protobuf payloads are byte-identical across producers"
    for _, g in shared.groupby(["consumer", "codec", "mode", "payload_blob_id"]):
        assert g["group_ns"].nunique() == 1 and g["group_ns"].iloc[0] == g["decode_ns_per_record"].median()
        assert g["producer"].nunique() == len(g) > 1
