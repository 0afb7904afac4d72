//! Tests across crates and processes.
