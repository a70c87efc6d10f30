"""The parts of a scenario that are more than a list: `sampling`, `network` and `datasets` (built-in
ids, and entries bringing a user's own schema and records)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..pb import scenario as scenario_pb2
from .base import DATASETS, LIMITS, UINT32_MAX, UINT64_MAX
from .checks import _Checker, _check_string_list, _check_uint, _did_you_mean, _keys, _type_name

_SCENARIO_KEYS = _keys(scenario_pb2.Scenario.DESCRIPTOR)
_SAMPLING_KEYS = _keys(scenario_pb2.Sampling.DESCRIPTOR)
_NETWORK_KEYS = _keys(scenario_pb2.Network.DESCRIPTOR)

# Sampling field -> its largest allowed value.
_SAMPLING_MAX = {"trials": LIMITS["maxTrials"], "maxTrials": LIMITS["maxTrials"], "rounds": LIMITS["maxRounds"],
                 "minRoundMs": LIMITS["maxMinRoundMs"], "warmupMs": LIMITS["maxWarmupMs"],
                 "maxWarmupMs": LIMITS["maxWarmupMs"], "taskTimeoutS": LIMITS["maxTaskTimeoutS"],
                 "aaCells": LIMITS["maxAaCells"]}

# Sampling fields that must be at least 1 when given (0 would mean "control's default" in the
# proto, but written by hand it is a mistake: a cell needs a trial, a trial a round).
_POSITIVE_SAMPLING = ("trials", "maxTrials", "rounds", "minRoundMs", "taskTimeoutS", "aaCells")
# Largest sensible confidence-interval target, in % of the median.
MAX_TARGET_CI_PCT = 100.0


def _check_sampling(c: _Checker, canon: dict) -> dict:
    """Types and ranges of each sampling field, then the relations between them."""
    out: dict[str, Any] = {}
    for key, value in canon.items():
        path = ("sampling", key)
        field = _SAMPLING_KEYS[key]
        if field.type in (field.TYPE_DOUBLE, field.TYPE_FLOAT):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
                c.problem(path, f'"sampling.{key}" must be a number, got {_type_name(value)}')
            elif not 0 < value <= MAX_TARGET_CI_PCT:
                c.problem(path, f'"sampling.{key}" must be above 0 and at most {MAX_TARGET_CI_PCT:g} '
                          f"(% of the median), got {value}")
            else:
                out[key] = float(value)
            continue
        if field.type == field.TYPE_BOOL:
            if isinstance(value, bool):
                out[key] = value
            else:
                c.problem(path, f'"sampling.{key}" must be true or false, got {_type_name(value)}')
            continue
        maximum = _SAMPLING_MAX.get(key, UINT64_MAX if field.type == field.TYPE_UINT64 else UINT32_MAX)
        if _check_uint(c, path, value, maximum=maximum, positive=key in _POSITIVE_SAMPLING):
            out[key] = value
    trials, max_trials = out.get("trials"), out.get("maxTrials")
    if max_trials is not None and max_trials < (trials or 1):
        c.problem(("sampling", "maxTrials"), f'"sampling.maxTrials" ({max_trials}) is below '
                  f'"sampling.trials" ({trials or 1}): it is the most trials adaptive sampling may reach')
    warm, max_warm = out.get("warmupMs"), out.get("maxWarmupMs")
    if warm is not None and max_warm is not None and max_warm and max_warm < warm:
        c.problem(("sampling", "maxWarmupMs"), f'"sampling.maxWarmupMs" ({max_warm}) is below '
                  f'"sampling.warmupMs" ({warm}): it caps the warm-up that warmupMs starts')
    return out


def _check_network(c: _Checker, data: dict) -> dict:
    from ..netlab import PROFILES

    out: dict[str, Any] = {}
    name = data.get("profile")
    if name is not None:
        if not isinstance(name, str) or name not in PROFILES:
            shown = f'"{name}"' if isinstance(name, str) else _type_name(name)
            c.problem(("network", "profile"), f"unknown network profile {shown}"
                      f"{_did_you_mean(str(name), tuple(PROFILES))} (known: {', '.join(PROFILES)})")
        else:
            out["profile"] = name
    for key in ("downMbit", "upMbit", "rttMs", "jitterMs"):
        v = data.get(key)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)) or v < 0 or \
                (key.endswith("Mbit") and v == 0):
            c.problem(("network", key), f'"network.{key}" must be a '
                      f"{'positive' if key.endswith('Mbit') else 'non-negative'} number, got {v!r}")
        else:
            out[key] = float(v)
    if out.get("profile") == "loopback" and len(out) > 1:
        c.problem(("network",), '"network": the loopback profile has no links to shape; '
                  "name another profile (veth, lan, wifi, 4g, 3g) to give rates or delays")
    return out


def _check_datasets(c: _Checker, data: dict, path: Path) -> tuple[list[str], list]:
    """`datasets`: built-in ids, and entries bringing a user's own .proto message and records
    (id, proto, message, records; protoPaths, fieldNames, lazyFields), their files relative to
    the scenario's folder, compiled and read here so that any mistake stops the run before it starts."""
    value = data.get("datasets")
    if not isinstance(value, list):
        return _check_string_list(c, data, "datasets", "dataset", required=True, known=DATASETS), []
    plain = {"datasets": [x for x in value if not isinstance(x, dict)]}
    lines = {("datasets", i): c.lines[("datasets", j)] for i, j in
             enumerate(j for j, x in enumerate(value) if not isinstance(x, dict)) if ("datasets", j) in c.lines}
    sub = _Checker(c.path, {**c.lines, **lines})
    ids = _check_string_list(sub, plain, "datasets", "dataset", required=not any(isinstance(x, dict) for x in value),
                             known=DATASETS)
    c.problems.extend(sub.problems)
    from .. import userrun  # protoc and the records: only when a scenario brings its own

    users: list[userrun.UserEntry] = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            continue
        entry = userrun.check_entry(c, ("datasets", i), item, path, ids + [u.user.id for u in users])
        if entry is not None:
            users.append(entry)
    order = [x if not isinstance(x, dict) else x.get("id") for x in value]
    return [x for x in order if x in ids or x in {u.user.id for u in users}], users
