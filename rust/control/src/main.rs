//! codecbench's control plane: one port for gRPC (HTTP/2), gRPC-web (HTTP/1.1), reflection,
//! health and the browser worker page. Workers attach to it; it never dials them.
mod access;
mod blobs;
mod bounds;
mod clients;
mod duets;
mod error;
mod grpc_status;
mod replicas;
mod follow;
mod harness_service;
mod lanes;
mod memory;
mod scenario;
mod state;
mod stats;
mod store;
mod user_datasets;
mod web;
mod worker_service;

use anyhow::{Context, Result};
use clap::Parser;
use codecbench_proto::v1::{harness_service_server::HarnessServiceServer, worker_service_server::WorkerServiceServer};
use std::{net::SocketAddr, path::PathBuf, sync::Arc, time::Duration};
use tonic::codec::CompressionEncoding;
use tonic::service::Routes;
use tonic::transport::{server::TcpIncoming, Server};
use tonic_web::GrpcWebLayer;
use tower_layer::Layer;

#[derive(Parser)]
#[command(name = "codecbench-control", about = "codecbench's control plane")]
struct Args {
    /// Address to listen on; port 0 picks a free port (printed once bound).
    #[arg(long, env = "CODECBENCH_LISTEN", default_value = "127.0.0.1:7600")]
    listen: SocketAddr,
    /// Where the SQLite database and the blob store live.
    #[arg(long, env = "CODECBENCH_STATE_DIR", default_value = ".state/control")]
    state_dir: PathBuf,
    /// The built browser worker page (web/dist), served at /.
    #[arg(long, env = "CODECBENCH_WEB_DIR")]
    web_dir: Option<PathBuf>,
    /// A host name (or address) control also answers to, besides loopback names and the address
    /// it listens on; repeatable. Requests naming any other host get 401 (DNS-rebinding guard).
    #[arg(long = "allow-host", value_name = "NAME")]
    allow_hosts: Vec<String>,
    /// A file holding the token every request must carry (docs/operating.md, "the token"). Without
    /// it, `CODECBENCH_TOKEN` is the token if set; with neither, control only listens on loopback.
    #[arg(long, env = "CODECBENCH_TOKEN_FILE", value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// Most the blob store (canonical data, payloads, unfinished uploads) may hold, in MiB; past
    /// it uploads are refused until `codecbench gc` removes what no active run needs.
    #[arg(long, env = "CODECBENCH_BLOB_QUOTA_MIB", default_value_t = 50 * 1024)]
    blob_quota_mib: u64,
    /// Unfinished uploads expire after this many seconds without a chunk (UploadBlob streams after
    /// at most 30 s); tests shorten it.
    #[arg(long, env = "CODECBENCH_UPLOAD_IDLE_S", default_value_t = blobs::UPLOAD_IDLE.as_secs(), hide = true)]
    upload_idle_s: u64,
    /// CollectGarbage keeps blobs stored this recently (tests set 0).
    #[arg(long, env = "CODECBENCH_GC_GRACE_S", default_value_t = blobs::COLLECT_GRACE.as_secs(), hide = true)]
    gc_grace_s: u64,
    /// GetRun's page budget in bytes (tests make it small to exercise paging).
    #[arg(long, env = "CODECBENCH_GETRUN_PAGE_BYTES", default_value_t = 3 << 20, hide = true)]
    getrun_page_bytes: usize,
    /// How many tasks run at once, each trial process pinned to its own CPUs (docs/DESIGN.md
    /// "Lanes"). Default: one per two CPUs control may use (one on a 2-CPU machine, unpinned).
    #[arg(long, env = "CODECBENCH_LANES")]
    lanes: Option<usize>,
    /// Every worker host (the hostname its environment reports) gets lanes of its own, so workers
    /// on different hosts run trials at once (docs/DESIGN.md "Hosts"; docs/DEPLOY.md). Without it the
    /// lanes are shared by every worker, as on one machine.
    #[arg(long, env = "CODECBENCH_LANES_PER_HOST")]
    lanes_per_host: bool,
}

const MAX_MESSAGE: usize = 4 << 20;

#[tokio::main]
async fn main() {
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    if let Err(e) = run(Args::parse()).await {
        eprintln!("codecbench-control: {e:#}");
        std::process::exit(1);
    }
}

async fn run(args: Args) -> Result<()> {
    let token = access::load_token(args.token_file.as_deref(), std::env::var("CODECBENCH_TOKEN").ok().filter(|t| !t.is_empty()))?;
    if token.is_none() && !args.listen.ip().is_loopback() {
        anyhow::bail!("refusing to listen on {} without a token: anyone who reaches that address could start runs and report results. \
Give a token with --token-file FILE or CODECBENCH_TOKEN (e.g. `openssl rand -hex 32 > token`), or listen on a loopback address", args.listen);
    }
    std::fs::create_dir_all(&args.state_dir).with_context(|| format!("creating {}", args.state_dir.display()))?;
    let store = store::Store::open(&args.state_dir.join("codecbench.sqlite"))?;
    store.close_interrupted_runs()?;
    let blobs = blobs::BlobStore::open(&args.state_dir.join("blobs"), args.blob_quota_mib.saturating_mul(1 << 20))
        .context("opening the blob store")?
        .with_grace(Duration::from_secs(args.gc_grace_s))
        .with_idle(Duration::from_secs(args.upload_idle_s.max(1)));
    let allowed = lanes::allowed_cpus()?;
    let lanes = lanes::split(&allowed, args.lanes.unwrap_or_else(|| lanes::default_count(allowed.len())))?;
    tracing::info!(lanes = lanes.len(), "lanes: {}", lanes.iter().map(|l| if l.is_empty() { "unpinned".to_string() } else { lanes::format_list(l) }).collect::<Vec<_>>().join(" | "));
    let control = Arc::new(state::Control::with_lanes(store, blobs, lanes).with_lanes_per_host(args.lanes_per_host));

    let ticker = control.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            ticker.check_timeouts();
            ticker.blobs.expire_idle();
        }
    });

    let descriptors = [codecbench_proto::FILE_DESCRIPTOR_SET, tonic_health::pb::FILE_DESCRIPTOR_SET];
    let mut v1 = tonic_reflection::server::Builder::configure();
    let mut v1alpha = tonic_reflection::server::Builder::configure();
    for d in descriptors {
        v1 = v1.register_encoded_file_descriptor_set(d);
        v1alpha = v1alpha.register_encoded_file_descriptor_set(d);
    }
    let (health, health_service) = tonic_health::server::health_reporter();
    // No message over 4 MiB either way, the size every gRPC client accepts by default: blobs
    // move in chunks of at most 1 MiB, a report carries a few measurements, GetRun answers in
    // pages, and run events are one measurement or task each.
    let harness = HarnessServiceServer::new(harness_service::Service { control: control.clone(), page_bytes: args.getrun_page_bytes.min(MAX_MESSAGE - (256 << 10)) })
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE);
    // Workers may send and receive gzip or zstd (Scenario.compressions): a request is read in the
    // encoding it names (grpc-encoding), and a response is compressed only for a client that
    // advertises the encoding (grpc-accept-encoding). A worker's identity legs and its other
    // calls advertise none (grpc-java, which advertises gzip by default, is told not to).
    let worker = WorkerServiceServer::new(worker_service::Service { control: control.clone(), clients: Arc::new(clients::Clients::new(token.is_some())) })
        .accept_compressed(CompressionEncoding::Gzip)
        .accept_compressed(CompressionEncoding::Zstd)
        .send_compressed(CompressionEncoding::Gzip)
        .send_compressed(CompressionEncoding::Zstd)
        .max_decoding_message_size(MAX_MESSAGE)
        .max_encoding_message_size(MAX_MESSAGE);
    health.set_serving::<HarnessServiceServer<harness_service::Service>>().await;
    health.set_serving::<WorkerServiceServer<worker_service::Service>>().await;

    // gRPC-web only around the gRPC services: the layer answers 400 to any other HTTP/1.1
    // request, which would hide the page served by the fallback.
    let web = GrpcWebLayer::new();
    let mut routes = Routes::builder();
    routes
        .add_service(web.layer(harness))
        .add_service(web.layer(worker))
        .add_service(web.layer(health_service))
        .add_service(v1.build_v1()?)
        .add_service(v1alpha.build_v1alpha()?);
    let access = access::Access { allowed: access::Allowed::new(args.listen, &args.allow_hosts), token: token.clone() };
    let routes = Routes::from(
        routes.routes().into_axum_router()
            .fallback_service(web::router(args.web_dir.as_deref()))
            .layer(axum::middleware::from_fn_with_state(access, access::guard)),
    );

    let listener = tokio::net::TcpListener::bind(args.listen).await.with_context(|| format!("binding {}", args.listen))?;
    let bound = listener.local_addr()?;
    // Tests and the CLI read this line to learn an ephemeral port.
    println!("codecbench-control listening on {bound}");
    tracing::info!(token = token.is_some(), "serving gRPC, gRPC-web and {} on {bound}", args.web_dir.as_ref().map(|d| format!("the page from {}", d.display())).unwrap_or("no page".into()));

    Server::builder()
        .accept_http1(true)
        .http2_keepalive_interval(Some(Duration::from_secs(10)))
        .http2_keepalive_timeout(Some(Duration::from_secs(20)))
        .add_routes(routes)
        .serve_with_incoming_shutdown(TcpIncoming::from(listener).with_nodelay(Some(true)), shutdown(control.clone()))
        .await
        .context("serving")?;
    tracing::info!("stopped");
    Ok(())
}

/// Resolves on Ctrl-C or SIGTERM, after ending every open stream: graceful shutdown waits for
/// open calls, and worker and run streams would otherwise never end.
async fn shutdown(control: Arc<state::Control>) {
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).expect("SIGTERM handler");
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = term.recv() => {}
    }
    tracing::info!("stopping: closing worker and run streams");
    control.close_streams();
}
