"""The two renderers of the block list: HTML (self-contained, inline CSS, plots as data URIs) and
Markdown."""

from __future__ import annotations

import base64
import html
from pathlib import Path

from .blocks import Bullets, Contents, Details, Heading, Image, Para, TableBlock
from .common import _slug


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
p.trust{background:#fff6d6;border-left:4px solid #e0a800;padding:.5em 1em;font-size:.92em}
figure{margin:1em 0}figure img{max-width:100%;border:1px solid #ddd}
@media (min-width:1100px){figure.side{float:right;width:34%;margin:0 0 1em 1.5em}}nav{clear:both}
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
        elif isinstance(b, Contents):
            if toc:
                out.append("Contents: " + " · ".join(f"[{t}](#{a})" for t, a in toc) + "\n")
        elif isinstance(b, Para):
            out.append({"warn": "> **note:** ", "trust": "> "}.get(b.cls, "") + b.text + "\n")
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
            # Folded where Markdown is rendered with HTML (GitHub, GitLab); plain elsewhere.
            out.append(f"<details><summary>{html.escape(b.summary)}</summary>\n")
            for x in b.blocks:
                emit(x)
            out.append("</details>\n")

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
        elif isinstance(b, Contents):
            if toc:
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
            cls = ' class="side"' if b.side else ""
            out.append(f'<figure{cls}><img alt="{e(b.alt)}" src="data:image/png;base64,{data}">'
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
