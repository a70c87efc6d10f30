package measure

import "runtime/metrics"

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
