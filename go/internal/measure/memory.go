package measure

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// AllocMethod names how allocated bytes are counted (Environment.details["allocBytes"]).
const AllocMethod = "runtime/metrics /gc/heap/allocs:bytes: every heap allocation of the process during the rounds (freed or not, the whole new block of a growing slice included), divided by the operations; the trial process runs nothing else while it times"

var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

// HeapAllocatedBytes is the cumulative count of bytes allocated on the heap by this process.
func HeapAllocatedBytes() uint64 {
	metrics.Read(allocSample)
	if allocSample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return allocSample[0].Value.Uint64()
}

// PeakMethod names how the peak heap growth of one operation is counted
// (Environment.details["peakHeap"]).
const PeakMethod = "one operation after the rounds, outside timing, with the collector off (debug.SetGCPercent(-1)) after a full collection: nothing is freed during it, so the heap grows by exactly what it allocates (runtime/metrics /gc/heap/allocs:bytes, mcaches flushed by a collection on each side), garbage included: an upper bound of the live heap's peak growth, as Java's is when no collection runs"

// PeakHeapGrowth is the heap one operation needs at once. Go keeps no live-heap high-water mark
// (Rust's counting allocator follows the live heap: rust/worker/src/alloc.rs), so this is its
// nearest upper bound, with the meaning Java's Sampler.peakHeapGrowth has when no collection runs
// during the operation: after a full collection and with the collector off, nothing the operation
// drops is freed, and the heap grows by what it allocated. The collections on both sides flush
// the per-P caches, whose spans /gc/heap/allocs:bytes counts when they are taken, not used.
func PeakHeapGrowth(op func() (any, error)) uint64 {
	runtime.GC()
	old := debug.SetGCPercent(-1)
	defer debug.SetGCPercent(old)
	before := HeapAllocatedBytes()
	out, _ := op()
	Sink = out
	runtime.GC()
	return HeapAllocatedBytes() - before
}
