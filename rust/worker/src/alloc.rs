//! A counting global allocator: bytes allocated by the current thread, so allocated bytes per
//! operation can be reported (docs/DESIGN.md, rule 8). Per thread, because the timed loop runs on one
//! thread while tokio's threads keep serving gRPC. Every allocation counts, the whole new block of
//! a reallocation included. It also answers "how much RAM does one operation need": while
//! `peak_growth` runs an operation, the thread's live heap is followed and its high-water mark
//! above the starting level is kept (the other allocations of the process are not counted).
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
    /// While `peak_growth` runs: (live bytes above the start, their high-water mark).
    static LIVE: Cell<Option<(i64, i64)>> = const { Cell::new(None) };
}

fn add(bytes: usize) {
    // try_with: the thread-local may already be gone while a thread shuts down.
    let _ = ALLOCATED.try_with(|a| a.set(a.get().wrapping_add(bytes as u64)));
    live(bytes as i64, bytes as i64);
}

/// While tracking: the live heap changes by `change` after momentarily holding `high` more bytes
/// (a moving realloc holds the old and the new block at once).
fn live(high: i64, change: i64) {
    let _ = LIVE.try_with(|l| {
        if let Some((now, peak)) = l.get() {
            l.set(Some((now + change, peak.max(now + high))));
        }
    });
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        add(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        add(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // The whole new block, as the JVM counts a copy into a larger array: growing a Vec from
        // 1 KiB to 2 KiB allocates 2 KiB (proto/README.md, timing rule 4).
        let _ = ALLOCATED.try_with(|a| a.set(a.get().wrapping_add(new_size as u64)));
        live(new_size as i64, new_size as i64 - layout.size() as i64);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        live(0, -(layout.size() as i64));
        unsafe { System.dealloc(ptr, layout) }
    }
}

/// Runs `op` once and returns its result with the peak growth of this thread's live heap during
/// it, in bytes: the most memory the operation held at once above where it started (its result
/// included), which a streaming mode keeps small and an in-memory mode does not.
pub fn peak_growth<T>(op: impl FnOnce() -> T) -> (T, u64) {
    LIVE.with(|l| l.set(Some((0, 0))));
    let out = op();
    let peak = LIVE.with(|l| l.take()).map_or(0, |(_, peak)| peak.max(0) as u64);
    (out, peak)
}

/// Bytes allocated so far by this thread.
pub fn thread_allocated() -> u64 {
    ALLOCATED.with(Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_realloc_counts_its_whole_new_block() {
        unsafe {
            let small = Layout::from_size_align(100, 8).unwrap();
            let before = thread_allocated();
            let p = Counting.alloc(small);
            assert_eq!(thread_allocated() - before, 100);
            let before = thread_allocated();
            let p = Counting.realloc(p, small, 1000);
            assert_eq!(thread_allocated() - before, 1000, "growing 100 -> 1000 allocates a 1000-byte block");
            let before = thread_allocated();
            let p = Counting.realloc(p, Layout::from_size_align(1000, 8).unwrap(), 10);
            assert_eq!(thread_allocated() - before, 10, "a shrinking realloc counts its new block too");
            Counting.dealloc(p, Layout::from_size_align(10, 8).unwrap());
        }
    }

    #[test]
    fn peak_growth_is_the_high_water_mark_not_the_total() {
        unsafe {
            let kib = |n: usize| Layout::from_size_align(n * 1024, 8).unwrap();
            let ((), peak) = peak_growth(|| {
                // 10 x 1 KiB, each freed before the next: 1 KiB at most at once.
                for _ in 0..10 {
                    let p = Counting.alloc(kib(1));
                    Counting.dealloc(p, kib(1));
                }
                // 4 KiB grown to 8 KiB: both blocks exist at once during the move.
                let p = Counting.alloc(kib(4));
                let p = Counting.realloc(p, kib(4), 8 * 1024);
                Counting.dealloc(p, kib(8));
            });
            assert_eq!(peak, 12 * 1024);
            // Outside peak_growth nothing is followed.
            let p = Counting.alloc(kib(64));
            let ((), peak) = peak_growth(|| Counting.dealloc(p, kib(64)));
            assert_eq!(peak, 0, "freeing what existed before is not growth");
        }
    }
}
