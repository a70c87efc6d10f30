"""`validate`: every key of a parsed scenario checked, the task count bounded as control counts
it, and the proto message built."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from google.protobuf import json_format

from ..pb import scenario as scenario_pb2
from .base import COMPRESSIONS, DECODE_MODES, LIMITS, OPERATIONS, UINT64_MAX, LoadedScenario, ScenarioError
from .checks import (_canonical_key, _Checker, _check_string_list, _check_uint, _check_unknown_keys, _did_you_mean,
                     _type_name)
from .sections import _NETWORK_KEYS, _SAMPLING_KEYS, _SCENARIO_KEYS, _check_datasets, _check_network, _check_sampling


def validate(data: Any, path: Path, lines: dict[tuple, int] | None = None) -> LoadedScenario:
    """Check a parsed scenario mapping; raise ScenarioError listing every mistake."""
    c = _Checker(path, lines or {})
    if data is None:
        raise ScenarioError([f"{path}: the scenario file is empty; it needs at least "
                             "datasets, codecs and counts"])
    if not isinstance(data, dict):
        raise ScenarioError([f"{path}: a scenario must be a mapping of keys (datasets, codecs, "
                             f"counts, ...), got {_type_name(data)}"])

    _check_unknown_keys(c, data, _SCENARIO_KEYS, (), "the scenario")
    for key in data:
        if not isinstance(key, str):
            c.problem((key,), f"keys must be strings, got {_type_name(key)}")
    data = _canonical_key({k: v for k, v in data.items() if k in _SCENARIO_KEYS}, _SCENARIO_KEYS)
    out: dict[str, Any] = {}

    for key, limit in (("name", "maxNameBytes"), ("description", "maxDescriptionBytes")):
        if key in data and data[key] is not None:
            if not isinstance(data[key], str):
                c.problem((key,), f'"{key}" must be a string, got {_type_name(data[key])}')
            elif len(data[key].encode("utf-8")) > LIMITS[limit]:
                c.problem((key,), f'"{key}" is {len(data[key].encode("utf-8")):,} bytes; at most '
                          f"{LIMITS[limit]:,} are allowed")
            else:
                out[key] = data[key]

    datasets, users = _check_datasets(c, data, path)
    codecs = _check_string_list(c, data, "codecs", "codec id", required=True)
    modes = _check_string_list(c, data, "decodeModes", "decode mode", required=False,
                               known=DECODE_MODES)
    # A language (rust, java, browser) or a worker id (rust-1): only control knows which exist.
    producers = _check_string_list(c, data, "producers", "worker name", required=False)
    consumers = _check_string_list(c, data, "consumers", "worker name", required=False)
    out.update({"datasets": datasets, "codecs": codecs, "decodeModes": modes,
                "producers": producers, "consumers": consumers})

    counts_value = data.get("counts")
    counts: list[int] = []
    if counts_value is None and users:
        # With no count, each user dataset's file is used as it is.
        counts = sorted({len(u.user.records) for u in users})
    elif counts_value is None:
        c.problem(("counts",), '"counts" is missing: give at least one record count, e.g. counts: [10, 100]')
    elif not isinstance(counts_value, list):
        hint = f" (write it as a list: counts: [{counts_value}])" if isinstance(counts_value, int) \
            and not isinstance(counts_value, bool) else ""
        c.problem(("counts",), f'"counts" must be a list of positive whole numbers, got '
                  f"{_type_name(counts_value)}{hint}")
    elif not counts_value:
        c.problem(("counts",), '"counts" is empty: give at least one record count, e.g. counts: [10, 100]')
    elif len(counts_value) > LIMITS["maxListItems"]:
        c.problem(("counts",), f'"counts" has {len(counts_value):,} items; at most {LIMITS["maxListItems"]:,} are allowed')
    else:
        listed: dict[int, int] = {}
        for i, item in enumerate(counts_value):
            if isinstance(item, bool) or not isinstance(item, int):
                c.problem(("counts", i), f'"counts" item {i + 1} must be a positive whole number, '
                          f"got {_type_name(item)}")
            elif item <= 0:
                c.problem(("counts", i), f'"counts" item {i + 1} must be a positive whole number, got {item}')
            elif item > LIMITS["maxCount"]:
                c.problem(("counts", i), f'"counts" item {i + 1} is too large ({item:,} > {LIMITS["maxCount"]:,} records)')
            elif item in counts:
                if listed[item] == 1:
                    times = sum(1 for x in counts_value if x == item and not isinstance(x, bool))
                    c.problem(("counts", i), f'count {item} is listed {"twice" if times == 2 else f"{times:,} times"} in "counts"')
                listed[item] += 1
            else:
                listed[item] = 1
                counts.append(item)
    out["counts"] = counts

    ops_value = data.get("operations")
    ops: list[str] = []
    if ops_value is not None:
        if not isinstance(ops_value, list):
            c.problem(("operations",), f'"operations" must be a list (of {", ".join(OPERATIONS)}), '
                      f"got {_type_name(ops_value)}")
        else:
            enum_names = {v: k for k, v in OPERATIONS.items()}
            for i, item in enumerate(ops_value):
                name = item.lower() if isinstance(item, str) else None
                if isinstance(item, str) and item in enum_names:
                    name = enum_names[item]  # OPERATION_ENCODE written as in proto-JSON
                if name not in OPERATIONS:
                    shown = f'"{item}"' if isinstance(item, str) else _type_name(item)
                    c.problem(("operations", i), f'unknown operation {shown} in "operations"'
                              f"{_did_you_mean(str(item).lower(), tuple(OPERATIONS))} "
                              f"(known: {', '.join(OPERATIONS)})")
                elif OPERATIONS[name] in ops:
                    c.problem(("operations", i), f'operation "{name}" is listed twice in "operations"')
                else:
                    ops.append(OPERATIONS[name])
    out["operations"] = ops

    compressions = _check_string_list(c, data, "compressions", "compression", required=False,
                                      known=COMPRESSIONS)
    if compressions:
        out["compressions"] = compressions
        if ops and "OPERATION_TRANSFER" not in ops:
            c.problem(("compressions",), '"compressions": only the transfer legs are compressed, so '
                      '"operations" must include transfer (or be left out: every operation)')

    sampling = data.get("sampling")
    if sampling is not None:
        if not isinstance(sampling, dict):
            c.problem(("sampling",), f'"sampling" must be a mapping (trials, maxTrials, targetCiPct, '
                      f"maxSeconds, warmupMs, rounds, ...), got {_type_name(sampling)}")
        else:
            _check_unknown_keys(c, sampling, _SAMPLING_KEYS, ("sampling",), '"sampling"')
            canon = _canonical_key({k: v for k, v in sampling.items() if k in _SAMPLING_KEYS},
                                   _SAMPLING_KEYS)
            out["sampling"] = _check_sampling(c, canon)

    if "seed" in data and data["seed"] is not None:
        if _check_uint(c, ("seed",), data["seed"], maximum=UINT64_MAX, positive=False):
            out["seed"] = data["seed"]

    network = data.get("network")
    if network is not None:
        if isinstance(network, str):
            network = {"profile": network}  # network: 3g
        if not isinstance(network, dict):
            c.problem(("network",), f'"network" must be a profile name or a mapping (profile, downMbit, '
                      f"upMbit, rttMs, jitterMs), got {_type_name(network)}")
        else:
            _check_unknown_keys(c, network, _NETWORK_KEYS, ("network",), '"network"')
            out["network"] = _check_network(c, _canonical_key(
                {k: v for k, v in network.items() if k in _NETWORK_KEYS}, _NETWORK_KEYS))

    if not c.problems:
        _check_task_count(c, out, len(datasets))
    if c.problems:
        raise ScenarioError(c.problems)

    message = scenario_pb2.Scenario()
    try:
        json_format.ParseDict(out, message)
    except json_format.ParseError as exc:  # should not happen after the checks above
        raise ScenarioError([f"{path}: {exc}"]) from None
    if message.ByteSize() > LIMITS["maxScenarioBytes"]:
        raise ScenarioError([f"{path}: the scenario is {message.ByteSize():,} bytes encoded; at most "
                             f"{LIMITS['maxScenarioBytes']:,} are allowed"])
    if users:  # as written (their declarations join the message at run time, see userrun)
        out["datasets"] = data["datasets"]
    return LoadedScenario(path=path, message=message, data=out, users=users)


def _check_task_count(c: _Checker, out: dict, datasets: int) -> None:
    """The fewest tasks the scenario can expand to (one producer, one consumer, one decode mode),
    counted as control counts them (scenario.rs plan): one prepare task per encode cell, and each
    timed cell's trials up to maxTrials. Past maxTasks control would refuse it."""
    ops = set(out.get("operations") or OPERATIONS.values())
    sampling = out.get("sampling", {})
    trials = sampling.get("trials") or 9
    per_cell = max(trials, sampling.get("maxTrials") or trials)
    timed = int("OPERATION_ENCODE" in ops or "OPERATION_TRANSFER" in ops) + int("OPERATION_DECODE" in ops)
    encode_cells = datasets * len(out.get("counts", [])) * len(out.get("codecs", []))
    tasks = encode_cells * (1 + timed * per_cell)
    if tasks > LIMITS["maxTasks"]:
        c.problem(("counts",), f"the scenario expands to at least {tasks:,} tasks ({encode_cells:,} dataset x count x codec "
                  f"combinations, with one producer, one consumer and one decode mode, {per_cell} trials each); "
                  f"at most {LIMITS['maxTasks']:,} are allowed: name fewer datasets, counts, codecs or trials")
