//! The web app, served from the files `web/` builds (embedded in release builds, read from
//! `web/dist` in debug builds; `build.rs` makes them).
//!
//! - Hashed files under `/assets/` never change: cached for a year, `immutable`.
//! - Every other path that is not a file is a route of the app: `index.html`, never cached,
//!   so a deploy is picked up on the next load. A missing file with an extension (an old
//!   chunk) is a 404, not HTML that a browser would try to run as a script.
//! - Text files are sent as the `.br` or `.gz` twin the build wrote beside them when the
//!   browser accepts it: no compression work per request.
//! - Validators: an ETag from the file's SHA-256; `If-None-Match` answers 304.

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

/// The built app.
#[derive(RustEmbed)]
#[folder = "../web/dist"]
#[exclude = ".vite/*"]
#[exclude = ".fingerprint"]
struct Assets;

/// One year: hashed assets are never rewritten under the same name.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// `index.html` and unhashed files: always revalidated.
const REVALIDATE: &str = "no-cache";

/// What the page may load and connect to: only this origin (and its websocket, which CSP
/// level 3 counts as 'self'). Scripts come from files only. Inline styles are allowed: the
/// chart library writes style attributes as markup (Chromium reports it without
/// 'unsafe-inline'), and a style cannot run code. Set on every HTML answer by
/// [`crate::api`]'s security-header layer.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'";

/// Serves a file of the app, or the app's `index.html` for a client route.
pub fn serve(method: &Method, path: &str, headers: &HeaderMap) -> Response {
    if method != Method::GET && method != Method::HEAD {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    }
    let name = path.trim_start_matches('/');
    if !name.is_empty() && Assets::get(name).is_some() {
        return file(name, method, headers);
    }
    let last = name.rsplit('/').next().unwrap_or_default();
    if last.contains('.') {
        return StatusCode::NOT_FOUND.into_response();
    }
    file("index.html", method, headers)
}

/// The app's entry page (client routes such as `/trade`).
pub fn index(method: &Method, headers: &HeaderMap) -> Response {
    file("index.html", method, headers)
}

fn file(name: &str, method: &Method, headers: &HeaderMap) -> Response {
    let Some(plain) = Assets::get(name) else {
        return StatusCode::NOT_FOUND.into_response();
    };
    let hash = hex::encode(&plain.metadata.sha256_hash()[..16]);
    let accepts = headers.get(header::ACCEPT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("");
    let (body, encoding) = [("br", ".br"), ("gzip", ".gz")]
        .iter()
        .filter(|(coding, _)| accepts_coding(accepts, coding))
        .find_map(|(coding, suffix)| {
            Assets::get(&format!("{name}{suffix}")).map(|f| (f.data, Some(*coding)))
        })
        .unwrap_or((plain.data, None));
    // Each encoding is its own representation, so it has its own validator.
    let etag = format!("\"{hash}{}\"", encoding.map(|c| format!("-{c}")).unwrap_or_default());

    let mut response = if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok())
        == Some(etag.as_str())
    {
        StatusCode::NOT_MODIFIED.into_response()
    } else if method == Method::HEAD {
        Response::new(Body::empty())
    } else {
        Response::new(Body::from(body))
    };
    let out = response.headers_mut();
    let mime = plain.metadata.mimetype();
    out.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_str(mime).unwrap_or(HeaderValue::from_static("application/octet-stream")),
    );
    out.insert(header::ETAG, HeaderValue::from_str(&etag).expect("hex is a valid header value"));
    out.insert(header::VARY, HeaderValue::from_static("Accept-Encoding"));
    let cache = if name.starts_with("assets/") { IMMUTABLE } else { REVALIDATE };
    out.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Some(coding) = encoding {
        out.insert(header::CONTENT_ENCODING, HeaderValue::from_static(coding));
    }
    response
}

/// Whether an `Accept-Encoding` list takes `coding` (and does not refuse it with `q=0`).
fn accepts_coding(accept: &str, coding: &str) -> bool {
    accept.split(',').any(|part| {
        let mut pieces = part.split(';').map(str::trim);
        let name = pieces.next().unwrap_or_default();
        let refused = pieces.any(|p| p.replace(' ', "") == "q=0" || p.replace(' ', "") == "q=0.0");
        name.eq_ignore_ascii_case(coding) && !refused
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_encoding_is_read_with_its_quality_values() {
        assert!(accepts_coding("gzip, deflate, br", "br"));
        assert!(accepts_coding("gzip;q=0.8, br;q=1.0", "gzip"));
        assert!(!accepts_coding("gzip;q=0, br", "gzip"));
        assert!(!accepts_coding("identity", "gzip"));
        assert!(!accepts_coding("", "br"));
    }
}
