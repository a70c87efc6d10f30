//! The Rust worker's parts; `main.rs` is the binary (attach loop, `trial` and `vectors` commands).
pub mod affinity;
pub mod alloc;
pub mod blobs;
pub mod client;
pub mod environment;
pub mod measure;
pub mod phases;
pub mod rawtcp;
pub mod task;
pub mod trial;

// The library's own tests count allocations as the binary does.
#[cfg(test)]
#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;
