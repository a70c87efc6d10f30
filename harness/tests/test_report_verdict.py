"""The verdict travels with its caveats (issue 31, item 2), and says the same wherever it is printed:
the trust line beside it in report.html's first screen, report.md and `report --format md|csv|json`;
no absolute path of the machine that made a report; a duet run's verdict judged by its duets in the
terminal and the exports as in the report. Runs: tests/data/trials-a (5 trials, noisy java) and
tests/data/duets-run (run 20261128-083101-47a2 of harness/scenarios/duets.yaml: two Rust workers,
two lanes; run.json without its task list). No control is needed."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from codecbench import report, results
from codecbench.report import paths

from conftest import DATA, run_cli

NOISY = DATA / "trials-a"
DUETS = DATA / "duets-run"
NO_CONTROL = {"CODECBENCH_CONTROL": "127.0.0.1:9"}
# An absolute POSIX path of two or more parts, not inside a URL.
ABSOLUTE = re.compile(r"(?<![\w.:/~<>-])/(?:[\w.+-]+/)+[\w.+-]+")


def _results(tmp_path: Path, fixture: Path) -> tuple[Path, str]:
    run_id = json.loads((fixture / "run.json").read_text())["run"]["id"]
    shutil.copytree(fixture, tmp_path / "results" / run_id)
    return tmp_path / "results", run_id


def _wide_cells(run_dir: Path) -> tuple[int, int]:
    cells = results.cells_frame(results.read_measurements(run_dir))
    t = cells[cells["trials"] > 0]
    return int((t["ci_pct"] > report.WIDE_CI * 100).sum()), len(t)


def test_md_export_carries_the_trust_line_between_the_verdict_and_the_tables(tmp_path):
    res_dir, run_id = _results(tmp_path, NOISY)
    res = run_cli("report", run_id, "--results-dir", str(res_dir), "--format", "md", env=NO_CONTROL)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.splitlines()
    trust = [i for i, line in enumerate(lines) if line.startswith("> Trust: ")]
    assert len(trust) == 1, res.stdout[:2000]
    verdicts = [i for i, line in enumerate(lines) if line.startswith("- ")]
    first_table = next(i for i, line in enumerate(lines) if line.startswith("| "))
    assert max(verdicts) < trust[0] < first_table, "next to the verdict, before the tables"
    line = lines[trust[0]]
    wide, cells = _wide_cells(res_dir / run_id)
    assert f"{wide} of {cells} cells wider than ±10%" in line
    assert "5 trials per cell (fewer than 9" in line
    floors = results.language_noise_floors(results.cells_frame(results.read_measurements(res_dir / run_id)),
                                           results.language_map(results.read_measurements(res_dir / run_id),
                                                                results.read_run_doc(res_dir / run_id)))
    worst = max(floors.values(), key=lambda f: f.worst)
    assert f"noise floor {worst.worst_pct:.1f} %" in line
    assert "machine: fixture-host (2 cores" in line
    # Where the floor hides an effect, the verdict says so rather than naming a winner.
    assert re.search(r"is inconclusive against json on [^;]* on this machine \(noise floor \d+\.\d %\)",
                     "\n".join(lines[i] for i in verdicts))


def test_csv_and_json_exports_carry_the_trust_line(tmp_path):
    res_dir, run_id = _results(tmp_path, NOISY)
    csv = run_cli("report", run_id, "--results-dir", str(res_dir), "--format", "csv", env=NO_CONTROL)
    assert csv.returncode == 0 and csv.stderr.startswith("Trust: "), csv.stderr
    assert "Trust" not in csv.stdout, "the CSV stays a table"
    js = run_cli("report", run_id, "--results-dir", str(res_dir), "--format", "json", env=NO_CONTROL)
    trust = json.loads(js.stdout)["trust"]
    assert (trust["wideCells"], trust["cells"]) == _wide_cells(res_dir / run_id)
    assert trust["trialsMin"] == trust["trialsMax"] == 5
    assert trust["sentence"] == csv.stderr.splitlines()[0]


def test_report_puts_the_trust_line_under_the_verdict_and_no_machine_path(tmp_path):
    res_dir, run_id = _results(tmp_path, NOISY)
    run_dir = res_dir / run_id
    # What a real run records: the scenario's absolute path, and a worker detail inside the repo.
    doc = json.loads((run_dir / "run.json").read_text())
    doc["scenarioFile"] = str(paths.REPO / "harness" / "scenarios" / "quick.yaml")
    first = next(iter(doc["workers"]))
    doc["workers"][first]["details"]["archive"] = str(paths.REPO / "java" / "target" / "worker.jsa")
    (run_dir / "run.json").write_text(json.dumps(doc))
    rep = report.write_report(run_dir)
    md, page = rep.md.read_text(encoding="utf-8"), rep.html.read_text(encoding="utf-8")
    for text in (md, page):
        assert str(tmp_path) not in text and str(paths.REPO) not in text
    assert "| scenario file | harness/scenarios/quick.yaml |" in md
    assert "java/target/worker.jsa" in md
    prose = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "", md)
    assert not ABSOLUTE.findall(prose), ABSOLUTE.findall(prose)[:5]
    # First screen: the trust line straight after the verdict's sentences, before its first table and
    # long before "Can these numbers be trusted?".
    verdict = page.index('id="verdict"')
    trust = page.index('<p class="trust">Trust: ')
    assert verdict < trust < page.index("<table", verdict) < page.index('id="warnings"')
    assert page.index("</ul>", verdict) < trust


@pytest.mark.parametrize("how", [("report", "--format", "md"), ("runs", "show")])
def test_a_duet_runs_verdict_is_the_reports_everywhere(tmp_path, how):
    res_dir, run_id = _results(tmp_path, DUETS)
    rep = report.write_report(res_dir / run_id, tmp_path / "out")
    md = rep.md.read_text(encoding="utf-8")
    section = md.split("## Verdict")[1].split("\n> Trust")[0]
    said = [line[2:] for line in section.splitlines() if line.startswith("- ")]
    assert said and all("(duet)" in s for s in said), said
    cmd = [*how[:1], *how[1:2], run_id] if how[0] == "runs" else [how[0], run_id, *how[1:]]
    res = run_cli(*cmd, "--results-dir", str(res_dir), env=NO_CONTROL)
    assert res.returncode == 0, res.stderr
    flat = " ".join(res.stdout.split())
    for s in said:
        assert " ".join(s.split()) in flat, s
