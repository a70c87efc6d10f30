#!/usr/bin/env python3
"""A plain CPU loop that measures itself: the noise gauge of issue 35 ("a plain CPU loop varying
2.5x"). It times the same fixed busy loop (calibrated once to about --ms milliseconds) again and
again, and prints each batch's min, median, max and coefficient of variation, so a run made
beside it can state how noisy the machine was. It is also a load: it keeps one core busy.

    python3 scripts/cpu_loop.py --seconds 150 --ms 60 --batch 20
"""
from __future__ import annotations

import argparse
import statistics
import time


def spin(n: int) -> int:
    x = 0
    for i in range(n):
        x = (x * 31 + i) & 0xFFFF
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=150, help="how long to run")
    ap.add_argument("--ms", type=float, default=60, help="target length of one loop")
    ap.add_argument("--batch", type=int, default=20, help="loops per printed batch")
    a = ap.parse_args()
    n = 100_000
    while True:  # calibrate: the loop count that takes about --ms
        t = time.perf_counter()
        spin(n)
        took = (time.perf_counter() - t) * 1e3
        if took >= a.ms / 2:
            n = int(n * a.ms / took)
            break
        n *= 2
    end, all_ms, cvs = time.monotonic() + a.seconds, [], []
    while time.monotonic() < end:
        batch = []
        for _ in range(a.batch):
            t = time.perf_counter()
            spin(n)
            batch.append((time.perf_counter() - t) * 1e3)
        cv = statistics.pstdev(batch) / statistics.mean(batch)
        cvs.append(cv)
        all_ms += batch
        print(f"batch: min {min(batch):.0f} ms, median {statistics.median(batch):.0f} ms, max {max(batch):.0f} ms, "
              f"CV {cv:.0%}", flush=True)
    print(f"all {len(all_ms)} loops: min {min(all_ms):.0f} ms, median {statistics.median(all_ms):.0f} ms, "
          f"max {max(all_ms):.0f} ms (max/min {max(all_ms) / min(all_ms):.2f}); batch CV "
          f"{min(cvs):.0%}-{max(cvs):.0%}", flush=True)


if __name__ == "__main__":
    main()
