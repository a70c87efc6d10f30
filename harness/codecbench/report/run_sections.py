"""The run's own sections: the verdict and its leaderboards, the run's facts, where the time went,
the workers' environments, the timed regions they declared, and a user's datasets."""

from __future__ import annotations

import json
from datetime import datetime, timezone

import pandas as pd

from .. import duets, results, stats, timing, userrun
from ..results import lang_of
from ..scenario import DATASETS
from .blocks import Bullets, Heading, Para, TableBlock
from .common import LAZY_FIELDS, _lang_key, network_rows
from .trustline import trust_line


class RunSections:
    """Sections about the run as a whole (mixed into report.builder.Builder)."""

    def overview(self) -> None:
        run, sc = self.run, self.scenario
        title = f"codecbench report · run {self.run_id}" + (f" · {run.get('name')}" if run.get("name") else "")
        self.blocks.append(Heading(1, title, "top"))
        if sc.get("description"):
            self.add(Para(sc["description"]))
        self.verdict()

    def run_facts(self) -> None:
        run, sc = self.run, self.scenario
        self.section("Run", "run")
        status = (run.get("status") or "").removeprefix("RUN_STATUS_").lower() or "unknown"
        ops = [o.removeprefix("OPERATION_").lower() for o in sc.get("operations") or []]
        sampling = sc.get("sampling") or {}
        rows = [
            ("run", self.run_id), ("name", run.get("name", "")), ("status", status),
            ("started", run.get("createdAt", "")), ("finished", run.get("finishedAt", "")),
            ("tasks", f"{run.get('tasksTotal', 0)} total, {run.get('tasksDone', 0)} done, "
                      f"{run.get('tasksFailed', 0)} failed"
                      + (f", {run['tasksSameBytes']} not run: byte-identical payloads, each decoded once per "
                         "consumer" if run.get("tasksSameBytes") else "") if run else ""),
            ("scenario file", self.doc.get("scenarioFile", "")),
            ("datasets", ", ".join(sc.get("datasets") or sorted(set(self.df["dataset"])))),
            ("codecs", ", ".join(sc.get("codecs") or self.codecs)),
            ("decode modes", ", ".join(sc.get("decodeModes") or []) or "every mode the consumer announces"),
            ("record counts", ", ".join(f"{int(c):,}" for c in sc.get("counts") or sorted(set(self.df["record_count"])))),
            ("producers", ", ".join(sc.get("producers") or []) or "every attached worker"),
            ("consumers", ", ".join(sc.get("consumers") or []) or "every attached worker"),
            ("operations", ", ".join(ops) or "encode, decode, transfer"),
            ("sampling", ", ".join(f"{k} {v}" for k, v in sampling.items()) or "control's defaults"),
            ("trial order seed", str(sampling.get("orderSeed", "")) or "not recorded (a run from before trials)"),
            ("figures", stats.METHOD),
            ("noise floor", self.noise.sentence().removeprefix("noise floor: ")),
            ("host run-to-run term", self.calibration.sentence().split(": ", 1)[1] if self.calibration is not None
             else self.calibration_error or "not measured on this host (`codecbench calibrate`)"),
            ("transfer noise floor", self.transfer_noise.sentence(transfer=True).removeprefix("transfer noise floor: ")),
            ("seed", str(sc.get("seed", "1"))),
        ]
        if int(run.get("controlRssStartBytes") or 0):
            rows.append(("control memory", results.control_memory(
                int(run["controlRssStartBytes"]), int(run.get("controlPeakRssBytes") or 0), self.df)))
        if run.get("message"):
            rows.append(("message", run["message"]))
        rows += network_rows(self.doc.get("network") or {})
        h = self.doc.get("harness") or {}
        if h:
            pk = ", ".join(f"{k} {v}" for k, v in (h.get("packages") or {}).items() if v)
            rows.append(("harness", f"python {h.get('python', '')} on {h.get('hostname', '')} "
                                    f"({h.get('platform', '')}); {pk}"))
            if h.get("control"):
                rows.append(("control", h["control"]))
            mem = h.get("hostMemory") or {}
            said = [f"{label}: {mem[key]}" for key, label in (("transparentHugepages", "transparent huge pages"),
                                                               ("damon", "DAMON reclaims")) if key in mem]
            if said:
                rows.append(("host memory", "; ".join(said)))
        rows.append(("report written", datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")))
        self.add(TableBlock(pd.DataFrame([r for r in rows if r[1]], columns=["", "value"]), cls="kv"))

    def verdict(self) -> None:
        """The answer first: the verdict sentences, then one leaderboard per dataset × count
        (leaderboard.py: each language's own round trip, % of best within a column, ties by the
        intervals and the noise floor)."""
        from .. import bundles, leaderboard

        # Browser rows carry the bytes each codec adds to a page, from this build of web/ (bundles.py).
        boards, floors = leaderboard.for_run(self.summary, self.cells, self.langs, self.codecs,
                                             duets.from_results(self.run_dir), bundles.gzip_by_codec())
        if not boards:
            return
        self.section("Verdict", "verdict")
        self.add(Bullets([v for b in boards if (v := leaderboard.verdict(b))]))
        # The caveats stand next to the verdict, not screens below it (issue 31).
        self.trust_line = trust_line(self.cells, floors, self.doc)
        self.add(Para(self.trust_line.sentence(), "trust"))
        groups: dict[tuple, list] = {}
        for b in boards:
            groups.setdefault((b.dataset, b.record_count), []).append(b)
        for (ds, n), bs in groups.items():
            columns = [c for c in leaderboard.COLUMNS if any(c in b.columns for b in bs)]
            rows, classes = [], []
            for b in bs:
                for codec in b.codecs:
                    entries = [b.columns.get(c, {}).get(codec) for c in columns]
                    if all(e is None for e in entries):
                        continue
                    row = [b.language, codec] + [leaderboard.cell_text(c, e) if e is not None else "—"
                                                 for c, e in zip(columns, entries)]
                    cls = ["", ""] + ["best" if e is not None and e.best and not e.tie else "" for e in entries]
                    rows.append(row)
                    classes.append(cls)
            names = ["language", "codec"] + [c if c in leaderboard.SIZE_COLUMNS else f"{c} /rec" for c in columns]
            self.add(TableBlock(pd.DataFrame(rows, columns=names),
                                caption=f"{ds} × {n:,} records: each language's own round trip (its "
                                        "own payload where it produced one), per record",
                                classes=pd.DataFrame(classes, columns=names), left=2))
        each = ", ".join(f"{lang} ≤ {nf.worst_pct:.1f} %" for lang, nf in sorted(floors.items()))
        self.add(Para("★ best beyond the intervals and its language's noise floor"
                      + (f" ({each}: identical work measured by that language's workers)" if each else "")
                      + "; = not told apart from the best (the intervals overlap or the ratio is within that floor; end to "
                      "end also within the transfer floor); % of the best in its column only: "
                      "languages, operations and decode modes are never pooled"
                      + (f"; {leaderboard.E2E_LEGEND}" if any("end to end" in b.columns for b in boards) else "")
                      + ". The full tables follow, by dataset.", cls="note"))

    def time_spent(self) -> None:
        """Where the run's wall time went (timing.py): every phase's seconds and share, and the mean
        task's seconds per language."""
        b = self.doc.get("timeBreakdown")
        if not b:
            return
        self.section("Where the time went", "time")
        est = self.doc.get("estimate") or {}
        estimated = est.get("seconds") if est.get("tasks") and not est.get("tasksWithoutHistory") else None
        self.add(Para(f"{timing.sentence(b, estimated).removeprefix('time: ')}. Phases are measured by the workers and "
                      "control for every task (proto/README.md, \"Where the time goes\"); start/exit is a fresh "
                      "trial process's cost beyond what it measured of itself, idle is wall time when no task ran."))
        langs = list(b.get("byLanguage") or {})
        rows = []
        for phase in timing.PHASES:
            row = {"phase": phase, "seconds": f"{b['seconds'][phase]:,.1f}", "share": f"{b['shares'][phase]:.1%}"}
            for lang in langs:
                mean = b["byLanguage"][lang]["meanTaskSeconds"].get(phase)
                row[f"{lang} ms/task"] = "" if mean is None else f"{mean * 1e3:,.0f}"
            rows.append(row)
        self.add(TableBlock(pd.DataFrame(rows)))

    def worker_envs(self) -> dict[str, dict]:
        envs: dict[str, dict] = {}
        for wid, env in (self.doc.get("workers") or {}).items():
            envs[wid] = {"language": env.get("language", ""), "runtime": env.get("runtime", ""),
                         "runtimeVersion": env.get("runtimeVersion", ""),
                         "buildProfile": env.get("buildProfile", ""), "cpuModel": env.get("cpuModel", ""),
                         "cores": env.get("cores", ""), "os": env.get("os", ""),
                         "hostname": env.get("hostname", ""), "details": env.get("details") or {}}
        for _, r in self.df.drop_duplicates("worker_id").iterrows():
            wid = r["worker_id"]
            if not wid or wid in envs or not (r["language"] or r["runtime"]):
                continue
            try:
                details = json.loads(r["environment_details"] or "{}")
            except ValueError:
                details = {}
            envs[wid] = {"language": r["language"], "runtime": r["runtime"],
                         "runtimeVersion": r["runtime_version"], "buildProfile": r["build_profile"],
                         "cpuModel": r["cpu_model"], "cores": r["cores"], "os": r["os"],
                         "hostname": r["hostname"], "details": details}
        return dict(sorted(envs.items(), key=lambda kv: (_lang_key(kv[1]["language"]), kv[0])))

    def environment(self) -> None:
        self.section("Environment of every worker", "environment")
        rows = []
        for wid, env in self.worker_envs().items():
            details = "\n".join(f"{k} = {v}" for k, v in sorted(env["details"].items()))
            rows.append([wid, env["language"], f"{env['runtime']} {env['runtimeVersion']}".strip(),
                         env["buildProfile"], env["cpuModel"], str(env["cores"] or ""), env["os"],
                         env["hostname"], details])
        if not rows:
            self.add(Para("No worker reported an environment."))
            return
        self.add(TableBlock(pd.DataFrame(rows, columns=["worker", "language", "runtime", "build profile",
                                                        "CPU", "cores", "OS", "host",
                                                        "details (flags, GC, user agent, libraries…)"]),
                            caption="As each worker announced it (DESIGN.md rule 8).", cls="kv", left=9))

    def boundaries(self) -> None:
        """Codec × language: what each timed region contains, as the workers declared it
        (CodecInfo.timed_regions of the workers attached when the run started)."""
        self.section("Timed regions: what each codec's clock reads include", "boundaries")
        infos = self.doc.get("workerInfo") or []
        regions: dict[tuple[str, str], dict[str, str]] = {}
        for w in infos:
            lang = (w.get("environment") or {}).get("language") or lang_of(w.get("id", ""), self.langs)
            for c in w.get("codecs") or []:
                if c.get("id") not in self.codecs:
                    continue
                for tr in c.get("timedRegions") or []:
                    text = ", ".join(tr.get("contains") or []) or "(nothing declared)"
                    if tr.get("note"):
                        text += f" — {tr['note']}"
                    regions.setdefault((c["id"], tr.get("operation", "")), {})[lang] = text
        if not regions:
            self.add(Para("Not recorded: this run's results hold no workers' codec declarations "
                          "(run.json has no workerInfo; runs from before the declared boundary, or "
                          "fetched from a control that did not return them).", "warn"))
            return
        langs = sorted({lang for v in regions.values() for lang in v}, key=_lang_key)
        op_order = {"encode": 0, "typed": 1, "tree": 2, "lazy": 3}
        rows = []
        for (codec, op) in sorted(regions, key=lambda k: (self.codecs.index(k[0]) if k[0] in self.codecs
                                                          else 99, op_order.get(k[1], 9), k[1])):
            what = "encode" if op == "encode" else f"decode {op}"
            rows.append([codec, what] + [regions[(codec, op)].get(lang, "—") for lang in langs])
        self.add(TableBlock(pd.DataFrame(rows, columns=["codec", "timed region"] + langs), left=2 + len(langs),
                            caption="As each worker declared it (CodecInfo.timed_regions): serialize/parse = "
                                    "the library's format work; utf8 = UTF-8 text coding; model-conversion = "
                                    "between the library's message/document type and the application's "
                                    "objects; validation = checks beyond parsing; copy = a copy of the whole "
                                    "payload; field-lookup = finding the named fields (lazy)."))
        lazy = dict(LAZY_FIELDS, **{u["id"]: tuple(u.get("lazyFields") or ()) for u in self.scenario.get("userDatasets") or []})
        used = [ds for ds in [*DATASETS, *sorted(set(lazy) - set(DATASETS))] if ds in set(self.df["dataset"])]
        if "lazy" in set(self.df["decode_mode"]):
            self.add(Para("Lazy decode reads, from every record, one field near its start and one at its "
                          "end, the same in every language: " + "; ".join(
                              f"{ds}: {', '.join(lazy[ds])}" for ds in used if lazy.get(ds)) + "."))

    def user_datasets(self) -> None:
        """Where a user's datasets came from, and every cell the plan refused (Run.refusals)."""
        users = self.scenario.get("userDatasets") or []
        refused = self.run.get("refusals") or []
        if not users and not refused:
            return
        self.section("Datasets of your own, and refused cells", "user-datasets")
        if users:
            counts = [int(c) for c in self.scenario.get("counts") or []]
            rows = []
            for u in users:
                n = int(u.get("recordCount") or 0)
                cycled = [c for c in counts if c > n]
                rows.append([u["id"], u.get("message", ""), u.get("proto", ""), u.get("records", ""), f"{n:,}",
                             "the .proto's" if u.get("fieldNames") == "proto" else "json_name",
                             ", ".join(f"{c:,}" for c in cycled) or "none", u.get("fingerprint", "")])
            self.add(TableBlock(pd.DataFrame(rows, columns=["dataset", "message", "schema", "records", "in file",
                                                            "field names", "counts that cycle", "fingerprint"]),
                                left=8, caption="A count larger than its file cycles through the file's records."))
        if refused:
            self.add(TableBlock(pd.DataFrame([[d, c, m or "every mode", ", ".join(who), why]
                                              for d, c, m, why, who in userrun.refusal_groups(refused)],
                                             columns=["dataset", "codec", "mode", "refused by", "why"]), left=5,
                                caption="Cells the plan left out because a worker cannot carry a feature of the "
                                        "schema: never dropped silently, never measured."))
