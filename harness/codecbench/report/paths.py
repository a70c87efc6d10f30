"""No absolute path of the machine that made a report (issue 31, item 2): a report travels (a pull
request, a wiki), and /home/someone/… says nothing to its reader. Paths inside the repository are
written relative to it, the run's folder as results/<run-id> (or <results>/<run-id> when it lies
outside the repository), the home folder as ~."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd

from .blocks import Bullets, Details, Heading, Image, Para, TableBlock

# harness/codecbench/report/paths.py → the repository's root.
REPO = Path(__file__).resolve().parents[3]


def replacements(run_dir: Path) -> list[tuple[str, str]]:
    """(absolute prefix, what a reader sees instead), the longest prefix first."""
    run_dir = Path(run_dir)
    out: dict[str, str] = {}
    for d in {run_dir.absolute(), run_dir.resolve()}:
        try:
            out[str(d)] = d.relative_to(REPO).as_posix()
        except ValueError:
            out[str(d)] = f"<results>/{d.name}"
    out[str(REPO) + "/"] = ""
    out[str(REPO)] = "."
    home = str(Path.home())
    if home not in ("/", ""):
        out[home] = "~"
    return sorted(out.items(), key=lambda kv: -len(kv[0]))


def relative(text: str, pairs: list[tuple[str, str]]) -> str:
    for prefix, instead in pairs:
        text = text.replace(prefix, instead)
    return text


def scrub(blocks: list, run_dir: Path) -> list:
    """The blocks with every machine path made relative (tables, captions, paragraphs, bullets)."""
    pairs = replacements(run_dir)

    def fix(b):
        if isinstance(b, (Heading, Para)):
            return dataclasses.replace(b, text=relative(b.text, pairs))
        if isinstance(b, Bullets):
            return dataclasses.replace(b, items=[relative(i, pairs) for i in b.items])
        if isinstance(b, TableBlock):
            frame = b.frame.copy()
            frame.columns = [relative(str(c), pairs) for c in frame.columns]
            frame = frame.apply(lambda col: col.map(lambda v: relative(v, pairs) if isinstance(v, str) else v))
            return dataclasses.replace(b, frame=pd.DataFrame(frame), caption=relative(b.caption, pairs))
        if isinstance(b, Image):
            return dataclasses.replace(b, alt=relative(b.alt, pairs), caption=relative(b.caption, pairs))
        if isinstance(b, Details):
            return dataclasses.replace(b, summary=relative(b.summary, pairs), blocks=[fix(x) for x in b.blocks])
        return b

    return [fix(b) for b in blocks]
