"""README's demo output is generated (harness/readme_demo.py), and in today's format."""
import importlib.util

from conftest import HERE

ROOT = HERE.parent.parent

spec = importlib.util.spec_from_file_location("readme_demo", ROOT / "harness" / "readme_demo.py")
readme_demo = importlib.util.module_from_spec(spec)
spec.loader.exec_module(readme_demo)


def test_the_block_is_cut_from_the_run_command_to_the_report_path():
    log = (f"cd rust && cargo build\n.venv/bin/codecbench run harness/scenarios/quick.yaml --local\n"
           f"control    127.0.0.1:1  (log {readme_demo.ROOT}/.state/x.log)   \nrow\nreport: results/r/report.html\nmake: done\n")
    block = readme_demo.block(log)
    assert block.startswith(readme_demo.BEGIN) and block.endswith(readme_demo.END)
    assert "cargo build" not in block and "make: done" not in block
    assert "(log .state/x.log)\nrow\nreport: results/r/report.html\n```" in block, "repo path removed, lines stripped"


def test_readme_shows_todays_demo_output():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    demo = text.split(readme_demo.BEGIN)[1].split(readme_demo.END)[0]
    # What `run` prints today: the leaderboards, a verdict per language, the noise floor, the report.
    assert "records: each language's own round trip, per record" in demo
    for lang in ("rust", "java", "browser"):
        assert f"dummy × 100, {lang}: " in " ".join(demo.split()), lang
    assert "noise floor: identical work differed by" in demo and "report: results/" in demo
    assert "verified" not in demo, "the full table (its verified column) is --all's, not the default output"


def test_the_processes_started_are_one_line_and_the_workers_stay():
    log = (".venv/bin/codecbench run harness/scenarios/quick.yaml --local\n"
           "control    127.0.0.1:4  (pid 1, log .state/local/x/logs/control.log)\n"
           "rust       started  (pid 2, log .state/local/x/logs/rust.log)\n"
           "browser    started (1 pages)  (pid 3, log .state/local/x/logs/browser.log)\n"
           "worker     rust-1  (rust, json)\nreport: results/r/report.html\n")
    block = readme_demo.block(log)
    assert "started    control, rust, browser  (logs in .state/local/x/logs/)\nworker     rust-1  (rust, json)" in block
    assert "pid" not in block
