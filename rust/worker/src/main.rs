//! The Rust worker: attaches to control, announces its codecs and environment, and runs the tasks
//! it is given, one at a time, by the worker protocol (proto/README.md).
use anyhow::{bail, Context, Result};
use clap::{Parser, Subcommand};
use codecbench_proto::v1::{
    attach_response, AttachRequest, AttachResponse, CodecInfo, ReportResultRequest, TimedRegion,
};
use codecbench_worker::{alloc, client, environment, task, trial};
use std::time::{Duration, Instant};
use tonic::transport::Channel;

#[global_allocator]
static ALLOCATOR: alloc::Counting = alloc::Counting;

#[derive(Parser)]
#[command(name = "codecbench-worker", about = "codecbench's Rust worker")]
struct Args {
    /// Control's address.
    #[arg(long, env = "CODECBENCH_CONTROL", default_value = "http://127.0.0.1:7600")]
    control: String,
    /// Name announced to control (it makes the id unique: name-1, name-2...).
    #[arg(long, default_value = "rust")]
    name: String,
    /// A file holding control's token (when control requires one); without it, `CODECBENCH_TOKEN`.
    #[arg(long, env = "CODECBENCH_TOKEN_FILE", value_name = "FILE")]
    token_file: Option<std::path::PathBuf>,
    /// Give up when control cannot be reached for this long (at start or after losing it). Long by
    /// default: a control that crashed or is being upgraded comes back, and the worker should be
    /// there when it does.
    #[arg(long, default_value_t = 3600)]
    reconnect_timeout_s: u64,
    /// A user's dataset (its dataset.json, proto/README.md "A user's dataset"). Rust compiles a
    /// schema in: this checks that this binary was built with it (`codecbench run --local` builds one).
    #[arg(long = "user-dataset", value_name = "MANIFEST")]
    user_datasets: Vec<std::path::PathBuf>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Writes the canonical records and this worker's payloads of a few records per dataset
    /// (the test vectors other languages check against) into DIR.
    Vectors { dir: std::path::PathBuf },
    /// Runs one trial (the attached worker starts this; see trial.rs): reads the task, canonical
    /// blob and payload from stdin, writes the report and payload to stdout.
    #[command(hide = true)]
    Trial,
}

fn main() {
    let args = Args::parse();
    // A trial runs alone on this thread: no runtime, no logging threads, nothing else allocating.
    if let Some(Command::Trial) = args.command {
        std::process::exit(trial::child_main());
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    if let Err(e) = check_user_datasets(&args.user_datasets) {
        eprintln!("codecbench-worker: {e}");
        std::process::exit(2);
    }
    let result = match &args.command {
        Some(Command::Vectors { dir }) => codecbench_codecs::vectors::write(dir).map(|files| {
            println!("wrote {} files to {}", files, dir.display());
        }).map_err(Into::into),
        Some(Command::Trial) => unreachable!(),
        None => tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .context("starting the tokio runtime")
            .and_then(|rt| rt.block_on(run(&args))),
    };
    if let Err(e) = result {
        eprintln!("codecbench-worker: {e:#}");
        std::process::exit(1);
    }
}

/// Each manifest's dataset must be compiled into this binary, from the same schema.
fn check_user_datasets(manifests: &[std::path::PathBuf]) -> Result<(), String> {
    for path in manifests {
        let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let m: serde_json::Value = serde_json::from_slice(&text).map_err(|e| format!("{}: not a dataset manifest: {e}", path.display()))?;
        let field = |k: &str| m.get(k).and_then(|v| v.as_str()).unwrap_or_default().to_string();
        let (id, fingerprint) = (field("id"), field("fingerprint"));
        let names = Some(field("fieldNames")).filter(|n| !n.is_empty()).unwrap_or_else(|| "json".into());
        match codecbench_datasets::USER_DATASET_SPECS.iter().find(|d| d.id == id) {
            Some(d) if d.fingerprint == fingerprint && d.field_names == names => {}
            Some(d) => return Err(format!("{}: dataset {id} was compiled into this binary from another schema (fingerprint {}, {} names; the manifest says {fingerprint}, {names} names)", path.display(), d.fingerprint, d.field_names)),
            None => {
                let built: Vec<_> = codecbench_datasets::USER_DATASET_SPECS.iter().map(|d| d.id).collect();
                return Err(format!("{}: dataset {id:?} is not compiled into this binary (it carries: {}); Rust compiles a schema in: cargo build --features user-datasets with CODECBENCH_USER_DATASETS={} (codecbench run --local does this)",
                    path.display(), if built.is_empty() { "no user dataset".into() } else { built.join(", ") }, path.display()));
            }
        }
    }
    Ok(())
}

fn codec_infos() -> Vec<CodecInfo> {
    codecbench_codecs::registry()
        .iter()
        .map(|c| {
            let m = c.meta();
            CodecInfo {
                id: m.id.into(),
                media_type: m.media_type.into(),
                decode_modes: m.decode_modes.iter().map(|s| s.to_string()).collect(),
                library: m.library.into(),
                library_version: m.library_version.into(),
                notes: m.notes.into(),
                timed_regions: m
                    .timed_regions
                    .iter()
                    .map(|r| TimedRegion {
                        operation: r.operation.into(),
                        contains: r.contains.iter().map(|c| c.to_string()).collect(),
                        note: r.note.into(),
                    })
                    .collect(),
            }
        })
        .collect()
}

async fn run(args: &Args) -> Result<()> {
    let environment = environment::current();
    if environment.build_profile != "release" {
        tracing::warn!("this is a {} build: its timings are not representative", environment.build_profile);
    }
    // When control was last reachable: the start, then every attachment and every task. The
    // reconnect window counts from there, so losing a control that ran for hours still leaves the
    // whole window to find it again.
    let token = client::Token::load(args.token_file.as_deref())?;
    let mut last_seen = Instant::now();
    let mut pause = RETRY_FIRST;
    loop {
        let attached_before = last_seen;
        match attach_once(args, &token, &environment, &mut last_seen).await {
            Ok(()) => tracing::info!("control closed the stream; reattaching"),
            // A missing or wrong token (or a refused host) stays wrong: no point in retrying.
            Err(e) if e.downcast_ref::<tonic::Status>().is_some_and(|s| s.code() == tonic::Code::Unauthenticated) => {
                bail!("control at {} refused this worker: {e:#}", args.control);
            }
            Err(e) => {
                if last_seen.elapsed() > Duration::from_secs(args.reconnect_timeout_s) {
                    bail!("cannot reach control at {} for {} s: {e:#}", args.control, args.reconnect_timeout_s);
                }
                tracing::warn!("control unreachable ({e:#}); retrying in {} ms", pause.as_millis());
            }
        }
        // Back off while control stays away; start quick again after a successful attachment.
        pause = if last_seen > attached_before { RETRY_FIRST } else { (pause * 2).min(RETRY_MAX) };
        tokio::time::sleep(pause).await;
    }
}

const RETRY_FIRST: Duration = Duration::from_millis(300);
const RETRY_MAX: Duration = Duration::from_secs(10);

/// Reports a result, retrying while control is unavailable (down, restarting, or unable to store
/// it yet): a measured result is not dropped on the first transient error. Any other refusal is
/// control's decision (the task timed out, or it was not this worker's) and is final.
async fn report(client: &mut client::Client, report: ReportResultRequest) -> Result<(), tonic::Status> {
    let mut pause = Duration::from_millis(500);
    for _ in 0..REPORT_ATTEMPTS - 1 {
        match client.report_result(report.clone()).await {
            Err(status) if status.code() == tonic::Code::Unavailable => {
                tracing::warn!(task = report.task_id, "report not stored ({}); retrying in {} ms", status.message(), pause.as_millis());
                tokio::time::sleep(pause).await;
                pause = (pause * 2).min(RETRY_MAX);
            }
            other => return other.map(|_| ()),
        }
    }
    client.report_result(report).await.map(|_| ())
}

const REPORT_ATTEMPTS: usize = 6;

/// One attachment: runs tasks until the stream ends. Errors before `attached` arrives are retried.
async fn attach_once(args: &Args, token: &client::Token, environment: &codecbench_proto::v1::Environment, last_seen: &mut Instant) -> Result<()> {
    let channel = Channel::from_shared(args.control.clone())
        .with_context(|| format!("bad control address {:?}", args.control))?
        .connect()
        .await
        .with_context(|| format!("connecting to {}", args.control))?;
    let (mut client, secret) = client::new(channel, token.clone());
    let mut stream = client
        .attach(AttachRequest {
            name: args.name.clone(),
            environment: Some(environment.clone()),
            codecs: codec_infos(),
            compressions: client::COMPRESSIONS.iter().map(|c| c.to_string()).collect(),
            datasets: codecbench_codecs::dataset_infos(),
        })
        .await
        .context("attach")?
        .into_inner();
    let program = std::env::current_exe().context("finding this worker's own binary (trials run in it)")?;
    let mut runner = task::Runner::new(client.clone(), environment.clone(), program);
    let (mut worker_id, mut report_secret) = (String::new(), String::new());
    loop {
        // However the stream ends, control was reachable until now: the reconnect window starts here.
        let msg = match stream.message().await {
            Ok(Some(msg)) => msg,
            Ok(None) => {
                *last_seen = Instant::now();
                break;
            }
            Err(e) => {
                *last_seen = Instant::now();
                return Err(e).context("attach stream");
            }
        };
        match msg.message {
            Some(attach_response::Message::Attached(info)) => {
                worker_id = info.id;
                report_secret = msg.report_secret;
                // Blob calls name this worker from now on: its own upload allowance (clients.rs).
                secret.set(&report_secret);
                *last_seen = Instant::now();
                tracing::info!(worker_id, "attached to {}", args.control);
            }
            Some(attach_response::Message::Task(task)) => {
                let (id, what) = (task.id.clone(), format!("{} {} {} {} x{}", task.operation().as_str_name(), task.dataset, task.codec, task.decode_mode, task.record_count));
                tracing::info!(task = id, "{what}");
                // The stream is read while the task runs: control may ask to abandon it.
                let abandon = runner.abandon_flag();
                let run = runner.run(&worker_id, task);
                tokio::pin!(run);
                let finished = loop {
                    tokio::select! {
                        result = &mut run => break Some(result),
                        msg = stream.message() => match msg {
                            Ok(Some(AttachResponse { message: Some(attach_response::Message::Abandon(a)), .. })) if a.task_id == id => {
                                tracing::warn!(task = id, "abandoned: {}", a.reason);
                                break None;
                            }
                            Ok(Some(other)) => tracing::warn!(task = id, "ignored while a task runs: {:?}", other.message),
                            // Control is gone or closed the stream: it has ended the task already.
                            Ok(None) | Err(_) => {
                                abandon.store(true, std::sync::atomic::Ordering::Relaxed);
                                *last_seen = Instant::now();
                                return Err(anyhow::anyhow!("lost control's stream while running task {id}"));
                            }
                        },
                    }
                };
                let Some(result) = finished else {
                    // Kills the trial process; nothing is reported (control refuses it anyway).
                    abandon.store(true, std::sync::atomic::Ordering::Relaxed);
                    *last_seen = Instant::now();
                    continue;
                };
                let result = ReportResultRequest { report_secret: report_secret.clone(), ..result };
                if !result.failure.is_empty() {
                    tracing::warn!(task = id, "failed: {}", result.failure);
                }
                // A refused report (the task timed out meanwhile) is control's decision, not a reason
                // to drop the attachment; a broken connection shows on the stream next.
                if let Err(status) = report(&mut client, result).await {
                    tracing::warn!(task = id, "report refused: {}", status.message());
                }
                *last_seen = Instant::now();
            }
            // A task that already ended here (its report raced control's timeout or cancel).
            Some(attach_response::Message::Abandon(a)) => tracing::info!(task = a.task_id, "control abandoned a task this worker is not running"),
            None => {}
        }
    }
    Ok(())
}
