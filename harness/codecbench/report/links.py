"""The report's "Link model" section (linkmodel.py): what a message would cost on a stated link,
predicted from this run's encode, decode and bytes, labelled as a model; and, for a run measured
on a shaped link, the model beside the legs the run timed. Also the label that says what the
measured end to end is: through control, over this transport, on this link."""

from __future__ import annotations

from .. import linkmodel
from .blocks import Para, TableBlock


def measured_path(doc: dict) -> str:
    """What the run's end to end went through: control's blob store, over gRPC (gRPC-web from the
    browser), on the run's network."""
    net = (doc or {}).get("network") or {}
    where = "this host's loopback" if net.get("profile") in (None, "", "loopback") else \
        (net.get("describe") or net["profile"])
    return (f"measured through control's blob store, over gRPC (gRPC-web from a browser), on {where}: "
            "this deployment's figure, not your link's (the Link model section predicts that)")


class LinkSections:
    """Mixin of the report builder (builder.py): self.summary, self.doc, self.section, self.add."""

    def link_model(self) -> None:
        own = linkmodel.run_link(self.doc)
        lks = [own] if own else [linkmodel.link(p) for p in linkmodel.STANDARD]
        preds = {lk.name: linkmodel.predict(self.summary, lk) for lk in lks}
        if all(p.empty for p in preds.values()):
            return
        self.section("Link model: latency and messages per second on a stated link", "link-model")
        self.add(Para(linkmodel.NOTE + (f" Link: this run's own, {own.describe()}." if own else
                                        " Links: " + "; ".join(lk.describe() for lk in lks) + ".")
                      + " `codecbench link RUN --profile NAME` (or --down/--up/--rtt, --compression gzip) "
                        "models any other.", "warn"))
        self.add(TableBlock(linkmodel.prediction_table(preds), left=4,
                            caption="Predicted per message (raw bytes): latency with the interval its encode "
                                    "and decode carry, and messages per second with what limits them."))
        chk = linkmodel.check(self.summary, self.doc)
        if chk.empty:
            return
        self.add(Para(f"Against this run: {linkmodel.check_sentence(chk)}."))
        self.add(TableBlock(linkmodel.check_table(chk), left=4,
                            caption="The model against the legs this run timed, per payload."))
