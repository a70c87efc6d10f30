"""What every part of a scenario's check shares: the known values, the limits, the error and the
loaded scenario."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .. import datasets
from ..pb import scenario as scenario_pb2

# Every dataset the contract declares (a record message with the `(dataset)` option).
DATASETS = datasets.builtin_ids()
DECODE_MODES = ("typed", "tree", "lazy", "streaming")
# gRPC message compressions a transfer leg can be timed with (Scenario.compressions).
COMPRESSIONS = ("identity", "gzip", "zstd")
OPERATIONS = {
    "encode": "OPERATION_ENCODE",
    "decode": "OPERATION_DECODE",
    "transfer": "OPERATION_TRANSFER",
}
UINT32_MAX = 2**32 - 1
UINT64_MAX = 2**64 - 1

# Exit code of every scenario mistake (also used when control rejects the scenario).
EXIT_INVALID = 2

# The limits control enforces, declared once in proto/codecbench/v1/limits.json (copied into
# _gen by gen_proto.py): validate refuses exactly what control would.
LIMITS: dict[str, int] = json.loads((Path(__file__).parent.parent / "_gen" / "limits.json").read_text())


class ScenarioError(Exception):
    """The scenario cannot run. `problems` holds one human-readable line per mistake."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("\n".join(problems))


@dataclass
class LoadedScenario:
    path: Path
    message: scenario_pb2.Scenario
    # The friendly dict as written (after operation mapping), kept for run.json.
    data: dict[str, Any]
    # The user's datasets, in `datasets` order (their declarations join the message at run time,
    # once their records are stored in control).
    users: list = field(default_factory=list)  # userrun.UserEntry
