//! Validates a scenario against the attached workers and expands it into cells and trials.
//! A cell is one thing measured:
//!   encode: dataset x count x codec x producer
//!   decode: dataset x count x codec x producer x consumer x decode mode
//! A codec id names an implementation of a format (`json`, `json/v2`: proto CodecInfo.id). A
//! payload is decoded by every implementation of its format the scenario names and the consumer
//! offers, so a second implementation is checked against every other language's payloads and
//! theirs against it; a decode cell of a payload another implementation wrote says which
//! (`payload_codec`).
//! Each cell becomes `sampling.trials` tasks (its trials). Every encode cell also gets a prepare
//! task (encode, verify, store the payload; nothing timed), and those run first; the trials then
//! run in passes (every cell's trial k before any trial k+1), each pass in a random order drawn
//! from `sampling.orderSeed`, so no cell is always first or always follows the same neighbour
//! (DESIGN.md rule 3). Per consumer, `sampling.aaCells` decode cells are planned twice (A/A twins)
//! so every run measures its own noise floor (rule 7). A cell that no worker can run is left out; a
//! scenario that leaves nothing to run, or names something unknown, is rejected with a message
//! naming it.
use crate::user_datasets;
use codecbench_datasets::{lazy_fields, DATASETS};
use codecbench_proto::v1::{DatasetInfo, Refusal};
use codecbench_proto::v1::{CodecInfo, Operation, Sampling, Scenario, Task, TaskStatus, TaskSummary};
use rand::{seq::IndexedRandom, seq::SliceRandom, Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

mod limits;
mod offers;
pub use limits::limits;
pub use offers::{refusals, WorkerView};
use offers::{check_datasets, every_implementation, lazy_fields_of, refusal, select};

pub const DECODE_MODES: &[&str] = &["typed", "tree", "lazy", "streaming"];
/// The mode that has an encode side too: a producer whose codec offers it gets a second encode
/// cell that writes through a bounded, drained buffer instead of into one Vec (proto/README.md).
pub const STREAMING: &str = "streaming";
/// Transfer compressions a scenario may name (Scenario.compressions): gRPC's identity, gzip and zstd.
pub const COMPRESSIONS: &[&str] = &["identity", "gzip", "zstd"];
pub const IDENTITY: &str = "identity";

/// Suffix of a deliberate A/A twin's cell id.
pub const AA_SUFFIX: &str = "~aa";

pub struct Planned {
    pub summary: TaskSummary,
    pub task: Task,
    /// Index of the encode task whose payload this decode task reads.
    pub depends_on: Option<usize>,
    /// A deliberate A/A twin: the same work as the cell without the suffix.
    pub aa_twin: bool,
    /// Dispatch order: the lowest ready key runs next (adaptive trials get keys in between).
    pub order: f64,
}

/// One cell before it is expanded into trials.
#[derive(Clone)]
pub(crate) struct Cell {
    pub id: String,
    pub op: Operation,
    pub dataset: String,
    pub codec: String,
    pub mode: String,
    pub count: u32,
    pub producer: String,
    pub consumer: String,
    pub measure_transfer: bool,
    /// The compressions its transfer leg is timed with (empty: identity only).
    pub compressions: Vec<String>,
    /// Index (in `cells`) of the encode cell whose payload this decode cell reads.
    pub source: Option<usize>,
    pub aa_twin: bool,
    /// A duet copy (duets.rs): the duet it belongs to; empty for ordinary cells.
    pub duet: String,
    /// A decode cell of a payload another implementation of the format wrote: that codec (the
    /// encode cell `source`'s); empty when `codec` wrote it.
    pub payload_codec: String,
}

/// The format a codec id implements: `json` for `json` and `json/v2` (proto CodecInfo.id).
pub fn format_of(codec: &str) -> &str {
    codec.split_once('/').map_or(codec, |(format, _)| format)
}

/// The id of a cell: readable, and the same for every trial of it. A decode of a payload another
/// implementation wrote names it after the producer: `decode/d/n/json/typed/go-1[json/v2]>rust-1`.
pub fn cell_id(op: Operation, dataset: &str, count: u32, codec: &str, mode: &str, producer: &str, consumer: &str) -> String {
    match op {
        Operation::Encode if mode.is_empty() => format!("encode/{dataset}/{count}/{codec}/{producer}"),
        Operation::Encode => format!("encode/{dataset}/{count}/{codec}/{mode}/{producer}"),
        _ => format!("decode/{dataset}/{count}/{codec}/{mode}/{producer}>{consumer}"),
    }
}

fn cross_cell_id(dataset: &str, count: u32, codec: &str, mode: &str, producer: &str, payload_codec: &str, consumer: &str) -> String {
    if payload_codec.is_empty() {
        return cell_id(Operation::Decode, dataset, count, codec, mode, producer, consumer);
    }
    format!("decode/{dataset}/{count}/{codec}/{mode}/{producer}[{payload_codec}]>{consumer}")
}

/// The scenario with every default made explicit (what actually ran).
pub fn with_defaults(s: &Scenario) -> Scenario {
    let mut s = s.clone();
    let d = s.sampling.get_or_insert_with(Sampling::default);
    if d.warmup_ms == 0 { d.warmup_ms = 200; }
    if d.rounds == 0 { d.rounds = 10; }
    if d.min_round_ms == 0 { d.min_round_ms = 10; }
    if d.task_timeout_s == 0 { d.task_timeout_s = 300; }
    if d.trials == 0 { d.trials = 9; }
    if d.max_trials == 0 { d.max_trials = d.trials; }
    if d.target_ci_pct == 0.0 { d.target_ci_pct = 3.0; }
    if d.max_warmup_ms == 0 { d.max_warmup_ms = 10_000.max(d.warmup_ms); }
    if d.aa_cells == 0 { d.aa_cells = 3; }
    // Recorded in the run's scenario, so the order can be replayed.
    while d.order_seed == 0 { d.order_seed = rand::rng().random(); }
    if s.seed == 0 { s.seed = 1; }
    if s.operations.is_empty() {
        s.operations = vec![Operation::Encode as i32, Operation::Decode as i32, Operation::Transfer as i32];
    }
    s
}

pub fn plan(run_id: &str, scenario: &Scenario, workers: &[WorkerView]) -> Result<(Scenario, Vec<Planned>), String> {
    let mut s = with_defaults(scenario);
    // A list naming something twice means it once (a scenario written by hand or sent with
    // grpcurl: the harness's validate refuses duplicates with their line).
    for list in [&mut s.datasets, &mut s.codecs, &mut s.decode_modes, &mut s.producers, &mut s.consumers, &mut s.compressions] {
        let mut seen = std::collections::HashSet::new();
        list.retain(|x| seen.insert(x.clone()));
    }
    let mut seen = std::collections::HashSet::new();
    s.counts.retain(|c| seen.insert(*c));
    let mut seen = std::collections::HashSet::new();
    s.operations.retain(|o| seen.insert(*o));
    let sampling = s.sampling.unwrap_or_default();
    let lim = limits();
    if s.datasets.is_empty() {
        return Err("datasets: name at least one dataset".into());
    }
    user_datasets::check(&s)?;
    for d in &s.datasets {
        if !DATASETS.contains(&d.as_str()) && user_datasets::find(&s, d).is_none() {
            let users: Vec<&str> = s.user_datasets.iter().map(|u| u.id.as_str()).collect();
            let known = [DATASETS, &users[..]].concat().join(", ");
            return Err(format!("datasets: unknown dataset {d:?} (known: {known})"));
        }
    }
    if s.counts.is_empty() {
        return Err("counts: give at least one record count".into());
    }
    if let Some(c) = s.counts.iter().find(|&&c| c == 0 || c > lim.max_count) {
        return Err(format!("counts: {c} is not a record count between 1 and {}", lim.max_count));
    }
    for m in &s.decode_modes {
        if !DECODE_MODES.contains(&m.as_str()) {
            return Err(format!("decodeModes: unknown decode mode {m:?} (known: {})", DECODE_MODES.join(", ")));
        }
    }
    let ops: Vec<Operation> = s.operations.iter().map(|&o| Operation::try_from(o).unwrap_or_default()).collect();
    if ops.contains(&Operation::Unspecified) {
        return Err("operations: OPERATION_UNSPECIFIED is not an operation (use encode, decode, transfer)".into());
    }
    // Every encode cell has its prepare task (decode needs the payload); its timed trials run only
    // when encode is asked for, or transfer (an encode trial times the upload).
    let (decode, transfer) = (ops.contains(&Operation::Decode), ops.contains(&Operation::Transfer));
    let time_encode = ops.contains(&Operation::Encode) || transfer;
    if transfer && !decode {
        return Err("operations: transfer is timed by the consumer of a payload, so it needs decode too".into());
    }
    for c in &s.compressions {
        if !COMPRESSIONS.contains(&c.as_str()) {
            return Err(format!("compressions: unknown compression {c:?} (known: {})", COMPRESSIONS.join(", ")));
        }
    }
    if !s.compressions.is_empty() && !transfer {
        return Err("compressions: only the transfer legs are compressed, so operations must include transfer".into());
    }
    if sampling.rounds > lim.max_rounds || sampling.min_round_ms > lim.max_min_round_ms || sampling.warmup_ms > lim.max_warmup_ms {
        return Err(format!("sampling: rounds must be at most {}, minRoundMs at most {}, warmupMs at most {}", lim.max_rounds, lim.max_min_round_ms, lim.max_warmup_ms));
    }
    if sampling.max_warmup_ms < sampling.warmup_ms || sampling.max_warmup_ms > lim.max_warmup_ms {
        return Err(format!("sampling: maxWarmupMs ({}) must be at least warmupMs ({}) and at most {}", sampling.max_warmup_ms, sampling.warmup_ms, lim.max_warmup_ms));
    }
    if sampling.trials > lim.max_trials || sampling.max_trials > lim.max_trials {
        return Err(format!("sampling: trials and maxTrials must be at most {}", lim.max_trials));
    }
    if sampling.task_timeout_s > lim.max_task_timeout_s {
        return Err(format!("sampling: taskTimeoutS ({}) must be at most {} (a hung worker would hold every later task that long)", sampling.task_timeout_s, lim.max_task_timeout_s));
    }
    if sampling.aa_cells > lim.max_aa_cells {
        return Err(format!("sampling: aaCells ({}) must be at most {}", sampling.aa_cells, lim.max_aa_cells));
    }
    if sampling.max_trials < sampling.trials {
        return Err(format!("sampling: maxTrials ({}) must be at least trials ({})", sampling.max_trials, sampling.trials));
    }
    if !(sampling.target_ci_pct > 0.0 && sampling.target_ci_pct <= 100.0) {
        return Err(format!("sampling: targetCiPct must be between 0 and 100, got {}", sampling.target_ci_pct));
    }
    if workers.is_empty() {
        return Err("no worker is attached to control: start one (codecbench up) before running a scenario".into());
    }
    let producers = select("producer", &s.producers, workers)?;
    let consumers = select("consumer", &s.consumers, workers)?;
    let (producers, consumers, replicas) = if sampling.replicas {
        if sampling.duets {
            return Err("sampling: replicas and duets do not go together (a duet pairs two workers of a language as two sides of a comparison; replicas make them one)".into());
        }
        let (p, c, r) = crate::replicas::Replicas::choose(&producers, &consumers)?;
        (p, c, Some(r))
    } else {
        (producers, consumers, None)
    };
    s.codecs = every_implementation(&s.codecs, producers.iter().chain(consumers.iter()).copied())?;
    if s.codecs.is_empty() {
        return Err("codecs: name at least one codec".into());
    }
    for c in &s.codecs {
        if !workers.iter().any(|w| w.codec(c).is_some()) {
            let mut offered: Vec<_> = workers.iter().flat_map(|w| w.codecs.iter().map(|c| c.id.as_str())).collect();
            offered.sort();
            offered.dedup();
            return Err(format!("codecs: no attached worker offers codec {c:?} (offered: {})", offered.join(", ")));
        }
    }
    check_datasets(&s, producers.iter().chain(consumers.iter()).copied())?;
    for c in s.compressions.iter().filter(|c| *c != IDENTITY) {
        if !producers.iter().chain(consumers.iter()).any(|w| w.offers_compression(c)) {
            return Err(format!("compressions: no selected worker offers {c:?} (attached: {})",
                workers.iter().map(|w| format!("{} [{}]", w.id, w.compressions.join(", "))).collect::<Vec<_>>().join(", ")));
        }
    }
    // A worker times its transfer legs with the compressions it offers; one that offers none of
    // those asked for times no leg (the report says which were not offered).
    let legs = |w: &WorkerView| if s.compressions.is_empty() { vec![] } else { w.compressions_of(&s.compressions) };
    let times_transfer = |w: &WorkerView| transfer && (s.compressions.is_empty() || !legs(w).is_empty());
    if !s.decode_modes.is_empty() && decode {
        for m in &s.decode_modes {
            let any = s.codecs.iter().any(|c| consumers.iter().any(|w| w.codec(c).is_some_and(|i| i.decode_modes.contains(m))));
            if !any {
                return Err(format!("decodeModes: no selected consumer offers mode {m:?} for codecs {:?}", s.codecs));
            }
        }
    }

    let mut cells: Vec<Cell> = vec![];
    for dataset in &s.datasets {
        for &count in &s.counts {
            for codec in &s.codecs {
                for p in producers.iter().filter(|w| w.codec(codec).is_some() && refusal(&s, w, dataset, codec, "").is_none()) {
                    let enc = cells.len();
                    cells.push(Cell {
                        id: cell_id(Operation::Encode, dataset, count, codec, "", &p.id, ""), op: Operation::Encode,
                        dataset: dataset.clone(), codec: codec.clone(), mode: String::new(), count, producer: p.id.clone(),
                        consumer: String::new(), measure_transfer: times_transfer(*p), compressions: legs(*p), source: None, aa_twin: false, duet: String::new(),
                        payload_codec: String::new(),
                    });
                    // A streaming encode cell: timed trials only, after the in-memory cell's prepare
                    // task (its trials name that payload: the bytes are the same).
                    let asked = s.decode_modes.is_empty() || s.decode_modes.iter().any(|m| m == STREAMING);
                    if time_encode && asked && p.codec(codec).is_some_and(|i| i.decode_modes.iter().any(|m| m == STREAMING))
                        && refusal(&s, p, dataset, codec, STREAMING).is_none()
                    {
                        cells.push(Cell {
                            id: cell_id(Operation::Encode, dataset, count, codec, STREAMING, &p.id, ""), op: Operation::Encode,
                            dataset: dataset.clone(), codec: codec.clone(), mode: STREAMING.into(), count, producer: p.id.clone(),
                            consumer: String::new(), measure_transfer: false, compressions: vec![], source: Some(enc), aa_twin: false, duet: String::new(),
                            payload_codec: String::new(),
                        });
                    }
                    if !decode {
                        continue;
                    }
                    // Every implementation of the payload's format the scenario names decodes it,
                    // the one that wrote it first (its cell times the transfer leg when it can).
                    let mut decoders: Vec<&String> = s.codecs.iter().filter(|y| format_of(y) == format_of(codec)).collect();
                    decoders.sort_by_key(|y| *y != codec);
                    for c in &consumers {
                        let mut first = true;
                        for decoder in &decoders {
                            let Some(info) = c.codec(decoder) else { continue };
                            let modes: Vec<&String> = if s.decode_modes.is_empty() {
                                info.decode_modes.iter().collect()
                            } else {
                                s.decode_modes.iter().filter(|m| info.decode_modes.contains(m)).collect()
                            };
                            let payload_codec = if *decoder == codec { String::new() } else { codec.clone() };
                            for mode in modes.into_iter().filter(|m| refusal(&s, c, dataset, decoder, m).is_none()) {
                                cells.push(Cell {
                                    id: cross_cell_id(dataset, count, decoder, mode, &p.id, &payload_codec, &c.id), op: Operation::Decode,
                                    dataset: dataset.clone(), codec: decoder.to_string(), mode: mode.clone(), count, producer: p.id.clone(),
                                    // One transfer leg per payload and consumer: the first decode cell times it.
                                    consumer: c.id.clone(), measure_transfer: times_transfer(*c) && first, compressions: legs(*c), source: Some(enc),
                                    aa_twin: false, duet: String::new(), payload_codec: payload_codec.clone(),
                                });
                                first = false;
                            }
                        }
                    }
                }
            }
        }
    }
    if cells.is_empty() {
        let refused: Vec<String> = refusals(&s, workers).into_iter().map(|r| r.reason).collect();
        if !refused.is_empty() {
            return Err(format!("nothing to run: every cell was refused ({})", refused.join("; ")));
        }
        return Err(format!("nothing to run: no selected producer offers codecs {:?}", s.codecs));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(sampling.order_seed);
    // Deliberate A/A twins: per consumer, decode work drawn at random (a dataset, count, codec and
    // mode; different work for each twin while there is some), measured again as cells of their
    // own (without timing transfer again). Each twin repeats the cell of the consumer's own
    // payload where there is one, else of its language: the cell that measures byte-identical
    // payloads (state/same_bytes.rs), so each twin is an A/A group of its own.
    let language_of = |id: &str| producers.iter().find(|w| w.id == id).map(|w| w.language.as_str()).unwrap_or_default();
    let mut twins = vec![];
    for c in &consumers {
        let mut work: Vec<Vec<&Cell>> = vec![];
        for cell in cells.iter().filter(|x| x.op == Operation::Decode && x.consumer == c.id) {
            match work.iter_mut().find(|w| (&w[0].dataset, w[0].count, &w[0].codec, &w[0].mode) == (&cell.dataset, cell.count, &cell.codec, &cell.mode)) {
                Some(w) => w.push(cell),
                None => work.push(vec![cell]),
            }
        }
        let mut picked: Vec<&Cell> = vec![];
        while picked.len() < sampling.aa_cells as usize && picked.len() < work.iter().map(Vec::len).sum::<usize>() {
            let round: Vec<&Vec<&Cell>> = work.iter().filter(|w| w.iter().any(|x| !picked.iter().any(|p| p.id == x.id))).collect();
            let want = sampling.aa_cells as usize - picked.len();
            for w in round.choose_multiple(&mut rng, want) {
                let left: Vec<&Cell> = w.iter().copied().filter(|x| !picked.iter().any(|p| p.id == x.id)).collect();
                let own = left.iter().find(|x| x.producer == c.id).or_else(|| left.iter().find(|x| language_of(&x.producer) == c.language));
                picked.push(own.copied().unwrap_or_else(|| *left.choose(&mut rng).expect("work with a cell left")));
            }
        }
        for cell in picked {
            twins.push(Cell { id: format!("{}{AA_SUFFIX}", cell.id), measure_transfer: false, compressions: vec![], aa_twin: true, ..cell.clone() });
        }
    }
    cells.extend(twins);
    if sampling.duets {
        let mut selected: Vec<&WorkerView> = vec![];
        for w in producers.iter().chain(consumers.iter()) {
            if !selected.iter().any(|x| x.id == w.id) {
                selected.push(w);
            }
        }
        let copies = crate::duets::plan(&cells, &s.codecs, &selected)?;
        cells.extend(copies);
    }
    // Every in-memory encode cell has one prepare task (the streaming ones reuse its payload; a
    // duet copy reuses its cell's).
    let prepared = |c: &Cell| c.op == Operation::Encode && c.mode.is_empty() && c.duet.is_empty();
    let encodes = cells.iter().filter(|c| prepared(c)).count();
    let timed = |c: &Cell| c.op != Operation::Encode || time_encode;
    let timed_cells = cells.iter().filter(|c| timed(c)).count();
    // Adaptive trials may take a cell up to maxTrials: the cap holds for the whole run.
    let per_cell = sampling.trials.max(sampling.max_trials) as usize;
    let tasks = encodes + timed_cells * per_cell;
    if tasks > lim.max_tasks {
        return Err(format!("the scenario expands to up to {tasks} tasks ({timed_cells} cells x {per_cell} trials + {encodes} prepare tasks); at most {} are allowed: name fewer datasets, counts, codecs, workers or trials",
            lim.max_tasks));
    }

    // (cell, trial, prepare): the prepare tasks first, in random order; then the trials in passes,
    // pass k holding trial k of every cell in an order of its own. A fully shuffled order let one
    // cell's trials bunch in a slow stretch of a machine whose speed drifts over minutes; in
    // passes every cell has one trial in each k-th of the run, so cells compared with each other
    // (A/A groups, codecs in one column) sampled the same stretches.
    let mut first: Vec<(usize, u32, bool)> = (0..cells.len()).filter(|&i| prepared(&cells[i])).map(|i| (i, 0, true)).collect();
    first.shuffle(&mut rng);
    let timed_ids: Vec<usize> = (0..cells.len()).filter(|&i| timed(&cells[i])).collect();
    let mut order = first;
    for trial in 0..sampling.trials {
        let mut pass: Vec<(usize, u32, bool)> = timed_ids.iter().map(|&i| (i, trial, false)).collect();
        pass.shuffle(&mut rng);
        order.extend(pass);
    }
    let prepare_task: std::collections::HashMap<usize, usize> =
        order.iter().enumerate().filter(|(_, (_, _, p))| *p).map(|(pos, (c, _, _))| (*c, pos)).collect();
    let ordinal = crate::replicas::ordinals(cells.iter().map(|c| (if c.op == Operation::Encode { &c.producer } else { &c.consumer }, c.op as i32)));
    let tasks = order
        .iter()
        .enumerate()
        .map(|(pos, &(c, trial, prepare))| {
            let cell = &cells[c];
            let id = format!("{run_id}-t{pos:05}");
            let lazy: Vec<String> = if cell.mode == "lazy" { lazy_fields_of(&s, &cell.dataset) } else { vec![] };
            // With replicas a trial may run on another worker of the cell's language; the prepare
            // task stays with the worker that names the cell (decode trials read its payload).
            let named = if cell.op == Operation::Encode { &cell.producer } else { &cell.consumer };
            let replica = match &replicas {
                Some(r) if !prepare => r.runner(named, ordinal[c], trial),
                _ => String::new(),
            };
            Planned {
                summary: TaskSummary {
                    id: id.clone(), operation: cell.op as i32, dataset: cell.dataset.clone(), codec: cell.codec.clone(),
                    decode_mode: cell.mode.clone(), record_count: cell.count, producer_worker_id: cell.producer.clone(),
                    consumer_worker_id: cell.consumer.clone(), status: TaskStatus::Pending as i32, failure: String::new(),
                    cell_id: cell.id.clone(), trial, prepare, duet: cell.duet.clone(), replica,
                    payload_codec: cell.payload_codec.clone(), ..Default::default()
                },
                task: Task {
                    id, run_id: run_id.into(), operation: cell.op as i32, dataset: cell.dataset.clone(), codec: cell.codec.clone(),
                    decode_mode: cell.mode.clone(), record_count: cell.count, lazy_fields: lazy, sampling: Some(sampling),
                    measure_transfer: cell.measure_transfer && !prepare, producer_worker_id: cell.producer.clone(), cell_id: cell.id.clone(),
                    trial, store_payload: prepare, prepare,
                    compressions: if cell.measure_transfer && !prepare { cell.compressions.clone() } else { vec![] },
                    ..Default::default()
                },
                depends_on: cell.source.map(|src| prepare_task[&src]),
                aa_twin: cell.aa_twin,
                order: pos as f64,
            }
        })
        .collect();
    Ok((s, tasks))
}

#[cfg(test)]
#[path = "scenario_tests.rs"]
pub(crate) mod tests;
