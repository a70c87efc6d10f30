"""The `codecbench` command as a CI job and a user without control meet it (issue 31 item 6): every
exit code, help on every flag, `validate` against the codec catalogue, `runs`, `runs show` and
`codecs` without control, the `run` filters; and the split of cli and results (item 7). In process
where it can be (fast), the installed command where the process matters. No control is started."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

from codecbench import cli, processes, results
from codecbench.cli import base, parser
from codecbench.scenario import ScenarioError, load

from conftest import DATA
from test_compare import FIXTURE_B, PLANT, make_run, scale

REPO = processes.repo_root()
# A port nothing listens on: control "not reachable" at once.
NO_CONTROL = "127.0.0.1:9"
QUICK = REPO / "harness" / "scenarios" / "quick.yaml"


@pytest.fixture
def offline(monkeypatch, tmp_path):
    """No control, and a state folder of the test's own."""
    monkeypatch.setenv("CODECBENCH_CONTROL", NO_CONTROL)
    monkeypatch.setenv("CODECBENCH_STATE", str(tmp_path / "state"))
    monkeypatch.delenv("CODECBENCH_RESULTS", raising=False)
    return tmp_path


def _scenario(path: Path, codecs: str, modes: str | None = "[typed]", extra: str = "") -> Path:
    path.write_text(f"name: t\ndatasets: [dummy]\ncodecs: {codecs}\n"
                    + (f"decodeModes: {modes}\n" if modes is not None else "") + f"counts: [10]\n{extra}")
    return path


# ---- exit codes ---------------------------------------------------------------------------------

def test_every_exit_code_is_distinct_documented_and_what_its_case_returns(offline, monkeypatch, capsys):
    tmp = offline
    codes = base.EXIT_CODES
    assert len(set(codes)) == len(codes) == 7
    # --help and the README say the same codes.
    helptext = parser.build_parser().format_help()
    readme = (REPO / "README.md").read_text()
    sentence = re.search(r"Exit codes: 0 done;.*?130 interrupted\.", readme, re.S)
    assert sentence, "the README's CLI section lists the exit codes"
    for code in codes:
        assert re.search(rf"^  {code}\s", helptext, re.M), f"--help lists exit code {code}"
        assert re.search(rf"\b{code} ", sentence.group(0)), f"the README lists exit code {code}"

    main = cli.main
    # 0: a valid scenario.
    assert main(["validate", str(QUICK)]) == base.EXIT_OK
    # 2: an invalid one (a misspelt codec).
    assert main(["validate", str(_scenario(tmp / "bad.yaml", "[json, protobuff]"))]) == base.EXIT_INVALID
    # 64: a usage error (argparse's own 2 would read as an invalid scenario).
    with pytest.raises(SystemExit) as exc:
        main(["validate", "--no-such-flag", str(QUICK)])
    assert exc.value.code == base.EXIT_USAGE
    assert main(["compare", "a", "b", "--threshold", "0.5"]) == base.EXIT_USAGE
    # 4: a run that is neither in the results folder nor at control (report: test_report; runs show:
    # below; each waits for control a few seconds first).
    make_run(tmp, "a")
    for argv in (["compare", "a", "nope"], ["calibrate", "nope"]):
        assert main([*argv, "--results-dir", str(tmp)]) == base.EXIT_NO_RUN, argv
    assert "no results for 'nope'" in capsys.readouterr().err
    # 1: compare found something slower (the CI gate) — not the same code as a missing run.
    make_run(tmp, "b", lambda df: scale(df, 1.3, **PLANT, consumer="rust-1"), source=FIXTURE_B)
    assert main(["compare", "a", "b", "--results-dir", str(tmp)]) == base.EXIT_FAILED
    # 1 too: control is not reachable. Before trying, run says what an empty decodeModes adds.
    capsys.readouterr()
    empty = _scenario(tmp / "empty.yaml", "[json, protobuf]", None, "consumers: [browser]\n")
    assert main(["run", str(empty), "--no-progress"]) == base.EXIT_FAILED
    out = capsys.readouterr().err
    assert "note: decodeModes is empty: every mode each codec offers is measured (json typed, tree" in out, out
    assert "cannot reach control" in out, out
    # 3: mismatched runs (nothing in common).
    def other(df):
        df["dataset"] = "owners"
    make_run(tmp, "other", other)
    assert main(["compare", "a", "other", "--results-dir", str(tmp)]) == base.EXIT_MISMATCH
    # 130: interrupted.
    def interrupted(path):
        raise KeyboardInterrupt
    monkeypatch.setattr("codecbench.cli.scenarios.load", interrupted)
    assert main(["validate", str(QUICK)]) == base.EXIT_INTERRUPTED


# ---- help ---------------------------------------------------------------------------------------

def _parsers(p: argparse.ArgumentParser, name: str = "codecbench"):
    yield name, p
    for action in p._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from _parsers(sub, f"{name} {sub_name}")


def test_every_flag_and_argument_has_help():
    missing = []
    names = []
    for name, p in _parsers(parser.build_parser()):
        names.append(name.removeprefix("codecbench").strip())
        for action in p._actions:
            if isinstance(action, (argparse._HelpAction, argparse._VersionAction, argparse._SubParsersAction)):
                continue
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
    assert {"up", "down", "browser", "run", "report", "compare", "calibrate", "validate", "workers", "gc",
            "codecs", "datasets", "runs", "runs show"} <= set(names), names
    assert not missing, f"without help text: {', '.join(missing)}"


# ---- validate against the catalogue -------------------------------------------------------------

def test_validate_names_a_misspelt_codec_and_an_unoffered_mode(tmp_path, capsys):
    bad = _scenario(tmp_path / "codec.yaml", "[json, protobuff]")
    assert cli.main(["validate", str(bad)]) == base.EXIT_INVALID
    out = capsys.readouterr().err
    assert "unknown codec 'protobuff'; did you mean protobuf?" in out, out

    # lazy: offered by bson only; with json and protobuf alone no consumer offers it.
    mode = _scenario(tmp_path / "mode.yaml", "[json, protobuf]", "[typed, lazy]")
    assert cli.main(["validate", str(mode)]) == base.EXIT_INVALID
    out = capsys.readouterr().err
    assert "decodeModes: no codec offers 'lazy'" in out and "protobuf: typed" in out, out

    # With bson in, lazy is measured where offered and the rest is said, not silently dropped.
    some = _scenario(tmp_path / "some.yaml", "[json, bson]", "[typed, lazy]")
    assert cli.main(["validate", str(some)]) == base.EXIT_OK
    out = capsys.readouterr().err
    assert "ok —" in out and "note: no lazy cells for json" in out, out

    # Streaming: json offers it in rust and java, not in the browser.
    stream = _scenario(tmp_path / "stream.yaml", "[json]", "[streaming]", "consumers: [rust, browser]\n")
    assert cli.main(["validate", str(stream)]) == base.EXIT_OK
    assert "no json streaming cells in browser" in capsys.readouterr().err

    # An empty decodeModes says what it expands to, per codec, for the selected consumers.
    empty = _scenario(tmp_path / "empty.yaml", "[json, protobuf]", None, "consumers: [browser]\n")
    assert cli.main(["validate", str(empty)]) == base.EXIT_OK
    out = capsys.readouterr().err
    assert "decodeModes is empty: every mode each codec offers is measured (json typed, tree; protobuf typed)" in out

    # A codec the selected languages do not implement.
    cat = tmp_path / "catalogue.yaml"
    cat.write_text("codecs:\n  - id: json\n    implementations:\n      java: {library: jackson, modes: [typed]}\n")
    only_rust = _scenario(tmp_path / "rust.yaml", "[json]", "[typed]", "producers: [rust]\nconsumers: [rust-1]\n")
    assert cli.main(["validate", "--catalogue", str(cat), str(only_rust)]) == base.EXIT_INVALID
    assert "json has no implementation in rust (the catalogue has it in java)" in capsys.readouterr().err


def test_validate_expands_a_format_to_every_implementation_in_the_selected_languages(tmp_path, capsys):
    # json/* in Rust and Go: json, then json/simd-json, json/sonic and json/v2; lazy is offered by none.
    star = _scenario(tmp_path / "star.yaml", "[json/*]", "[typed, lazy]", "producers: [rust, go]\nconsumers: [rust, go]\n")
    assert cli.main(["validate", str(star)]) == base.EXIT_INVALID
    out = capsys.readouterr().err
    assert "decodeModes: no codec offers 'lazy' in rust, go (json: typed, tree, streaming; json/simd-json: typed, tree; " \
           "json/sonic: typed, tree; json/v2: typed)" in out, out
    # A format no selected language implements, and one the catalogue does not have.
    cbor = _scenario(tmp_path / "none.yaml", "[xml/*, nope/*]", "[typed]")
    assert cli.main(["validate", str(cbor)]) == base.EXIT_INVALID
    out = capsys.readouterr().err
    assert "codecs: nope/* names every implementation of format 'nope', and the catalogue has none in" in out, out


def test_every_library_scenario_passes_the_catalogue_check():
    from codecbench import catalogue

    cat = catalogue.load(catalogue.default_path())
    for path in sorted((REPO / "harness" / "scenarios").glob("*.yaml")):
        try:
            s = load(path).message
        except ScenarioError:
            continue  # json-vs-bson-full.yaml is over the task cap on purpose (test_library)
        problems, _ = cli.scenarios.catalogue_check(s, cat)
        assert not problems, (path.name, problems)


# ---- without control ----------------------------------------------------------------------------

def _local_db(state: Path, run_id: str) -> Path:
    """A `run --local` folder whose database (control's schema, runs table) holds one run."""
    folder = state / "local" / "20261128-090000-1"
    (folder / "control").mkdir(parents=True)
    with sqlite3.connect(folder / "control" / "codecbench.sqlite") as con:
        con.execute("CREATE TABLE runs (id TEXT PRIMARY KEY, name TEXT NOT NULL, source TEXT NOT NULL, "
                    "status TEXT NOT NULL, message TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, "
                    "finished_at TEXT, tasks_total INTEGER NOT NULL, tasks_done INTEGER NOT NULL DEFAULT 0, "
                    "tasks_failed INTEGER NOT NULL DEFAULT 0, scenario BLOB NOT NULL, workers BLOB)")
        con.execute("INSERT INTO runs VALUES (?, 'quick', 'q.yaml', 'CANCELLED', 'cancelled by Ctrl-C', "
                    "'2026-11-28T09:00:01.5Z', NULL, 141, 40, 1, x'', NULL)", (run_id,))
    return folder


def test_runs_runs_show_and_codecs_work_without_control(offline, capsys):
    tmp = offline
    shutil.copytree(DATA / "trials-a", tmp / "r" / "trials-a")
    _local_db(tmp / "state", "20261128-090001-dead")

    def main(*argv):
        code = cli.main(list(argv))
        out = capsys.readouterr()
        return code, out.out, out.err

    code, out, err = main("runs", "--json", "--results-dir", str(tmp / "r"))
    assert code == 0 and "not reachable" in err, err
    runs = {r["id"]: r for r in json.loads(out)}
    assert set(runs) == {"trials-a", "20261128-090001-dead"}
    assert runs["trials-a"]["status"] == "RUN_STATUS_FINISHED"
    assert runs["trials-a"]["storedIn"] == [str(tmp / "r" / "trials-a")]
    local = runs["20261128-090001-dead"]
    assert local["status"] == "RUN_STATUS_CANCELLED" and local["tasksDone"] == 40 and local["tasksFailed"] == 1
    assert local["storedIn"] == [str(tmp / "state" / "local" / "20261128-090000-1")]
    assert local["createdAt"].startswith("2026-11-28T09:00:01")
    assert list(runs) == ["20261128-090001-dead", "trials-a"], "newest first"

    code, out, err = main("runs", "show", "trials-a", "--results-dir", str(tmp / "r"))
    # The fixture holds 140 failed tasks: exit 1, as when control is asked.
    assert code == base.EXIT_FAILED, err
    assert "run trials-a" in out and "noise floor" in out and "1415 tasks: 1275 done, 140 failed" in out, out
    code, out, err = main("runs", "show", "trials-a", "--json", "--results-dir", str(tmp / "r"))
    doc = json.loads(out)
    assert doc["run"]["id"] == "trials-a" and len(doc["tasks"]) == 1415 and doc["answer"]["leaderboards"]
    # A local run without a results folder: read by a control started on its database for the
    # purpose (and stopped), and written to the results folder like any other.
    code, out, err = main("runs", "show", "20261128-090001-dead", "--results-dir", str(tmp / "r"))
    assert code == 0 and "run 20261128-090001-dead" in out and "cancelled" in out, out + err
    assert (tmp / "r" / "20261128-090001-dead" / "run.json").exists()
    assert not list((tmp / "state" / "local").glob("*/control/*.pid")), "the control it started is gone"
    code, out, err = main("runs", "show", "20261128-090009-none", "--results-dir", str(tmp / "r"))
    assert code == base.EXIT_NO_RUN and "holds no results" in err, err

    code, out, err = main("codecs", "--json")
    assert code == 0 and "not reachable" in err, err
    matrix = json.loads(out)
    assert {c["id"] for c in matrix["codecs"]} >= {"json", "bson", "protobuf", "flatbuffers"}
    assert matrix["offers"] == []


# ---- run filters --------------------------------------------------------------------------------

def _filtered(**flags):
    return cli.apply_overrides(load(QUICK), argparse.Namespace(**flags)).message


def test_run_filters_datasets_codecs_and_languages_on_top_of_a_scenario():
    s = _filtered(codecs="json,protobuf", datasets="dummy", languages="rust,browser")
    assert list(s.codecs) == ["json", "protobuf"] and list(s.datasets) == ["dummy"]
    # quick.yaml: producers [rust, java], consumers [rust, java, browser].
    assert list(s.producers) == ["rust"] and list(s.consumers) == ["rust", "browser"]
    with pytest.raises(ScenarioError, match=r"not among them: 'protobuff' \(did you mean protobuf\?\)"):
        _filtered(codecs="protobuff")
    with pytest.raises(ScenarioError, match="--languages browser: none of the scenario's producers"):
        _filtered(languages="browser")
    with pytest.raises(ScenarioError, match="unknown language"):
        _filtered(languages="cobol")
    # An empty producers list (every worker) becomes the languages asked for.
    loaded = load(QUICK)
    loaded.data["producers"] = []
    s = cli.apply_overrides(loaded, argparse.Namespace(languages="java")).message
    assert list(s.producers) == ["java"] and list(s.consumers) == ["java"]


# ---- the split (item 7) -------------------------------------------------------------------------

def test_cli_and_results_modules_stay_small():
    pkg = REPO / "harness" / "codecbench"
    sizes = {str(f.relative_to(pkg)): len(f.read_text().splitlines())
             for d in ("cli", "results") for f in sorted((pkg / d).glob("*.py"))}
    assert len(sizes) >= 12 and not (pkg / "cli.py").exists() and not (pkg / "results.py").exists()
    assert all(n <= 400 for n in sizes.values()), sizes


def test_source_version_reads_the_repository_from_inside_the_results_package():
    # results/environment.py sits one folder deeper than results.py did: it still finds the
    # measuring paths (proto, codecs, rust, java, web) at the repository's root.
    assert results.source_version() == results.source_version(REPO)
    assert results.source_version()["measuring"]


def test_every_environment_variable_the_harness_reads_is_documented_once():
    # harness/README.md's table: one row per setting. A variable read anywhere in the package
    # (os.environ.get / os.environ[...]) and missing there fails this.
    code = "\n".join(f.read_text() for f in (REPO / "harness" / "codecbench").rglob("*.py") if "_gen" not in f.parts)
    read = set(re.findall(r'environ(?:\.get\(|\[)"(CODECBENCH_[A-Z_]+)"', code))
    assert {"CODECBENCH_CONTROL", "CODECBENCH_STATE", "CODECBENCH_RESULTS"} <= read
    readme = (REPO / "harness" / "README.md").read_text()
    table = readme[readme.index("### Environment variables"):]
    rows = [line for line in table.splitlines() if line.startswith("| `CODECBENCH_")]
    for var in read:
        assert sum(f"`{var}`" in row for row in rows) == 1, f"{var}: one row of harness/README.md's table"


# ---- the scenario files' JSON Schema ------------------------------------------------------------

def test_the_committed_schema_is_the_one_the_proto_generates():
    from codecbench import scenario_schema

    assert scenario_schema.SCHEMA_PATH.read_text() == scenario_schema.text(), \
        "harness/scenario.schema.json is stale: `codecbench schema --write`"


def test_every_library_scenario_validates_against_the_schema_and_mistakes_do_not():
    import jsonschema
    import yaml

    schema = json.loads((REPO / "harness" / "scenario.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    check = jsonschema.Draft202012Validator(schema)
    files = sorted((REPO / "harness" / "scenarios").glob("*.yaml"))
    assert len(files) >= 15
    for path in files:
        problems = [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in check.iter_errors(yaml.safe_load(path.read_text()))]
        assert not problems, (path.name, problems)
    own = {"datasets": ["dummy", {"id": "orders", "proto": "o.proto", "message": "acme.Order", "records": "o.ndjson",
                                  "fieldNames": "proto"}], "codecs": ["json"], "network": "3g"}
    assert not list(check.iter_errors(own))
    for bad, why in (({"datasets": ["dummy"], "codecs": ["protobuff"]}, "'protobuff' is not one of"),
                     ({"datasets": ["dummy"], "codecs": ["json"], "sampling": {"warmupMS": 3}}, "'warmupMS' was unexpected"),
                     ({"datasets": ["dummy"], "codecs": ["json"], "decodeModes": ["lazzy"]}, "'lazzy' is not one of"),
                     ({"datasets": ["dummy"], "codecs": ["json"], "counts": [0]}, "less than the minimum"),
                     ({"datasets": [{"id": "x", "proto": "p"}], "codecs": ["json"]}, "")):
        errors = [e.message for e in check.iter_errors(bad)] + \
            [c.message for e in check.iter_errors(bad) for c in (e.context or [])]
        assert errors and any(why in m for m in errors), (bad, errors)
