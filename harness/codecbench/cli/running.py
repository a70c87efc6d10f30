"""`run`: start the run, follow its event stream with a progress bar, cancel on Ctrl-C, and
print and write what was measured."""

from __future__ import annotations

import re
import queue
import threading
import time
from contextlib import ExitStack

import grpc
from google.protobuf import json_format
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

from .. import display, estimate, processes, userrun
from ..client import Control, connect, wait_for_workers
from ..pb import hs, run_status_name, task_status_name
from ..scenario import EXIT_INVALID, load
from .base import ENDED_TASK, EXIT_INTERRUPTED, EXIT_USAGE, TERMINAL_RUN, CliError, err, resolve_control, results_dir
from . import planning
from .stack import _network, _start_local
from .reading import _get_run, _write_report, report, task_label
from .scenarios import _selectors, apply_overrides, local_selectors, say_notes


def cmd_run(args) -> int:
    loaded = apply_overrides(load(args.scenario), args)  # ScenarioError -> exit 2 before anything starts
    say_notes(loaded)
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
            addr = _start_local(stack, local_selectors(scenario), args, prof,
                                duets=scenario.sampling.duets, replicas=scenario.sampling.replicas)
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
        if args.plan:
            return planning.plan_run(control, _scenario_for(control, loaded, args), str(loaded.path), results_dir(args))
        code = _run(control, loaded, args)
    # Local processes are stopped by now: drawing the report does not keep them waiting.
    if getattr(args, "written", None) is not None and not args.no_report:
        _write_report(args.written, None, to_stderr=bool(args.json))
    return code


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
            # tasks_done counts DONE only; failed tasks and same-bytes ones have ended too.
            ended = (self.run.tasks_done + self.run.tasks_failed + self.run.tasks_same_bytes) if self.run else 0
            failed = self.run.tasks_failed if self.run else 0
        running = [self.labels[i] for i, s in self.status.items() if s == "running"]
        desc = note or (running[-1] if running else (f"run {self.run.id}" if self.run else "starting run"))
        self.bar.update(self.task, total=total or None, completed=ended, description=desc,
                        failed=f"[red]{failed} failed[/red]" if failed else "")


def _scenario_for(control: Control, loaded, args):
    """The scenario control gets: as loaded, with each user dataset declared (its records go to
    control as a blob first)."""
    scenario = loaded.message
    if getattr(args, "prepared", None):
        scenario = type(loaded.message)()
        scenario.CopyFrom(loaded.message)
        for p in args.prepared:
            scenario.user_datasets.append(p.declaration(control.put_blob(p.records_blob())))
    return scenario


def _run(control: Control, loaded, args) -> int:
    scenario = _scenario_for(control, loaded, args)
    # A budget (sampling.maxSeconds): the plan is built to fit it, said before the run starts.
    scenario = planning.check_budget(control, scenario, str(loaded.path), results_dir(args),
                                     fit=not getattr(args, "no_fit", False))
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
        langs = {w.id: w.environment.language for w in resp.workers}
        tasks = [json_format.MessageToDict(t) for t in resp.tasks]
        est = planning.estimate_for(json_format.MessageToDict(resp.run), tasks, langs, results_dir(args), exclude=run_id)
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
