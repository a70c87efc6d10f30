"""A scenario naming a language no attached worker has is an error at once, not a wait."""
from __future__ import annotations

import time

from conftest import run_cli, write_scenario


def test_a_language_without_a_worker_is_a_clear_error_at_once(control, rust_worker, tmp_path):
    path = write_scenario(tmp_path / "s.yaml", "datasets: [dummy]\ncodecs: [json]\ncounts: [5]\nproducers: [java]\n")
    started = time.monotonic()
    res = run_cli("--control", control.addr, "run", str(path), "--no-progress", timeout=60)
    assert time.monotonic() - started < 15
    assert res.returncode == 1, res.stdout + res.stderr
    assert "cannot run: no attached worker for: java (attached: rust-1)" in res.stderr
