"""samebytes.predicted: which planned decode tasks control will not run, from the golden vectors."""
from __future__ import annotations

from codecbench import samebytes


def task(i, producer, consumer, codec="bson", dataset="owners", **kw):
    return {"id": f"t{i}", "cellId": f"decode/{dataset}/1000/{codec}/typed/{producer}>{consumer}", "operation": "OPERATION_DECODE",
            "dataset": dataset, "codec": codec, "recordCount": 1000, "decodeMode": "typed",
            "producerWorkerId": producer, "consumerWorkerId": consumer, **kw}


def lang(w):
    return w.split("-")[0]


def test_identical_vectors_predict_one_cell_per_consumer_the_consumers_own():
    workers = ["rust-1", "java-1", "browser-1"]
    tasks = [task(f"{p}{c}", p, c) for p in workers for c in workers]
    skipped = samebytes.predicted(tasks, lang, {})
    # bson's vectors are the same bytes in every language: each consumer decodes its own payload only.
    assert skipped == {f"t{p}{c}" for p in workers for c in workers if p != c}
    assert samebytes.predicted(tasks, lang, {"sampling": {"repeatSameBytes": True}}) == set()


def test_different_vectors_twins_user_datasets_and_second_implementations_all_run():
    # owners json: rust and java write the same bytes, the browser other ones (its own group).
    tasks = [task(1, "rust-1", "go-1", codec="json"), task(2, "java-1", "go-1", codec="json"),
             task(3, "browser-1", "go-1", codec="json"), task(4, "node-1", "go-1", codec="json")]
    assert samebytes.predicted(tasks, lang, {}) == {"t1", "t4"}, "no go payload: java-1 leads (first by id); node writes the browser's"
    assert samebytes.predicted([task(1, "rust-1", "go-1", codec="json/v2"), task(2, "java-1", "go-1", codec="json/v2")],
                               lang, {}) == set()
    assert samebytes.predicted([task(1, "rust-1", "go-1", dataset="orders"), task(2, "java-1", "go-1", dataset="orders")],
                               lang, {}) == set()
    twin = task(9, "java-1", "go-1")
    twin["cellId"] += "~aa"
    assert samebytes.predicted([task(1, "rust-1", "go-1"), twin], lang, {}) == set()
