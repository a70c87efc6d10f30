"""`validate`, and the scenario a `run` uses: command-line overrides and the workers it needs."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

from .. import catalogue, processes
from ..pb import operation_name
from ..scenario import EXIT_INVALID, ScenarioError, load, validate
from .base import EXIT_OK, err


def cmd_validate(args) -> int:
    """Every file is checked — its shape, then its codecs and decode modes against the catalogue —
    and each says ok or what is wrong: exit 2 if any is invalid."""
    path = Path(args.catalogue) if getattr(args, "catalogue", None) else catalogue.default_path()
    try:
        cat = catalogue.load(path)
    except catalogue.CatalogueError as exc:
        err(f"warning: {exc}; codecs and decode modes are not checked")
        cat = None
    bad = 0
    for file in args.scenario:
        try:
            loaded = load(file)
        except ScenarioError as exc:
            err(str(exc))
            bad += 1
            continue
        s = loaded.message
        problems, notes = catalogue_check(s, cat) if cat is not None else ([], [])
        for line in problems:
            err(f"{loaded.path}: {line}")
        if problems:
            bad += 1
            continue
        err(f"{loaded.path}: ok — {len(s.datasets)} dataset(s), {len(s.codecs)} codec(s), "
            f"{len(s.counts)} count(s)")
        for line in notes:
            err(f"  note: {line}")
    if bad and len(args.scenario) > 1:
        err(f"{bad} of {len(args.scenario)} scenario files are invalid")
    return EXIT_INVALID if bad else EXIT_OK


def cmd_schema(args) -> int:
    """The scenario files' JSON Schema, generated from the proto (scenario_schema.py)."""
    from .. import scenario_schema

    text = scenario_schema.text()
    if args.write:
        scenario_schema.SCHEMA_PATH.write_text(text)
        err(f"wrote {scenario_schema.SCHEMA_PATH.relative_to(processes.repo_root())}")
    else:
        print(text, end="")
    return EXIT_OK


def say_notes(loaded) -> None:
    """Before a run: the catalogue's notes on the scenario (modes not offered, what an empty
    decodeModes expands to), so no cell is added or dropped silently. Control judges the codecs."""
    try:
        cat = catalogue.load(catalogue.default_path())
    except catalogue.CatalogueError:
        return
    for line in catalogue_check(loaded.message, cat)[1]:
        err(f"note: {line}")


def _languages(selectors) -> list[str]:
    """The languages a producers/consumers list names; every language when it is empty or names a
    worker whose language its id does not tell."""
    kinds = [processes.kind_of_selector(x) for x in selectors]
    if not kinds or None in kinds:
        return list(catalogue.LANGUAGES)
    return [lang for lang in catalogue.LANGUAGES if lang in kinds]


def _every_implementation(codecs, impls: dict, selected: list[str], problems: list[str]) -> list[str]:
    """The codecs with each `<format>/*` replaced by the catalogue's implementations of the format
    in the selected languages, the reference first, as control expands it from what workers offer."""
    out: list[str] = []
    for codec in codecs:
        if not codec.endswith("/*"):
            out.append(codec)
            continue
        fmt = codec[:-2]
        ids = sorted((i for i, langs in impls.items() if i.split("/", 1)[0] == fmt and any(lang in langs for lang in selected)),
                     key=lambda i: (i != fmt, i))
        if not ids:
            problems.append(f"codecs: {codec} names every implementation of format {fmt!r}, and the catalogue has "
                            f"none in {', '.join(selected)}")
        out.extend(ids)
    return list(dict.fromkeys(out))


def catalogue_check(scenario, cat: list[dict]) -> tuple[list[str], list[str]]:
    """(problems, notes) of a scenario's codecs and decode modes against the catalogue
    (codecs/catalogue.yaml), for the languages it selects. Problems make it invalid: a codec the
    catalogue does not know (with the closest names), a codec no selected language implements, a
    decode mode no selected consumer offers for any of its codecs (control would refuse the run).
    Notes say which cells will not be planned: a mode one codec does not offer, and what an empty
    decodeModes expands to."""
    impls = {c["id"]: c.get("implementations") or {} for c in cat}
    producers, consumers = _languages(scenario.producers), _languages(scenario.consumers)
    selected = [lang for lang in catalogue.LANGUAGES if lang in producers or lang in consumers]
    problems, notes = [], []
    known = []
    for codec in _every_implementation(scenario.codecs, impls, selected, problems):
        if codec not in impls:
            close = difflib.get_close_matches(codec, list(impls), n=3, cutoff=0.6)
            problems.append(f"codecs: unknown codec {codec!r}" + (f"; did you mean {' or '.join(close)}?" if close else "")
                            + f" (codecs/catalogue.yaml knows {', '.join(impls)})")
        elif not any(lang in impls[codec] for lang in selected):
            problems.append(f"codecs: {codec} has no implementation in {', '.join(selected)} "
                            f"(the catalogue has it in {', '.join(impls[codec]) or 'no language'})")
        else:
            known.append(codec)
    ops = {operation_name(o) for o in scenario.operations}
    if not known or (ops and "decode" not in ops):
        return problems, notes

    def modes(codec: str, lang: str) -> list[str]:
        return list((impls[codec].get(lang) or {}).get("modes") or [])

    if not scenario.decode_modes:
        offered = "; ".join(f"{c} {', '.join(dict.fromkeys(m for lang in consumers for m in modes(c, lang)))}"
                            for c in known)
        notes.append(f"decodeModes is empty: every mode each codec offers is measured ({offered}); "
                     "list the modes you want, e.g. decodeModes: [typed]")
        return problems, notes
    for mode in scenario.decode_modes:
        by_codec = {c: [lang for lang in consumers if mode in modes(c, lang)] for c in known}
        if not any(by_codec.values()):
            problems.append(f"decodeModes: no codec offers {mode!r} in {', '.join(consumers)} ("
                            + "; ".join(f"{c}: {', '.join(dict.fromkeys(m for lang in consumers for m in modes(c, lang)))}"
                                        for c in known) + ")")
            continue
        if (none := [c for c, langs in by_codec.items() if not langs]):
            notes.append(f"no {mode} cells for {', '.join(none)} (not offered in {', '.join(consumers)})")
        for codec, langs in by_codec.items():
            if langs and len(langs) < len([lang for lang in consumers if lang in impls[codec]]):
                missing = [lang for lang in consumers if lang in impls[codec] and lang not in langs]
                notes.append(f"no {codec} {mode} cells in {', '.join(missing)} (not offered there)")
    return problems, notes


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


def _names(text: str, flag: str) -> list[str]:
    names = [x for x in text.replace(" ", "").split(",") if x]
    if not names:
        raise ScenarioError([f"{flag}: expected names separated by commas, got {text!r}"])
    return names


def _keep_only(data: dict, key: str, args, opt: str) -> str:
    """--datasets/--codecs: keep only these of the scenario's list (a filter: a name the scenario
    does not list is a mistake, with the closest names)."""
    flag = "--" + opt
    wanted = _names(getattr(args, opt), flag)
    listed = [x if not isinstance(x, dict) else x.get("id") for x in data.get(key) or []]
    unknown = [w for w in wanted if w not in listed]
    if unknown:
        hints = []
        for w in unknown:
            close = difflib.get_close_matches(w, [str(x) for x in listed], n=2)
            hints.append(f"{w!r}" + (f" (did you mean {' or '.join(close)}?)" if close else ""))
        raise ScenarioError([f"{flag}: the scenario's {key} are {', '.join(map(str, listed))}; "
                             f"not among them: {', '.join(hints)}"])
    data[key] = [x for x, name in zip(data[key], listed) if name in wanted]
    return ",".join(wanted)


def _only_languages(data: dict, text: str) -> str:
    """--languages: producers and consumers only of these languages. An empty list (every worker)
    becomes these languages; a worker id stays when its language is one of them."""
    wanted = _names(text, "--languages")
    if (unknown := [w for w in wanted if w not in processes.KINDS]):
        raise ScenarioError([f"--languages: unknown language(s) {', '.join(unknown)} (known: {', '.join(processes.KINDS)})"])
    for key in ("producers", "consumers"):
        listed = data.get(key) or []
        kept = [x for x in listed if processes.kind_of_selector(x) in wanted] if listed else list(wanted)
        if not kept:
            raise ScenarioError([f"--languages {text}: none of the scenario's {key} ({', '.join(listed)}) "
                                 "is of these languages"])
        data[key] = kept
    return ",".join(wanted)


def apply_overrides(loaded, args):
    """--counts/--rounds/--warmup-ms/--min-round-ms/--trials/--max-warmup-ms/--network, the filters
    --datasets/--codecs/--languages, and a dataset of one's own: the
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
    for opt, key in (("datasets", "datasets"), ("codecs", "codecs")):
        if getattr(args, opt, None):
            changed.append(f"{key} {_keep_only(data, key, args, opt)}")
    if getattr(args, "languages", None):
        changed.append(f"languages {_only_languages(data, args.languages)}")
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
