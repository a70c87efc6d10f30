"""Two stacks in one checkout never touch each other's processes or state: while `run --local`
runs, `up` and `down` in another terminal start and stop only their own (issue 10's probe stopped
the local run's control and workers, and the run ended with 202 tasks failed)."""
from __future__ import annotations

import os
import re
import subprocess
import time
from pathlib import Path

from codecbench import processes
from conftest import CODECBENCH, require_rust, run_cli, write_scenario

LONG_ENOUGH = """
datasets: [beers, owners]
codecs: [json, bson]
decodeModes: [typed]
counts: [50]
producers: [rust]
consumers: [rust]
operations: [encode, decode]
sampling: {warmupMs: 300, maxWarmupMs: 600, rounds: 3, minRoundMs: 5, taskTimeoutS: 60, trials: 4}
"""


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def test_up_and_down_leave_a_local_run_alone(tmp_path):
    require_rust()
    env = {**os.environ, "CODECBENCH_STATE": str(tmp_path / "state"), "CODECBENCH_CONTROL": "", "COLUMNS": "200"}
    local = subprocess.Popen([str(CODECBENCH), "run", str(write_scenario(tmp_path / "s.yaml", LONG_ENOUGH)), "--local",
                              "--no-progress", "--no-report", "--results-dir", str(tmp_path / "r")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        # The local stack is up once its own folder has a control log and a worker attached.
        deadline = time.monotonic() + 60
        local_pids: list[int] = []
        while time.monotonic() < deadline and not local_pids:
            for log in (tmp_path / "state" / "local").glob("*/logs/control.log"):
                if "attached" in log.read_text(errors="replace"):
                    local_pids = [proc.pid for _, proc in processes.PidDir(log.parent.parent / "pids").load_all()]
            time.sleep(0.2)
        assert local_pids, "the local run's stack did not come up"
        up = run_cli("up", "--workers", "rust", "--listen", "127.0.0.1:0",
                     env={"CODECBENCH_STATE": env["CODECBENCH_STATE"], "CODECBENCH_CONTROL": ""})
        assert up.returncode == 0, up.stdout + up.stderr
        up_pids = [int(p) for p in re.findall(r"\(pid (\d+), log", up.stderr)]
        assert len(up_pids) == 2, up.stderr
        down = run_cli("down", env={"CODECBENCH_STATE": env["CODECBENCH_STATE"], "CODECBENCH_CONTROL": ""})
        assert down.returncode == 0, down.stdout + down.stderr
        assert not [p for p in up_pids if alive(p)], "down stopped what up started"
        assert all(alive(p) for p in local_pids), f"down left the local run's processes alone: {down.stderr}"
        out, errs = local.communicate(timeout=300)
        assert local.returncode == 0, out + errs
        assert not [p for p in local_pids if alive(p)], "the local run stopped its own processes"
    finally:
        if local.poll() is None:
            local.kill()
            local.communicate(timeout=30)
        run_cli("down", env={"CODECBENCH_STATE": env["CODECBENCH_STATE"], "CODECBENCH_CONTROL": ""})
