"""What `codecbench workers` shows of each runtime: JVM GC, heap and flags; browser isolation."""
from codecbench.display import runtime_details


def test_jvm_details_show_gc_heap_and_flags():
    text = runtime_details({"gc": "G1 Young Generation, G1 Old Generation", "max_heap_bytes": str(2 * 2**30),
                            "jvm_flags": "-Xmx2g -XX:+UseG1GC"})
    assert text == "GC G1 Young Generation, G1 Old Generation; max heap 2.0 GiB; flags: -Xmx2g -XX:+UseG1GC"
    assert "flags: (none)" in runtime_details({"jvm_flags": ""})


def test_browser_details_show_isolation_and_timer():
    assert runtime_details({"crossOriginIsolated": "true", "timerResolutionUs": "5.0"}) == \
        "crossOriginIsolated true; timer 5.0 µs"
    assert runtime_details({}) == ""
