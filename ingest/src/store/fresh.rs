//! The view of the documents one command writes, built on a thread of its
//! own while the command goes on.
//!
//! The writer hands each written part's document graphs over and moves on;
//! the thread adds them to a [`ViewBuilder`] at the pool's low priority, so it
//! takes the CPU that indexing leaves (during a commit, when tantivy's one
//! thread drains its queue, a whole core), and the final commit finds most of
//! the view already collected.

use std::sync::mpsc::{Sender, channel};
use std::thread::JoinHandle;
use std::time::Instant;

use rlmkg_graph::{DocGraph, ViewBuilder};

use crate::error::StoreError;

/// A view under construction on its own thread.
pub(crate) struct FreshView {
    /// The number of the first document this command wrote; the final commit
    /// reads the records of the documents before it.
    first: u64,
    docs: Sender<Vec<DocGraph>>,
    /// The builder, with the wall seconds the thread spent adding documents.
    worker: JoinHandle<(ViewBuilder, f64)>,
}

/// What the thread collected.
pub(crate) struct Collected {
    /// The builder holding every document handed over.
    pub builder: ViewBuilder,
    /// Wall seconds the thread spent adding them, beside the other stages
    /// (at its low priority this includes waiting for a core).
    pub secs: f64,
}

impl FreshView {
    /// Start the thread, for documents numbered from `first` on.
    pub(crate) fn start(first: u64) -> Result<Self, StoreError> {
        let (docs, rx) = channel::<Vec<DocGraph>>();
        let worker = std::thread::Builder::new()
            .name("rlmkg-view".into())
            .spawn(move || {
                crate::nice::lower_priority();
                let (mut b, mut secs) = (ViewBuilder::default(), 0.0);
                for group in rx {
                    let t = Instant::now();
                    for d in &group {
                        b.add_doc(d);
                    }
                    secs += t.elapsed().as_secs_f64();
                }
                (b, secs)
            })
            .map_err(|e| StoreError::Invalid(format!("cannot start the view builder: {e}")))?;
        Ok(Self {
            first,
            docs,
            worker,
        })
    }

    /// The number of the first document handed over.
    pub(crate) fn first(&self) -> u64 {
        self.first
    }

    /// Hand documents over (if the thread is gone, [`FreshView::finish`]
    /// reports it).
    pub(crate) fn add(&self, group: Vec<DocGraph>) {
        let _ = self.docs.send(group);
    }

    /// Wait for every document handed over.
    pub(crate) fn finish(self) -> Result<Collected, StoreError> {
        let Self { docs, worker, .. } = self;
        drop(docs);
        let (builder, secs) = worker
            .join()
            .map_err(|_| StoreError::Invalid("the view builder stopped".into()))?;
        Ok(Collected { builder, secs })
    }
}
