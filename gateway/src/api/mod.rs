//! The HTTP API (decisions §7): every call of the spec's table with its exact paths and
//! payloads, plus REST calls for what the spec implies; every answer is the envelope
//! `{success, data, message}` and a failure also carries a stable `code`.
//!
//! - This module: the router, and the middlewares that write [`ApiError`] in the envelope in
//!   the caller's language, check idempotency keys and forward writes in cluster mode.
//! - [`auth`]: the extractors (the signed-in caller, the client, bodies, paths, queries);
//!   [`idempotency`]: the `Idempotency-Key` value; [`dto`]: request parsing shared by handlers.
//! - The handlers, one file per area: [`sign_in`], [`users`], [`security`], [`codes`],
//!   [`limits`], [`alerts`], [`trade`], [`wallet`], [`invitations`], [`notices`], [`uploads`],
//!   [`system`], [`fairness`], [`admins`], and the back-office's pages under [`admin`].
//!
//! Routes are registered through `utoipa-axum`, so the OpenAPI document served at
//! `/api/openapi.json` is generated from the same handlers the router runs.

pub mod admin;
pub mod admins;
pub mod alerts;
pub mod auth;
pub mod codes;
pub mod copy;
pub mod dto;
pub mod export;
pub mod fairness;
pub mod idempotency;
pub mod invitations;
pub mod limits;
pub mod notices;
pub mod security;
pub mod sign_in;
pub mod system;
pub mod tournaments;
pub mod trade;
pub mod two_factor;
pub mod uploads;
pub mod users;
pub mod wallet;

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::{Json, Router};
use serde::Serialize;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
use utoipa::{Modify, OpenApi, ToSchema};
use utoipa_axum::router::OpenApiRouter;

pub use crate::error::{ApiError, ApiResult};
use crate::http::{BODY_BYTES_MAX, REQUEST_TIMEOUT};
pub use crate::state::{AppState, Submitted};
use crate::{forward, i18n};
pub use idempotency::IdempotencyKey;

/// The success envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope<T> {
    /// Always true here; failures carry false and a `code`.
    pub success: bool,
    /// The answer.
    pub data: T,
    /// "OK".
    pub message: String,
}

/// The failure envelope.
#[derive(Debug, Serialize, ToSchema)]
pub struct ErrorEnvelope {
    /// Always false.
    pub success: bool,
    /// The refusal's figures for the codes that carry them (`OFFER_CHANGED`: `offer`, the
    /// offer of now; `SALE_UNAVAILABLE`: `reason`); null otherwise.
    #[schema(value_type = Option<Object>)]
    pub data: Option<std::collections::BTreeMap<&'static str, String>>,
    /// The message in the caller's language.
    pub message: String,
    /// Stable machine code, e.g. `USERNAME_EXISTS`.
    pub code: String,
    /// The request field at fault, for validation errors.
    pub field: Option<String>,
}

/// A successful answer.
pub fn ok<T: Serialize>(data: T) -> ApiResult<Json<Envelope<T>>> {
    Ok(Json(Envelope { success: true, data, message: "OK".into() }))
}

/// Shorthand for handler return types.
pub type Answer<T> = ApiResult<Json<Envelope<T>>>;

/// An empty `data` object.
#[derive(Debug, Serialize, ToSchema)]
pub struct Empty {}

/// Adds the two bearer schemes (user and admin tokens) to the document.
struct Security;

impl Modify for Security {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let bearer = || {
            SecurityScheme::Http(
                HttpBuilder::new().scheme(HttpAuthScheme::Bearer).bearer_format("JWT").build(),
            )
        };
        components.add_security_scheme("user", bearer());
        components.add_security_scheme("admin", bearer());
    }
}

#[derive(OpenApi)]
#[openapi(
    info(title = "Trading platform API", description = "Every answer is {success, data, message}; failures add a stable code. Send a bearer token (user or admin) and a `language` header."),
    modifiers(&Security),
    components(schemas(ErrorEnvelope))
)]
struct ApiDoc;

/// The router and the OpenAPI document built from the same handlers.
pub fn router_and_doc(state: AppState) -> (Router, utoipa::openapi::OpenApi) {
    let (router, doc) = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .merge(sign_in::routes())
        .merge(users::routes())
        .merge(security::routes())
        .merge(limits::routes())
        .merge(alerts::routes())
        .merge(trade::routes())
        .merge(wallet::routes())
        .merge(invitations::routes())
        .merge(notices::routes())
        .merge(admin::routes())
        .merge(admins::routes())
        .merge(uploads::routes())
        .merge(system::routes())
        .merge(fairness::routes())
        .merge(copy::routes())
        .merge(tournaments::routes())
        .split_for_parts();
    let mut doc = doc;
    document_common_answers(&mut doc);
    let doc_json = Arc::new(doc.to_json().unwrap_or_default());
    let router =
        router
            .route(
                "/api/openapi.json",
                axum::routing::get(move || {
                    let doc = Arc::clone(&doc_json);
                    async move {
                        ([(header::CONTENT_TYPE, "application/json")], doc.as_str().to_owned())
                    }
                }),
            )
            .route("/ws", axum::routing::get(crate::ws::conn::upgrade))
            .route("/trade", axum::routing::get(trade_alias))
            .fallback(fallback)
            .method_not_allowed_fallback(method_not_allowed)
            .layer(axum::extract::DefaultBodyLimit::max(BODY_BYTES_MAX))
            .layer(middleware::from_fn(idempotency::check))
            .layer(middleware::from_fn_with_state(state.clone(), forward::forward_writes))
            .layer(middleware::from_fn_with_state(state.clone(), envelope_errors))
            .layer(tower_http::timeout::TimeoutLayer::with_status_code(
                StatusCode::SERVICE_UNAVAILABLE,
                REQUEST_TIMEOUT,
            ))
            .layer(tower_http::catch_panic::CatchPanicLayer::custom(|_| {
                tracing::error!("a handler panicked");
                ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "INTERNAL").into_response()
            }))
            .layer(middleware::map_response(security_headers))
            .with_state(state);
    (router, doc)
}

/// Adds to every operation the answers that come from the layers around the handlers rather
/// than from the handler itself, so that the document lists every status a route can give:
/// 400 for a parameter, path value or body that does not parse, 413 for a body over the
/// limit, 401 where a token is needed, 503 when the engine is busy or a request times out,
/// 500 for a fault.
fn document_common_answers(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::{ContentBuilder, Ref, ResponseBuilder};
    let error = |description: &str| {
        ResponseBuilder::new()
            .description(description)
            .content(
                "application/json",
                ContentBuilder::new().schema(Some(Ref::from_schema_name("ErrorEnvelope"))).build(),
            )
            .build()
    };
    for item in doc.paths.paths.values_mut() {
        let operations =
            [&mut item.get, &mut item.put, &mut item.post, &mut item.delete, &mut item.patch];
        for operation in operations.into_iter().flatten() {
            let parameters = operation.parameters.as_ref().is_some_and(|p| !p.is_empty());
            let body = operation.request_body.is_some();
            let secured = operation.security.as_ref().is_some_and(|s| !s.is_empty());
            let mut add = |status: &str, description: &str| {
                operation
                    .responses
                    .responses
                    .entry(status.to_owned())
                    .or_insert_with(|| error(description).into());
            };
            if parameters || body {
                add("400", "VALIDATION: a parameter, path value or body is not valid");
            }
            if body {
                add("413", "PAYLOAD_TOO_LARGE: the body is over the limit");
            }
            if secured {
                add("401", "UNAUTHORIZED or SESSION_EXPIRED: no live session for the token");
            }
            add("500", "INTERNAL: a fault on the server (details are in its log only)");
            add("503", "BUSY: the engine is saturated or the request timed out; try again");
        }
    }
}

/// The router (what the server runs and tests call with `oneshot`).
pub fn app(state: AppState) -> Router {
    router_and_doc(state).0
}

/// The metrics endpoint, served on its own address (`--metrics-listen`, loopback by default),
/// never on the public one: the figures are the operator's.
pub fn metrics_app(state: AppState) -> Router {
    Router::new().route("/metrics", axum::routing::get(system::metrics)).with_state(state)
}

/// Unknown API paths get the JSON 404; every other path is the web app's (a file or a
/// client route such as `/stocks`).
async fn fallback(request: Request) -> Response {
    let path = request.uri().path();
    if path == "/api" || path.starts_with("/api/") || path == "/metrics" {
        return ApiError::not_found().into_response();
    }
    crate::web::serve(request.method(), path, request.headers())
}

/// `/trade` upgrades to the websocket only when the request asks to (decisions §7); a
/// browser's plain `GET /trade` is the app's route.
async fn trade_alias(
    state: State<AppState>,
    query: axum::extract::Query<crate::ws::conn::WsQuery>,
    request: Request,
) -> Response {
    if fastwebsockets::upgrade::is_upgrade_request(&request) {
        return crate::ws::conn::upgrade(state, query, request).await.into_response();
    }
    crate::web::index(request.method(), request.headers())
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED")
}

/// What a non-HTML answer may do if a browser renders it: nothing (an uploaded image or a
/// JSON answer opened as a page runs no script and cannot be framed).
const NOTHING_POLICY: &str = "default-src 'none'; frame-ancestors 'none'";

/// The security headers of every answer, whoever made it (a handler, a layer, a panic, the
/// web app's files): no MIME sniffing, no framing, no referrer sent to other sites, a
/// Content-Security-Policy (the app's for HTML, none at all for the rest), and
/// `Cache-Control: no-store` unless the answer chose its caching itself (the app's files
/// do): API answers carry tokens and balances, which no cache or shared computer keeps.
async fn security_headers(mut response: Response) -> Response {
    let html = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    let headers = response.headers_mut();
    let policy = if html { crate::web::CONTENT_SECURITY_POLICY } else { NOTHING_POLICY };
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(policy));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
    headers.entry(header::CACHE_CONTROL).or_insert(HeaderValue::from_static("no-store"));
    response
}

/// Turns every [`ApiError`] into the failure envelope in the caller's language, counts
/// requests and logs failures.
async fn envelope_errors(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let language = i18n::language_of(request.headers());
    let method = request.method().clone();
    let started = std::time::Instant::now();
    let route = request
        .extensions()
        .get::<axum::extract::MatchedPath>()
        .map_or_else(|| "unmatched".to_owned(), |p| p.as_str().to_owned());
    let mut response = next.run(request).await;
    let status = response.status();
    state.metrics.observe_request(method.as_str(), &route, status.as_u16(), started.elapsed());
    let error = match response.extensions_mut().remove::<ApiError>() {
        Some(error) => error,
        None if status == StatusCode::SERVICE_UNAVAILABLE
            && response.headers().get(header::CONTENT_TYPE).is_none() =>
        {
            ApiError::busy()
        }
        None if status == StatusCode::PAYLOAD_TOO_LARGE => {
            ApiError::new(status, "PAYLOAD_TOO_LARGE")
        }
        None => return response,
    };
    if error.status.is_server_error() {
        tracing::warn!(%method, route, code = error.code, "request failed");
    } else {
        tracing::debug!(%method, route, code = error.code, "request refused");
    }
    let message = state.i18n.text(language, &error.key, &error.args);
    let data = error.data.then(|| error.args.iter().cloned().collect());
    let body = ErrorEnvelope {
        success: false,
        data,
        message,
        code: error.code.to_owned(),
        field: error.field.map(String::from),
    };
    let mut out = (error.status, Json(body)).into_response();
    if let Some(retry) = response.headers().get(header::RETRY_AFTER) {
        out.headers_mut().insert(header::RETRY_AFTER, retry.clone());
    }
    if let Some(seconds) = error.retry_after_seconds().and_then(|s| HeaderValue::from_str(s).ok()) {
        out.headers_mut().insert(header::RETRY_AFTER, seconds);
    }
    out
}
