"""Numbers with units, one way for the terminal and the report: three significant digits, a unit
chosen per value (412 ns, 1.29 µs, 13.2 ms)."""

from __future__ import annotations

import math


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v))


def fmt_num(v: float) -> str:
    if _nan(v):
        return "—"
    if abs(v) >= 100:
        return f"{v:,.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def fmt_time(ns: float) -> str:
    """ns with a unit chosen for readability (tables that mix scales)."""
    if _nan(ns):
        return "—"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{fmt_num(ns / scale)} {unit}"
    return f"{fmt_num(ns)} ns"


def fmt_size(b: float) -> str:
    """Bytes: whole above 100, else three digits (a per-record size can be fractional)."""
    if _nan(b):
        return "—"
    return f"{b:,.0f} B" if b >= 100 or b == int(b) else f"{fmt_num(b)} B"
