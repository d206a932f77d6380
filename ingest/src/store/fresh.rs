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

use rlmkg_graph::{DocGraph, ViewBuilder};

use crate::error::StoreError;

/// A view under construction on its own thread.
pub(crate) struct FreshView {
    /// The number of the first document this command wrote; the final commit
    /// reads the records of the documents before it.
    first: u64,
    docs: Sender<Vec<DocGraph>>,
    worker: JoinHandle<ViewBuilder>,
}

impl FreshView {
    /// Start the thread, for documents numbered from `first` on.
    pub(crate) fn start(first: u64) -> Result<Self, StoreError> {
        let (docs, rx) = channel::<Vec<DocGraph>>();
        let worker = std::thread::Builder::new()
            .name("rlmkg-view".into())
            .spawn(move || {
                crate::nice::lower_priority();
                let mut b = ViewBuilder::default();
                for group in rx {
                    for d in &group {
                        b.add_doc(d);
                    }
                }
                b
            })
            .map_err(|e| StoreError::Invalid(format!("cannot start the view builder: {e}")))?;
        Ok(Self {
            first,
            docs,
            worker,
        })
    }

    /// Hand documents over (if the thread is gone, [`FreshView::finish`]
    /// reports it).
    pub(crate) fn add(&self, group: Vec<DocGraph>) {
        let _ = self.docs.send(group);
    }

    /// Wait for every document handed over: the first document's number and
    /// the builder.
    pub(crate) fn finish(self) -> Result<(u64, ViewBuilder), StoreError> {
        let Self {
            first,
            docs,
            worker,
        } = self;
        drop(docs);
        let b = worker
            .join()
            .map_err(|_| StoreError::Invalid("the view builder stopped".into()))?;
        Ok((first, b))
    }
}

impl std::fmt::Debug for FreshView {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FreshView")
            .field("first", &self.first)
            .finish()
    }
}
