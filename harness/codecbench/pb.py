"""One import point for the generated protobuf/gRPC modules (see harness/gen_proto.py)."""

try:
    from ._gen import (  # noqa: F401
        dataset_options_pb2 as dataset_options,
        datasets_pb2 as datasets,
        harness_service_pb2 as hs,
        harness_service_pb2_grpc as hs_grpc,
        results_pb2 as results,
        scenario_pb2 as scenario,
        worker_service_pb2 as ws,
        worker_service_pb2_grpc as ws_grpc,
    )
except ImportError as exc:  # pragma: no cover - only when the build step was skipped
    raise ImportError(
        "codecbench's generated gRPC code is missing; run: .venv/bin/python harness/gen_proto.py"
    ) from exc

OPERATION_NAMES = {
    scenario.OPERATION_ENCODE: "encode",
    scenario.OPERATION_DECODE: "decode",
    # Runs recorded before issue 9 timed only the consumer's fetch, as OPERATION_TRANSFER.
    scenario.OPERATION_TRANSFER: "download",
    scenario.OPERATION_UPLOAD: "upload",
    scenario.OPERATION_DOWNLOAD: "download",
    scenario.OPERATION_UNSPECIFIED: "",
}


def operation_name(op: int) -> str:
    return OPERATION_NAMES.get(op, str(op))


def run_status_name(status: int) -> str:
    return results.RunStatus.Name(status).removeprefix("RUN_STATUS_").lower()


def task_status_name(status: int) -> str:
    return results.TaskStatus.Name(status).removeprefix("TASK_STATUS_").lower()
