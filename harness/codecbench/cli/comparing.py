"""`compare` (two runs, a CI gate) and `calibrate` (this host's run-to-run term)."""

from __future__ import annotations

from pathlib import Path

from rich.text import Text

from .. import display, results
from ..report.trustline import trust_line
from .base import EXIT_FAILED, EXIT_MISMATCH, EXIT_NO_RUN, EXIT_OK, EXIT_USAGE, CliError, err, print_json, results_dir
from .reading import _has_results, fetch_run, locate_run


def _noise_json(nf, transfer: bool = False) -> dict | None:
    if nf is None:
        return None
    return {"worstRatio": nf.worst, "medianRatio": nf.median, "groups": nf.groups,
            "text": nf.sentence(transfer)}


def cmd_compare(args) -> int:
    from .. import compare as cmp

    if not args.threshold > 1:
        raise CliError(f"--threshold must be above 1 (a ratio of medians, e.g. 1.10), got {args.threshold}",
                       EXIT_USAGE)
    dirs = [fetch_run(r, args) for r in (args.run_a, args.run_b)]
    frames = [results.read_measurements(d) for d in dirs]
    docs = [results.read_run_doc(d) for d in dirs]
    # Two runs measured under different conditions are not an A/B test of the code: refuse, unless
    # told, and then say so above everything else.
    mismatches = cmp.condition_mismatches(docs[0], docs[1])
    if mismatches:
        con = display.console(stderr=True)
        con.print(f"compare: the runs were measured under different conditions ({len(mismatches)}):",
                  style="bold red" if not args.allow_mismatch else "bold yellow")
        for m in mismatches:
            con.print(f"  ≠ {m}", style="red" if not args.allow_mismatch else "yellow")
        if not args.allow_mismatch:
            err("their ratios would mix those differences with any change in the code; rerun under the "
                "same conditions, or pass --allow-mismatch to compare anyway")
            return EXIT_MISMATCH
    from .. import calibration
    # The host term applies when both runs were measured on the host it was measured on.
    hosts = {calibration.host_key(d) for d in docs}
    cal = None
    if len(hosts) == 1:
        try:
            cal = calibration.load(results_dir(args), hosts.pop())
        except ValueError as exc:
            raise CliError(str(exc), EXIT_USAGE) from None
    table = cmp.compare(frames[0], frames[1], args.threshold, docs[0], docs[1], calibration=cal)
    trusts = [_trust(f, d) for f, d in zip(frames, docs)]
    matched = 0 if table.empty else int((~table["verdict"].isin(["only in A", "only in B"])).sum())
    slower = cmp.regressions(table)
    noise = {k: table.attrs.get(f"noise_{k}") for k in ("a", "b")}
    agree = cmp.agreement(table)
    by_lang = cmp.agreement_by_language(table)
    moved = cmp.shifts(table)
    if args.json:
        print_json({"runA": str(dirs[0]), "runB": str(dirs[1]), "threshold": args.threshold,
                    "conditionMismatches": mismatches,
                    "rule": cmp.RULE, "counts": cmp.counts(table), "regressions": slower,
                    "trustA": trusts[0].as_json(), "trustB": trusts[1].as_json(),
                    "noiseFloorA": _noise_json(noise["a"]), "noiseFloorB": _noise_json(noise["b"]),
                    "transferNoiseFloorA": _noise_json(table.attrs.get("transfer_noise_a"), True),
                    "transferNoiseFloorB": _noise_json(table.attrs.get("transfer_noise_b"), True),
                    "agreement": {"pairs": agree.pairs, "insideEachOthersIntervals": agree.inside,
                                  "insideOneWay": agree.one_way, "expectedInside": agree.expected,
                                  "insideAfterColumnShift": agree.inside_adjusted,
                                  "insideHostIntervals": agree.inside_host, "hostPairs": agree.host_pairs,
                                  "medianAbsDifference": agree.median_abs_diff,
                                  "byLanguage": {lang: {"pairs": a.pairs, "insideEachOthersIntervals": a.inside,
                                                        "insideAfterColumnShift": a.inside_adjusted,
                                                        "insideHostIntervals": a.inside_host,
                                                        "medianAbsDifference": a.median_abs_diff}
                                                 for lang, a in by_lang.items()}},
                    "calibration": cal.to_json() if cal else None,
                    "shifts": [{"language": m.language, "operation": m.operation, "cells": m.cells,
                                "medianRatio": m.median_ratio, "slower": m.slower,
                                "cellsJudgedAgainstIt": m.adjusts, "verdict": m.verdict} for m in moved],
                    "rows": cmp.to_json(table)})
    else:
        con = display.console()
        quiet = ["no significant change", "fails in both", "only in A", "only in B"]
        shown = table if args.all or table.empty else table[~table["verdict"].isin(quiet)]
        if not shown.empty:
            con.print(display.compare_table(shown, f"B/A: {dirs[1].name} vs {dirs[0].name} "
                                                   f"(threshold ×{args.threshold:g})"))
        counts = cmp.counts(table)
        con.print(f"{matched} matching measurement(s): " + (", ".join(f"{n} {v}" for v, n in counts.items())
                                                          or "nothing in common"))
        # A whole column that moved is one verdict (compare.py, "Whole columns"), said up front.
        for m in moved:
            if m.verdict != "no significant change":
                con.print(f"column {m.language} {m.operation}: {m.verdict} (×{m.median_ratio:.3f}, "
                          f"{m.slower} of {m.cells} cells above 1)",
                          style="bold red" if m.verdict == "slower" else "bold green")
        hidden = sum(counts.get(v, 0) for v in quiet)
        if not args.all and hidden:
            con.print(f"({hidden} not listed: {', '.join(v for v in quiet if counts.get(v))}; --all lists them)")
        # Each run's caveats beside the answer, as with every verdict (report/trustline.py).
        for name, d, t in (("A", dirs[0], trusts[0]), ("B", dirs[1], trusts[1])):
            con.print(Text(f"{name} ({d.name}) {t.sentence()}"), style="yellow")
        for name, d in (("A", dirs[0]), ("B", dirs[1])):
            if noise[name.lower()] is not None:
                con.print(f"{name} ({d.name}) {noise[name.lower()].sentence()}")
            transfer = table.attrs.get(f"transfer_noise_{name.lower()}")
            if transfer is not None and transfer.groups:
                con.print(f"{name} ({d.name}) {transfer.sentence(transfer=True)}")
        con.print(agree.sentence())
        if len(by_lang) > 1:
            con.print("by language, inside each other's intervals (after each column's shift; host intervals), "
                      "median |B/A − 1|: "
                      + "; ".join(f"{lang} {a.inside:.0%} ({a.inside_adjusted:.0%}; "
                                  f"{'–' if not a.host_pairs else format(a.inside_host, '.0%')}), {a.median_abs_diff:.1%}"
                                  for lang, a in by_lang.items()))
        con.print(cal.sentence() if cal else
                  "host intervals: none (no run-to-run term measured on this host: `codecbench calibrate` after "
                  "running a scenario twice)", style="dim")
        if moved:
            con.print("whole columns, median B/A: " + "; ".join(m.sentence() for m in moved))
        con.print(f"rule: {cmp.RULE}", style="dim")
    if matched == 0:
        err("compare: the two runs have no measurement in common (same dataset, codec, mode, "
            "operation, count, producer and consumer language)")
        return EXIT_MISMATCH
    return EXIT_FAILED if slower else EXIT_OK


def _trust(df, doc: dict):
    """A run's trust line, with the noise floors per language its own verdict is judged by."""
    cells = results.cells_frame(df)
    floors = results.language_noise_floors(cells, results.language_map(df, doc))
    return trust_line(cells, floors, doc)


def cmd_calibrate(args) -> int:
    """Measures this host's run-to-run term from runs repeated unchanged (calibration.py) and
    writes it to the results folder, where report and compare read it."""
    from .. import calibration
    from .. import compare as cmp

    out = results_dir(args)
    if args.runs:
        dirs = []
        for r in args.runs:
            d = locate_run(r, args)
            if d is None:
                raise CliError(f"calibrate: no results for {r!r} (neither a results folder nor {out / r})", EXIT_NO_RUN)
            dirs.append(d)
    else:
        dirs = sorted(d for d in out.iterdir() if d.is_dir() and _has_results(d) and (d / "run.json").exists()) \
            if out.is_dir() else []
    docs = {d: results.read_run_doc(d) for d in dirs}
    finished = [d for d in dirs if (docs[d].get("run") or {}).get("status") == "RUN_STATUS_FINISHED"]
    if not finished:
        raise CliError(f"calibrate: no finished run in {', '.join(map(str, args.runs)) if args.runs else out}", EXIT_USAGE)
    # One host: the newest run's (the machine this is most likely run on).
    newest = max(finished, key=lambda d: (docs[d].get("run") or {}).get("createdAt", ""))
    host = calibration.host_key(docs[newest])
    others = sorted({calibration.host_key(docs[d]) for d in finished} - {host})
    if others and args.runs:
        raise CliError(f"calibrate: the runs were measured on {len(others) + 1} hosts; pass runs of one host "
                       f"(the newest is on {host})", EXIT_USAGE)
    groups: dict[tuple, list[Path]] = {}
    for d in finished:
        if calibration.host_key(docs[d]) == host:
            groups.setdefault(calibration.group_key(docs[d]), []).append(d)
    repeated = {k: v for k, v in groups.items() if len(v) >= 2}
    if not repeated:
        raise CliError("calibrate: no scenario was run twice unchanged on this host (same scenario file, same "
                       "measuring code): run one twice, e.g. `codecbench run harness/scenarios/aa-rust-browser.yaml "
                       "--local` two times, then calibrate again", EXIT_USAGE)
    used = [d for v in repeated.values() for d in v]
    entries = {d: cmp.entries(results.read_measurements(d), docs[d]) for d in used}
    cal = calibration.calibrate([[entries[d] for d in v] for v in repeated.values()], host, [d.name for d in used])
    if not cal.terms:
        raise CliError("calibrate: the repeated runs have no column (one language, one operation) of "
                       f"≥ {cmp.MIN_COLUMN_CELLS} cells verified in every run; nothing to measure a column's level from",
                       EXIT_USAGE)
    path = calibration.save(cal, out)
    if args.json:
        print_json(cal.to_json() | {"file": str(path)})
        return EXIT_OK
    con = display.console()
    for k, v in sorted(repeated.items()):
        con.print(f"{k[0]} ({len(v)} runs): {', '.join(d.name for d in sorted(v))}")
    for t in cal.terms:
        con.print(f"  {t.sentence()}; {t.cells} cells")
    con.print(f"wrote {path}: report and compare on this host now widen each interval by these terms "
              "(the host interval)")
    return EXIT_OK
