"""Per dataset: encode and decode time per record, one table, one relative table and one plot per
operation."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import calibration, stats
from ..units import fmt_num
from .blocks import Heading
from .common import LANG_MARKERS, MODE_STYLES, WIDE_CI, _lang_key, _mode_key, codec_color, pooled, timed


class TimingSections:
    """Encode/decode time (mixed into report.builder.Builder)."""

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
                # Every trial beside its median, a little to the right so the whisker stays readable.
                for n, trials in zip(g["record_count"], g["trials"]):
                    ax.scatter([n * (1.06 if log_x else 1)] * len(trials), trials, s=6, alpha=0.4,
                               color=codec_color(codec, self.codecs), linewidth=0, zorder=1)
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
                     "dots: trials; line: their median; bars: its 95 % rerun interval)", fontsize=10)
        fig.subplots_adjust(wspace=0.06, top=0.84)
        what = ("per consumer language and decode mode (solid typed, dash-dot tree, dashed lazy); payloads from the "
                "consumer's own language where available") if op == "decode" else "per producer language"
        self.add(self.save(fig, f"{ds}-{op}", f"{ds} {op} time per record",
                           f"Every trial (dots) and the median {op} ns per record (line, with its 95 % interval) across record "
                           f"counts, {what}. Lower is better."))

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
                color = codec_color(codec, self.codecs)
                # Every trial (a point, spread sideways so none hides another), the median (a bar
                # across) and its 95 % rerun interval (the whisker): the spread is seen, not implied.
                trials = list(r["trials"])
                jitter = np.random.default_rng(i).uniform(-0.2, 0.2, len(trials))
                ax.scatter(i + jitter, trials, s=14, color=color, alpha=0.55, edgecolor="black", linewidth=0.3,
                           marker={"tree": "s", "lazy": "D"}.get(mode, "o"), zorder=2)
                ax.errorbar(i, r["median"], yerr=[[r["median"] - r["lo"]], [r["hi"] - r["median"]]], fmt="none",
                            ecolor="black", capsize=5, linewidth=1.2, zorder=3)
                ax.hlines(r["median"], i - 0.32, i + 0.32, color=color, linewidth=3, zorder=4)
                labels.append(f"{codec} {mode}".strip())
            ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", fontsize=8)
            ax.set_title(lang)
            if log_y:
                ax.set_yscale("log")
            ax.grid(axis="y", which="major", alpha=0.3)
        if not log_y:
            # From zero, once every panel is drawn (the panels share y: set earlier, it would freeze
            # the limits before the other panels' points count).
            axes[0][0].set_ylim(bottom=0)
        axes[0][0].set_ylabel(f"{op} time per record (ns)")
        fig.suptitle(f"{ds}: {op} time per record at {count:,} records ({'log y' if log_y else 'linear y'}; "
                     "points: trials, bar across: their median, whisker: its 95 % rerun interval)", fontsize=10)
        fig.subplots_adjust(wspace=0.06, top=0.84, bottom=0.25)
        what = ("per consumer language and decode mode (points: typed ●, tree ■, lazy ◆); payloads from "
                "the consumer's own language where available") if op == "decode" else "per producer language"
        self.add(self.save(fig, f"{ds}-{op}", f"{ds} {op} time per record",
                           f"Every trial's {op} ns per record at {count:,} records with their median and its 95 % "
                           f"interval, {what}; languages are separate "
                           "panels, never pooled. Lower is better."))
