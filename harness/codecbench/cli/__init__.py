"""The `codecbench` command, one module per job:

- `base`: exit codes, `CliError`, output helpers, the stack folder (`.state/`), where control and
  results are;
- `stack`: `up`, `down`, `browser` and the processes a `run --local` starts;
- `reading`: `workers`, `gc`, `codecs`, `datasets`, `runs [show]`, `report`;
- `offline`: runs without control (the results folder, the kept `run --local` databases);
- `comparing`: `compare` and `calibrate`;
- `scenarios`: `validate`, `schema` and the scenario a `run` uses (catalogue check, overrides and
  filters, the workers it needs);
- `running`: `run` — the event stream, progress, Ctrl-C;
- `parser`: the argument parser and `main` (pyproject's entry point `codecbench.cli:main`).
"""

from .base import (EXIT_FAILED, EXIT_INTERRUPTED, EXIT_MISMATCH, EXIT_OK, EXIT_USAGE, CliError,
                   Local)
from .parser import build_parser, main
from .scenarios import apply_overrides, local_selectors

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_MISMATCH", "EXIT_OK", "EXIT_USAGE", "CliError",
           "Local", "apply_overrides", "build_parser", "local_selectors", "main"]
