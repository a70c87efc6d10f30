"""Per dataset: payload size (raw and compressed) and memory (peak and allocated)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.patches import Patch

from .. import results
from .blocks import Heading, TableBlock
from .common import _lang_key, _nan, codec_color, codec_order, fmt_bytes, timed


class SizeSections:
    """Bytes: payloads and heap (mixed into report.builder.Builder)."""

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
        # One bar per payload, not per producer: producers whose payloads have the same size share it.
        bars_of = []  # (codec, producer languages, bytes per record)
        for codec in codec_order(at["codec"], self.codecs):
            sizes: dict[float, list[str]] = {}
            for r in at[at["codec"] == codec].sort_values("language", key=lambda c: c.map(_lang_key)).itertuples():
                sizes.setdefault(round(float(r.bpr), 2), []).append(r.language)
            bars_of += [(codec, langs, size) for size, langs in sizes.items()]
        compressed = "gzip_bytes" in enc and enc["gzip_bytes"].notna().any()
        if compressed and len(bars_of) == len(set(c for c, _, _ in bars_of)):
            # Every producer of a codec wrote the same size: the compressed-size plot below draws
            # each codec's raw bytes beside gzip and zstd, so this plot would repeat it.
            self.compressed_size(ds, enc, top)
            return
        fig, ax = plt.subplots(figsize=(max(5.5, 1.1 * len(bars_of) + 2), 3.6))
        x = np.arange(len(bars_of))
        several = {c for c, _, _ in bars_of if sum(1 for c2, _, _ in bars_of if c2 == c) > 1}
        vals = [v for _, _, v in bars_of]
        bars = ax.bar(x, vals, 0.7, color=[codec_color(c, self.codecs) for c, _, _ in bars_of], edgecolor="black",
                      linewidth=0.5)
        ax.bar_label(bars, labels=[fmt_bytes(v) for v in vals], fontsize=7, padding=2)
        ax.set_xticks(x, [f"{c}\n({', '.join(langs)})" if c in several else c for c, langs, _ in bars_of])
        ax.set_xlabel("codec (producers, where their payloads differ in size)")
        ax.set_ylabel("payload size per record (bytes)")
        ax.set_title(f"{ds}: payload size per record at {top:,} records")
        ax.margins(y=0.15)
        ax.grid(axis="y", alpha=0.3)
        self.add(self.save(fig, f"{ds}-size", f"{ds} payload size per record",
                           f"Bytes per record at {top:,} records, one bar per payload size: producers whose "
                           "payloads are the same size share a bar (smaller is better)."))
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
        # The producer is named only where producers' payloads of a codec differ in size.
        differ = set(g.groupby("codec")["raw"].agg(lambda v: v.round(2).nunique()).loc[lambda n: n > 1].index)
        ax.set_xticks(x, [f"{c}\n({lang})" if c in differ else c for c, lang in zip(codecs, first["language"])])
        ax.set_xlabel("codec (producer, where producers' payloads differ)" if differ else "codec")
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
