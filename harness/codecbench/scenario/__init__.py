"""Scenario files: YAML in the proto-JSON mapping of codecbench.v1.Scenario, checked before anything runs.

Every mistake becomes one line naming the file, the line, the key and what is wrong, so a user can
fix the file without reading the proto. Control checks again at StartRun (codec ids and workers are
only known there); this package catches everything that can be known without it. One module per
job, each public name importable from here:

- `base`: the known values (datasets, decode modes, compressions, operations), the limits shared
  with control, `ScenarioError`, `LoadedScenario`, `EXIT_INVALID`;
- `reading`: a file read (`load`): size and shape bounds, YAML syntax errors with their position,
  the line of every key;
- `checks`: the checker (each problem at its line) and the checks of single values (string lists,
  whole numbers, unknown keys, "did you mean");
- `sections`: `sampling`, `network` and `datasets` (with a user's own dataset entries);
- `validation`: `validate`, every key of the scenario, the task count, the proto message.
"""

from ..pb import scenario as scenario_pb2  # noqa: F401 (scenario.scenario_pb2, as the old module offered it)
from .base import (COMPRESSIONS, DATASETS, DECODE_MODES, EXIT_INVALID, LIMITS, OPERATIONS, UINT32_MAX, UINT64_MAX,
                   LoadedScenario, ScenarioError)
from .reading import MAX_DEPTH, MAX_SCENARIO_BYTES, MAX_VALUES, load
from .sections import MAX_TARGET_CI_PCT
from .validation import validate

__all__ = [
    "COMPRESSIONS", "DATASETS", "DECODE_MODES", "EXIT_INVALID", "LIMITS", "OPERATIONS", "UINT32_MAX", "UINT64_MAX",
    "LoadedScenario", "ScenarioError",
    "MAX_DEPTH", "MAX_SCENARIO_BYTES", "MAX_VALUES", "load",
    "MAX_TARGET_CI_PCT",
    "validate",
]
