"""The report's builder: reads a results folder once and builds the list of blocks, section by
section (the sections live in the mixins it is made of)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import matplotlib.pyplot as plt

from .. import calibration, results, stats
from ..results import language_map
from ..scenario import DATASETS
from .blocks import Contents, Details, Heading, Image, Para
from .common import BBOX, codec_order, with_languages
from .paths import relative, replacements, scrub
from .hosts import HostSections
from .links import LinkSections
from .pairs import PairSections
from .run_sections import RunSections
from .sizes import SizeSections
from .tables import Tables, merge_single_counts
from .timings import TimingSections
from .trust import TrustSections


# Sections a reader opens when they need them: folded (<details>) in HTML and on GitHub.
FOLDED = {"link-model", "noise", "run", "time", "environment", "boundaries", "method", "user-datasets"}


def fold(blocks: list, anchors: set[str]) -> list:
    """Each section of `anchors` keeps its heading; what follows it, up to the next section, goes
    into one folded block."""
    out: list = []
    body: list | None = None
    for b in blocks:
        if isinstance(b, Heading) and b.level <= 2:
            if body:
                out.append(Details("show", body))
            body = [] if b.anchor in anchors else None
            out.append(b)
        elif body is not None:
            body.append(b)
        else:
            out.append(b)
    if body:
        out.append(Details("show", body))
    return out


class Builder(RunSections, TrustSections, SizeSections, TimingSections, PairSections, HostSections,
              LinkSections, Tables):
    """One report of one run: blocks, plots, warnings, sections and the table of contents."""

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
        self.blocks.extend(b for b in blocks if b is not None)  # None: a part with nothing to say

    def save(self, fig, name: str, alt: str, caption: str) -> Image:
        self.plot_dir.mkdir(parents=True, exist_ok=True)
        path = self.plot_dir / f"{name}.png"
        fig.savefig(path, dpi=100, bbox_inches=BBOX)
        plt.close(fig)
        self.plots.append(path)
        return Image(path, alt, caption)

    # -- sections
    def build(self) -> None:
        """Sections in the order a reader needs them: the answer and its caveats on the first
        screen, then the per-dataset figures, then the facts behind them, folded."""
        self.overview()
        self.add(Contents())
        self.trust()
        datasets = [d for d in DATASETS if d in set(self.df["dataset"])] + \
            sorted(set(self.df["dataset"]) - set(DATASETS))
        for ds in datasets:
            self.dataset(ds)
        self.link_model()
        self.duets()
        self.host_effects()
        self.failures()
        self.user_datasets()
        self.noise_floor()
        self.run_facts()
        self.time_spent()
        self.environment()
        self.boundaries()
        self.all_results()
        self.method()
        self.blocks = self.picture_of_the_answer(fold(merge_single_counts(self.blocks), FOLDED))
        self.blocks = scrub(self.blocks, self.run_dir)
        self.warnings = [relative(w, replacements(self.run_dir)) for w in self.warnings]

    def picture_of_the_answer(self, blocks: list) -> list:
        """The first dataset's decode plot (else its encode plot) moves up under the verdict's
        leaderboards, where its dataset section points to it: one picture of the answer on the
        first screen, drawn once."""
        images = [b for b in blocks if isinstance(b, Image)]
        pick = next((i for kind in ("decode", "encode") for i in images if i.path.stem.endswith(f"-{kind}")), None)
        verdict = next((i for i, b in enumerate(blocks) if isinstance(b, Heading) and b.anchor == "verdict"), None)
        if pick is None or verdict is None:
            return blocks
        at = blocks.index(pick)
        blocks = blocks[:at] + [Para(f"The plot of this table, {pick.alt}, is under Verdict.")] + blocks[at + 1:]
        # Right after the trust line, beside the leaderboards on a wide screen: with several record
        # counts the boards alone fill the first screen.
        trust = next((i for i, b in enumerate(blocks) if isinstance(b, Para) and b.cls == "trust"), None)
        end = trust + 1 if trust is not None else next(i for i, b in enumerate(blocks) if isinstance(b, Contents))
        return blocks[:end] + [replace(pick, side=True)] + blocks[end:]

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
