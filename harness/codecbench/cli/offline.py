"""Runs without control: those in the results folder (each `results/<run-id>/run.json`) and those
`run --local` keeps in databases of their own (`.state/local/<time>-<pid>/control/codecbench.sqlite`,
the newest ten). `runs` lists them beside control's, and `runs show` prints one from its results
folder, so neither needs a running control."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from google.protobuf import json_format
from rich.table import Table
from rich.text import Text

from .. import display, processes

from ..pb import hs, run_status_name
from ..pb import results as results_pb2


@dataclass
class Listed:
    """One run and where it is stored: "control", "results/<id>", ".state/local/<folder>"."""

    run: results_pb2.Run
    stored: list[str] = field(default_factory=list)


def _run_from_doc(doc: dict) -> results_pb2.Run:
    return json_format.ParseDict(doc.get("run") or {}, results_pb2.Run(), ignore_unknown_fields=True)


def results_runs(results: Path) -> list[results_pb2.Run]:
    """The runs of a results folder, from each run.json (a folder without one is not a run)."""
    out = []
    if not results.is_dir():
        return out
    for d in sorted(results.iterdir()):
        doc_path = d / "run.json"
        if not (d.is_dir() and doc_path.exists()):
            continue
        try:
            run = _run_from_doc(json.loads(doc_path.read_text()))
        except (OSError, ValueError, json_format.ParseError):
            continue
        if run.id:
            out.append(run)
    return out


def _timestamp(text: str | None):
    if not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def local_runs(state: Path) -> list[tuple[results_pb2.Run, Path]]:
    """The runs in every `run --local` database still kept, read-only, with the folder holding it.
    A database that cannot be read (being written at this moment, or from another schema) is
    skipped."""
    out = []
    for db in sorted((state / "local").glob("*/control/codecbench.sqlite")):
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2) as con:
                query = ("SELECT id, name, status, message, created_at, finished_at, tasks_total, "
                         "tasks_done, tasks_failed, {} FROM runs")
                try:
                    rows = con.execute(query.format("tasks_same_bytes")).fetchall()
                except sqlite3.OperationalError:  # a database from before Run.tasks_same_bytes
                    rows = con.execute(query.format("0")).fetchall()
        except sqlite3.Error:
            continue
        for rid, name, status, message, created, finished, total, done, failed, same in rows:
            run = results_pb2.Run(id=rid, name=name or "", message=message or "", tasks_total=total or 0,
                                  tasks_done=done or 0, tasks_failed=failed or 0, tasks_same_bytes=same or 0)
            try:
                run.status = results_pb2.RunStatus.Value(f"RUN_STATUS_{str(status).upper()}")
            except ValueError:
                pass
            for fld, text in (("created_at", created), ("finished_at", finished)):
                if (when := _timestamp(text)) is not None:
                    getattr(run, fld).FromDatetime(when)
            out.append((run, db.parent.parent))
    return out


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(processes.repo_root()))
    except ValueError:
        return str(path)


def merge(control_runs, results: Path, state: Path) -> list[Listed]:
    """Every run known to control, to the results folder and to the kept local databases, once
    each (control's record first, then run.json's, then a local database's), newest first."""
    by_id: dict[str, Listed] = {}

    def add(run, where: str):
        entry = by_id.setdefault(run.id, Listed(run))
        entry.stored.append(where)

    for run in control_runs:
        add(run, "control")
    for run in results_runs(results):
        add(run, _shown(results / run.id))
    for run, folder in local_runs(state):
        add(run, _shown(folder))
    return sorted(by_id.values(), key=lambda e: (e.run.created_at.seconds, e.run.created_at.nanos, e.run.id),
                  reverse=True)


def runs_table(entries: list[Listed]) -> Table:
    table = Table(header_style="bold")
    for col in ("id", "name", "status", "created", "tasks", "failed", "stored in"):
        table.add_column(col)
    for e in entries:
        r = e.run
        created = r.created_at.ToDatetime().strftime("%Y-%m-%d %H:%M:%S") if r.HasField("created_at") else ""
        status = run_status_name(r.status)
        style = {"finished": "green" if not r.tasks_failed else "yellow", "failed": "red",
                 "cancelled": "yellow", "running": "cyan"}.get(status, "")
        table.add_row(r.id, r.name, Text(status, style=style), created, display.tasks_text(r),
                      str(r.tasks_failed) if r.tasks_failed else "", ", ".join(e.stored))
    return table


def stored_response(run_dir: Path) -> hs.GetRunResponse | None:
    """A results folder's run, tasks and workers as control's GetRunResponse would hold them (the
    measurements stay in measurements.parquet); None when run.json is missing or not a run."""
    path = run_dir / "run.json"
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text())
        resp = hs.GetRunResponse(run=_run_from_doc(doc))
        for t in doc.get("tasks") or []:
            json_format.ParseDict(t, resp.tasks.add(), ignore_unknown_fields=True)
        for w in doc.get("workerInfo") or []:
            json_format.ParseDict(w, resp.workers.add(), ignore_unknown_fields=True)
    except (OSError, ValueError, json_format.ParseError):
        return None
    return resp if resp.run.id else None


def local_folder_of(run_id: str, state: Path) -> Path | None:
    """The kept `run --local` folder whose database holds run_id, if any."""
    for run, folder in local_runs(state):
        if run.id == run_id:
            return folder
    return None


def from_local_database(run_id: str, folder: Path, get_run):
    """(GetRunResponse, address) of a kept `run --local` run, read by a control started on its
    database for the purpose (an ephemeral loopback port, stopped after): `runs show` needs no
    running control for it either. `get_run(control, run_id)` is the CLI's paging GetRun."""
    from ..client import connect

    art = processes.Artifacts(processes.repo_root())
    proc, addr = processes.start_control(art, "127.0.0.1:0", folder / "control", folder / "logs" / "runs-show.log")
    try:
        with connect(addr, ready_timeout=10) as control:
            return get_run(control, run_id), addr
    finally:
        processes.stop(proc)
