"""Issue 32's stored-field probes. `validate` applies the string and list limits of
proto/codecbench/v1/limits.json (and refuses duplicate YAML keys, names each duplicate once, and
counts tasks as control does); control applies the same limits at entry — StartRun, Attach,
ReportResult — so no stored value can make a reply exceed 4 MiB and break ListRuns, ListWorkers
or GetRun for everyone. Failure messages are truncated with a marker instead of refused."""
from __future__ import annotations

import json
from pathlib import Path

import grpc
import pytest
from google.protobuf import json_format

from codecbench import scenario
from codecbench.pb import hs, results, scenario as scenario_pb2, ws

from conftest import run_cli
from test_scenario import GOOD, check

REPO = Path(__file__).resolve().parents[2]
LIMITS = json.loads((REPO / "proto/codecbench/v1/limits.json").read_text())
MIB = 1 << 20


def test_validate_applies_the_limits_control_applies(tmp_path, capsys):
    assert scenario.LIMITS == LIMITS, "validate reads the one declaration"
    at_limit = GOOD.replace("name: t", "name: " + "n" * LIMITS["maxNameBytes"])
    path = tmp_path / "ok.yaml"
    path.write_text(at_limit + "description: " + "d" * LIMITS["maxDescriptionBytes"] + "\n")
    scenario.load(path)
    err = check(tmp_path, GOOD.replace("name: t", "name: " + "n" * (900_000)), capsys)
    assert f'"name" is 900,000 bytes; at most {LIMITS["maxNameBytes"]} are allowed' in err
    err = check(tmp_path, GOOD + "description: " + "d" * 900_000 + "\n", capsys)
    assert f'"description" is 900,000 bytes; at most {LIMITS["maxDescriptionBytes"]:,} are allowed' in err
    err = check(tmp_path, GOOD.replace("codecs: [json, bson]", "codecs: [json, " + "c" * 129 + "]"), capsys)
    assert f'"codecs" item 2 is 129 bytes; at most {LIMITS["maxIdBytes"]} are allowed' in err


def test_validate_refuses_duplicate_keys_and_names_each_duplicate_once(tmp_path, capsys):
    err = check(tmp_path, GOOD + "name: again\n", capsys)
    assert 'key "name" is written twice (first at line 1); YAML would keep only the last' in err
    err = check(tmp_path, GOOD.replace("sampling: {warmupMs: 50,", "sampling: {warmupMs: 50, warmupMs: 60,"), capsys)
    assert 'key "sampling.warmupMs" is written twice' in err
    # 500 duplicated datasets: one line, not 499.
    err = check(tmp_path, GOOD.replace("datasets: [dummy, matrix]", "datasets: [" + ", ".join(["dummy"] * 500) + "]"), capsys)
    assert 'dataset "dummy" is listed 500 times in "datasets"' in err and err.count("listed") == 1, err
    err = check(tmp_path, GOOD.replace("counts: [10, 100]", "counts: [" + ", ".join(["10"] * 5000) + "]"), capsys)
    assert f'"counts" has 5,000 items; at most {LIMITS["maxListItems"]:,} are allowed' in err and len(err.splitlines()) < 5


def test_validate_counts_tasks_as_control_does(tmp_path, capsys):
    counts = ", ".join(str(c) for c in range(1, 1001))
    err = check(tmp_path, GOOD.replace("counts: [10, 100]", f"counts: [{counts}]"), capsys)
    assert "expands to at least" in err and f"at most {LIMITS['maxTasks']:,} are allowed" in err, err


def scenario_msg(**fields) -> scenario_pb2.Scenario:
    s = scenario_pb2.Scenario()
    json_format.ParseDict({"datasets": ["dummy"], "codecs": ["json"], "counts": [5]}, s)
    for k, v in fields.items():
        if isinstance(v, list):
            getattr(s, k).extend(v)
        else:
            setattr(s, k, v)
    return s


def start_run(c, s: scenario_pb2.Scenario):
    return list(c.harness.StartRun(hs.StartRunRequest(scenario=s, source="probe.yaml"), timeout=30))


def test_control_refuses_oversized_stored_fields_at_entry_and_every_list_still_answers(control, tmp_path):
    """The issue's probes: a 3 MiB run name, 2.2 MiB descriptions, 3 MiB worker environments.
    Before, each was stored and broke ListRuns, ListWorkers or GetRun's first page for good."""
    with control.client() as c:
        for field, size, limit in (("name", 3 * MIB, "maxNameBytes"), ("description", 2_200_000, "maxDescriptionBytes")):
            with pytest.raises(grpc.RpcError) as refused:
                start_run(c, scenario_msg(**{field: "x" * size}))
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            assert f"{field} is {size} bytes; at most {LIMITS[limit]} are allowed" in refused.value.details()
        # At the limit the bound check passes (the plan then needs a worker).
        with pytest.raises(grpc.RpcError) as planned:
            start_run(c, scenario_msg(name="n" * LIMITS["maxNameBytes"]))
        assert "bytes; at most" not in planned.value.details(), planned.value.details()

        env = results.Environment(language="probe", details={"flags": "f" * (3 * MIB)})
        codec = results.CodecInfo(id="json", decode_modes=["typed"])
        with pytest.raises(grpc.RpcError) as big_env:
            next(c.worker.Attach(ws.AttachRequest(name="big", environment=env, codecs=[codec]), timeout=10))
        assert big_env.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert f"at most {LIMITS['maxEnvironmentBytes']} are allowed" in big_env.value.details()
        with pytest.raises(grpc.RpcError) as long_name:
            next(c.worker.Attach(ws.AttachRequest(name="w" * (3 * MIB), codecs=[codec]), timeout=10))
        assert f"name is {3 * MIB} bytes" in long_name.value.details()
        assert c.harness.ListWorkers(hs.ListWorkersRequest(), timeout=5).workers == []
        res = run_cli("--control", control.addr, "runs")
        assert res.returncode == 0, res.stdout + res.stderr


def test_a_huge_failure_message_is_stored_truncated_and_the_run_stays_readable(control, fake_worker, tmp_path):
    """A 2.5 MiB failure report is stored as its first maxFailureBytes with a marker: the run's
    pages, its rows and the database stay small (before: every dependent task copied it)."""
    fake_worker("fail", "huge", "--failure-bytes", str(2_621_440))
    s = scenario_msg(producers=["huge"], consumers=["huge"])
    s.sampling.trials = 1
    with control.client() as c:
        events = start_run(c, s)
        run = [e.event.run for e in events if e.event.WhichOneof("event") == "run"][-1]
        page = c.harness.GetRun(hs.GetRunRequest(run_id=run.id), timeout=30)
    failures = [t.failure for t in page.tasks if t.failure] + [m.failure for m in page.measurements if m.failure]
    assert len(failures) >= 2, failures
    # The task's own message, and its dependents' (the cascade prefixes it).
    assert all(len(f.encode()) <= LIMITS["maxFailureBytes"] + 200 for f in failures), [len(f) for f in failures]
    # The task's own row keeps the truncated message; the tasks that waited for its payload repeat
    # only an excerpt (state.rs `excerpt`): one message stored once, however many dependents.
    own = [f for f in failures if not f.startswith("not run:")]
    assert own and all(f.endswith("bytes in all]") for f in own), own[0][-80:]
    assert all(f.endswith("(the whole message is the encode task's failure)") for f in failures if f.startswith("not run:"))
    assert page.ByteSize() < 256 * 1024, page.ByteSize()
    db = control.state_dir / "codecbench.sqlite"
    wal = db.with_name(db.name + "-wal")
    assert db.stat().st_size + (wal.stat().st_size if wal.exists() else 0) < 8 * MIB
