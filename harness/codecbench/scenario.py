"""Scenario files: YAML in the proto-JSON mapping of codecbench.v1.Scenario, checked before anything runs.

Every mistake becomes one line naming the file, the line, the key and what is wrong, so a user can
fix the file without reading the proto. Control checks again at StartRun (codec ids and workers are
only known there); this module catches everything that can be known without it.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from google.protobuf import json_format

from . import datasets
from .pb import scenario as scenario_pb2

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


# Known keys per message, in the proto-JSON mapping (lowerCamelCase), with the proto field names
# (snake_case) accepted as well, as every proto-JSON parser does.
def _keys(descriptor) -> dict[str, Any]:
    keys = {}
    for field in descriptor.fields:
        keys[field.json_name] = field
        keys[field.name] = field
    return keys


_SCENARIO_KEYS = _keys(scenario_pb2.Scenario.DESCRIPTOR)
_SAMPLING_KEYS = _keys(scenario_pb2.Sampling.DESCRIPTOR)
_NETWORK_KEYS = _keys(scenario_pb2.Network.DESCRIPTOR)


def _camel(fields: dict[str, Any]) -> list[str]:
    return sorted({f.json_name for f in fields.values()})


def _did_you_mean(word: str, choices: list[str] | tuple[str, ...]) -> str:
    close = difflib.get_close_matches(str(word), list(choices), n=1, cutoff=0.6)
    if not close:
        # Case-only mistakes ("DecodeModes") are below difflib's cutoff for short words.
        close = [c for c in choices if c.lower() == str(word).lower()]
    return f'; did you mean "{close[0]}"?' if close else ""


def _type_name(value: Any) -> str:
    if value is None:
        return "nothing (null)"
    if isinstance(value, bool):
        return f"a boolean ({str(value).lower()})"
    if isinstance(value, int):
        return f"a number ({value})"
    if isinstance(value, float):
        return f"a number ({value})"
    if isinstance(value, str):
        return f'a string ("{value}")'
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


class _Checker:
    def __init__(self, path: Path, lines: dict[tuple, int]):
        self.path = path
        self.lines = lines
        self.problems: list[str] = []

    def where(self, key_path: tuple) -> str:
        # The deepest part of the path that has a recorded line.
        for n in range(len(key_path), 0, -1):
            line = self.lines.get(key_path[:n])
            if line is not None:
                return f"{self.path}:{line}"
        return str(self.path)

    def problem(self, key_path: tuple, text: str) -> None:
        self.problems.append(f"{self.where(key_path)}: {text}")


def _record_lines(node: yaml.Node, key_path: tuple, lines: dict[tuple, int],
                  twice: list[str] | None = None) -> None:
    """Remember the 1-based line of every key and list item, for messages; a key written twice in
    one mapping goes to `twice` (YAML would silently keep the last)."""
    if isinstance(node, yaml.MappingNode):
        first: dict[str, int] = {}
        for key_node, value_node in node.value:
            child = key_path + (key_node.value,)
            line = key_node.start_mark.line + 1
            if twice is not None and isinstance(key_node, yaml.ScalarNode) and key_node.value in first:
                where = ".".join(str(k) for k in child)
                twice.append(f"{line}: key \"{where}\" is written twice (first at line {first[key_node.value]}); "
                             "YAML would keep only the last")
            first.setdefault(key_node.value, line)
            lines[child] = line
            _record_lines(value_node, child, lines, twice)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            child = key_path + (i,)
            lines[child] = item.start_mark.line + 1
            _record_lines(item, child, lines, twice)


# A scenario is a few short lists: these bounds are far above any real one and keep a hostile or
# broken file (a 5,000-deep list, a "billion laughs" of aliases) from exhausting the stack or
# memory before a clear message.
MAX_SCENARIO_BYTES = 1 << 20
MAX_DEPTH = 32
MAX_VALUES = 10_000


def _check_shape(path: Path, text: str) -> None:
    """Refuse files too large, too deep or expanding to too many values, from the YAML event
    stream (an iterative parser: nothing recursive or alias-expanding runs before this)."""
    if len(text.encode("utf-8")) > MAX_SCENARIO_BYTES:
        raise ScenarioError([f"{path}: {len(text.encode('utf-8')):,} bytes; a scenario file is at most "
                             f"{MAX_SCENARIO_BYTES:,} bytes"])
    values = 0
    anchored: dict[str, int] = {}  # anchor -> how many values it expands to
    open_at: list[tuple[int, str | None]] = []  # per open collection: values before it, its anchor
    try:
        for event in yaml.parse(text, Loader=yaml.SafeLoader):
            where = f"{path}:{event.start_mark.line + 1}" if event.start_mark else str(path)
            if isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                open_at.append((values, event.anchor))
                values += 1
                if len(open_at) > MAX_DEPTH:
                    raise ScenarioError([f"{where}: nested more than {MAX_DEPTH} levels deep; a scenario "
                                         f"is a mapping of short lists"])
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                before, anchor = open_at.pop()
                if anchor:
                    anchored[anchor] = values - before
            elif isinstance(event, yaml.ScalarEvent):
                values += 1
                if event.anchor:
                    anchored[event.anchor] = 1
            elif isinstance(event, yaml.AliasEvent):
                values += anchored.get(event.anchor, 1)
            if values > MAX_VALUES:
                raise ScenarioError([f"{where}: the file expands to more than {MAX_VALUES:,} values "
                                     f"(YAML aliases repeat what they point to); a scenario needs far fewer"])
    except yaml.YAMLError:
        return  # _parse_yaml reports the syntax error with its position


def _parse_yaml(path: Path, text: str) -> tuple[Any, dict[tuple, int]]:
    _check_shape(path, text)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        what = exc.problem or exc.context or "invalid YAML"
        ctx = ""
        if exc.context and exc.problem:
            ctx = f" ({exc.context}"
            if exc.context_mark and exc.context_mark.line != (mark.line if mark else -1):
                ctx += f" started at line {exc.context_mark.line + 1}"
            ctx += ")"
        raise ScenarioError([f"{where}: YAML syntax error: {what}{ctx}"]) from None
    except yaml.YAMLError as exc:
        raise ScenarioError([f"{path}: YAML syntax error: {exc}"]) from None
    lines: dict[tuple, int] = {}
    twice: list[str] = []
    if node is not None:
        _record_lines(node, (), lines, twice)
    if twice:
        raise ScenarioError([f"{path}:{t}" for t in twice])
    return data, lines


def _check_string_list(c: _Checker, data: dict, key: str, what: str, *, required: bool,
                       known: tuple[str, ...] | None = None, known_name: str = "") -> list[str]:
    if key not in data or data[key] is None:
        if required:
            c.problem((key,), f'"{key}" is missing or empty: name at least one {what}'
                      + (f" ({', '.join(known)})" if known else ""))
        return []
    value = data[key]
    if not isinstance(value, list):
        hint = f' (write it as a list: {key}: [{value}])' if isinstance(value, str) else ""
        c.problem((key,), f'"{key}" must be a list of {what}s, got {_type_name(value)}{hint}')
        return []
    if required and not value:
        c.problem((key,), f'"{key}" is empty: name at least one {what}'
                  + (f" ({', '.join(known)})" if known else ""))
        return []
    if len(value) > LIMITS["maxListItems"]:
        c.problem((key,), f'"{key}" has {len(value):,} items; at most {LIMITS["maxListItems"]:,} are allowed')
        return []
    out = []
    seen: dict[str, int] = {}  # item -> how many times it is listed
    for i, item in enumerate(value):
        if not isinstance(item, str) or not item.strip():
            c.problem((key, i), f'"{key}" item {i + 1} must be a {what} (a non-empty string), '
                      f"got {_type_name(item)}")
            continue
        if len(item.encode("utf-8")) > LIMITS["maxIdBytes"]:
            c.problem((key, i), f'"{key}" item {i + 1} is {len(item.encode("utf-8")):,} bytes; '
                      f'at most {LIMITS["maxIdBytes"]} are allowed')
            continue
        if known is not None and item not in known:
            c.problem((key, i), f'unknown {known_name or what} "{item}" in "{key}"'
                      f"{_did_you_mean(item, known)} (known: {', '.join(known)})")
            continue
        if item in seen:
            if seen[item] == 1:  # one line per value listed more than once
                times = sum(1 for x in value if x == item)
                c.problem((key, i), f'{what} "{item}" is listed {"twice" if times == 2 else f"{times:,} times"} in "{key}"')
            seen[item] += 1
            continue
        seen[item] = 1
        out.append(item)
    return out


def _check_uint(c: _Checker, key_path: tuple, value: Any, *, maximum: int, positive: bool) -> bool:
    name = ".".join(str(k) for k in key_path)
    # YAML booleans are ints in Python; a count of `true` is a mistake, not 1.
    if isinstance(value, bool) or not isinstance(value, int):
        c.problem(key_path, f'"{name}" must be a whole number, got {_type_name(value)}')
        return False
    if positive and value <= 0:
        c.problem(key_path, f'"{name}" must be a positive whole number, got {value}')
        return False
    if value < 0:
        c.problem(key_path, f'"{name}" must not be negative, got {value}')
        return False
    if value > maximum:
        c.problem(key_path, f'"{name}" is too large ({value} > {maximum})')
        return False
    return True


def _check_unknown_keys(c: _Checker, data: dict, known: dict[str, Any], prefix: tuple,
                        where_name: str) -> None:
    for key in data:
        if key not in known:
            c.problem(prefix + (key,), f'unknown key "{key}" in {where_name}'
                      f"{_did_you_mean(key, _camel(known))} (known keys: {', '.join(_camel(known))})")


def _canonical_key(data: dict, fields: dict[str, Any]) -> dict:
    """Map snake_case keys to their JSON names so later checks look up one spelling."""
    out = {}
    for key, value in data.items():
        field = fields.get(key)
        out[field.json_name if field is not None else key] = value
    return out


# The limits control enforces, declared once in proto/codecbench/v1/limits.json (copied into
# _gen by gen_proto.py): validate refuses exactly what control would.
LIMITS: dict[str, int] = json.loads((Path(__file__).parent / "_gen" / "limits.json").read_text())
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
    from .netlab import PROFILES

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
    from . import userrun  # protoc and the records: only when a scenario brings its own

    users: list[userrun.UserEntry] = []
    for i, item in enumerate(value):
        if not isinstance(item, dict):
            continue
        entry = userrun.check_entry(c, ("datasets", i), item, path, ids + [u.user.id for u in users])
        if entry is not None:
            users.append(entry)
    order = [x if not isinstance(x, dict) else x.get("id") for x in value]
    return [x for x in order if x in ids or x in {u.user.id for u in users}], users


def load(path: str | Path) -> LoadedScenario:
    """Read and check a scenario file; raise ScenarioError with every mistake found."""
    path = Path(path)
    if not path.exists():
        raise ScenarioError([f"{path}: scenario file not found"])
    if path.is_dir():
        raise ScenarioError([f"{path}: is a folder, not a scenario file"])
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError([f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"]) from None
    except OSError as exc:
        raise ScenarioError([f"{path}: cannot read: {exc.strerror}"]) from None
    data, lines = _parse_yaml(path, text)
    return validate(data, path, lines)
