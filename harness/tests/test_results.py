"""Building the long and joined tables, and the result files, from synthetic measurements."""

from __future__ import annotations

import io
import json
import math

import pandas as pd
import pytest

from codecbench import display, results
from codecbench.pb import results as results_pb2
from codecbench.pb import scenario as scenario_pb2

ENC, DEC, TR = scenario_pb2.OPERATION_ENCODE, scenario_pb2.OPERATION_DECODE, scenario_pb2.OPERATION_TRANSFER


def meas(op, task, *, dataset="dummy", codec="json", mode="", count=10, producer="rust-1",
         consumer="", worker=None, rounds=(100.0, 110.0, 120.0, 130.0, 140.0), payload=1234,
         verified=True, failure="", language="rust", alloc=None):
    m = results_pb2.Measurement(
        run_id="r1", task_id=task, dataset=dataset, codec=codec, decode_mode=mode, record_count=count,
        producer_worker_id=producer, consumer_worker_id=consumer, language=language, operation=op,
        payload_bytes=payload, round_ns_per_op=list(rounds), verified=verified, failure=failure,
        ops_per_round=64, worker_id=worker or (producer if op == ENC else consumer),
        environment=results_pb2.Environment(language=language, runtime="rustc", runtime_version="1.95",
                                            build_profile="release", cores=2, details={"k": "v"}),
        extras={"warmup_ms": 50.0})
    if alloc is not None:
        m.alloc_bytes_per_op = alloc
    return m


def synthetic():
    """dummy×10 json: rust-1 encodes; rust-1 and java-1 decode typed and lazy, with transfer."""
    ms = [meas(ENC, "e1", rounds=(1000, 1100, 1200, 1300, 1400), alloc=512.0)]
    n = 0
    for consumer, lang in (("rust-1", "rust"), ("java-1", "java")):
        for mode, base in (("typed", 2000.0), ("lazy", 500.0)):
            n += 1
            task = f"d{n}"
            if mode == "typed":  # control times a payload's transfer once per consumer
                ms.append(meas(TR, task, consumer=consumer, language=lang, rounds=(7000.0,) * 3))
            ms.append(meas(DEC, task, mode=mode, consumer=consumer, language=lang,
                           rounds=(base, base * 1.1, base * 1.2, base * 1.3, base * 1.4)))
    return ms


def test_round_stats_median_and_half_iqr_over_median():
    median, q1, q3, spread = results.round_stats([100, 110, 120, 130, 140])
    assert (median, q1, q3) == (120, 110, 130)
    assert spread == pytest.approx(10 / 120)
    assert all(math.isnan(x) for x in results.round_stats([]))


def test_measurements_frame_one_row_per_measurement():
    df = results.measurements_frame(synthetic())
    assert len(df) == 7
    enc = df[df["operation"] == "encode"].iloc[0]
    assert enc["median_ns_per_op"] == 1200
    assert enc["ns_per_record"] == 120
    assert enc["alloc_bytes_per_op"] == 512.0
    assert enc["rounds"] == 5 and enc["ops_per_round"] == 64
    assert json.loads(enc["extras"]) == {"warmup_ms": 50.0}
    assert math.isnan(df[df["operation"] == "decode"].iloc[0]["alloc_bytes_per_op"])
    assert set(df["operation"]) == {"encode", "decode", "transfer"}


def test_summary_joins_encode_decode_and_transfer():
    summary = results.summary_frame(results.measurements_frame(synthetic()))
    assert len(summary) == 4  # 2 consumers × 2 modes, each joined with the one encode
    assert list(summary[["mode", "consumer"]].itertuples(index=False, name=None)) == [
        ("lazy", "java-1"), ("lazy", "rust-1"), ("typed", "java-1"), ("typed", "rust-1")]
    row = summary[(summary["mode"] == "typed") & (summary["consumer"] == "java-1")].iloc[0]
    assert row["encode_ns_per_record"] == 120  # median 1200 ns/op over 10 records
    assert row["decode_ns_per_record"] == pytest.approx(240)  # median 2400
    assert row["decode_spread"] == pytest.approx((2600 - 2200) / 2 / 2400)
    assert row["transfer_ns_per_op"] == 7000
    assert (summary["transfer_ns_per_op"] == 7000).all(), "both modes show their payload's transfer"
    assert row["decode_language"] == "java"
    assert row["payload_bytes"] == 1234
    assert bool(row["verified"]) and row["failure"] == ""


def test_a_failed_decode_marks_only_its_row():
    ms = synthetic()
    ms.append(meas(DEC, "bad", codec="json", mode="typed", consumer="browser-1", language="browser",
                   rounds=(), verified=False, failure="verification failed: record 3 field email: 'a' != 'b'"))
    summary = results.summary_frame(results.measurements_frame(ms))
    bad = summary[summary["consumer"] == "browser-1"].iloc[0]
    assert not bad["verified"]
    # The operation is named unless the message already starts with it.
    assert bad["failure"] == "decode: verification failed: record 3 field email: 'a' != 'b'"
    assert math.isnan(bad["decode_ns_per_record"])
    assert bad["encode_ns_per_record"] == 120, "the encode side is still shown"
    assert summary[summary["consumer"] != "browser-1"]["verified"].all()


def test_failed_task_without_measurement_gets_a_row():
    task = results_pb2.TaskSummary(id="t9", operation=DEC, dataset="beers", codec="bson", decode_mode="lazy",
                                   record_count=5, producer_worker_id="rust-1", consumer_worker_id="fake-1",
                                   status=results_pb2.TASK_STATUS_FAILED, failure="worker fake-1 is gone")
    done = results_pb2.TaskSummary(id="e1", operation=ENC, status=results_pb2.TASK_STATUS_DONE)
    df = results.measurements_frame(synthetic(), [task, done], run_id="r1")
    assert len(df) == 8
    summary = results.summary_frame(df)
    row = summary[summary["dataset"] == "beers"].iloc[0]
    assert (row["codec"], row["mode"], row["consumer"]) == ("bson", "lazy", "fake-1")
    assert "worker fake-1 is gone" in row["failure"]
    assert not row["verified"]


def test_encode_only_scenarios_get_rows_of_their_own():
    ms = [meas(ENC, "e1"), meas(ENC, "e2", codec="bson", payload=999)]
    summary = results.summary_frame(results.measurements_frame(ms))
    assert list(summary["codec"]) == ["bson", "json"]
    assert list(summary["mode"]) == ["", ""]
    assert summary["verified"].all()
    assert summary["decode_ns_per_record"].isna().all()


def test_an_encode_failure_shows_on_its_decode_rows():
    # As control stores it: the encode's failure, and a failure row for each dependent decode.
    ms = [meas(ENC, "e1", rounds=(), verified=False, failure="encode failed: boom", payload=0),
          meas(DEC, "d1", mode="typed", consumer="rust-1", rounds=(), verified=False,
               failure="not run: the payload's encode (e1) failed: encode failed: boom")]
    row = results.summary_frame(results.measurements_frame(ms)).iloc[0]
    assert row["failure"] == "encode failed: boom", "the cascade message adds nothing"
    assert not row["verified"]


def test_rows_follow_dataset_order():
    ms = [meas(ENC, "a", dataset="matrix"), meas(ENC, "b", dataset="dummy"), meas(ENC, "c", dataset="beers")]
    summary = results.summary_frame(results.measurements_frame(ms))
    assert list(summary["dataset"]) == ["dummy", "beers", "matrix"]


def test_write_results_files(tmp_path):
    run = results_pb2.Run(id="r1", name="t", status=results_pb2.RUN_STATUS_FINISHED, tasks_total=5, tasks_done=5)
    files = results.write_results(tmp_path / "r1", run, [], synthetic(), control_addr="127.0.0.1:1")
    csv = pd.read_csv(files["csv"])
    assert len(csv) == 7
    assert json.loads(csv[csv["operation"] == "encode"].iloc[0]["round_ns_per_op"]) == [1000, 1100, 1200, 1300, 1400]
    parquet = pd.read_parquet(files["parquet"])
    assert len(parquet) == 7
    assert list(parquet[parquet["operation"] == "encode"].iloc[0]["round_ns_per_op"]) == [1000, 1100, 1200, 1300, 1400]
    assert len(pd.read_csv(files["summary"])) == 4
    doc = json.loads(files["run"].read_text())
    assert doc["run"]["id"] == "r1"
    assert doc["workers"]["java-1"]["language"] == "java"
    assert doc["harness"]["control"] == "127.0.0.1:1"


def test_table_renders_every_column(tmp_path):
    ms = synthetic() + [meas(DEC, "bad", mode="typed", consumer="browser-1", rounds=(), verified=False,
                             failure="decode failed: expected value at line 1 column 1")]
    summary = results.summary_frame(results.measurements_frame(ms))
    con = display.Console(width=220, record=True, file=io.StringIO())
    display.print_results(summary, title="run r1", out=con)
    text = con.export_text()
    for header in ("dataset", "codec", "mode", "producer → consumer", "records", "bytes", "encode ns/rec",
                   "decode ns/rec", "transfer ns/op", "verified"):
        assert header in text
    assert "rust-1 → java-1" in text
    assert "✓" in text and "✗ decode failed: expected value at line 1 column 1" in text
    assert "±8.3%" in text  # encode spread: (1300-1100)/2/1200
    assert "1,234" in text and "7,000" in text
