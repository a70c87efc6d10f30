"""Read commands: `workers`, `gc`, `codecs`, `datasets`, `runs`, `runs show`, `report`; and writing
a run's result files and printing its answer."""

from __future__ import annotations

from collections import Counter
import json
import sys
from pathlib import Path

import grpc
import pandas as pd
from google.protobuf import json_format
from rich.text import Text

from .. import bundles, catalogue, datasets, display, duets, leaderboard, processes, results, timing, userdata, userrun
from ..client import Control, ControlUnreachable, connect
from ..pb import hs, operation_name, run_status_name, task_status_name
from ..scenario import EXIT_INVALID
from ..report.trustline import trust_line
from . import offline
from .base import EXIT_FAILED, EXIT_NO_RUN, EXIT_OK, CliError, err, print_json, resolve_control, results_dir, to_json


# ---- reading ------------------------------------------------------------------------------------

def cmd_workers(args) -> int:
    with connect(resolve_control(args)) as control:
        workers = control.list_workers()
    if args.json:
        print_json([to_json(w) for w in workers])
    elif not workers:
        err("no workers attached")
    else:
        display.console().print(display.workers_table(workers))
    return EXIT_OK


def _mib(n: int) -> str:
    return f"{n / 2**20:.1f} MiB"


def cmd_gc(args) -> int:
    with connect(resolve_control(args)) as control:
        r = control.harness.CollectGarbage(hs.CollectGarbageRequest(dry_run=args.dry_run), timeout=600)
    verb = "would remove" if args.dry_run else "removed"
    summary = {"dry_run": args.dry_run, "blobs_removed": r.blobs_removed, "bytes_removed": r.bytes_removed,
               "blobs_kept": r.blobs_kept, "bytes_kept": r.bytes_kept}
    if args.json:
        print_json(summary)
    else:
        print(f"{verb} {r.blobs_removed} blobs ({_mib(r.bytes_removed)}); kept {r.blobs_kept} ({_mib(r.bytes_kept)}) "
              "that an active run needs or that were stored in the last 10 minutes. Results are kept.")
    return EXIT_OK


def cmd_codecs(args) -> int:
    """What attached workers announce, checked against the catalogue; without a reachable control,
    the catalogue alone (every language "no worker attached")."""
    addr = resolve_control(args)
    offers, refusals, reached = [], [], False
    try:
        with connect(addr, ready_timeout=2) as control:
            offers = control.harness.ListCodecs(hs.ListCodecsRequest(), timeout=10).offers
            # What each worker refuses for a dataset it carries (a user's schema with a feature a
            # codec has no payload rule for): control plans none of those cells.
            refusals = [(w.id, r) for w in control.list_workers() for d in w.datasets for r in d.refused]
            reached = True
    except ControlUnreachable:
        err(f"(control at {addr} is not reachable: the catalogue alone, no worker's announcement)")
    path = Path(args.catalogue) if args.catalogue else catalogue.default_path()
    try:
        cat = catalogue.load(path)
    except catalogue.CatalogueError as exc:
        err(f"warning: {exc}; showing what workers announce, unchecked")
        cat, path = None, None
    shown_path = ""
    if path:
        try:
            shown_path = str(path.resolve().relative_to(processes.repo_root()))
        except ValueError:
            shown_path = str(path)
    matrix = catalogue.build(offers, cat, shown_path)
    problems = [p for p in matrix.problems if p["kind"] != "no-worker"]
    if args.json:
        print_json(dict(matrix.to_json([to_json(o) for o in offers]),
                        refusals=[dict(to_json(r), workerId=wid) for wid, r in refusals],
                        bundleGzipBytes=bundles.gzip_by_codec()))
    else:
        con = display.console()
        if not offers and reached:
            err("no codecs: no workers attached")
        if args.by_worker and offers:
            con.print(display.codecs_table(offers))
        con.print(display.codec_matrix_table(matrix))
        for line in bundles.listing():  # what each browser codec adds to a web page
            con.print(line)
        if matrix.problems:
            con.print(f"\n{len(problems)} problem(s):" if problems else "\nno problems", style="bold")
            for p in matrix.problems:
                style = "dim" if p["kind"] == "no-worker" else "red" if p["kind"] in (
                    "unknown-codec", "missing", "catalogue-error") else "yellow"
                mark = "·" if p["kind"] == "no-worker" else "✗" if style == "red" else "!"
                con.print(Text(f"  {mark} {p['message']}", style=style))
        else:
            con.print("\nevery announced codec matches the catalogue, and every catalogue entry is announced")
        if refusals:
            con.print(f"\n{len(refusals)} refusal(s) for the datasets workers carry (no cell of them is planned):", style="bold")
            for wid, r in refusals:
                con.print(Text(f"  ! {r.dataset} × {r.codec}{' ' + r.decode_mode if r.decode_mode else ''} on {wid}: {r.reason}",
                               style="yellow"))
    return EXIT_FAILED if (args.check and problems) else EXIT_OK


def cmd_datasets(args) -> int:
    vectors = processes.repo_root() / "codecs" / "vectors"
    if args.write_vectors:
        path = vectors / "fingerprints.json"
        path.write_text(json.dumps(datasets.fingerprint_vectors(), indent=2) + "\n")
        print(f"wrote {path.relative_to(processes.repo_root())}")
        return EXIT_OK
    refused: dict[str, list[str]] = {}
    if args.proto or args.message or args.records:
        if not (args.proto and args.message and args.records):
            err("a dataset of your own needs --proto, --message and --records")
            return EXIT_INVALID
        try:
            user = userdata.load(args.id or Path(args.records).stem, Path(args.proto), args.message,
                                 Path(args.records), [Path(p) for p in args.proto_path])
        except userdata.UserDataError as exc:
            for line in exc.problems:
                err(line)
            return EXIT_INVALID
        refused = userdata.not_offered(user.message)
        rows = datasets.table([(user.spec(), user.records)], json_sizes="json" not in refused)
    else:
        rows = datasets.table((s, datasets.vector_records(s, vectors)) for s in datasets.builtin())
    if args.json:
        print_json(rows if not refused else [dict(r, notOffered=refused) for r in rows])
        return EXIT_OK
    con = display.console()
    con.print(display.datasets_table(rows))
    con.print("B/rec: bytes per record of the json and protobuf codecs' payloads of "
              + ("these records" if args.records else "the golden vectors' records (codecs/vectors/)")
              + "; fingerprint: proto/README.md, \"Datasets and their schema fingerprint\"", style="dim")
    for r in rows:
        if r["protobufBytesPerRecord"] and r["jsonBytesPerRecord"]:
            con.print(f"{r['id']}: protobuf {r['protobufBytesPerRecord']:,.0f} B/record, json {r['jsonBytesPerRecord']:,.0f} "
                      f"B/record (protobuf is {r['protobufBytesPerRecord'] / r['jsonBytesPerRecord']:.0%} of json)")
    if refused:
        con.print("\nthese codecs' cells would be refused (proto/README.md, \"Payloads\"; a language may refuse "
                  "more, as `codecbench codecs` shows):", style="yellow")
        for codec, lines in refused.items():
            con.print(f"  ! {codec}: {lines[0]} is not offered" + (f" (and {len(lines) - 1} more)" if len(lines) > 1 else ""))
    return EXIT_OK


def cmd_runs(args) -> int:
    """Control's runs (when it is reachable), the results folder's and the kept `run --local`
    databases', once each, newest first; no control needed."""
    if args.runs_cmd == "show":
        return cmd_runs_show(args)
    addr = resolve_control(args)
    control_runs = []
    try:
        with connect(addr, ready_timeout=2) as control:
            control_runs = list(control.harness.ListRuns(hs.ListRunsRequest(limit=args.limit), timeout=10).runs)
    except ControlUnreachable:
        err(f"(control at {addr} is not reachable: listing the results folder and the kept --local runs)")
    entries = offline.merge(control_runs, results_dir(args), processes.state_root())[:args.limit]
    if args.json:
        print_json([dict(to_json(e.run), storedIn=e.stored) for e in entries])
    elif not entries:
        err("no runs yet")
    else:
        display.console().print(offline.runs_table(entries))
    return EXIT_OK


def _get_run(control: Control, run_id: str):
    try:
        return control.get_run(run_id)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.NOT_FOUND:
            raise CliError(f"no run {run_id!r} at control {control.addr}: {exc.details()}", EXIT_NO_RUN) from None
        raise


def task_label(t) -> str:
    op = operation_name(t.operation)
    mode = f"/{t.decode_mode}" if t.decode_mode else ""
    who = t.producer_worker_id + (f" → {t.consumer_worker_id}" if op != "encode" and t.consumer_worker_id else "")
    return f"{op} {t.dataset}×{t.record_count} {t.codec}{mode} {who}".strip()


def report(resp, args, addr: str, extra: dict | None = None, write_report: bool = True) -> int:
    """Write the result files (and the report), print the table (or JSON) and the failures; return
    the exit code. The report's path is the last line printed."""
    run = resp.run
    out_dir = results_dir(args) / run.id
    files = results.write_results(out_dir, run, resp.tasks, resp.measurements, control_addr=addr,
                                  extra=extra, workers=resp.workers)
    code = _print_run(resp, args, out_dir, files)
    if write_report:
        _write_report(out_dir, None, to_stderr=bool(args.json))
    return code


def _write_report(run_dir: Path, out: Path | None, to_stderr: bool = False) -> Path | None:
    """report.html/report.md/plots; a failure to draw is said, and does not lose the results."""
    from .. import report as report_mod  # matplotlib: imported only when a report is written

    try:
        rep = report_mod.write_report(run_dir, out)
    except Exception as exc:  # noqa: BLE001 - the results are written; say what went wrong
        err(f"report: could not be written ({type(exc).__name__}: {exc}); "
            f"`codecbench report {run_dir}` retries")
        return None
    line = f"report: {rep.html}"
    if to_stderr:
        err(line)
    else:
        print(line, flush=True)
    return rep.html


def _print_run(resp, args, out_dir: Path, files: dict, df: pd.DataFrame | None = None) -> int:
    """The run's answer; its measurements from `df` (a results folder's) when given, else from resp."""
    run = resp.run
    if df is None:
        df = results.measurements_frame(resp.measurements, resp.tasks, run_id=run.id)
    failed = [t for t in resp.tasks if task_status_name(t.status) == "failed"]
    status = run_status_name(run.status)
    if args.json:
        doc = json_format.MessageToDict(resp)
        doc["resultsDir"] = str(out_dir)
        # Medians and intervals as numbers (proto-JSON writes 64-bit integers as strings).
        run_doc = results.read_run_doc(out_dir)
        boards, floors, summary = _answer(df, run_doc, out_dir)
        doc["answer"] = {**leaderboard.answer_json(boards, floors, summary),
                         "trust": trust_line(results.cells_frame(df), floors, run_doc).as_json()}
        print_json(doc)
    else:
        summary = results.summary_frame(df)
        cells = results.cells_frame(df)
        noise = results.run_noise_floor(cells)
        transfer = results.run_noise_floor(cells, "download")
        con = display.console()
        seed = run.scenario.sampling.order_seed
        title = f"run {run.id}" + (f" · {run.name}" if run.name else "") + f" · {status}" + \
            (f" · trial order seed {seed}" if seed else "")
        langs = results.language_map(df, results.read_run_doc(out_dir))
        if getattr(args, "all", False):
            display.print_results(summary, title=title, out=con, noise=noise, transfer_noise=transfer)
            con.print()
        else:
            con.print(title)
        # The run's duets judge their comparisons by the paired ratio, as the report's verdict does.
        boards, floors = leaderboard.for_run(summary, cells, langs, list(run.scenario.codecs),
                                             duets.from_results(out_dir))
        display.print_leaderboards(boards, floors, out=con)
        if boards:
            con.print(Text(trust_line(cells, floors, results.read_run_doc(out_dir)).sentence()), style="yellow")
        if not getattr(args, "all", False):
            display.print_notes(summary, noise, transfer, out=con)
        display.print_failures([(task_label(t), t.failure or "failed without a message") for t in failed], out=con)
        for line in user_dataset_notes(run):
            con.print(line, style="yellow" if line.startswith("refused") else None)
        by_status = Counter(task_status_name(t.status) for t in resp.tasks)
        counts = ", ".join(f"{n} {s}" if s != "same_bytes" else f"{n} not run (byte-identical payloads: each "
                           "consumer decoded them once)" for s, n in sorted(by_status.items()))
        con.print(f"\n{len(resp.tasks)} tasks: {counts}" + (f" — {run.message}" if run.message else ""))
        run_doc = results.read_run_doc(out_dir)
        if spent := run_doc.get("timeBreakdown"):
            est = run_doc.get("estimate") or {}
            con.print(timing.sentence(spent, est.get("seconds") if est.get("tasks") and not est.get("tasksWithoutHistory") else None))
        if run.control_rss_start_bytes:
            con.print("control: " + results.control_memory(run.control_rss_start_bytes, run.control_peak_rss_bytes, df))
        con.print(f"results: {files['csv']}  {files['parquet'].name}  {files['summary'].name}  {files['run'].name}")
    if failed or status == "failed":
        return EXIT_FAILED
    return EXIT_OK


def user_dataset_notes(run) -> list[str]:
    """What a reader of a run with a user's datasets must know: where each came from, the names
    its payloads use, counts that cycled through the file, and every refused cell with its reason."""
    out = []
    for u in run.scenario.user_datasets:
        cycled = [c for c in run.scenario.counts if c > u.record_count]
        out.append(f"dataset {u.id}: {u.message} from {u.proto}, {u.record_count:,} records from {u.records}; "
                   f"field names: {'the .proto' if u.field_names == 'proto' else 'json_name'}'s"
                   + (f"; counts {', '.join(f'{c:,}' for c in cycled)} cycle through the file's records" if cycled else ""))
    for dataset, codec, mode, reason, who in userrun.refusal_groups(to_json(r) for r in run.refusals):
        out.append(f"refused  {dataset} × {codec}{' ' + mode if mode else ''} by {', '.join(who)}: {reason}")
    return out


def cmd_runs_show(args) -> int:
    """From the results folder when the run is there (no control needed), else from control."""
    run_dir = locate_run(args.run_id, args)
    resp = offline.stored_response(run_dir) if run_dir is not None else None
    if resp is not None:
        files = {k: run_dir / f for k, f in (("csv", "measurements.csv"), ("parquet", "measurements.parquet"),
                                            ("summary", "summary.csv"), ("run", "run.json"))}
        return _print_run(resp, args, run_dir, files, df=results.read_measurements(run_dir))
    addr = resolve_control(args)
    try:
        with connect(addr, ready_timeout=3) as control:
            resp = _get_run(control, args.run_id)
    except ControlUnreachable:
        # A kept `run --local` database: read by a control started on it for this (offline.py).
        if (folder := offline.local_folder_of(args.run_id, processes.state_root())) is None:
            raise CliError(f"no run {args.run_id!r}: {results_dir(args) / args.run_id} holds no results, and "
                           f"control at {addr} is not reachable to ask for it", EXIT_NO_RUN) from None
        resp, addr = offline.from_local_database(args.run_id, folder, _get_run)
    return report(resp, args, addr)


def _has_results(path: Path) -> bool:
    return (path / "measurements.parquet").exists() or (path / "measurements.csv").exists()


def locate_run(run: str, args) -> Path | None:
    """A results folder given as a path, or results/<run>/, if it holds measurements."""
    p = Path(run)
    if p.is_dir() and _has_results(p):
        return p
    d = results_dir(args) / run
    if _has_results(d):
        return d
    return None


def fetch_run(run: str, args) -> Path:
    """results/<run>/ — read from the folder, else fetched from control (GetRun) and written there."""
    found = locate_run(run, args)
    if found is not None:
        return found
    addr = resolve_control(args)
    try:
        with connect(addr, ready_timeout=3) as control:
            resp = _get_run(control, run)
    except ControlUnreachable:
        raise CliError(f"no results for {run!r}: neither a results folder {run} nor "
                       f"{results_dir(args) / run} holds measurements, and control at {addr} is not "
                       "reachable to ask for it (pass --results-dir, or --control)", EXIT_NO_RUN) from None
    out_dir = results_dir(args) / resp.run.id
    results.write_results(out_dir, resp.run, resp.tasks, resp.measurements, control_addr=addr,
                          workers=resp.workers)
    err(f"{run}: fetched from control at {addr}; results written to {out_dir}")
    return out_dir


def cmd_report(args) -> int:
    run_dir = fetch_run(args.run, args)
    if args.format != "html":
        return _export(run_dir, args.format)
    out = Path(args.out) if args.out else None
    from .. import report as report_mod

    rep = report_mod.write_report(run_dir, out)
    for w in rep.warnings:
        err(f"warning: {w}")
    print(f"plots:  {rep.html.parent / 'plots'} ({len(rep.plots)} PNG)")
    print(f"md:     {rep.md}")
    print(f"report: {rep.html}")
    return EXIT_OK


def _answer(df, doc: dict, run_dir: Path):
    """(boards, floors, summary) of a run's measurements, its duets (duets.parquet) included."""
    summary, cells = results.summary_frame(df), results.cells_frame(df)
    codecs = list(((doc.get("run") or {}).get("scenario") or {}).get("codecs") or [])
    boards, floors = leaderboard.for_run(summary, cells, results.language_map(df, doc), codecs,
                                         duets.from_results(run_dir), bundles.gzip_by_codec())
    return boards, floors, summary


def _export(run_dir: Path, fmt: str) -> int:
    """report --format md|csv|json: the leaderboards and every row, on stdout, for a PR or a wiki."""
    df, doc = results.read_measurements(run_dir), results.read_run_doc(run_dir)
    boards, floors, summary = _answer(df, doc, run_dir)
    trust = trust_line(results.cells_frame(df), floors, doc)
    if fmt == "json":
        print_json({"run": run_dir.name, **leaderboard.answer_json(boards, floors, summary), "trust": trust.as_json()})
    elif fmt == "csv":
        sys.stdout.write(pd.DataFrame(leaderboard.to_records(boards), columns=leaderboard.RECORD_FIELDS)
                         .to_csv(index=False))
        # A CSV has no place for a sentence: the trust line goes where the note on the rows goes.
        err(trust.sentence())
        err(f"(the leaderboards; every row is in {run_dir.name}/summary.csv)")
    else:
        # The verdict comes first in to_markdown; the trust line right after it, before the tables.
        board_md = leaderboard.to_markdown(boards)
        verdicts, sep, tables = board_md.partition("\n\n") if board_md.startswith("- ") else ("", "\n", board_md)
        print(f"## codecbench run {run_dir.name}\n\n" + verdicts + f"\n\n> {trust.sentence()}" + sep + tables
              + "\n### Every producer → consumer row\n\n" + leaderboard.rows_markdown(summary))
    return EXIT_OK
