"""Measurements as pandas DataFrames: the long table (one row per measurement = one trial of one
cell), the cells table (one row per cell and operation: median over trials with its interval,
stats.py), the joined results table (one row per dataset × codec × mode × count × producer →
consumer, with the encode, upload, download and decode legs), and the result files.

Reports and plots build on `measurements_frame`, `cells_frame` and `summary_frame`; nothing here
prints. One module per job, each name importable from here:

- `rows`: the long frame (`measurements_frame`), and each worker's language (`language_map`);
- `cells`: cells, A/A groups, the noise floor (`cells_frame`, `run_noise_floor`);
- `summary`: the joined table and the tables beside it (`summary_frame`, `compression_frame`);
- `reading`: a results folder read back (`read_measurements`, `read_run_doc`);
- `environment`: the harness's host and source tree for run.json;
- `hosts`: replica (host) effects of a run with `sampling.replicas` (`host_effects`);
- `writing`: a results folder written (`write_results`).
"""

from .rows import (AA_SUFFIX, LEGS, MEASUREMENT_COLUMNS, SAME_BYTES, SUMMARY_KEYS, lang_of, language_map, measurement_row,
                   measurements_frame, own_rows, round_stats, task_failure_row, writer_tag)
from .cells import (CELL_COLUMNS, aa_groups, cell_key, cells_frame, compressed_sizes, interval_of,
                    language_noise_floors, run_noise_floor)
from .summary import (COMPRESSION_COLUMNS, LEG_FIELDS, SUMMARY_COLUMNS, add_end_to_end, compression_frame,
                      control_memory, extra_medians, summary_frame, transfer_vs_raw_tcp)
from .hosts import HOST_COLUMNS, host_effects
from .reading import read_duets, read_measurements, read_run_doc
from .environment import MEASURING_PATHS, harness_environment, host_memory, source_version, worker_environments
from .writing import write_results

__all__ = [
    "AA_SUFFIX", "LEGS", "MEASUREMENT_COLUMNS", "SAME_BYTES", "SUMMARY_KEYS", "measurement_row", "measurements_frame",
    "own_rows", "round_stats", "task_failure_row", "writer_tag",
    "CELL_COLUMNS", "aa_groups", "cell_key", "cells_frame", "compressed_sizes", "interval_of",
    "language_noise_floors", "run_noise_floor",
    "COMPRESSION_COLUMNS", "LEG_FIELDS", "SUMMARY_COLUMNS", "add_end_to_end", "compression_frame",
    "control_memory", "extra_medians", "lang_of", "language_map", "summary_frame", "transfer_vs_raw_tcp",
    "HOST_COLUMNS", "host_effects",
    "read_duets", "read_measurements", "read_run_doc",
    "MEASURING_PATHS", "harness_environment", "host_memory", "source_version", "worker_environments",
    "write_results",
]
