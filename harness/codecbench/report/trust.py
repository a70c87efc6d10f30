"""Whether the numbers can be trusted: the warnings, the noise floor, duets, failures, and how to
read the report."""

from __future__ import annotations

import re

import pandas as pd

from .. import duets, results, stats
from ..units import fmt_num
from ..scenario import DATASETS
from .blocks import Bullets, Details, Para, TableBlock
from .common import MIN_TRIALS, WIDE_CI


class TrustSections:
    """Sections that qualify the figures (mixed into report.builder.Builder)."""

    def trust(self) -> None:
        warnings: list[str] = []
        for wid, env in self.worker_envs().items():
            d = env["details"]
            profile = str(env["buildProfile"]).lower()
            if profile in ("debug", "dev") or str(d.get("debug_assertions", "")).lower() == "true":
                warnings.append(f"{wid}: a debug build (build profile {env['buildProfile'] or '?'}, "
                                f"debug_assertions {d.get('debug_assertions', '?')}): its times are not "
                                "representative of production code.")
            if env["language"] == "browser":
                coi = str(d.get("crossOriginIsolated", "")).lower()
                if coi != "true":
                    res = d.get("timerResolutionUs")
                    warnings.append(f"{wid}: the page is not cross-origin isolated (crossOriginIsolated "
                                    f"{d.get('crossOriginIsolated', 'unknown')}): performance.now() is "
                                    f"coarsened (timer resolution {res or '?'} µs instead of 5 µs).")
        t = self.cells[self.cells["trials"] > 0]
        unsteady = t[t["unsteady"] > 0]
        if not unsteady.empty:
            n = int(unsteady["unsteady"].sum())
            by_lang = unsteady.groupby("language")["unsteady"].sum()
            langs = ", ".join(f"{lang} {int(k)}" for lang, k in by_lang.items())
            warnings.append(f"{n} trial(s) in {len(unsteady)} cell(s) never reached a steady state before "
                            f"sampling.maxWarmupMs (JIT still compiling, or recent rounds still drifting; "
                            f"by language: {langs}): they are measured and marked \"~\" in the tables.")
        wide = t[t["ci_pct"] > WIDE_CI * 100]
        if not wide.empty:
            worst = wide.sort_values("ci_pct", ascending=False).head(5)
            ex = "; ".join(f"{r.operation} {r.dataset}×{r.record_count} {r.codec}"
                           f"{'/' + r.decode_mode if r.decode_mode else ''} on {r.worker_id} "
                           f"±{r.ci_pct:.0f}%" for r in worst.itertuples())
            warnings.append(f"{len(wide)} of {len(t)} timed cells have a 95 % interval wider than "
                            f"±{WIDE_CI:.0%} of their median (where an identical rerun's median would land; "
                            f"threshold {WIDE_CI:.0%}); they are marked \"!\" in the tables. Widest: {ex}. "
                            "More trials (sampling.trials, maxTrials) or a quieter machine help.")
        few = t[t["trials"] < MIN_TRIALS]
        if not few.empty:
            cov = stats.ci_ranks(int(few["trials"].min()))[2]
            warnings.append(f"{len(few)} cell(s) have fewer than {MIN_TRIALS} trials (as few as "
                            f"{int(few['trials'].min())}, whose min..max interval holds an identical rerun's "
                            f"median only {cov:.1%} of the time): use sampling.trials ≥ {MIN_TRIALS}.")
        if self.noise.groups and self.noise.worst > 1 + WIDE_CI:
            warnings.append(f"the {self.noise.sentence()}: differences smaller than that are ties "
                            "in every table of this report (see Noise floor).")
        unverified = t[~t["verified"]]
        if not unverified.empty:
            warnings.append(f"{len(unverified)} timed cell(s) were not verified against the "
                            "canonical records.")
        failed = self.failure_rows()
        if not failed.empty:
            warnings.append(f"{failed['task_id'].nunique()} task(s) failed or were not verified: "
                            "their cells are missing from the plots; see Failures.")
        status = (self.run.get("status") or "").removeprefix("RUN_STATUS_").lower()
        if status and status != "finished":
            warnings.append(f"the run did not finish (status {status}"
                            + (f": {self.run.get('message')}" if self.run.get("message") else "") + ").")
        on_host = [e for e in self.worker_envs().values() if e["hostname"]]
        hosts = {e["hostname"] for e in on_host}
        cores = [int(e["cores"]) for e in on_host if e["cores"]]
        if len(on_host) > 1 and len(hosts) == 1 and cores and min(cores) <= 2:
            warnings.append(f"{len(on_host)} workers shared one host ({on_host[0]['hostname']}) with {min(cores)} "
                            "cores: control runs one task at a time, but background work (JIT, GC, "
                            "the browser) competes with the measured worker.")
        self.warnings = warnings
        self.section("Can these numbers be trusted?", "warnings")
        if warnings:
            self.add(Bullets(warnings, "warn"))
        else:
            self.add(Para("No warnings: release builds, isolated pages, every interval within "
                          f"±{WIDE_CI:.0%}, at least {MIN_TRIALS} trials per cell, every trial steady, "
                          "no failures.", "ok"))

    def noise_floor(self) -> None:
        self.section("Noise floor: identical work measured twice", "noise")
        self.add(Para(f"{self.noise.sentence()[0].upper()}{self.noise.sentence()[1:]}. An A/A group is a "
                      "set of decode cells doing byte-identical work: one consumer decoding the same "
                      "payload (same SHA-256 blob) in the same mode, produced by different workers, plus "
                      "each deliberate A/A twin (sampling.aaCells) with its original. Two figures of this "
                      "run differ only when their 95 % intervals do not overlap and their ratio exceeds "
                      "the noise floor; otherwise they are a tie."))
        self.add(Para(f"{self.transfer_noise.sentence(transfer=True)[0].upper()}"
                      f"{self.transfer_noise.sentence(transfer=True)[1:]}. Its A/A groups are download cells "
                      "of one consumer fetching the same blob for several producers' cells: loopback "
                      "gRPC transfers are noisier than decodes, so `compare` holds upload and download "
                      "to this floor instead of the decode one."))
        if self.aa.empty:
            return
        rows = []
        for r in self.aa.sort_values("ratio", ascending=False).itertuples():
            meds = "; ".join(f"{p} {fmt_num(m / r.record_count)}" for p, m in zip(r.producers, r.medians))
            rows.append([r.consumer, r.dataset, f"{int(r.record_count):,}", r.codec, r.decode_mode,
                         meds, f"{(r.ratio - 1) * 100:.1f} %"])
        cols = ["consumer", "dataset", "records", "codec", "mode", "decode ns/rec by producer (same bytes)",
                "max/min − 1"]
        self.add(Details(f"Every A/A group ({len(rows)}), worst first",
                         [TableBlock(pd.DataFrame(rows, columns=cols), left=6)]))

    def duets(self) -> None:
        """Duet ratios (duets.py) beside the same ratio from separately measured cells."""
        found = duets.from_results(self.run_dir)
        if not found:
            return
        self.section("Duets: two codecs measured at the same moment", "duets")
        lines = duets.table(found)
        self.add(Para("Each duet ran trial k of two cells at the same moment, one on each of two workers "
                      "of a language, each in its own lane, so both saw the same interference; its ratio "
                      "(right / left) is judged trial by trial (paired). Beside it: the same trials with "
                      "their pairing ignored, and the run's ordinary cells, measured alone, by the rule the "
                      "verdict uses. Narrower is better; an A/A duet (a codec against itself) should hold 1. "
                      + lines[-1] + "."))
        rows = []
        for d in found:
            rows.append([d.language, d.operation + (f" ({d.decode_mode})" if d.decode_mode else ""),
                         f"{d.dataset} × {d.record_count:,}", f"{d.right} / {d.left}" + (" (A/A)" if d.aa else ""),
                         str(d.pairs), duets.fmt(d.paired), duets.fmt(d.unpaired), duets.fmt(d.separate)])
        cols = ["language", "operation", "data", "ratio", "pairs", "paired", "same trials, unpaired", "separate cells"]
        self.add(TableBlock(pd.DataFrame(rows, columns=cols), left=4))

    def failure_rows(self) -> pd.DataFrame:
        df = self.df
        # A same-bytes row is no measurement: its lead's rows say whether that work was verified.
        bad = df[((df["failure"].fillna("") != "") | ~df["verified"]) & (df["operation"] != results.SAME_BYTES)]
        return bad

    def failures(self) -> None:
        bad = self.failure_rows()
        if bad.empty:
            return  # nothing to say: the trust section says "no failures"
        self.section("Failures and unverified results", "failures")
        msgs = bad["failure"].map(lambda m: m or "not verified against the canonical records")
        norm = msgs.map(lambda m: re.sub(r"\(\S+-t\d+\)", "(…)", m))
        grouped = norm.value_counts()
        self.add(Para(f"{bad['task_id'].nunique()} task(s) did not give a verified result. "
                      "By message:"),
                 TableBlock(pd.DataFrame({"message": grouped.index, "measurements": grouped.values})))
        rows = []
        order = bad.assign(_d=bad["dataset"].map(lambda d: DATASETS.index(d) if d in DATASETS else 99))
        for r in order.sort_values(["_d", "record_count", "codec", "operation", "decode_mode",
                                    "producer", "consumer"]).itertuples():
            who = r.producer + (f" → {r.consumer}" if r.consumer and r.operation != "encode" else "")
            rows.append([r.operation, r.dataset, f"{int(r.record_count):,}", r.codec, r.decode_mode or "—",
                         who, r.worker_id or "—", r.failure or "not verified against the canonical records"])
        self.add(Details(f"Every failed or unverified measurement ({len(rows)})", [TableBlock(left=8, frame=
            pd.DataFrame(rows, columns=["operation", "dataset", "records", "codec", "mode",
                                        "producer → consumer", "measured by", "message"]),
            classes=pd.DataFrame([[""] * 7 + ["fail"]] * len(rows),
                                 columns=["operation", "dataset", "records", "codec", "mode",
                                          "producer → consumer", "measured by", "message"]))]))

    def method(self) -> None:
        self.section("How to read this report", "method")
        seed = (self.scenario.get("sampling") or {}).get("orderSeed", "")
        self.add(Bullets([
            "Each cell (one operation of one dataset × count × codec × producer, and × consumer × mode "
            "for decode) is measured in independent trials, each in a fresh process (a child Rust process, "
            "a fresh JVM, a fresh headless Chromium page), interleaved with every other cell's trials in "
            "passes (trial k of every cell before any trial k+1), each pass in a seeded random order "
            f"(trial order seed {seed or 'not recorded'}). The browser's trials of one pass share one "
            "Chromium launch and each pass has its own, so cells compared with each other met the same "
            "launches while each cell's interval spans as many launches as it has trials.",
            f"Figures: the {stats.METHOD}. ± is the interval's half-width in % of the median, (n) the "
            f"number of trials; above ±{WIDE_CI:.0%} it is marked \"!\". Rounds within a trial are a "
            "diagnostic (measurements.parquet keeps every round).",
            "A trial warms up until a measured steady state (no JIT compilation in the last rounds, stable "
            "recent medians); one that hit sampling.maxWarmupMs first is marked unsteady (\"~k\": k such "
            "trials), measured anyway.",
            f"Noise floor: {self.noise.sentence().removeprefix('noise floor: ')}. Two figures differ only "
            "when their 95 % intervals do not overlap AND their ratio exceeds the noise floor; otherwise "
            "they are a tie, and no winner is declared among ties (\"tie\" in the relative tables).",
            "What an interval cannot see: it covers what varies from trial to trial inside this run. A "
            "shared machine's speed also wanders by a few per cent over minutes, moving a language's "
            "cells together and some codecs more than others, and a rerun samples other minutes, so a "
            "back-to-back rerun's medians fall inside these intervals less often than 95 % (the shares "
            "measured on a shared 2-core VM are in docs/measurement.md, \"What the interval cannot see\"). "
            "`codecbench compare` judges each language's whole column once and each cell against it. "
            + (f"Host intervals: {self.calibration.sentence()}; a figure's host interval widens each side "
               "of its interval by that term (harness/codecbench/calibration.py) and says where a rerun on "
               "this host lands." if self.calibration is not None else
               "Host intervals: none, no run-to-run term was measured on this host (run a scenario twice, "
               "then `codecbench calibrate`)."),
            "Several cells of one language measuring the same thing (two workers, or byte-identical "
            "payloads): their trial figures are pooled.",
            "Timed regions: encode = the application's objects → bytes in memory, decode = bytes → the "
            "application's objects (typed), the library's generic document (tree), or the named fields "
            "read from the raw document (lazy). What each codec × language includes is declared by the "
            "workers (see Timed regions).",
            "Upload = the producer storing the payload in control's blob store; download = the consumer "
            "fetching it into memory. End to end = encode + upload + download + decode, a sum of parts; "
            "only where all four were measured.",
            "Relative to best: in each column (one record count) the smallest value is 100 %; 250 % "
            "means 2.5 times the best.",
            "Payloads are verified against the canonical records before timing; a failed cell has no "
            "timing and is listed under Failures with its message.",
            f"Files: measurements.parquet/csv (every trial and round), summary.csv, run.json (tasks, "
            f"environments, workers' codec declarations) in {self.run_dir}.",
        ]))
