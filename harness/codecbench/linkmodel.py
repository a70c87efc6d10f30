"""The link model: what one message would cost on a stated link, predicted from what a run
measured on this machine (encode and decode time, raw and compressed bytes). A model, labelled as
one wherever it is shown: it is arithmetic on the run's figures, not a measurement of the link.

Per message (a request and its response on a warm connection, as a page fetching a record set):

    latency  = encode + one round trip + wire bytes at the downlink's rate + decode
    messages per second = 1 / max(encode, decode, wire bytes at the downlink's rate)

The rate is that of a stream of messages pipelined on one connection: each side on one core, the
link kept full, so the slowest of the three stages sets it and the round trip does not. What the
model leaves out, on purpose: TCP slow start (the connection is warm), framing overhead (gRPC and
HTTP/2 add tens of bytes a message), the CPU of compressing (a compressed wire size is control's
whole-payload estimate; the compressed transfer legs of a run measure the rest), loss and jitter.
`check` puts the model beside a run measured on a shaped link: its two legs through control
against the legs the run timed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from . import netlab
from .results.rows import own_rows

# The profiles a report models when its run was not on a shaped link: the shaped ones.
STANDARD = ("lan", "wifi", "4g", "3g")
WIRE = {"identity": "payload_bytes", "gzip": "gzip_bytes", "zstd": "zstd_bytes"}

PREDICT_COLUMNS = ["dataset", "record_count", "codec", "producer_language", "consumer_language", "link",
                   "compression", "wire_bytes", "encode_ns", "decode_ns", "link_ns", "latency_ns",
                   "latency_lo_ns", "latency_hi_ns", "msgs_per_s", "msgs_lo_per_s", "msgs_hi_per_s",
                   "bottleneck"]
CHECK_COLUMNS = ["dataset", "record_count", "codec", "producer", "consumer", "wire_bytes",
                 "upload_model_ns", "upload_ns", "download_model_ns", "download_ns",
                 "end_to_end_model_ns", "end_to_end_ns", "difference"]


@dataclass(frozen=True)
class Link:
    """A link as the model sees it: rates in Mbit/s, round trip in ms."""

    name: str
    down_mbit: float
    up_mbit: float
    rtt_ms: float

    def describe(self) -> str:
        return f"{self.name} ({netlab._mbit(self.down_mbit)} down, {netlab._mbit(self.up_mbit)} up, {self.rtt_ms:g} ms RTT)"

    def seconds(self, nbytes: float, up: bool = False) -> float:
        return nbytes * 8 / ((self.up_mbit if up else self.down_mbit) * 1e6)


def link(name: str = "", down: float | None = None, up: float | None = None, rtt: float | None = None) -> Link:
    """A network profile by name (netlab.PROFILES), with any of its figures overridden; a custom
    link needs at least a downlink rate. An unshaped profile (loopback, veth) has no rate to model."""
    if name:
        try:
            p = netlab.profile(name)
        except netlab.LabError as exc:
            raise ValueError(str(exc)) from None
        base = (p.down_mbit, p.up_mbit or p.down_mbit, p.rtt_ms)
    else:
        base = (None, None, 0.0)
    d = down if down is not None else base[0]
    u = up if up is not None else (base[1] if name else d)
    r = rtt if rtt is not None else base[2]
    if d is None:
        raise ValueError(f"the link model needs a rate: profile {name!r} is unshaped; name a shaped one "
                         f"({', '.join(STANDARD)}) or give --down" if name else
                         "the link model needs a profile or a downlink rate (--down MBIT)")
    for what, v in (("down", d), ("up", u), ("rtt", r)):
        if not isinstance(v, (int, float)) or math.isnan(v) or v < 0 or (what != "rtt" and v == 0):
            raise ValueError(f"link {what} must be a positive number, not {v!r}")
    custom = any(v is not None for v in (down, up, rtt))
    return Link(f"{name}+custom" if name and custom else (name or "custom"), float(d), float(u), float(r))


def _typed(summary: pd.DataFrame) -> pd.DataFrame:
    """Rows with both an encode and a typed decode, verified, not A/A twins: the application's path."""
    if summary.empty:
        return summary
    ok = (summary["mode"] == "typed") & summary["verified"].fillna(False).astype(bool) \
        & ~summary["aa_twin"].fillna(False).astype(bool) \
        & summary["encode_ns_per_op"].notna() & summary["decode_ns_per_op"].notna()
    return summary[ok]


def predict(summary: pd.DataFrame, lk: Link, compression: str = "identity") -> pd.DataFrame:
    """The model for every codec, dataset, record count and producer → consumer language of a run
    (summary_frame with producer_language/consumer_language). Several workers of one language: the
    median of their encode and decode, the widest of their bounds. Intervals carry the encode and
    decode intervals through; the link's figures are taken as exact."""
    if compression not in WIRE:
        raise ValueError(f"compression must be one of {', '.join(WIRE)}, not {compression!r}")
    s = _typed(own_rows(summary))
    rows = []
    keys = ["dataset", "record_count", "codec", "producer_language", "consumer_language"]
    for key, g in (s.groupby(keys, sort=False) if not s.empty else []):
        wire = float(g[WIRE[compression]].median())
        if math.isnan(wire) or wire <= 0:
            continue
        enc, dec = float(g["encode_ns_per_op"].median()), float(g["decode_ns_per_op"].median())
        enc_lo, enc_hi = float(g["encode_lo_ns_per_op"].min()), float(g["encode_hi_ns_per_op"].max())
        dec_lo, dec_hi = float(g["decode_lo_ns_per_op"].min()), float(g["decode_hi_ns_per_op"].max())
        net = lk.seconds(wire) * 1e9
        rtt = lk.rtt_ms * 1e6
        stages = {"encode": enc, "decode": dec, "link": net}
        slowest = max(stages, key=stages.get)
        rows.append([*key, lk.name, compression, wire, enc, dec, net,
                     enc + rtt + net + dec, enc_lo + rtt + net + dec_lo, enc_hi + rtt + net + dec_hi,
                     1e9 / max(enc, dec, net), 1e9 / max(enc_hi, dec_hi, net), 1e9 / max(enc_lo, dec_lo, net),
                     slowest])
    return pd.DataFrame(rows, columns=PREDICT_COLUMNS)


def run_link(doc: dict) -> Link | None:
    """The shaped link a run was measured on (run.json's network), else None."""
    conf = ((doc or {}).get("network") or {}).get("configured") or {}
    if not conf.get("down_mbit"):
        return None
    return Link(doc["network"].get("profile", "custom"), float(conf["down_mbit"]),
                float(conf.get("up_mbit") or conf["down_mbit"]), float(conf.get("rtt_ms") or 0.0))


def _worker_link(doc: dict, worker: str, configured: Link) -> Link:
    """A worker's link as the run measured it from the worker's side, else as configured."""
    m = (((doc.get("network") or {}).get("links") or {}).get(worker) or {})
    if all(k in m for k in ("rtt_ms", "down_mbit", "up_mbit")):
        return Link(configured.name, float(m["down_mbit"]), float(m["up_mbit"]), float(m["rtt_ms"]))
    return configured


def check(summary: pd.DataFrame, doc: dict, measured_links: bool = True) -> pd.DataFrame:
    """The model against a run measured on a shaped link. In the lab every worker has a link of its
    own to control, so a payload crosses two: the producer's uplink (upload) and the consumer's
    downlink (download), each one round trip plus its bytes at that direction's rate. Difference:
    the model's end to end over the measured one, minus 1. Empty when the run had no shaped link."""
    lk = run_link(doc)
    s = _typed(summary)
    if lk is None or s.empty:
        return pd.DataFrame(columns=CHECK_COLUMNS)
    s = s[s["upload_ns_per_op"].notna() & s["download_ns_per_op"].notna()]
    rows = []
    for r in s.to_dict("records"):
        up = _worker_link(doc, r["producer"], lk) if measured_links else lk
        down = _worker_link(doc, r["consumer"], lk) if measured_links else lk
        wire = float(r["payload_bytes"])
        up_ns = (up.rtt_ms / 1e3 + up.seconds(wire, up=True)) * 1e9
        down_ns = (down.rtt_ms / 1e3 + down.seconds(wire)) * 1e9
        model = r["encode_ns_per_op"] + up_ns + down_ns + r["decode_ns_per_op"]
        measured = float(r["end_to_end_ns_per_op"])
        rows.append([r["dataset"], int(r["record_count"]), r["codec"], r["producer"], r["consumer"], wire,
                     up_ns, float(r["upload_ns_per_op"]), down_ns, float(r["download_ns_per_op"]),
                     model, measured, model / measured - 1 if measured > 0 else math.nan])
    return pd.DataFrame(rows, columns=CHECK_COLUMNS)


# ---- tables, one way for the terminal and the report ----------------------------------------------

NOTE = ("A model, not a measurement: latency = encode + one round trip + the wire bytes at the downlink's "
        "rate + decode, for a request and its response on a warm connection; messages per second = the "
        "slowest of encode, decode and the link, for messages pipelined on one connection (each side one "
        "core). Encode and decode are this run's medians for typed objects, on this machine. Left out: TCP "
        "slow start, framing (tens of bytes a message), the CPU of compressing, loss and jitter.")


def _rate(v: float) -> str:
    return "—" if math.isnan(v) else (f"{v:,.0f}" if v >= 10 else f"{v:.2f}")


def prediction_table(preds: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Link name → predict(); one row per codec and language pair, two columns per link."""
    from .units import fmt_size, fmt_time

    first = next(iter(preds.values()))
    rows = []
    for i, r in enumerate(first.to_dict("records")):
        cells = [r["dataset"], f"{r['record_count']:,}", r["codec"],
                 f"{r['producer_language']} → {r['consumer_language']}", fmt_size(r["wire_bytes"])]
        for p in preds.values():
            q = p.iloc[i]
            cells += [f"{fmt_time(q['latency_ns'])} [{fmt_time(q['latency_lo_ns'])}–{fmt_time(q['latency_hi_ns'])}]",
                      f"{_rate(q['msgs_per_s'])} ({q['bottleneck']})"]
        rows.append(cells)
    cols = ["dataset", "records", "codec", "producer → consumer", "bytes"]
    for name in preds:
        cols += [f"{name}: latency", f"{name}: msg/s"]
    return pd.DataFrame(rows, columns=cols)


def check_table(chk: pd.DataFrame) -> pd.DataFrame:
    from .units import fmt_size, fmt_time

    rows = [[r["dataset"], f"{r['record_count']:,}", r["codec"], f"{r['producer']} → {r['consumer']}",
             fmt_size(r["wire_bytes"]), fmt_time(r["upload_model_ns"]), fmt_time(r["upload_ns"]),
             fmt_time(r["download_model_ns"]), fmt_time(r["download_ns"]),
             fmt_time(r["end_to_end_model_ns"]), fmt_time(r["end_to_end_ns"]),
             "—" if math.isnan(r["difference"]) else f"{r['difference'] * 100:+.1f} %"]
            for r in chk.to_dict("records")]
    return pd.DataFrame(rows, columns=["dataset", "records", "codec", "producer → consumer", "bytes",
                                       "upload (model)", "upload", "download (model)", "download",
                                       "end to end (model)", "end to end", "difference"])


def check_sentence(chk: pd.DataFrame) -> str:
    d = chk["difference"].dropna()
    return (f"the model's end to end (two links: the producer's uplink, then the consumer's downlink, each "
            f"one round trip plus its bytes at the rate measured on it) differs from the measured one by "
            f"{d.median() * 100:+.1f} % at the median, {d.abs().max() * 100:.1f} % at worst, over {len(d)} cells")
