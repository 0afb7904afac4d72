//! Benchmarks: criterion micro-benchmarks and bench binaries.
