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
UP, DOWN = scenario_pb2.OPERATION_UPLOAD, scenario_pb2.OPERATION_DOWNLOAD
BLOB = "ab" * 32


def meas(op, task, *, dataset="dummy", codec="json", mode="", count=10, producer="rust-1",
         consumer="", worker=None, rounds=(100.0, 110.0, 120.0, 130.0, 140.0), payload=1234,
         verified=True, failure="", language="rust", alloc=None, cell="", trial=0, steady=True,
         blob=BLOB, twin=False):
    m = results_pb2.Measurement(
        run_id="r1", task_id=task, dataset=dataset, codec=codec, decode_mode=mode, record_count=count,
        producer_worker_id=producer, consumer_worker_id=consumer, language=language, operation=op,
        payload_bytes=payload, round_ns_per_op=list(rounds), verified=verified, failure=failure,
        ops_per_round=64, worker_id=worker or (producer if op in (ENC, UP) else consumer),
        environment=results_pb2.Environment(language=language, runtime="rustc", runtime_version="1.95",
                                            build_profile="release", cores=2, details={"k": "v"}),
        extras={"warmup_ms": 50.0}, cell_id=cell, trial=trial, steady=steady, payload_blob_id=blob,
        aa_twin=twin)
    if alloc is not None:
        m.alloc_bytes_per_op = alloc
    return m


# Trial figures (medians of rounds) of each cell's 5 trials, in the order they ran.
ENC_TRIALS = (1200.0, 1000.0, 1400.0, 1100.0, 1300.0)


def trial_rounds(figure):
    return (figure * 0.9, figure, figure * 1.1)


def synthetic():
    """dummy×10 json: rust-1 encodes (5 trials, with upload); rust-1 and java-1 decode typed and
    lazy (5 trials each, with download), from the same payload."""
    ms = []
    for t, fig in enumerate(ENC_TRIALS):
        ms.append(meas(ENC, f"e{t}", rounds=trial_rounds(fig), alloc=512.0, cell="enc", trial=t))
        ms.append(meas(UP, f"e{t}", rounds=(9000.0,), cell="enc", trial=t))
    for consumer, lang in (("rust-1", "rust"), ("java-1", "java")):
        for mode, base in (("typed", 2000.0), ("lazy", 500.0)):
            cell = f"dec-{consumer}-{mode}"
            for t in range(5):
                task = f"{cell}-t{t}"
                ms.append(meas(DOWN, task, consumer=consumer, language=lang, rounds=(7000.0,) * 3,
                               cell=cell, trial=t))
                ms.append(meas(DEC, task, mode=mode, consumer=consumer, language=lang, cell=cell, trial=t,
                               rounds=trial_rounds(base * (1 + 0.1 * t)), steady=not (lang == "java" and t == 4)))
    return ms


def test_round_stats_median_and_half_iqr_over_median():
    median, q1, q3, spread = results.round_stats([100, 110, 120, 130, 140])
    assert (median, q1, q3) == (120, 110, 130)
    assert spread == pytest.approx(10 / 120)
    assert all(math.isnan(x) for x in results.round_stats([]))


def test_measurements_frame_one_row_per_measurement():
    df = results.measurements_frame(synthetic())
    assert len(df) == 10 + 40
    enc = df[df["operation"] == "encode"].iloc[0]
    assert enc["median_ns_per_op"] == 1200
    assert enc["ns_per_record"] == 120
    assert enc["alloc_bytes_per_op"] == 512.0
    assert enc["rounds"] == 3 and enc["ops_per_round"] == 64
    assert (enc["cell_id"], enc["trial"], enc["payload_blob_id"]) == ("enc", 0, BLOB)
    assert bool(enc["steady"]) and not enc["aa_twin"]
    assert json.loads(enc["extras"]) == {"warmup_ms": 50.0}
    assert math.isnan(df[df["operation"] == "decode"].iloc[0]["alloc_bytes_per_op"])
    assert set(df["operation"]) == {"encode", "upload", "decode", "download"}


def test_cells_are_the_median_over_trials_with_the_order_statistic_interval():
    cells = results.cells_frame(results.measurements_frame(synthetic()))
    assert len(cells) == 2 + 8  # encode + upload; 4 decode cells, each with its download
    enc = cells[cells["operation"] == "encode"].iloc[0]
    assert enc["trials"] == 5
    assert enc["median_ns_per_op"] == 1200, "the median of the trials' medians"
    assert (enc["lo_ns_per_op"], enc["hi_ns_per_op"]) == (1000, 1400), "5 trials: min..max"
    assert enc["coverage"] == pytest.approx(5 / 6), "min..max of 5 holds a rerun's median 5/6 of the time"
    assert enc["ci_pct"] == pytest.approx(200 / 1200 * 100)
    assert enc["ns_per_record"] == 120
    java = cells[(cells["cell_id"] == "dec-java-1-typed") & (cells["operation"] == "decode")].iloc[0]
    assert java["unsteady"] == 1 and java["median_ns_per_op"] == 2400


def test_summary_joins_encode_upload_download_and_decode():
    summary = results.summary_frame(results.measurements_frame(synthetic()))
    assert len(summary) == 4  # 2 consumers × 2 modes, each joined with the one encode
    assert list(summary[["mode", "consumer"]].itertuples(index=False, name=None)) == [
        ("typed", "java-1"), ("typed", "rust-1"), ("lazy", "java-1"), ("lazy", "rust-1")]
    row = summary[(summary["mode"] == "typed") & (summary["consumer"] == "java-1")].iloc[0]
    assert row["encode_ns_per_record"] == 120
    assert row["decode_ns_per_op"] == pytest.approx(2400)
    assert (row["decode_lo_ns_per_op"], row["decode_hi_ns_per_op"]) == pytest.approx((2000, 2800))
    assert row["decode_trials"] == 5 and row["decode_unsteady"] == 1
    assert row["upload_ns_per_op"] == 9000 and row["download_ns_per_op"] == 7000
    assert row["decode_language"] == "java"
    assert row["payload_bytes"] == 1234 and row["payload_blob_id"] == BLOB
    assert bool(row["verified"]) and row["failure"] == ""
    # End to end is the sum of the four legs' medians.
    assert row["end_to_end_ns_per_op"] == pytest.approx(1200 + 9000 + 7000 + 2400)
    assert row["end_to_end_lo_ns_per_op"] == pytest.approx(1000 + 9000 + 7000 + 2000)


def test_compressed_legs_are_cells_of_their_own_beside_the_identity_legs():
    """Scenario.compressions: a gzip leg of the same task is its own cell; rows, end to end and
    A/A groups keep the identity legs; compression_frame sets each leg beside its identity leg."""
    ms = synthetic()
    for t in range(5):
        up = meas(UP, f"e{t}", rounds=(4500.0,), cell="enc", trial=t)
        up.compression = "gzip"
        ms.append(up)
        for consumer, lang in (("rust-1", "rust"), ("java-1", "java")):
            down = meas(DOWN, f"dec-{consumer}-typed-t{t}", consumer=consumer, language=lang, rounds=(3500.0,) * 3,
                        cell=f"dec-{consumer}-typed", trial=t)
            down.compression = "gzip"
            ms.append(down)
    df = results.measurements_frame(ms)
    cells = results.cells_frame(df)
    legs = cells[cells["operation"].isin(["upload", "download"])]
    assert sorted(legs["compression"]) == [""] * 5 + ["gzip"] * 3
    assert legs["cell_key"].is_unique and set(legs[legs["compression"] == "gzip"]["cell_key"]) == {
        "enc@gzip", "dec-rust-1-typed@gzip", "dec-java-1-typed@gzip"}
    summary = results.summary_frame(df)
    assert len(summary) == 4 and (summary["upload_ns_per_op"] == 9000).all() and (summary["download_ns_per_op"] == 7000).all()
    downloads = results.aa_groups(cells, "download")
    assert all(r == pytest.approx(1.0) for r in downloads["ratio"]), downloads
    comp = results.compression_frame(cells)
    gz = comp[comp["compression"] == "gzip"]
    assert len(gz) == 3 and list(gz["vs_identity"]) == pytest.approx([0.5, 0.5, 0.5])
    order = ["identity", "gzip", "zstd"]
    assert comp.groupby(["operation", "worker_id"])["compression"].apply(
        lambda c: list(c) == sorted(c, key=order.index)).all(), "identity first, then its compressed legs"
    # Compare keys a compressed leg by its compression, in a column of its own.
    from codecbench import compare
    keys = compare.entries(df)
    assert {compare.column_of(k) for k in keys if dict(zip(compare.KEY, k))["compression"] == "gzip"} == {("rust", "upload (gzip)"),
                                                                        ("rust", "download (gzip)"),
                                                                        ("java", "download (gzip)")}


def test_an_encode_whose_only_decode_is_an_aa_twin_keeps_a_row_of_its_own():
    # A cancelled run can end with an encode and its A/A twin's decode measured, and no other
    # decode of that payload: leaderboards drop twin rows, so the encode needs its own row.
    ms = [meas(ENC, "e0", cell="enc"),
          meas(DEC, "d0", mode="typed", consumer="rust-1", cell="dec~aa", twin=True)]
    summary = results.summary_frame(results.measurements_frame(ms))
    assert sorted(summary["aa_twin"].tolist()) == [False, True]
    own = summary[~summary["aa_twin"].astype(bool)].iloc[0]
    assert own["consumer"] == "" and own["encode_trials"] == 1


def test_end_to_end_needs_all_four_legs():
    ms = [m for m in synthetic() if m.operation != UP]
    summary = results.summary_frame(results.measurements_frame(ms))
    assert summary["end_to_end_ns_per_op"].isna().all()


def test_old_runs_transfer_is_the_download_leg_and_each_measurement_one_trial():
    ms = [meas(ENC, "e1", blob=""), meas(TR, "d1", consumer="rust-1", rounds=(7000.0,) * 3, blob=""),
          meas(DEC, "d1", mode="typed", consumer="rust-1", blob="")]
    df = results.measurements_frame(ms)
    assert set(df["operation"]) == {"encode", "download", "decode"}
    row = results.summary_frame(df).iloc[0]
    assert row["download_ns_per_op"] == 7000 and row["decode_trials"] == 1
    assert row["decode_coverage"] == 0.0, "one trial says nothing about uncertainty"


def test_aa_groups_same_bytes_and_noise_floor():
    ms = []
    # rust-1 decodes the same bytes from rust-1, java-1 and browser-1, plus a deliberate twin.
    for producer, twin, factor in (("rust-1", False, 1.0), ("java-1", False, 1.04), ("browser-1", False, 1.02),
                                   ("rust-1", True, 1.08)):
        cell = f"dec-{producer}" + ("~aa" if twin else "")
        for t in range(5):
            ms.append(meas(DEC, f"{cell}-{t}", mode="typed", producer=producer, consumer="rust-1", cell=cell,
                           trial=t, twin=twin, rounds=trial_rounds(1000 * factor * (1 + 0.01 * t))))
    # Another consumer, another payload: a group of its own.
    for producer, factor in (("rust-1", 1.0), ("java-1", 1.02)):
        for t in range(5):
            ms.append(meas(DEC, f"j-{producer}-{t}", mode="typed", producer=producer, consumer="java-1",
                           language="java", cell=f"j-{producer}", trial=t, blob="cd" * 32,
                           rounds=trial_rounds(3000 * factor)))
    for producer in ("rust-1", "java-1", "browser-1"):
        ms.append(meas(ENC, f"e-{producer}", producer=producer, cell=f"enc-{producer}"))
    df = results.measurements_frame(ms)
    cells = results.cells_frame(df)
    groups = results.aa_groups(cells)
    assert len(groups) == 2
    big = groups[groups["consumer"] == "rust-1"].iloc[0]
    assert len(big["cells"]) == 4 and "rust-1 (A/A twin)" in big["producers"]
    assert big["ratio"] == pytest.approx(1.08)
    nf = results.run_noise_floor(cells)
    assert nf.groups == 2 and nf.worst == pytest.approx(1.08) and nf.median == pytest.approx(1.05)
    summary = results.summary_frame(df)
    row = summary[(summary["consumer"] == "rust-1") & (summary["producer"] == "java-1")].iloc[0]
    assert row["same_bytes_as"] == "browser-1, rust-1"
    assert summary["aa_twin"].sum() == 1


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
    assert len(df) == 51
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
    from codecbench.pb import ws
    run = results_pb2.Run(id="r1", name="t", status=results_pb2.RUN_STATUS_FINISHED, tasks_total=5, tasks_done=5)
    worker = ws.WorkerInfo(id="rust-1", codecs=[results_pb2.CodecInfo(id="json", timed_regions=[
        results_pb2.TimedRegion(operation="encode", contains=["serialize", "utf8"])])])
    files = results.write_results(tmp_path / "r1", run, [], synthetic(), control_addr="127.0.0.1:1",
                                  workers=[worker])
    csv = pd.read_csv(files["csv"])
    assert len(csv) == 50
    first = csv[(csv["operation"] == "encode") & (csv["trial"] == 0)].iloc[0]
    assert json.loads(first["round_ns_per_op"]) == pytest.approx([1080, 1200, 1320])
    parquet = pd.read_parquet(files["parquet"])
    assert len(parquet) == 50 and set(parquet["cell_id"]) >= {"enc", "dec-java-1-typed"}
    assert len(pd.read_csv(files["summary"])) == 4
    doc = json.loads(files["run"].read_text())
    assert doc["run"]["id"] == "r1"
    assert doc["workers"]["java-1"]["language"] == "java"
    assert doc["harness"]["control"] == "127.0.0.1:1"
    assert doc["workerInfo"][0]["codecs"][0]["timedRegions"][0]["contains"] == ["serialize", "utf8"]
    # Read back from either file, the same cells.
    back = results.read_measurements(tmp_path / "r1")
    pd.testing.assert_frame_equal(results.summary_frame(back), results.summary_frame(
        results.measurements_frame(synthetic())), check_dtype=False)


def test_table_renders_every_column(tmp_path):
    ms = synthetic() + [meas(DEC, "bad", mode="typed", consumer="browser-1", rounds=(), verified=False,
                             failure="decode failed: expected value at line 1 column 1")]
    df = results.measurements_frame(ms)
    summary = results.summary_frame(df)
    con = display.Console(width=260, record=True, file=io.StringIO())
    display.print_results(summary, title="run r1", out=con, noise=results.run_noise_floor(results.cells_frame(df)))
    text = con.export_text()
    # One dataset and one count: they go in the title, not in columns.
    assert "run r1 · dummy × 10 records" in text
    for header in ("codec", "mode", "producer → consumer", "bytes", "enc ns/rec", "±95%", "dec ns/rec",
                   "upload", "download", "= enc+up+dn+dec", "trials", "verified"):
        assert header in text, header
    assert "dataset" not in text.split("\n", 3)[2]
    assert "rust-1 → java-1" in text
    # Cut to fit; `run` prints every failed task's full message below the table.
    assert "✓" in text and "✗ decode failed: expected" in text
    assert "±16.7%" in text  # encode: 5 trials, interval 1000..1400 around 1200
    assert "5/5 ~1" in text, "java-1's typed decode had one unsteady trial"
    assert "1,234" in text and "7,000" in text and "9,000" in text
    assert "noise floor: not measured" in text  # no two cells did identical work here
    assert "rust-1 → rust-1 ≡" not in text, "one producer: no other producer's bytes to share"
    assert "95 % rerun interval" in " ".join(text.split())  # wherever the console wraps it
    assert "2 row(s) include trials whose warm-up hit sampling.maxWarmupMs" in text  # typed and lazy


def test_host_memory_names_thp_and_damon_reclaim_from_sys(tmp_path):
    from codecbench.results import host_memory

    assert host_memory(tmp_path) == {}, "nothing to say where /sys says nothing"
    (tmp_path / "kernel/mm/transparent_hugepage").mkdir(parents=True)
    (tmp_path / "kernel/mm/transparent_hugepage/enabled").write_text("always [madvise] never\n")
    ctx = tmp_path / "kernel/mm/damon/admin/kdamonds/0/contexts/0"
    (ctx / "schemes/0/access_pattern/age").mkdir(parents=True)
    (ctx / "monitoring_attrs/intervals").mkdir(parents=True)
    (tmp_path / "kernel/mm/damon/admin/kdamonds/0/state").write_text("on\n")
    (ctx / "operations").write_text("paddr\n")
    (ctx / "monitoring_attrs/intervals/aggr_us").write_text("5000000\n")
    (ctx / "schemes/0/action").write_text("pageout\n")
    (ctx / "schemes/0/access_pattern/age/min").write_text("12\n")
    assert host_memory(tmp_path) == {"transparentHugepages": "madvise", "damon": "pageout of memory idle ≥ 60 s (paddr)"}
    (tmp_path / "kernel/mm/damon/admin/kdamonds/0/state").write_text("off\n")
    assert "damon" not in host_memory(tmp_path), "a stopped kdamond reclaims nothing"


def test_cells_take_each_workers_pass_drift_out_of_the_figure_not_the_interval():
    # 8 decode cells timed by rust-1 in 3 passes; the machine 20 % slow in pass 0 and 15 % fast in
    # pass 2. Cell c0's 2 % bump lands in pass 1, c1's in pass 2: plain medians 1020 vs 1000, the
    # figures both 1000 (stats.pass_factors). java-1's cells keep their own (flat) passes.
    drift = [1.20, 1.0, 0.85]
    bumps = {("c0", 1): 1.02, ("c1", 2): 1.02}
    rows = []
    for worker, scale in (("rust-1", drift), ("java-1", [1.0, 1.0, 1.0])):
        for c in range(8):
            cell = f"c{c}" if worker == "rust-1" else f"j{c}"
            for k in range(3):
                f = 1000.0 * scale[k] * bumps.get((cell, k), 1.0)
                rows.append({
                    "cell_id": cell, "trial": k, "operation": "decode", "dataset": "dummy", "codec": "json",
                    "decode_mode": "typed", "record_count": 10, "producer": "rust-1", "consumer": worker,
                    "worker_id": worker, "language": worker.split("-")[0], "payload_bytes": 100,
                    "gzip_bytes": 50, "zstd_bytes": 40, "payload_blob_id": f"b{c}", "aa_twin": False,
                    "steady": True, "round_ns_per_op": [f, f, f], "rounds": 3, "alloc_bytes_per_op": 0.0,
                    "verified": True, "failure": ""})
    cells = results.cells_frame(pd.DataFrame(rows)).set_index("cell_key")
    assert cells.loc["c0", "trial_ns_per_op"] == pytest.approx([1200.0, 1020.0, 850.0]), "raw trials kept"
    assert cells.loc["c0", "adjusted_ns_per_op"] == pytest.approx([1000.0, 1020.0, 1000.0])
    assert cells.loc["c0", "median_ns_per_op"] == pytest.approx(1000.0)
    assert cells.loc["c1", "median_ns_per_op"] == pytest.approx(1000.0)
    assert (cells.loc["c0", "lo_ns_per_op"], cells.loc["c0", "hi_ns_per_op"]) == (850.0, 1200.0)
    assert cells.loc["j3", "adjusted_ns_per_op"] == pytest.approx([1000.0] * 3)


def test_a_replica_on_a_slower_host_is_taken_out_of_every_cell_it_timed():
    # 8 decode cells of 3 trials spread over two replicas, trial k of cell c on replica (k + c) % 2
    # (control's plan, replicas.rs): rust-2's host is 10 % slower. Even cells ran twice on rust-1,
    # odd ones twice on rust-2: plain medians 1000 vs 1100 for identical work; with the replica
    # effect divided out they agree, and host_effects shows the 10 % with each host's name.
    rows = []
    for c in range(8):
        for k in range(3):
            worker = ("rust-1", "rust-2")[(k + c) % 2]
            f = 1000.0 * (1.10 if worker == "rust-2" else 1.0)
            rows.append({
                "cell_id": f"c{c}", "trial": k, "operation": "decode", "dataset": "dummy", "codec": "json",
                "decode_mode": "typed", "record_count": 10, "producer": "rust-1", "consumer": "rust-1",
                "worker_id": worker, "language": "rust", "hostname": f"host-{worker[-1]}", "payload_bytes": 100,
                "gzip_bytes": 50, "zstd_bytes": 40, "payload_blob_id": f"b{c}", "aa_twin": False,
                "steady": True, "round_ns_per_op": [f, f, f], "rounds": 3, "alloc_bytes_per_op": 0.0,
                "verified": True, "failure": ""})
    df = pd.DataFrame(rows)
    cells = results.cells_frame(df).set_index("cell_key")
    assert cells.loc["c0", "trial_ns_per_op"] == pytest.approx([1000.0, 1100.0, 1000.0]), "raw trials kept"
    assert cells.loc["c0", "median_ns_per_op"] == pytest.approx(cells.loc["c1", "median_ns_per_op"])
    assert cells.loc["c0", "median_ns_per_op"] == pytest.approx(1000.0 * math.sqrt(1.10))
    effects = results.host_effects(df).set_index("worker_id")
    assert list(effects["hostname"]) == ["host-1", "host-2"]
    assert effects.loc["rust-2", "factor"] / effects.loc["rust-1", "factor"] == pytest.approx(1.10)
    assert (effects["cells"] == 8).all() and effects["trials"].sum() == 24
    from codecbench.results import hosts
    assert hosts.describe(results.host_effects(df)) == [
        "rust decode: host-1 ×0.953, host-2 ×1.049 (8 cells spread over 2 replicas)"]
    # Without replicas (every cell on one worker) nothing is estimated and nothing moves.
    one = df.assign(worker_id="rust-1")
    assert results.host_effects(one).empty


def test_a_payload_another_implementation_wrote_joins_its_writers_encode_and_stays_out_of_the_boards():
    """Go's json and json/v2 (two implementations of one format): json decodes json/v2's payload
    too. That row joins json/v2's encode (its writer), names it in payload_codec and in the
    every-cell table, and stays out of the leaderboards, whose json column is json's own round
    trip."""
    from codecbench import leaderboard

    ms = []
    for codec, enc_ns, blob in (("json", 1000.0, "aa" * 32), ("json/v2", 800.0, "bb" * 32)):
        for t in range(5):
            ms.append(meas(ENC, f"e-{codec}-{t}", codec=codec, producer="go-1", language="go", rounds=(enc_ns,) * 3,
                           cell=f"encode/dummy/10/{codec}/go-1", trial=t, blob=blob))
    # (decoder, payload's writer, decode ns): json reads its own (2000) and json/v2's (9000: slower
    # on purpose, so a board that took it would show it); json/v2 reads its own (1500).
    for codec, writer, dec_ns in (("json", "", 2000.0), ("json", "json/v2", 9000.0), ("json/v2", "", 1500.0)):
        cell = f"decode/dummy/10/{codec}/typed/go-1{'[' + writer + ']' if writer else ''}>go-1"
        for t in range(5):
            m = meas(DEC, f"{cell}-{t}", codec=codec, mode="typed", producer="go-1", consumer="go-1", language="go",
                     rounds=(dec_ns,) * 3, cell=cell, trial=t, blob=("bb" if (writer or codec) == "json/v2" else "aa") * 32)
            m.payload_codec = writer
            ms.append(m)
    df = results.measurements_frame(ms)
    assert set(df["payload_codec"]) == {"json", "json/v2"}
    summary = results.summary_frame(df)
    rows = {(r.codec, r.payload_codec): r for r in summary.itertuples()}
    assert set(rows) == {("json", "json"), ("json", "json/v2"), ("json/v2", "json/v2")}
    assert rows[("json", "json/v2")].encode_ns_per_op == 800.0, "the cross row's encode leg is its writer's"
    assert rows[("json", "json")].encode_ns_per_op == 1000.0 and rows[("json/v2", "json/v2")].encode_ns_per_op == 800.0
    boards = leaderboard.boards(summary, {"go-1": "go"})
    decode = {codec: e.value for b in boards for codec, e in b.columns["decode typed"].items()}
    assert decode == {"json": pytest.approx(200.0), "json/v2": pytest.approx(150.0)}, decode
    assert "go-1[json/v2] → go-1" in leaderboard.rows_markdown(summary)


def test_a_cell_measured_in_its_lead_gets_the_leads_decode_and_stays_out_of_cells_and_aa_groups():
    """Sampling.repeat_same_bytes off: control did not run java-1 → rust-1 (its payload is the
    bytes rust-1 → rust-1 decodes) and wrote one SAME_BYTES row; its summary row carries the lead's
    decode and download, joined with java-1's own encode, and names the lead's producer."""
    ms = []
    for producer, fig in (("rust-1", 1000.0), ("java-1", 3000.0)):
        for t in range(5):
            ms.append(meas(ENC, f"e-{producer}-{t}", producer=producer, cell=f"enc-{producer}", trial=t,
                           rounds=trial_rounds(fig)))
    for t in range(5):
        ms.append(meas(DOWN, f"lead-{t}", mode="typed", consumer="rust-1", cell="lead", trial=t, rounds=(7000.0,) * 3))
        ms.append(meas(DEC, f"lead-{t}", mode="typed", consumer="rust-1", cell="lead", trial=t,
                       rounds=trial_rounds(2000.0 * (1 + 0.01 * t))))
    ms.append(results_pb2.Measurement(
        run_id="r1", task_id="other-0", dataset="dummy", codec="json", decode_mode="typed", record_count=10,
        producer_worker_id="java-1", consumer_worker_id="rust-1", operation=DEC, language="rust", cell_id="other",
        payload_blob_id=BLOB, payload_bytes=1234, same_bytes_as="lead"))
    df = results.measurements_frame(ms)
    assert (df["operation"] == "same-bytes").sum() == 1
    cells = results.cells_frame(df)
    assert "other" not in set(cells["cell_id"]), "not a measurement"
    assert results.aa_groups(cells).empty, "a copy of the lead is no A/A group"
    summary = results.summary_frame(df)
    other = summary[(summary["producer"] == "java-1") & (summary["consumer"] == "rust-1")].iloc[0]
    lead = summary[(summary["producer"] == "rust-1") & (summary["consumer"] == "rust-1")].iloc[0]
    assert other["measured_in"] == "rust-1" and lead["measured_in"] == ""
    assert other["cell_id"] == "other" and bool(other["verified"])
    assert other["decode_ns_per_op"] == lead["decode_ns_per_op"]
    assert other["download_ns_per_op"] == lead["download_ns_per_op"]
    assert other["encode_ns_per_op"] == pytest.approx(3000.0), "its own producer's encode"
    assert other["end_to_end_ns_per_op"] != lead["end_to_end_ns_per_op"]
    # The lead failing fails the row it measures for.
    bad = [m for m in ms if not (m.cell_id == "lead" and m.operation == DEC)] + [
        meas(DEC, f"lead-{t}", mode="typed", consumer="rust-1", cell="lead", trial=t, verified=False,
             failure="decode failed: record 3 differs") for t in range(5)]
    other = results.summary_frame(results.measurements_frame(bad)).query("producer == 'java-1' and consumer == 'rust-1'").iloc[0]
    assert not other["verified"] and "record 3 differs" in other["failure"]
