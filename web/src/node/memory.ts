import { GCProfiler, getHeapStatistics } from "node:v8";
import type { AllocationMeter } from "../worker/timing";

// Allocated bytes per operation (proto/README.md "Timing", 4), as the Rust worker's counting
// allocator and the JVM's thread-allocated bytes count them: every byte the operations allocate
// on the heap, whether or not it is still alive at the end. V8 has no cumulative allocation
// counter, so the meter adds up what the heap's used size did: its growth from start() to stop()
// (v8.getHeapStatistics().used_heap_size) plus what every garbage collection in between freed
// (v8.GCProfiler: used heap size before and after each GC). Counted: the V8 heap (objects,
// strings, on-heap typed arrays). Not counted: ArrayBuffer backing stores (a payload's bytes,
// Buffers), which live outside the V8 heap and are freed lazily after the GC that drops them, so
// their before/after figures do not add up; the environment says so (details.allocBytes).

export const ALLOC_METHOD =
  "V8 heap bytes allocated during the timed rounds / operations: used_heap_size growth (v8.getHeapStatistics) plus the bytes each GC in between freed (v8.GCProfiler); ArrayBuffer backing stores (payload bytes, Buffers) live outside the V8 heap and are not counted";

interface GCStatistics {
  statistics: Array<{ beforeGC: { heapStatistics: { usedHeapSize: number } }; afterGC: { heapStatistics: { usedHeapSize: number } } }>;
}

export function heapMeter(): AllocationMeter {
  let profiler: GCProfiler | undefined;
  let usedAtStart = 0;
  return {
    start() {
      profiler = new GCProfiler();
      profiler.start();
      usedAtStart = getHeapStatistics().used_heap_size;
    },
    stop() {
      const usedAtEnd = getHeapStatistics().used_heap_size;
      const collected = profiler?.stop() as GCStatistics | undefined;
      profiler = undefined;
      let freed = 0;
      for (const gc of collected?.statistics ?? []) freed += gc.beforeGC.heapStatistics.usedHeapSize - gc.afterGC.heapStatistics.usedHeapSize;
      return Math.max(0, usedAtEnd - usedAtStart + freed);
    },
  };
}
