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

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # before any part imports pyplot

from .blocks import Bullets, Details, Heading, Image, Para, Report, TableBlock  # noqa: E402,F401
from .common import (BBOX, CODEC_COLORS, EXTRA_COLORS, LANG_MARKERS, LANG_ORDER, LAZY_FIELDS,  # noqa: E402,F401
                     MIN_TRIALS, MODE_ORDER, MODE_STYLES, WIDE_CI, codec_color, codec_order, fmt_bytes, fmt_ci,
                     fmt_pct, network_rows, pooled, timed, with_languages)
from .trustline import TrustLine, trust_line  # noqa: E402,F401

# pyplot and the builder load on first use: the CLI imports the trust line to print a run's answer.
_LAZY = {"Builder": "builder", "_Builder": "builder", "CSS": "render", "render_html": "render", "render_md": "render"}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        module = importlib.import_module(f".{_LAZY[name]}", __name__)
        return getattr(module, "Builder" if name == "_Builder" else name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def trust_warnings(run_dir: Path) -> list[str]:
    """The report's "can these numbers be trusted?" warnings alone (no plots drawn)."""
    from .builder import Builder

    b = Builder(Path(run_dir), Path(run_dir))
    b.trust()
    return b.warnings


def write_report(run_dir: Path, out_dir: Path | None = None) -> Report:
    """Build report.html, report.md and plots/*.png for the results folder `run_dir`."""
    import matplotlib.pyplot as plt

    from .builder import Builder
    from .render import render_html, render_md

    run_dir = Path(run_dir)
    out_dir = Path(out_dir) if out_dir else run_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    b = Builder(run_dir, out_dir)
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
