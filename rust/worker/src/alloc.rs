//! A counting global allocator: bytes allocated by the current thread, so allocated bytes per
//! operation can be reported (DESIGN.md, rule 7). Per thread, because the timed loop runs on one
//! thread while tokio's threads keep serving gRPC.
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
        // A growing realloc counts the new bytes only; shrinking allocates nothing.
        add(new_size.saturating_sub(layout.size()));
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
