"""A scenario file read: its size and shape bounded before YAML expands it, YAML syntax errors with
their line and column, the line of every key (for the checks' messages), and `load`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from .base import LoadedScenario, ScenarioError
from .validation import validate


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
