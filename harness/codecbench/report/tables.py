"""The report's tables: rows × record counts with intervals, relative to best with the tie rule,
and the table of every cell."""

from __future__ import annotations

import pandas as pd

from .. import stats
from ..units import fmt_num, fmt_time
from .blocks import Details, Para, TableBlock
from .common import WIDE_CI, _nan, _short, fmt_bytes, fmt_ci, fmt_pct


class Tables:
    """Table builders (mixed into report.builder.Builder)."""

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

    def relative_table(self, piv: pd.DataFrame, names: list[str], best: str, intervals=None) -> TableBlock | None:
        """Each value over the smallest of its group in its column: the rows that differ only by codec
        (a row's key is (codec, *the rest): language, mode, operation or producer → consumer), so
        languages, modes and operations are never pooled. With `intervals`, the tie rule decides:
        every value tied with the smallest (stats.differ is false: the intervals overlap, or the
        ratio is within the run's noise floor) is marked "tie", and the best is named only when it
        stands alone in its group."""
        def group(key) -> tuple:
            return key[1:] if isinstance(key, tuple) else ()

        # One block of rows per group (language, mode…), codecs in their order inside it.
        rank = {g: i for i, g in enumerate(dict.fromkeys(group(k) for k in piv.index))}
        piv = piv.iloc[sorted(range(len(piv.index)), key=lambda i: (rank[group(piv.index[i])], i))]
        groups = pd.Series([group(k) for k in piv.index], index=piv.index)
        if groups.value_counts().max() < 2:
            return None  # one codec per group: every row would read 100 %
        smallest = piv.groupby(groups.values).transform("min")
        smallest.index = piv.index
        rel = piv / smallest * 100
        cols = names + [f"{int(c):,} rec" for c in piv.columns]
        tied: dict = {}
        if intervals:
            for c in piv.columns:
                for g in dict.fromkeys(groups):
                    figs = {k: intervals[(k, c)] for k in piv.index
                            if group(k) == g and (k, c) in intervals and not _nan(piv.at[k, c])}
                    tied[(g, c)] = stats.best_and_ties(figs, self.noise.worst)
        rows, classes = [], []
        for key, vals in rel.iterrows():
            tkey = key if isinstance(key, tuple) else (key,)
            row, cls = [str(k) for k in tkey], [""] * len(tkey)
            for c, v in vals.items():
                if _nan(v):
                    row.append(fmt_pct(v))
                    cls.append("")
                    continue
                if (group(key), c) in tied:
                    winner, ties = tied[(group(key), c)]
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
        among = names[1:]
        caption = (f"Relative to best: the {best} codec = 100 %, in each column (one record count)"
                   + (f" among rows of the same {', '.join(among)}: those are never pooled." if among else "."))
        if intervals:
            caption += (f" \"best\" only when it differs from every other row of its group (95 % intervals "
                        f"apart and a ratio beyond the noise floor, ×{self.noise.worst:.3f}); rows marked \"tie\" "
                        "cannot be told apart from the best: no winner among them.")
        return TableBlock(pd.DataFrame(rows, columns=cols), caption=caption,
                          classes=pd.DataFrame(classes, columns=cols), left=len(names))

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
                                                            if r.same_bytes_as else []) + (
                [f"decode measured once, in {r.measured_in}'s cell"] if getattr(r, "measured_in", "") else [])
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


def merge_single_counts(blocks: list) -> list:
    """A table of one record count and its "relative to best" table become one table with a
    "relative to best" column (two one-column tables say it twice as tall)."""
    out: list = []
    for b in blocks:
        prev = out[-1] if out else None
        if (isinstance(b, TableBlock) and b.caption.startswith("Relative to best") and isinstance(prev, TableBlock)
                and len(prev.frame.columns) == prev.left + 1 and len(b.frame.columns) == b.left + 1
                and list(prev.frame.columns[:prev.left]) == list(b.frame.columns[:b.left])):
            names = list(b.frame.columns[:b.left])
            key = lambda f: [tuple(r) for r in f[names].itertuples(index=False)]  # noqa: E731
            rel = dict(zip(key(b.frame), b.frame.iloc[:, -1]))
            rel_cls = dict(zip(key(b.frame), b.classes.iloc[:, -1])) if b.classes is not None else {}
            # In the relative table's row order: one block per language (mode, operation), so each
            # block's 100 % is in sight.
            at = {k: i for i, k in enumerate(key(prev.frame))}
            rows = [at[k] for k in key(b.frame) if k in at] + [i for k, i in at.items() if k not in rel]
            frame = prev.frame.iloc[rows].reset_index(drop=True)
            frame = frame.assign(**{"relative to best": [rel.get(k, "—") for k in key(frame)]})
            classes = None
            if prev.classes is not None:
                classes = prev.classes.iloc[rows].reset_index(drop=True)
                classes = classes.assign(**{"relative to best": [rel_cls.get(k, "") for k in key(frame)]})
            out[-1] = TableBlock(frame, caption=f"{prev.caption} {b.caption}", classes=classes, cls=prev.cls,
                                 left=prev.left)
            continue
        out.append(b)
    return out
