"""The joined results table (one row per dataset × codec × mode × count × producer → consumer, with
the encode, upload, download and decode legs and end to end), and the smaller tables beside it."""

from __future__ import annotations

import json
import math

import pandas as pd

from ..scenario import DATASETS
from .rows import LEGS, SAME_BYTES, SUMMARY_KEYS, _failures, lang_of
from .cells import _records, _side, cells_frame, compressed_sizes


LEG_FIELDS = ["ns_per_record", "ns_per_op", "lo_ns_per_op", "hi_ns_per_op", "ci_pct", "coverage",
              "trials", "unsteady", "alloc_bytes_per_op", "language"]
SUMMARY_COLUMNS = SUMMARY_KEYS + ["cell_id", "aa_twin", "encode_mode", "payload_bytes", "gzip_bytes", "zstd_bytes",
                                  "payload_blob_id", "same_bytes_as", "measured_in"] + [
    f"{leg}_{f}" for leg in LEGS for f in LEG_FIELDS] + [
    "end_to_end_ns_per_op", "end_to_end_ns_per_record", "end_to_end_lo_ns_per_op",
    "end_to_end_hi_ns_per_op", "verified", "failure"]


def summary_frame(df: pd.DataFrame) -> pd.DataFrame:
    """One row per decode cell (dataset, codec, mode, count, producer → consumer), joined with the
    producer's encode and upload cells (keyed dataset, payload codec, count, producer: the
    implementation that wrote the payload, `codec` unless another of its format did) and the consumer's
    download cell (its own, else the one for the same payload and consumer). Each leg is the median
    over trials with its interval (cells_frame).

    Encode cells without any decode cell get a row of their own with an empty mode and consumer.
    End to end (encode + upload + download + decode, a sum of the parts' medians) is added where all
    four were measured. `same_bytes_as` names the other producers whose payload was byte-identical.
    A decode cell control did not run because its payload is the same bytes a lead cell decodes on
    the same consumer (Sampling.repeat_same_bytes off) gets the lead's decode (and download) leg,
    verification included, joined with its own producer's encode; `measured_in` names the lead's
    producer ("" for a row measured in its own cell).
    """
    if df.empty:
        return pd.DataFrame(columns=SUMMARY_COLUMNS)
    cells = cells_frame(df)
    recs = cells.to_dict("records")
    # The payload's writer: a decode of a payload another implementation wrote joins that encode.
    enc_key = ("dataset", "payload_codec", "record_count", "producer")
    encodes: dict[tuple, dict] = {}
    uploads: dict[tuple, dict] = {}
    downloads: dict[tuple, list[dict]] = {}
    by_cell: dict[tuple, dict] = {}
    decodes: list[dict] = []
    blob_producers: dict[tuple, set] = {}
    # Compressed transfer legs have a table of their own (transfer_compression); rows join identity legs.
    recs = [c for c in recs if not c["compression"]]
    for c in recs:
        key = tuple(c[k] for k in enc_key)
        by_cell[(c["cell_key"], c["operation"])] = c
        if c["payload_blob_id"]:
            blob_producers.setdefault((c["dataset"], c["payload_codec"], c["record_count"], c["payload_blob_id"]),
                                      set()).add(c["producer"])
        if c["operation"] == "encode":
            # In memory ("") or streaming: a streaming decode row takes the streaming encode.
            encodes.setdefault(key + (c["decode_mode"],), c)
        elif c["operation"] == "upload":
            uploads.setdefault(key, c)
        elif c["operation"] == "download":
            downloads.setdefault(key + (c["consumer"],), []).append(c)
    for c in recs:
        if c["operation"] == "decode":
            decodes.append(c)
    decodes += measured_in_leads(df, by_cell)
    # A download cell with no decode cell of its own (its decode task failed before timing) still
    # names its consumer's row.
    decode_keys = {c["cell_key"] for c in decodes}
    for dl in (d for ds in downloads.values() for d in ds):
        if dl["cell_key"] not in decode_keys:
            decodes.append({**dl, "operation": "decode-missing"})
            decode_keys.add(dl["cell_key"])
    rows = []
    used = set()
    for dec in decodes:
        key = tuple(dec[k] for k in enc_key)
        enc_mode = dec["decode_mode"] if key + (dec["decode_mode"],) in encodes else ""
        enc, up = encodes.get(key + (enc_mode,)), uploads.get(key)
        dl = by_cell.get((dec.get("lead_key", dec["cell_key"]), "download"))
        if dl is None:
            same = [d for d in downloads.get(key + (dec["consumer"],), []) if not d["aa_twin"]]
            dl = same[0] if same else None
        real_dec = dec if dec["operation"] == "decode" else None
        if not dec["aa_twin"]:
            # Twin rows are left out of leaderboards: an encode joined only to twins keeps its own row.
            used.add(key + (enc_mode,))
        parts = [p for p in (enc, up, dl, real_dec) if p is not None]
        failure = _failures([{"operation": p["operation"], "failure": p["failure"]} for p in parts]
                            + ([{"operation": "decode", "failure": dec["failure"]}] if real_dec is None else []))
        blob = dec["payload_blob_id"] or (enc or {}).get("payload_blob_id", "")
        others = sorted(blob_producers.get((dec["dataset"], dec["payload_codec"], dec["record_count"], blob), set())
                        - {dec["producer"]}) if blob else []
        rows.append({
            "dataset": dec["dataset"], "codec": dec["codec"], "payload_codec": dec["payload_codec"], "mode": dec["decode_mode"],
            "record_count": int(dec["record_count"]), "producer": dec["producer"],
            "consumer": dec["consumer"], "cell_id": dec["cell_id"], "aa_twin": bool(dec["aa_twin"]),
            # "streaming" where the encode leg is the streaming encode, else "" (in memory).
            "encode_mode": enc_mode if enc is not None else "",
            "payload_bytes": int(max([p["payload_bytes"] for p in parts] + [0])),
            **compressed_sizes(parts),
            "payload_blob_id": blob, "same_bytes_as": ", ".join(others), "measured_in": dec.get("measured_in", ""),
            **_side(enc, "encode"), **_side(up, "upload"), **_side(dl, "download"),
            **_side(real_dec, "decode"),
            # The payload itself was verified by the cell's prepare task (a failure there fails
            # every decode of it), so a decode stands verified even when no encode trial ran.
            "verified": bool(real_dec is not None and not failure and all(p["verified"] for p in parts)),
            "failure": failure,
        })
    for key, enc in encodes.items():
        if key in used:
            continue
        up = uploads.get(key[:-1]) if not key[-1] else None
        parts = [p for p in (enc, up) if p is not None]
        rows.append({
            "dataset": enc["dataset"], "codec": enc["codec"], "payload_codec": enc["codec"], "mode": key[-1],
            "record_count": int(enc["record_count"]), "producer": enc["producer"], "consumer": "",
            "cell_id": enc["cell_id"], "aa_twin": False, "encode_mode": key[-1],
            "payload_bytes": int(max(p["payload_bytes"] for p in parts)),
            **compressed_sizes(parts),
            "payload_blob_id": enc["payload_blob_id"], "same_bytes_as": "", "measured_in": "",
            **_side(enc, "encode"), **_side(up, "upload"), **_side(None, "download"), **_side(None, "decode"),
            "verified": bool(all(p["verified"] for p in parts) and not _failures(parts)),
            "failure": _failures(parts),
        })
    out = pd.DataFrame(rows, columns=SUMMARY_COLUMNS)
    out = add_end_to_end(out)
    order = {d: i for i, d in enumerate(DATASETS)}
    out["_d"] = out["dataset"].map(lambda d: order.get(d, len(order)))
    out["_m"] = out["mode"].map(lambda m: {"typed": 0, "tree": 1, "lazy": 2, "streaming": 3}.get(m, 4))
    out = out.sort_values(["_d", "dataset", "record_count", "codec", "_m", "producer", "consumer", "aa_twin"],
                          kind="stable").drop(columns=["_d", "_m"]).reset_index(drop=True)
    return out


def measured_in_leads(df: pd.DataFrame, by_cell: dict) -> list[dict]:
    """The decode cells of SAME_BYTES rows, as their leads measured them: the lead's cell with this
    cell's identity (producer, cell id, the payload's writer) and `measured_in` its lead's producer.
    A row whose lead has no decode cell (its tasks failed before any row) is left out: its failure
    is the lead's."""
    if "same_bytes_as" not in df or df.empty:
        return []
    leads = {c["cell_id"]: c for (key, op), c in by_cell.items() if op == "decode"}
    out = []
    for r in df[df["operation"] == SAME_BYTES].to_dict("records"):
        lead = leads.get(r["same_bytes_as"])
        if lead is None:
            continue
        out.append({**lead, "cell_key": r["cell_id"], "cell_id": r["cell_id"], "producer": r["producer"],
                    "payload_codec": r["payload_codec"] or r["codec"], "aa_twin": False,
                    "lead_key": lead["cell_key"], "measured_in": lead["producer"]})
    return out


def add_end_to_end(summary: pd.DataFrame) -> pd.DataFrame:
    """End to end = encode + upload + download + decode of one payload (each the median over its
    trials, ns per operation), per producer → consumer cell and decode mode: a sum of parts, only
    where all four were measured (a sum with a missing part would look faster than it is). Its
    bounds are the sums of the parts' bounds (wider than a joint interval: conservative)."""
    total = summary[[f"{leg}_ns_per_op" for leg in LEGS]].astype(float).sum(axis=1, min_count=4)
    summary["end_to_end_ns_per_op"] = total
    summary["end_to_end_lo_ns_per_op"] = summary[[f"{leg}_lo_ns_per_op" for leg in LEGS]].astype(float) \
        .sum(axis=1, min_count=4)
    summary["end_to_end_hi_ns_per_op"] = summary[[f"{leg}_hi_ns_per_op" for leg in LEGS]].astype(float) \
        .sum(axis=1, min_count=4)
    counts = summary["record_count"].astype(float).where(summary["record_count"] > 0)
    summary["end_to_end_ns_per_record"] = total / counts
    return summary


def control_memory(start: int, peak: int, df: pd.DataFrame) -> str:
    """Control's resident memory during a run (Run.control_rss_start_bytes and its peak, VmHWM reset
    when the run started), beside the largest payload that passed through it."""
    largest = int(df["payload_bytes"].max()) if len(df) else 0
    return (f"resident {start / 2**20:.0f} MiB at the start, peak +{max(peak - start, 0) / 2**20:.1f} MiB "
            f"during the run (largest payload {largest / 2**20:.1f} MiB)")


def extra_medians(df: pd.DataFrame, key: str, langs: dict[str, str] | None = None) -> pd.DataFrame:
    """The median over trials of one measurement extra (e.g. peak_heap_bytes) per dataset, codec,
    operation, decode mode, record count and language, where the worker reported it."""
    from .. import stats

    cols = ["dataset", "codec", "operation", "decode_mode", "record_count", "language", "trials", key]
    t = df[df["failure"] == ""]
    groups: dict[tuple, list[float]] = {}
    for r, extras in zip(_records(t), t["extras"]):
        v = json.loads(extras or "{}").get(key)
        if v is None:
            continue
        lang = r["language"] or (lang_of(r["worker_id"], langs) if langs else "")
        k = (r["dataset"], r["codec"], r["operation"], r["decode_mode"], int(r["record_count"]), lang)
        groups.setdefault(k, []).append(float(v))
    return pd.DataFrame([[*k, len(v), stats.median(v)] for k, v in groups.items()], columns=cols)


COMPRESSION_COLUMNS = ["operation", "dataset", "codec", "record_count", "worker_id", "language", "compression",
                       "payload_bytes", "wire_estimate_bytes", "trials", "median_ns_per_op", "lo_ns_per_op",
                       "hi_ns_per_op", "identity_ns_per_op", "vs_identity"]


def compression_frame(cells: pd.DataFrame, langs: dict[str, str] | None = None) -> pd.DataFrame:
    """Every transfer leg (upload, download) per payload, worker and compression (identity first,
    then gzip, zstd), verified and not an A/A twin: its median over trials with the rerun interval,
    the payload's size compressed whole by control (gzip level 6, zstd level 3: an estimate of the
    wire bytes; gRPC compresses each 1 MiB chunk on its own) and the leg's time relative to the
    identity leg of the same payload and worker."""
    t = cells[cells["operation"].isin(["upload", "download"]) & ~cells["aa_twin"].astype(bool)
              & cells["verified"].astype(bool)]
    if t.empty:
        return pd.DataFrame(columns=COMPRESSION_COLUMNS)
    identity = {(r["operation"], r["cell_id"]): r["median_ns_per_op"]
                for r in t.to_dict("records") if not r["compression"]}
    rows = []
    for r in t.to_dict("records"):
        c = r["compression"] or "identity"
        wire = {"identity": r["payload_bytes"], "gzip": r["gzip_bytes"], "zstd": r["zstd_bytes"]}.get(c, math.nan)
        base = identity.get((r["operation"], r["cell_id"]), math.nan)
        rows.append([r["operation"], r["dataset"], r["codec"], int(r["record_count"]), r["worker_id"],
                     r["language"] or (lang_of(r["worker_id"], langs) if langs else ""), c,
                     int(r["payload_bytes"]), wire, int(r["trials"]), r["median_ns_per_op"], r["lo_ns_per_op"],
                     r["hi_ns_per_op"], base, r["median_ns_per_op"] / base if base and base > 0 else math.nan])
    out = pd.DataFrame(rows, columns=COMPRESSION_COLUMNS)
    order = {"identity": 0, "gzip": 1, "zstd": 2}
    out["_c"] = out["compression"].map(lambda c: order.get(c, 3))
    return out.sort_values(["dataset", "record_count", "operation", "codec", "language", "worker_id", "_c"],
                           kind="stable").drop(columns="_c").reset_index(drop=True)


def transfer_vs_raw_tcp(df: pd.DataFrame, langs: dict[str, str] | None = None) -> pd.DataFrame:
    """Each transfer leg (upload, download) of each payload size and worker beside the raw loopback
    TCP copy of the same bytes the worker timed in the same trial (extras raw_tcp_ns_per_op, the
    Rust worker's; other workers report none): medians over trials, throughputs in MB/s (10^6 B/s)
    and the leg's share of the raw throughput."""
    from .. import stats

    cols = ["operation", "dataset", "codec", "record_count", "language", "payload_bytes", "trials",
            "leg_ns_per_op", "raw_ns_per_op", "leg_mb_s", "raw_mb_s", "share_of_raw"]
    t = df[df["operation"].isin(["upload", "download"]) & (df["failure"] == "") & (df["compression"] == "")]
    groups: dict[tuple, list] = {}
    for r, extras in zip(_records(t), t["extras"]):
        if not r["round_ns_per_op"]:
            continue
        raw = json.loads(extras or "{}").get("raw_tcp_ns_per_op")
        lang = r["language"] or (lang_of(r["worker_id"], langs) if langs else "")
        key = (r["operation"], r["dataset"], r["codec"], int(r["record_count"]), lang, int(r["payload_bytes"] or 0))
        groups.setdefault(key, []).append((stats.trial_figure(r["round_ns_per_op"]), raw))
    rows = []
    for (op, ds, codec, count, lang, size), trials in groups.items():
        leg = stats.median([f for f, _ in trials])
        raws = [x for _, x in trials if x]
        raw = stats.median(raws) if raws else math.nan
        rows.append([op, ds, codec, count, lang, size, len(trials), leg, raw, size / leg * 1e3 if leg else math.nan,
                     size / raw * 1e3 if raws and raw else math.nan, raw / leg if raws and leg else math.nan])
    return pd.DataFrame(rows, columns=cols)
