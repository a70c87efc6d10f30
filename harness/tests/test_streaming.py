"""The streaming mode end to end: a codec that offers it gets a streaming encode cell (timed after
the in-memory cell's prepare, on the same payload) and streaming decode cells; both are verified,
their peak memory is a bounded buffer while the in-memory mode holds the payload, and the
leaderboard, summary and report show streaming beside in memory."""
from __future__ import annotations

import json

import pandas as pd

from codecbench import results
from conftest import run_cli, write_scenario

SCENARIO = """
name: streaming
datasets: [matrix]
codecs: [json, bson]
decodeModes: [typed, streaming]
counts: [3000]
operations: [encode, decode]
sampling: {warmupMs: 5, maxWarmupMs: 500, rounds: 3, minRoundMs: 5, taskTimeoutS: 120, trials: 2}
"""


def test_streaming_cells_run_beside_in_memory_ones_with_bounded_memory(control, rust_worker, tmp_path):
    out = tmp_path / "out"
    res = run_cli("--control", control.addr, "run", str(write_scenario(tmp_path / "s.yaml", SCENARIO)),
                  "--results-dir", str(out), "--no-progress", timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr
    run_dir = next(d for d in out.iterdir() if d.is_dir())
    df = results.read_measurements(run_dir)
    assert df["verified"].all() and (df["failure"] == "").all()
    # bson offers no streaming: only json has streaming cells, one encode and one decode.
    streaming = df[df["decode_mode"] == "streaming"]
    assert set(streaming["codec"]) == {"json"}
    assert set(streaming["operation"]) == {"encode", "decode"}
    assert set(streaming["cell_id"]) >= {"encode/matrix/3000/json/streaming/rust-1"}

    def peak(op: str, mode: str) -> float:
        rows = df[(df["codec"] == "json") & (df["operation"] == op) & (df["decode_mode"] == mode)]
        return max(json.loads(e)["peak_heap_bytes"] for e in rows["extras"])

    size = int(df[(df["codec"] == "json") & (df["operation"] == "encode")]["payload_bytes"].max())
    assert size > 4_000_000
    assert peak("encode", "streaming") < 64 * 1024 <= size <= peak("encode", "")
    assert peak("decode", "streaming") < 64 * 1024 < peak("decode", "typed")
    # The streamed encode wrote the in-memory cell's payload: same size, same blob.
    enc = df[(df["codec"] == "json") & (df["operation"] == "encode")]
    assert enc["payload_bytes"].nunique() == 1 and enc["payload_blob_id"].nunique() == 1

    summary = pd.read_csv(run_dir / "summary.csv", keep_default_na=False)
    row = summary[(summary["codec"] == "json") & (summary["mode"] == "streaming")].iloc[0]
    assert row["encode_mode"] == "streaming" and float(row["encode_ns_per_op"]) > 0
    typed = summary[(summary["codec"] == "json") & (summary["mode"] == "typed")].iloc[0]
    assert typed["encode_mode"] == "" and float(typed["encode_ns_per_op"]) != float(row["encode_ns_per_op"])
    text = " ".join(res.stdout.split())
    assert "encode streaming /rec" in text and "decode streaming /rec" in text, res.stdout
    md = (run_dir / "report.md").read_text(encoding="utf-8")
    assert "| json | streaming | rust |" in md.split("### matrix: encode time per record")[1].split("###")[0]
    assert "### matrix: peak memory (heap held at once by one operation)" in md
