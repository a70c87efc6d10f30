//! No code: this crate only asks for one feature set of the workspace's shared dependencies
//! (Cargo.toml says why).
