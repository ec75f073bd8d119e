//! One stop signal for the server, the queue pollers and the schedule timers.
//!
//! Dropping the sender counts as the signal too, so a `RunningStack` dropped without
//! `shutdown()` (a failing test) does not leave pollers running against the emulator.

use tokio::sync::watch;

pub type Sender = watch::Sender<bool>;
pub type Receiver = watch::Receiver<bool>;

pub fn channel() -> (Sender, Receiver) {
    watch::channel(false)
}

/// Resolves once the stack is stopping.
pub async fn wait(mut rx: Receiver) {
    loop {
        if *rx.borrow_and_update() {
            return;
        }
        if rx.changed().await.is_err() {
            return;
        }
    }
}
