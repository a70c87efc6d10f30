"""The report as a list of blocks, rendered twice (HTML and Markdown) so the two never disagree."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd


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
    side: bool = False  # beside the blocks that follow it (HTML, wide screens): the first screen's picture


@dataclass
class Contents:
    """Where the table of contents goes: after the verdict, so the answer is the first screen."""


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
