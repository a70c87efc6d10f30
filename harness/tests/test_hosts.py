"""Hosts (docs/DESIGN.md "Hosts", issue 35): a run with `sampling.replicas` in a network lab puts
two Rust workers in namespaces of their own, each with a host name of its own; control gives each
host a lane of its own, so both run trials at once; every cell's trials are spread over the two,
and the results carry each replica's effect (results.host_effects), shown by the report."""

from __future__ import annotations

import json
import os

from codecbench import netlab, results, timing
from conftest import require_rust, run_cli, write_scenario
from test_netlab import _local_env


def test_a_run_spread_over_two_worker_hosts_completes_and_reports_their_effects(tmp_path):
    require_rust()
    assert netlab.available() is None, f"this test needs network namespaces: {netlab.available()}"
    path = write_scenario(tmp_path / "hosts.yaml", """\
datasets: [dummy, numeric, beers]
codecs: [json, protobuf]
decodeModes: [typed]
counts: [20]
producers: [rust]
consumers: [rust]
operations: [encode, decode]
sampling: {replicas: true, warmupMs: 5, maxWarmupMs: 300, rounds: 3, minRoundMs: 1, taskTimeoutS: 120, trials: 4}
""")
    res = run_cli("run", str(path), "--local", "--network", "veth", "--no-progress",
                  "--results-dir", str(tmp_path / "r"), env=_local_env(tmp_path), timeout=900)
    assert res.returncode == 0, res.stdout + res.stderr
    [run_dir] = list((tmp_path / "r").iterdir())
    doc = json.loads((run_dir / "run.json").read_text())
    assert set(doc["network"]["links"]) == {"rust", "rust-2"}, "a namespace per worker"
    me = os.uname().nodename
    hosts = {w: env["hostname"] for w, env in doc["workers"].items()}
    assert sorted(hosts.values()) == sorted([f"{me}-rust"[:64], f"{me}-rust-2"[:64]]), hosts
    df = results.read_measurements(run_dir)
    assert df["verified"].all() and (df["failure"].fillna("") == "").all()
    timed = df[df["operation"].isin(["encode", "decode"]) & (df["rounds"] > 0)]
    # Cells are named by the first worker only, and each has two trials on each replica.
    spread = timed.groupby(["cell_id", "operation"])["worker_id"].value_counts().unstack(fill_value=0)
    assert spread.shape[1] == 2 and (spread == 2).all().all(), spread
    # The hosts ran tasks at the same time (a lane each); one host never ran two at once.
    tasks = [t for t in doc["tasks"] if t.get("startedAt") and t.get("endedAt")]
    runner = {t["id"]: t.get("replica") or t.get("producerWorkerId") for t in tasks}
    spans = [(timing.seconds(t["startedAt"]), timing.seconds(t["endedAt"]), runner[t["id"]]) for t in tasks]
    overlapping = [(a, b) for i, a in enumerate(spans) for b in spans[i + 1:] if a[0] < b[1] and b[0] < a[1]]
    assert overlapping, "no two tasks ran at once on the two hosts"
    assert all(hosts[a[2]] != hosts[b[2]] for a, b in overlapping), "two tasks at once on one host"
    # Each replica's effect, with its host name, in the results and the report.
    effects = results.host_effects(df)
    assert set(effects["hostname"]) == set(hosts.values()), effects
    assert set(effects["operation"]) == {"encode", "decode"}
    assert effects["factor"].between(0.5, 2.0).all(), effects
    report = (run_dir / "report.md").read_text()
    assert "Host effects" in report and f"{me}-rust-2" in report
