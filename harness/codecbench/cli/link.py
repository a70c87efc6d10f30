"""`codecbench link RUN`: the link model (linkmodel.py) for a run, on stated links, and its check
against the run's own measured legs when the run was on a shaped link."""

from __future__ import annotations

from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .. import display, linkmodel, results
from ..report.common import with_languages
from .base import EXIT_OK, EXIT_USAGE, CliError, print_json
from .reading import fetch_run


def links_for(args, doc: dict) -> list[linkmodel.Link]:
    """--profile (repeatable) and --down/--up/--rtt, else the run's own shaped link, else the
    standard shaped profiles."""
    try:
        if args.down is not None or args.up is not None or args.rtt is not None:
            return [linkmodel.link((args.profile or [""])[0], args.down, args.up, args.rtt)]
        if args.profile:
            return [linkmodel.link(p) for p in args.profile]
    except ValueError as exc:
        raise CliError(str(exc), EXIT_USAGE) from None
    own = linkmodel.run_link(doc)
    return [own] if own else [linkmodel.link(p) for p in linkmodel.STANDARD]


def frames(run_dir) -> tuple:
    """(summary with producer/consumer languages, run.json) of a results folder."""
    df, doc = results.read_measurements(run_dir), results.read_run_doc(run_dir)
    return with_languages(results.summary_frame(df), results.language_map(df, doc)), doc


def check_summary(chk) -> dict | None:
    if chk.empty:
        return None
    d = chk["difference"].dropna()
    return {"cells": int(len(d)), "worstAbs": float(d.abs().max()), "medianAbs": float(d.abs().median()),
            "median": float(d.median())}


def cmd_link(args) -> int:
    if args.compression not in linkmodel.WIRE:
        raise CliError(f"--compression must be one of {', '.join(linkmodel.WIRE)}", EXIT_USAGE)
    run_dir = fetch_run(args.run, args)
    summary, doc = frames(run_dir)
    lks = links_for(args, doc)
    preds = [linkmodel.predict(summary, lk, args.compression) for lk in lks]
    chk = linkmodel.check(summary, doc)
    if args.json:
        print_json({"run": run_dir.name, "model": linkmodel.NOTE, "compression": args.compression,
                    "links": [{"name": lk.name, "downMbit": lk.down_mbit, "upMbit": lk.up_mbit, "rttMs": lk.rtt_ms}
                              for lk in lks],
                    "predictions": [r for p in preds for r in p.to_dict("records")],
                    "check": chk.to_dict("records"), "checkSummary": check_summary(chk)})
        return EXIT_OK
    con = display.console()
    if all(p.empty for p in preds):
        why = ("no cell has both an encode and a typed decode, verified" if args.compression == "identity" or
               linkmodel.predict(summary, lks[0]).empty else
               f"the run has no {args.compression} sizes (recorded before control measured them)")
        con.print(f"{run_dir.name}: {why}: nothing to model")
        return EXIT_OK
    con.print(Text(f"Link model for {run_dir.name} ({args.compression} wire bytes). {linkmodel.NOTE}"))
    con.print("links: " + "; ".join(lk.describe() for lk in lks))
    con.print(_table(linkmodel.prediction_table({lk.name: p for lk, p in zip(lks, preds)}),
                     "predicted per message: latency [interval from encode and decode], msg/s (what limits it)"))
    if not chk.empty:
        con.print(_table(linkmodel.check_table(chk), "the model against this run's measured legs "
                                                       "(through control, per payload)"))
        con.print(Text(f"on this run's {linkmodel.run_link(doc).describe()}: {linkmodel.check_sentence(chk)}"))
    return EXIT_OK


def _table(frame, title: str, left: int = 4) -> Table:
    t = Table(title=escape(title), title_justify="left")
    for i, col in enumerate(frame.columns):
        t.add_column(col, justify="left" if i < left else "right")
    for row in frame.itertuples(index=False):
        t.add_row(*(escape(str(v)) for v in row))
    return t
