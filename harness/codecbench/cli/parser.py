"""The argument parser and the entry point `main` (pyproject's `codecbench`)."""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

import grpc

from .. import catalogue, netlab, processes, userrun
from ..client import ControlUnreachable
from ..processes import LaunchError
from ..scenario import EXIT_INVALID, ScenarioError
from .base import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, CliError, err, exit_codes_text
from .stack import LANES_HELP, cmd_browser, cmd_down, cmd_up
from .reading import cmd_codecs, cmd_datasets, cmd_gc, cmd_report, cmd_runs, cmd_workers
from .comparing import cmd_calibrate, cmd_compare
from .link import cmd_link
from .scenarios import cmd_schema, cmd_validate
from .running import cmd_run


# ---- entry --------------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits 64 (EXIT_USAGE), not 2 (an invalid scenario)."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("codecbench")
    except PackageNotFoundError:
        return "unknown (not installed)"


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog="codecbench", description="codecbench: a polyglot codec benchmark",
                epilog=exit_codes_text(), formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=f"codecbench {_version()}")
    p.add_argument("--control", metavar="ADDR",
                   help="control address (default: $CODECBENCH_CONTROL, the control started by "
                        f"`codecbench up`, else {processes.DEFAULT_LISTEN})")
    p.add_argument("--token-file", metavar="FILE",
                   help="a file holding control's token (default: $CODECBENCH_TOKEN_FILE, else the token "
                        "in $CODECBENCH_TOKEN, else none); a control started here requires it, and the "
                        "workers started here send it")
    sub = p.add_subparsers(dest="cmd", required=True, metavar="COMMAND", parser_class=_Parser)

    up = sub.add_parser("up", help="start control and workers in the background (state in .state/)")
    up.add_argument("--listen", help="address for control (default $CODECBENCH_LISTEN or 127.0.0.1:7600)")
    up.add_argument("--browsers", type=int, default=1, help="browser workers to start (default 1)")
    up.add_argument("--workers", metavar="KINDS",
                    help="comma-separated kinds to start (rust,java,browser; default: every kind that is built)")
    up.add_argument("--timeout", type=float, default=90, help="seconds to wait for workers (default 90)")
    up.add_argument("--lanes", type=int, metavar="N", help=LANES_HELP)
    up.set_defaults(fn=cmd_up)

    down = sub.add_parser("down", help="stop what `up` and `browser` started (a `run --local` stops its own)")
    down.set_defaults(fn=cmd_down)

    br = sub.add_parser("browser", help="open headless browser workers against a running control")
    br.add_argument("--count", type=int, default=1, help="browser workers (pages) to open (default 1)")
    br.add_argument("--timeout", type=float, default=90, help="seconds to wait for them to attach (default 90)")
    br.set_defaults(fn=cmd_browser)

    run = sub.add_parser("run", help="run a scenario and print its results")
    run.add_argument("scenario", help="scenario YAML file")
    run.add_argument("--local", action="store_true",
                     help="start control and workers for this run and stop them afterwards")
    run.add_argument("--browsers", type=int, default=1, help="with --local: browser workers (default 1)")
    run.add_argument("--lanes", type=int, metavar="N", help="with --local: " + LANES_HELP)
    run.add_argument("--json", action="store_true", help="print the run as JSON instead of a table")
    run.add_argument("--all", action="store_true",
                     help="print every producer → consumer row before the leaderboards (default: the "
                          "leaderboards and verdict only; every row is in summary.csv and the report)")
    run.add_argument("--results-dir", help="where results/<run-id>/ goes (default: results/ in the repo)")
    run.add_argument("--wait-workers", type=float, default=None, metavar="S",
                     help="seconds to wait for the scenario's workers to attach (default: 60 with --local, "
                          "else 0: a worker that is not attached is an error at once)")
    run.add_argument("--no-progress", action="store_true", help="no progress bar")
    run.add_argument("--no-report", action="store_true", help="do not write report.html/report.md")
    run.add_argument("--no-fit", action="store_true",
                     help="run the plan as written even when this host's estimate is over sampling.maxSeconds "
                          "(default: fewer trials a cell, the most that fit, said up front)")
    run.add_argument("--plan", action="store_true",
                     help="only plan: print the tasks and how long they would take on this host (from earlier "
                          "runs in the results folder), set against sampling.maxSeconds; nothing runs")
    run.add_argument("--counts", metavar="N,N,...", help="replace the scenario's record counts")
    run.add_argument("--datasets", metavar="ID,...", help="run only these of the scenario's datasets")
    run.add_argument("--codecs", metavar="ID,...", help="run only these of the scenario's codecs")
    run.add_argument("--languages", metavar="LANG,...",
                     help=f"run only these languages ({', '.join(catalogue.LANGUAGES)}) of the scenario's producers and consumers")
    mine = run.add_argument_group("a dataset of your own, for a quick look (replaces the scenario's datasets)")
    mine.add_argument("--proto", metavar="FILE", help="a .proto file or a descriptor set")
    mine.add_argument("--message", metavar="NAME", help="the record message's full name, e.g. acme.shop.v1.Order")
    mine.add_argument("--records", metavar="FILE", help="NDJSON or a JSON array in the proto3 JSON mapping")
    mine.add_argument("--id", help="the dataset's id (default: from the records file's name)")
    mine.add_argument("--proto-path", metavar="DIR", action="append", default=[], help="more import roots")
    mine.add_argument("--field-names", choices=userrun.FIELD_NAMES, default="json",
                      help="names in self-describing payloads: each field's json_name (default) or the .proto's")
    run.add_argument("--rounds", type=int, help="replace sampling.rounds")
    run.add_argument("--warmup-ms", type=int, help="replace sampling.warmupMs")
    run.add_argument("--min-round-ms", type=int, help="replace sampling.minRoundMs")
    run.add_argument("--trials", type=int, help="replace sampling.trials, and maxTrials with the same "
                                               "number (no adaptive trials)")
    run.add_argument("--max-warmup-ms", type=int, help="replace sampling.maxWarmupMs")
    run.add_argument("--network", metavar="PROFILE", choices=list(netlab.PROFILES),
                     help="with --local: workers as separate hosts on links shaped by PROFILE "
                          f"({', '.join(netlab.PROFILES)}; replaces the scenario's network)")
    run.set_defaults(fn=cmd_run)

    rep = sub.add_parser("report", help="write report.html (self-contained), report.md and plots/ for a run",
                         description="Write results/<run>/report.html (one self-contained file: inline "
                                     "CSS, plots embedded as PNG data URIs), report.md and plots/*.png. "
                                     "RUN is a run id (read from results/<run>/, else fetched from "
                                     "control) or a results folder.")
    rep.add_argument("run", metavar="RUN", help="a run id (results/<run>/, else fetched from control) or a results folder")
    rep.add_argument("--out", metavar="DIR", help="where to write (default: the run's results folder)")
    rep.add_argument("--format", choices=("html", "md", "csv", "json"), default="html",
                     help="html (default): write report.html, report.md and plots/; md, csv or json: print "
                          "the verdict, the leaderboards and every row to stdout, for a PR or a wiki")
    rep.add_argument("--results-dir", help="where results/<run-id>/ are (default: results/ in the repo)")
    rep.set_defaults(fn=cmd_report)

    from ..compare import RULE
    cmpp = sub.add_parser(
        "compare", help="compare two runs: ratio of medians B/A per matching measurement, exit 1 if slower",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Match the measurements of two runs by dataset, codec, decode mode, operation, "
                    "record count, producer language and consumer language (several workers of one "
                    "language: trials pooled) and print the ratio of the medians over trials B/A, "
                    "each with its 95 % interval, with a verdict; both runs' noise floors are "
                    "printed and count in the verdict.\n\n"
                    "Rule: " + RULE + "\n\nExit codes: 0 nothing slower; 1 something slower beyond "
                    "the threshold, the intervals and the noise floors, or newly failing; 3 the runs "
                    "were measured under different conditions, or have nothing in common; 4 a run "
                    "not found; 64 a bad argument.\n"
                    "RUN is a run id (results/<run>/measurements.parquet or .csv, else GetRun from "
                    "control) or a results folder.")
    cmpp.add_argument("run_a", metavar="RUN_A", help="the baseline")
    cmpp.add_argument("run_b", metavar="RUN_B", help="the candidate")
    cmpp.add_argument("--threshold", type=float, default=1.10,
                      help="ratio beyond which a change counts, if the intervals do not overlap and it "
                           "exceeds both runs' noise floors (default 1.10)")
    cmpp.add_argument("--all", action="store_true", help="also list measurements without a significant change")
    cmpp.add_argument("--allow-mismatch", action="store_true",
                      help="compare runs measured under different conditions (sampling, workers, runtime, "
                           "build profile, host), saying so first (without it: exit 3)")
    cmpp.add_argument("--json", action="store_true", help="print the comparison as JSON")
    cmpp.add_argument("--results-dir", help="where results/<run-id>/ are (default: results/ in the repo)")
    cmpp.set_defaults(fn=cmd_compare)

    lnk = sub.add_parser(
        "link", help="the link model: predicted latency and messages/s per codec on a stated link, from a run",
        description="Predict, from a run's measured encode and typed decode and its raw or compressed "
                    "bytes, what one message would cost on a link: latency = encode + one round trip + "
                    "the wire bytes at the downlink's rate + decode, and messages per second = the "
                    "slowest of encode, decode and the link (pipelined). A model, not a measurement. "
                    "Links: --profile (lan, wifi, 4g, 3g; repeatable) or --down/--up/--rtt; default: "
                    "the run's own shaped link, else all four. A run measured on a shaped link also "
                    "gets the model checked against its measured upload and download legs. "
                    "RUN is a run id or a results folder.")
    lnk.add_argument("run", metavar="RUN", help="a run id (results/<run>/, else fetched from control) or a results folder")
    lnk.add_argument("--profile", action="append", metavar="NAME",
                     help=f"a network profile to model ({', '.join(netlab.PROFILES)}; repeatable); with "
                          "--down/--up/--rtt, the profile those override")
    lnk.add_argument("--down", type=float, metavar="MBIT", help="downlink rate in Mbit/s (a custom link)")
    lnk.add_argument("--up", type=float, metavar="MBIT", help="uplink rate in Mbit/s (default: the downlink's)")
    lnk.add_argument("--rtt", type=float, metavar="MS", help="round trip time in ms (default 0, or the profile's)")
    lnk.add_argument("--compression", default="identity", metavar="C",
                     help="wire bytes: identity (default), gzip or zstd (control's whole-payload sizes)")
    lnk.add_argument("--json", action="store_true", help="print the predictions (and the check) as JSON")
    lnk.add_argument("--results-dir", help="where results/<run-id>/ are (default: results/ in the repo)")
    lnk.set_defaults(fn=cmd_link)

    cal = sub.add_parser(
        "calibrate", help="measure this host's run-to-run term from scenarios run twice or more, unchanged",
        description="Every scenario run at least twice unchanged on this host (same file, same measuring code"
                    ") tells how far a whole run's cells move from run to run, beyond what "
                    "its trials saw. calibrate measures that per language and operation and writes "
                    "results/calibration.json; report and compare then give each cell a host "
                    "interval (its rerun interval widened by the term). Method: "
                    "harness/codecbench/calibration.py.")
    cal.add_argument("runs", nargs="*", metavar="RUN",
                     help="runs to use (default: every finished run in the results folder from the newest run's host)")
    cal.add_argument("--json", action="store_true", help="print the measured terms as JSON")
    cal.add_argument("--results-dir", help="where results/<run-id>/ are and calibration.json is written")
    cal.set_defaults(fn=cmd_calibrate)

    val = sub.add_parser("validate", help="check scenario files without running them (exit 2 if any is invalid)",
                         description="Check scenario files without control: every key and value, then the "
                                     "codecs against codecs/catalogue.yaml (with the closest names for a "
                                     "misspelt one) and the decode modes against what each codec offers in "
                                     "the selected consumers' languages. Notes say which cells will not be "
                                     "planned. Exit 2 if any file is invalid.")
    val.add_argument("scenario", nargs="+", help="scenario YAML files")
    val.add_argument("--catalogue", metavar="PATH", help="the codec catalogue (default codecs/catalogue.yaml)")
    val.set_defaults(fn=cmd_validate)

    sch = sub.add_parser("schema", help="print the JSON Schema of scenario files, generated from the proto "
                                        "(harness/README.md: how editors use it)")
    sch.add_argument("--write", action="store_true",
                     help="write it to harness/scenario.schema.json (the copy editors point at) instead")
    sch.set_defaults(fn=cmd_schema)

    sp = sub.add_parser("workers", help="list attached workers")
    sp.add_argument("--json", action="store_true", help="print the workers as JSON")
    sp.set_defaults(fn=cmd_workers)

    gc = sub.add_parser("gc", help="remove stored payloads and canonical data that no active run needs "
                                   "(results stay; control's blob store has a quota)")
    gc.add_argument("--dry-run", action="store_true", help="only count what would be removed")
    gc.add_argument("--json", action="store_true", help="print the counts as JSON")
    gc.set_defaults(fn=cmd_gc)

    cod = sub.add_parser("codecs", help="the codec × language matrix of attached workers, checked "
                                        "against codecs/catalogue.yaml")
    cod.add_argument("--json", action="store_true", help="print the matrix, its problems and every offer as JSON")
    cod.add_argument("--catalogue", metavar="PATH", help="the catalogue (default codecs/catalogue.yaml)")
    cod.add_argument("--by-worker", action="store_true", help="also list every worker's announcement")
    cod.add_argument("--check", action="store_true",
                     help="exit 1 when an announcement and the catalogue disagree")
    cod.set_defaults(fn=cmd_codecs)

    dsp = sub.add_parser("datasets", help="every dataset: its message, fields, lazy fields, bytes per record "
                                          "in JSON and protobuf, and schema fingerprint (no control needed)")
    dsp.add_argument("--json", action="store_true", help="print the datasets as JSON")
    dsp.add_argument("--proto", metavar="FILE", help="your own schema: a .proto (imports from its folder and "
                     "--proto-path) or a descriptor set (buf build -o x.binpb)")
    dsp.add_argument("--proto-path", metavar="DIR", action="append", default=[], help="more import roots")
    dsp.add_argument("--message", metavar="NAME", help="the record message's full name (acme.shop.v1.Order)")
    dsp.add_argument("--records", metavar="FILE", help="NDJSON or a JSON array in the proto3 JSON mapping")
    dsp.add_argument("--id", help="the dataset's id (default: the records file's name)")
    dsp.add_argument("--write-vectors", action="store_true",
                     help="write the fingerprints into codecs/vectors/fingerprints.json (every language's tests read it)")
    dsp.set_defaults(fn=cmd_datasets)

    runs = sub.add_parser("runs", help="list runs (control's, the results folder's and the kept --local runs'); "
                                       "`runs show RUN_ID` prints one")
    runs.add_argument("--json", action="store_true", help="print the runs as JSON")
    runs.add_argument("--limit", type=int, default=50, help="at most this many, newest first (default 50)")
    runs.add_argument("--results-dir", help="where results/<run-id>/ are (default: results/ in the repo)")
    runs.set_defaults(fn=cmd_runs, runs_cmd=None)
    runs_sub = runs.add_subparsers(dest="runs_cmd", metavar="show")
    show = runs_sub.add_parser("show", help="print a stored run: from its results folder, else from control "
                                            "(then its result files are written)")
    show.add_argument("run_id", metavar="RUN_ID", help="a run id, or a results folder")
    show.add_argument("--json", action="store_true", help="print the run and its answer as JSON")
    show.add_argument("--all", action="store_true", help="print every producer → consumer row too")
    show.add_argument("--results-dir", help="where results/<run-id>/ are (default: results/ in the repo)")
    return p


def _terminate(signum, frame):
    # SIGTERM (a CI timeout, `kill`): unwind like Ctrl-C's second half, so that `run --local`
    # still stops the processes it started.
    raise SystemExit(128 + signum)


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.token_file:
        # Read by connect() and inherited by control and the workers this command starts.
        os.environ["CODECBENCH_TOKEN_FILE"] = os.path.abspath(args.token_file)
    previous = None
    if threading.current_thread() is threading.main_thread():
        previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        return args.fn(args)
    except ScenarioError as exc:
        err(str(exc))
        return EXIT_INVALID
    except CliError as exc:
        err(str(exc))
        return exc.code
    except ControlUnreachable as exc:
        err(str(exc))
        return EXIT_FAILED
    except LaunchError as exc:
        err(str(exc))
        return EXIT_FAILED
    except grpc.RpcError as exc:
        err(f"control answered {exc.code().name}: {exc.details()}")
        return EXIT_FAILED
    except KeyboardInterrupt:
        err("interrupted")
        return EXIT_INTERRUPTED
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
