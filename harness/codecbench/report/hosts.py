"""The report's "Host effects" section: for a run whose trials were spread over replicas
(sampling.replicas, docs/DESIGN.md "Hosts"), each replica's host and the factor taken out of its
trials (results/hosts.py)."""

from __future__ import annotations

import pandas as pd

from .. import results
from ..results import hosts
from .blocks import Para, TableBlock


class HostSections:
    """Mixin of the report builder (builder.py): self.df, self.section, self.add."""

    def host_effects(self) -> None:
        effects = results.host_effects(self.df)
        replicas = self.df.groupby("cell_id")["worker_id"].nunique() if "worker_id" in self.df and not self.df.empty else pd.Series(dtype=int)
        if effects.empty and not (replicas > 1).any():
            return
        self.section("Host effects: trials spread over replicas", "hosts")
        if effects.empty:
            self.add(Para("This run spread cells' trials over replicas, but too few cells (fewer than 6 per "
                          "language and operation, each with at least 3 trials) to estimate a replica's "
                          "effect: every cell's figure is the plain median of its trials, wherever they ran.",
                          "warn"))
            return
        worst = float(max(effects["factor"].max(), 1 / effects["factor"].min()))
        self.add(Para("Each cell's trials ran on several replicas of its worker (one per host). A replica "
                      "on a slower host makes every trial it ran slower, so its effect was estimated from "
                      "the cells spread over the replicas, as the pass effect is, and divided out of its "
                      "trials before each cell's median; the intervals keep it. A factor of 1.05 means that "
                      f"host's trials ran 5 % slower than the median host's. Largest here: ×{worst:.3f}. "
                      + "; ".join(hosts.describe(effects)) + "."))
        rows = [[r.language, r.operation + (f" ({r.compression})" if r.compression else ""), r.worker_id,
                 r.hostname or "—", f"×{r.factor:.3f}", str(int(r.cells)), str(int(r.trials))]
                for r in effects.itertuples()]
        cols = ["language", "operation", "replica", "host", "factor", "cells", "trials"]
        self.add(TableBlock(pd.DataFrame(rows, columns=cols), left=4))
