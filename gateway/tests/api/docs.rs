//! The OpenAPI document against the router, authorization on every route, languages.

use super::*;

fn concrete(path: &str) -> String {
    path.replace("{symbol}", "BTCUSDT")
        .replace("{name}", "missing.png")
        .replace(['{', '}'], "")
        .replace("id", "1")
        .replace("position", "0")
        .replace("duration", "60")
}

fn concrete_path(path: &str) -> String {
    // Replace each {param} with a value the route accepts syntactically.
    let mut out = String::new();
    let mut rest = path;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let end = rest[start..].find('}').unwrap() + start;
        out.push_str(&concrete(&rest[start..=end]));
        rest = &rest[end + 1..];
    }
    out.push_str(rest);
    out
}

fn operations(h: &Harness) -> Vec<(Method, String, Option<String>)> {
    let doc = h.get("/api/openapi.json", None);
    assert_eq!(doc.status, StatusCode::OK);
    let mut ops = Vec::new();
    for (path, item) in doc.body["paths"].as_object().expect("paths") {
        for (method, op) in item.as_object().unwrap() {
            let method: Method = method.to_uppercase().parse().unwrap();
            let scheme = op["security"]
                .as_array()
                .and_then(|s| s.first())
                .and_then(|s| s.as_object())
                .and_then(|s| s.keys().next().cloned());
            ops.push((method, path.clone(), scheme));
        }
    }
    ops
}

/// The web app's API types are generated from `web/openapi.json`; this keeps that file the
/// document the server serves. `UPDATE_OPENAPI=1` rewrites it after a change to the API.
#[test]
fn the_committed_document_is_the_one_served() {
    let h = start();
    let doc = h.get("/api/openapi.json", None);
    assert_eq!(doc.status, StatusCode::OK);
    let served = serde_json::to_string_pretty(&doc.body).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../web/openapi.json");
    if std::env::var_os("UPDATE_OPENAPI").is_some() {
        std::fs::write(&path, &served).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == served,
        "web/openapi.json differs from the served document: run \
         `UPDATE_OPENAPI=1 cargo test -p gateway --test api the_committed_document` \
         and then `npm run api-types` in web/"
    );
}

/// Parameters are declared where they are: a path parameter is in the path's template,
/// everything else is an optional query parameter; every operation lists 400 when it takes
/// input, 401 when it needs a token, and 500 and 503.
#[test]
fn the_document_declares_parameters_and_statuses_truthfully() {
    let h = start();
    let doc = h.get("/api/openapi.json", None);
    let mut queries = 0;
    for (path, item) in doc.body["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            let params = op["parameters"].as_array().cloned().unwrap_or_default();
            for param in &params {
                let name = param["name"].as_str().unwrap();
                match param["in"].as_str().unwrap() {
                    "path" => {
                        assert!(path.contains(&format!("{{{name}}}")), "{method} {path} {name}")
                    }
                    "query" => {
                        queries += 1;
                        assert!(!path.contains(&format!("{{{name}}}")), "{method} {path} {name}");
                        assert_ne!(param["required"], true, "{method} {path} {name}");
                    }
                    // Optional headers only (`Idempotency-Key`).
                    "header" => assert_ne!(param["required"], true, "{method} {path} {name}"),
                    other => panic!("{method} {path}: {name} in {other}"),
                }
            }
            let statuses = op["responses"].as_object().unwrap();
            let input = !params.is_empty() || op.get("requestBody").is_some();
            if input {
                assert!(statuses.contains_key("400"), "{method} {path}");
            }
            if op.get("security").is_some() {
                assert!(statuses.contains_key("401"), "{method} {path}");
            }
            assert!(
                statuses.contains_key("500") && statuses.contains_key("503"),
                "{method} {path}"
            );
        }
    }
    assert!(queries >= 40, "only {queries} query parameters");
    let contracts = &doc.body["paths"]["/api/trade/contracts"]["get"]["parameters"];
    let status = contracts.as_array().unwrap().iter().find(|p| p["name"] == "status").unwrap();
    assert_eq!(status["in"], "query");
    assert_eq!(status["schema"]["enum"], json!(["open", "settled"]));
}

/// Every documented operation is routed (no fallback 404, no 405), and the guarded ones
/// refuse guests with 401 and the wrong kind of token with 401.
#[test]
fn every_documented_route_exists_and_is_guarded_as_documented() {
    let h = start();
    let (_, user) = h.user("docuser");
    let admin = h.admin();
    let ops = operations(&h);
    assert!(ops.len() >= 70, "only {} operations documented", ops.len());
    for (method, path, scheme) in &ops {
        let url = concrete_path(path);
        let body = (method != Method::GET && method != Method::DELETE).then(|| json!({}));
        let guest = h.call(method.clone(), &url, None, body.clone());
        assert_ne!(guest.code(), "NOT_FOUND", "{method} {path} is documented but not routed");
        assert_ne!(guest.code(), "METHOD_NOT_ALLOWED", "{method} {path}");
        match scheme.as_deref() {
            Some("user") => {
                guest.fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
                let wrong = h.call(method.clone(), &url, Some(&admin), body.clone());
                wrong.fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
            }
            Some("admin") => {
                guest.fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
                let wrong = h.call(method.clone(), &url, Some(&user), body.clone());
                wrong.fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
            }
            _ => assert_ne!(guest.status, StatusCode::UNAUTHORIZED, "{method} {path} is public"),
        }
    }
}

/// A route that is not in the document is not served: unknown paths and methods get the
/// envelope with NOT_FOUND / METHOD_NOT_ALLOWED.
#[test]
fn unknown_routes_and_methods_answer_in_the_envelope() {
    let h = start();
    h.get("/api/no-such-thing", None).fails(StatusCode::NOT_FOUND, "NOT_FOUND");
    h.call(Method::DELETE, "/api/login/login", None, None)
        .fails(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    let bad_json = h.request(
        Request::post("/api/login/login")
            .header("content-type", "application/json")
            .body(Body::from("{not json"))
            .unwrap(),
    );
    bad_json.fails(StatusCode::BAD_REQUEST, "VALIDATION");
}

/// Malformed requests get the JSON envelope with a message that names what is wrong: a path
/// value that does not parse, a JSON array where an object is expected, a body over the
/// limit (which is not the upload message).
#[test]
fn malformed_requests_answer_in_the_envelope() {
    let h = start();
    let (_, token) = h.user("pathuser");
    for path in ["/api/trade/contracts/-1", "/api/trade/contracts/x", "/api/proofs/1.5"] {
        let answer = h.get(path, Some(&token));
        answer.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!(answer.message(), "A value in the address is not valid", "{path}");
    }
    let json = |body: String| {
        h.request(
            Request::post("/api/login/login")
                .header("content-type", "application/json")
                .body(Body::from(body))
                .unwrap(),
        )
    };
    json(r#"["pathuser","secret123",false]"#.to_owned())
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    json(format!(r#"{{"username":"{}"}}"#, "a".repeat(70_000)))
        .fails(StatusCode::PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE");
    let big = json(format!(r#"{{"username":"{}"}}"#, "a".repeat(70_000)));
    assert_eq!(big.message(), "The request is too large");
    let plain = h.request(
        Request::post("/api/login/login")
            .header("content-type", "text/plain")
            .body(Body::from(r#"{"username":"pathuser","password":"secret123"}"#))
            .unwrap(),
    );
    plain.fails(StatusCode::BAD_REQUEST, "VALIDATION");
}

/// Every answer carries the security headers, whoever made it: the app's page gets the
/// app's Content-Security-Policy, everything else a policy that allows nothing; nothing can
/// be framed or sniffed; answers that carry a token or an account are never stored, while
/// the app's hashed files keep their long cache.
#[test]
fn every_answer_carries_the_security_headers() {
    let h = start();
    h.user("headers1");
    let login =
        h.post("/api/login/login", None, json!({"username": "headers1", "password": "secret1"}));
    let token = login.ok()["token"].as_str().unwrap().to_owned();
    let page = h.get("/trade", None);
    assert_eq!(page.status, StatusCode::OK);
    let script = page.text.split("src=\"").nth(1).and_then(|s| s.split('"').next()).unwrap();
    assert!(script.starts_with("/assets/"), "{script}");
    let asset = h.get(script, None);
    let answers = [
        ("login", &login),
        ("account", &h.get("/api/user/profile", Some(&token))),
        ("health", &h.get("/api/health", None)),
        ("not found", &h.get("/api/no-such-thing", None)),
        ("bad path", &h.get("/api/trade/contracts/-1", Some(&token))),
        ("unauthorized", &h.get("/api/user/profile", None)),
        ("page", &page),
        ("asset", &asset),
    ];
    for (what, answer) in answers {
        let header = |name: &str| {
            answer.headers.get(name).and_then(|v| v.to_str().ok()).unwrap_or_default().to_owned()
        };
        assert_eq!(header("x-content-type-options"), "nosniff", "{what}");
        assert_eq!(header("x-frame-options"), "DENY", "{what}");
        assert_eq!(header("referrer-policy"), "same-origin", "{what}");
        let policy = header("content-security-policy");
        assert!(policy.contains("frame-ancestors 'none'"), "{what}: {policy}");
        match what {
            "page" => {
                assert!(policy.contains("script-src 'self'"), "{policy}");
                let script = policy.split(';').find(|d| d.trim().starts_with("script-src"));
                assert_eq!(script.map(str::trim), Some("script-src 'self'"), "{policy}");
                assert!(policy.contains("connect-src 'self';"), "{policy}");
                assert_eq!(header("cache-control"), "no-cache");
            }
            "asset" => assert!(header("cache-control").contains("immutable"), "{what}"),
            _ => {
                assert!(policy.starts_with("default-src 'none'"), "{what}: {policy}");
                assert_eq!(header("cache-control"), "no-store", "{what}");
            }
        }
    }
}

/// Messages follow the language header, then Accept-Language, then en-US.
#[test]
fn messages_come_in_the_callers_language() {
    let h = start();
    let body = || Some(json!({"username": "ab", "password": "secret1"}));
    let en = h.call_lang(Method::POST, "/api/login/login", None, body(), None);
    assert_eq!(en.message(), "Username must be 3-20 characters");
    let es = h.call_lang(Method::POST, "/api/login/login", None, body(), Some("es-ES"));
    let ar = h.call_lang(Method::POST, "/api/login/login", None, body(), Some("ar"));
    let de = h.request(
        Request::post("/api/login/login")
            .header("content-type", "application/json")
            .header("accept-language", "de-CH,de;q=0.9")
            .body(Body::from(body().unwrap().to_string()))
            .unwrap(),
    );
    for other in [&es, &ar, &de] {
        other.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_ne!(other.message(), en.message());
    }
    let catalogues = gateway::i18n::Catalogues::load();
    assert_eq!(es.message(), catalogues.text(1, "api.validation.username_length", &[]));
    assert_eq!(ar.message(), catalogues.text(3, "api.validation.username_length", &[]));
    assert_eq!(de.message(), catalogues.text(4, "api.validation.username_length", &[]));
}

/// Every catalogue has every key of en-US with the same placeholders, and every error
/// code the API can answer has a message.
#[test]
fn catalogues_are_complete() {
    let catalogues = gateway::i18n::Catalogues::load();
    let english = catalogues.keys(0);
    for language in 1..gateway::i18n::LANGUAGES.len() {
        assert_eq!(catalogues.keys(language), english, "{}", gateway::i18n::LANGUAGES[language]);
        for key in &english {
            let placeholders = |text: String| {
                let mut found: Vec<String> = text
                    .split("{{")
                    .skip(1)
                    .map(|p| p.split("}}").next().unwrap_or("").to_owned())
                    .collect();
                found.sort();
                found
            };
            assert_eq!(
                placeholders(catalogues.text(language, key, &[])),
                placeholders(catalogues.text(0, key, &[])),
                "{key}"
            );
        }
    }
    // Every source file of the gateway, so that a handler file added later is checked too.
    fn sources(dir: &Path, into: &mut String) {
        let mut entries: Vec<_> =
            std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                sources(&path, into);
            } else if path.extension().is_some_and(|e| e == "rs") {
                into.push_str(&std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut source = String::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut source);
    assert!(source.contains("ApiError::bad(\"INVALID_CREDENTIALS\")"), "the handlers were read");
    for (prefix, end) in [("ApiError::bad(\"", '"'), ("ApiError::invalid(\"", '"')] {
        for part in source.split(prefix).skip(1) {
            let first = part.split(end).next().unwrap();
            if prefix.contains("bad") {
                assert!(
                    english.contains(&format!("api.error.{first}").as_str()),
                    "no message for {first}"
                );
            } else {
                let message = part.split(", \"").nth(1).and_then(|m| m.split('"').next()).unwrap();
                assert!(
                    english.contains(&format!("api.validation.{message}").as_str()),
                    "no message for validation {message}"
                );
            }
        }
    }
}

/// Health is public and tells no business figures; metrics live on their own address, never
/// the public one, and a flood of made-up methods adds one `other` label, not one per method.
#[test]
fn metrics_are_private_bounded_and_health_is_public() {
    let h = start();
    let health = h.get("/api/health", None);
    assert_eq!(health.ok(), &json!({"status": "ok"}));
    h.get("/metrics", None).fails(StatusCode::NOT_FOUND, "NOT_FOUND");
    let text = h.server.runtime().block_on(async {
        for n in 0..50 {
            let method =
                Method::from_bytes(format!("M{n}{}", "X".repeat(1_000)).as_bytes()).unwrap();
            let request =
                Request::builder().method(method).uri("/api/markets").body(Body::empty()).unwrap();
            app(h.state.clone()).oneshot(request).await.unwrap();
        }
        let request = Request::get("/metrics").body(Body::empty()).unwrap();
        let response = gateway::api::metrics_app(h.state.clone()).oneshot(request).await.unwrap();
        String::from_utf8(response.into_body().collect().await.unwrap().to_bytes().to_vec())
            .unwrap()
    });
    assert!(text.contains("trading_http_requests_total"), "{text}");
    assert!(text.contains("trading_engine_commands"));
    assert!(text.contains(r#"method="other""#));
    assert!(!text.contains("XXXX"), "a made-up method became a label");
    assert!(text.len() < 64 * 1024, "metrics stay small: {} bytes", text.len());
}
