"""A run's plan before it starts: `run --plan` (how many tasks, how long on this host) and the
budget every run with `sampling.maxSeconds` gets first (issue 35): the estimate set against the
budget and said up front. A plan over its budget is built to fit it: the most trials a cell whose
estimate fits replace sampling.trials (and maxTrials: the budget is spent), and the run says so;
when not even MIN_TRIALS fit, the run is refused with what would fit. `run --no-fit` runs the plan
as written, with the warning (control still stops adding adaptive trials once the budget is
spent). Without history on this host there is no estimate, and nothing is changed."""

from __future__ import annotations

from google.protobuf import json_format

from .. import estimate, results, samebytes, timing
from ..client import Control
from ..pb import hs
from ..scenario import EXIT_INVALID
from .base import CliError, err

# Fewer trials than this give no interval worth the name (3: min..max, 60 % coverage).
MIN_TRIALS = 3


def planned(control: Control, scenario, source: str) -> tuple:
    """(run, tasks) as control would plan them now (StartRunRequest.plan_only): nothing starts."""
    run, tasks = None, []
    for resp in control.harness.StartRun(hs.StartRunRequest(scenario=scenario, source=source, plan_only=True)):
        ev = resp.event
        if ev.HasField("run"):
            run = ev.run
        elif ev.HasField("task"):
            tasks.append(ev.task)
    return run, tasks


def estimate_for(doc: dict, tasks: list[dict], langs: dict[str, str], results_dir, exclude: str = "") -> dict:
    """estimate.estimate of a run (run.json form) from the earlier runs in `results_dir`, without
    the tasks control will not run because their payloads are byte-identical (samebytes.py)."""
    scenario = doc.get("scenario") or {}
    lanes = timing.lanes(doc)
    past = estimate.history(results_dir, scenario.get("sampling") or {}, exclude=exclude, lanes=lanes)
    language_of = lambda w: results.lang_of(w, langs)  # noqa: E731
    skipped = samebytes.predicted(tasks, language_of, scenario)
    return estimate.estimate([t for t in tasks if t.get("id") not in skipped], language_of, scenario, past, lanes=lanes)


def fitting_trials(doc: dict, tasks: list[dict], langs: dict[str, str], results_dir, budget_s: float) -> tuple[int, dict] | None:
    """The most trials a cell (at least MIN_TRIALS) with which the plan's estimate fits `budget_s`,
    and that estimate; None when not even MIN_TRIALS fit."""
    most = max((int(t.get("trial") or 0) for t in tasks if not t.get("prepare")), default=0) + 1
    for k in range(most, MIN_TRIALS - 1, -1):
        fewer = [t for t in tasks if t.get("prepare") or int(t.get("trial") or 0) < k]
        est = estimate_for(doc, fewer, langs, results_dir)
        if est["tasks"] and est["seconds"] <= budget_s:
            return k, est
    return None


def describe(doc: dict, tasks: list[dict], langs: dict[str, str]) -> str:
    """What the plan holds: tasks per language, prepare tasks, cells and trials a cell."""
    prepare = sum(1 for t in tasks if t.get("prepare"))
    cells = {t.get("cellId") for t in tasks if not t.get("prepare")}
    per: dict[str, int] = {}
    for t in tasks:
        lang = results.lang_of(timing.task_worker(t), langs)
        per[lang] = per.get(lang, 0) + 1
    sampling = (doc.get("scenario") or {}).get("sampling") or {}
    trials = f"{sampling.get('trials', '?')} trials a cell" + (
        f", up to {sampling['maxTrials']}" if int(sampling.get("maxTrials") or 0) > int(sampling.get("trials") or 0) else "")
    langs_text = ", ".join(f"{lang} {n}" for lang, n in sorted(per.items()))
    skipped = samebytes.predicted(tasks, lambda w: results.lang_of(w, langs), doc.get("scenario") or {})
    same = (f"; about {len(skipped)} will not run: their payloads are byte-identical to one each consumer "
            "decodes anyway (sampling.repeatSameBytes)") if skipped else ""
    return (f"{len(tasks)} tasks: {prepare} prepare, {len(tasks) - prepare} trials of {len(cells)} cells "
            f"({trials}); by language: {langs_text}; {timing.lanes(doc)} at once{same}")


def check_budget(control: Control, scenario, source: str, results_dir, say=err, fit: bool = True):
    """Before a run with `sampling.maxSeconds` starts: its plan's estimate against the budget. Returns
    the scenario to run: as given, or (over budget, `fit`) with the trials that fit. Raises
    CliError (exit 2) when not even MIN_TRIALS a cell fit and `fit` is on."""
    budget = int(scenario.sampling.max_seconds or 0)
    if budget <= 0:
        return scenario
    run, tasks, langs = _plan_docs(control, scenario, source)
    est = estimate_for(run, tasks, langs, results_dir)
    if not est["tasks"]:
        say(f"budget: sampling.maxSeconds {timing.duration(budget)}: no estimate on this host yet, so not checked")
        return scenario
    if est["seconds"] <= budget:
        say(f"budget: {fits(est, budget)}")
        return scenario
    if not fit:
        say(f"budget: {over_budget(run, tasks, langs, results_dir, est, budget)}; run as written (--no-fit): "
            "control stops adding adaptive trials once it is spent")
        return scenario
    found = fitting_trials(run, tasks, langs, results_dir, budget)
    if found is None:
        raise CliError(f"{source}: {over_budget(run, tasks, langs, results_dir, est, budget)} "
                       "(or run it as written with --no-fit)", EXIT_INVALID)
    k, fitted = found
    out = type(scenario)()
    out.CopyFrom(scenario)
    out.sampling.trials = k
    out.sampling.max_trials = k
    say(f"budget: the plan as written is estimated at {timing.duration(est['seconds'])}, over sampling.maxSeconds "
        f"{timing.duration(budget)}: built to fit with sampling.trials {k} (was {scenario.sampling.trials}"
        + (f", up to {scenario.sampling.max_trials}" if scenario.sampling.max_trials > scenario.sampling.trials else "")
        + f"), {fits(fitted, budget)}; --no-fit runs it as written")
    return out


def fits(est: dict, budget: int) -> str:
    """An estimate within the budget, said as what it is: a lower bound when some tasks have no
    history on this host (estimate.py leaves them out rather than guess)."""
    missing = est["tasksWithoutHistory"]
    bound = f", a lower bound: {missing} tasks have no history here" if missing else ""
    return f"estimated {timing.duration(est['seconds'])} of sampling.maxSeconds {timing.duration(budget)}{bound}"


def over_budget(run: dict, tasks: list[dict], langs: dict[str, str], results_dir, est: dict, budget: int) -> str:
    fit = fitting_trials(run, tasks, langs, results_dir, budget)
    hint = (f"with sampling.trials {fit[0]} it would take about {timing.duration(fit[1]['seconds'])}"
            if fit else f"not even {MIN_TRIALS} trials a cell fit: name fewer datasets, counts, codecs or workers")
    # Tasks without history only add time: an estimate of the others already over is over.
    return (f"the plan is estimated at {'at least ' if est['tasksWithoutHistory'] else ''}"
            f"{timing.duration(est['seconds'])}, over sampling.maxSeconds "
            f"({timing.duration(budget)}): {hint}, or raise the budget")


def _plan_docs(control: Control, scenario, source: str) -> tuple[dict, list[dict], dict[str, str]]:
    run, tasks = planned(control, scenario, source)
    if run is None:
        raise CliError(f"{source}: control answered the plan with no run")
    langs = {w.id: w.environment.language for w in control.list_workers()}
    return (json_format.MessageToDict(run), [json_format.MessageToDict(t) for t in tasks], langs)


def plan_run(control: Control, scenario, source: str, results_dir, out=print) -> int:
    """`run --plan`: the plan and its estimate on this host, set against the budget; starts nothing."""
    run, tasks, langs = _plan_docs(control, scenario, source)
    out(f"plan: {describe(run, tasks, langs)}")
    est = estimate_for(run, tasks, langs, results_dir)
    out(estimate.sentence(est, len(tasks)))
    budget = int(scenario.sampling.max_seconds or 0)
    if budget > 0 and est["tasks"]:
        out("budget: " + (fits(est, budget) if est["seconds"] <= budget else
                          over_budget(run, tasks, langs, results_dir, est, budget)))
    return 0
