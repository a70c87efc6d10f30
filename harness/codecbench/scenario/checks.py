"""The checker every scenario check reports to (each problem with its file and line), and the checks
of single values: strings and lists of them, whole numbers, unknown keys."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from .base import LIMITS


# Known keys per message, in the proto-JSON mapping (lowerCamelCase), with the proto field names
# (snake_case) accepted as well, as every proto-JSON parser does.
def _keys(descriptor) -> dict[str, Any]:
    keys = {}
    for field in descriptor.fields:
        keys[field.json_name] = field
        keys[field.name] = field
    return keys


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
