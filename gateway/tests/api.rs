//! The HTTP API through its router (`oneshot`), on a real server: real pipeline, read
//! model, market data and argon2id. Each test starts its own server on a temporary directory.

// A scenario reads as one story from start to end: the line limit is for the product's code.
#![allow(clippy::too_many_lines)]

use std::path::Path;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use gateway::api::{app, AppState};
use gateway::durable::CoreConfig;
use gateway::server::{HttpConfig, Server, ServerConfig};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

const ADMIN_PASSWORD: &str = "admin-password-1";

#[allow(missing_debug_implementations)]
pub struct Harness {
    pub server: Server,
    pub state: AppState,
    pub dir: tempfile::TempDir,
}

pub fn start_with(smtp: Option<gateway::mail::SmtpConfig>) -> Harness {
    start_full(smtp, Default::default())
}

pub fn start_full(smtp: Option<gateway::mail::SmtpConfig>, ws: gateway::ws::WsConfig) -> Harness {
    start_custom(
        smtp,
        ws,
        gateway::feeds::parse(&[], Some(42)).unwrap(),
        tempfile::tempdir().unwrap(),
    )
}

/// A server on `feeds`, its data in `dir` (where a test may have put a recording first).
pub fn start_custom(
    smtp: Option<gateway::mail::SmtpConfig>,
    ws: gateway::ws::WsConfig,
    feeds: gateway::feeds::Feeds,
    dir: tempfile::TempDir,
) -> Harness {
    start_configured(smtp, ws, feeds, dir, |_| {})
}

/// A server whose HTTP settings a test adjusts.
pub fn start_with_http(adjust: impl FnOnce(&mut HttpConfig)) -> Harness {
    let feeds = gateway::feeds::parse(&[], Some(42)).unwrap();
    start_configured(None, Default::default(), feeds, tempfile::tempdir().unwrap(), adjust)
}

fn start_configured(
    smtp: Option<gateway::mail::SmtpConfig>,
    ws: gateway::ws::WsConfig,
    feeds: gateway::feeds::Feeds,
    dir: tempfile::TempDir,
    adjust: impl FnOnce(&mut HttpConfig),
) -> Harness {
    let mut config = ServerConfig {
        core: CoreConfig {
            admin_password: Some(ADMIN_PASSWORD.into()),
            ..CoreConfig::new(dir.path())
        },
        feeds,
        http: Some(HttpConfig {
            listen: "127.0.0.1:0".parse().unwrap(),
            public_origin: Some("https://trade.example".into()),
            listen_limits: Default::default(),
            hash_threads: 1,
            smtp,
            rate_limits: true,
            ws,
            real_money_on_simulated_prices: false,
            metrics_listen: None,
            upload_quota: Default::default(),
        }),
        runtime_workers: 2,
    };
    adjust(config.http.as_mut().expect("http"));
    let (server, _) = Server::start(config).unwrap();
    let state = server.state().unwrap().clone();
    Harness { server, state, dir }
}

pub fn start() -> Harness {
    start_with(None)
}

#[derive(Debug)]
pub struct Answer {
    pub status: StatusCode,
    pub headers: axum::http::HeaderMap,
    pub body: Value,
    /// The body as text (for answers that are not JSON).
    pub text: String,
    /// The body's bytes (for files).
    pub bytes: Vec<u8>,
}

impl Answer {
    pub fn code(&self) -> &str {
        self.body["code"].as_str().unwrap_or("")
    }
    pub fn message(&self) -> &str {
        self.body["message"].as_str().unwrap_or("")
    }
    pub fn data(&self) -> &Value {
        &self.body["data"]
    }
    #[track_caller]
    pub fn ok(&self) -> &Value {
        assert_eq!(self.status, StatusCode::OK, "{}", self.body);
        assert_eq!(self.body["success"], true);
        self.data()
    }
    #[track_caller]
    pub fn fails(&self, status: StatusCode, code: &str) {
        assert_eq!((self.status, self.code()), (status, code), "{}", self.body);
        assert_eq!(self.body["success"], false);
        assert!(!self.message().is_empty());
    }
}

impl Harness {
    pub fn request(&self, request: Request<Body>) -> Answer {
        let router = app(self.state.clone());
        self.server.runtime().block_on(async move {
            let response = router.oneshot(request).await.unwrap();
            let status = response.status();
            let headers = response.headers().clone();
            let bytes = response.into_body().collect().await.unwrap().to_bytes();
            let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
            let text = String::from_utf8_lossy(&bytes).into_owned();
            Answer { status, headers, body, text, bytes: bytes.to_vec() }
        })
    }

    pub fn call(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> Answer {
        self.call_lang(method, path, token, body, None)
    }

    pub fn call_lang(
        &self,
        method: Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
        language: Option<&str>,
    ) -> Answer {
        let mut builder = Request::builder().method(method).uri(path);
        if let Some(token) = token {
            builder = builder.header("authorization", format!("Bearer {token}"));
        }
        if let Some(language) = language {
            builder = builder.header("language", language);
        }
        let request = match body {
            Some(body) => builder
                .header("content-type", "application/json")
                .body(Body::from(body.to_string())),
            None => builder.body(Body::empty()),
        };
        self.request(request.unwrap())
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> Answer {
        self.call(Method::GET, path, token, None)
    }

    pub fn post(&self, path: &str, token: Option<&str>, body: Value) -> Answer {
        self.call(Method::POST, path, token, Some(body))
    }

    pub fn register(&self, username: &str, invite: Option<&str>) -> Value {
        let mut body = json!({"username": username, "email": format!("{username}@example.com"), "password": "secret1"});
        if let Some(code) = invite {
            body["inviteCode"] = json!(code);
        }
        self.post("/api/login/register", None, body).ok().clone()
    }

    pub fn login(&self, username: &str) -> String {
        let answer = self.post(
            "/api/login/login",
            None,
            json!({"username": username, "password": "secret1"}),
        );
        answer.ok()["token"].as_str().unwrap().to_owned()
    }

    pub fn user(&self, username: &str) -> (u32, String) {
        let uid = self.register(username, None)["uid"].as_u64().unwrap() as u32;
        (uid, self.login(username))
    }

    pub fn admin(&self) -> String {
        let answer = self.post(
            "/api/admin/login",
            None,
            json!({"username": "admin", "password": ADMIN_PASSWORD}),
        );
        answer.ok()["token"].as_str().unwrap().to_owned()
    }

    /// Turns two-factor authentication on for the session `token`: the authenticator app it
    /// was set up with, its first code already used.
    pub fn enable_two_factor(&self, token: &str) -> Authenticator {
        let setup = self.post("/api/user/2fa/setup", Some(token), json!({}));
        let secret = setup.ok()["secret"].as_str().unwrap().to_owned();
        let mut app = Authenticator::new(&secret);
        let enable = json!({"secret": secret, "code": app.code()});
        self.post("/api/user/2fa/enable", Some(token), enable).ok();
        app
    }

    /// The newest file of the outbox.
    pub fn outbox_code(&self) -> String {
        outbox_code(self.dir.path())
    }
}

pub fn outbox_code(data_dir: &Path) -> String {
    let mut files: Vec<_> =
        std::fs::read_dir(data_dir.join("outbox")).unwrap().map(|e| e.unwrap().path()).collect();
    files.sort();
    let text = std::fs::read_to_string(files.last().expect("a message in the outbox")).unwrap();
    code_in(&text)
}

pub fn code_in(text: &str) -> String {
    let digits: Vec<&str> =
        text.split(|c: char| !c.is_ascii_digit()).filter(|w| w.len() == 6).collect();
    digits.first().expect("a 6-digit code").to_string()
}

/// An authenticator app for tests: each code it gives is of a later 30-second step than the
/// one before, as the server takes each step once. It gives the current step, then the next
/// (the server accepts one step of drift either way), then waits for the clock to move on.
#[derive(Debug)]
pub struct Authenticator {
    totp: totp_rs::TOTP,
    last: Option<u64>,
}

impl Authenticator {
    pub fn new(secret: &str) -> Authenticator {
        let bytes = totp_rs::Secret::Encoded(secret.to_owned()).to_bytes().unwrap();
        let totp =
            totp_rs::TOTP::new(totp_rs::Algorithm::SHA1, 6, 1, 30, bytes, None, String::new())
                .unwrap();
        Authenticator { totp, last: None }
    }

    fn step_now() -> u64 {
        let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
        now.as_secs() / 30
    }

    /// The next unused code.
    pub fn code(&mut self) -> String {
        let step = self.last.map_or(Self::step_now(), |last| (last + 1).max(Self::step_now()));
        while step > Self::step_now() + 1 {
            // The clock itself is what is awaited here: a code of a later step is not valid yet.
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
        self.last = Some(step);
        self.totp.generate(step * 30)
    }

    /// A code that matches none of the steps the server would accept now.
    pub fn wrong_code(&self) -> String {
        let now = Self::step_now();
        let valid: Vec<String> =
            [now - 1, now, now + 1].iter().map(|step| self.totp.generate(step * 30)).collect();
        (0..).map(|n| format!("{n:06}")).find(|code| !valid.contains(code)).unwrap()
    }

    /// A code of the step last given (already used).
    pub fn last_code(&self) -> String {
        self.totp.generate(self.last.expect("a code was given") * 30)
    }
}

/// BTCUSDT, whose ticks the early-close tests sequence themselves.
pub fn btc() -> engine::types::Symbol {
    engine::types::Symbol::new("BTCUSDT").unwrap()
}

/// BTCUSDT's latest price, once the simulated feed has given one.
pub fn btc_last(h: &Harness) -> rust_decimal::Decimal {
    loop {
        if let Some(t) = h.state.handle.query(|e| e.last_tick(btc())).unwrap() {
            return t.price;
        }
        std::thread::yield_now();
    }
}

/// Sequences a BTCUSDT tick at `price` (beside the simulated feed's).
pub fn btc_tick(h: &Harness, price: rust_decimal::Decimal) {
    let quantity = rust_decimal::Decimal::ZERO;
    let command = engine::Command::Tick { symbol: btc(), price, quantity };
    let applied = h.state.handle.submit_blocking(command).unwrap();
    assert!(matches!(applied, Ok(engine::Reply::Clock { .. })), "{applied:?}");
}

/// Enough BTCUSDT price changes for early close's volatility estimate, whatever the feed adds;
/// returns the price they alternate from.
pub fn warm_up_btc(h: &Harness) -> rust_decimal::Decimal {
    let last = btc_last(h);
    for n in 0..=engine::sale::WINDOW_RETURNS_MIN {
        btc_tick(h, if n % 2 == 0 { last } else { last * rust_decimal::Decimal::new(1001, 3) });
    }
    last
}

#[path = "api/auth.rs"]
mod auth;
#[path = "api/backoffice.rs"]
mod backoffice;
#[path = "api/copy.rs"]
mod copy;
#[path = "api/docs.rs"]
mod docs;
#[path = "api/listener.rs"]
mod listener;
#[path = "api/money.rs"]
mod money;
#[path = "api/tournaments.rs"]
mod tournaments;
#[path = "api/ws.rs"]
mod ws;

/// A one-pixel PNG.
pub const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

/// Posts `bytes` as the multipart field `file`.
pub fn upload(h: &Harness, path: &str, token: &str, bytes: &[u8]) -> Answer {
    let boundary = "XBOUNDARYX";
    let mut body = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"r.png\"\r\nContent-Type: image/png\r\n\r\n").into_bytes();
    body.extend_from_slice(bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let request = Request::post(path)
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", format!("multipart/form-data; boundary={boundary}"))
        .body(Body::from(body))
        .unwrap();
    h.request(request)
}
