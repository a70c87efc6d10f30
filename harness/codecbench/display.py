"""Readable tables for the terminal (rich). Machine-readable output goes through --json instead."""

from __future__ import annotations

import math
import os
import sys

import pandas as pd
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .pb import run_status_name
from .results.rows import writer_tag

# A cell whose 95 % interval is wider than this (half-width over the median) is marked.
WIDE_CI = 0.10


def console(stderr: bool = False) -> Console:
    stream = sys.stderr if stderr else sys.stdout
    # Piped output (make demo, CI logs) would otherwise be squeezed to 80 columns.
    width = None if stream.isatty() else int(os.environ.get("COLUMNS", "0") or 0) or 180
    return Console(file=stream, width=width, highlight=False, soft_wrap=False)


def _nan(value) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value))


def fmt_ns(value: float) -> str:
    if _nan(value):
        return "—"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def fmt_ci(pct: float) -> Text:
    """The 95 % interval's half-width in % of the median; "!" above WIDE_CI."""
    if _nan(pct):
        return Text("")
    text = f"±{pct:.1f}%"
    return Text(text + " !", style="yellow") if pct > WIDE_CI * 100 else Text(text)


def fmt_trials(trials, unsteady) -> Text:
    """Trials of the cell; "~N" marks N trials whose warm-up hit its cap before a steady state."""
    if _nan(trials) or not trials:
        return Text("—")
    text = Text(f"{int(trials)}")
    if unsteady and not _nan(unsteady):
        text.append(f" ~{int(unsteady)}", style="yellow")
    return text


def fmt_int(value) -> str:
    if _nan(value):
        return "—"
    return f"{int(value):,}"


def _short(message: str, limit: int = 60) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 1] + "…"


def _has(summary: pd.DataFrame, col: str) -> bool:
    return col in summary and summary[col].notna().any()


def results_table(summary: pd.DataFrame, title: str = "") -> Table:
    """One row per producer → consumer cell. A dataset or record count shared by every row goes in
    the title instead of a column, to keep the table within a terminal."""
    shared = [(col, summary[col].iloc[0]) for col in ("dataset", "record_count")
              if len(summary) > 1 and summary[col].nunique() == 1]
    if shared:
        what = " × ".join(f"{v:,} records" if c == "record_count" else str(v) for c, v in shared)
        title = f"{title} · {what}" if title else what
    skip = {c for c, _ in shared}
    table = Table(title=title or None, title_justify="left", header_style="bold")
    num = dict(justify="right", no_wrap=True)
    if "dataset" not in skip:
        table.add_column("dataset", no_wrap=True)
    table.add_column("codec", no_wrap=True)
    table.add_column("mode", no_wrap=True)
    table.add_column("producer → consumer", no_wrap=True)
    if "record_count" not in skip:
        table.add_column("records", **num)
    table.add_column("bytes", **num)
    has_gzip = _has(summary, "gzip_bytes")
    if has_gzip:
        table.add_column("gzip", **num)
    table.add_column("enc ns/rec", **num)
    table.add_column("±95%", **num)
    table.add_column("dec ns/rec", **num)
    table.add_column("±95%", **num)
    has_up, has_down = _has(summary, "upload_ns_per_op"), _has(summary, "download_ns_per_op")
    if has_up:
        table.add_column("upload\nns/op", **num)
    if has_down:
        table.add_column("download\nns/op", **num)
    has_e2e = _has(summary, "end_to_end_ns_per_op")
    if has_e2e:
        table.add_column("end to end ns/op\n= enc+up+dn+dec", **num)
    table.add_column("trials\nenc/dec", **num)
    table.add_column("verified", no_wrap=True, overflow="ellipsis", max_width=30)
    for r in summary.itertuples(index=False):
        who = r.producer + writer_tag(r.codec, getattr(r, "payload_codec", ""))
        pc = f"{who} → {r.consumer}" if r.consumer else who
        pc += (" ≡" if r.same_bytes_as else "") + (" A/A" if r.aa_twin else "")
        pc += f" (in {r.measured_in}'s)" if getattr(r, "measured_in", "") else ""
        verified = Text("✓", style="green") if r.verified else Text(
            "✗ " + _short(r.failure or "not verified"), style="red")
        cells = ([r.dataset] if "dataset" not in skip else []) + [r.codec, r.mode or "—", pc] + \
            ([fmt_int(r.record_count)] if "record_count" not in skip else []) + [
                fmt_int(r.payload_bytes) if r.payload_bytes else "—"] + (
                [fmt_int(r.gzip_bytes)] if has_gzip else []) + [
                fmt_ns(r.encode_ns_per_record), fmt_ci(r.encode_ci_pct),
                fmt_ns(r.decode_ns_per_record), fmt_ci(r.decode_ci_pct)]
        if has_up:
            cells.append(fmt_ns(r.upload_ns_per_op))
        if has_down:
            cells.append(fmt_ns(r.download_ns_per_op))
        if has_e2e:
            cells.append(fmt_ns(r.end_to_end_ns_per_op))
        trials = fmt_trials(r.encode_trials, r.encode_unsteady)
        trials.append("/")
        trials.append_text(fmt_trials(r.decode_trials, r.decode_unsteady) if r.consumer else Text("—"))
        cells.append(trials)
        cells.append(verified)
        table.add_row(*cells)
    return table


def same_bytes_lines(summary: pd.DataFrame, limit: int = 6) -> list[str]:
    """The legend of "≡" (payloads byte-identical across producers) and "A/A" (a twin cell)."""
    groups: dict[tuple, set] = {}
    for r in summary.itertuples(index=False):
        if r.same_bytes_as:
            groups.setdefault((r.dataset, int(r.record_count), r.codec), set()).update(
                [r.producer, *r.same_bytes_as.split(", ")])
    lines = [f"≡ same bytes: {ds} × {n:,} {codec} from {', '.join(sorted(ps))} (identical work for a consumer)"
             for (ds, n, codec), ps in list(groups.items())[:limit]]
    if len(groups) > limit:
        lines.append(f"≡ … and {len(groups) - limit} more payloads (the report's tables name them all)")
    if "measured_in" in summary and summary["measured_in"].fillna("").astype(bool).any():
        lines.append("(in X's): not run; its decode is the cell of X's byte-identical payload on the same consumer, "
                     "measured once (sampling.repeatSameBytes)")
    if summary["aa_twin"].astype(bool).any():
        lines.append("A/A: a deliberate twin of another cell (the same work measured again as a cell of its own)")
    return lines


def print_results(summary: pd.DataFrame, title: str = "", out: Console | None = None,
                  noise=None, transfer_noise=None) -> None:
    """The results table, then how to read it: the noise floors (stats.NoiseFloor; decode, and
    the transfer legs' own when measured), the interval method and its coverage at the run's
    trial count, unsteady and wide cells."""

    out = out or console()
    if summary.empty:
        out.print("no measurements")
        return
    out.print(results_table(summary, title))
    for line in same_bytes_lines(summary):
        out.print(line, style="dim")
    print_notes(summary, noise, transfer_noise, out, full=True)


def print_notes(summary: pd.DataFrame, noise=None, transfer_noise=None, out: Console | None = None,
                full: bool = False) -> None:
    """How to read the figures: the noise floors, the interval method (in full under the full
    table, in one line under the leaderboards), its coverage at the run's trial count, and the
    wide and unsteady cells."""
    from . import stats

    out = out or console()
    if summary.empty:
        return
    if noise is not None:
        out.print(noise.sentence())
    if transfer_noise is not None and transfer_noise.groups:
        out.print(transfer_noise.sentence(transfer=True))
    if full:
        # escape: the method names ranks as [x(j), x(n−j+1)], which rich would take for markup.
        out.print(escape(f"figures: {stats.METHOD}; ± is the interval's half-width. Differences within the "
                         "intervals or the noise floor are ties."), style="dim")
    else:
        out.print("figures: medians over trials, each with a 95 % rerun interval; `--all` prints every "
                  "producer → consumer row with its interval, and the report explains the method.", style="dim")
    counts = pd.concat([summary[f"{leg}_trials"] for leg in ("encode", "decode")])
    fewest = int(counts[counts > 0].min()) if (counts > 0).any() else 0
    if 0 < fewest < stats.MIN_TRIALS:
        out.print(f"(n) as few as {fewest} trials: the ± interval holds an identical rerun's median only "
                  f"{stats.ci_ranks(fewest)[2]:.0%} of the time ({stats.MIN_TRIALS} trials reach 95 %): "
                  "enough to see the shape, not to publish.", style="yellow")
    wide = summary[(summary["encode_ci_pct"] > WIDE_CI * 100) | (summary["decode_ci_pct"] > WIDE_CI * 100)]
    if not wide.empty:
        out.print(f"! {len(wide)} row(s) have a 95 % interval wider than ±{WIDE_CI:.0%}"
                  f"{' (marked !)' if full else ''}: more trials (sampling.trials, maxTrials) or a quieter "
                  "machine help.", style="yellow")
    unsteady = summary[(summary["encode_unsteady"] > 0) | (summary["decode_unsteady"] > 0)]
    if not unsteady.empty:
        out.print(f"~ {len(unsteady)} row(s) include trials whose warm-up hit sampling.maxWarmupMs "
                  f"before a steady state{' (~N: N such trials)' if full else ''}; they are measured, and "
                  "marked.", style="yellow")


def print_failures(failures: list[tuple[str, str]], out: Console | None = None) -> None:
    """Each failed task with its full message: (what, message)."""
    out = out or console()
    if not failures:
        return
    out.print(f"\n{len(failures)} task(s) failed:", style="bold red")
    for what, message in failures:
        out.print(Text(f"  ✗ {what}: ", style="red") + Text(message))


def runtime_details(details) -> str:
    """The environment details a reader needs to trust a worker's numbers, in a few words."""
    parts = []
    if "gc" in details:
        parts.append(f"GC {details['gc']}")
    if "max_heap_bytes" in details:
        parts.append(f"max heap {int(details['max_heap_bytes']) / 2**30:.1f} GiB")
    if "jvm_flags" in details:
        parts.append(f"flags: {details['jvm_flags'] or '(none)'}")
    if "crossOriginIsolated" in details:
        parts.append(f"crossOriginIsolated {details['crossOriginIsolated']}")
    if "timerResolutionUs" in details:
        parts.append(f"timer {details['timerResolutionUs']} µs")
    return "; ".join(parts)


def workers_table(workers) -> Table:
    table = Table(header_style="bold")
    for col in ("id", "language", "runtime", "profile", "runtime details", "codecs (decode modes)", "task", "done", "host"):
        table.add_column(col)
    for w in workers:
        env = w.environment
        codecs = ", ".join(f"{c.id} ({'/'.join(c.decode_modes)})" for c in w.codecs)
        table.add_row(w.id, env.language, f"{env.runtime} {env.runtime_version}".strip(),
                      env.build_profile, runtime_details(env.details), codecs, w.current_task_id or "—",
                      str(w.tasks_done), env.hostname)
    return table


def datasets_table(rows: list[dict]) -> Table:
    """`codecbench datasets`: one row per dataset (datasets.table)."""
    table = Table(header_style="bold")
    for col in ("dataset", "source", "message", "fields", "lazy fields", "JSON B/rec", "protobuf B/rec", "fingerprint"):
        table.add_column(col, justify="right" if "B/rec" in col else "left")
    size = lambda b: "—" if b is None else f"{b:,.0f}"  # noqa: E731
    for r in rows:
        fields = ", ".join(r["fields"]) if len(r["fields"]) <= 6 else f"{len(r['fields'])}: {', '.join(r['fields'][:5])}, …"
        table.add_row(f"{r['id']}\n[dim]{r['description']}[/dim]", r["source"], r["message"], fields,
                      ", ".join(r["lazyFields"]), size(r["jsonBytesPerRecord"]), size(r["protobufBytesPerRecord"]),
                      r["fingerprint"])
    return table


def codecs_table(offers) -> Table:
    table = Table(header_style="bold")
    for col in ("codec", "worker", "language", "decode modes", "library", "media type", "notes"):
        table.add_column(col)
    for o in sorted(offers, key=lambda o: (o.codec.id, o.language, o.worker_id)):
        c = o.codec
        table.add_row(c.id, o.worker_id, o.language, ", ".join(c.decode_modes),
                      f"{c.library} {c.library_version}".strip(), c.media_type, c.notes)
    return table


def codec_matrix_table(matrix) -> Table:
    """Rows codecs, columns languages; each cell the library, version and decode modes announced,
    checked against the catalogue."""
    table = Table(header_style="bold", show_lines=True,
                  title=f"codecs × languages (checked against {matrix.catalogue_path or 'no catalogue'})",
                  title_justify="left")
    table.add_column("codec")
    for lang in matrix.languages:
        table.add_column(lang if lang in matrix.attached else f"{lang}\n(no worker attached)")
    for codec in matrix.codecs:
        row = [Text(codec, style="bold") if codec in matrix.in_catalogue
               else Text(f"{codec}\n✗ not in catalogue", style="bold red")]
        for lang in matrix.languages:
            c = matrix.cells[(codec, lang)]
            announced = f"{c.library} {c.version}".strip() + (f"\n{', '.join(c.modes)}" if c.modes else "")
            if c.status == "ok":
                row.append(Text("✓ " + announced, style="green"))
            elif c.status == "mismatch":
                row.append(Text("! " + announced + "".join(f"\n{n}" for n in c.notes), style="yellow"))
            elif c.status == "missing":
                row.append(Text(f"✗ not announced\n(catalogue: {c.catalogue_library})", style="red"))
            elif c.status == "unknown-codec":
                row.append(Text("? " + announced, style="red"))
            elif c.status == "not-catalogued":
                row.append(Text(f"! {announced}\nnot in the catalogue for {lang}", style="yellow"))
            elif c.status == "no-worker":
                row.append(Text(f"no {lang} worker attached\n(catalogue: {c.catalogue_library})", style="dim"))
            else:
                row.append(Text("—", style="dim"))
        table.add_row(*row)
    return table


VERDICT_STYLES = {"slower": "bold red", "now fails": "bold red", "faster": "green", "fixed": "green",
                  "no significant change": "", "fails in both": "yellow", "only in A": "dim",
                  "only in B": "dim"}


def compare_table(table: pd.DataFrame, title: str = "") -> Table:
    """Rows of compare.compare(): the two medians over trials with their 95 % intervals, B/A, verdict."""
    out = Table(title=title or None, title_justify="left", header_style="bold")
    for col, justify in (("verdict", "left"), ("dataset", "left"), ("codec", "left"), ("mode", "left"),
                         ("operation", "left"), ("records", "right"), ("producer → consumer", "left"),
                         ("A ns/op [95% CI] trials", "right"), ("B ns/op [95% CI] trials", "right"),
                         ("B/A", "right"), ("note", "left")):
        out.add_column(col, justify=justify)

    def side(r, p):
        med = r[f"{p}_median_ns_per_op"]
        if _nan(med):
            return "—"
        unsteady = f" ~{int(r[f'{p}_unsteady'])}" if r.get(f"{p}_unsteady") else ""
        return (f"{fmt_ns(med)} [{fmt_ns(r[f'{p}_lo_ns_per_op'])}–{fmt_ns(r[f'{p}_hi_ns_per_op'])}] "
                f"n{int(r[f'{p}_trials'])}{unsteady}")

    for _, r in table.iterrows():
        ratio = r["ratio"]
        pc = r["producer_language"] + writer_tag(r["codec"], r.get("payload_codec")) + (
            f" → {r['consumer_language']}" if r["consumer_language"] else "")
        note = r["b_failure"] if r["verdict"] == "now fails" else r["a_failure"] if r["verdict"] in (
            "fixed", "fails in both") else ""
        out.add_row(Text(r["verdict"], style=VERDICT_STYLES.get(r["verdict"], "")), r["dataset"], r["codec"],
                    r["decode_mode"] or "—",
                    r["operation"] + (f" ({r['compression']})" if r.get("compression") else ""),
                    fmt_int(r["record_count"]), pc,
                    side(r, "a"), side(r, "b"), _ratio_text(ratio, r.get("column_shift", 1.0)),
                    _short(note or "", 50))
    return out


def _ratio_text(ratio, shift) -> str:
    """B/A, and what is left of it after its column's shift when compare judged it that way."""
    if _nan(ratio):
        return "—"
    if _nan(shift) or shift == 1.0:
        return f"×{ratio:.2f}"
    return f"×{ratio:.2f} (÷ column ×{shift:.3f} = ×{ratio / shift:.2f})"


def tasks_text(r) -> str:
    """A run's ended tasks over its total: done, and those not run because a lead cell measured
    their byte-identical work (Run.tasks_same_bytes)."""
    same = getattr(r, "tasks_same_bytes", 0)
    return f"{r.tasks_done}/{r.tasks_total}" + (f" (+{same} same bytes)" if same else "")


def runs_table(runs) -> Table:
    table = Table(header_style="bold")
    for col in ("id", "name", "status", "created", "tasks", "failed", "message"):
        table.add_column(col)
    for r in runs:
        created = r.created_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S") if r.HasField("created_at") else ""
        status = run_status_name(r.status)
        style = {"finished": "green" if not r.tasks_failed else "yellow", "failed": "red",
                 "cancelled": "yellow", "running": "cyan"}.get(status, "")
        table.add_row(r.id, r.name, Text(status, style=style), created,
                      tasks_text(r), str(r.tasks_failed) if r.tasks_failed else "",
                      _short(r.message, 50))
    return table


# ---- the answer first: leaderboards and verdict (leaderboard.py) ---------------------------------

def _board_cell(column: str, e) -> Text:
    from .leaderboard import cell_text

    text = cell_text(column, e)
    return Text(text, style="bold green" if text.endswith("★") else "cyan" if e.tie else "")


def leaderboard_table(boards: list, title: str = "") -> Table:
    """One dataset × record count: rows language × codec, a column per metric (per record)."""
    from .leaderboard import COLUMNS, SIZE_COLUMNS as COLUMNS_SIZES

    columns = [c for c in COLUMNS if any(c in b.columns for b in boards)]
    table = Table(title=title or None, title_justify="left", header_style="bold")
    table.add_column("language")
    table.add_column("codec")
    for c in columns:
        table.add_column(c if c in COLUMNS_SIZES else f"{c} /rec", justify="right")
    for b in boards:
        for i, codec in enumerate(b.codecs):
            cells = [b.columns.get(c, {}).get(codec) for c in columns]
            if all(x is None for x in cells):
                continue
            table.add_row(b.language if i == 0 else "", codec,
                          *[_board_cell(c, x) if x is not None else Text("—", style="dim") for c, x in zip(columns, cells)],
                          end_section=i == len(b.codecs) - 1)
    return table


def print_leaderboards(boards: list, floors: dict, out: Console | None = None) -> None:
    """The answer first: a leaderboard per dataset × record count, then a verdict per language
    (leaderboard.for_run gives both arguments)."""
    from . import leaderboard

    out = out or console()
    if not boards:
        return
    # The browser's rows: the bytes each codec adds to a page, when `make web` measured them (bundles.py).
    from .bundles import gzip_by_codec
    boards = leaderboard.with_bundles(boards, gzip_by_codec())
    groups: dict[tuple, list] = {}
    for b in boards:
        groups.setdefault((b.dataset, b.record_count), []).append(b)
    for (ds, n), bs in groups.items():
        out.print(leaderboard_table(bs, f"{ds} × {n:,} records: each language's own round trip, per record"))
    each = ", ".join(f"{lang} ≤ {nf.worst_pct:.1f} %" for lang, nf in sorted(floors.items()))
    out.print(escape("★ best beyond the intervals and its language's noise floor"
                     + (f" ({each})" if each else "") + " · = not told apart from the best · % of the best in its column "
                     "(one language, one operation, one mode)"
                     + (" · bundle gz: gzip bytes the codec adds to a web page (this build of web/)"
                        if any(leaderboard.BUNDLE in b.columns for b in boards) else "")
                     + (f" · {leaderboard.E2E_LEGEND}" if any("end to end" in b.columns for b in boards) else "")),
              style="dim")
    for b in boards:
        if (line := leaderboard.verdict(b)):
            out.print(escape(line))
