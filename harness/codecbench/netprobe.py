"""Measure one worker link of a network lab from the worker's side (netlab.py): the round trip of
a small gRPC call to control, and upload and download goodput of random bytes through control's
blob store: the path a payload's transfer takes. Run inside the worker's namespace:

    ip netns exec cb1-w1 python -m codecbench.netprobe --control 10.201.1.1:7601 --up 200000 --down 400000

Prints one JSON object. Goodput = bytes / (elapsed − one median round trip): the request's own
round trip is the RTT's share, not the rate's.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

from .client import connect
from .pb import hs, ws

def measure(addr: str, up_bytes: int, down_bytes: int, pings: int = 15) -> dict:
    with connect(addr, ready_timeout=30) as control:
        rtts = []
        for _ in range(pings):
            t0 = time.perf_counter()
            control.harness.ListWorkers(hs.ListWorkersRequest(), timeout=30)
            rtts.append((time.perf_counter() - t0) * 1000)
        rtts.sort()
        rtt = rtts[len(rtts) // 2]
        stub = control.worker  # carries the token
        data = os.urandom(max(up_bytes, down_bytes))
        t0 = time.perf_counter()
        blob_id = control.put_blob(data[:up_bytes])
        up_s = time.perf_counter() - t0
        # Download a blob of down_bytes: the same random bytes, stored once more if sizes differ.
        if down_bytes != up_bytes:
            blob_id = control.put_blob(data[:down_bytes])
        t0 = time.perf_counter()
        got = sum(len(m.data) for m in stub.GetBlob(ws.GetBlobRequest(blob_id=blob_id), timeout=600))
        down_s = time.perf_counter() - t0
    if got != down_bytes:
        raise RuntimeError(f"downloaded {got} bytes of a {down_bytes}-byte blob")

    def goodput(n: int, s: float) -> float:
        return n * 8 / max(s - rtt / 1000, 1e-6) / 1e6

    return {"rtt_ms": round(rtt, 3), "rtt_ms_min": round(rtts[0], 3), "rtt_ms_max": round(rtts[-1], 3),
            "up_mbit": round(goodput(up_bytes, up_s), 4), "down_mbit": round(goodput(down_bytes, down_s), 4),
            "up_bytes": up_bytes, "down_bytes": down_bytes,
            "up_s": round(up_s, 4), "down_s": round(down_s, 4)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m codecbench.netprobe", description=__doc__.split("\n\n")[0])
    p.add_argument("--control", required=True)
    p.add_argument("--up", type=int, default=1 << 20, help="bytes to upload")
    p.add_argument("--down", type=int, default=1 << 20, help="bytes to download")
    args = p.parse_args(argv)
    try:
        print(json.dumps(measure(args.control, args.up, args.down)))
    except Exception as exc:  # noqa: BLE001 - the lab reports it with the link's name
        print(f"netprobe: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
