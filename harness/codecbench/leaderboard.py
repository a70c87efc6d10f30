"""The answer first (issue 11): per dataset, record count and language, one leaderboard over the
codecs, and a verdict written from it.

A leaderboard never pools languages, decode modes or operations: each column is one metric of one
language's own round trip, and "% of best" is taken within that column only.

- **Which cells.** For language L: encode by an L worker; decode (one column per mode) by an L
  worker of an L worker's payload when there is one, else of the first producer's (the payloads of
  json, bson and protobuf are byte-identical across producers); end to end on that same row, only
  where upload and download were measured too and the payload is the language's own (an end to
  end across two languages is not one language's cost). Bytes per record are of the payload
  decoded; gzip/rec and zstd/rec are that payload compressed whole (gzip level 6, zstd level 3,
  measured by control from the stored blob).
- **Ties.** A codec ties the best when stats.differ says the two figures do not differ (their
  intervals overlap, or their ratio is within the noise floor of that language: the A/A groups
  its consumers measured, when it has any, else the run's). One language's noisy identical work
  (a JIT that sometimes tiers up before timing, sometimes not) says nothing about another
  language's clock, so it does not turn the other's differences into ties. A column names a winner
  only when it has no tie; bytes are exact, so they tie only when equal. The verdict says "ties"
  only when the medians are within TIE_EFFECT (5 %) of each other; further apart and not told
  apart, it says "inconclusive", naming the noise floor when that is what hid the difference.
- **About zero.** When the best value is (about) zero, "% of best" means nothing: the column shows
  absolute values only.
- **Bundle.** The browser's rows carry "bundle gz" when given the sizes (boards/for_run's
  `bundle_gzip`, with_bundles; the terminal's display.print_leaderboards reads them itself): the
  gzip bytes the codec adds to a web page (bundles.py, from web/dist/bundle-sizes.json as `make web`
  built it now, not from the run). It is context, not a contest of the run: shown alone, no % and
  no ★, and not in the verdict.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Iterable

import pandas as pd

from . import stats
from .results import interval_of, lang_of, own_rows, writer_tag

MODES = ("typed", "tree", "lazy", "streaming")
# Sizes are exact (no interval): they tie only when equal.
PAYLOAD_COLUMNS = ("bytes/rec", "gzip/rec", "zstd/rec")
# The gzip bytes a browser codec adds to a page (bundles.py): browser rows only, not per record.
BUNDLE = "bundle gz"
BUNDLE_LANGUAGE = "browser"
SIZE_COLUMNS = (*PAYLOAD_COLUMNS, BUNDLE)
# What the measured end to end is, said wherever the column is shown.
E2E_LEGEND = ("end to end: encode + upload + download + decode through control's blob store, on this run's "
              "network (`codecbench link` models another link)")
COLUMNS = (*SIZE_COLUMNS, "encode", "encode streaming", *(f"decode {m}" for m in MODES), "end to end")
# Below this a "best" value is treated as zero and the column shows absolute values only.
ABOUT_ZERO = 1e-9


@dataclass(frozen=True)
class Entry:
    """One codec's figure in one column: value per record (ns or bytes), its interval (per op),
    its rank against the column's best."""
    value: float
    interval: stats.Interval
    pct_of_best: float  # NaN when the best is about zero
    best: bool  # the smallest value (alone or tied)
    tie: bool  # tied with the best (the best itself too, when anything ties it)


def cell_text(column: str, e: Entry) -> str:
    """One entry as every rendering shows it: "1.29 µs 316 %", "408 ns ★" (the column's winner),
    "2.69 µs 144 % =" (tied with the best), or the value alone when there is no % to give."""
    from .units import fmt_size, fmt_time

    if column == BUNDLE:
        from .bundles import kb
        return kb(e.value)
    value = fmt_size(e.value) if column in SIZE_COLUMNS else fmt_time(e.value)
    if math.isnan(e.pct_of_best):
        return value
    if e.best and not e.tie:
        return f"{value} ★"
    return f"{value} {e.pct_of_best:,.0f} %" + (" =" if e.tie else "")


@dataclass
class Board:
    dataset: str
    record_count: int
    language: str
    codecs: list[str]
    noise_floor: float = 1.0
    # column → the noise floor its ties were judged by (end to end: with the transfer floor)
    floors: dict[str, float] = field(default_factory=dict)
    # column name → codec → Entry (a codec not measured in a column is absent)
    columns: dict[str, dict[str, Entry]] = field(default_factory=dict)
    # (column, codec, baseline) → the paired duet ratio codec / baseline (duets.py), where the run has one:
    # the verdict judges that comparison by it.
    duets: dict[tuple[str, str], stats.Interval] = field(default_factory=dict)
    # The producer language of the end to end column when it is not the board's own: a language
    # that produced nothing here (a browser that only consumes) is judged on another's payloads.
    e2e_from: str = ""

    def winner(self, column: str) -> str | None:
        """The codec that beat every other in the column, or None when the best is tied."""
        col = self.columns.get(column, {})
        best = next((c for c, e in col.items() if e.best), None)
        return best if best is not None and not col[best].tie and len(col) > 1 else None


def _pick(rows: pd.DataFrame, lang: str, langs: dict[str, str], side: str) -> pd.Series | None:
    """The row of one codec for language `lang`: its own worker's payload first."""
    if rows.empty:
        return None
    own = rows[rows["producer"].map(lambda w: lang_of(w, langs)) == lang]
    pick = own if not own.empty else rows
    return pick.sort_values(["producer", side]).iloc[0]


def _originals_first(rows: pd.DataFrame) -> pd.DataFrame:
    """The rows that are not A/A twins; the twins only when nothing else measured that work (a run
    cancelled after a twin's trial): a twin repeats its original's work, it is not a second entry."""
    originals = rows[~rows["aa_twin"]]
    return originals if not originals.empty else rows


def _sizes(r: pd.Series, n: int) -> dict[str, float]:
    """Raw, gzip and zstd bytes per record of one summary row's payload (NaN where unknown)."""
    per = (lambda v: float(v) / n if n and v is not None and not pd.isna(v) and float(v) > 0 else math.nan)
    return {"bytes/rec": per(r["payload_bytes"]), "gzip/rec": per(r.get("gzip_bytes")),
            "zstd/rec": per(r.get("zstd_bytes"))}


def _column(values: dict[str, tuple[float, stats.Interval]], noise: float, exact: bool) -> dict[str, Entry]:
    known = {c: v for c, v in values.items() if not math.isnan(v[0])}
    if not known:
        return {}
    if len(known) == 1:
        # Nothing to rank against: the value alone, no "best" and no %.
        return {c: Entry(value, iv, math.nan, best=False, tie=False) for c, (value, iv) in known.items()}
    best = min(known, key=lambda c: known[c][0])
    best_value = known[best][0]
    if exact:
        ties = {c for c, v in known.items() if v[0] == best_value}
    else:
        _, ties = stats.best_and_ties({c: v[1] for c, v in known.items()}, noise)
    return {c: Entry(value, iv, value / best_value * 100 if best_value > ABOUT_ZERO else math.nan,
                     best=c == best, tie=len(ties) > 1 and c in ties)
            for c, (value, iv) in known.items()}


def boards(summary: pd.DataFrame, langs: dict[str, str], noise_floor: float | dict[str, float] = 1.0,
           codec_order: list[str] | None = None, transfer_floor: float = 1.0,
           bundle_gzip: dict[str, int] | None = None) -> list[Board]:
    """Leaderboards from a summary_frame (one per dataset × record count × consumer language).
    `noise_floor`: one ratio for every language, or language → ratio (a language it does not name
    gets the largest of them). End to end holds two transfer legs: it is judged by the larger of
    the language's floor and `transfer_floor` (the run's download A/A groups). `bundle_gzip`
    (codec → bytes, bundles.gzip_by_codec) gives the browser's boards their bundle column."""
    floors = noise_floor if isinstance(noise_floor, dict) else {}
    default = max(floors.values(), default=1.0) if floors else float(noise_floor)
    if summary.empty:
        return []
    # One codec's own round trip: a payload another implementation of its format wrote (json
    # decoding json/v2's) is an interop cell, in the every-cell table and summary.csv only.
    s = own_rows(summary).copy()
    s["aa_twin"] = s["aa_twin"].astype(bool)
    s["encode_lang"] = s["producer"].map(lambda w: lang_of(w, langs))
    s["decode_lang"] = s["consumer"].map(lambda w: lang_of(w, langs) if w else "")
    out = []
    for (ds, n), d in s.groupby(["dataset", "record_count"], sort=False):
        order = [c for c in (codec_order or []) if c in set(d["codec"])]
        codecs = order + sorted(set(d["codec"]) - set(order))
        languages = sorted(set(d["encode_lang"]) | (set(d["decode_lang"]) - {""}))
        for lang in languages:
            floor = floors.get(lang, default)
            board = Board(str(ds), int(n), lang, codecs, floor)
            size: dict[str, dict[str, float]] = {}
            enc: dict[str, tuple[float, stats.Interval]] = {}
            enc_streaming: dict[str, tuple[float, stats.Interval]] = {}
            dec: dict[str, dict[str, tuple[float, stats.Interval]]] = {m: {} for m in MODES}
            e2e: dict[str, tuple[float, stats.Interval]] = {}
            e2e_from: set[str] = set()
            produced = lang in set(d.loc[d["encode_trials"] > 0, "encode_lang"])
            for codec in codecs:
                rows = d[d["codec"] == codec]
                # Streaming rows carry the streaming encode; the in-memory encode is on every other row.
                mine = rows[(rows["encode_lang"] == lang) & (rows["encode_trials"] > 0)]
                e = _originals_first(mine[mine["encode_mode"] != "streaming"])
                if not e.empty:
                    r = e.sort_values("producer").iloc[0]
                    enc[codec] = (float(r["encode_ns_per_record"]), interval_of(r, "encode_"))
                es = _originals_first(mine[mine["encode_mode"] == "streaming"])
                if not es.empty:
                    r = es.sort_values("producer").iloc[0]
                    enc_streaming[codec] = (float(r["encode_ns_per_record"]), interval_of(r, "encode_"))
                for mode in MODES:
                    r = _pick(_originals_first(rows[(rows["mode"] == mode) & (rows["decode_lang"] == lang)
                                                    & (rows["decode_trials"] > 0) & rows["verified"].astype(bool)]),
                              lang, langs, "consumer")
                    if r is None:
                        continue
                    dec[mode][codec] = (float(r["decode_ns_per_record"]), interval_of(r, "decode_"))
                    if mode == "typed" or codec not in size:
                        size[codec] = _sizes(r, n)
                    source = lang_of(r["producer"], langs)
                    if mode == "typed" and (source == lang or not produced) \
                            and not math.isnan(float(r["end_to_end_ns_per_op"])):
                        iv = stats.Interval(float(r["end_to_end_ns_per_op"]), float(r["end_to_end_lo_ns_per_op"]),
                                            float(r["end_to_end_hi_ns_per_op"]),
                                            min(int(r[f"{leg}_trials"]) for leg in ("encode", "upload", "download", "decode")),
                                            min(float(r[f"{leg}_coverage"]) for leg in ("encode", "upload", "download", "decode")))
                        e2e[codec] = (float(r["end_to_end_ns_per_record"]), iv)
                        e2e_from.add(source)
                if codec not in size and not e.empty:
                    size[codec] = _sizes(e.iloc[0], n)
            for column in PAYLOAD_COLUMNS:
                values = {c: (v[column], stats.EMPTY) for c, v in size.items()}
                if any(not math.isnan(v[0]) for v in values.values()):
                    board.columns[column] = _column(values, 1.0, exact=True)
            if enc:
                board.columns["encode"] = _column(enc, floor, exact=False)
            if enc_streaming:
                board.columns["encode streaming"] = _column(enc_streaming, floor, exact=False)
            for mode in MODES:
                if dec[mode]:
                    board.columns[f"decode {mode}"] = _column(dec[mode], floor, exact=False)
            # One column compares like with like: every codec's end to end from one producer language.
            if e2e and len(e2e_from) == 1:
                board.e2e_from = "" if lang in e2e_from else next(iter(e2e_from))
                board.columns["end to end"] = _column(e2e, max(floor, transfer_floor), exact=False)
                board.floors["end to end"] = max(floor, transfer_floor)
            if board.columns:
                out.append(board)
    return with_bundles(out, bundle_gzip) if bundle_gzip else out


def with_bundles(boards: list[Board], bundle_gzip: dict[str, int]) -> list[Board]:
    """The boards with the browser's given the "bundle gz" column (codec → gzip bytes it adds to a
    page, bundles.gzip_by_codec), as new Board objects: the others, and the boards given, unchanged."""
    out = []
    for board in boards:
        # Only beside what the board measured of a codec: a row for the bundle alone would mislead.
        measured = {c for col in board.columns.values() for c in col}
        bundle = {c: Entry(float(bundle_gzip[c]), stats.EMPTY, math.nan, best=False, tie=False)
                  for c in board.codecs if c in bundle_gzip and c in measured}
        if board.language != BUNDLE_LANGUAGE or not bundle:
            out.append(board)
            continue
        out.append(replace(board, columns={**board.columns, BUNDLE: bundle}, floors=dict(board.floors),
                           duets=dict(board.duets)))
    return out


def for_run(summary: pd.DataFrame, cells: pd.DataFrame, langs: dict[str, str],
            codec_order: list[str] | None = None, duets: Iterable = (),
            bundle_gzip: dict[str, int] | None = None) -> tuple[list[Board], dict]:
    """The run's leaderboards, each language judged by its own noise floor and end to end also by
    the transfer floor; with those floors (language → stats.NoiseFloor). `duets` (duets.Duet) give
    their comparisons' paired ratios to the boards they belong to. `bundle_gzip` (bundles.gzip_by_codec())
    gives the browser's boards the bundle column; the terminal's print_leaderboards adds it itself."""
    from .results import language_noise_floors, run_noise_floor

    floors = language_noise_floors(cells, langs)
    transfer = run_noise_floor(cells, "download")
    out = boards(summary, langs, {k: v.worst for k, v in floors.items()} or 1.0, codec_order,
                 transfer.worst if transfer.groups else 1.0,
                 bundle_gzip)
    by_board = {(b.dataset, b.record_count, b.language): b for b in out}
    for d in duets:
        b = by_board.get((d.dataset, d.record_count, d.language))
        if b is not None and not d.aa and d.paired.n:
            column = "encode" if d.operation == "encode" else f"decode {d.decode_mode}"
            b.duets[(column, d.right, d.left)] = d.paired
    return out, floors


def _times(ratio: float) -> str:
    return f"{ratio:.1f}×" if ratio >= 2 else f"{ratio:.2f}×"


def _label(column: str) -> str:
    """"decode typed" → "decode (typed)"."""
    return f"decode ({column.split()[-1]})" if column.startswith("decode ") else column


def _size_phrase(a: float, b: float, base: str, gzip: dict[str, Entry], codec: str) -> str:
    """"is 25 % smaller than json", with gzip's figure beside it when compression changes the
    answer: the order flips, or the difference moves by more than 10 points."""
    def rel(x: float, y: float) -> str:
        if x == y:
            return f"the same size as {base}"
        r = y / x
        return f"{abs(r - 1) * 100:.0f} % {'smaller' if r < 1 else 'larger'} than {base}"

    if not a > 0:
        return ""
    said = f"is {rel(a, b)}"
    ga, gb = gzip.get(base), gzip.get(codec)
    if ga is not None and gb is not None and ga.value > 0:
        raw, gz = b / a, gb.value / ga.value
        if (raw < 1) != (gz < 1) or abs(raw - gz) > 0.10:
            said += f" ({rel(ga.value, gb.value)} after gzip)"
    return said


# Medians closer than this are a tie when the run cannot tell them apart; further apart, the
# comparison is inconclusive (the noise floor or the intervals hide an effect of that size).
TIE_EFFECT = 0.05


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + " and " + items[-1] if len(items) > 1 else items[0]


def verdict(board: Board, baseline: str = "json") -> str:
    """One sentence: how every other codec compares with the baseline (json when present, else the
    first codec) in this language, by the tie rule, e.g. "dummy × 100, java: protobuf is 25 %
    smaller than json, encodes 3.2× faster and decodes (typed) 2.1× faster; bson ties json on
    encode and decodes (typed) 12 % slower"."""
    base = baseline if baseline in board.codecs else (board.codecs[0] if board.codecs else "")
    parts = []
    for codec in board.codecs:
        if codec == base:
            continue
        said, tied, unsure, floors = [], [], [], []
        for column, col in board.columns.items():
            a, b = col.get(base), col.get(codec)
            if a is None or b is None:
                continue
            if column in ("gzip/rec", "zstd/rec", BUNDLE):
                continue
            if column == "bytes/rec":
                if phrase := _size_phrase(a.value, b.value, base, board.columns.get("gzip/rec", {}), codec):
                    said.append(phrase)
                continue
            floor = board.floors.get(column, board.noise_floor)
            paired = board.duets.get((column, codec, base))
            if paired is not None:
                # A duet: both trials of each pair saw the same machine; its ratio's interval
                # decides (it must exclude 1 and the ratio exceed the noise floor).
                r = paired.median
                slower, faster = paired.lo > 1 and r > floor, paired.hi < 1 and 1 / r > floor
                if slower or faster:
                    what = {"encode": "encodes"}.get(column, f"decodes ({column.split()[-1]})")
                    said.append(f"{what} {_times(r if slower else 1 / r)} {'slower' if slower else 'faster'} (duet)")
                elif max(r, 1 / r) <= 1 + TIE_EFFECT + 1e-12:
                    tied.append(_label(column) + " (duet)")
                else:
                    unsure.append(_label(column) + " (duet)")
                    floors.append(floor if floor and floor >= max(r, 1 / r) else None)
                continue
            if not stats.differ(a.interval, b.interval, floor):
                # A tie claims the two are within TIE_EFFECT of each other: only a run whose noise
                # floor resolves that much can say it. Medians further apart, or a floor wider than
                # the claim, and the run could not tell, and says so.
                r = stats.ratio(a.interval, b.interval)
                close = math.isnan(r) or r <= 1 + TIE_EFFECT + 1e-12
                if close and not (floor and floor > 1 + TIE_EFFECT + 1e-12):
                    tied.append(_label(column))
                else:
                    unsure.append(_label(column))
                    floors.append(floor if floor and (close or floor >= r) else None)
                continue
            through = "through control" + (f", from {board.e2e_from}" if board.e2e_from else "")
            what = {"encode": "encodes", "end to end": f"runs end to end ({through})"}.get(column, f"decodes ({column.split()[-1]})")
            said.append(f"{what} {_times(stats.ratio(a.interval, b.interval))} "
                        f"{'faster' if b.interval.median < a.interval.median else 'slower'}")
        if tied:
            said.append(f"ties {base} on " + _and(tied))
        if unsure:
            known = [f for f in floors if f]
            why = (f"on this machine (noise floor {(max(known) - 1) * 100:.1f} %)" if known
                   else "(the intervals overlap; more trials would tell)")
            said.append(f"is inconclusive against {base} on {_and(unsure)} {why}")
        if said:
            parts.append(f"{codec} " + _and(said))
    if not parts:
        return ""
    return f"{board.dataset} × {board.record_count:,}, {board.language}: " + "; ".join(parts) + "."


# ---- exports (report --format csv|json|md, run --json) -------------------------------------------

RECORD_FIELDS = ["dataset", "record_count", "language", "codec", "column", "unit", "value", "pct_of_best",
                 "best", "tie", "lo_per_record", "hi_per_record", "trials", "noise_floor"]


def _num(v):
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else v


def to_records(boards: list[Board]) -> list[dict]:
    """One flat record per leaderboard entry: numbers as numbers, NaN as None."""
    out = []
    for b in boards:
        for column, col in b.columns.items():
            for codec in b.codecs:
                e = col.get(codec)
                if e is None:
                    continue
                timed = column not in SIZE_COLUMNS
                per_rec = 1 / b.record_count if b.record_count else math.nan
                unit = "ns/record" if timed else "bytes added to a page (gzip)" if column == BUNDLE else "bytes/record"
                out.append({
                    "dataset": b.dataset, "record_count": b.record_count, "language": b.language,
                    "codec": codec, "column": column, "unit": unit,
                    "value": _num(e.value), "pct_of_best": _num(e.pct_of_best), "best": e.best and not e.tie,
                    "tie": e.tie,
                    "lo_per_record": _num(e.interval.lo * per_rec) if timed and e.interval.n else None,
                    "hi_per_record": _num(e.interval.hi * per_rec) if timed and e.interval.n else None,
                    "trials": e.interval.n if timed else None,
                    "noise_floor": b.floors.get(column, b.noise_floor) if timed else None,
                })
    return out


def to_markdown(boards: list[Board]) -> str:
    """The verdict and one table per dataset × count, for pasting into a PR or a wiki."""
    lines = [f"- {v}" for b in boards if (v := verdict(b))]
    groups: dict[tuple, list[Board]] = {}
    for b in boards:
        groups.setdefault((b.dataset, b.record_count), []).append(b)
    for (ds, n), bs in groups.items():
        columns = [c for c in COLUMNS if any(c in b.columns for b in bs)]
        lines += ["", f"**{ds} × {n:,} records** (each language's own round trip, per record)", "",
                  "| language | codec | " + " | ".join(columns) + " |",
                  "|---|---|" + "--:|" * len(columns)]
        for b in bs:
            for codec in b.codecs:
                cells = [cell_text(c, e) if (e := b.columns.get(c, {}).get(codec)) is not None else "—"
                         for c in columns]
                if any(x != "—" for x in cells):
                    lines.append(f"| {b.language} | {codec} | " + " | ".join(cells) + " |")
    lines += ["", "★ best beyond the intervals and its language's noise floor · = not told apart from the best · % of the "
                  "best in its column (one language, one operation, one mode)"
              + (" · bundle gz: gzip bytes the codec adds to a web page (web/dist/bundle-sizes.json, this build)"
                 if any(BUNDLE in b.columns for b in boards) else "")
              + (f" · {E2E_LEGEND}" if any("end to end" in b.columns for b in boards) else "")]
    return "\n".join(lines) + "\n"


def rows_markdown(summary: pd.DataFrame) -> str:
    """Every producer → consumer row (the terminal's --all table), in markdown."""
    from .units import fmt_size, fmt_time

    def leg(r, p):
        v = r[f"{p}_ns_per_record"]
        if pd.isna(v):
            return "—"
        ci = r[f"{p}_ci_pct"]
        return fmt_time(v) + ("" if pd.isna(ci) else f" ±{ci:.1f}%")

    lines = ["| dataset | records | codec | mode | producer → consumer | bytes | encode /rec | decode /rec | "
             "end to end /rec | verified |", "|---|--:|---|---|---|--:|--:|--:|--:|---|"]
    for _, r in summary.iterrows():
        who = r["producer"] + writer_tag(r["codec"], r.get("payload_codec")) + (f" → {r['consumer']}" if r["consumer"] else "") + (" (A/A)" if r["aa_twin"] else "") + (f" (in {r['measured_in']}'s)" if r.get("measured_in") else "")
        lines.append(f"| {r['dataset']} | {int(r['record_count']):,} | {r['codec']} | {r['mode'] or '—'} | {who} | "
                     f"{fmt_size(r['payload_bytes'])} | {leg(r, 'encode')} | {leg(r, 'decode')} | "
                     f"{fmt_time(r['end_to_end_ns_per_record'])} | "
                     f"{'✓' if r['verified'] else '✗ ' + str(r['failure']).replace('|', '/')[:80]} |")
    return "\n".join(lines) + "\n"


def summary_records(summary: pd.DataFrame) -> list[dict]:
    """summary_frame rows as JSON-ready dicts: numbers as numbers, NaN as None."""
    return [{k: _num(v.item() if hasattr(v, "item") else v) for k, v in r.items()}
            for r in summary.to_dict("records")]


def answer_json(boards: list[Board], floors: dict, summary: pd.DataFrame) -> dict:
    """What `report --format json` and `run --json` ("answer") give a program."""
    return {
        "verdict": [v for b in boards if (v := verdict(b))],
        "noiseFloors": {lang: {"worstRatio": nf.worst, "medianRatio": nf.median, "groups": nf.groups}
                        for lang, nf in floors.items()},
        "leaderboards": to_records(boards),
        "rows": summary_records(summary),
    }
