//! The Raft log over our segments and the Raft state machine over a `StateMachine`,
//! checked by openraft's own storage test suite (`openraft::testing::log::Suite`), which
//! appends, reads, truncates, purges, votes, applies and transfers snapshots through them.

mod common;

use std::sync::Arc;

use common::Kv;
use openraft::testing::log::{StoreBuilder, Suite};
use openraft::StorageError;
use tempfile::TempDir;
use wal::raft::{LogStore, MachineStore, TypeConfig};
use wal::FsStorage;

/// Small segments, so that the suite's logs span several of them.
const SEGMENT_BYTES: u64 = 512;

struct Builder;

impl StoreBuilder<TypeConfig, LogStore, MachineStore<Kv>, TempDir> for Builder {
    async fn build(
        &self,
    ) -> Result<(TempDir, LogStore, MachineStore<Kv>), StorageError<TypeConfig>> {
        let dir = tempfile::tempdir().expect("temporary directory");
        let log = LogStore::open(Arc::new(FsStorage), dir.path().join("raft"), SEGMENT_BYTES)
            .expect("open the log");
        Ok((dir, log, MachineStore::new(Kv::default(), None)))
    }
}

#[test]
fn openraft_storage_suite_passes_against_the_wal_adapter() {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(Suite::test_all(Builder)).expect("every test of the suite");
}
