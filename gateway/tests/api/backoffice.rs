//! The back-office: roles, users, rules, config, notices, audit.

use super::*;

#[test]
fn admin_roles_actions_and_audit() {
    let h = start();
    let bad =
        h.post("/api/admin/login", None, json!({"username": "admin", "password": "wrong-pass"}));
    bad.fails(StatusCode::BAD_REQUEST, "ADMIN_LOGIN_FAILED");
    // A code that does not look like one is refused as such, even where none is needed.
    for code in ["", "12345", "abcdef"] {
        let body = json!({"username": "admin", "password": ADMIN_PASSWORD, "totpCode": code});
        let refused = h.post("/api/admin/login", None, body);
        refused.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!(refused.body["field"], "totpCode");
    }
    let login =
        h.post("/api/admin/login", None, json!({"username": "admin", "password": ADMIN_PASSWORD}));
    assert_eq!(login.ok()["admin"]["role"], "super");
    let admin = login.ok()["token"].as_str().unwrap().to_owned();
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "finance1", "password": "finance-pass", "role": "finance"}),
    )
    .ok();
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "finance1", "password": "finance-pass", "role": "finance"}),
    )
    .fails(StatusCode::BAD_REQUEST, "USERNAME_EXISTS");
    let finance = h.post(
        "/api/admin/login",
        None,
        json!({"username": "finance1", "password": "finance-pass"}),
    );
    let finance = finance.ok()["token"].as_str().unwrap().to_owned();
    let (uid, user) = h.user("mona");

    // Finance reads users but cannot freeze them.
    assert_eq!(
        h.get(&format!("/api/admin/users/{uid}"), Some(&finance)).ok()["user"]["username"],
        "mona"
    );
    let freeze = format!("/api/admin/users/{uid}/freeze");
    h.post(&freeze, Some(&finance), json!({"frozen": true, "reason": "check"}))
        .fails(StatusCode::FORBIDDEN, "FORBIDDEN");
    assert_eq!(
        h.post(&freeze, Some(&admin), json!({"frozen": true, "reason": ""})).message(),
        "Please give a reason"
    );
    h.post(&freeze, Some(&admin), json!({"frozen": true, "reason": "check"})).ok();
    let order = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": "demo"});
    h.post("/api/trade/orders", Some(&user), order).fails(StatusCode::FORBIDDEN, "ACCOUNT_FROZEN");
    h.post("/api/wallet/demo/reset", Some(&user), json!({}))
        .fails(StatusCode::FORBIDDEN, "ACCOUNT_FROZEN");
    h.post("/api/admin/house/fund", Some(&finance), json!({"amount": "1000"}))
        .fails(StatusCode::FORBIDDEN, "FORBIDDEN");
    h.post("/api/admin/house/fund", Some(&admin), json!({"amount": "1000"})).ok();
    let adjust = format!("/api/admin/users/{uid}/adjust");
    h.post(&adjust, Some(&admin), json!({"amount": "25", "reason": "goodwill"})).ok();
    assert_eq!(h.get("/api/wallet/balance", Some(&user)).ok()["available"], "25.00");
    let found = h.get("/api/admin/users?q=mona", Some(&admin));
    assert_eq!(
        (found.ok()["total"].as_u64(), &found.ok()["items"][0]["available"]),
        (Some(1), &json!("25.00"))
    );
    // Every user, newest first, a page at a time.
    let all = h.get("/api/admin/users?page=1&pageSize=1", Some(&admin));
    let total = all.ok()["total"].as_u64().unwrap();
    assert!(total >= 1 && all.ok()["items"].as_array().unwrap().len() == 1);
    assert_eq!(all.ok()["items"][0]["user"]["uid"].as_u64(), Some(total), "the newest first");
    let last = h.get(&format!("/api/admin/users?page={total}&pageSize=1"), Some(&admin));
    assert_eq!(last.ok()["items"][0]["user"]["uid"], 1, "the last page holds the first user");
    h.get("/api/admin/users?pageSize=0", Some(&admin)).fails(StatusCode::BAD_REQUEST, "VALIDATION");

    // Rules, config, notices.
    let rule = json!({"duration": 120, "payoutRate": "0.8", "minAmount": "1", "maxAmount": "100", "feeRate": "0", "enabled": true});
    let rules = h.call(Method::PUT, "/api/admin/rules", Some(&admin), Some(rule));
    assert!(rules.ok().as_array().unwrap().iter().any(|r| r["duration"] == 120));
    let bad_rate = json!({"duration": 120, "payoutRate": "1.5", "minAmount": "1", "maxAmount": "100", "feeRate": "0", "enabled": true});
    h.call(Method::PUT, "/api/admin/rules", Some(&admin), Some(bad_rate))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    // A payout of 1 with the default referral rates lets a matched Up/Down pair gain: refused,
    // and the message says why.
    let farmable = json!({"duration": 120, "payoutRate": "1", "minAmount": "1", "maxAmount": "100", "feeRate": "0", "enabled": true});
    let refused = h.call(Method::PUT, "/api/admin/rules", Some(&admin), Some(farmable));
    refused.fails(StatusCode::BAD_REQUEST, "PAIR_COULD_GAIN");
    assert!(
        refused.message().contains("100 %") && refused.message().contains("1 %"),
        "{}",
        refused.message()
    );
    // Early close: the published terms change with an audited action; bad input changes nothing.
    let early = h.get("/api/admin/rules/early-close", Some(&admin)).ok().clone();
    assert_eq!((early["enabled"].as_bool(), early["spread"].as_str()), (Some(true), Some("0.05")));
    let terms = json!({"enabled": true, "cutoffSecs": 8, "spread": "0.04",
        "durations": [{"duration": 60, "spread": "0.03"}],
        "products": [{"symbol": "eurusd", "enabled": false, "spread": "0"}]});
    let set = h.call(Method::PUT, "/api/admin/rules/early-close", Some(&admin), Some(terms));
    assert_eq!(set.ok()["products"][0]["symbol"], "EURUSD");
    let public = h.get("/api/trade/rules", None).ok()["earlyClose"].clone();
    assert_eq!((public["cutoffSecs"].as_u64(), public["spread"].as_str()), (Some(8), Some("0.04")));
    assert_eq!(public["durations"][0], json!({"duration": 60, "spread": "0.03"}));
    assert!(public["rule"].as_array().unwrap().len() >= 5);
    for bad in [
        json!({"enabled": true, "cutoffSecs": 5, "spread": "1.5"}),
        json!({"enabled": true, "spread": "0.05"}),
        json!({"enabled": true, "cutoffSecs": 5, "spread": "0.05", "durations": [{"spread": "0.01"}]}),
    ] {
        h.call(Method::PUT, "/api/admin/rules/early-close", Some(&admin), Some(bad))
            .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    }
    let twice = json!({"enabled": true, "cutoffSecs": 5, "spread": "0.05",
        "durations": [{"duration": 60, "spread": "0.03"}, {"duration": 60, "spread": "0.02"}]});
    h.call(Method::PUT, "/api/admin/rules/early-close", Some(&admin), Some(twice))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    assert_eq!(h.get("/api/trade/rules", None).ok()["earlyClose"], public);
    // Audited, the engine's refusal too.
    let audited = h.get("/api/admin/audit?action=set_sale_terms", Some(&admin));
    let refused: Vec<_> =
        audited.ok()["items"].as_array().unwrap().iter().map(|i| i["refused"].clone()).collect();
    assert_eq!(refused, vec![json!("VALIDATION"), Value::Null], "{:?}", audited.body);
    let mut config = h.get("/api/admin/system/config", Some(&admin)).ok().clone();
    config["basic"]["siteName"] = json!("Rise Fall");
    config["basic"]["walletLogin"] = json!(false);
    h.call(Method::PUT, "/api/admin/system/config", Some(&admin), Some(config)).ok();
    let info = h.get("/api/admin/system/basic-info", None);
    assert_eq!(
        (info.ok()["siteName"].as_str(), info.ok()["walletLogin"].as_bool()),
        (Some("Rise Fall"), Some(false))
    );
    let wallet = h.post(
        "/api/login/wallet-nonce",
        None,
        json!({"chain": "eth", "address": "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"}),
    );
    wallet.fails(StatusCode::FORBIDDEN, "WALLET_LOGIN_DISABLED");
    h.post(
        "/api/admin/notices",
        Some(&admin),
        json!({"title": "Maintenance", "body": "Sunday 02:00 UTC"}),
    )
    .ok();
    let notices = h.get("/api/notices", None);
    assert_eq!(notices.ok()["items"][0]["title"], "Maintenance");

    // The audit log has every action, the refused one included, with the admin's id.
    let audit = h.get("/api/admin/audit?pageSize=100", Some(&admin));
    let actions: Vec<&str> = audit.ok()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["action"].as_str().unwrap())
        .collect();
    for action in [
        "create_admin",
        "set_user_frozen",
        "adjust_balance",
        "set_rule",
        "update_settings",
        "broadcast_notice",
    ] {
        assert!(actions.contains(&action), "{action} missing from {actions:?}");
    }
    // Filtered by action, admin and time; an unknown action is refused.
    let created = h.get("/api/admin/audit?action=create_admin&admin=1", Some(&admin));
    let rows = created.ok()["items"].as_array().unwrap().clone();
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["action"] == "create_admin" && r["admin"] == 1));
    assert_eq!(rows[0]["refused"], "USERNAME_EXISTS", "the refused one, newest first");
    let by_finance = h.get("/api/admin/audit?admin=2", Some(&admin));
    assert_eq!(by_finance.ok()["total"], 0, "finance was refused before acting");
    let future = h.get("/api/admin/audit?start=2999-01-01", Some(&admin));
    assert_eq!(future.ok()["total"], 0);
    let all_days = h.get("/api/admin/audit?start=2020-01-01&end=2999-12-31", Some(&admin));
    assert_eq!(all_days.ok()["total"], audit.ok()["total"]);
    h.get("/api/admin/audit?action=delete_everything", Some(&admin))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let dashboard = h.get("/api/admin/dashboard", Some(&admin));
    assert_eq!(dashboard.ok()["users"], 1);
    h.post("/api/admin/logout", Some(&admin), json!({})).ok();
    h.get("/api/admin/dashboard", Some(&admin)).fails(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED");
}

/// Logs `username` in as an admin; the token.
fn admin_login(h: &Harness, username: &str, password: &str) -> String {
    let login =
        h.post("/api/admin/login", None, json!({"username": username, "password": password}));
    login.ok()["token"].as_str().unwrap().to_owned()
}

#[test]
fn roles_see_only_their_areas_and_admins_are_managed() {
    let h = start();
    let admin = h.admin();
    for (name, role) in [("ops1", "operations"), ("money1", "finance"), ("help1", "support")] {
        let body = json!({"username": name, "password": "admin-pass", "role": role});
        h.post("/api/admin/admins", Some(&admin), body).ok();
    }
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "x_1", "password": "admin-pass", "role": "viewer"}),
    )
    .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let list = h.get("/api/admin/admins", Some(&admin));
    let roles: Vec<&str> =
        list.ok().as_array().unwrap().iter().map(|a| a["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["super", "operations", "finance", "support"]);

    // A finance admin: no game rules, in its permissions or on the server.
    let login =
        h.post("/api/admin/login", None, json!({"username": "money1", "password": "admin-pass"}));
    let permissions = login.ok()["admin"]["permissions"].as_array().unwrap().clone();
    assert!(
        permissions.contains(&json!("orders:write")) && permissions.contains(&json!("money:write"))
    );
    assert!(!permissions.contains(&json!("rules:read")));
    let finance = login.ok()["token"].as_str().unwrap().to_owned();
    h.get("/api/admin/rules", Some(&finance)).fails(StatusCode::FORBIDDEN, "FORBIDDEN");
    h.get("/api/admin/admins", Some(&finance)).fails(StatusCode::FORBIDDEN, "FORBIDDEN");
    h.get("/api/admin/recharge-orders/pending-count", Some(&finance)).ok();
    // Operations edits rules but not money; support freezes but does not adjust.
    let ops = admin_login(&h, "ops1", "admin-pass");
    let rule = json!({"duration": 120, "payoutRate": "0.8", "minAmount": "1", "maxAmount": "100", "feeRate": "0", "enabled": true});
    h.call(Method::PUT, "/api/admin/rules", Some(&ops), Some(rule)).ok();
    let (uid, _) = h.user("rita");
    h.post(
        &format!("/api/admin/users/{uid}/adjust"),
        Some(&ops),
        json!({"amount": "5", "reason": "x"}),
    )
    .fails(StatusCode::FORBIDDEN, "FORBIDDEN");
    let help = admin_login(&h, "help1", "admin-pass");
    h.post(
        &format!("/api/admin/users/{uid}/freeze"),
        Some(&help),
        json!({"frozen": true, "reason": "asked"}),
    )
    .ok();

    // Disabling ends the admin's sessions and its sign-in; nobody disables themselves.
    h.post("/api/admin/admins/4/disabled", Some(&admin), json!({"disabled": true})).ok();
    h.get("/api/admin/dashboard", Some(&help)).fails(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED");
    h.post("/api/admin/login", None, json!({"username": "help1", "password": "admin-pass"}))
        .fails(StatusCode::BAD_REQUEST, "ADMIN_LOGIN_FAILED");
    h.post("/api/admin/admins/1/disabled", Some(&admin), json!({"disabled": true}))
        .fails(StatusCode::CONFLICT, "ADMIN_KEPT");
    h.post("/api/admin/admins/99/disabled", Some(&admin), json!({"disabled": true}))
        .fails(StatusCode::NOT_FOUND, "ADMIN_NOT_FOUND");
    h.post("/api/admin/admins/4/disabled", Some(&admin), json!({"disabled": false})).ok();
    admin_login(&h, "help1", "admin-pass");
    let list = h.get("/api/admin/admins", Some(&admin));
    assert_eq!(list.ok()[3]["disabled"], false);
}

#[test]
fn an_admin_changes_its_password_and_turns_two_factor_on() {
    let h = start();
    let admin = h.admin();
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "ops2", "password": "first-pass", "role": "operations"}),
    )
    .ok();
    let ops = admin_login(&h, "ops2", "first-pass");
    let other = admin_login(&h, "ops2", "first-pass");
    let change = |old: &str, new: &str, confirm: &str| {
        h.post(
            "/api/admin/password",
            Some(&ops),
            json!({"oldPassword": old, "newPassword": new, "confirmPassword": confirm}),
        )
    };
    change("wrong-pass", "second-pass", "second-pass")
        .fails(StatusCode::BAD_REQUEST, "WRONG_PASSWORD");
    change("first-pass", "second-pass", "other-pass").fails(StatusCode::BAD_REQUEST, "VALIDATION");
    change("first-pass", "short", "short").fails(StatusCode::BAD_REQUEST, "VALIDATION");
    change("first-pass", "second-pass", "second-pass").ok();
    // The old password stops working; this session goes on, the other one ended.
    h.post("/api/admin/login", None, json!({"username": "ops2", "password": "first-pass"}))
        .fails(StatusCode::BAD_REQUEST, "ADMIN_LOGIN_FAILED");
    h.get("/api/admin/me", Some(&ops)).ok();
    h.get("/api/admin/me", Some(&other)).fails(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED");
    admin_login(&h, "ops2", "second-pass");

    // Two-factor: a fresh secret, confirmed by a code; then sign-in asks for one.
    assert_eq!(h.get("/api/admin/2fa", Some(&ops)).ok()["enabled"], false);
    let setup = h.post("/api/admin/2fa/setup", Some(&ops), json!({}));
    let secret = setup.ok()["secret"].as_str().unwrap().to_owned();
    assert!(setup.ok()["otpauthUrl"].as_str().unwrap().starts_with("otpauth://totp/"));
    let mut app = crate::Authenticator::new(&secret);
    h.post("/api/admin/2fa/enable", Some(&ops), json!({"secret": secret, "code": "000000x"}))
        .fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");
    h.post("/api/admin/2fa/enable", Some(&ops), json!({"secret": secret, "code": app.code()})).ok();
    let without = json!({"username": "ops2", "password": "second-pass"});
    h.post("/api/admin/login", None, without).fails(StatusCode::BAD_REQUEST, "TOTP_REQUIRED");
    let reused =
        json!({"username": "ops2", "password": "second-pass", "totpCode": app.last_code()});
    h.post("/api/admin/login", None, reused).fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");
    let with = json!({"username": "ops2", "password": "second-pass", "totpCode": app.code()});
    let signed_in = h.post("/api/admin/login", None, with);
    assert!(signed_in.ok()["deviceToken"].as_str().is_some_and(|t| !t.is_empty()));
    assert_eq!(h.get("/api/admin/2fa", Some(&ops)).ok()["enabled"], true);
    let off = |password: &str, code: String| {
        h.post("/api/admin/2fa/disable", Some(&ops), json!({"code": code, "password": password}))
    };
    off("not-my-password", app.code()).fails(StatusCode::BAD_REQUEST, "WRONG_PASSWORD");
    off("second-pass", app.last_code()).ok();

    // Audited, without a secret.
    let audit = h.get("/api/admin/audit?admin=2", Some(&admin));
    let rows = audit.ok()["items"].as_array().unwrap();
    let actions: Vec<&str> = rows.iter().map(|r| r["action"].as_str().unwrap()).collect();
    assert_eq!(actions, ["set_own_totp", "set_own_totp", "change_own_password"]);
    assert!(rows.iter().all(|r| !r["detail"].as_str().unwrap().contains(&secret)));
}

#[test]
fn notices_have_a_language_and_can_be_withdrawn() {
    let h = start();
    let admin = h.admin();
    let send = |title: &str, lang: &str| {
        h.post(
            "/api/admin/notices",
            Some(&admin),
            json!({"title": title, "body": "b", "lang": lang}),
        )
    };
    send("For everyone", "").ok();
    send("Para todos", "es-ES").ok();
    send("x", "xx-XX").fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let titles = |lang: &str| -> Vec<String> {
        let page = h.call_lang(Method::GET, "/api/notices", None, None, Some(lang));
        page.ok()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["title"].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(titles("es-ES"), ["Para todos", "For everyone"]);
    assert_eq!(titles("en-US"), ["For everyone"]);
    let sent = h.get("/api/admin/notices", Some(&admin));
    let first = &sent.ok()["items"][1];
    assert_eq!((first["title"].as_str(), first["lang"].as_str()), (Some("For everyone"), Some("")));
    let id = first["id"].as_u64().unwrap();
    let path = format!("/api/admin/notices/{id}");
    h.call(Method::DELETE, &path, Some(&admin), None).ok();
    h.call(Method::DELETE, &path, Some(&admin), None)
        .fails(StatusCode::CONFLICT, "NOTICE_WITHDRAWN");
    h.call(Method::DELETE, "/api/admin/notices/999999", Some(&admin), None)
        .fails(StatusCode::NOT_FOUND, "NOTICE_NOT_FOUND");
    assert_eq!(titles("en-US"), Vec::<String>::new());
    let sent = h.get("/api/admin/notices", Some(&admin));
    assert!(sent.ok()["items"][1]["withdrawnAt"].as_u64().is_some(), "the admin still sees it");
}

#[test]
fn users_are_found_by_a_part_of_their_name_or_e_mail() {
    let h = start();
    let admin = h.admin();
    let (alpha, _) = h.user("alpha_trader");
    let (beta, _) = h.user("beta_Trader");
    h.user("gamma");
    let found = |q: &str| -> Vec<u64> {
        let page = h.get(&format!("/api/admin/users?q={q}"), Some(&admin));
        page.ok()["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["user"]["uid"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(found("trad"), [u64::from(beta), u64::from(alpha)], "newest first, any case");
    assert_eq!(found("ALPHA_T"), [u64::from(alpha)]);
    assert_eq!(found("a_"), [u64::from(beta), u64::from(alpha)], "a short part too");
    assert_eq!(found("zzz"), Vec::<u64>::new());
    assert_eq!(found(&alpha.to_string())[0], u64::from(alpha), "a UID first");
    assert_eq!(found("alpha_trader@EXAMPLE"), [u64::from(alpha)], "a part of the e-mail");
    assert_eq!(found("example.com").len(), 3);
    // The details carry the live sessions.
    let detail = h.get(&format!("/api/admin/users/{alpha}"), Some(&admin));
    assert_eq!(detail.ok()["user"]["username"], "alpha_trader");
    assert!(!detail.ok()["sessions"].as_array().unwrap().is_empty());
}

#[test]
fn config_keeps_service_hours_the_provider_link_and_an_uploaded_logo() {
    let h = start();
    let admin = h.admin();
    let mut config = h.get("/api/admin/system/config", Some(&admin)).ok().clone();
    assert_eq!(config["basic"]["customerServiceHours"], "09:00-21:00");
    config["basic"]["customerServiceHours"] = json!("08:00-20:00");
    config["basic"]["providerLink"] = json!("https://provider.example/chat");
    h.call(Method::PUT, "/api/admin/system/config", Some(&admin), Some(config)).ok();
    assert_eq!(
        h.get("/api/admin/me", Some(&admin)).ok()["providerLink"],
        "https://provider.example/chat"
    );
    let info = h.get("/api/admin/system/basic-info", None);
    assert_eq!(info.ok()["customerService"]["hours"], "08:00-20:00");
    assert!(info.ok().get("providerLink").is_none(), "the provider is not shown to users");
    // Links open as pages: no script or embedded content, whatever field.
    let saved = h.get("/api/admin/system/config", Some(&admin)).ok().clone();
    let put = |field: &str, value: &str| {
        let mut config = saved.clone();
        config["basic"][field] = json!(value);
        h.call(Method::PUT, "/api/admin/system/config", Some(&admin), Some(config))
    };
    for (field, value) in [
        ("providerLink", "javascript:alert(1)"),
        ("providerLink", "mailto:ops@example.com"),
        ("customerServiceLink", "JavaScript:alert(1)"),
        ("customerServiceLink", "data:text/html,<script>alert(1)</script>"),
        ("customerServiceLink", "//evil.example/chat"),
        ("logo", "javascript:alert(1)"),
        ("logo", "data:image/png;base64,AAAA"),
    ] {
        let refused = put(field, value);
        refused.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!(refused.body["field"], field, "{value}");
    }
    for (field, value) in [
        ("customerServiceLink", "mailto:help@example.com"),
        ("customerServiceLink", "tel:+4930123456"),
        ("customerServiceLink", "https://help.example/chat"),
        ("logo", "/api/uploads/logo.png"),
    ] {
        put(field, value).ok();
    }
    assert_eq!(
        h.get("/api/admin/me", Some(&admin)).ok()["providerLink"],
        "https://provider.example/chat",
        "a refused change changed nothing"
    );
    let products = h.get("/api/admin/products", Some(&admin));
    assert_eq!(products.ok()[0]["source"], "simulated");
    // A logo: uploaded by an admin, fetched by anyone.
    let (_, user) = h.user("lou");
    upload(&h, "/api/admin/system/logo", &user, PNG)
        .fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    let logo = upload(&h, "/api/admin/system/logo", &admin, PNG);
    let url = logo.ok()["url"].as_str().unwrap().to_owned();
    let fetched = h.request(Request::get(&url).body(Body::empty()).unwrap());
    assert_eq!(fetched.status, StatusCode::OK);
}

#[test]
fn a_catalogue_product_is_listed_by_an_admin_and_then_priced_and_traded() {
    let h = start();
    let admin = h.admin();
    let catalogue = h.get("/api/admin/catalogue", Some(&admin));
    let waiting: Vec<&str> =
        catalogue.ok().as_array().unwrap().iter().map(|p| p["symbol"].as_str().unwrap()).collect();
    assert!(waiting.contains(&"SUIUSDT") && waiting.contains(&"EURCHF"), "{waiting:?}");
    assert_eq!(catalogue.ok()[0]["source"], "simulated");
    let listed = |code: &str| {
        let markets = h.get("/api/markets", None);
        markets.ok().as_array().unwrap().iter().any(|m| m["symbol"] == code)
    };
    assert!(!listed("SUIUSDT"), "not shown before it is listed");
    h.get("/api/markets/SUIUSDT", None).fails(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND");
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "cash1", "password": "admin-pass", "role": "finance"}),
    )
    .ok();
    let finance = admin_login(&h, "cash1", "admin-pass");
    h.post("/api/admin/products", Some(&finance), json!({"symbol": "SUIUSDT"}))
        .fails(StatusCode::FORBIDDEN, "FORBIDDEN");
    h.post("/api/admin/products", Some(&admin), json!({"symbol": "NOPEUSDT"}))
        .fails(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND");
    h.post("/api/admin/products", Some(&admin), json!({"symbol": "SUIUSDT"})).ok();
    h.post("/api/admin/products", Some(&admin), json!({"symbol": "SUIUSDT"}))
        .fails(StatusCode::CONFLICT, "PRODUCT_LISTED");
    assert!(listed("SUIUSDT"));
    let after = h.get("/api/admin/catalogue", Some(&admin));
    assert!(after.ok().as_array().unwrap().iter().all(|p| p["symbol"] != "SUIUSDT"));
    // Its ticks now reach the engine (sequenced ticks are what subscribers see), and a demo
    // order on it is accepted.
    let mut ticks = h.server.market().subscribe_ticks();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let wait = async {
            loop {
                match ticks.recv().await {
                    Ok(tick) if tick.symbol.to_string() == "SUIUSDT" => break,
                    Ok(_) | Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(closed) => panic!("{closed}"),
                }
            }
        };
        tokio::time::timeout(std::time::Duration::from_secs(20), wait)
            .await
            .expect("a SUIUSDT tick");
    });
    assert!(!h.get("/api/markets/SUIUSDT", None).ok()["price"].is_null());
    let (_, user) = h.user("sue");
    let order = json!({"symbol": "SUIUSDT", "direction": "up", "amount": "5", "duration": 60, "account": "demo"});
    h.post("/api/trade/orders", Some(&user), order).ok();
}
