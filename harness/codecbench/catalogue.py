"""The codec × language matrix of `codecbench codecs`: what attached workers announce (ListCodecs),
checked against the catalogue `codecs/catalogue.yaml`.

Problems reported:
- a codec announced by a worker that the catalogue does not know;
- a catalogue implementation (codec × language) that no attached worker of that language announces
  (only for languages with at least one attached worker; other languages are "no <lang> worker
  attached");
- an announced library that differs from the catalogue's, or decode modes that differ;
- a malformed catalogue entry (an unexpected key, e.g. an unquoted comma that split a value), or
  timed regions that are not one for encode and one per decode mode, in order (a `node` entry has
  none: the Node worker announces the browser's).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from .processes import repo_root

IMPLEMENTATION_KEYS = {"library", "package", "version", "modes", "notes", "timedRegions"}
REGION_KEYS = {"operation", "contains", "note"}


def region_vocabulary(proto: Path | None = None) -> set[str]:
    """What a timed region may contain: the words results.proto's TimedRegion defines
    (`//   "serialize" / "parse": ...`), so the vocabulary is written once."""
    text = (proto or repo_root() / "proto" / "codecbench" / "v1" / "results.proto").read_text(encoding="utf-8")
    block = text[text.index("message TimedRegion"):]
    block = block[:block.index("}")]
    return {w for line in block.splitlines() if re.match(r'\s*//\s+"', line)
            for w in re.findall(r'"([a-z0-9-]+)"', line.split(":")[0])}


def region_operations(modes: list[str]) -> list[str]:
    """The operations an implementation's timed regions cover, in their order: encode, then one per
    decode mode, with "encode streaming" just before "streaming" (as every worker announces them)."""
    ops = ["encode"]
    for mode in modes:
        if mode == "streaming":
            ops.append("encode streaming")
        ops.append(mode)
    return ops


def _region_errors(where: str, lang: str, impl: dict, vocabulary: set[str]) -> list[str]:
    regions = impl.get("timedRegions")
    if lang == "node":
        return [f"{where}: a node entry has no timedRegions (the Node worker announces the browser's)"] \
            if regions is not None else []
    if not isinstance(regions, list):
        return [f"{where}: no timedRegions list"]
    errors = []
    for r in regions:
        if not isinstance(r, dict) or not isinstance(r.get("contains"), list) or not r["contains"]:
            errors.append(f"{where}: a timed region without operation and contains: {r!r}")
        elif unknown := set(r) - REGION_KEYS:
            errors.append(f"{where}: timed region {r.get('operation')!r} has unexpected keys {sorted(unknown)}")
        elif words := [w for w in r["contains"] if w not in vocabulary]:
            errors.append(f"{where}: timed region {r.get('operation')!r} contains {words}, not in results.proto's "
                          f"TimedRegion vocabulary {sorted(vocabulary)}")
    ops = [r.get("operation") for r in regions if isinstance(r, dict)]
    modes = impl.get("modes") if isinstance(impl.get("modes"), list) else []
    if ops != region_operations(modes):
        errors.append(f"{where}: timed regions {ops} should be {region_operations(modes)}, "
                      "one for encode and one per decode mode, in order")
    return errors


def default_path() -> Path:
    return repo_root() / "codecs" / "catalogue.yaml"


def languages_of(path: Path) -> tuple[str, ...]:
    """Every language the catalogue names an implementation for, in the order it first names them
    (rust, java, browser, node): the catalogue is the one list of languages. () when it cannot be
    read (load() then says why)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        return ()
    codecs = data.get("codecs") if isinstance(data, dict) else None
    seen: dict[str, None] = {}
    for codec in codecs if isinstance(codecs, list) else []:
        if isinstance(codec, dict) and isinstance(codec.get("implementations"), dict):
            seen.update((str(lang), None) for lang in codec["implementations"])
    return tuple(seen)


LANGUAGES = languages_of(default_path())


class CatalogueError(Exception):
    pass


def load(path: Path) -> list[dict]:
    """The catalogue's codecs: [{id, mediaType, implementations: {lang: {library, modes}}}]."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise CatalogueError(f"cannot read the codec catalogue {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise CatalogueError(f"{path}: not valid YAML: {exc}") from None
    codecs = (data or {}).get("codecs") if isinstance(data, dict) else None
    if not isinstance(codecs, list):
        raise CatalogueError(f"{path}: expected a top-level \"codecs:\" list")
    out = []
    vocabulary = region_vocabulary()
    for i, c in enumerate(codecs):
        if not isinstance(c, dict) or not c.get("id"):
            raise CatalogueError(f"{path}: codecs item {i + 1} has no id")
        impls = c.get("implementations") or {}
        errors = []
        for lang, impl in impls.items():
            if not isinstance(impl, dict):
                errors.append(f"{path}: {c['id']} / {lang}: expected {{library: ..., modes: [...]}}")
                continue
            for key, value in impl.items():
                if key in IMPLEMENTATION_KEYS:
                    continue
                hint = ""
                if value is None and isinstance(impl.get("library"), str):
                    # {library: a (b, c), modes: [...]}: the unquoted comma ended the value.
                    hint = (f" — a comma inside an unquoted {{...}} value splits it: the library reads "
                            f"{impl['library']!r}; quote it: library: \"{impl['library']}, {key}\"")
                errors.append(f"{path}: {c['id']} / {lang}: unexpected key {key!r}{hint}")
            errors += _region_errors(f"{path}: {c['id']} / {lang}", str(lang), impl, vocabulary)
        out.append({**c, "implementations": {str(k): (v if isinstance(v, dict) else {})
                                             for k, v in impls.items()}, "_errors": errors})
    return out


def _norm(library: str) -> str:
    return re.sub(r"\s+", " ", library or "").strip().lower()


def library_matches(announced: str, catalogued: str) -> bool:
    """Same library, ignoring case and spacing; the announced name may carry a detail in brackets
    or a version the catalogue leaves out ("serde_json" vs "serde_json 1.0")."""
    a, c = _norm(announced), _norm(catalogued)
    if not a or not c:
        return not c
    return a == c or a.startswith(c + " ") or c.startswith(a + " ")


@dataclass
class Cell:
    status: str  # ok, mismatch, missing, unknown-codec, not-catalogued, no-worker, absent
    library: str = ""
    version: str = ""
    modes: list[str] = field(default_factory=list)
    workers: list[str] = field(default_factory=list)
    catalogue_library: str = ""
    catalogue_modes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"status": self.status, "library": self.library, "version": self.version,
                "modes": self.modes, "workers": self.workers,
                "catalogueLibrary": self.catalogue_library, "catalogueModes": self.catalogue_modes,
                "notes": self.notes}


@dataclass
class Matrix:
    codecs: list[str]
    languages: list[str]
    attached: list[str]
    cells: dict[tuple[str, str], Cell]
    problems: list[dict]
    catalogue_path: str
    in_catalogue: set[str]

    def to_json(self, offers_json: list[dict]) -> dict:
        return {
            "catalogue": self.catalogue_path,
            "languages": self.languages,
            "attachedLanguages": self.attached,
            "codecs": [{"id": c, "inCatalogue": c in self.in_catalogue,
                        "languages": {lang: self.cells[(c, lang)].to_json() for lang in self.languages}}
                       for c in self.codecs],
            "problems": self.problems,
            "offers": offers_json,
        }


def build(offers, catalogue: list[dict] | None, catalogue_path: str = "") -> Matrix:
    """offers: CodecOffer messages (codec, worker_id, language)."""
    catalogue = catalogue or []
    cat = {c["id"]: c for c in catalogue}
    announced: dict[tuple[str, str], list] = {}
    for o in offers:
        announced.setdefault((o.codec.id, o.language), []).append(o)
    attached = sorted({o.language for o in offers},
                      key=lambda l: (LANGUAGES.index(l) if l in LANGUAGES else len(LANGUAGES), l))
    languages = list(LANGUAGES) + [l for l in attached if l not in LANGUAGES]
    codec_ids = [c["id"] for c in catalogue] + sorted({o.codec.id for o in offers} - set(cat))
    cells: dict[tuple[str, str], Cell] = {}
    problems: list[dict] = []

    def problem(kind: str, codec: str, lang: str, message: str) -> None:
        problems.append({"kind": kind, "codec": codec, "language": lang, "message": message})

    for entry in catalogue:
        for message in entry.get("_errors", []):
            problem("catalogue-error", entry["id"], "", message)
    for codec in codec_ids:
        entry = cat.get(codec)
        for lang in languages:
            impl = (entry or {}).get("implementations", {}).get(lang)
            got = announced.get((codec, lang), [])
            cell = Cell(status="absent")
            if impl is not None:
                cell.catalogue_library = str(impl.get("library", ""))
                cell.catalogue_modes = [str(m) for m in impl.get("modes") or []]
            if got:
                libs = sorted({(o.codec.library, o.codec.library_version) for o in got})
                cell.library = " / ".join(sorted({lib for lib, _ in libs}))
                cell.version = " / ".join(sorted({v for _, v in libs if v}))
                cell.modes = list(dict.fromkeys(m for o in got for m in o.codec.decode_modes))
                cell.workers = sorted(o.worker_id for o in got)
                if entry is None:
                    cell.status = "unknown-codec"
                    problem("unknown-codec", codec, lang,
                            f"{codec}: announced by {', '.join(cell.workers)} ({lang}, {cell.library}) "
                            f"but not in the catalogue {catalogue_path}")
                elif impl is None:
                    cell.status = "not-catalogued"
                    problem("not-catalogued", codec, lang,
                            f"{codec} in {lang}: announced by {', '.join(cell.workers)} ({cell.library}) "
                            f"but the catalogue lists no {lang} implementation")
                else:
                    cell.status = "ok"
                    bad = [lib for lib, _ in libs if not library_matches(lib, cell.catalogue_library)]
                    if bad:
                        cell.status = "mismatch"
                        cell.notes.append(f"catalogue says {cell.catalogue_library}")
                        problem("library-mismatch", codec, lang,
                                f"{codec} in {lang}: {', '.join(cell.workers)} announce{'s' if len(cell.workers) == 1 else ''} "
                                f"library {' / '.join(bad)}, the catalogue says {cell.catalogue_library}")
                    if cell.catalogue_modes and set(cell.modes) != set(cell.catalogue_modes):
                        cell.status = "mismatch"
                        cell.notes.append(f"catalogue modes {', '.join(cell.catalogue_modes)}")
                        problem("modes-mismatch", codec, lang,
                                f"{codec} in {lang}: decode modes {', '.join(cell.modes) or 'none'} announced, "
                                f"the catalogue says {', '.join(cell.catalogue_modes)}")
            elif impl is not None:
                if lang in attached:
                    cell.status = "missing"
                    problem("missing", codec, lang,
                            f"{codec} in {lang}: in the catalogue ({cell.catalogue_library}) but no attached "
                            f"{lang} worker announces it")
                else:
                    cell.status = "no-worker"
            cells[(codec, lang)] = cell
    # A catalogue language nobody attached: say so once.
    for lang in languages:
        if lang not in attached:
            problems.append({"kind": "no-worker", "codec": "", "language": lang,
                             "message": f"no {lang} worker attached: its catalogue entries are not checked"})
    return Matrix(codecs=codec_ids, languages=languages, attached=attached, cells=cells,
                  problems=problems, catalogue_path=catalogue_path, in_catalogue=set(cat))
