"""Leaderboards and the verdict (issue 11): % of best within one column, ties by the intervals and
the noise floor, each language's own round trip, no pooling across languages or modes."""
import math

import pandas as pd

from codecbench import leaderboard as L
from codecbench.display import leaderboard_table
from codecbench.units import fmt_time
from codecbench.results import SUMMARY_COLUMNS

N = 100


def row(codec, producer, consumer, mode="typed", enc=None, dec=None, size=1000, e2e=None, aa=False):
    """One summary row; enc/dec are (median, lo, hi) ns per op over 9 trials."""
    r = {c: math.nan for c in SUMMARY_COLUMNS}
    r.update(dataset="dummy", record_count=N, codec=codec, mode=mode, producer=producer, consumer=consumer,
             aa_twin=aa, payload_bytes=size, verified=True, failure="", cell_id="", payload_blob_id="",
             same_bytes_as="")
    for leg, fig in (("encode", enc), ("decode", dec), ("upload", e2e and (1.0, 1.0, 1.0)),
                     ("download", e2e and (1.0, 1.0, 1.0))):
        r[f"{leg}_trials"] = 9 if fig else 0
        if fig:
            med, lo, hi = fig
            r.update({f"{leg}_ns_per_op": med, f"{leg}_lo_ns_per_op": lo, f"{leg}_hi_ns_per_op": hi,
                      f"{leg}_ns_per_record": med / N, f"{leg}_coverage": 0.97})
    if e2e:
        r.update(end_to_end_ns_per_op=e2e, end_to_end_lo_ns_per_op=e2e * 0.99, end_to_end_hi_ns_per_op=e2e * 1.01,
                 end_to_end_ns_per_record=e2e / N)
    return r


LANGS = {"rust-1": "rust", "java-1": "java"}


def frame(*rows):
    return pd.DataFrame(list(rows), columns=SUMMARY_COLUMNS)


def test_percent_of_best_and_a_sole_winner():
    s = frame(row("json", "rust-1", "rust-1", enc=(200, 198, 202), dec=(400, 396, 404), size=1200),
              row("protobuf", "rust-1", "rust-1", enc=(100, 99, 101), dec=(200, 198, 202), size=800))
    [b] = L.boards(s, LANGS, 1.02, ["json", "protobuf"])
    assert (b.dataset, b.record_count, b.language, b.codecs) == ("dummy", N, "rust", ["json", "protobuf"])
    assert list(b.columns) == ["bytes/rec", "encode", "decode typed"]
    assert b.columns["encode"]["json"].pct_of_best == 200 and b.columns["encode"]["json"].value == 2.0
    assert b.columns["bytes/rec"]["json"].pct_of_best == 150
    assert b.winner("encode") == b.winner("decode typed") == b.winner("bytes/rec") == "protobuf"
    assert L.verdict(b) == ("dummy × 100, rust: protobuf is 33 % smaller than json, encodes 2.0× faster "
                            "and decodes (typed) 2.0× faster.")


def test_compressed_sizes_are_columns_of_their_own_and_the_verdict_says_when_gzip_changes_the_answer():
    def sized(codec, size, gzip, zstd, dec):
        return {**row(codec, "rust-1", "rust-1", dec=dec, size=size), "gzip_bytes": gzip, "zstd_bytes": zstd}

    # Raw protobuf is 40 % smaller; after gzip json is the smaller one: the ranking flips.
    s = frame(sized("json", 1000, 200, 180, (400, 396, 404)), sized("protobuf", 600, 260, 230, (200, 198, 202)))
    [b] = L.boards(s, LANGS, 1.02, ["json", "protobuf"])
    assert list(b.columns) == ["bytes/rec", "gzip/rec", "zstd/rec", "decode typed"]
    assert b.columns["gzip/rec"]["json"].value == 2.0 and b.columns["gzip/rec"]["protobuf"].pct_of_best == 130
    assert b.winner("bytes/rec") == "protobuf" and b.winner("gzip/rec") == b.winner("zstd/rec") == "json"
    assert L.verdict(b).startswith("dummy × 100, rust: protobuf is 40 % smaller than json "
                                   "(30 % larger than json after gzip) and decodes")
    assert [r["unit"] for r in L.to_records([b]) if r["column"] == "zstd/rec"] == ["bytes/record"] * 2
    assert "| language | codec | bytes/rec | gzip/rec | zstd/rec | decode typed |" in L.to_markdown([b])
    # A gzip ratio close to the raw one adds nothing to the sentence.
    s = frame(sized("json", 1000, 200, 180, (400, 396, 404)), sized("protobuf", 600, 130, 120, (200, 198, 202)))
    [b] = L.boards(s, LANGS, 1.02, ["json", "protobuf"])
    assert "protobuf is 40 % smaller than json and decodes" in L.verdict(b)
    # Runs recorded before control measured compressed sizes have no such columns.
    s = frame(row("json", "rust-1", "rust-1", dec=(400, 396, 404)), row("bson", "rust-1", "rust-1", dec=(500, 495, 505)))
    [b] = L.boards(s, LANGS, 1.02)
    assert "gzip/rec" not in b.columns and "zstd/rec" not in b.columns


def test_overlapping_intervals_or_a_ratio_inside_the_noise_floor_are_ties():
    s = frame(row("json", "rust-1", "rust-1", enc=(100, 90, 110), dec=(100, 99, 101)),
              row("bson", "rust-1", "rust-1", enc=(105, 95, 115), dec=(105, 104, 106)))
    [b] = L.boards(s, LANGS, 1.10)
    # encode: the intervals overlap; decode: they do not, but 5 % is inside the 10 % noise floor.
    for col in ("encode", "decode typed"):
        assert b.winner(col) is None
        assert b.columns[col]["json"].tie and b.columns[col]["bson"].tie and b.columns[col]["json"].best
    # A tie says "within 5 %": a 10 % noise floor cannot back that claim, so the verdict says it could not tell.
    assert ("bson is the same size as json and is inconclusive against json on encode and decode (typed) "
            "on this machine (noise floor 10.0 %)") in L.verdict(b)
    # A floor that resolves 5 %: the overlapping encode is a tie, the decode difference beyond it stands.
    [b] = L.boards(s, LANGS, 1.04)
    assert "decodes (typed) 1.05× slower and ties json on encode" in L.verdict(b)
    # With no noise floor the decode difference stands.
    [b] = L.boards(s, LANGS, 1.0)
    assert b.winner("decode typed") == "json" and "decodes (typed) 1.05× slower" in L.verdict(b)


def test_languages_and_modes_are_never_pooled():
    s = frame(row("json", "rust-1", "rust-1", enc=(100, 99, 101), dec=(1000, 990, 1010)),
              row("bson", "rust-1", "rust-1", enc=(300, 297, 303), dec=(500, 495, 505)),
              row("bson", "rust-1", "rust-1", mode="lazy", dec=(50, 49, 51)),
              row("json", "java-1", "java-1", enc=(5000, 4950, 5050), dec=(9000, 8900, 9100)),
              row("bson", "java-1", "java-1", enc=(7000, 6900, 7100), dec=(8000, 7900, 8100)))
    boards = {b.language: b for b in L.boards(s, LANGS, 1.0)}
    assert set(boards) == {"java", "rust"}
    assert boards["rust"].columns["encode"]["json"].best and boards["java"].columns["encode"]["json"].best
    assert boards["java"].columns["encode"]["bson"].pct_of_best == 140
    # Lazy is its own column (only bson offers it), not a faster "decode".
    assert boards["rust"].columns["decode lazy"] == {"bson": boards["rust"].columns["decode lazy"]["bson"]}
    assert boards["rust"].columns["decode typed"]["json"].pct_of_best == 200
    assert "java" not in boards["rust"].columns["encode"]


def test_a_language_decodes_its_own_payload_first_and_end_to_end_is_only_its_own():
    s = frame(row("json", "java-1", "rust-1", dec=(900, 890, 910), e2e=5000),
              row("json", "rust-1", "rust-1", enc=(100, 99, 101), dec=(400, 396, 404)),
              row("json", "java-1", "java-1", enc=(300, 297, 303), dec=(600, 594, 606), e2e=2000),
              row("json", "rust-1", "rust-1", dec=(10, 9, 11), aa=True))
    boards = {b.language: b for b in L.boards(s, LANGS, 1.0)}
    assert boards["rust"].columns["decode typed"]["json"].value == 4.0, "rust's own payload, not java's, not the A/A twin"
    assert "end to end" not in boards["rust"].columns, "java → rust is not rust's own round trip"
    assert boards["java"].columns["end to end"]["json"].value == 20.0


def test_a_language_that_only_consumes_is_judged_end_to_end_on_one_producers_payloads():
    # beers-3g's shape: rust encodes, the browser only decodes; the question is end to end.
    langs = {**LANGS, "browser-1": "browser"}
    s = frame(row("json", "rust-1", "browser-1", enc=(100, 99, 101), dec=(900, 890, 910), e2e=50_000),
              row("protobuf", "rust-1", "browser-1", enc=(50, 49, 51), dec=(950, 940, 960), e2e=40_000))
    board = {b.language: b for b in L.boards(s, langs, 1.0)}["browser"]
    assert board.columns["end to end"]["protobuf"].value == 400.0 and board.e2e_from == "rust"
    assert "runs end to end (through control, from rust) 1.25× faster" in L.verdict(board)
    # Two producer languages behind one column would compare unlike things: no column then.
    mixed = frame(row("json", "rust-1", "browser-1", dec=(900, 890, 910), e2e=50_000),
                  row("protobuf", "java-1", "browser-1", dec=(950, 940, 960), e2e=40_000))
    board = {b.language: b for b in L.boards(mixed, langs, 1.0)}["browser"]
    assert "end to end" not in board.columns


def test_a_twin_stands_in_only_when_its_original_measured_nothing():
    # A run cancelled after one trial of a twin and none of its original: the twin's figure is
    # what was measured of that work, so the board shows it rather than nothing.
    s = frame(row("json", "rust-1", "rust-1", dec=(400, 396, 404), aa=True),
              {**row("json", "rust-1", "rust-1"), "verified": False})
    [b] = L.boards(s, LANGS, 1.0)
    assert b.columns["decode typed"]["json"].value == 4.0


def test_about_zero_best_shows_absolute_values():
    s = frame(row("json", "rust-1", "rust-1", enc=(0, 0, 0), dec=(100, 99, 101)),
              row("bson", "rust-1", "rust-1", enc=(50, 49, 51), dec=(100, 99, 101)))
    [b] = L.boards(s, LANGS, 1.0)
    assert all(math.isnan(e.pct_of_best) for e in b.columns["encode"].values())
    assert b.columns["decode typed"]["json"].pct_of_best == 100


def test_the_table_prints_units_and_marks():
    s = frame(row("json", "rust-1", "rust-1", enc=(200_000, 198_000, 202_000), size=1200),
              row("protobuf", "rust-1", "rust-1", enc=(100_000, 99_000, 101_000), size=800))
    from rich.console import Console

    con = Console(width=120, record=True)
    con.print(leaderboard_table(L.boards(s, LANGS, 1.0)))
    text = con.export_text()
    assert "1.00 µs ★" in text and "2.00 µs 200 %" in text and "8 B ★" in text and "12 B 150 %" in text
    assert fmt_time(412) == "412 ns" and fmt_time(1290) == "1.29 µs" and fmt_time(13_250_000) == "13.2 ms"
    assert fmt_time(2.5) == "2.50 ns" and fmt_time(1.5e9) == "1.50 s"


def test_each_language_is_judged_by_its_own_noise_floor():
    s = frame(row("json", "rust-1", "rust-1", dec=(160, 159, 161)),
              row("bson", "rust-1", "rust-1", dec=(100, 99, 101)),
              row("json", "java-1", "java-1", dec=(160, 159, 161)),
              row("bson", "java-1", "java-1", dec=(100, 99, 101)))
    # Java's identical work differed by 2× (an unsteady JIT); Rust's by 2 %.
    boards = {b.language: b for b in L.boards(s, LANGS, {"rust": 1.02, "java": 2.0})}
    assert boards["rust"].winner("decode typed") == "bson" and "decodes (typed) 1.60× faster" in L.verdict(boards["rust"])
    # 1.6× apart but inside Java's noise floor: the run cannot tell, and says so rather than "ties".
    assert boards["java"].winner("decode typed") is None
    assert "is inconclusive against json on decode (typed) on this machine (noise floor 100.0 %)" in L.verdict(boards["java"])
    # A language with no A/A group of its own gets the largest floor of the run.
    boards = {b.language: b for b in L.boards(s, LANGS, {"java": 2.0})}
    assert boards["rust"].winner("decode typed") is None


def test_end_to_end_is_also_held_to_the_transfer_floor():
    s = frame(row("json", "rust-1", "rust-1", enc=(10, 10, 10), dec=(10, 10, 10), e2e=1000),
              row("bson", "rust-1", "rust-1", enc=(10, 10, 10), dec=(10, 10, 10), e2e=1200))
    [b] = L.boards(s, LANGS, {"rust": 1.01})
    assert b.winner("end to end") == "json"
    [b] = L.boards(s, LANGS, {"rust": 1.01}, transfer_floor=1.5)
    assert b.winner("end to end") is None
    assert L.verdict(b).endswith("ties json on encode and decode (typed) and is inconclusive against json on end to end "
                                 "on this machine (noise floor 50.0 %).")


def test_overlapping_intervals_far_apart_are_inconclusive_not_a_tie():
    # 100 vs 130 ns: 30 % apart, but the intervals overlap (a noisy cell).
    s = frame(row("json", "rust-1", "rust-1", enc=(100, 60, 140), dec=(100, 99, 101)),
              row("bson", "rust-1", "rust-1", enc=(130, 90, 170), dec=(102, 101, 103)))
    [b] = L.boards(s, LANGS, 1.01)
    assert b.winner("encode") is None
    assert L.verdict(b).endswith("ties json on decode (typed) and is inconclusive against json on encode "
                                 "(the intervals overlap; more trials would tell).")


def test_a_lone_codec_is_not_ranked():
    [b] = L.boards(frame(row("json", "rust-1", "rust-1", enc=(100, 99, 101))), LANGS, 1.0)
    e = b.columns["encode"]["json"]
    assert not e.best and not e.tie and math.isnan(e.pct_of_best) and b.winner("encode") is None


def test_a_duet_decides_the_comparison_its_cells_could_not():
    # Separately the cells overlap (inconclusive); their duet's paired ratio 0.80 [0.76–0.85]
    # excludes 1 and the noise floor: bson encodes 1.25× faster, judged by the duet. An A/A duet
    # is never a comparison, and a duet ratio inside the floor is a tie.
    s = frame(row("json", "rust-1", "rust-1", enc=(100, 60, 140), dec=(100, 99, 101)),
              row("bson", "rust-1", "rust-1", enc=(80, 50, 120), dec=(102, 101, 103)))
    [plain] = L.boards(s, LANGS, 1.05)
    assert "inconclusive against json on encode" in L.verdict(plain)
    [b] = L.boards(s, LANGS, 1.05)
    b.duets[("encode", "bson", "json")] = L.stats.Interval(0.80, 0.76, 0.85, 9, 0.97)
    b.duets[("decode typed", "bson", "json")] = L.stats.Interval(1.02, 0.99, 1.04, 9, 0.97)
    v = L.verdict(b)
    assert v.endswith("bson is the same size as json, encodes 1.25× faster (duet) and ties json on decode (typed) (duet)."), v
