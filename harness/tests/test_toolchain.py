"""The Makefile's toolchain check names what is missing or too old, and how to get it."""
import os
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_toolchain.sh"


def check(path: str) -> subprocess.CompletedProcess:
    return subprocess.run(["bash", str(SCRIPT)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PATH": path})


def fake(bin_dir: Path, name: str, output: str) -> None:
    exe = bin_dir / name
    exe.write_text(f"#!/bin/sh\necho '{output}'\n")
    exe.chmod(0o755)


def test_this_machine_passes():
    res = check(os.environ["PATH"])
    assert res.returncode == 0, res.stderr


def test_an_old_rust_and_node_are_named_with_the_fix(tmp_path):
    fake(tmp_path, "rustc", "rustc 1.70.0 (90c541806 2023-05-31)")
    fake(tmp_path, "node", "v18.19.1")
    res = check(f"{tmp_path}:{os.environ['PATH']}")
    assert res.returncode == 1
    assert "rustc: 1.70.0 is too old (need >= 1.85; rustup update stable" in res.stderr, res.stderr
    assert "node: 18.19.1 is too old (need >= 20.19" in res.stderr
    assert "cargo" not in res.stderr and "java" not in res.stderr, "only what is wrong is listed"


def test_a_missing_tool_is_named(tmp_path):
    # A PATH holding only the shell tools the check itself uses, and python3.
    for tool in ("sort", "head", "grep", "id", "bash"):
        src = subprocess.run(["bash", "-c", f"command -v {tool}"], capture_output=True, text=True).stdout.strip()
        (tmp_path / tool).symlink_to(src)
    (tmp_path / "python3").symlink_to(sys.executable)
    res = check(str(tmp_path))
    assert res.returncode == 1
    for tool in ("rustc", "cargo", "go", "java", "mvn", "node", "npm"):
        assert f"{tool}: not found" in res.stderr, (tool, res.stderr)
