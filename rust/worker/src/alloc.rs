//! A counting global allocator: bytes allocated by the current thread, so allocated bytes per
//! operation can be reported (DESIGN.md, rule 7). Per thread, because the timed loop runs on one
//! thread while tokio's threads keep serving gRPC. Every allocation counts, the whole new block of
//! a reallocation included.
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

pub struct Counting;

thread_local! {
    static ALLOCATED: Cell<u64> = const { Cell::new(0) };
}

fn add(bytes: usize) {
    // try_with: the thread-local may already be gone while a thread shuts down.
    let _ = ALLOCATED.try_with(|a| a.set(a.get().wrapping_add(bytes as u64)));
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
        add(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
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
}
