"""Scenario validation: good files pass; each kind of mistake has its own message and exit code 2,
before any connection to control is attempted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codecbench import scenario
from codecbench.cli import main
from codecbench.pb import scenario as scenario_pb2

from conftest import DATA

REPO = Path(__file__).resolve().parents[2]
GOOD = """\
name: t
datasets: [dummy, matrix]
codecs: [json, bson]
decodeModes: [typed, lazy]
counts: [10, 100]
producers: [rust]
consumers: [rust, java-1]
operations: [encode, decode, transfer]
sampling: {warmupMs: 50, rounds: 5, minRoundMs: 5, taskTimeoutS: 60}
seed: 42
"""

# Nothing listens here: a test that reached the network would fail with exit code 1, not 2.
UNREACHABLE = "127.0.0.1:9"


def check(tmp_path: Path, text: str, capsys) -> str:
    """Validate `text` through `codecbench run` and return stderr; asserts exit code 2."""
    path = tmp_path / "scenario.yaml"
    path.write_text(text)
    code = main(["--control", UNREACHABLE, "run", str(path), "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2, err
    assert str(path) in err, "every message names the file"
    assert "cannot reach control" not in err, "validation must happen before connecting"
    return err


def test_good_files_pass(tmp_path, capsys):
    for path in (REPO / "harness/scenarios/quick.yaml", DATA / "tiny.yaml"):
        assert main(["validate", str(path)]) == 0, capsys.readouterr().err
    path = tmp_path / "good.yaml"
    path.write_text(GOOD)
    loaded = scenario.load(path)
    s = loaded.message
    assert list(s.datasets) == ["dummy", "matrix"]
    assert list(s.counts) == [10, 100]
    assert list(s.consumers) == ["rust", "java-1"]
    assert list(s.operations) == [scenario_pb2.OPERATION_ENCODE, scenario_pb2.OPERATION_DECODE,
                                  scenario_pb2.OPERATION_TRANSFER]
    assert (s.sampling.warmup_ms, s.sampling.rounds, s.sampling.min_round_ms, s.sampling.task_timeout_s) == (50, 5, 5, 60)
    assert s.seed == 42


def test_proto_field_names_and_enum_names_are_accepted(tmp_path):
    path = tmp_path / "snake.yaml"
    path.write_text("datasets: [beers]\ncodecs: [json]\ncounts: [1]\ndecode_modes: [lazy]\n"
                    "operations: [OPERATION_ENCODE, Decode]\nsampling: {min_round_ms: 3}\n")
    s = scenario.load(path).message
    assert list(s.decode_modes) == ["lazy"]
    assert list(s.operations) == [scenario_pb2.OPERATION_ENCODE, scenario_pb2.OPERATION_DECODE]
    assert s.sampling.min_round_ms == 3


def test_unknown_top_level_key(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("decodeModes:", "decodeMode:"), capsys)
    assert 'unknown key "decodeMode" in the scenario' in err
    assert 'did you mean "decodeModes"?' in err
    assert "scenario.yaml:4:" in err, "names the line"
    assert len(err.strip().splitlines()) == 1, "one message for one mistake"


def test_unknown_nested_key(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("rounds: 5", "rouns: 5"), capsys)
    assert 'unknown key "rouns" in "sampling"' in err
    assert 'did you mean "rounds"?' in err
    assert "scenario.yaml:9:" in err


def test_unknown_dataset(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("[dummy, matrix]", "[dummy, matrx]"), capsys)
    assert 'unknown dataset "matrx" in "datasets"' in err
    assert 'did you mean "matrix"?' in err
    assert f"known: {', '.join(scenario.DATASETS)}" in err


def test_unknown_decode_mode(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("[typed, lazy]", "[typed, raw]"), capsys)
    assert 'unknown decode mode "raw" in "decodeModes"' in err
    assert "known: typed, tree, lazy" in err


def test_unknown_operation(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("transfer]", "serialize]"), capsys)
    assert 'unknown operation "serialize" in "operations"' in err
    assert "known: encode, decode, transfer" in err


def test_compressions_are_known_names_and_need_the_transfer_legs(tmp_path, capsys):
    loaded = scenario.validate({"datasets": ["beers"], "codecs": ["json"], "counts": [100],
                                "compressions": ["identity", "gzip", "zstd"]}, tmp_path / "s.yaml")
    assert list(loaded.message.compressions) == ["identity", "gzip", "zstd"]
    err = check(tmp_path, GOOD + "compressions: [gzip, brotli, gzip]\n", capsys)
    assert 'unknown compression "brotli" in "compressions"' in err and "known: identity, gzip, zstd" in err
    assert 'compression "gzip" is listed twice in "compressions"' in err
    err = check(tmp_path, GOOD.replace("transfer]", "]").replace(", ]", "]") + "compressions: [gzip]\n", capsys)
    assert '"compressions": only the transfer legs are compressed' in err


@pytest.mark.parametrize("counts, expected", [
    ("[10, 0]", '"counts" item 2 must be a positive whole number, got 0'),
    ("[-5]", '"counts" item 1 must be a positive whole number, got -5'),
    ("[2.5]", '"counts" item 1 must be a positive whole number, got a number (2.5)'),
    ('["10"]', '"counts" item 1 must be a positive whole number, got a string ("10")'),
    ("[true]", '"counts" item 1 must be a positive whole number, got a boolean (true)'),
    ("[5000000000]", '"counts" item 1 is too large'),
])
def test_counts_must_be_positive_integers(tmp_path, capsys, counts, expected):
    err = check(tmp_path, GOOD.replace("[10, 100]", counts), capsys)
    assert expected in err


@pytest.mark.parametrize("key, old", [("datasets", "[dummy, matrix]"), ("codecs", "[json, bson]"),
                                      ("counts", "[10, 100]")])
def test_empty_required_lists(tmp_path, capsys, key, old):
    err = check(tmp_path, GOOD.replace(f"{key}: {old}", f"{key}: []"), capsys)
    assert f'"{key}" is empty' in err


def test_missing_required_key(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("codecs: [json, bson]\n", ""), capsys)
    assert '"codecs" is missing' in err


@pytest.mark.parametrize("old, new, expected", [
    ("datasets: [dummy, matrix]", "datasets: dummy",
     '"datasets" must be a list of datasets, got a string ("dummy") (write it as a list: datasets: [dummy])'),
    ("name: t", "name: 12", '"name" must be a string, got a number (12)'),
    ("sampling: {warmupMs: 50, rounds: 5, minRoundMs: 5, taskTimeoutS: 60}", "sampling: [50, 5]",
     '"sampling" must be a mapping'),
    ("rounds: 5", "rounds: five", '"sampling.rounds" must be a whole number, got a string ("five")'),
    ("seed: 42", "seed: -1", '"seed" must not be negative, got -1'),
    ("codecs: [json, bson]", "codecs: [json, 7]", '"codecs" item 2 must be a codec id (a non-empty string), got a number (7)'),
])
def test_wrong_types(tmp_path, capsys, old, new, expected):
    assert old in GOOD
    err = check(tmp_path, GOOD.replace(old, new), capsys)
    assert expected in err


def test_duplicates_are_rejected(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("[10, 100]", "[10, 10]"), capsys)
    assert 'count 10 is listed twice in "counts"' in err


def test_yaml_syntax_error_names_the_line(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("codecs: [json, bson]", "codecs: [json, bson"), capsys)
    assert "YAML syntax error" in err
    assert "scenario.yaml:4:" in err, err  # where the parser noticed
    assert "started at line 3" in err, err  # where the unclosed list began


def test_tab_indentation_is_a_syntax_error(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("seed: 42", "sampling2:\n\trounds: 3"), capsys)
    assert "YAML syntax error" in err and "scenario.yaml:11:" in err, err


def test_deep_nesting_is_refused_with_a_message_not_a_traceback(tmp_path, capsys):
    err = check(tmp_path, GOOD + "extra: " + "[" * 5000 + "]" * 5000 + "\n", capsys)
    assert "nested more than 32 levels deep" in err and "scenario.yaml:11" in err, err
    assert "Traceback" not in err


def test_alias_bombs_are_refused_quickly(tmp_path, capsys):
    # Each level repeats the one before 9 times: 9^9 values from a few hundred bytes.
    lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]']
    for i in range(1, 10):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]")
    import time
    started = time.monotonic()
    err = check(tmp_path, GOOD + "\n".join(lines) + "\n", capsys)
    assert "expands to more than 10,000 values" in err, err
    assert time.monotonic() - started < 2


def test_a_small_anchor_is_fine(tmp_path, capsys):
    text = GOOD.replace("producers: [rust]", "producers: &who [rust]").replace("consumers: [rust, java-1]", "consumers: *who")
    path = tmp_path / "s.yaml"
    path.write_text(text)
    assert list(scenario.load(path).message.consumers) == ["rust"]


def test_missing_file(tmp_path, capsys):
    missing = tmp_path / "nope.yaml"
    code = main(["--control", UNREACHABLE, "run", str(missing)])
    err = capsys.readouterr().err
    assert code == 2
    assert f"{missing}: scenario file not found" in err


@pytest.mark.parametrize("text, expected", [
    ("", "the scenario file is empty"),
    ("- dummy\n- json\n", "a scenario must be a mapping of keys"),
])
def test_not_a_scenario(tmp_path, capsys, text, expected):
    err = check(tmp_path, text, capsys)
    assert expected in err


@pytest.mark.parametrize("key, limit", [
    ("trials", "maxTrials"), ("maxTrials", "maxTrials"), ("rounds", "maxRounds"), ("minRoundMs", "maxMinRoundMs"),
    ("warmupMs", "maxWarmupMs"), ("maxWarmupMs", "maxWarmupMs"), ("taskTimeoutS", "maxTaskTimeoutS"),
    ("aaCells", "maxAaCells")])
def test_validate_applies_controls_limits_from_the_contract(tmp_path, capsys, key, limit):
    # The one declaration both sides read (control includes the same file at build time).
    declared = json.loads((REPO / "proto/codecbench/v1/limits.json").read_text())
    assert scenario.LIMITS == declared
    at = declared[limit]
    sampling = {"warmupMs": 10, "maxWarmupMs": at if key == "warmupMs" else 10_000, "trials": 1, "maxTrials": 1}
    sampling[key] = at
    if key == "trials":
        sampling["maxTrials"] = at
    path = tmp_path / "s.yaml"
    path.write_text(GOOD.replace("sampling: {warmupMs: 50, rounds: 5, minRoundMs: 5, taskTimeoutS: 60}",
                                 f"sampling: {json.dumps(sampling)}"))
    scenario.load(path)  # at the limit: fine
    sampling[key] = at + 1
    err = check(tmp_path, GOOD.replace("sampling: {warmupMs: 50, rounds: 5, minRoundMs: 5, taskTimeoutS: 60}",
                                       f"sampling: {json.dumps(sampling)}"), capsys)
    assert f'"sampling.{key}" is too large ({at + 1} > {at})' in err, err


def test_counts_above_controls_limit_are_refused(tmp_path, capsys):
    err = check(tmp_path, GOOD.replace("[10, 100]", "[10, 10000001]"), capsys)
    assert '"counts" item 2 is too large (10,000,001 > 10,000,000 records)' in err, err


def test_every_mistake_is_reported_at_once(tmp_path, capsys):
    text = GOOD.replace("[dummy, matrix]", "[dumy]").replace("[typed, lazy]", "[fast]").replace("seed:", "sed:")
    err = check(tmp_path, text, capsys)
    lines = err.strip().splitlines()
    assert len(lines) == 3, err
    assert any('unknown dataset "dumy"' in l for l in lines)
    assert any('unknown decode mode "fast"' in l for l in lines)
    assert any('unknown key "sed"' in l for l in lines)


def test_trial_sampling_fields_and_tree_mode(tmp_path):
    path = tmp_path / "trials.yaml"
    path.write_text("datasets: [dummy]\ncodecs: [json]\ncounts: [10]\ndecodeModes: [typed, tree, lazy]\n"
                    "sampling: {trials: 5, maxTrials: 12, targetCiPct: 2.5, maxSeconds: 600,\n"
                    "  orderSeed: 18446744073709551615, maxWarmupMs: 5000, warmupMs: 200, aaCells: 2}\n")
    s = scenario.load(path).message
    assert list(s.decode_modes) == ["typed", "tree", "lazy"]
    sp = s.sampling
    assert (sp.trials, sp.max_trials, sp.max_seconds, sp.max_warmup_ms, sp.aa_cells) == (5, 12, 600, 5000, 2)
    assert sp.target_ci_pct == 2.5 and sp.order_seed == 2**64 - 1


@pytest.mark.parametrize("sampling, expected", [
    ("{trials: 0}", '"sampling.trials" must be a positive whole number, got 0'),
    ("{trials: 2.5}", '"sampling.trials" must be a whole number, got a number (2.5)'),
    ("{trials: 5, maxTrials: 3}", '"sampling.maxTrials" (3) is below "sampling.trials" (5)'),
    ("{targetCiPct: 0}", '"sampling.targetCiPct" must be above 0 and at most 100'),
    ("{targetCiPct: three}", '"sampling.targetCiPct" must be a number, got a string ("three")'),
    ("{maxSeconds: -5}", '"sampling.maxSeconds" must not be negative, got -5'),
    ("{orderSeed: 18446744073709551616}", '"sampling.orderSeed" is too large'),
    ("{warmupMs: 500, maxWarmupMs: 100}", '"sampling.maxWarmupMs" (100) is below "sampling.warmupMs" (500)'),
    ("{aaCells: 0}", '"sampling.aaCells" must be a positive whole number, got 0'),
    ("{trails: 5}", 'unknown key "trails" in "sampling"; did you mean "trials"?'),
    ("{duets: 1}", '"sampling.duets" must be true or false, got a number (1)'),
])
def test_bad_trial_sampling(tmp_path, capsys, sampling, expected):
    err = check(tmp_path, GOOD.replace("sampling: {warmupMs: 50, rounds: 5, minRoundMs: 5, taskTimeoutS: 60}",
                                       f"sampling: {sampling}"), capsys)
    assert expected in err, err


LIBRARY = ("beers", "docs", "json-vs-bson", "json-vs-bson-full", "matrix", "owners", "aa")


@pytest.mark.parametrize("name", LIBRARY)
def test_library_scenarios_have_trials_and_a_budget(name):
    text = (REPO / "harness/scenarios" / f"{name}.yaml").read_text()
    if name == "json-vs-bson-full":  # past control's task cap: refused, read as written (test_library.py)
        from test_library import _load_or_read
        s = _load_or_read(REPO / "harness/scenarios" / f"{name}.yaml")
    else:
        s = scenario.load(REPO / "harness/scenarios" / f"{name}.yaml").message
    assert s.sampling.trials >= 5, name
    assert s.sampling.max_seconds > 0, name
    assert "time on this 2-core machine" in text.lower(), f"{name}.yaml states how long it takes"


def test_quick_and_aa_scenarios_are_what_the_demo_and_issue_9_need():
    quick = scenario.load(REPO / "harness/scenarios/quick.yaml").message
    assert list(quick.datasets) == ["dummy"] and list(quick.codecs) == ["json", "bson", "protobuf"]
    # Trials where they decide (5), not on transfer legs that time the blob store (issue 35).
    assert list(quick.counts) == [100] and quick.sampling.trials == quick.sampling.max_trials == 5
    assert list(quick.operations) == [scenario_pb2.OPERATION_ENCODE, scenario_pb2.OPERATION_DECODE]
    assert quick.sampling.max_seconds and quick.sampling.max_seconds <= 180
    aa = scenario.load(REPO / "harness/scenarios/aa.yaml").message
    assert list(aa.datasets) == ["numeric", "owners"]
    assert list(aa.codecs) == ["json", "bson", "protobuf"] and list(aa.counts) == [1000]
    assert list(aa.producers) == list(aa.consumers) == ["rust", "java", "browser"], "issue 9's three"
    assert aa.sampling.trials == 9, "the fewest trials whose interval reaches 95 %"
    # The A/A groups are its twins now that byte-identical payloads are decoded once (issue 35).
    assert aa.sampling.aa_cells >= 5 and not aa.sampling.repeat_same_bytes


def test_trials_override_fixes_the_trial_count(capsys):
    from types import SimpleNamespace
    from codecbench.cli import apply_overrides
    loaded = scenario.load(REPO / "harness/scenarios/beers.yaml")
    args = SimpleNamespace(counts=None, rounds=None, warmup_ms=None, min_round_ms=None, trials=2,
                           max_warmup_ms=500)
    s = apply_overrides(loaded, args).message
    assert (s.sampling.trials, s.sampling.max_trials, s.sampling.max_warmup_ms) == (2, 2, 500)
    assert "trials 2, maxTrials 2, maxWarmupMs 500" in capsys.readouterr().err
    with pytest.raises(scenario.ScenarioError, match="sampling.trials"):
        apply_overrides(loaded, SimpleNamespace(counts=None, rounds=None, warmup_ms=None, min_round_ms=None,
                                                trials=0, max_warmup_ms=None))


@pytest.mark.parametrize("producers, consumers, started", [
    ([], [], []),                                   # every language
    (["rust"], [], []),                             # every consumer: every language
    ([], ["browser"], []),                          # every producer: every language
    (["rust"], ["java", "rust"], ["rust", "java"]),  # both named: those alone
])
def test_run_local_starts_every_language_an_empty_list_asks_for(producers, consumers, started):
    from codecbench.cli import local_selectors
    s = scenario_pb2.Scenario(producers=producers, consumers=consumers)
    assert local_selectors(s) == started
