"""Which planned decode tasks control will not run because their payloads will be byte-identical
(Sampling.repeat_same_bytes off; control's state/same_bytes.rs decides once the payloads exist).
The plan's estimate leaves them out, so a run says up front how long it will really take.

The prediction reads the golden vectors (codecs/vectors/<dataset>.<language>.<ext>): two
languages whose reference implementation of a format writes the same bytes for a built-in
dataset's vector records write the same bytes for its other counts too (one generator, one
canonical model). It mirrors control's rule: per consumer, dataset, count, codec and mode, payloads
predicted equal form a group; the lead is the consumer's own payload, else one of its language,
else the producer first by id; the rest are predicted not run. Where nothing can be predicted (a
user dataset, a second implementation, a language without vectors) every task counts, so the
estimate errs long, never short."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Callable

from .catalogue import default_path, load

VECTORS = default_path().parent / "vectors"
# Node runs the page's TypeScript codecs (web/src/codecs): a format's reference implementation
# writes the browser's bytes there, and the vectors are the browser's.
VECTOR_LANGUAGE = {"node": "browser"}


@lru_cache(maxsize=1)
def _extensions() -> dict[str, str]:
    try:
        return {c["id"]: c["fileExtension"] for c in load(default_path()) if c.get("fileExtension")}
    except Exception:  # noqa: BLE001 - no catalogue, no prediction (the estimate counts every task)
        return {}


@lru_cache(maxsize=512)
def _vector(dataset: str, language: str, codec: str, vectors: Path) -> bytes | None:
    ext = _extensions().get(codec)
    if not ext or "/" in codec:
        return None
    path = vectors / f"{dataset}.{VECTOR_LANGUAGE.get(language, language)}.{ext}"
    try:
        return path.read_bytes()
    except OSError:
        return None


def predicted(tasks: list[dict], language_of: Callable[[str], str], scenario: dict,
              vectors: Path = VECTORS) -> set[str]:
    """Ids of the planned tasks (run.json form) predicted not to run: their cell's payload is the
    same bytes a lead cell decodes on the same consumer."""
    if ((scenario.get("sampling") or {}).get("repeatSameBytes")):
        return set()
    cells: dict[str, list[dict]] = {}
    for t in tasks:
        if (t.get("prepare") or t.get("duet") or (t.get("cellId") or "").endswith("~aa")
                or t.get("operation") != "OPERATION_DECODE"):
            continue
        payload_codec = t.get("payloadCodec") or t.get("codec", "")
        if payload_codec != t.get("codec"):
            continue
        cells.setdefault(t.get("cellId", ""), []).append(t)
    groups: dict[tuple, list[str]] = {}
    for cell, ts in cells.items():
        t = ts[0]
        producer = t.get("producerWorkerId", "")
        payload = _vector(t.get("dataset", ""), language_of(producer), t.get("codec", ""), vectors)
        if payload is None:
            continue
        work = (t.get("consumerWorkerId", ""), t.get("dataset"), int(t.get("recordCount") or 0), t.get("codec"),
                t.get("decodeMode", ""), payload)
        groups.setdefault(work, []).append(cell)
    out: set[str] = set()
    for work, members in groups.items():
        if len(members) < 2:
            continue
        consumer = work[0]
        producer = {c: cells[c][0].get("producerWorkerId", "") for c in members}
        lead = (next((c for c in members if producer[c] == consumer), None)
                or next((c for c in members if language_of(producer[c]) == language_of(consumer)), None)
                or min(members, key=lambda c: producer[c]))
        out.update(t["id"] for c in members if c != lead for t in cells[c])
    return out
