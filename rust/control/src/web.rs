//! The browser worker page, served on the same origin as gRPC-web (no CORS), with the headers
//! that make it cross-origin isolated so `performance.now()` has its fine resolution.
use axum::Router;
use http::{header::HeaderName, HeaderValue, StatusCode};
use std::path::Path;
use tower_http::services::{ServeDir, ServeFile};
use tower_http::set_header::SetResponseHeaderLayer;

pub fn router(web_dir: Option<&Path>) -> Router {
    let Some(dir) = web_dir.filter(|d| d.join("index.html").is_file()) else {
        let msg = match web_dir {
            Some(d) => format!("the browser worker page is not built: {} has no index.html (run `make`)\n", d.display()),
            None => "this control serves no browser worker page (start it with --web-dir web/dist)\n".to_string(),
        };
        return Router::new().fallback(move || async move { (StatusCode::NOT_FOUND, msg) });
    };
    let files = ServeDir::new(dir).fallback(ServeFile::new(dir.join("index.html")));
    let header = |name: &'static str, value: &'static str| {
        SetResponseHeaderLayer::overriding(HeaderName::from_static(name), HeaderValue::from_static(value))
    };
    Router::new()
        .fallback_service(files)
        .layer(header("cross-origin-opener-policy", "same-origin"))
        .layer(header("cross-origin-embedder-policy", "require-corp"))
        .layer(header("cross-origin-resource-policy", "same-origin"))
        .layer(header("cache-control", "no-cache"))
}
