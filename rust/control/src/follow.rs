//! Following a run (StartRun, WatchRun). What is stored is replayed from SQLite a page at a time,
//! outside control's lock, then live events come from a bounded queue. A follower that falls
//! more than `QUEUE` events behind is dropped: its stream ends with ResourceExhausted, and
//! WatchRun again resumes it (the replay starts from what is stored by then). So a client that
//! stops reading costs control one queue, never the whole run, and never holds its lock.
use crate::error::Error;
use crate::state::Shared;
use codecbench_proto::v1::{run_event, RunEvent};
use futures::Stream;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use tokio::sync::mpsc::{self, error::TrySendError};

/// Live events a follower may fall behind by before it is dropped.
pub const QUEUE: usize = 1024;
/// Stored rows read per replay step (small in tests, so that a small run spans several pages).
pub const PAGE: u32 = if cfg!(test) { 16 } else { 256 };

/// The sending side, kept by the active run.
#[derive(Clone)]
pub struct Subscriber {
    tx: mpsc::Sender<RunEvent>,
    lagged: Arc<AtomicBool>,
}

impl Subscriber {
    /// Queues `ev`; false when the follower is gone or fell behind (it is then dropped).
    pub fn offer(&self, ev: &RunEvent) -> bool {
        match self.tx.try_send(ev.clone()) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.lagged.store(true, Ordering::Relaxed);
                false
            }
            Err(TrySendError::Closed(_)) => false,
        }
    }
}

/// What a follower's stream sends: `first`, then the stored tasks and the measurements up to
/// row id `replay_through` (when set), then `live` until it closes.
pub struct Follow {
    pub run_id: String,
    pub first: Vec<RunEvent>,
    pub replay_through: Option<i64>,
    pub live: Option<mpsc::Receiver<RunEvent>>,
    lagged: Arc<AtomicBool>,
}

impl Follow {
    /// A follower of a finished run: the run, then everything stored.
    pub fn stored(run_id: &str, first: RunEvent) -> Follow {
        Follow { run_id: run_id.into(), first: vec![first], replay_through: Some(i64::MAX), live: None, lagged: Arc::default() }
    }

    /// A follower of an active run, and the subscriber the run keeps.
    pub fn live(run_id: &str, first: Vec<RunEvent>, replay_through: Option<i64>) -> (Follow, Subscriber) {
        let (tx, rx) = mpsc::channel(QUEUE);
        let lagged = Arc::new(AtomicBool::new(false));
        let sub = Subscriber { tx, lagged: lagged.clone() };
        (Follow { run_id: run_id.into(), first, replay_through, live: Some(rx), lagged }, sub)
    }
}

enum Step {
    First,
    Tasks(i64),
    Measurements(i64),
    Live,
    Done,
}

struct State {
    control: Shared,
    follow: Follow,
    step: Step,
    buffer: VecDeque<RunEvent>,
}

/// The follower's event stream.
pub fn stream(control: Shared, follow: Follow) -> impl Stream<Item = Result<RunEvent, Error>> + Send {
    let buffer = follow.first.iter().cloned().collect();
    let state = State { control, follow, step: Step::First, buffer };
    futures::stream::unfold(state, |mut s| async move {
        loop {
            if let Some(ev) = s.buffer.pop_front() {
                return Some((Ok(ev), s));
            }
            match s.step {
                Step::First => s.step = if s.follow.replay_through.is_some() { Step::Tasks(-1) } else { Step::Live },
                Step::Tasks(after) => {
                    let (control, id) = (s.control.clone(), s.follow.run_id.clone());
                    match tokio::task::spawn_blocking(move || control.store.tasks_page(&id, after, PAGE)).await {
                        Ok(Ok(page)) if page.is_empty() => s.step = Step::Measurements(0),
                        Ok(Ok(page)) => {
                            s.step = Step::Tasks(page.last().map(|(seq, _)| *seq).unwrap_or(after));
                            s.buffer.extend(page.into_iter().map(|(_, t)| RunEvent { event: Some(run_event::Event::Task(t)) }));
                        }
                        Ok(Err(e)) => return Some((Err(Error::Internal(format!("replaying run {}'s tasks: {e:#}", s.follow.run_id))), done(s))),
                        Err(e) => return Some((Err(Error::Internal(format!("replaying run {}'s tasks: {e}", s.follow.run_id))), done(s))),
                    }
                }
                Step::Measurements(after) => {
                    let (control, id, through) = (s.control.clone(), s.follow.run_id.clone(), s.follow.replay_through.unwrap_or(0));
                    match tokio::task::spawn_blocking(move || control.store.measurements_page(&id, after, through, PAGE)).await {
                        Ok(Ok(page)) if page.is_empty() => s.step = Step::Live,
                        Ok(Ok(page)) => {
                            s.step = Step::Measurements(page.last().map(|(id, _)| *id).unwrap_or(after));
                            s.buffer.extend(page.into_iter().map(|(_, m)| RunEvent { event: Some(run_event::Event::Measurement(m)) }));
                        }
                        Ok(Err(e)) => return Some((Err(Error::Internal(format!("replaying run {}'s measurements: {e:#}", s.follow.run_id))), done(s))),
                        Err(e) => return Some((Err(Error::Internal(format!("replaying run {}'s measurements: {e}", s.follow.run_id))), done(s))),
                    }
                }
                Step::Live => {
                    let next = match s.follow.live.as_mut() {
                        Some(rx) => rx.recv().await,
                        None => None,
                    };
                    match next {
                        Some(ev) => return Some((Ok(ev), s)),
                        None if s.follow.lagged.load(Ordering::Relaxed) => {
                            let why = format!(
                                "this stream fell more than {QUEUE} events behind run {} and was dropped; WatchRun again to resume (it replays what is stored, then follows)",
                                s.follow.run_id
                            );
                            return Some((Err(Error::ResourceExhausted(why)), done(s)));
                        }
                        None => return None,
                    }
                }
                Step::Done => return None,
            }
        }
    })
}

fn done(mut s: State) -> State {
    s.step = Step::Done;
    s.buffer.clear();
    s
}
