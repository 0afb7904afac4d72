//! The back-office: roles, users, rules, config, notices, audit.

use super::*;

#[test]
fn admin_roles_actions_and_audit() {
    let h = start();
    let bad =
        h.post("/api/admin/login", None, json!({"username": "admin", "password": "wrong-pass"}));
    bad.fails(StatusCode::BAD_REQUEST, "ADMIN_LOGIN_FAILED");
    let login =
        h.post("/api/admin/login", None, json!({"username": "admin", "password": ADMIN_PASSWORD}));
    assert_eq!(login.ok()["admin"]["role"], "super");
    let admin = login.ok()["token"].as_str().unwrap().to_owned();
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "viewer1", "password": "viewer-pass", "role": "viewer"}),
    )
    .ok();
    h.post(
        "/api/admin/admins",
        Some(&admin),
        json!({"username": "viewer1", "password": "viewer-pass", "role": "viewer"}),
    )
    .fails(StatusCode::BAD_REQUEST, "USERNAME_EXISTS");
    let viewer =
        h.post("/api/admin/login", None, json!({"username": "viewer1", "password": "viewer-pass"}));
    let viewer = viewer.ok()["token"].as_str().unwrap().to_owned();
    let (uid, user) = h.user("mona");

    // Viewers read but cannot act.
    assert_eq!(
        h.get(&format!("/api/admin/users/{uid}"), Some(&viewer)).ok()["user"]["username"],
        "mona"
    );
    let freeze = format!("/api/admin/users/{uid}/freeze");
    h.post(&freeze, Some(&viewer), json!({"frozen": true, "reason": "check"}))
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
    h.post("/api/admin/house/fund", Some(&viewer), json!({"amount": "1000"}))
        .fails(StatusCode::FORBIDDEN, "FORBIDDEN");
    h.post("/api/admin/house/fund", Some(&admin), json!({"amount": "1000"})).ok();
    let adjust = format!("/api/admin/users/{uid}/adjust");
    h.post(&adjust, Some(&admin), json!({"amount": "25", "reason": "goodwill"})).ok();
    assert_eq!(h.get("/api/wallet/balance", Some(&user)).ok()["available"], "25");
    let found = h.get("/api/admin/users?q=mona", Some(&admin));
    assert_eq!(
        (found.ok()["total"].as_u64(), &found.ok()["items"][0]["available"]),
        (Some(1), &json!("25"))
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
    let by_viewer = h.get("/api/admin/audit?admin=2", Some(&admin));
    assert_eq!(by_viewer.ok()["total"], 0, "the viewer was refused before acting");
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
