"""The `codecbench` command: start/stop local processes, run scenarios, read workers, codecs and runs."""

from __future__ import annotations

import argparse
import json
import os
import re
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import grpc
import pandas as pd
from google.protobuf import json_format
from rich.text import Text
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from . import catalogue, datasets, display, estimate, leaderboard, netlab, processes, results, timing, userdata, userrun
from .client import Control, ControlUnreachable, connect, wait_for_workers
from .pb import hs, operation_name, run_status_name, task_status_name
from .processes import Artifacts, LaunchError, PidDir, Proc
from .scenario import EXIT_INVALID, ScenarioError, load, validate

# Exit codes (README "Exit codes"): 0 ok; 1 a failed task or run, or compare found a slowdown;
# 2 an invalid scenario (scenario.EXIT_INVALID); 3 compare refused two runs measured under
# different conditions; 64 a usage error (sysexits' EX_USAGE; argparse's own 2 would read as an
# invalid scenario); 130 interrupted.
EXIT_OK = 0
EXIT_FAILED = 1
EXIT_MISMATCH = 3
EXIT_USAGE = 64
EXIT_INTERRUPTED = 130
TERMINAL_RUN = {"finished", "cancelled", "failed"}
ENDED_TASK = {"done", "failed", "cancelled"}


class CliError(Exception):
    """A message for the user and an exit code; printed without a traceback."""

    def __init__(self, message: str, code: int = EXIT_FAILED):
        super().__init__(message)
        self.code = code


def err(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def to_json(message) -> dict:
    return json_format.MessageToDict(message)


def print_json(value) -> None:
    print(json.dumps(value, indent=2, ensure_ascii=False))


# ---- local processes ----------------------------------------------------------------------------

class Local:
    """A stack's folder: control's data, logs, pid files and the address control bound. `up`,
    `browser` and `down` use `.state/` itself; each `run --local` has a folder of its own
    (`for_local_run`), so no stack ever stops, or shares a database with, another."""

    # `run --local` folders kept (with their logs and database) for looking into a past run.
    KEEP_LOCAL_RUNS = 10

    def __init__(self, root: Path | None = None, base: Path | None = None):
        self.root = root or processes.repo_root()
        self.state = processes.state_root(self.root)
        self.art = Artifacts(self.root)
        self.base = base or self.state
        self.pids = PidDir(self.base / "pids")
        self.logs = self.base / "logs"
        self.control_dir = self.base / "control"
        self.addr_file = self.base / "control.addr"

    @classmethod
    def for_local_run(cls) -> "Local":
        """`.state/local/<time>-<pid>/` for this `run --local`; older ones whose run has ended are
        pruned to the newest KEEP_LOCAL_RUNS."""
        up = cls()
        parent = up.state / "local"
        parent.mkdir(parents=True, exist_ok=True)
        old = sorted(d for d in parent.iterdir() if d.is_dir())
        for d in old[:max(0, len(old) - (cls.KEEP_LOCAL_RUNS - 1))]:
            owner = d.name.rsplit("-", 1)[-1]
            if not (owner.isdigit() and Path(f"/proc/{owner}").exists()):
                shutil.rmtree(d, ignore_errors=True)
        return cls(up.root, parent / f"{time.strftime('%Y%m%d-%H%M%S')}-{os.getpid()}")

    def running_addr(self) -> str | None:
        """The address of control started by `up`, if it is still running."""
        if self.pids.alive("control") and self.addr_file.exists():
            return self.addr_file.read_text().strip() or None
        return None

    def forget_stale(self) -> None:
        for f, proc in self.pids.load_all():
            if not proc.alive():
                f.unlink(missing_ok=True)


def resolve_control(args) -> str:
    if args.control:
        return args.control
    if os.environ.get("CODECBENCH_CONTROL"):
        return os.environ["CODECBENCH_CONTROL"]
    return Local().running_addr() or processes.DEFAULT_LISTEN


def _worker_plan(art: Artifacts, wanted: set[str] | None, browsers: int) -> tuple[dict[str, int], list[str]]:
    """Which worker kinds to start ({kind: count}) and why others are skipped."""
    plan, skipped = {}, []
    for kind in processes.KINDS:
        count = browsers if kind == "browser" else 1
        if wanted is not None and kind not in wanted:
            continue
        if count <= 0:
            continue
        why = art.missing(kind)
        if why:
            skipped.append(f"{kind} worker skipped: {why}")
        else:
            plan[kind] = count
    return plan, skipped


LANES_HELP = ("tasks control runs at once, each trial pinned to its own CPUs (default: one per two "
              "CPUs; docs/DESIGN.md \"Lanes\")")


def start_stack(local: Local, listen: str, plan: dict[str, int], prefix: str,
                started: list[Proc], out=err, timeout: float = 90.0, lab: netlab.Lab | None = None,
                extra: tuple[str, ...] = (), rust_program: Path | None = None,
                lanes: int | None = None) -> str:
    """Start control and the planned workers, save pid files, wait until the workers attach.
    With a network lab, control and each worker run in the lab's namespaces, each worker dialing
    control over its shaped link; the harness dials control over the lab's admin link.

    Every started process is appended to `started` as soon as it exists, so the caller can stop
    them whatever happens here.
    """
    local.logs.mkdir(parents=True, exist_ok=True)
    control_extra: tuple[str, ...] = ()
    if lab is not None:
        listen = "0.0.0.0:0"
        control_extra = tuple(a for h in lab.hosts() for a in ("--allow-host", h))
    if lanes is not None:
        control_extra += ("--lanes", str(lanes))
    proc, addr = processes.start_control(local.art, listen, local.control_dir,
                                         local.logs / f"{prefix}control.log",
                                         netns=lab.control_ns if lab else None, extra=control_extra)
    started.append(proc)
    local.pids.save(proc, f"{prefix}control")
    dial = {kind: addr for kind in plan}
    if lab is not None:
        lab.start_proxies(int(addr.rsplit(":", 1)[1]), netlab.toxiproxy_binary(local.root),
                          local.logs / f"{prefix}toxiproxy.log")
        addr = lab.control_addr()
        dial = {kind: lab.links[kind].dial for kind in plan}
        out(f"network    {lab.profile.describe()}  (lab cb{lab.slot}: control in {lab.control_ns})")
        probe_links(lab, out)
    out(f"control    {addr}  (pid {proc.pid}, log {proc.log})")
    procs = []
    for kind, count in plan.items():
        wp = processes.start_worker(local.art, kind, dial[kind], local.logs / f"{prefix}{kind}.log", count=count,
                                    netns=lab.links[kind].netns if lab else None, extra=extra,
                                    program=rust_program if kind == "rust" else None)
        started.append(wp)
        procs.append(wp)
        local.pids.save(wp, f"{prefix}{kind}")
        out(f"{kind:<10} started{f' ({count} pages)' if kind == 'browser' else ''}  (pid {wp.pid}, log {wp.log})")

    def alive():
        for p in procs:
            if not p.alive():
                raise LaunchError(f"the {p.kind} worker exited before attaching; log {p.log}:\n"
                                  f"{processes.log_tail(p.log)}")

    with connect(addr, ready_timeout=10) as control:
        try:
            workers = wait_for_workers(control, list(plan), timeout, counts=plan, alive=alive)
        except TimeoutError as exc:
            attached = {w.environment.language for w in control.list_workers()}
            lines = []
            for p in procs:
                if p.kind in attached:
                    continue
                # The browser driver keeps the pages' console beside its own log.
                for log in (p.log, p.log.with_name(p.log.stem + ".pages.log")):
                    if log.exists():
                        lines.append(f"  {log}:\n{processes.log_tail(log, 8)}")
            raise LaunchError(f"{exc}\n" + "\n".join(lines)) from None
    for w in workers:
        out(f"worker     {w.id}  ({w.environment.language}, "
            f"{', '.join(c.id for c in w.codecs) or 'no codecs'})")
    return addr


def probe_links(lab: netlab.Lab, out=err) -> None:
    """Measure every worker link from the worker's namespace (netprobe.py) before the workers
    start: about one second of data each way at the profile's rate, and 15 round trips."""
    def size(mbit):
        return (8 << 20) if mbit is None else int(min(8 << 20, max(64 << 10, mbit * 1e6 / 8)))

    for kind, link in lab.links.items():
        up, down = size(lab.profile.up_mbit or lab.profile.down_mbit), size(lab.profile.down_mbit)
        argv = ["ip", "netns", "exec", link.netns, sys.executable, "-m", "codecbench.netprobe",
                "--control", link.dial, "--up", str(up), "--down", str(down)]
        res = subprocess.run(argv, capture_output=True, text=True, timeout=300)
        if res.returncode != 0:
            raise LaunchError(f"the {kind} link ({link.netns} → {link.dial}) failed its probe: "
                              f"{(res.stderr or res.stdout).strip()}")
        lab.measured[kind] = json.loads(res.stdout)
        m = lab.measured[kind]
        out(f"link       {kind}: RTT {m['rtt_ms']:.1f} ms, {m['down_mbit']:.3g} Mbit/s down, "
            f"{m['up_mbit']:.3g} Mbit/s up (measured)")


def stop_procs(procs: list[Proc], local: Local | None = None) -> list[str]:
    """Stop workers first (so they do not see control vanish mid-task), then control; drop their
    pid files."""
    stopped = []
    for p in sorted(procs, key=lambda p: p.kind == "control"):
        if processes.stop(p):
            stopped.append(f"{p.name} (pid {p.pid})")
    if local is not None:
        pids = {p.pid for p in procs}
        for f, saved in local.pids.load_all():
            if saved.pid in pids:
                f.unlink(missing_ok=True)
    return stopped


def cmd_up(args) -> int:
    local = Local()
    local.forget_stale()
    if (addr := local.running_addr()):
        err(f"control is already running at {addr} (started by `codecbench up`); "
            "`codecbench down` stops it.")
        return EXIT_OK
    listen = args.listen or os.environ.get("CODECBENCH_LISTEN") or processes.DEFAULT_LISTEN
    wanted = None
    if args.workers:
        wanted = {k.strip() for k in args.workers.split(",") if k.strip()}
        if (unknown := wanted - set(processes.KINDS)):
            raise CliError(f"--workers: unknown kind(s) {', '.join(sorted(unknown))} "
                           f"(known: {', '.join(processes.KINDS)})", EXIT_INVALID)
    plan, skipped = _worker_plan(local.art, wanted, args.browsers)
    for line in skipped:
        err(line)
    started: list[Proc] = []
    try:
        addr = start_stack(local, listen, plan, "", started, timeout=args.timeout, lanes=args.lanes)
    except (LaunchError, ControlUnreachable) as exc:
        stop_procs(started, local)
        raise CliError(f"up failed: {exc}\n(stopped what was started)") from None
    except BaseException:
        stop_procs(started, local)
        raise
    local.addr_file.write_text(addr + "\n")
    if not plan:
        err("warning: no worker could be started; control is running without workers")
    err(f"up: control at {addr}; state in {local.state}; `codecbench down` stops everything")
    return EXIT_OK


def cmd_down(args) -> int:
    local = Local()
    entries = local.pids.load_all()
    procs = [p for _, p in entries]
    stopped = stop_procs(procs)
    for f, _ in entries:
        f.unlink(missing_ok=True)
    local.addr_file.unlink(missing_ok=True)
    if netlab.available() is None:
        # A killed `run --local --network ...` leaves its namespaces (and what ran in them).
        stopped += netlab.remove_leftovers()
    err(f"stopped: {', '.join(stopped)}" if stopped else "nothing was running")
    return EXIT_OK


def cmd_browser(args) -> int:
    local = Local()
    if (why := local.art.missing("browser")):
        raise CliError(f"cannot start browser workers: {why} (build the web worker first)")
    addr = resolve_control(args)
    with connect(addr) as control:
        before = sum(1 for w in control.list_workers() if w.environment.language == "browser")
        name = local.pids.next_name("browser")
        proc = processes.start_worker(local.art, "browser", addr, local.logs / f"{name}.log",
                                      name=name, count=args.count)
        local.pids.save(proc, name)

        def alive():
            if not proc.alive():
                raise LaunchError(f"the browser driver exited; log {proc.log}:\n{processes.log_tail(proc.log)}")

        try:
            wait_for_workers(control, ["browser"], args.timeout, counts={"browser": before + args.count},
                             alive=alive)
        except (TimeoutError, LaunchError) as exc:
            processes.stop(proc)
            (local.pids.path / f"{name}.pid").unlink(missing_ok=True)
            raise CliError(f"browser workers did not attach: {exc}") from None
    err(f"{args.count} browser worker(s) attached to {addr} (driver pid {proc.pid}, log {proc.log})")
    return EXIT_OK


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
    with connect(resolve_control(args)) as control:
        offers = control.harness.ListCodecs(hs.ListCodecsRequest(), timeout=10).offers
        # What each worker refuses for a dataset it carries (a user's schema with a feature a
        # codec has no payload rule for): control plans none of those cells.
        refusals = [(w.id, r) for w in control.list_workers() for d in w.datasets for r in d.refused]
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
                        refusals=[dict(to_json(r), workerId=wid) for wid, r in refusals]))
    else:
        con = display.console()
        if not offers:
            err("no codecs: no workers attached")
        if args.by_worker and offers:
            con.print(display.codecs_table(offers))
        con.print(display.codec_matrix_table(matrix))
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
    if args.runs_cmd == "show":
        return cmd_runs_show(args)
    with connect(resolve_control(args)) as control:
        runs = control.harness.ListRuns(hs.ListRunsRequest(limit=args.limit), timeout=10).runs
    if args.json:
        print_json([to_json(r) for r in runs])
    elif not runs:
        err("no runs yet")
    else:
        display.console().print(display.runs_table(runs))
    return EXIT_OK


def _get_run(control: Control, run_id: str):
    try:
        return control.get_run(run_id)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.NOT_FOUND:
            raise CliError(f"no run {run_id!r} at control {control.addr}: {exc.details()}") from None
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
    from . import report as report_mod  # matplotlib: imported only when a report is written

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


def _print_run(resp, args, out_dir: Path, files: dict) -> int:
    run = resp.run
    failed = [t for t in resp.tasks if task_status_name(t.status) == "failed"]
    status = run_status_name(run.status)
    if args.json:
        doc = json_format.MessageToDict(resp)
        doc["resultsDir"] = str(out_dir)
        # Medians and intervals as numbers (proto-JSON writes 64-bit integers as strings).
        df = results.measurements_frame(resp.measurements, resp.tasks, run_id=run.id)
        doc["answer"] = leaderboard.answer_json(*_answer(df, results.read_run_doc(out_dir)))
        print_json(doc)
    else:
        df = results.measurements_frame(resp.measurements, resp.tasks, run_id=run.id)
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
        boards, floors = leaderboard.for_run(summary, cells, langs, list(run.scenario.codecs))
        display.print_leaderboards(boards, floors, out=con)
        if not getattr(args, "all", False):
            display.print_notes(summary, noise, transfer, out=con)
        display.print_failures([(task_label(t), t.failure or "failed without a message") for t in failed], out=con)
        for line in user_dataset_notes(run):
            con.print(line, style="yellow" if line.startswith("refused") else None)
        by_status = {}
        for t in resp.tasks:
            by_status[task_status_name(t.status)] = by_status.get(task_status_name(t.status), 0) + 1
        counts = ", ".join(f"{n} {s}" for s, n in sorted(by_status.items()))
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


def results_dir(args) -> Path:
    if getattr(args, "results_dir", None):
        return Path(args.results_dir)
    if os.environ.get("CODECBENCH_RESULTS"):
        return Path(os.environ["CODECBENCH_RESULTS"])
    return processes.repo_root() / "results"


def cmd_runs_show(args) -> int:
    addr = resolve_control(args)
    with connect(addr) as control:
        resp = _get_run(control, args.run_id)
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
                       "reachable to ask for it (pass --results-dir, or --control)") from None
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
    from . import report as report_mod

    rep = report_mod.write_report(run_dir, out)
    for w in rep.warnings:
        err(f"warning: {w}")
    print(f"plots:  {rep.html.parent / 'plots'} ({len(rep.plots)} PNG)")
    print(f"md:     {rep.md}")
    print(f"report: {rep.html}")
    return EXIT_OK


def _answer(df, doc: dict):
    """(boards, floors, summary) of a run's measurements."""
    summary, cells = results.summary_frame(df), results.cells_frame(df)
    codecs = list(((doc.get("run") or {}).get("scenario") or {}).get("codecs") or [])
    boards, floors = leaderboard.for_run(summary, cells, results.language_map(df, doc), codecs)
    return boards, floors, summary


def _export(run_dir: Path, fmt: str) -> int:
    """report --format md|csv|json: the leaderboards and every row, on stdout, for a PR or a wiki."""
    df, doc = results.read_measurements(run_dir), results.read_run_doc(run_dir)
    boards, floors, summary = _answer(df, doc)
    if fmt == "json":
        print_json({"run": run_dir.name, **leaderboard.answer_json(boards, floors, summary)})
    elif fmt == "csv":
        sys.stdout.write(pd.DataFrame(leaderboard.to_records(boards), columns=leaderboard.RECORD_FIELDS)
                         .to_csv(index=False))
        err(f"(the leaderboards; every row is in {run_dir / 'summary.csv'})")
    else:
        print(f"## codecbench run {run_dir.name}\n\n" + leaderboard.to_markdown(boards)
              + "\n### Every producer → consumer row\n\n" + leaderboard.rows_markdown(summary))
    return EXIT_OK


def _noise_json(nf, transfer: bool = False) -> dict | None:
    if nf is None:
        return None
    return {"worstRatio": nf.worst, "medianRatio": nf.median, "groups": nf.groups,
            "text": nf.sentence(transfer)}


def cmd_compare(args) -> int:
    from . import compare as cmp

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
    from . import calibration
    # The host term applies when both runs were measured on the host it was measured on.
    hosts = {calibration.host_key(d) for d in docs}
    cal = None
    if len(hosts) == 1:
        try:
            cal = calibration.load(results_dir(args), hosts.pop())
        except ValueError as exc:
            raise CliError(str(exc), EXIT_USAGE) from None
    table = cmp.compare(frames[0], frames[1], args.threshold, docs[0], docs[1], calibration=cal)
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


def cmd_calibrate(args) -> int:
    """Measures this host's run-to-run term from runs repeated unchanged (calibration.py) and
    writes it to the results folder, where report and compare read it."""
    from . import calibration
    from . import compare as cmp

    out = results_dir(args)
    if args.runs:
        dirs = []
        for r in args.runs:
            d = locate_run(r, args)
            if d is None:
                raise CliError(f"calibrate: no results for {r!r} (neither a results folder nor {out / r})", EXIT_USAGE)
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


# ---- run ----------------------------------------------------------------------------------------

def cmd_validate(args) -> int:
    """Every file is checked, and each says ok or what is wrong: exit 2 if any is invalid."""
    bad = 0
    for path in args.scenario:
        try:
            loaded = load(path)
        except ScenarioError as exc:
            err(str(exc))
            bad += 1
            continue
        s = loaded.message
        err(f"{loaded.path}: ok — {len(s.datasets)} dataset(s), {len(s.codecs)} codec(s), "
            f"{len(s.counts)} count(s)")
    if bad and len(args.scenario) > 1:
        err(f"{bad} of {len(args.scenario)} scenario files are invalid")
    return EXIT_INVALID if bad else EXIT_OK


def _selectors(scenario) -> list[str]:
    return list(dict.fromkeys([*scenario.producers, *scenario.consumers]))


def local_selectors(scenario) -> list[str]:
    """The workers `run --local` starts. An empty producers or consumers list means every attached
    worker, so it starts every language then (`producers: [rust]` with no consumers would
    otherwise start Rust alone, and every consumer would be Rust)."""
    if not scenario.producers or not scenario.consumers:
        return []
    return _selectors(scenario)


def _id_from(stem: str) -> str:
    """A dataset id from a file name: `Orders-2024.ndjson` -> `orders_2024`."""
    out = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in stem.lower()).strip("_") or "mine"
    return out if out[0].isalpha() else f"d_{out}"


def apply_overrides(loaded, args):
    """--counts/--rounds/--warmup-ms/--min-round-ms/--trials/--max-warmup-ms/--network: the
    scenario as written, with these replaced, checked again (a wrong value is a scenario mistake,
    exit 2)."""
    data = json.loads(json.dumps(loaded.data))
    changed = []
    if getattr(args, "counts", None):
        try:
            data["counts"] = [int(c) for c in args.counts.replace(" ", "").split(",") if c]
        except ValueError:
            raise ScenarioError([f"--counts: expected whole numbers separated by commas, got {args.counts!r}"]) from None
        changed.append(f"counts {args.counts}")
    for opt, key in (("rounds", "rounds"), ("warmup_ms", "warmupMs"), ("min_round_ms", "minRoundMs"),
                     ("trials", "trials"), ("max_warmup_ms", "maxWarmupMs")):
        value = getattr(args, opt, None)
        if value is not None:
            sampling = data.setdefault("sampling", {})
            sampling[key] = value
            changed.append(f"{key} {value}")
            if key == "trials":
                sampling["maxTrials"] = value
                changed.append(f"maxTrials {value}")
    if getattr(args, "network", None):
        data["network"] = {"profile": args.network}
        changed.append(f"network {args.network}")
    if getattr(args, "proto", None) or getattr(args, "records", None) or getattr(args, "message", None):
        if not (args.proto and args.message and args.records):
            raise ScenarioError(["--proto, --message and --records go together: a dataset of your own needs all three"])
        entry = {"id": args.id or _id_from(Path(args.records).stem), "proto": str(Path(args.proto).resolve()),
                 "message": args.message, "records": str(Path(args.records).resolve()),
                 "protoPaths": [str(Path(p).resolve()) for p in args.proto_path], "fieldNames": args.field_names}
        data["datasets"] = [entry]
        if not getattr(args, "counts", None):
            data.pop("counts", None)  # the file as it is
        changed.append(f"datasets [{entry['id']} from {args.records}]")
    if not changed:
        return loaded
    err(f"{loaded.path}: overridden from the command line: {', '.join(changed)}")
    return validate(data, loaded.path)


def cmd_run(args) -> int:
    loaded = apply_overrides(load(args.scenario), args)  # ScenarioError -> exit 2 before anything starts
    args.prepared = [userrun.prepare(u, processes.state_root()) for u in loaded.users]
    scenario = loaded.message
    selectors = _selectors(scenario)
    prof = _network(loaded, args)
    if prof.name != "loopback" and not args.local:
        raise CliError(f"{loaded.path}: network profile {prof.name} needs --local: the harness makes "
                       "the namespaces and links when it starts control and the workers itself",
                       EXIT_USAGE)
    if args.lanes is not None and not args.local:
        raise CliError("--lanes needs --local: lanes are control's (codecbench-control --lanes, or "
                       "CODECBENCH_LANES where it runs)", EXIT_USAGE)
    with ExitStack() as stack:
        if args.local:
            addr = _start_local(stack, local_selectors(scenario), args, prof)
        else:
            addr = resolve_control(args)
        control = stack.enter_context(connect(addr))
        # Workers started for this run need time to attach; against a running control a missing
        # language is an error at once, unless the user asks to wait for workers still coming.
        wait = args.wait_workers if args.wait_workers is not None else (60 if args.local else 0)
        try:
            wait_for_workers(control, selectors, wait)
        except TimeoutError as exc:
            hint = ("start them with `codecbench up` (or `codecbench browser`), or use --local"
                    if not args.local else f"see the worker logs in {getattr(args, 'local_logs', '.state/local/')}")
            if args.prepared and not args.local:
                hint += f"; workers carry your datasets when started with {' '.join(userrun.worker_args(args.prepared))}"
            raise CliError(f"{loaded.path}: cannot run: {exc}; {hint}") from None
        code = _run(control, loaded, args)
    # Local processes are stopped by now: drawing the report does not keep them waiting.
    if getattr(args, "written", None) is not None and not args.no_report:
        _write_report(args.written, None, to_stderr=bool(args.json))
    return code


def _network(loaded, args) -> netlab.Profile:
    """The scenario's network (--network has replaced it by now), as a netlab profile."""
    net = loaded.message.network
    custom = {json_name: getattr(net, f) for f, json_name in (
        ("down_mbit", "downMbit"), ("up_mbit", "upMbit"), ("rtt_ms", "rttMs"), ("jitter_ms", "jitterMs"))
        if net.HasField(f)}
    return netlab.profile(net.profile, custom or None)


def _lab_token(local: Local) -> None:
    """Control in a lab listens off loopback, so it requires a token: the user's, else a fresh
    one in the run's folder, which every process started here (and this one) then uses."""
    if os.environ.get("CODECBENCH_TOKEN_FILE") or os.environ.get("CODECBENCH_TOKEN"):
        return
    import secrets

    local.base.mkdir(parents=True, exist_ok=True)
    token = local.base / "token"
    token.touch(mode=0o600)
    token.write_text(secrets.token_hex(32) + "\n")
    os.environ["CODECBENCH_TOKEN_FILE"] = str(token)


def _start_local(stack: ExitStack, selectors: list[str], args, prof: netlab.Profile | None = None) -> str:
    up = Local()
    up.forget_stale()
    lab_wanted = prof is not None and prof.name != "loopback"
    if (addr := up.running_addr()) and lab_wanted:
        raise CliError(f"--local --network {prof.name}: control started by `codecbench up` is running at "
                       f"{addr}; a network lab starts its own (`codecbench down` first)", EXIT_USAGE)
    if addr:
        err(f"--local: using control already started by `codecbench up` at {addr} (left running)")
        return addr
    local = Local.for_local_run()
    args.local_logs = local.logs
    kinds = {processes.kind_of_selector(s) for s in selectors}
    wanted = None if not selectors else {k for k in kinds if k}
    plan, skipped = _worker_plan(local.art, wanted, getattr(args, "browsers", 1))
    needed_missing = [s for s in skipped if wanted is not None]
    if needed_missing:
        raise CliError(f"{args.scenario}: the scenario needs workers that are not built: "
                       + "; ".join(needed_missing))
    for line in skipped:
        err(line)
    started: list[Proc] = []

    def stop_and_tidy():
        stop_procs(started, local)
        # The results are in results/<run-id>/ and the database; payloads and canonical data
        # would only fill the disk run after run.
        shutil.rmtree(local.control_dir / "blobs", ignore_errors=True)

    lab = None
    if lab_wanted:
        try:
            lab = netlab.create(prof, list(plan), log=err)
        except netlab.LabError as exc:
            raise CliError(f"--local: {exc}") from None
        # Registered before the processes' stop, so it runs after it: namespaces go last.
        stack.callback(lab.teardown)
        _lab_token(local)
    # Registered first so that it runs last: stop everything we started, whatever happens.
    stack.callback(stop_and_tidy)
    prepared = getattr(args, "prepared", [])
    rust_program = None
    try:
        if prepared and "rust" in plan:
            rust_program = userrun.rust_worker(local.root, local.state, prepared, local.logs / "rust-models.log", err)
        if prepared and "java" in plan:
            userrun.java_models(local.art.java_jar, prepared, local.logs / "java-models.log", err)
    except userrun.BuildError as exc:
        raise CliError(f"--local: {exc}") from None
    try:
        addr = start_stack(local, "127.0.0.1:0", plan, "", started, lab=lab,
                           extra=tuple(userrun.worker_args(prepared)), rust_program=rust_program,
                           lanes=getattr(args, "lanes", None))
    except (LaunchError, ControlUnreachable, netlab.LabError) as exc:
        raise CliError(f"--local: {exc}") from None
    args.network_env = lab.environment() if lab is not None else {"profile": "loopback"}
    return addr


class _Stream:
    """Reads a server stream on a thread so the main thread stays responsive to Ctrl-C."""

    DONE = object()

    def __init__(self, call):
        self.call = call
        self.queue: queue.Queue = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        try:
            for item in self.call:
                self.queue.put(item)
        except grpc.RpcError as exc:
            self.queue.put(exc)
        self.queue.put(self.DONE)

    def get(self, timeout: float = 0.1):
        try:
            return self.queue.get(timeout=timeout)
        except queue.Empty:
            return None


class _Progress:
    def __init__(self, enabled: bool):
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TextColumn("{task.fields[failed]}"), TimeElapsedColumn(), TextColumn("eta"),
                            # From the pace so far; adaptive trials can still add tasks.
                            TimeRemainingColumn(),
                            console=display.console(stderr=True), disable=not enabled, transient=False)
        self.task = None
        self.status: dict[str, str] = {}
        self.labels: dict[str, str] = {}
        self.run = None

    def __enter__(self):
        self.bar.__enter__()
        self.task = self.bar.add_task("starting run", total=None, failed="")
        return self

    def __exit__(self, *exc):
        self.bar.__exit__(*exc)

    def event(self, ev) -> None:
        kind = ev.WhichOneof("event")
        if kind == "run":
            self.run = ev.run
        elif kind == "task":
            t = ev.task
            self.status[t.id] = task_status_name(t.status)
            self.labels[t.id] = task_label(t)
        self.refresh()

    def refresh(self, note: str = "") -> None:
        total = self.run.tasks_total if self.run else None
        if self.status:  # task events are the finest grain; the run's counts are the fallback
            ended = sum(1 for s in self.status.values() if s in ENDED_TASK)
            failed = sum(1 for s in self.status.values() if s == "failed")
        else:
            # tasks_done counts DONE only; failed tasks have ended too.
            ended = (self.run.tasks_done + self.run.tasks_failed) if self.run else 0
            failed = self.run.tasks_failed if self.run else 0
        running = [self.labels[i] for i, s in self.status.items() if s == "running"]
        desc = note or (running[-1] if running else (f"run {self.run.id}" if self.run else "starting run"))
        self.bar.update(self.task, total=total or None, completed=ended, description=desc,
                        failed=f"[red]{failed} failed[/red]" if failed else "")


def _run(control: Control, loaded, args) -> int:
    scenario = loaded.message
    if getattr(args, "prepared", None):
        # A user's records go to control as a blob; the scenario then declares each dataset.
        scenario = type(loaded.message)()
        scenario.CopyFrom(loaded.message)
        for p in args.prepared:
            scenario.user_datasets.append(p.declaration(control.put_blob(p.records_blob())))
    request = hs.StartRunRequest(scenario=scenario, source=str(loaded.path))
    call = control.harness.StartRun(request)
    stream = _Stream(call)
    run_id = None
    planned = None
    interrupted = False
    show_progress = not args.no_progress
    with _Progress(show_progress) as progress:
        try:
            while True:
                item = stream.get()
                if item is None:
                    continue
                if item is _Stream.DONE:
                    break
                if isinstance(item, grpc.RpcError):
                    if item.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and run_id:
                        # Control dropped this stream for falling behind: follow again (WatchRun
                        # replays what is stored, then goes on live).
                        err(f"the run's event stream fell behind ({item.details()}); following again")
                        call.cancel()
                        call = control.harness.WatchRun(hs.WatchRunRequest(run_id=run_id))
                        stream = _Stream(call)
                        continue
                    _stream_error(item, loaded, run_id)
                    break
                progress.event(item.event)
                if progress.run is not None:
                    if run_id is None:
                        planned = _say_estimate(control, progress.run.id, args, progress)
                    run_id = progress.run.id
                    if run_status_name(progress.run.status) in TERMINAL_RUN:
                        break
        except KeyboardInterrupt:
            interrupted = True
            if run_id is None:
                call.cancel()
                progress.refresh("interrupted")
            else:
                _cancel_and_settle(control, run_id, stream, progress)
        finally:
            call.cancel()
    if run_id is None:
        if interrupted:
            err("interrupted before the run started")
            return EXIT_INTERRUPTED
        raise CliError("control closed the run stream before announcing the run")
    resp = _settled_run(control, run_id)
    extra = {"scenarioFile": str(loaded.path), "scenarioAsWritten": loaded.data}
    if planned:
        extra["estimate"] = planned
    if getattr(args, "network_env", None):
        extra["network"] = args.network_env
    code = report(resp, args, control.addr, extra=extra,
                  write_report=False)
    args.written = results_dir(args) / resp.run.id
    if interrupted:
        err(f"run {run_id} cancelled by Ctrl-C; what was measured is stored and shown above")
        return EXIT_INTERRUPTED
    return code


def _say_estimate(control: Control, run_id: str, args, progress: _Progress) -> dict | None:
    """Says up front how long the planned run will take on this host (estimate.py), from the
    earlier runs in the results folder; returns the estimate for run.json. Never fails the run."""
    try:
        resp = control.get_run(run_id)
        doc = json_format.MessageToDict(resp.run)
        langs = {w.id: w.environment.language for w in resp.workers}
        tasks = [json_format.MessageToDict(t) for t in resp.tasks]
        scenario = doc.get("scenario") or {}
        lanes = timing.lanes(doc)
        past = estimate.history(results_dir(args), scenario.get("sampling") or {}, exclude=run_id, lanes=lanes)
        est = estimate.estimate(tasks, lambda w: results.lang_of(w, langs), scenario, past, lanes=lanes)
    except (grpc.RpcError, OSError, ValueError, KeyError) as exc:
        err(f"plan: no estimate ({type(exc).__name__}: {exc})")
        return None
    progress.bar.console.print(estimate.sentence(est, len(tasks)))
    return est


def _did_you_mean(details: str) -> str:
    """For control's "no attached worker offers codec "x" (offered: a, b)": the closest offered names."""
    import difflib

    m = re.search(r'offers codec "([^"]+)" \(offered: ([^)]*)\)', details)
    if not m:
        return ""
    close = difflib.get_close_matches(m.group(1), [c.strip() for c in m.group(2).split(",") if c.strip()], n=3)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def _stream_error(exc: grpc.RpcError, loaded, run_id) -> None:
    code = exc.code()
    if code == grpc.StatusCode.CANCELLED:
        return
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        raise CliError(f"{loaded.path}: control rejected the scenario: {exc.details()}"
                       + _did_you_mean(exc.details() or ""), EXIT_INVALID)
    if code == grpc.StatusCode.UNAVAILABLE and run_id:
        # Control went away mid-run; what it stored is readable once it is back.
        raise CliError(f"lost the connection to control during run {run_id}: {exc.details()}; "
                       f"`codecbench runs show {run_id}` prints what was stored")
    raise CliError(f"StartRun failed ({code.name}): {exc.details()}")


def _cancel_and_settle(control: Control, run_id: str, stream: _Stream, progress: _Progress,
                       timeout: float = 300.0) -> None:
    """CancelRun, then keep reading events until the run has ended (or Ctrl-C again)."""
    err(f"\ncancelling run {run_id} (a task already running is ended; Ctrl-C again to stop waiting)")
    try:
        control.harness.CancelRun(hs.CancelRunRequest(run_id=run_id), timeout=10)
    except grpc.RpcError as exc:
        err(f"CancelRun failed: {exc.code().name}: {exc.details()}")
        return
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            item = stream.get()
            if item is _Stream.DONE or isinstance(item, grpc.RpcError):
                break
            if item is not None:
                progress.event(item.event)
                if progress.run and run_status_name(progress.run.status) in TERMINAL_RUN:
                    break
            progress.refresh("cancelling: waiting for the run to end")
    except KeyboardInterrupt:
        err("stopped waiting; the run keeps settling in control")


def _settled_run(control: Control, run_id: str, timeout: float = 10.0):
    """GetRun, waiting briefly for the final status (events may beat the database by a moment)."""
    deadline = time.monotonic() + timeout
    while True:
        resp = _get_run(control, run_id)
        if run_status_name(resp.run.status) in TERMINAL_RUN or time.monotonic() >= deadline:
            return resp
        time.sleep(0.2)


# ---- entry --------------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits 64 (EXIT_USAGE), not 2 (an invalid scenario)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codecbench")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="codecbench", description="codecbench: a polyglot codec benchmark")
    p.add_argument("--version", action="version", version=f"codecbench {_version()}")
    p.add_argument("--control", metavar="ADDR",
                   help="control address (default: $CODECBENCH_CONTROL, the control started by "
                        f"`codecbench up`, else {processes.DEFAULT_LISTEN})")
    p.add_argument("--token-file", metavar="FILE",
                   help="a file holding control's token (default: $CODECBENCH_TOKEN_FILE, else the token "
                        "in $CODECBENCH_TOKEN, else none); a control started here requires it, and the "
                        "workers started here send it")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND", parser_class=_Parser)

    up = sub.add_parser("up", help="start control and workers in the background (state in .state/)")
    up.add_argument("--listen", help="address for control (default $CODECBENCH_LISTEN or 127.0.0.1:7600)")
    up.add_argument("--browsers", type=int, default=1, help="browser workers to start (default 1)")
    up.add_argument("--workers", metavar="KINDS",
                    help="comma-separated kinds to start (rust,java,browser; default: every kind that is built)")
    up.add_argument("--timeout", type=float, default=90, help="seconds to wait for workers (default 90)")
    up.add_argument("--lanes", type=int, metavar="N", help=LANES_HELP)
    up.set_defaults(fn=cmd_up)

    down = sub.add_parser("down", help="stop what `up` and `browser` started (a `run --local` stops its own)")
    down.set_defaults(fn=cmd_down)

    br = sub.add_parser("browser", help="open headless browser workers against a running control")
    br.add_argument("--count", type=int, default=1)
    br.add_argument("--timeout", type=float, default=90)
    br.set_defaults(fn=cmd_browser)

    run = sub.add_parser("run", help="run a scenario and print its results")
    run.add_argument("scenario", help="scenario YAML file")
    run.add_argument("--local", action="store_true",
                     help="start control and workers for this run and stop them afterwards")
    run.add_argument("--browsers", type=int, default=1, help="with --local: browser workers (default 1)")
    run.add_argument("--lanes", type=int, metavar="N", help="with --local: " + LANES_HELP)
    run.add_argument("--json", action="store_true", help="print the run as JSON instead of a table")
    run.add_argument("--all", action="store_true",
                     help="print every producer → consumer row before the leaderboards (default: the "
                          "leaderboards and verdict only; every row is in summary.csv and the report)")
    run.add_argument("--results-dir", help="where results/<run-id>/ goes (default: results/ in the repo)")
    run.add_argument("--wait-workers", type=float, default=None, metavar="S",
                     help="seconds to wait for the scenario's workers to attach (default: 60 with --local, "
                          "else 0: a worker that is not attached is an error at once)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--no-report", action="store_true", help="do not write report.html/report.md")
    run.add_argument("--counts", metavar="N,N,...", help="replace the scenario's record counts")
    mine = run.add_argument_group("a dataset of your own, for a quick look (replaces the scenario's datasets)")
    mine.add_argument("--proto", metavar="FILE", help="a .proto file or a descriptor set")
    mine.add_argument("--message", metavar="NAME", help="the record message's full name, e.g. acme.shop.v1.Order")
    mine.add_argument("--records", metavar="FILE", help="NDJSON or a JSON array in the proto3 JSON mapping")
    mine.add_argument("--id", help="the dataset's id (default: from the records file's name)")
    mine.add_argument("--proto-path", metavar="DIR", action="append", default=[], help="more import roots")
    mine.add_argument("--field-names", choices=userrun.FIELD_NAMES, default="json",
                      help="names in self-describing payloads: each field's json_name (default) or the .proto's")
    run.add_argument("--rounds", type=int, help="replace sampling.rounds")
    run.add_argument("--warmup-ms", type=int, help="replace sampling.warmupMs")
    run.add_argument("--min-round-ms", type=int, help="replace sampling.minRoundMs")
    run.add_argument("--trials", type=int, help="replace sampling.trials, and maxTrials with the same "
                                               "number (no adaptive trials)")
    run.add_argument("--max-warmup-ms", type=int, help="replace sampling.maxWarmupMs")
    run.add_argument("--network", metavar="PROFILE", choices=list(netlab.PROFILES),
                     help="with --local: workers as separate hosts on links shaped by PROFILE "
                          f"({', '.join(netlab.PROFILES)}; replaces the scenario's network)")
    run.set_defaults(fn=cmd_run)

    rep = sub.add_parser("report", help="write report.html (self-contained), report.md and plots/ for a run",
                         description="Write results/<run>/report.html (one self-contained file: inline "
                                     "CSS, plots embedded as PNG data URIs), report.md and plots/*.png. "
                                     "RUN is a run id (read from results/<run>/, else fetched from "
                                     "control) or a results folder.")
    rep.add_argument("run", metavar="RUN")
    rep.add_argument("--out", metavar="DIR", help="where to write (default: the run's results folder)")
    rep.add_argument("--format", choices=("html", "md", "csv", "json"), default="html",
                     help="html (default): write report.html, report.md and plots/; md, csv or json: print "
                          "the verdict, the leaderboards and every row to stdout, for a PR or a wiki")
    rep.add_argument("--results-dir", help="where results/<run-id>/ are (default: results/ in the repo)")
    rep.set_defaults(fn=cmd_report)

    from .compare import RULE
    cmpp = sub.add_parser(
        "compare", help="compare two runs: ratio of medians B/A per matching measurement, exit 1 if slower",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Match the measurements of two runs by dataset, codec, decode mode, operation, "
                    "record count, producer language and consumer language (several workers of one "
                    "language: trials pooled) and print the ratio of the medians over trials B/A, "
                    "each with its 95 % interval, with a verdict; both runs' noise floors are "
                    "printed and count in the verdict.\n\n"
                    "Rule: " + RULE + "\n\nExit codes: 0 nothing slower, 1 something slower beyond "
                    "the threshold, the intervals and the noise floors, or newly failing; 2 nothing "
                    "in common or a bad argument.\n"
                    "RUN is a run id (results/<run>/measurements.parquet or .csv, else GetRun from "
                    "control) or a results folder.")
    cmpp.add_argument("run_a", metavar="RUN_A", help="the baseline")
    cmpp.add_argument("run_b", metavar="RUN_B", help="the candidate")
    cmpp.add_argument("--threshold", type=float, default=1.10,
                      help="ratio beyond which a change counts, if the intervals do not overlap and it "
                           "exceeds both runs' noise floors (default 1.10)")
    cmpp.add_argument("--all", action="store_true", help="also list measurements without a significant change")
    cmpp.add_argument("--allow-mismatch", action="store_true",
                      help="compare runs measured under different conditions (sampling, workers, runtime, "
                           "build profile, host), saying so first (without it: exit 3)")
    cmpp.add_argument("--json", action="store_true")
    cmpp.add_argument("--results-dir", help="where results/<run-id>/ are (default: results/ in the repo)")
    cmpp.set_defaults(fn=cmd_compare)

    cal = sub.add_parser(
        "calibrate", help="measure this host's run-to-run term from scenarios run twice or more, unchanged",
        description="Every scenario run at least twice unchanged on this host (same file, same measuring code"
                    ") tells how far a whole run's cells move from run to run, beyond what "
                    "its trials saw. calibrate measures that per language and operation and writes "
                    "results/calibration.json; report and compare then give each cell a host "
                    "interval (its rerun interval widened by the term). Method: "
                    "harness/codecbench/calibration.py.")
    cal.add_argument("runs", nargs="*", metavar="RUN",
                     help="runs to use (default: every finished run in the results folder from the newest run's host)")
    cal.add_argument("--json", action="store_true")
    cal.add_argument("--results-dir", help="where results/<run-id>/ are and calibration.json is written")
    cal.set_defaults(fn=cmd_calibrate)

    val = sub.add_parser("validate", help="check scenario files without running them (exit 2 if any is invalid)")
    val.add_argument("scenario", nargs="+")
    val.set_defaults(fn=cmd_validate)

    sp = sub.add_parser("workers", help="list attached workers")
    sp.add_argument("--json", action="store_true")
    sp.set_defaults(fn=cmd_workers)

    gc = sub.add_parser("gc", help="remove stored payloads and canonical data that no active run needs "
                                   "(results stay; control's blob store has a quota)")
    gc.add_argument("--dry-run", action="store_true", help="only count what would be removed")
    gc.add_argument("--json", action="store_true")
    gc.set_defaults(fn=cmd_gc)

    cod = sub.add_parser("codecs", help="the codec × language matrix of attached workers, checked "
                                        "against codecs/catalogue.yaml")
    cod.add_argument("--json", action="store_true")
    cod.add_argument("--catalogue", metavar="PATH", help="the catalogue (default codecs/catalogue.yaml)")
    cod.add_argument("--by-worker", action="store_true", help="also list every worker's announcement")
    cod.add_argument("--check", action="store_true",
                     help="exit 1 when an announcement and the catalogue disagree")
    cod.set_defaults(fn=cmd_codecs)

    dsp = sub.add_parser("datasets", help="every dataset: its message, fields, lazy fields, bytes per record "
                                          "in JSON and protobuf, and schema fingerprint (no control needed)")
    dsp.add_argument("--json", action="store_true")
    dsp.add_argument("--proto", metavar="FILE", help="your own schema: a .proto (imports from its folder and "
                     "--proto-path) or a descriptor set (buf build -o x.binpb)")
    dsp.add_argument("--proto-path", metavar="DIR", action="append", default=[], help="more import roots")
    dsp.add_argument("--message", metavar="NAME", help="the record message's full name (acme.shop.v1.Order)")
    dsp.add_argument("--records", metavar="FILE", help="NDJSON or a JSON array in the proto3 JSON mapping")
    dsp.add_argument("--id", help="the dataset's id (default: the records file's name)")
    dsp.add_argument("--write-vectors", action="store_true",
                     help="write the fingerprints into codecs/vectors/fingerprints.json (every language's tests read it)")
    dsp.set_defaults(fn=cmd_datasets)

    runs = sub.add_parser("runs", help="list runs; `runs show RUN_ID` prints one and writes its files")
    runs.add_argument("--json", action="store_true")
    runs.add_argument("--limit", type=int, default=50)
    runs.set_defaults(fn=cmd_runs, runs_cmd=None)
    runs_sub = runs.add_subparsers(dest="runs_cmd", metavar="show")
    show = runs_sub.add_parser("show", help="print a stored run's table and write its result files")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true")
    show.add_argument("--all", action="store_true", help="print every producer → consumer row too")
    show.add_argument("--results-dir")
    return p


def _terminate(signum, frame):
    # SIGTERM (a CI timeout, `kill`): unwind like Ctrl-C's second half, so that `run --local`
    # still stops the processes it started.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.token_file:
        # Read by connect() and inherited by control and the workers this command starts.
        os.environ["CODECBENCH_TOKEN_FILE"] = os.path.abspath(args.token_file)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return args.fn(args)
    except ScenarioError as exc:
        err(str(exc))
        return EXIT_INVALID
    except CliError as exc:
        err(str(exc))
        return exc.code
    except ControlUnreachable as exc:
        err(str(exc))
        return EXIT_FAILED
    except LaunchError as exc:
        err(str(exc))
        return EXIT_FAILED
    except grpc.RpcError as exc:
        err(f"control answered {exc.code().name}: {exc.details()}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        err("interrupted")
        return EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)

