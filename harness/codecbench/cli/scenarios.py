"""`validate`, and the scenario a `run` uses: command-line overrides and the workers it needs."""

from __future__ import annotations

import json
from pathlib import Path


from ..scenario import EXIT_INVALID, ScenarioError, load, validate
from .base import EXIT_OK, err


# ---- run ----------------------------------------------------------------------------------------

def cmd_validate(args) -> int:
    """Every file is checked, and each says ok or what is wrong: exit 2 if any is invalid."""
    bad = 0
    for path in args.scenario:
        try:
            loaded = load(path)
        except ScenarioError as exc:
            err(str(exc))
            bad += 1
            continue
        s = loaded.message
        err(f"{loaded.path}: ok — {len(s.datasets)} dataset(s), {len(s.codecs)} codec(s), "
            f"{len(s.counts)} count(s)")
    if bad and len(args.scenario) > 1:
        err(f"{bad} of {len(args.scenario)} scenario files are invalid")
    return EXIT_INVALID if bad else EXIT_OK


def _selectors(scenario) -> list[str]:
    return list(dict.fromkeys([*scenario.producers, *scenario.consumers]))


def local_selectors(scenario) -> list[str]:
    """The workers `run --local` starts. An empty producers or consumers list means every attached
    worker, so it starts every language then (`producers: [rust]` with no consumers would
    otherwise start Rust alone, and every consumer would be Rust)."""
    if not scenario.producers or not scenario.consumers:
        return []
    return _selectors(scenario)


def _id_from(stem: str) -> str:
    """A dataset id from a file name: `Orders-2024.ndjson` -> `orders_2024`."""
    out = "".join(ch if ch.isascii() and ch.isalnum() else "_" for ch in stem.lower()).strip("_") or "mine"
    return out if out[0].isalpha() else f"d_{out}"


def apply_overrides(loaded, args):
    """--counts/--rounds/--warmup-ms/--min-round-ms/--trials/--max-warmup-ms/--network: the
    scenario as written, with these replaced, checked again (a wrong value is a scenario mistake,
    exit 2)."""
    data = json.loads(json.dumps(loaded.data))
    changed = []
    if getattr(args, "counts", None):
        try:
            data["counts"] = [int(c) for c in args.counts.replace(" ", "").split(",") if c]
        except ValueError:
            raise ScenarioError([f"--counts: expected whole numbers separated by commas, got {args.counts!r}"]) from None
        changed.append(f"counts {args.counts}")
    for opt, key in (("rounds", "rounds"), ("warmup_ms", "warmupMs"), ("min_round_ms", "minRoundMs"),
                     ("trials", "trials"), ("max_warmup_ms", "maxWarmupMs")):
        value = getattr(args, opt, None)
        if value is not None:
            sampling = data.setdefault("sampling", {})
            sampling[key] = value
            changed.append(f"{key} {value}")
            if key == "trials":
                sampling["maxTrials"] = value
                changed.append(f"maxTrials {value}")
    if getattr(args, "network", None):
        data["network"] = {"profile": args.network}
        changed.append(f"network {args.network}")
    if getattr(args, "proto", None) or getattr(args, "records", None) or getattr(args, "message", None):
        if not (args.proto and args.message and args.records):
            raise ScenarioError(["--proto, --message and --records go together: a dataset of your own needs all three"])
        entry = {"id": args.id or _id_from(Path(args.records).stem), "proto": str(Path(args.proto).resolve()),
                 "message": args.message, "records": str(Path(args.records).resolve()),
                 "protoPaths": [str(Path(p).resolve()) for p in args.proto_path], "fieldNames": args.field_names}
        data["datasets"] = [entry]
        if not getattr(args, "counts", None):
            data.pop("counts", None)  # the file as it is
        changed.append(f"datasets [{entry['id']} from {args.records}]")
    if not changed:
        return loaded
    err(f"{loaded.path}: overridden from the command line: {', '.join(changed)}")
    return validate(data, loaded.path)
