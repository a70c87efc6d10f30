"""The run report: `report.html` (one self-contained file: inline CSS, plots as base64 PNG data URIs),
`report.md` and `plots/*.png`, written from a results folder (measurements.parquet/csv + run.json).

The report is built once as a list of blocks (headings, paragraphs, tables, images) and rendered
twice, to HTML and to Markdown, so the two never disagree. Tables come from pandas pivots of the
long measurement frame (results.py); plots are matplotlib figures on the Agg backend.

How numbers are summarised (also printed in the report's "How to read" section):
- each cell's figure is the median over its trials (a trial's figure = the median of its rounds),
  with its 95 % distribution-free rerun interval (where an identical rerun's median lands;
  stats.py; the "±" of every table is its half-width); an interval wider than WIDE_CI is flagged;
- when several cells of one language measured the same thing (two workers, byte-identical
  payloads of several producers), their trial figures are pooled;
- decode lines use payloads produced by a worker of the consumer's own language when there are
  any (the producer × consumer matrix shows every pair);
- the run's noise floor is the worst max/min over its A/A groups (identical work);
- "relative to best": within one column (one record count), the smallest value is 100 %; every
  value tied with it (intervals overlap, or the ratio is within the noise floor) is marked as a
  tie, and no winner is named among ties.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Iterable

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.colors import LogNorm  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from . import calibration, datasets, duets, results, stats, timing, userrun  # noqa: E402
from .results import lang_of, language_map  # noqa: E402
from .units import fmt_num, fmt_time  # noqa: E402
from .scenario import DATASETS  # noqa: E402

# A cell whose 95 % interval is wider than this (half-width over the median) is flagged.
WIDE_CI = 0.10
# Fewer trials than this and the interval falls short of 95 % coverage (min..max of 5 holds a
# rerun's median 83.3 % of the time; 9 is the fewest that reach 95 %).
MIN_TRIALS = stats.MIN_TRIALS
# The fields lazy decode reads from every record, one near its start and one at its end: each
# record message's `(dataset).lazy_fields` (Task.lazy_fields as control sends them).
LAZY_FIELDS = datasets.lazy_fields()
BBOX = "tight"

CODEC_COLORS = {"json": "#1f77b4", "bson": "#ff7f0e", "protobuf": "#2ca02c", "ubjson": "#d62728",
                "msgpack": "#9467bd"}
EXTRA_COLORS = ["#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"]
LANG_MARKERS = {"rust": "o", "java": "s", "browser": "^"}
MODE_STYLES = {"typed": "-", "tree": "-.", "lazy": "--", "": "-"}
LANG_ORDER = ["rust", "java", "browser", "node"]


# ---- blocks -------------------------------------------------------------------------------------

@dataclass
class Heading:
    level: int
    text: str
    anchor: str = ""


@dataclass
class Para:
    text: str
    cls: str = ""  # "note", "warn"


@dataclass
class Bullets:
    items: list[str]
    cls: str = ""


@dataclass
class TableBlock:
    frame: pd.DataFrame  # already formatted strings; index is ignored
    caption: str = ""
    classes: pd.DataFrame | None = None  # css class per cell ("ok", "fail", "wide", "best")
    cls: str = ""  # "kv": a key/value table, left-aligned
    left: int = 1  # leading columns that are names (left-aligned); the rest are numbers


@dataclass
class Image:
    path: Path
    alt: str
    caption: str = ""


@dataclass
class Details:
    summary: str
    blocks: list = field(default_factory=list)


@dataclass
class Report:
    html: Path
    md: Path
    plots: list[Path]
    warnings: list[str]
    sections: list[str]


# ---- formatting ---------------------------------------------------------------------------------

def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def fmt_bytes(v: float) -> str:
    if _nan(v):
        return "—"
    return f"{v:,.0f}" if abs(v) >= 10 else f"{v:.1f}"


def fmt_ci(pct: float) -> str:
    """The 95 % interval's half-width, in % of the median ("!" when wider than WIDE_CI)."""
    if _nan(pct):
        return ""
    return f" ±{pct:.1f}%" + (" !" if pct > WIDE_CI * 100 else "")


def fmt_pct(v: float) -> str:
    return "—" if _nan(v) else f"{v:,.0f} %"


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _short(message: str, limit: int = 70) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= limit else message[: limit - 1] + "…"


# ---- data preparation ---------------------------------------------------------------------------

def with_languages(df: pd.DataFrame, langs: dict[str, str]) -> pd.DataFrame:
    df = df.copy()
    df["producer_language"] = df["producer"].map(lambda w: lang_of(w, langs))
    df["consumer_language"] = df["consumer"].map(lambda w: lang_of(w, langs))
    return df


def network_rows(net: dict) -> list[tuple[str, str]]:
    """The run's network (netlab.Lab.environment): the profile as configured, how it was made,
    and each worker link as measured from the worker's side."""
    if not net:
        return []  # not recorded: a run against a control the harness did not start
    if net.get("profile") == "loopback":
        return [("network", "loopback: control and every worker on this host's loopback")]
    conf = net.get("configured") or {}
    rows = [("network", f"{net.get('describe', net.get('profile', ''))} (separate network namespaces; "
                        f"rate: {conf.get('rate', '?')}, delay: {conf.get('delay', '?')})"
                        + (f"; {net['note']}" if net.get("note") else ""))]
    for worker, link in sorted((net.get("links") or {}).items()):
        if "rtt_ms" in link:
            rows.append((f"link {worker}", f"measured RTT {link['rtt_ms']:.1f} ms, "
                                           f"{link['down_mbit']:.3g} Mbit/s down, {link['up_mbit']:.3g} Mbit/s up "
                                           f"(dials {link.get('dial', '?')})"))
    return rows


def timed(cells: pd.DataFrame) -> pd.DataFrame:
    """Cells with at least one timed trial, verified, without a failure."""
    ok = (cells["trials"] > 0) & cells["verified"] & (cells["failure"].fillna("") == "")
    return cells[ok]


def pooled(group: pd.DataFrame, per_record: bool = True) -> dict:
    """Median over the trial figures of every cell of `group` (one language's cells measuring the
    same thing) after the pass adjustment, its 95 % interval (stats.cell_interval), per record or
    per operation."""
    values, adjusted = [], []
    for figures, adj, count in zip(group["trial_ns_per_op"], group["adjusted_ns_per_op"],
                                   group["record_count"]):
        div = count if (per_record and count) else 1
        values.extend(float(f) / div for f in figures)
        adjusted.extend(float(f) / div for f in adj)
    ci = stats.cell_interval(values, adjusted)
    return {"median": ci.median, "lo": ci.lo, "hi": ci.hi, "n": ci.n, "coverage": ci.coverage,
            "ci_pct": ci.half_width_pct, "unsteady": int(group["unsteady"].sum())}


MODE_ORDER = {"typed": 0, "tree": 1, "lazy": 2}


def _mode_key(mode: str) -> tuple:
    return (MODE_ORDER.get(mode, len(MODE_ORDER)), mode)


def _lang_key(lang: str) -> tuple:
    return (LANG_ORDER.index(lang) if lang in LANG_ORDER else len(LANG_ORDER), lang)


def codec_order(codecs: Iterable[str], scenario_codecs: list[str]) -> list[str]:
    codecs = list(dict.fromkeys(codecs))
    known = [c for c in scenario_codecs if c in codecs]
    return known + sorted(c for c in codecs if c not in known)


def codec_color(codec: str, codecs: list[str]) -> str:
    if codec in CODEC_COLORS:
        return CODEC_COLORS[codec]
    others = [c for c in codecs if c not in CODEC_COLORS]
    return EXTRA_COLORS[others.index(codec) % len(EXTRA_COLORS)] if codec in others else "#333333"


# ---- the report ---------------------------------------------------------------------------------

class _Builder:
    def __init__(self, run_dir: Path, out_dir: Path):
        self.run_dir = run_dir
        self.out_dir = out_dir
        self.plot_dir = out_dir / "plots"
        self.doc = results.read_run_doc(run_dir)
        raw = results.read_measurements(run_dir)
        self.langs = language_map(raw, self.doc)
        self.df = with_languages(raw, self.langs)
        self.cells = with_languages(results.cells_frame(raw), self.langs) if not raw.empty \
            else results.cells_frame(raw)
        self.aa = results.aa_groups(self.cells)
        self.noise = stats.noise_floor(self.aa["ratio"] if not self.aa.empty else [])
        self.transfer_noise = results.run_noise_floor(self.cells, "download")
        self.summary = with_languages(results.summary_frame(raw), self.langs) if not raw.empty \
            else results.summary_frame(raw)
        run = self.doc.get("run") or {}
        self.run = run
        self.run_id = run.get("id") or (raw["run_id"].iloc[0] if not raw.empty else run_dir.name)
        scenario = run.get("scenario") or {}
        self.scenario = scenario
        self.codecs = codec_order(self.df["codec"], scenario.get("codecs") or [])
        # This host's run-to-run term, when `codecbench calibrate` measured one for the host this run
        # was on (calibration.py): each figure then also gets its host interval.
        self.calibration, self.calibration_error = None, ""
        try:
            self.calibration = calibration.load(run_dir.parent, calibration.host_key(self.doc))
        except ValueError as exc:
            self.calibration_error = str(exc)
        self.blocks: list = []
        self.plots: list[Path] = []
        self.warnings: list[str] = []
        self.sections: list[str] = []
        self.toc: list[tuple[str, str]] = []

    # -- helpers
    def section(self, title: str, anchor: str) -> None:
        self.sections.append(anchor)
        self.toc.append((title, anchor))
        self.blocks.append(Heading(2, title, anchor))

    def add(self, *blocks) -> None:
        self.blocks.extend(blocks)

    def save(self, fig, name: str, alt: str, caption: str) -> Image:
        self.plot_dir.mkdir(parents=True, exist_ok=True)
        path = self.plot_dir / f"{name}.png"
        fig.savefig(path, dpi=100, bbox_inches=BBOX)
        plt.close(fig)
        self.plots.append(path)
        return Image(path, alt, caption)

    # -- sections
    def build(self) -> None:
        self.overview()
        self.trust()
        self.noise_floor()
        self.duets()
        self.time_spent()
        self.environment()
        self.boundaries()
        self.user_datasets()
        datasets = [d for d in DATASETS if d in set(self.df["dataset"])] + \
            sorted(set(self.df["dataset"]) - set(DATASETS))
        for ds in datasets:
            self.dataset(ds)
        self.failures()
        self.all_results()
        self.method()

    def time_spent(self) -> None:
        """Where the run's wall time went (timing.py): every phase's seconds and share, and the mean
        task's seconds per language."""
        b = self.doc.get("timeBreakdown")
        if not b:
            return
        self.section("Where the time went", "time")
        est = self.doc.get("estimate") or {}
        estimated = est.get("seconds") if est.get("tasks") and not est.get("tasksWithoutHistory") else None
        self.add(Para(f"{timing.sentence(b, estimated).removeprefix('time: ')}. Phases are measured by the workers and "
                      "control for every task (proto/README.md, \"Where the time goes\"); start/exit is a fresh "
                      "trial process's cost beyond what it measured of itself, idle is wall time when no task ran."))
        langs = list(b.get("byLanguage") or {})
        rows = []
        for phase in timing.PHASES:
            row = {"phase": phase, "seconds": f"{b['seconds'][phase]:,.1f}", "share": f"{b['shares'][phase]:.1%}"}
            for lang in langs:
                mean = b["byLanguage"][lang]["meanTaskSeconds"].get(phase)
                row[f"{lang} ms/task"] = "" if mean is None else f"{mean * 1e3:,.0f}"
            rows.append(row)
        self.add(TableBlock(pd.DataFrame(rows)))

    def overview(self) -> None:
        run, sc = self.run, self.scenario
        title = f"codecbench report · run {self.run_id}" + (f" · {run.get('name')}" if run.get("name") else "")
        self.blocks.append(Heading(1, title, "top"))
        if sc.get("description"):
            self.add(Para(sc["description"]))
        self.verdict()
        self.section("Run", "run")
        status = (run.get("status") or "").removeprefix("RUN_STATUS_").lower() or "unknown"
        ops = [o.removeprefix("OPERATION_").lower() for o in sc.get("operations") or []]
        sampling = sc.get("sampling") or {}
        rows = [
            ("run", self.run_id), ("name", run.get("name", "")), ("status", status),
            ("started", run.get("createdAt", "")), ("finished", run.get("finishedAt", "")),
            ("tasks", f"{run.get('tasksTotal', 0)} total, {run.get('tasksDone', 0)} done, "
                      f"{run.get('tasksFailed', 0)} failed" if run else ""),
            ("scenario file", self.doc.get("scenarioFile", "")),
            ("datasets", ", ".join(sc.get("datasets") or sorted(set(self.df["dataset"])))),
            ("codecs", ", ".join(sc.get("codecs") or self.codecs)),
            ("decode modes", ", ".join(sc.get("decodeModes") or []) or "every mode the consumer announces"),
            ("record counts", ", ".join(f"{int(c):,}" for c in sc.get("counts") or sorted(set(self.df["record_count"])))),
            ("producers", ", ".join(sc.get("producers") or []) or "every attached worker"),
            ("consumers", ", ".join(sc.get("consumers") or []) or "every attached worker"),
            ("operations", ", ".join(ops) or "encode, decode, transfer"),
            ("sampling", ", ".join(f"{k} {v}" for k, v in sampling.items()) or "control's defaults"),
            ("trial order seed", str(sampling.get("orderSeed", "")) or "not recorded (a run from before trials)"),
            ("figures", stats.METHOD),
            ("noise floor", self.noise.sentence().removeprefix("noise floor: ")),
            ("host run-to-run term", self.calibration.sentence().split(": ", 1)[1] if self.calibration is not None
             else self.calibration_error or "not measured on this host (`codecbench calibrate`)"),
            ("transfer noise floor", self.transfer_noise.sentence(transfer=True).removeprefix("transfer noise floor: ")),
            ("seed", str(sc.get("seed", "1"))),
        ]
        if int(run.get("controlRssStartBytes") or 0):
            rows.append(("control memory", results.control_memory(
                int(run["controlRssStartBytes"]), int(run.get("controlPeakRssBytes") or 0), self.df)))
        if run.get("message"):
            rows.append(("message", run["message"]))
        rows += network_rows(self.doc.get("network") or {})
        h = self.doc.get("harness") or {}
        if h:
            pk = ", ".join(f"{k} {v}" for k, v in (h.get("packages") or {}).items() if v)
            rows.append(("harness", f"python {h.get('python', '')} on {h.get('hostname', '')} "
                                    f"({h.get('platform', '')}); {pk}"))
            if h.get("control"):
                rows.append(("control", h["control"]))
            mem = h.get("hostMemory") or {}
            said = [f"{label}: {mem[key]}" for key, label in (("transparentHugepages", "transparent huge pages"),
                                                               ("damon", "DAMON reclaims")) if key in mem]
            if said:
                rows.append(("host memory", "; ".join(said)))
        rows.append(("report written", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")))
        self.add(TableBlock(pd.DataFrame([r for r in rows if r[1]], columns=["", "value"]), cls="kv"))

    def verdict(self) -> None:
        """The answer first: the verdict sentences, then one leaderboard per dataset × count
        (leaderboard.py: each language's own round trip, % of best within a column, ties by the
        intervals and the noise floor)."""
        from . import leaderboard

        boards, floors = leaderboard.for_run(self.summary, self.cells, self.langs, self.codecs,
                                             duets.from_results(self.run_dir))
        if not boards:
            return
        self.section("Verdict", "verdict")
        self.add(Bullets([v for b in boards if (v := leaderboard.verdict(b))]))
        groups: dict[tuple, list] = {}
        for b in boards:
            groups.setdefault((b.dataset, b.record_count), []).append(b)
        for (ds, n), bs in groups.items():
            columns = [c for c in leaderboard.COLUMNS if any(c in b.columns for b in bs)]
            rows, classes = [], []
            for b in bs:
                for codec in b.codecs:
                    entries = [b.columns.get(c, {}).get(codec) for c in columns]
                    if all(e is None for e in entries):
                        continue
                    row = [b.language, codec] + [leaderboard.cell_text(c, e) if e is not None else "—"
                                                 for c, e in zip(columns, entries)]
                    cls = ["", ""] + ["best" if e is not None and e.best and not e.tie else "" for e in entries]
                    rows.append(row)
                    classes.append(cls)
            names = ["language", "codec"] + [c if c in leaderboard.SIZE_COLUMNS else f"{c} /rec" for c in columns]
            self.add(TableBlock(pd.DataFrame(rows, columns=names),
                                caption=f"{ds} × {n:,} records: each language's own round trip (its "
                                        "own payload where it produced one), per record",
                                classes=pd.DataFrame(classes, columns=names), left=2))
        each = ", ".join(f"{lang} ≤ {nf.worst_pct:.1f} %" for lang, nf in sorted(floors.items()))
        self.add(Para("★ best beyond the intervals and its language's noise floor"
                      + (f" ({each}: identical work measured by that language's workers)" if each else "")
                      + "; = not told apart from the best (the intervals overlap or the ratio is within that floor; end to "
                      "end also within the transfer floor); % of the best in its column only: "
                      "languages, operations and decode modes are never pooled. The full tables follow, "
                      "by dataset.", cls="note"))

    def worker_envs(self) -> dict[str, dict]:
        envs: dict[str, dict] = {}
        for wid, env in (self.doc.get("workers") or {}).items():
            envs[wid] = {"language": env.get("language", ""), "runtime": env.get("runtime", ""),
                         "runtimeVersion": env.get("runtimeVersion", ""),
                         "buildProfile": env.get("buildProfile", ""), "cpuModel": env.get("cpuModel", ""),
                         "cores": env.get("cores", ""), "os": env.get("os", ""),
                         "hostname": env.get("hostname", ""), "details": env.get("details") or {}}
        for _, r in self.df.drop_duplicates("worker_id").iterrows():
            wid = r["worker_id"]
            if not wid or wid in envs or not (r["language"] or r["runtime"]):
                continue
            try:
                details = json.loads(r["environment_details"] or "{}")
            except ValueError:
                details = {}
            envs[wid] = {"language": r["language"], "runtime": r["runtime"],
                         "runtimeVersion": r["runtime_version"], "buildProfile": r["build_profile"],
                         "cpuModel": r["cpu_model"], "cores": r["cores"], "os": r["os"],
                         "hostname": r["hostname"], "details": details}
        return dict(sorted(envs.items(), key=lambda kv: (_lang_key(kv[1]["language"]), kv[0])))

    def trust(self) -> None:
        warnings: list[str] = []
        for wid, env in self.worker_envs().items():
            d = env["details"]
            profile = str(env["buildProfile"]).lower()
            if profile in ("debug", "dev") or str(d.get("debug_assertions", "")).lower() == "true":
                warnings.append(f"{wid}: a debug build (build profile {env['buildProfile'] or '?'}, "
                                f"debug_assertions {d.get('debug_assertions', '?')}): its times are not "
                                "representative of production code.")
            if env["language"] == "browser":
                coi = str(d.get("crossOriginIsolated", "")).lower()
                if coi != "true":
                    res = d.get("timerResolutionUs")
                    warnings.append(f"{wid}: the page is not cross-origin isolated (crossOriginIsolated "
                                    f"{d.get('crossOriginIsolated', 'unknown')}): performance.now() is "
                                    f"coarsened (timer resolution {res or '?'} µs instead of 5 µs).")
        t = self.cells[self.cells["trials"] > 0]
        unsteady = t[t["unsteady"] > 0]
        if not unsteady.empty:
            n = int(unsteady["unsteady"].sum())
            by_lang = unsteady.groupby("language")["unsteady"].sum()
            langs = ", ".join(f"{lang} {int(k)}" for lang, k in by_lang.items())
            warnings.append(f"{n} trial(s) in {len(unsteady)} cell(s) never reached a steady state before "
                            f"sampling.maxWarmupMs (JIT still compiling, or recent rounds still drifting; "
                            f"by language: {langs}): they are measured and marked \"~\" in the tables.")
        wide = t[t["ci_pct"] > WIDE_CI * 100]
        if not wide.empty:
            worst = wide.sort_values("ci_pct", ascending=False).head(5)
            ex = "; ".join(f"{r.operation} {r.dataset}×{r.record_count} {r.codec}"
                           f"{'/' + r.decode_mode if r.decode_mode else ''} on {r.worker_id} "
                           f"±{r.ci_pct:.0f}%" for r in worst.itertuples())
            warnings.append(f"{len(wide)} of {len(t)} timed cells have a 95 % interval wider than "
                            f"±{WIDE_CI:.0%} of their median (where an identical rerun's median would land; "
                            f"threshold {WIDE_CI:.0%}); they are marked \"!\" in the tables. Widest: {ex}. "
                            "More trials (sampling.trials, maxTrials) or a quieter machine help.")
        few = t[t["trials"] < MIN_TRIALS]
        if not few.empty:
            cov = stats.ci_ranks(int(few["trials"].min()))[2]
            warnings.append(f"{len(few)} cell(s) have fewer than {MIN_TRIALS} trials (as few as "
                            f"{int(few['trials'].min())}, whose min..max interval holds an identical rerun's "
                            f"median only {cov:.1%} of the time): use sampling.trials ≥ {MIN_TRIALS}.")
        if self.noise.groups and self.noise.worst > 1 + WIDE_CI:
            warnings.append(f"the {self.noise.sentence()}: differences smaller than that are ties "
                            "in every table of this report (see Noise floor).")
        unverified = t[~t["verified"]]
        if not unverified.empty:
            warnings.append(f"{len(unverified)} timed cell(s) were not verified against the "
                            "canonical records.")
        failed = self.failure_rows()
        if not failed.empty:
            warnings.append(f"{failed['task_id'].nunique()} task(s) failed or were not verified: "
                            "their cells are missing from the plots; see Failures.")
        status = (self.run.get("status") or "").removeprefix("RUN_STATUS_").lower()
        if status and status != "finished":
            warnings.append(f"the run did not finish (status {status}"
                            + (f": {self.run.get('message')}" if self.run.get("message") else "") + ").")
        on_host = [e for e in self.worker_envs().values() if e["hostname"]]
        hosts = {e["hostname"] for e in on_host}
        cores = [int(e["cores"]) for e in on_host if e["cores"]]
        if len(on_host) > 1 and len(hosts) == 1 and cores and min(cores) <= 2:
            warnings.append(f"{len(on_host)} workers shared one host ({on_host[0]['hostname']}) with {min(cores)} "
                            "cores: control runs one task at a time, but background work (JIT, GC, "
                            "the browser) competes with the measured worker.")
        self.warnings = warnings
        self.section("Can these numbers be trusted?", "warnings")
        if warnings:
            self.add(Bullets(warnings, "warn"))
        else:
            self.add(Para("No warnings: release builds, isolated pages, every interval within "
                          f"±{WIDE_CI:.0%}, at least {MIN_TRIALS} trials per cell, every trial steady, "
                          "no failures.", "ok"))

    def noise_floor(self) -> None:
        self.section("Noise floor: identical work measured twice", "noise")
        self.add(Para(f"{self.noise.sentence()[0].upper()}{self.noise.sentence()[1:]}. An A/A group is a "
                      "set of decode cells doing byte-identical work: one consumer decoding the same "
                      "payload (same SHA-256 blob) in the same mode, produced by different workers, plus "
                      "each deliberate A/A twin (sampling.aaCells) with its original. Two figures of this "
                      "run differ only when their 95 % intervals do not overlap and their ratio exceeds "
                      "the noise floor; otherwise they are a tie."))
        self.add(Para(f"{self.transfer_noise.sentence(transfer=True)[0].upper()}"
                      f"{self.transfer_noise.sentence(transfer=True)[1:]}. Its A/A groups are download cells "
                      "of one consumer fetching the same blob for several producers' cells: loopback "
                      "gRPC transfers are noisier than decodes, so `compare` holds upload and download "
                      "to this floor instead of the decode one."))
        if self.aa.empty:
            return
        rows = []
        for r in self.aa.sort_values("ratio", ascending=False).itertuples():
            meds = "; ".join(f"{p} {fmt_num(m / r.record_count)}" for p, m in zip(r.producers, r.medians))
            rows.append([r.consumer, r.dataset, f"{int(r.record_count):,}", r.codec, r.decode_mode,
                         meds, f"{(r.ratio - 1) * 100:.1f} %"])
        cols = ["consumer", "dataset", "records", "codec", "mode", "decode ns/rec by producer (same bytes)",
                "max/min − 1"]
        self.add(Details(f"Every A/A group ({len(rows)}), worst first",
                         [TableBlock(pd.DataFrame(rows, columns=cols), left=6)]))

    def duets(self) -> None:
        """Duet ratios (duets.py) beside the same ratio from separately measured cells."""
        found = duets.from_results(self.run_dir)
        if not found:
            return
        self.section("Duets: two codecs measured at the same moment", "duets")
        lines = duets.table(found)
        self.add(Para("Each duet ran trial k of two cells at the same moment, one on each of two workers "
                      "of a language, each in its own lane, so both saw the same interference; its ratio "
                      "(right / left) is judged trial by trial (paired). Beside it: the same trials with "
                      "their pairing ignored, and the run's ordinary cells, measured alone, by the rule the "
                      "verdict uses. Narrower is better; an A/A duet (a codec against itself) should hold 1. "
                      + lines[-1] + "."))
        rows = []
        for d in found:
            rows.append([d.language, d.operation + (f" ({d.decode_mode})" if d.decode_mode else ""),
                         f"{d.dataset} × {d.record_count:,}", f"{d.right} / {d.left}" + (" (A/A)" if d.aa else ""),
                         str(d.pairs), duets.fmt(d.paired), duets.fmt(d.unpaired), duets.fmt(d.separate)])
        cols = ["language", "operation", "data", "ratio", "pairs", "paired", "same trials, unpaired", "separate cells"]
        self.add(TableBlock(pd.DataFrame(rows, columns=cols), left=4))

    def boundaries(self) -> None:
        """Codec × language: what each timed region contains, as the workers declared it
        (CodecInfo.timed_regions of the workers attached when the run started)."""
        self.section("Timed regions: what each codec's clock reads include", "boundaries")
        infos = self.doc.get("workerInfo") or []
        regions: dict[tuple[str, str], dict[str, str]] = {}
        for w in infos:
            lang = (w.get("environment") or {}).get("language") or lang_of(w.get("id", ""), self.langs)
            for c in w.get("codecs") or []:
                if c.get("id") not in self.codecs:
                    continue
                for tr in c.get("timedRegions") or []:
                    text = ", ".join(tr.get("contains") or []) or "(nothing declared)"
                    if tr.get("note"):
                        text += f" — {tr['note']}"
                    regions.setdefault((c["id"], tr.get("operation", "")), {})[lang] = text
        if not regions:
            self.add(Para("Not recorded: this run's results hold no workers' codec declarations "
                          "(run.json has no workerInfo; runs from before the declared boundary, or "
                          "fetched from a control that did not return them).", "warn"))
            return
        langs = sorted({lang for v in regions.values() for lang in v}, key=_lang_key)
        op_order = {"encode": 0, "typed": 1, "tree": 2, "lazy": 3}
        rows = []
        for (codec, op) in sorted(regions, key=lambda k: (self.codecs.index(k[0]) if k[0] in self.codecs
                                                          else 99, op_order.get(k[1], 9), k[1])):
            what = "encode" if op == "encode" else f"decode {op}"
            rows.append([codec, what] + [regions[(codec, op)].get(lang, "—") for lang in langs])
        self.add(TableBlock(pd.DataFrame(rows, columns=["codec", "timed region"] + langs), left=2 + len(langs),
                            caption="As each worker declared it (CodecInfo.timed_regions): serialize/parse = "
                                    "the library's format work; utf8 = UTF-8 text coding; model-conversion = "
                                    "between the library's message/document type and the application's "
                                    "objects; validation = checks beyond parsing; copy = a copy of the whole "
                                    "payload; field-lookup = finding the named fields (lazy)."))
        lazy = dict(LAZY_FIELDS, **{u["id"]: tuple(u.get("lazyFields") or ()) for u in self.scenario.get("userDatasets") or []})
        used = [ds for ds in [*DATASETS, *sorted(set(lazy) - set(DATASETS))] if ds in set(self.df["dataset"])]
        if "lazy" in set(self.df["decode_mode"]):
            self.add(Para("Lazy decode reads, from every record, one field near its start and one at its "
                          "end, the same in every language: " + "; ".join(
                              f"{ds}: {', '.join(lazy[ds])}" for ds in used if lazy.get(ds)) + "."))

    def user_datasets(self) -> None:
        """Where a user's datasets came from, and every cell the plan refused (Run.refusals)."""
        users = self.scenario.get("userDatasets") or []
        refused = self.run.get("refusals") or []
        if not users and not refused:
            return
        self.section("Datasets of your own, and refused cells", "user-datasets")
        if users:
            counts = [int(c) for c in self.scenario.get("counts") or []]
            rows = []
            for u in users:
                n = int(u.get("recordCount") or 0)
                cycled = [c for c in counts if c > n]
                rows.append([u["id"], u.get("message", ""), u.get("proto", ""), u.get("records", ""), f"{n:,}",
                             "the .proto's" if u.get("fieldNames") == "proto" else "json_name",
                             ", ".join(f"{c:,}" for c in cycled) or "none", u.get("fingerprint", "")])
            self.add(TableBlock(pd.DataFrame(rows, columns=["dataset", "message", "schema", "records", "in file",
                                                            "field names", "counts that cycle", "fingerprint"]),
                                left=8, caption="A count larger than its file cycles through the file's records."))
        if refused:
            self.add(TableBlock(pd.DataFrame([[d, c, m or "every mode", ", ".join(who), why]
                                              for d, c, m, why, who in userrun.refusal_groups(refused)],
                                             columns=["dataset", "codec", "mode", "refused by", "why"]), left=5,
                                caption="Cells the plan left out because a worker cannot carry a feature of the "
                                        "schema: never dropped silently, never measured."))

    def environment(self) -> None:
        self.section("Environment of every worker", "environment")
        rows = []
        for wid, env in self.worker_envs().items():
            details = "\n".join(f"{k} = {v}" for k, v in sorted(env["details"].items()))
            rows.append([wid, env["language"], f"{env['runtime']} {env['runtimeVersion']}".strip(),
                         env["buildProfile"], env["cpuModel"], str(env["cores"] or ""), env["os"],
                         env["hostname"], details])
        if not rows:
            self.add(Para("No worker reported an environment."))
            return
        self.add(TableBlock(pd.DataFrame(rows, columns=["worker", "language", "runtime", "build profile",
                                                        "CPU", "cores", "OS", "host",
                                                        "details (flags, GC, user agent, libraries…)"]),
                            caption="As each worker announced it (DESIGN.md rule 7).", cls="kv", left=9))

    # -- per dataset
    def dataset(self, ds: str) -> None:
        self.section(f"Dataset {ds}", f"dataset-{ds}")
        d = self.df[self.df["dataset"] == ds]
        s = self.summary[self.summary["dataset"] == ds]
        counts = sorted(set(int(c) for c in d["record_count"]))
        self.add(Para(f"Record counts: {', '.join(f'{c:,}' for c in counts)}. Codecs: "
                      f"{', '.join(codec_order(d['codec'], self.codecs))}."))
        c = self.cells[self.cells["dataset"] == ds]
        self.size(ds, d, s)
        self.timing(ds, c, "encode")
        self.timing(ds, c, "decode")
        self.matrix(ds, s)
        self.end_to_end(ds, s)
        self.transfer(ds, d)
        self.compression(ds, c)
        self.memory(ds, c)

    def size(self, ds: str, d: pd.DataFrame, s: pd.DataFrame) -> None:
        enc = d[(d["operation"] == "encode") & (d["payload_bytes"] > 0) & (d["failure"] == "")]
        if enc.empty:
            enc = s[s["payload_bytes"] > 0].rename(columns={"producer_language": "language"})
        if enc.empty:
            return
        self.add(Heading(3, f"{ds}: payload size", f"{ds}-size"))
        enc = enc.assign(bpr=enc["payload_bytes"] / enc["record_count"])
        g = enc.groupby(["codec", "language", "record_count"])["bpr"].median().reset_index()
        g["row"] = list(zip(g["codec"], g["language"]))
        piv = g.pivot_table(index="row", columns="record_count", values="bpr", aggfunc="median")
        piv = piv.reindex(sorted(piv.index, key=lambda k: (self.codecs.index(k[0]) if k[0] in self.codecs
                                                            else 99, _lang_key(k[1]))))
        self.add(self.pivot_table(piv, ["codec", "producer"], fmt_bytes, "bytes per record",
                                  caption="Payload bytes per record (payload size / record count), by producer "
                                          "(exact: no interval)."))
        self.add(self.relative_table(piv, ["codec", "producer"], "smallest"))
        top = max(g["record_count"])
        at = g[g["record_count"] == top]
        langs = sorted(set(at["language"]), key=_lang_key)
        codecs = codec_order(at["codec"], self.codecs)
        fig, ax = plt.subplots(figsize=(max(5.5, 1.2 * len(codecs) * max(1, len(langs)) ** 0.5 + 2), 3.6))
        width = 0.8 / max(1, len(langs))
        x = np.arange(len(codecs))
        for i, lang in enumerate(langs):
            vals = [at[(at["codec"] == c) & (at["language"] == lang)]["bpr"].median() for c in codecs]
            bars = ax.bar(x + (i - (len(langs) - 1) / 2) * width, vals, width,
                          label=f"produced by {lang}", color=[codec_color(c, self.codecs) for c in codecs],
                          alpha=1.0 - 0.25 * i, edgecolor="black", linewidth=0.5,
                          hatch=["", "//", ".."][i % 3])
            ax.bar_label(bars, labels=[fmt_bytes(v) if not _nan(v) else "" for v in vals], fontsize=7,
                         padding=2)
        ax.set_xticks(x, codecs)
        ax.set_xlabel("codec")
        ax.set_ylabel("payload size per record (bytes)")
        ax.set_title(f"{ds}: payload size per record at {top:,} records")
        ax.margins(y=0.15)
        if len(langs) > 1:
            # Bars are coloured by codec; the legend says which hatch is which producer.
            handles = [Patch(facecolor="white", edgecolor="black", hatch=["", "//", ".."][i % 3],
                             label=f"produced by {lang}") for i, lang in enumerate(langs)]
            ax.legend(handles=handles, fontsize=8, ncol=len(langs), loc="upper center",
                      bbox_to_anchor=(0.5, -0.2))
        ax.grid(axis="y", alpha=0.3)
        self.add(self.save(fig, f"{ds}-size", f"{ds} payload size per record",
                           f"Bytes per record at {top:,} records, per codec and producer language "
                           "(smaller is better)."))
        self.compressed_size(ds, enc, top)

    def compressed_size(self, ds: str, enc: pd.DataFrame, top: int) -> None:
        """Raw, gzip (level 6) and zstd (level 3) bytes per record of each payload at the largest
        count: what a link with compression turned on carries."""
        if "gzip_bytes" not in enc or enc["gzip_bytes"].isna().all():
            return
        at = enc[(enc["record_count"] == top) & enc["gzip_bytes"].notna()]
        g = at.groupby(["codec", "language"]).agg(raw=("payload_bytes", "median"), gzip=("gzip_bytes", "median"),
                                                   zstd=("zstd_bytes", "median")).reset_index()
        for col in ("raw", "gzip", "zstd"):
            g[col] = g[col] / top
        g = g.sort_values(["codec", "language"], key=lambda c: c.map(
            lambda v: self.codecs.index(v) if v in self.codecs else 99) if c.name == "codec" else c.map(_lang_key))
        self.add(Heading(3, f"{ds}: compressed size", f"{ds}-size-compressed"))
        table = pd.DataFrame({
            "codec": g["codec"], "producer": g["language"], "bytes/rec": g["raw"].map(fmt_bytes),
            "gzip/rec": g["gzip"].map(fmt_bytes), "gzip % of raw": (g["gzip"] / g["raw"] * 100).map(lambda v: f"{v:.0f} %"),
            "zstd/rec": g["zstd"].map(fmt_bytes), "zstd % of raw": (g["zstd"] / g["raw"] * 100).map(lambda v: f"{v:.0f} %")})
        self.add(TableBlock(table, caption=f"Each payload at {top:,} records compressed whole by control, gzip "
                                           "level 6 (flate2) and zstd level 3 (zstd), per record (exact)."))
        # One bar group per codec: its first producer's payload (rust, java, browser order).
        first = g.groupby("codec", sort=False).head(1)
        codecs = list(first["codec"])
        fig, ax = plt.subplots(figsize=(max(5.5, 1.3 * len(codecs) + 2), 3.6))
        x = np.arange(len(codecs))
        width = 0.27
        for i, (col, label, hatch) in enumerate((("raw", "raw", ""), ("gzip", "gzip -6", "//"), ("zstd", "zstd -3", ".."))):
            vals = list(first[col])
            bars = ax.bar(x + (i - 1) * width, vals, width, label=label, hatch=hatch, edgecolor="black", linewidth=0.5,
                          color=[codec_color(c, self.codecs) for c in codecs], alpha=1.0 - 0.25 * i)
            ax.bar_label(bars, labels=[fmt_bytes(v) for v in vals], fontsize=6, padding=2)
        ax.set_xticks(x, [f"{c}\n({lang})" for c, lang in zip(codecs, first["language"])])
        ax.set_xlabel("codec (producer)")
        ax.set_ylabel("bytes per record")
        ax.set_title(f"{ds}: raw and compressed size per record at {top:,} records")
        ax.margins(y=0.15)
        ax.legend(handles=[Patch(facecolor="white", edgecolor="black", hatch=h, label=l)
                           for l, h in (("raw", ""), ("gzip -6", "//"), ("zstd -3", ".."))], fontsize=8, ncol=3,
                  loc="upper center", bbox_to_anchor=(0.5, -0.22))
        ax.grid(axis="y", alpha=0.3)
        self.add(self.save(fig, f"{ds}-size-compressed", f"{ds} compressed size per record",
                           f"Bytes per record at {top:,} records: raw, gzip level 6 and zstd level 3, each codec's "
                           "payload from the first producer listed in the table (smaller is better)."))

    def series(self, frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
        rows = []
        for k, g in frame.groupby(keys + ["record_count"], sort=False):
            rows.append({**dict(zip(keys + ["record_count"], k)), **pooled(g)})
        return pd.DataFrame(rows)

    def timing(self, ds: str, d: pd.DataFrame, op: str) -> None:
        t = timed(d[d["operation"] == op])
        if t.empty:
            return
        if op == "decode":
            # Payloads written by the consumer's own language where there are any.
            same = t[t["producer_language"] == t["consumer_language"]]
            pairs_same = set(zip(same["codec"], same["decode_mode"], same["language"]))
            t = t[[((c, m, l) not in pairs_same) or (pl == l) for c, m, l, pl in
                   zip(t["codec"], t["decode_mode"], t["language"], t["producer_language"])]]
            keys = ["codec", "decode_mode", "language"]
        elif (t["decode_mode"] != "").any():
            # Streaming encode cells beside the in-memory ones ("" mode).
            keys = ["codec", "decode_mode", "language"]
        else:
            keys = ["codec", "language"]
        ser = self.series(t, keys)
        self.add(Heading(3, f"{ds}: {op} time per record", f"{ds}-{op}"))
        ser["row"] = [tuple(r[k] for k in keys) for _, r in ser.iterrows()]
        piv = ser.pivot_table(index="row", columns="record_count", values="median", aggfunc="median")
        piv = piv.reindex(sorted(piv.index, key=lambda k: (self.codecs.index(k[0]) if k[0] in self.codecs
                                                            else 99, *([_mode_key(k[1])] if len(k) > 2 else []),
                                                            _lang_key(k[-1]))))
        ivs = {(r["row"], r["record_count"]): stats.Interval(r["median"], r["lo"], r["hi"], int(r["n"]),
                                                             r["coverage"]) for _, r in ser.iterrows()}
        unsteady = {(r["row"], r["record_count"]): int(r["unsteady"]) for _, r in ser.iterrows()}
        names = ["codec", "mode", "language"] if len(keys) == 3 else ["codec", "language"]
        terms = {k: self.calibration.term(k[0][-1], op) for k in ivs} if self.calibration is not None else {}
        hosted = {k: calibration.widen(ivs[k], t) for k, t in terms.items() if t is not None}
        host_note = (" With \"host\", the half-width of the host interval: a rerun on this host, its "
                     "measured run-to-run term included." if hosted else "")
        self.add(self.pivot_table(piv, names, fmt_num, "ns per record", intervals=ivs, unsteady=unsteady,
                                  host_intervals=hosted,
                                  caption=f"Median {op} time per record (ns) over trials, ± half-width of its "
                                          f"95 % interval, (n) trials; \"!\" marks an interval wider than "
                                          f"±{WIDE_CI:.0%}, \"~k\" k unsteady trials.{host_note}"))
        self.add(self.relative_table(piv, names, "fastest", intervals=ivs))
        # Plot: one panel per language.
        langs = sorted(set(ser["language"]), key=_lang_key)
        fig, axes = plt.subplots(1, len(langs), figsize=(4.6 * len(langs) + 1, 3.8), squeeze=False,
                                 sharey=True)
        counts = sorted(set(ser["record_count"]))
        log_x = len(counts) > 1 and max(counts) / min(counts) >= 10
        vals = ser["median"].dropna()
        log_y = not vals.empty and vals.max() / max(vals.min(), 1e-9) >= 10
        if len(counts) == 1:
            # One record count: bars (a line over one x value would be dots on a fake axis).
            self._timing_bars(ds, op, ser, keys, langs, axes, counts[0], log_y)
            return
        for ax, lang in zip(axes[0], langs):
            sub = ser[ser["language"] == lang]
            for k, g in sub.groupby([k for k in keys if k != "language"], sort=False):
                k = k if isinstance(k, tuple) else (k,)
                codec, mode = k[0], (k[1] if len(k) > 1 else "")
                g = g.sort_values("record_count")
                yerr = [g["median"] - g["lo"], g["hi"] - g["median"]]
                ax.errorbar(g["record_count"], g["median"], yerr=yerr, capsize=3,
                            color=codec_color(codec, self.codecs), linestyle=MODE_STYLES.get(mode, ":"),
                            marker=LANG_MARKERS.get(lang, "D"), markersize=4, linewidth=1.4,
                            label=f"{codec} {mode}".strip())
            ax.set_title(f"{lang}")
            ax.set_xlabel("records per payload")
            if log_x:
                ax.set_xscale("log")
            if log_y:
                ax.set_yscale("log")
            ax.grid(True, which="major", alpha=0.3)
            ax.legend(fontsize=7)
        axes[0][0].set_ylabel(f"{op} time per record (ns)")
        fig.suptitle(f"{ds}: {op} time per record by record count "
                     f"({'log–log' if log_x and log_y else 'log y' if log_y else 'log x' if log_x else 'linear'}; "
                     "bars: 95 % rerun interval of the median over trials)", fontsize=10)
        fig.subplots_adjust(wspace=0.06, top=0.84)
        what = ("per consumer language and decode mode (solid typed, dash-dot tree, dashed lazy); payloads from the "
                "consumer's own language where available") if op == "decode" else "per producer language"
        self.add(self.save(fig, f"{ds}-{op}", f"{ds} {op} time per record",
                           f"Median {op} ns per record across record counts, {what}. Lower is better."))

    def _timing_bars(self, ds: str, op: str, ser: pd.DataFrame, keys: list[str], langs: list[str], axes,
                     count: int, log_y: bool) -> None:
        fig = axes[0][0].figure
        for ax, lang in zip(axes[0], langs):
            sub = ser[ser["language"] == lang]
            # The scenario's codec order in every panel, typed before tree before lazy.
            sub = sub.assign(_o=[(self.codecs.index(c) if c in self.codecs else 99, _mode_key(m))
                                 for c, m in zip(sub["codec"], sub["decode_mode"] if "decode_mode" in sub else [""] * len(sub))]
                             ).sort_values("_o")
            labels = []
            for i, (k, g) in enumerate(sub.groupby([k for k in keys if k != "language"], sort=False)):
                k = k if isinstance(k, tuple) else (k,)
                codec, mode = k[0], (k[1] if len(k) > 1 else "")
                r = g.iloc[0]
                ax.bar(i, r["median"], 0.7, yerr=[[r["median"] - r["lo"]], [r["hi"] - r["median"]]], capsize=3,
                       color=codec_color(codec, self.codecs), edgecolor="black", linewidth=0.5,
                       hatch={"tree": "//", "lazy": ".."}.get(mode, ""))
                labels.append(f"{codec} {mode}".strip())
            ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
            ax.set_title(lang)
            if log_y:
                ax.set_yscale("log")
            ax.grid(axis="y", which="major", alpha=0.3)
        axes[0][0].set_ylabel(f"{op} time per record (ns)")
        fig.suptitle(f"{ds}: {op} time per record at {count:,} records ({'log y' if log_y else 'linear y'}; "
                     "bar: median over trials, whisker: its 95 % rerun interval)", fontsize=10)
        fig.subplots_adjust(wspace=0.06, top=0.84, bottom=0.25)
        what = ("per consumer language and decode mode (plain typed, hatched // tree, .. lazy); payloads from "
                "the consumer's own language where available") if op == "decode" else "per producer language"
        self.add(self.save(fig, f"{ds}-{op}", f"{ds} {op} time per record",
                           f"Median {op} ns per record at {count:,} records, {what}; languages are separate "
                           "panels, never pooled. Lower is better."))

    def matrix(self, ds: str, s: pd.DataFrame) -> None:
        dec = s[(s["consumer"] != "") & ~s["aa_twin"].astype(bool)]
        if dec.empty:
            return
        self.add(Heading(3, f"{ds}: producer × consumer (decode time per record, verified?)",
                         f"{ds}-matrix"))
        consumers = sorted(set(dec["consumer"]), key=lambda w: (_lang_key(lang_of(w, self.langs)), w))
        rows, classes = [], []
        dec = dec.assign(_c=dec["codec"].map(lambda c: self.codecs.index(c) if c in self.codecs else 99),
                         _m=dec["mode"].map(lambda m: (m != "typed", m)),
                         _p=dec["producer"].map(lambda w: (_lang_key(lang_of(w, self.langs)), w)))
        for (_, codec, _, mode, count, _, producer), g in dec.sort_values(["_c", "_m", "record_count", "_p"]).groupby(
                ["_c", "codec", "_m", "mode", "record_count", "_p", "producer"], sort=False):
            row = [codec, mode or "—", f"{int(count):,}", producer]
            cls = ["", "", "", ""]
            for c in consumers:
                cell = g[g["consumer"] == c]
                if cell.empty:
                    row.append("")
                    cls.append("")
                    continue
                r = cell.iloc[0]
                if r["verified"]:
                    same = " ≡" if r["same_bytes_as"] else ""
                    steady = f" ~{int(r['decode_unsteady'])}" if r["decode_unsteady"] else ""
                    row.append(f"{fmt_num(r['decode_ns_per_record'])}{fmt_ci(r['decode_ci_pct'])}"
                               f" ({int(r['decode_trials'])}){steady} ✓{same}")
                    cls.append("wide" if (r["decode_ci_pct"] or 0) > WIDE_CI * 100 else "ok")
                else:
                    row.append(f"✗ {_short(r['failure'] or 'not verified', 45)}")
                    cls.append("fail")
            rows.append(row)
            classes.append(cls)
        cols = ["codec", "mode", "records", "producer ↓ / consumer →"] + consumers
        self.add(TableBlock(pd.DataFrame(rows, columns=cols),
                            caption="Decode ns per record in each producer → consumer cell (median over "
                                    "trials ± its 95 % interval, (n) trials, ~k unsteady); ✓ verified against "
                                    "the canonical records, ✗ failed (full messages under Failures); ≡ the "
                                    "payload is byte-identical to other producers' (same bytes, same work: "
                                    "a row's differences across ≡ producers are noise, see Noise floor).",
                            classes=pd.DataFrame(classes, columns=cols), left=4))
        # Heatmap at the largest count.
        top = int(dec["record_count"].max())
        at = dec[dec["record_count"] == top]
        panels = [(c, m) for c in codec_order(at["codec"], self.codecs)
                  for m in sorted(set(at[at["codec"] == c]["mode"]), key=lambda m: (m != "typed", m))]
        producers = sorted(set(at["producer"]), key=lambda w: (_lang_key(lang_of(w, self.langs)), w))
        cons = sorted(set(at["consumer"]), key=lambda w: (_lang_key(lang_of(w, self.langs)), w))
        ncols = min(len(panels), 3)
        nrows = math.ceil(len(panels) / ncols)
        cell = 0.75
        fig, axes = plt.subplots(nrows, ncols, squeeze=False,
                                 figsize=(ncols * max(3.2, cell * len(cons) + 1.6),
                                          nrows * max(2.6, cell * len(producers) + 1.3)))
        ok_vals = at[at["verified"]]["decode_ns_per_record"].dropna()
        ok_vals = ok_vals[ok_vals > 0]
        norm = LogNorm(vmin=ok_vals.min(), vmax=max(ok_vals.max(), ok_vals.min() * 1.01)) \
            if not ok_vals.empty else None
        image = None
        for ax, (codec, mode) in zip(axes.flat, panels):
            grid = np.full((len(producers), len(cons)), np.nan)
            sub = at[(at["codec"] == codec) & (at["mode"] == mode)]
            for r in sub.itertuples():
                i, j = producers.index(r.producer), cons.index(r.consumer)
                if r.verified and not _nan(r.decode_ns_per_record):
                    grid[i, j] = r.decode_ns_per_record
                    dark = norm is not None and norm(r.decode_ns_per_record) > 0.6
                    ax.text(j, i, fmt_num(r.decode_ns_per_record) + "\n✓", ha="center", va="center",
                            fontsize=7, color="white" if dark else "black")
                else:
                    ax.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, color="#f4c7c3", hatch="xx",
                                               fill=True, ec="#c0392b"))
                    ax.text(j, i, "✗", ha="center", va="center", fontsize=11, color="#c0392b")
            image = ax.imshow(grid, cmap="YlGnBu", norm=norm, aspect="auto")
            ax.set_facecolor("#eeeeee")  # a pair with no task (the producer lacks the codec)
            ax.set_xticks(range(len(cons)), cons, rotation=30, ha="right", fontsize=7)
            first_col = list(axes.flat).index(ax) % ncols == 0
            ax.set_yticks(range(len(producers)), producers if first_col else [], fontsize=7)
            ax.set_xlabel("consumer", fontsize=8)
            if first_col:
                ax.set_ylabel("producer", fontsize=8)
            ax.set_title(f"{codec} {mode}".strip(), fontsize=9)
        for ax in list(axes.flat)[len(panels):]:
            ax.axis("off")
        fig.subplots_adjust(wspace=0.08, hspace=0.55, top=0.86 if nrows == 1 else 0.9)
        if image is not None and norm is not None:
            fig.colorbar(image, ax=axes.ravel().tolist(), shrink=0.8, label="decode ns per record")
        fig.suptitle(f"{ds}: decode time per record, producer × consumer, at {top:,} records "
                     "(✗ = failed or not verified)", fontsize=10)
        self.add(self.save(fig, f"{ds}-matrix", f"{ds} producer by consumer matrix",
                           f"Every producer → consumer cell at {top:,} records; colour = decode ns per "
                           "record (log scale)."))

    def end_to_end(self, ds: str, s: pd.DataFrame) -> None:
        e = s[s["end_to_end_ns_per_op"].notna() & ~s["aa_twin"].astype(bool)]
        if e.empty:
            return
        self.add(Heading(3, f"{ds}: end to end (encode + upload + download + decode)", f"{ds}-e2e"))
        e = e.assign(row=[(c, m or "—", f"{pl} → {cl}") for c, m, pl, cl in
                          zip(e["codec"], e["mode"], e["producer_language"], e["consumer_language"])])
        piv = e.pivot_table(index="row", columns="record_count", values="end_to_end_ns_per_op",
                            aggfunc="median")
        piv = piv.reindex(sorted(piv.index, key=lambda k: (self.codecs.index(k[0]) if k[0] in self.codecs
                                                            else 99, _mode_key(k[1]), k[2])))
        # A sum's bounds are the sums of its parts' bounds (conservative); several cells of one
        # language pair: the widest bounds around the median of their sums.
        ivs = {}
        for (row, count), g in e.groupby(["row", "record_count"]):
            n = int(min(g[f"{leg}_trials"].min() for leg in results.LEGS))
            cov = float(min(g[f"{leg}_coverage"].min() for leg in results.LEGS))
            ivs[(row, count)] = stats.Interval(float(g["end_to_end_ns_per_op"].median()),
                                               float(g["end_to_end_lo_ns_per_op"].min()),
                                               float(g["end_to_end_hi_ns_per_op"].max()), n, cov)
        names = ["codec", "mode", "producer → consumer"]
        self.add(self.pivot_table(piv, names, fmt_time, "time per payload", intervals=ivs,
                                  caption="End to end = encode + upload + download + decode of one payload: "
                                          "a sum of parts, each the median over its trials; ± from the "
                                          "sums of the parts' interval bounds; (n) the fewest trials of "
                                          "any part. Per producer → consumer language (several workers of "
                                          "one language: the median of their cells)."))
        self.add(self.relative_table(piv, names, "fastest", intervals=ivs))
        top = int(e["record_count"].max())
        at = e[e["record_count"] == top]
        rows = []
        legs = [f"{leg}_ns_per_op" for leg in results.LEGS] + ["end_to_end_ns_per_op"]
        for key in piv.index:
            g = at[at["row"] == key]
            if g.empty:
                continue
            parts = [g[c].median() for c in legs]
            moving = parts[1] + parts[2]
            rows.append([*key, *[fmt_time(v) for v in parts],
                         f"{moving / parts[4] * 100:.0f} %" if parts[4] else "—"])
        self.add(TableBlock(pd.DataFrame(rows, columns=names + ["encode", "upload", "download", "decode",
                                                                "end to end (sum)", "upload + download share"]),
                            caption=f"Where the time goes, per payload of {top:,} records: the four parts "
                                    "and their sum.", left=len(names)))
        pls = sorted(set(e["producer_language"]), key=_lang_key)
        cls = sorted(set(e["consumer_language"]), key=_lang_key)
        counts = sorted(set(e["record_count"]))
        fig, axes = plt.subplots(len(pls), len(cls), figsize=(4.2 * len(cls) + 1, 3.2 * len(pls) + 0.6),
                                 squeeze=False, sharex=len(counts) > 1, sharey=True)
        log_x = len(counts) > 1 and max(counts) / min(counts) >= 10
        vals = e["end_to_end_ns_per_op"]
        log_y = vals.max() / max(vals.min(), 1e-9) >= 10
        for i, pl in enumerate(pls):
            for j, cl in enumerate(cls):
                ax = axes[i][j]
                sub = e[(e["producer_language"] == pl) & (e["consumer_language"] == cl)]
                sub = sub.assign(_o=[(self.codecs.index(c) if c in self.codecs else 99, m != "typed", m)
                                     for c, m in zip(sub["codec"], sub["mode"])]).sort_values("_o")
                labels = []
                for (codec, mode), g in sub.groupby(["codec", "mode"], sort=False):
                    g = g.groupby("record_count")["end_to_end_ns_per_op"].median()
                    if len(counts) == 1:
                        # One record count: bars, not dots on a fake axis.
                        ax.bar(len(labels), g.values[0] / 1e3, 0.7, color=codec_color(codec, self.codecs),
                               edgecolor="black", linewidth=0.5, hatch={"tree": "//", "lazy": ".."}.get(mode, ""))
                        labels.append(f"{codec} {mode}".strip())
                        continue
                    ax.plot(g.index, g.values / 1e3, color=codec_color(codec, self.codecs),
                            linestyle=MODE_STYLES.get(mode, ":"), marker="o", markersize=4,
                            label=f"{codec} {mode}".strip())
                if labels:
                    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
                ax.set_title(f"{pl} → {cl}", fontsize=9)
                if log_x:
                    ax.set_xscale("log")
                if log_y:
                    ax.set_yscale("log")
                ax.grid(True, which="major", alpha=0.3)
                if i == len(pls) - 1 and len(counts) > 1:
                    ax.set_xlabel("records per payload")
                if j == 0:
                    ax.set_ylabel("end to end per payload (µs)")
                if not sub.empty and len(counts) > 1:
                    ax.legend(fontsize=7)
        fig.suptitle(f"{ds}: encode + upload + download + decode per payload, producer → consumer language"
                     + (f", at {counts[0]:,} records" if len(counts) == 1 else ""), fontsize=10)
        # Rotated codec labels under each panel (one count) need room above the next row's title.
        fig.subplots_adjust(wspace=0.06, hspace=0.3 if len(counts) > 1 else 0.6, top=0.9 if len(pls) > 1 else 0.82,
                            bottom=0.08 if len(counts) > 1 else 0.14)
        self.add(self.save(fig, f"{ds}-e2e", f"{ds} end to end time",
                           "End-to-end time of one payload (µs), a sum of parts: the medians of encode, "
                           "upload to control, download from control and decode. Lower is better."))

    def transfer(self, ds: str, d: pd.DataFrame) -> None:
        t = results.transfer_vs_raw_tcp(d, self.langs)
        t = t[t["raw_ns_per_op"].notna()]
        if t.empty:
            return
        self.add(Heading(3, f"{ds}: transfer against a raw loopback TCP copy", f"{ds}-transfer-raw"))
        rows = []
        for r in t.sort_values(["payload_bytes", "operation", "codec", "language"]).itertuples():
            rows.append([r.operation, r.codec, f"{r.record_count:,}", r.language, fmt_bytes(r.payload_bytes),
                         fmt_time(r.leg_ns_per_op), f"{r.leg_mb_s:,.0f}", fmt_time(r.raw_ns_per_op),
                         f"{r.raw_mb_s:,.0f}", f"{r.share_of_raw:.0%}"])
        cols = ["leg", "codec", "records", "measured by", "payload", "leg /payload", "leg MB/s",
                "raw TCP /payload", "raw TCP MB/s", "leg / raw TCP throughput"]
        self.add(TableBlock(pd.DataFrame(rows, columns=cols), left=4,
                            caption="Each upload (to control's blob store: one UploadBlob stream, or a page's "
                                    "PutBlob calls) and download (GetBlob into memory) beside the same bytes copied once over a plain loopback TCP "
                                    "connection (std::net, one way into a fresh buffer), timed by the same "
                                    "worker with the same warm-up and rounds in the same trial: what gRPC, "
                                    "HTTP/2 and the blob store cost over the kernel's copy. An upload includes "
                                    "control's durable write (the blob file is synced to disk before the upload "
                                    "is answered), so on a small payload it measures the disk, and control's "
                                    "SHA-256 of the bytes (the blob's id, one pass on one core), which bounds it "
                                    "on a large one. Medians over trials; "
                                    "MB = 10^6 bytes."))

    def compression(self, ds: str, c: pd.DataFrame) -> None:
        """Transfer legs timed with gRPC compression (Scenario.compressions) beside the identity leg."""
        t = results.compression_frame(c, self.langs)
        if t.empty or not (t["compression"] != "identity").any():
            return
        asked = ((self.doc.get("run") or {}).get("scenario") or {}).get("compressions") or []
        self.add(Heading(3, f"{ds}: transfer with compression", f"{ds}-compression"))
        rows = []
        for r in t.itertuples():
            rows.append([r.operation, r.codec, f"{r.record_count:,}", r.language, r.compression,
                         fmt_bytes(r.payload_bytes), fmt_bytes(r.wire_estimate_bytes),
                         f"{fmt_time(r.median_ns_per_op)} [{fmt_time(r.lo_ns_per_op)}, {fmt_time(r.hi_ns_per_op)}]",
                         "" if r.compression == "identity" or _nan(r.vs_identity) else f"×{r.vs_identity:.2f}"])
        cols = ["leg", "codec", "records", "measured by", "compression", "payload", "compressed whole",
                "leg [95 % rerun interval]", "vs identity"]
        missing = []
        for lang in sorted(set(t["language"])):
            have = set(t[t["language"] == lang]["compression"])
            gone = [x for x in asked if x not in have]
            if gone:
                missing.append(f"{lang}: {', '.join(gone)}")
        note = (" Not offered (the worker has no such gRPC compression): " + "; ".join(missing) + "."
                if missing else "")
        self.add(TableBlock(pd.DataFrame(rows, columns=cols), left=5,
                            caption="Each transfer leg timed once per compression the scenario names "
                                    "(compressions:) with gRPC's own message compression — the sender "
                                    "compresses each message (a chunk of at most 1 MiB), the receiver "
                                    "decompresses it — so a leg's time holds both ends' CPU and the smaller "
                                    "wire. \"compressed whole\" is the payload compressed in one piece by "
                                    "control (gzip level 6, zstd level 3), an estimate of the bytes on the "
                                    "wire. Medians over trials; ×: the leg's time over the identity leg of "
                                    "the same payload and worker." + note))

    def peak_memory(self, ds: str) -> None:
        p = results.extra_medians(self.df[self.df["dataset"] == ds], "peak_heap_bytes", self.langs)
        p = p[p["operation"].isin(["encode", "decode"])]
        if p.empty:
            return
        self.add(Heading(3, f"{ds}: peak memory (heap held at once by one operation)", f"{ds}-peak"))
        p = p.assign(what=[f"{op} {mode}".strip() for op, mode in zip(p["operation"], p["decode_mode"])])
        p = p.assign(row=list(zip(p["codec"], p["what"], p["language"])))
        piv = p.pivot_table(index="row", columns="record_count", values="peak_heap_bytes", aggfunc="median")
        piv = piv.reindex(sorted(piv.index, key=lambda k: (self.codecs.index(k[0]) if k[0] in self.codecs
                                                            else 99, k[1], _lang_key(k[2]))))
        missing = sorted(set(self.df[self.df["dataset"] == ds]["language"]) - set(p["language"]) - {""})
        self.add(self.pivot_table(
            piv, ["codec", "operation", "language"], fmt_bytes, "bytes per operation (whole payload)",
            caption="The peak growth of the heap during one operation of the whole payload (median over "
                    "trials), its result included: the RAM it needs at once, not what it allocates in "
                    "total. Rust: the counting allocator follows the measuring thread's live bytes during "
                    "one extra operation after the rounds (a moving reallocation counts both blocks). Java: "
                    "after System.gc() and a reset of the heap pools' peaks, one extra operation's allocated "
                    "bytes if no collection ran during it, else the pools' summed peak growth capped by them: "
                    "garbage not yet collected included, an upper bound (a streaming decode reads about the "
                    "young generation)."
                    + (f" Not measured for {', '.join(missing)}." if missing else "")
                    + (" A browser page has no allocator hook and no heap high-water mark for one operation "
                       "(performance.measureUserAgentSpecificMemory reports the whole page, asynchronously, "
                       "after a garbage collection), so browsers are not counted." if "browser" in missing else "")))

    def memory(self, ds: str, d: pd.DataFrame) -> None:
        self.peak_memory(ds)
        m = timed(d[d["alloc_bytes_per_op"].notna() & d["operation"].isin(["encode", "decode"])])
        if m.empty:
            return
        self.add(Heading(3, f"{ds}: memory (heap bytes allocated per record)", f"{ds}-memory"))
        m = m.assign(bpr=m["alloc_bytes_per_op"] / m["record_count"],
                     what=[f"{op} {mode}".strip() for op, mode in zip(m["operation"], m["decode_mode"])])
        m = m.assign(row=list(zip(m["codec"], m["what"], m["language"])))
        piv = m.pivot_table(index="row", columns="record_count", values="bpr", aggfunc="median")
        piv = piv.reindex(sorted(piv.index, key=lambda k: (self.codecs.index(k[0]) if k[0] in self.codecs
                                                            else 99, k[1], _lang_key(k[2]))))
        names = ["codec", "operation", "language"]
        self.add(self.pivot_table(piv, names, fmt_bytes, "bytes per record",
                                  caption="Heap bytes allocated per record during the timed rounds (median "
                                          "over trials), where the runtime counts them, every allocation "
                                          "and the whole new block of a reallocation included (Rust: "
                                          "counting allocator; JVM: the thread's allocated bytes; browsers "
                                          "cannot)."))
        self.add(self.relative_table(piv, names, "smallest"))
        top = int(m["record_count"].max())
        at = m[m["record_count"] == top]
        codecs = codec_order(at["codec"], self.codecs)
        series = sorted(set(zip(at["what"], at["language"])), key=lambda k: (k[0], _lang_key(k[1])))
        fig, ax = plt.subplots(figsize=(max(5.5, 0.45 * len(codecs) * len(series) + 2), 3.6))
        width = 0.8 / len(series)
        x = np.arange(len(codecs))
        hatches = ["", "//", "..", "xx", "\\\\", "oo"]
        all_vals = at["bpr"][at["bpr"] > 0]
        log = not all_vals.empty and all_vals.max() / max(all_vals.min(), 1e-9) >= 10
        floor = max(0.5, float(all_vals.min()) / 2) if log else 0
        for i, (what, lang) in enumerate(series):
            vals = [at[(at["codec"] == c) & (at["what"] == what) & (at["language"] == lang)]["bpr"].median()
                    for c in codecs]
            bars = ax.bar(x + (i - (len(series) - 1) / 2) * width, vals, width, label=f"{what} ({lang})",
                          color=f"C{i % 10}", hatch=hatches[i % len(hatches)], edgecolor="black",
                          linewidth=0.4, bottom=0)
            ax.bar_label(bars, labels=[fmt_bytes(v) if not _nan(v) else "" for v in vals], fontsize=6,
                         padding=1, rotation=90 if len(series) > 3 else 0)
        ax.set_xticks(x, codecs)
        ax.set_xlabel("codec")
        ax.set_ylabel("allocated per record (bytes)")
        if log:
            ax.set_yscale("log")
            ax.set_ylim(bottom=floor, top=float(all_vals.max()) * 4)
        else:
            ax.margins(y=0.15)
        ax.set_title(f"{ds}: heap bytes allocated per record at {top:,} records")
        ax.legend(fontsize=7, ncol=min(3, len(series)), loc="upper center", bbox_to_anchor=(0.5, -0.16))
        ax.grid(axis="y", alpha=0.3)
        self.add(self.save(fig, f"{ds}-memory", f"{ds} memory",
                           f"Heap bytes allocated per record at {top:,} records, where counted. Lower is better."))

    # -- tables
    def pivot_table(self, piv: pd.DataFrame, names: list[str], fmt, unit: str, intervals=None,
                    unsteady=None, caption: str = "", host_intervals=None) -> TableBlock:
        """Rows × record counts; with `intervals` ({(row, count): stats.Interval}) each value shows
        the ± half-width of its interval and its trial count, and with `host_intervals` (the same
        keys) the half-width of its host interval too."""
        cols = names + [f"{int(c):,} rec" for c in piv.columns]
        rows, classes = [], []
        for key, vals in piv.iterrows():
            tkey = key if isinstance(key, tuple) else (key,)
            row, cls = [str(k) for k in tkey], [""] * len(tkey)
            for c, v in vals.items():
                iv = (intervals or {}).get((key, c))
                text = fmt(v)
                if iv is not None and not _nan(v):
                    text += f"{fmt_ci(iv.half_width_pct)} ({iv.n})"
                    hv = (host_intervals or {}).get((key, c))
                    text += f" host{fmt_ci(hv.half_width_pct)}" if hv is not None else ""
                    k = (unsteady or {}).get((key, c), 0)
                    text += f" ~{k}" if k else ""
                row.append(text)
                wide = iv is not None and not _nan(iv.half_width_pct) and iv.half_width_pct > WIDE_CI * 100
                cls.append("wide" if wide else "")
            rows.append(row)
            classes.append(cls)
        return TableBlock(pd.DataFrame(rows, columns=cols), caption=f"{caption} Unit: {unit}.".strip(),
                          classes=pd.DataFrame(classes, columns=cols), left=len(names))

    def relative_table(self, piv: pd.DataFrame, names: list[str], best: str, intervals=None) -> TableBlock:
        """Each value over the column's smallest. With `intervals`, the tie rule decides: every value
        tied with the smallest (stats.differ is false: the intervals overlap, or the ratio is within
        the run's noise floor) is marked "tie", and the best is named only when it stands alone."""
        rel = piv / piv.min(axis=0) * 100
        cols = names + [f"{int(c):,} rec" for c in piv.columns]
        tied: dict = {}
        if intervals:
            for c in piv.columns:
                figs = {k: intervals[(k, c)] for k in piv.index if (k, c) in intervals and not _nan(piv.at[k, c])}
                winner, ties = stats.best_and_ties(figs, self.noise.worst)
                tied[c] = (winner, ties)
        rows, classes = [], []
        for key, vals in rel.iterrows():
            tkey = key if isinstance(key, tuple) else (key,)
            row, cls = [str(k) for k in tkey], [""] * len(tkey)
            for c, v in vals.items():
                if _nan(v):
                    row.append(fmt_pct(v))
                    cls.append("")
                    continue
                if c in tied:
                    winner, ties = tied[c]
                    if key in ties and len(ties) > 1:
                        row.append(f"{fmt_pct(v)} tie")
                        cls.append("best")
                    elif key == winner:
                        row.append(f"{fmt_pct(v)} best")
                        cls.append("best")
                    else:
                        row.append(fmt_pct(v))
                        cls.append("")
                else:
                    row.append(fmt_pct(v))
                    cls.append("best" if round(v) == 100 else "")
            rows.append(row)
            classes.append(cls)
        caption = f"Relative to best: the {best} in each column = 100 %."
        if intervals:
            caption += (f" \"best\" only when it differs from every other row (95 % intervals apart and "
                        f"a ratio beyond the noise floor, ×{self.noise.worst:.3f}); rows marked \"tie\" "
                        "cannot be told apart from the best: no winner among them.")
        return TableBlock(pd.DataFrame(rows, columns=cols), caption=caption,
                          classes=pd.DataFrame(classes, columns=cols), left=len(names))

    # -- failures and full table
    def failure_rows(self) -> pd.DataFrame:
        df = self.df
        bad = df[(df["failure"].fillna("") != "") | ~df["verified"]]
        return bad

    def failures(self) -> None:
        self.section("Failures and unverified results", "failures")
        bad = self.failure_rows()
        if bad.empty:
            self.add(Para("None: every task ended with a verified result.", "ok"))
            return
        msgs = bad["failure"].map(lambda m: m or "not verified against the canonical records")
        norm = msgs.map(lambda m: re.sub(r"\(\S+-t\d+\)", "(…)", m))
        grouped = norm.value_counts()
        self.add(Para(f"{bad['task_id'].nunique()} task(s) did not give a verified result. "
                      "By message:"),
                 TableBlock(pd.DataFrame({"message": grouped.index, "measurements": grouped.values})))
        rows = []
        order = bad.assign(_d=bad["dataset"].map(lambda d: DATASETS.index(d) if d in DATASETS else 99))
        for r in order.sort_values(["_d", "record_count", "codec", "operation", "decode_mode",
                                    "producer", "consumer"]).itertuples():
            who = r.producer + (f" → {r.consumer}" if r.consumer and r.operation != "encode" else "")
            rows.append([r.operation, r.dataset, f"{int(r.record_count):,}", r.codec, r.decode_mode or "—",
                         who, r.worker_id or "—", r.failure or "not verified against the canonical records"])
        self.add(Details(f"Every failed or unverified measurement ({len(rows)})", [TableBlock(left=8, frame=
            pd.DataFrame(rows, columns=["operation", "dataset", "records", "codec", "mode",
                                        "producer → consumer", "measured by", "message"]),
            classes=pd.DataFrame([[""] * 7 + ["fail"]] * len(rows),
                                 columns=["operation", "dataset", "records", "codec", "mode",
                                          "producer → consumer", "measured by", "message"]))]))

    def all_results(self) -> None:
        self.section("All results", "all-results")
        s = self.summary
        if s.empty:
            self.add(Para("No measurements."))
            return

        def leg(r, p, per_record=True):
            v = getattr(r, f"{p}_ns_per_record") if per_record else getattr(r, f"{p}_ns_per_op")
            if _nan(v):
                return "—"
            n, k = getattr(r, f"{p}_trials"), getattr(r, f"{p}_unsteady")
            text = (fmt_num(v) if per_record else fmt_time(v)) + fmt_ci(getattr(r, f"{p}_ci_pct"))
            return text + f" ({int(n)})" + (f" ~{int(k)}" if k else "")

        rows = []
        for r in s.itertuples():
            notes = (["A/A twin"] if r.aa_twin else []) + ([f"same bytes as {r.same_bytes_as}"]
                                                            if r.same_bytes_as else [])
            rows.append([r.dataset, r.codec, r.mode or "—", f"{int(r.record_count):,}",
                         f"{r.producer} → {r.consumer}" if r.consumer else r.producer,
                         fmt_bytes(r.payload_bytes) if r.payload_bytes else "—",
                         leg(r, "encode"), leg(r, "decode"), leg(r, "upload", False), leg(r, "download", False),
                         fmt_time(r.end_to_end_ns_per_op),
                         "✓" if r.verified else "✗ " + _short(r.failure or "not verified", 50),
                         "; ".join(notes)])
        cols = ["dataset", "codec", "mode", "records", "producer → consumer", "payload bytes",
                "encode ns/rec", "decode ns/rec", "upload /payload", "download /payload",
                "end to end /payload (sum of 4)", "verified", "note"]
        self.add(Details(f"Every producer → consumer cell ({len(rows)} rows; also in summary.csv)",
                         [TableBlock(pd.DataFrame(rows, columns=cols), left=5)]))

    def method(self) -> None:
        self.section("How to read this report", "method")
        seed = (self.scenario.get("sampling") or {}).get("orderSeed", "")
        self.add(Bullets([
            "Each cell (one operation of one dataset × count × codec × producer, and × consumer × mode "
            "for decode) is measured in independent trials, each in a fresh process (a child Rust process, "
            "a fresh JVM, a fresh headless Chromium page), interleaved with every other cell's trials in "
            "passes (trial k of every cell before any trial k+1), each pass in a seeded random order "
            f"(trial order seed {seed or 'not recorded'}). The browser's trials of one pass share one "
            "Chromium launch and each pass has its own, so cells compared with each other met the same "
            "launches while each cell's interval spans as many launches as it has trials.",
            f"Figures: the {stats.METHOD}. ± is the interval's half-width in % of the median, (n) the "
            f"number of trials; above ±{WIDE_CI:.0%} it is marked \"!\". Rounds within a trial are a "
            "diagnostic (measurements.parquet keeps every round).",
            "A trial warms up until a measured steady state (no JIT compilation in the last rounds, stable "
            "recent medians); one that hit sampling.maxWarmupMs first is marked unsteady (\"~k\": k such "
            "trials), measured anyway.",
            f"Noise floor: {self.noise.sentence().removeprefix('noise floor: ')}. Two figures differ only "
            "when their 95 % intervals do not overlap AND their ratio exceeds the noise floor; otherwise "
            "they are a tie, and no winner is declared among ties (\"tie\" in the relative tables).",
            "What an interval cannot see: it covers what varies from trial to trial inside this run. A "
            "shared machine's speed also wanders by a few per cent over minutes, moving a language's "
            "cells together and some codecs more than others, and a rerun samples other minutes, so a "
            "back-to-back rerun's medians fall inside these intervals less often than 95 % (the shares "
            "measured on a shared 2-core VM are in the README, \"What the interval cannot see\"). "
            "`codecbench compare` judges each language's whole column once and each cell against it. "
            + (f"Host intervals: {self.calibration.sentence()}; a figure's host interval widens each side "
               "of its interval by that term (harness/codecbench/calibration.py) and says where a rerun on "
               "this host lands." if self.calibration is not None else
               "Host intervals: none, no run-to-run term was measured on this host (run a scenario twice, "
               "then `codecbench calibrate`)."),
            "Several cells of one language measuring the same thing (two workers, or byte-identical "
            "payloads): their trial figures are pooled.",
            "Timed regions: encode = the application's objects → bytes in memory, decode = bytes → the "
            "application's objects (typed), the library's generic document (tree), or the named fields "
            "read from the raw document (lazy). What each codec × language includes is declared by the "
            "workers (see Timed regions).",
            "Upload = the producer storing the payload in control's blob store; download = the consumer "
            "fetching it into memory. End to end = encode + upload + download + decode, a sum of parts; "
            "only where all four were measured.",
            "Relative to best: in each column (one record count) the smallest value is 100 %; 250 % "
            "means 2.5 times the best.",
            "Payloads are verified against the canonical records before timing; a failed cell has no "
            "timing and is listed under Failures with its message.",
            f"Files: measurements.parquet/csv (every trial and round), summary.csv, run.json (tasks, "
            f"environments, workers' codec declarations) in {self.run_dir}.",
        ]))


# ---- rendering ----------------------------------------------------------------------------------

CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:2em auto;max-width:1200px;
 padding:0 1em;color:#222;line-height:1.4}
h1{font-size:1.6em;border-bottom:2px solid #444}h2{margin-top:2em;border-bottom:1px solid #bbb}
h3{margin-top:1.5em;color:#333}
table{border-collapse:collapse;margin:.6em 0 1.2em;font-size:.82em}
th,td{border:1px solid #ccc;padding:3px 7px;vertical-align:top;text-align:right;white-space:pre-line}
th{background:#eef1f5}td.l,th.l{text-align:left}table.kv td,table.kv th{text-align:left}td:first-child,th:first-child{text-align:left}
p.cap{font-size:.85em;color:#555;margin:.8em 0 .2em}
td.ok{background:#eaf7ea}td.fail{background:#fbe3e1;color:#8b1a10;text-align:left}
td.wide{background:#fff6d6}td.best{font-weight:bold;background:#eaf7ea}
ul.warn li{color:#8a5300}ul.warn{background:#fff6d6;border-left:4px solid #e0a800;padding:.6em 2em}
p.ok{background:#eaf7ea;border-left:4px solid #3c9a3c;padding:.5em 1em}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
figcaption{font-size:.85em;color:#555}nav ul{columns:2}details summary{cursor:pointer;color:#245}
@media print{details{display:block}nav{display:none}h2{page-break-before:auto}
 figure,table{page-break-inside:avoid}}
"""


def _md_cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", "<br>")


def render_md(blocks: list, toc: list[tuple[str, str]], base: Path) -> str:
    out: list[str] = []

    def emit(b):
        if isinstance(b, Heading):
            out.append(f"{'#' * b.level} {b.text}\n")
            if b.level == 1 and toc:
                out.append("Contents: " + " · ".join(f"[{t}](#{a})" for t, a in toc) + "\n")
        elif isinstance(b, Para):
            out.append(("> **note:** " if b.cls == "warn" else "") + b.text + "\n")
        elif isinstance(b, Bullets):
            out.append("\n".join(("- ⚠ " if b.cls == "warn" else "- ") + i for i in b.items) + "\n")
        elif isinstance(b, TableBlock):
            if b.caption:
                out.append(f"*{b.caption}*\n")
            cols = [_md_cell(c) for c in b.frame.columns]
            out.append("| " + " | ".join(c or " " for c in cols) + " |")
            out.append("|" + "|".join("---" if i < b.left else "--:" for i in range(len(cols))) + "|")
            for row in b.frame.itertuples(index=False):
                out.append("| " + " | ".join(_md_cell(v) for v in row) + " |")
            out.append("")
        elif isinstance(b, Image):
            out.append(f"![{b.alt}]({b.path.relative_to(base).as_posix()})\n")
            if b.caption:
                out.append(f"*{b.caption}*\n")
        elif isinstance(b, Details):
            out.append(f"**{b.summary}**\n")
            for x in b.blocks:
                emit(x)

    for b in blocks:
        emit(b)
    return "\n".join(out) + "\n"


def render_html(blocks: list, toc: list[tuple[str, str]], title: str) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>{e(title)}</title>", f"<style>{CSS}</style></head><body>"]

    def table(b: TableBlock) -> str:
        parts = [f'<p class="cap">{e(b.caption)}</p>'] if b.caption else []
        parts.append(f'<table class="{b.cls}">' if b.cls else "<table>")
        parts.append("<thead><tr>" + "".join(f'<th class="l">{e(str(c))}</th>' if j < b.left else
                                             f"<th>{e(str(c))}</th>" for j, c in enumerate(b.frame.columns))
                     + "</tr></thead><tbody>")
        for i, row in enumerate(b.frame.itertuples(index=False)):
            cells = []
            for j, v in enumerate(row):
                cls = b.classes.iat[i, j] if b.classes is not None else ""
                cls = f"{cls} l".strip() if j < b.left else cls
                cells.append(f'<td class="{cls}">{e(str(v))}</td>' if cls else f"<td>{e(str(v))}</td>")
            parts.append("<tr>" + "".join(cells) + "</tr>")
        parts.append("</tbody></table>")
        return "".join(parts)

    def emit(b):
        if isinstance(b, Heading):
            out.append(f'<h{b.level} id="{e(b.anchor or _slug(b.text))}">{e(b.text)}</h{b.level}>')
            if b.level == 1 and toc:
                out.append("<nav><ul>" + "".join(f'<li><a href="#{e(a)}">{e(t)}</a></li>' for t, a in toc)
                           + "</ul></nav>")
        elif isinstance(b, Para):
            out.append(f'<p class="{b.cls}">{e(b.text)}</p>' if b.cls else f"<p>{e(b.text)}</p>")
        elif isinstance(b, Bullets):
            cls = f' class="{b.cls}"' if b.cls else ""
            out.append(f"<ul{cls}>" + "".join(f"<li>{e(i)}</li>" for i in b.items) + "</ul>")
        elif isinstance(b, TableBlock):
            out.append(table(b))
        elif isinstance(b, Image):
            data = base64.b64encode(b.path.read_bytes()).decode("ascii")
            out.append(f'<figure><img alt="{e(b.alt)}" src="data:image/png;base64,{data}">'
                       + (f"<figcaption>{e(b.caption)}</figcaption>" if b.caption else "") + "</figure>")
        elif isinstance(b, Details):
            out.append(f"<details><summary>{e(b.summary)}</summary>")
            for x in b.blocks:
                emit(x)
            out.append("</details>")

    for b in blocks:
        emit(b)
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def trust_warnings(run_dir: Path) -> list[str]:
    """The report's "can these numbers be trusted?" warnings alone (no plots drawn)."""
    b = _Builder(Path(run_dir), Path(run_dir))
    b.trust()
    return b.warnings


def write_report(run_dir: Path, out_dir: Path | None = None) -> Report:
    """Build report.html, report.md and plots/*.png for the results folder `run_dir`."""
    run_dir = Path(run_dir)
    out_dir = Path(out_dir) if out_dir else run_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    b = _Builder(run_dir, out_dir)
    # Plots of an earlier report of this run would otherwise linger beside the new ones.
    if b.plot_dir.exists():
        for old in b.plot_dir.glob("*.png"):
            old.unlink()
    with plt.rc_context({"font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
                         "legend.fontsize": 8, "figure.dpi": 110}):
        b.build()
    title = f"codecbench report · run {b.run_id}"
    html_path, md_path = out_dir / "report.html", out_dir / "report.md"
    html_path.write_text(render_html(b.blocks, b.toc, title), encoding="utf-8")
    md_path.write_text(render_md(b.blocks, b.toc, out_dir), encoding="utf-8")
    return Report(html=html_path, md=md_path, plots=b.plots, warnings=b.warnings, sections=b.sections)
