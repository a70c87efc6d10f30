"""Per dataset: what crosses from a producer to a consumer: the producer × consumer matrix, end to
end, transfer against raw TCP, and transfer with compression."""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.colors import LogNorm

from .. import results, stats
from ..results import lang_of
from ..units import fmt_num, fmt_time
from .blocks import Heading, Para, TableBlock
from .links import measured_path
from .common import (MODE_STYLES, WIDE_CI, _lang_key, _mode_key, _nan, _short, codec_color, codec_order,
                     fmt_bytes, fmt_ci)


def same_work(cells: pd.DataFrame) -> pd.DataFrame:
    """Decode cells of one record count with `group_ns` and `group_n`: byte-identical payloads
    decoded by one consumer in one mode are the same work, one group with one figure (the median
    of its cells), so the heatmap draws noise as no difference between producers (the table keeps
    every cell's own figure)."""
    ok = cells["verified"].astype(bool) & cells["decode_ns_per_record"].notna()
    grouped = cells[ok].groupby(["consumer", "codec", "mode", "payload_blob_id"])["decode_ns_per_record"]
    return cells.assign(group_ns=grouped.transform("median").reindex(cells.index),
                        group_n=grouped.transform("size").reindex(cells.index).fillna(1).astype(int))


class PairSections:
    """Producer → consumer sections (mixed into report.builder.Builder)."""

    def matrix(self, ds: str, s: pd.DataFrame) -> None:
        dec = s[(s["consumer"] != "") & ~s["aa_twin"].astype(bool)]
        if dec.empty:
            return
        # A payload another implementation of the codec's format wrote is a producer row of its own.
        if "payload_codec" in dec:
            dec = dec.assign(producer=[p + results.writer_tag(c, w) for p, c, w in
                                       zip(dec["producer"], dec["codec"], dec["payload_codec"])])
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
                                    "a row's differences across ≡ producers are noise, see Noise floor); "
                                    "a producer with [a codec] wrote its payload with that other "
                                    "implementation of the row's format.",
                            classes=pd.DataFrame(classes, columns=cols), left=4))
        # Heatmap at the largest count.
        top = int(dec["record_count"].max())
        at = dec[dec["record_count"] == top]
        at = same_work(at)
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
                    grid[i, j] = r.group_ns
                    dark = norm is not None and norm(r.group_ns) > 0.6
                    ax.text(j, i, fmt_num(r.group_ns) + ("\n✓ ≡" if r.group_n > 1 else "\n✓"), ha="center",
                            va="center", fontsize=7, color="white" if dark else "black")
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
                           "record (log scale); ≡: producers whose payloads are byte-identical, one group with "
                           "one colour and the median of its cells (the same work: their differences are noise)."))

    def end_to_end(self, ds: str, s: pd.DataFrame) -> None:
        # One implementation's round trip: its own payloads (results.own_rows).
        s = results.own_rows(s)
        e = s[s["end_to_end_ns_per_op"].notna() & ~s["aa_twin"].astype(bool)]
        if e.empty:
            return
        self.add(Heading(3, f"{ds}: end to end through control (encode + upload + download + decode) per record",
                         f"{ds}-e2e"))
        self.add(Para("End to end is " + measured_path(self.doc) + "."))
        # Per record, as every other table of the report (a payload's time / its record count).
        per = e["record_count"].astype(float)
        e = e.assign(**{c: e[c] / per for c in ["end_to_end_ns_per_op", "end_to_end_lo_ns_per_op", "end_to_end_hi_ns_per_op",
                                                *(f"{leg}_ns_per_op" for leg in results.LEGS)]})
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
        self.add(self.pivot_table(piv, names, fmt_time, "time per record (a payload's time / its records)",
                                  intervals=ivs,
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
                            caption=f"Where the time goes, per record of a payload of {top:,} records: the "
                                    "four parts and their sum.", left=len(names)))
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
                    # Whiskers: the sum's interval (the parts' bounds summed), as in the table.
                    bounds = [ivs.get(((codec, mode or "—", f"{pl} → {cl}"), n)) for n in g.index]
                    yerr = np.array([[(v - b.lo) / 1e3 if b else 0 for v, b in zip(g.values, bounds)],
                                     [(b.hi - v) / 1e3 if b else 0 for v, b in zip(g.values, bounds)]]).clip(min=0)
                    if len(counts) == 1:
                        # One record count: bars, not dots on a fake axis.
                        ax.bar(len(labels), g.values[0] / 1e3, 0.7, yerr=yerr, capsize=3,
                               color=codec_color(codec, self.codecs),
                               edgecolor="black", linewidth=0.5, hatch={"tree": "//", "lazy": ".."}.get(mode, ""))
                        labels.append(f"{codec} {mode}".strip())
                        continue
                    ax.errorbar(g.index, g.values / 1e3, yerr=yerr, capsize=3, color=codec_color(codec, self.codecs),
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
                    ax.set_ylabel("end to end per record (µs)")
                if not sub.empty and len(counts) > 1:
                    ax.legend(fontsize=7)
        fig.suptitle(f"{ds}: encode + upload + download + decode per record, producer → consumer language"
                     + (f", at {counts[0]:,} records" if len(counts) == 1 else ""), fontsize=10)
        # Rotated codec labels under each panel (one count) need room above the next row's title.
        fig.subplots_adjust(wspace=0.06, hspace=0.3 if len(counts) > 1 else 0.6, top=0.9 if len(pls) > 1 else 0.82,
                            bottom=0.08 if len(counts) > 1 else 0.14)
        self.add(self.save(fig, f"{ds}-e2e", f"{ds} end to end time",
                           "End-to-end time per record (µs: a payload's time over its record count), a sum of "
                           "parts: the medians of encode, upload to control, download from control and decode; "
                           "whiskers: the sum of the parts' 95 % interval bounds. Lower is better."))

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
