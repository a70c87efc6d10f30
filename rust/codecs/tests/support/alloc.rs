//! Allocation accounting for the tests that feed decoders hostile input (fuzz.rs, fixtures.rs):
//! a counting global allocator that records the largest single block each thread asks for, and
//! refuses allocations past a hard limit, so a decoder that sizes a buffer from a declared length
//! is a test failure rather than the shared machine's memory.
#![allow(dead_code)]
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A decode of a few KiB never needs one block this large; a library that sizes a buffer from a
/// declared length (a 2^31 prefix) does.
pub const ALLOC_CAP: usize = 16 << 20;
/// Live bytes of the whole test binary at which the watchdog stops the run (a runaway loop that
/// keeps allocating), and the hard limit past which allocations fail outright, so a bug found
/// here cannot take the shared machine's memory.
pub const LIVE_LIMIT: usize = 1 << 30;
const HARD_LIMIT: usize = 2 << 30;

pub static LIVE: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    /// The largest single block this thread asked for since the last reset.
    pub static LARGEST: Cell<usize> = const { Cell::new(0) };
}

struct Counting;

fn admit(size: usize) -> bool {
    let _ = LARGEST.try_with(|l| l.set(l.get().max(size)));
    LIVE.load(Ordering::Relaxed).saturating_add(size) <= HARD_LIMIT
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !admit(layout.size()) {
            return std::ptr::null_mut();
        }
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if !admit(new_size) {
            return std::ptr::null_mut();
        }
        let q = unsafe { System.realloc(p, layout, new_size) };
        if !q.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;


/// Runs `f`, returning what it returned and the largest single block this thread allocated in it.
pub fn largest_during<T>(f: impl FnOnce() -> T) -> (T, usize) {
    LARGEST.with(|l| l.set(0));
    let out = f();
    (out, LARGEST.with(|l| l.get()))
}
