"""Writing a results folder: measurements.csv/.parquet, duets.parquet, summary.csv, run.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable

from google.protobuf import json_format

from .. import duets, timing
from .rows import measurements_frame
from .summary import lang_of, summary_frame
from .environment import harness_environment, worker_environments


def write_results(out_dir: Path, run, tasks, measurements, control_addr: str = "",
                  extra: dict | None = None, workers: Iterable = ()) -> dict[str, Path]:
    """Write measurements.csv/.parquet (long), summary.csv (joined) and run.json into out_dir."""
    measurements = list(measurements)
    tasks = list(tasks)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Duet copies ran two at once: they go to duets.parquet, out of every cell and verdict.
    df, duet_rows = duets.split(measurements_frame(measurements, tasks, run_id=run.id))
    files = {
        "csv": out_dir / "measurements.csv",
        "parquet": out_dir / "measurements.parquet",
        "summary": out_dir / "summary.csv",
        "run": out_dir / "run.json",
    }
    csv = df.copy()
    # CSV has no list type: the per-round values go in as a JSON array.
    csv["round_ns_per_op"] = csv["round_ns_per_op"].map(json.dumps)
    csv.to_csv(files["csv"], index=False)
    df.to_parquet(files["parquet"], index=False)
    if not duet_rows.empty:
        files["duets"] = out_dir / "duets.parquet"
        duet_rows.to_parquet(files["duets"], index=False)
    summary_frame(df).to_csv(files["summary"], index=False)
    envs = worker_environments(measurements)
    run_dict, task_dicts = json_format.MessageToDict(run), [json_format.MessageToDict(t) for t in tasks]
    doc = {
        "run": run_dict,
        "tasks": task_dicts,
        "workers": envs,
        # Where the run's wall time went (timing.py), from the tasks' stamps and phases.
        "timeBreakdown": timing.breakdown(run_dict, task_dicts, lambda w: lang_of(w, {k: e.get("language", "") for k, e in envs.items()})),
        # The workers attached when the run started (GetRunResponse.workers): their codecs and
        # each codec's declared timed regions, for the report's boundary table.
        "workerInfo": [json_format.MessageToDict(w) for w in workers],
        "harness": harness_environment(control_addr),
        **(extra or {}),
    }
    files["run"].write_text(json.dumps(doc, indent=2) + "\n")
    return files
