"""The `codecbench` command: start/stop local processes, run scenarios, read workers, codecs and runs."""

from __future__ import annotations

import argparse
import json
import os
import queue
import signal
import sys
import threading
import time
from contextlib import ExitStack
from pathlib import Path

import grpc
from google.protobuf import json_format
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from . import display, processes, results
from .client import Control, ControlUnreachable, connect, wait_for_workers
from .pb import hs, operation_name, run_status_name, task_status_name
from .processes import Artifacts, LaunchError, PidDir, Proc
from .scenario import EXIT_INVALID, ScenarioError, load

EXIT_OK = 0
EXIT_FAILED = 1
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
    """The `.state/` folder: control's data, logs, pid files and the address `up` bound."""

    def __init__(self, root: Path | None = None):
        self.root = root or processes.repo_root()
        self.state = processes.state_root(self.root)
        self.art = Artifacts(self.root)
        self.pids = PidDir(self.state / "pids")
        self.logs = self.state / "logs"
        self.control_dir = self.state / "control"
        self.addr_file = self.state / "control.addr"

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


def start_stack(local: Local, listen: str, plan: dict[str, int], prefix: str,
                started: list[Proc], out=err, timeout: float = 90.0) -> str:
    """Start control and the planned workers, save pid files, wait until the workers attach.

    Every started process is appended to `started` as soon as it exists, so the caller can stop
    them whatever happens here.
    """
    local.logs.mkdir(parents=True, exist_ok=True)
    proc, addr = processes.start_control(local.art, listen, local.control_dir,
                                         local.logs / f"{prefix}control.log")
    started.append(proc)
    local.pids.save(proc, f"{prefix}control")
    out(f"control    {addr}  (pid {proc.pid}, log {proc.log})")
    procs = []
    for kind, count in plan.items():
        wp = processes.start_worker(local.art, kind, addr, local.logs / f"{prefix}{kind}.log", count=count)
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
        addr = start_stack(local, listen, plan, "", started, timeout=args.timeout)
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


def cmd_codecs(args) -> int:
    with connect(resolve_control(args)) as control:
        offers = control.harness.ListCodecs(hs.ListCodecsRequest(), timeout=10).offers
    if args.json:
        print_json([to_json(o) for o in offers])
    elif not offers:
        err("no codecs: no workers attached")
    else:
        display.console().print(display.codecs_table(offers))
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
        return control.harness.GetRun(hs.GetRunRequest(run_id=run_id), timeout=60)
    except grpc.RpcError as exc:
        if exc.code() == grpc.StatusCode.NOT_FOUND:
            raise CliError(f"no run {run_id!r} at control {control.addr}: {exc.details()}") from None
        raise


def task_label(t) -> str:
    op = operation_name(t.operation)
    mode = f"/{t.decode_mode}" if t.decode_mode else ""
    who = t.producer_worker_id + (f" → {t.consumer_worker_id}" if op != "encode" and t.consumer_worker_id else "")
    return f"{op} {t.dataset}×{t.record_count} {t.codec}{mode} {who}".strip()


def report(resp, args, addr: str, extra: dict | None = None) -> int:
    """Write the result files, print the table (or JSON) and the failures; return the exit code."""
    run = resp.run
    out_dir = results_dir(args) / run.id
    files = results.write_results(out_dir, run, resp.tasks, resp.measurements, control_addr=addr,
                                  extra=extra)
    failed = [t for t in resp.tasks if task_status_name(t.status) == "failed"]
    status = run_status_name(run.status)
    if args.json:
        doc = json_format.MessageToDict(resp)
        doc["resultsDir"] = str(out_dir)
        print_json(doc)
    else:
        df = results.measurements_frame(resp.measurements, resp.tasks, run_id=run.id)
        summary = results.summary_frame(df)
        con = display.console()
        title = f"run {run.id}" + (f" · {run.name}" if run.name else "") + f" · {status}"
        display.print_results(summary, title=title, out=con)
        display.print_failures([(task_label(t), t.failure or "failed without a message") for t in failed], out=con)
        by_status = {}
        for t in resp.tasks:
            by_status[task_status_name(t.status)] = by_status.get(task_status_name(t.status), 0) + 1
        counts = ", ".join(f"{n} {s}" for s, n in sorted(by_status.items()))
        con.print(f"\n{len(resp.tasks)} tasks: {counts}" + (f" — {run.message}" if run.message else ""))
        con.print(f"results: {files['csv']}  {files['parquet'].name}  {files['summary'].name}  {files['run'].name}")
    if failed or status == "failed":
        return EXIT_FAILED
    return EXIT_OK


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


# ---- run ----------------------------------------------------------------------------------------

def cmd_validate(args) -> int:
    loaded = load(args.scenario)
    s = loaded.message
    err(f"{loaded.path}: ok — {len(s.datasets)} dataset(s), {len(s.codecs)} codec(s), "
        f"{len(s.counts)} count(s)")
    return EXIT_OK


def _selectors(scenario) -> list[str]:
    return list(dict.fromkeys([*scenario.producers, *scenario.consumers]))


def cmd_run(args) -> int:
    loaded = load(args.scenario)  # ScenarioError -> exit 2 before anything starts
    scenario = loaded.message
    selectors = _selectors(scenario)
    with ExitStack() as stack:
        if args.local:
            addr = _start_local(stack, selectors, args)
        else:
            addr = resolve_control(args)
        control = stack.enter_context(connect(addr))
        try:
            wait_for_workers(control, selectors, args.wait_workers)
        except TimeoutError as exc:
            hint = ("start them with `codecbench up` (or `codecbench browser`), or use --local"
                    if not args.local else "see the worker logs in .state/logs/")
            raise CliError(f"{loaded.path}: cannot run: {exc}; {hint}") from None
        return _run(control, loaded, args)


def _start_local(stack: ExitStack, selectors: list[str], args) -> str:
    local = Local()
    local.forget_stale()
    if (addr := local.running_addr()):
        err(f"--local: using control already started by `codecbench up` at {addr} (left running)")
        return addr
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
    # Registered first so that it runs last: stop everything we started, whatever happens.
    stack.callback(lambda: stop_procs(started, local))
    try:
        return start_stack(local, "127.0.0.1:0", plan, "local-", started)
    except (LaunchError, ControlUnreachable) as exc:
        raise CliError(f"--local: {exc}") from None


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
                            TextColumn("{task.fields[failed]}"), TimeElapsedColumn(),
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
    request = hs.StartRunRequest(scenario=loaded.message, source=str(loaded.path))
    call = control.harness.StartRun(request)
    stream = _Stream(call)
    run_id = None
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
                    _stream_error(item, loaded, run_id)
                    break
                progress.event(item.event)
                if progress.run is not None:
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
    code = report(resp, args, control.addr, extra={"scenarioFile": str(loaded.path),
                                                   "scenarioAsWritten": loaded.data})
    if interrupted:
        err(f"run {run_id} cancelled by Ctrl-C; what was measured is stored and shown above")
        return EXIT_INTERRUPTED
    return code


def _stream_error(exc: grpc.RpcError, loaded, run_id) -> None:
    code = exc.code()
    if code == grpc.StatusCode.CANCELLED:
        return
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        raise CliError(f"{loaded.path}: control rejected the scenario: {exc.details()}", EXIT_INVALID)
    if code == grpc.StatusCode.UNAVAILABLE and run_id:
        # Control went away mid-run; what it stored is readable once it is back.
        raise CliError(f"lost the connection to control during run {run_id}: {exc.details()}; "
                       f"`codecbench runs show {run_id}` prints what was stored")
    raise CliError(f"StartRun failed ({code.name}): {exc.details()}")


def _cancel_and_settle(control: Control, run_id: str, stream: _Stream, progress: _Progress,
                       timeout: float = 300.0) -> None:
    """CancelRun, then keep reading events until the running task has reported (or Ctrl-C again)."""
    err(f"\ncancelling run {run_id} (a task already running finishes first; Ctrl-C again to stop waiting)")
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
            progress.refresh("cancelling: waiting for the running task")
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

def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="codecbench", description="codecbench: a polyglot codec benchmark")
    p.add_argument("--control", metavar="ADDR",
                   help="control address (default: $CODECBENCH_CONTROL, the control started by "
                        f"`codecbench up`, else {processes.DEFAULT_LISTEN})")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND")

    up = sub.add_parser("up", help="start control and workers in the background (state in .state/)")
    up.add_argument("--listen", help="address for control (default $CODECBENCH_LISTEN or 127.0.0.1:7600)")
    up.add_argument("--browsers", type=int, default=1, help="browser workers to start (default 1)")
    up.add_argument("--workers", metavar="KINDS",
                    help="comma-separated kinds to start (rust,java,browser; default: every kind that is built)")
    up.add_argument("--timeout", type=float, default=90, help="seconds to wait for workers (default 90)")
    up.set_defaults(fn=cmd_up)

    down = sub.add_parser("down", help="stop what `up`, `browser` and `run --local` started")
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
    run.add_argument("--json", action="store_true", help="print the run as JSON instead of a table")
    run.add_argument("--results-dir", help="where results/<run-id>/ goes (default: results/ in the repo)")
    run.add_argument("--wait-workers", type=float, default=60, metavar="S",
                     help="seconds to wait for the scenario's workers to attach (default 60)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.set_defaults(fn=cmd_run)

    val = sub.add_parser("validate", help="check a scenario file without running it")
    val.add_argument("scenario")
    val.set_defaults(fn=cmd_validate)

    for name, fn, text in (("workers", cmd_workers, "list attached workers"),
                           ("codecs", cmd_codecs, "list codecs offered by attached workers")):
        sp = sub.add_parser(name, help=text)
        sp.add_argument("--json", action="store_true")
        sp.set_defaults(fn=fn)

    runs = sub.add_parser("runs", help="list runs; `runs show RUN_ID` prints one and writes its files")
    runs.add_argument("--json", action="store_true")
    runs.add_argument("--limit", type=int, default=50)
    runs.set_defaults(fn=cmd_runs, runs_cmd=None)
    runs_sub = runs.add_subparsers(dest="runs_cmd", metavar="show")
    show = runs_sub.add_parser("show", help="print a stored run's table and write its result files")
    show.add_argument("run_id")
    show.add_argument("--json", action="store_true")
    show.add_argument("--results-dir")
    return p


def _terminate(signum, frame):
    # SIGTERM (a CI timeout, `kill`): unwind like Ctrl-C's second half, so that `run --local`
    # still stops the processes it started.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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

