"""A misbehaving worker for the failure tests, speaking WorkerService like a real one.

    python fake_worker.py --control 127.0.0.1:PORT --behaviour garbage|fail|hang [--name fake]
                          [--language fake] [--codecs json,bson]

garbage: answers every encode task with bytes that are no codec's payload (uploaded by the cell's
         prepare task, `store_payload`) and reports success, so the consumer's decode must fail
         with the codec's own message.
fail:    reports every task as failed ("encode failed: ..." / "decode failed: ..."), as a worker
         whose codec breaks would.
hang:    prints "TASK <id>" on stdout when a task arrives and never answers, so that the test can
         SIGKILL it mid-task.
It prints "ATTACHED <worker id>" once attached. Every line is flushed for the test to read.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid

from codecbench import datasets
from codecbench.client import connect
from codecbench.pb import results, scenario, ws

# Not JSON (starts with 0xff) and not BSON (the length prefix claims ~4 GiB).
GARBAGE = b"\xff\xff\xff\xffthis is not a payload\x00\x01\x02"


def say(line: str) -> None:
    print(line, flush=True)


LANGUAGE = "fake"


def environment() -> results.Environment:
    return results.Environment(language=LANGUAGE, runtime="python", runtime_version=sys.version.split()[0],
                               build_profile="test", details={"purpose": "failure tests"})


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--control", required=True)
    ap.add_argument("--name", default="fake")
    ap.add_argument("--behaviour", choices=["garbage", "fail", "hang"], required=True)
    ap.add_argument("--language", default="fake", help="the language it announces")
    ap.add_argument("--codecs", default="json,bson", help="codec ids it announces (library \"fake\" 0)")
    ap.add_argument("--failure-bytes", type=int, default=0,
                    help="fail: a failure message this long (a hostile worker's, for the bounds tests)")
    args = ap.parse_args()
    global LANGUAGE
    LANGUAGE = args.language

    control = connect(args.control, ready_timeout=10)
    regions = [results.TimedRegion(operation="encode", contains=["serialize"]),
               results.TimedRegion(operation="typed", contains=["parse"])]
    codecs = [results.CodecInfo(id=c, media_type="application/octet-stream", decode_modes=["typed"],
                                library="fake", library_version="0", timed_regions=regions)
              for c in args.codecs.split(",") if c]
    # It carries every dataset, as a real worker built from this contract announces them.
    carried = [results.DatasetInfo(id=d.id, message=d.message, fingerprint=d.fingerprint) for d in datasets.builtin()]
    stream = control.worker.Attach(ws.AttachRequest(name=args.name, environment=environment(), codecs=codecs,
                                                    datasets=carried))
    worker_id = secret = None
    for msg in stream:
        kind = msg.WhichOneof("message")
        if kind == "attached":
            worker_id, secret = msg.attached.id, msg.report_secret
            say(f"ATTACHED {worker_id}")
            continue
        task = msg.task
        say(f"TASK {task.id} {scenario.Operation.Name(task.operation)}")
        if args.behaviour == "hang":
            while True:  # the test kills us here
                time.sleep(3600)
        if args.behaviour == "fail":
            step = "encode" if task.operation == scenario.OPERATION_ENCODE else "decode"
            control.worker.ReportResult(ws.ReportResultRequest(
                worker_id=worker_id, report_secret=secret, task_id=task.id,
                failure=f"{step} failed: the fake worker's codec is broken on purpose"
                + "x" * args.failure_bytes))
        elif task.operation == scenario.OPERATION_ENCODE:
            m = results.Measurement(operation=scenario.OPERATION_ENCODE, language=LANGUAGE,
                                    payload_bytes=len(GARBAGE), round_ns_per_op=[1000.0, 1000.0, 1000.0],
                                    ops_per_round=1, verified=True, environment=environment(),
                                    worker_id=worker_id, steady=True)
            blob_id, blob_size = "", 0
            if task.store_payload:
                put = control.worker.PutBlob(ws.PutBlobRequest(upload_id=uuid.uuid4().hex, offset=0,
                                                               data=GARBAGE, finish=True))
                blob_id, blob_size = put.blob_id, put.size
            # A prepare task stores the payload and times nothing.
            control.worker.ReportResult(ws.ReportResultRequest(
                worker_id=worker_id, report_secret=secret, task_id=task.id, measurements=[] if task.prepare else [m],
                payload_blob_id=blob_id, payload_blob_size=blob_size))
        else:
            control.worker.ReportResult(ws.ReportResultRequest(
                worker_id=worker_id, report_secret=secret, task_id=task.id, failure="decode failed: the fake worker does not decode"))
        say(f"REPORTED {task.id}")


if __name__ == "__main__":
    main()
