"""What every part of the report shares: thresholds, colours and orders, number formatting, and
the data preparation of the measurement frames."""

from __future__ import annotations

import math
import re
from typing import Iterable

import pandas as pd

from .. import datasets, stats
from ..results import lang_of
from .trustline import WIDE_CI

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
LANG_ORDER = ["rust", "java", "browser", "node", "go"]


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
            "ci_pct": ci.half_width_pct, "unsteady": int(group["unsteady"].sum()), "trials": values}


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
