//! Markets, orders and records; wallet, deposits with receipts, withdrawals, transfers, bills.

use super::*;

#[test]
fn markets_candles_rules_and_a_demo_order_in_the_records() {
    let h = start();
    let markets = h.get("/api/markets?category=crypto", None);
    let list = markets.ok().as_array().unwrap();
    assert!(list.len() >= 20 && list.iter().all(|m| m["category"] == "crypto"));
    h.get("/api/markets?category=stocks", None).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.get("/api/markets/NOPE1", None).fails(StatusCode::NOT_FOUND, "PRODUCT_NOT_FOUND");
    let candles = h.get("/api/markets/BTCUSDT/candles?period=1h&limit=100", None);
    assert_eq!(candles.ok().as_array().unwrap().len(), 100, "history is backfilled");
    // Served from the page kept encoded: the candles the market gives, the forming one on top,
    // and the same again from the kept page.
    let btc = engine::types::Symbol::new("BTCUSDT").unwrap();
    let market = h.state.market.latest_candles(btc, market_feed::types::Period::H1, 100).unwrap();
    let times = |answer: &Value| -> Vec<u64> {
        answer.as_array().unwrap().iter().map(|c| c["time"].as_u64().unwrap()).collect()
    };
    let first = times(candles.ok());
    assert_eq!(first, market.iter().map(|c| c.open_ms).collect::<Vec<_>>());
    let again = h.get("/api/markets/BTCUSDT/candles?period=1h&limit=100", None);
    assert_eq!(times(again.ok()), first);
    h.get("/api/markets/BTCUSDT/candles?period=2h", None)
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let rules = h.get("/api/trade/rules", None);
    assert_eq!(rules.ok()["rules"][0]["duration"], 60);

    let (_, token) = h.user("ivan");
    let order = |body: Value| h.post("/api/trade/orders", Some(&token), body);
    let valid = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": "demo"});
    for (field, value, message) in [
        ("amount", json!("0"), "Please enter a valid amount"),
        ("amount", json!("abc"), "Please enter a valid amount"),
        ("duration", json!(0), "Please select trading duration"),
        ("direction", json!("sideways"), "Please choose buy up or buy down"),
        // Amounts are plain decimals: no separators, exponents, signs, spaces or bare points.
        ("amount", json!("1_000"), "Please enter a valid amount"),
        ("amount", json!("1E2"), "Please enter a valid amount"),
        ("amount", json!("+10"), "Please enter a valid amount"),
        ("amount", json!(" 10"), "Please enter a valid amount"),
        ("amount", json!("10."), "Please enter a valid amount"),
    ] {
        let mut body = valid.clone();
        body[field] = value;
        let answer = order(body);
        answer.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!(answer.message(), message);
    }
    let mut wrong = valid.clone();
    wrong["duration"] = json!(61);
    order(wrong).fails(StatusCode::BAD_REQUEST, "DURATION_NOT_ALLOWED");
    let mut big = valid.clone();
    big["amount"] = json!("5001");
    let refused = order(big);
    refused.fails(StatusCode::BAD_REQUEST, "STAKE_OUT_OF_RANGE");
    assert_eq!(refused.message(), "Amount must be between 1 and 5000");
    // The embedded default is a demo platform: no real money on simulated prices.
    let mut real = valid.clone();
    real["account"] = json!("real");
    let refused = order(real.clone());
    refused.fails(StatusCode::FORBIDDEN, "SIMULATED_PRICES_DEMO_ONLY");
    assert_eq!(
        refused.message(),
        "This market's prices are simulated: trade it with the demo account"
    );
    let market = h.get("/api/markets/BTCUSDT", None);
    assert_eq!(market.ok()["simulated"], true);
    let accepted = order(valid);
    let id = accepted.ok()["contractId"].as_u64().unwrap();
    let records = h.get("/api/trade/contracts?status=open", Some(&token));
    assert_eq!(records.ok()["items"][0]["id"], id);
    assert_eq!(records.ok()["items"][0]["stake"], "10.00");
    let detail = h.get(&format!("/api/trade/contracts/{id}"), Some(&token));
    assert_eq!(detail.ok()["symbol"], "BTCUSDT");
    let (_, stranger) = h.user("judy");
    h.get(&format!("/api/trade/contracts/{id}"), Some(&stranger))
        .fails(StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND");
    let demo = h.get("/api/wallet/balance?account=demo", Some(&token));
    assert_eq!(
        (demo.ok()["available"].as_str(), demo.ok()["inPosition"].as_str()),
        (Some("9990.00"), Some("10.00"))
    );
    h.post("/api/wallet/demo/reset", Some(&token), json!({}))
        .fails(StatusCode::CONFLICT, "DEMO_HAS_OPEN_CONTRACTS");
}

#[test]
fn a_malformed_idempotency_key_is_refused_and_a_wellformed_one_goes_with_the_order() {
    let h = start();
    let (_, token) = h.user("ines");
    let body = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": "demo"});
    let with_key = |method: Method, path: &str, key: &str, body: Option<Value>| {
        let mut request = Request::builder()
            .method(method)
            .uri(path)
            .header("authorization", format!("Bearer {token}"))
            .header("idempotency-key", key);
        if body.is_some() {
            request = request.header("content-type", "application/json");
        }
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
        h.request(request.body(body).unwrap())
    };
    let records = || h.get("/api/trade/contracts", Some(&token));
    let before = records().ok()["total"].clone();
    for bad in ["a b", &"k".repeat(65)] {
        let refused = with_key(Method::POST, "/api/trade/orders", bad, Some(body.clone()));
        refused.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!(refused.body["field"], "Idempotency-Key", "{}", refused.body);
        // Also where the handler would submit nothing.
        with_key(Method::GET, "/api/user/profile", bad, None)
            .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    }
    assert_eq!(records().ok()["total"], before, "a refused request placed nothing");
    let key = "0b0e6a1c-6a41-4f7e-9d3c-2f1e5a7b9c00";
    let placed = with_key(Method::POST, "/api/trade/orders", key, Some(body));
    assert!(placed.ok()["contractId"].as_u64().is_some_and(|id| id > 0));
    assert_eq!(records().ok()["total"], before.as_u64().unwrap() + 1);
}

#[test]
fn deposit_with_receipt_approval_withdrawal_transfer_and_bills() {
    let h = start();
    let admin = h.admin();
    let (uid, token) = h.user("kate");
    let (other_uid, other) = h.user("liam");
    // Uploads: type by content, access control.
    upload(&h, "/api/upload", &token, b"plain text, not an image")
        .fails(StatusCode::UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE");
    let receipt = upload(&h, "/api/upload", &token, PNG);
    let name = receipt.ok()["name"].as_str().unwrap().to_owned();
    let url = format!("/api/uploads/{name}");
    h.get(&url, None).fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    h.get(&url, Some(&other)).fails(StatusCode::NOT_FOUND, "UPLOAD_NOT_FOUND");
    assert_eq!(h.get(&url, Some(&token)).status, StatusCode::OK);
    assert_eq!(h.get(&url, Some(&admin)).status, StatusCode::OK);

    // Where to pay: none until an admin sets it, then per method; bad details change nothing.
    let info = h.get("/api/wallet/deposit-info", Some(&token));
    assert_eq!(
        (info.ok()["minAmount"].as_str(), info.ok()["accounts"].as_array().map(Vec::len)),
        (Some("10"), Some(0))
    );
    let accounts = json!({"accounts": [
        {"method": "usdt_trc20", "name": "Platform TRC20", "number": "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz", "bank": ""},
        {"method": "bank_transfer", "name": "Trading Ltd", "number": "DE89370400440532013000", "bank": "Example Bank"},
    ]});
    let put = |body: Value| {
        h.call(Method::PUT, "/api/admin/system/deposit-accounts", Some(&admin), Some(body))
    };
    put(json!({"accounts": [{"method": "bank_transfer", "name": "X", "number": "1", "bank": ""}]}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    put(json!({"accounts": [{"method": "usdt_erc20", "name": "X", "number": "not an address!", "bank": ""}]}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    put(json!({"accounts": [{"method": "paypal", "name": "X", "number": "1", "bank": "B"}]}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    put(json!({})).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.call(Method::PUT, "/api/admin/system/deposit-accounts", Some(&token), Some(accounts.clone()))
        .fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    assert_eq!(put(accounts).ok().as_array().unwrap().len(), 2);
    let info = h.get("/api/wallet/deposit-info", Some(&token));
    let shown = &info.ok()["accounts"];
    assert_eq!(
        (shown[0]["method"].as_str(), shown[0]["bank"].as_str()),
        (Some("bank_transfer"), Some("Example Bank"))
    );
    assert_eq!(shown[1]["number"], "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz");
    let audit = h.get("/api/admin/audit", Some(&admin));
    assert!(audit.ok()["items"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["action"] == "set_deposit_accounts"));

    // A transfer's recipient is named before the sender confirms, masked.
    let named = h.get(&format!("/api/wallet/recipient/{other_uid}"), Some(&token));
    assert_eq!(named.ok()["name"], "l***m");
    h.get("/api/wallet/recipient/99999", Some(&token))
        .fails(StatusCode::NOT_FOUND, "USER_NOT_FOUND");
    h.get("/api/wallet/recipient/abc", Some(&token)).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.get("/api/wallet/recipient/0", Some(&token)).fails(StatusCode::NOT_FOUND, "USER_NOT_FOUND");
    h.get(&format!("/api/wallet/recipient/{other_uid}"), None)
        .fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    let deposit = |receipt: &str| json!({"amount": "500", "method": "bank_transfer", "accountName": "Kate", "accountNumber": "123", "bankName": "Bank", "receipt": receipt});
    let missing = h.post("/api/wallet/deposits", Some(&token), deposit(""));
    assert_eq!(missing.message(), "Please upload the payment receipt");
    h.post("/api/wallet/deposits", Some(&other), deposit(&name))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let order = h.post("/api/wallet/deposits", Some(&token), deposit(&name));
    let order_id = order.ok()["orderId"].as_u64().unwrap();
    // One receipt backs one deposit: not a second one beside it, nor after it is decided.
    let again = h.post("/api/wallet/deposits", Some(&token), deposit(&name));
    again.fails(StatusCode::CONFLICT, "RECEIPT_USED");
    assert_eq!(again.body["field"], "receipt");
    assert_eq!(h.get("/api/admin/recharge-orders/pending-count", Some(&admin)).ok()["count"], 1);
    h.post(&format!("/api/admin/recharge-orders/{order_id}/approve"), Some(&admin), json!({})).ok();
    h.post(&format!("/api/admin/recharge-orders/{order_id}/approve"), Some(&admin), json!({}))
        .fails(StatusCode::NOT_FOUND, "ORDER_NOT_FOUND");
    assert_eq!(h.get("/api/admin/recharge-orders/pending-count", Some(&admin)).ok()["count"], 0);
    h.post("/api/wallet/deposits", Some(&token), deposit(&name))
        .fails(StatusCode::CONFLICT, "RECEIPT_USED");
    let mine = h.get("/api/wallet/deposits", Some(&token));
    assert_eq!(mine.ok()["items"][0]["status"], "completed");
    let balance = h.get("/api/wallet/balance", Some(&token));
    assert_eq!(balance.ok()["available"], "500.00");

    // Transfer, then withdrawals.
    h.post("/api/wallet/transfers", Some(&token), json!({"toUid": uid, "amount": "5"}))
        .fails(StatusCode::BAD_REQUEST, "SELF_TRANSFER");
    h.post("/api/wallet/transfers", Some(&token), json!({"toUid": 0, "amount": "5"}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.post("/api/wallet/transfers", Some(&token), json!({"toUid": 99999, "amount": "5"}))
        .fails(StatusCode::NOT_FOUND, "USER_NOT_FOUND");
    h.post("/api/wallet/transfers", Some(&token), json!({"toUid": other_uid, "amount": "100"}))
        .ok();
    assert_eq!(h.get("/api/wallet/balance", Some(&other)).ok()["available"], "100.00");
    let withdraw = |body: Value| h.post("/api/wallet/withdrawals", Some(&token), body);
    assert_eq!(
        withdraw(json!({"method": "card", "amount": "50"})).message(),
        "Invalid withdrawal method"
    );
    assert_eq!(
        withdraw(json!({"method": "wallet", "chain": "eth", "address": "0x12", "amount": "50"}))
            .message(),
        "Please enter a valid wallet address"
    );
    assert_eq!(
        withdraw(json!({"method": "bank", "accountName": "K", "amount": "50"})).message(),
        "Please fill in all bank information"
    );
    // A mixed-case address must carry its EIP-55 checksum; the zero address is nobody's.
    for bad in
        ["0x2c7536E3605D9C16a7a3D7b1898e529396a65C23", "0x0000000000000000000000000000000000000000"]
    {
        let refused =
            withdraw(json!({"method": "wallet", "chain": "eth", "address": bad, "amount": "50"}));
        assert_eq!(refused.message(), "Please enter a valid wallet address", "{bad}");
    }
    withdraw(json!({"method": "wallet", "chain": "eth", "address": "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "amount": "100000"})).fails(StatusCode::BAD_REQUEST, "AMOUNT_OUT_OF_RANGE");
    let address = json!({"label": "main", "chain": "eth", "address": "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23", "isDefault": true});
    let saved = h.post("/api/wallet/addresses", Some(&token), address);
    assert_eq!(saved.ok()[0]["isDefault"], true);
    let w = withdraw(json!({"method": "wallet", "addressPosition": 0, "amount": "50"}));
    let w_id = w.ok()["orderId"].as_u64().unwrap();
    let frozen = h.get("/api/wallet/balance", Some(&token));
    assert_eq!(
        (frozen.ok()["available"].as_str(), frozen.ok()["frozen"].as_str()),
        (Some("350.00"), Some("50.00"))
    );
    let reject = format!("/api/admin/withdraw-orders/{w_id}/reject");
    assert_eq!(
        h.post(&reject, Some(&admin), json!({"remark": ""})).message(),
        "Please give a remark"
    );
    h.post(&reject, Some(&admin), json!({"remark": "name mismatch"})).ok();
    let listed = h.get("/api/wallet/withdrawals", Some(&token));
    assert_eq!(
        (listed.ok()["items"][0]["status"].as_str(), listed.ok()["items"][0]["remark"].as_str()),
        (Some("rejected"), Some("name mismatch"))
    );
    assert_eq!(h.get("/api/wallet/balance", Some(&token)).ok()["available"], "400.00");

    // Approved: processing with the money frozen, then paid (completed) or failed (returned).
    let payout = |amount: &str| {
        let w = withdraw(json!({"method": "wallet", "addressPosition": 0, "amount": amount}));
        w.ok()["orderId"].as_u64().unwrap()
    };
    let (paid, failed) = (payout("20"), payout("30"));
    assert_eq!(h.get("/api/admin/withdraw-orders/pending-count", Some(&admin)).ok()["count"], 2);
    let act = |id: u64, what: &str| {
        h.post(
            &format!("/api/admin/withdraw-orders/{id}/{what}"),
            Some(&admin),
            json!({"remark": "bank refused"}),
        )
    };
    act(paid, "paid").fails(StatusCode::CONFLICT, "ORDER_WRONG_STATE");
    act(paid, "approve").ok();
    act(failed, "approve").ok();
    assert_eq!(h.get("/api/admin/withdraw-orders/pending-count", Some(&admin)).ok()["count"], 0);
    let status = |id: u64| {
        let listed = h.get("/api/wallet/withdrawals", Some(&token));
        let items = listed.ok()["items"].as_array().unwrap().clone();
        let row = items.into_iter().find(|r| r["id"] == id).unwrap();
        (row["status"].as_str().unwrap().to_owned(), row["completedAt"].is_null())
    };
    assert_eq!(status(paid), ("processing".into(), true));
    let refused = act(paid, "reject");
    refused.fails(StatusCode::CONFLICT, "ORDER_WRONG_STATE");
    assert_eq!(refused.message(), "This order is not in a state that allows this action");
    let balance = h.get("/api/wallet/balance", Some(&token));
    assert_eq!(
        (balance.ok()["available"].as_str(), balance.ok()["frozen"].as_str()),
        (Some("350.00"), Some("50.00"))
    );
    act(paid, "paid").ok();
    act(failed, "failed").ok();
    act(failed, "failed").fails(StatusCode::NOT_FOUND, "ORDER_NOT_FOUND");
    assert_eq!(status(paid), ("completed".into(), false));
    assert_eq!(status(failed), ("failed".into(), false));
    let balance = h.get("/api/wallet/balance", Some(&token));
    assert_eq!(
        (balance.ok()["available"].as_str(), balance.ok()["frozen"].as_str()),
        (Some("380.00"), Some("0.00"))
    );
    let processing = h.get("/api/admin/withdraw-orders?status=failed", Some(&admin));
    assert_eq!(processing.ok()["items"][0]["remark"], "bank refused");
    h.post(
        "/api/wallet/withdrawals",
        Some(&token),
        json!({"method": "wallet", "addressPosition": 0, "amount": "15"}),
    )
    .ok();
    let open = h.get("/api/wallet/withdrawals?status=pending", Some(&token));
    assert_eq!(open.ok()["total"], 1);
    let cancel_id = open.ok()["items"][0]["id"].as_u64().unwrap();
    h.post(
        &format!("/api/admin/withdraw-orders/{cancel_id}/reject"),
        Some(&admin),
        json!({"remark": "test"}),
    )
    .ok();

    // Bills with type filter and totals.
    let bills = h.get("/api/wallet/bills", Some(&token));
    let types: Vec<&str> = bills.ok()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["type"].as_str().unwrap())
        .collect();
    assert_eq!(types, ["withdraw", "transfer_out", "deposit"]);
    assert_eq!(
        (bills.ok()["totalIn"].as_str(), bills.ok()["totalOut"].as_str()),
        (Some("500.00"), Some("-120.00"))
    );
    let deposits_only =
        h.get("/api/wallet/bills?type=deposit&start=2020-01-01&end=2999-12-31", Some(&token));
    assert_eq!(deposits_only.ok()["total"], 1);
    h.get("/api/wallet/bills?type=bonus", Some(&token))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.get("/api/wallet/bills?start=yesterday", Some(&token))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let invite = h.get("/api/invite", Some(&token));
    assert!(invite.ok()["link"]
        .as_str()
        .unwrap()
        .starts_with("https://trade.example/login/register?code="));

    // The dashboard's day: the approved deposit and the paid withdrawal count, the rejected,
    // failed and pending ones do not.
    let days = h.get("/api/admin/dashboard/days?days=3", Some(&admin));
    let days = days.ok().as_array().unwrap().clone();
    assert_eq!(days.len(), 3);
    let today = &days[2];
    assert_eq!(
        (
            &today["deposits"],
            &today["depositAmount"],
            &today["withdrawals"],
            &today["withdrawalAmount"]
        ),
        (&json!(1), &json!("500.00"), &json!(1), &json!("20.00"))
    );
    assert_eq!(today["registrations"], 2);
    assert!(today["logins"].as_u64().unwrap() >= 2);
    assert_eq!(days[1]["deposits"], 0, "yesterday is empty");
    let day_ms = days[2]["day"].as_u64().unwrap() - days[1]["day"].as_u64().unwrap();
    assert_eq!(day_ms, 86_400_000);
    h.get("/api/admin/dashboard/days?days=0", Some(&admin))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.get("/api/admin/dashboard/days?days=91", Some(&admin))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.get("/api/admin/dashboard/days", Some(&token))
        .fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");

    // The state audit: money conserved after these flows; an index far ahead audits the state
    // now, one past the documented maximum (2^53 - 1) is refused.
    let now = h.get("/api/admin/state-audit", Some(&admin));
    assert_eq!(now.ok()["invariantsHold"], true);
    assert_eq!(now.ok()["stateHash"].as_str().unwrap().len(), 16);
    let ahead = h.get("/api/admin/state-audit?index=9007199254740991", Some(&admin));
    assert_eq!(ahead.ok()["invariantsHold"], true);
    h.get("/api/admin/state-audit?index=9007199254740992", Some(&admin))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
}

/// The success path of the routes the flows above do not take.
#[test]
fn remaining_routes_succeed() {
    let h = start();
    let admin = h.admin();
    let (uid, token) = h.user("nina");
    let profile = h.call(
        Method::PUT,
        "/api/user/profile",
        Some(&token),
        Some(json!({"nickname": "Nina", "bio": "hi", "phone": "+1 555"})),
    );
    assert_eq!(profile.ok()["nickname"], "Nina");
    h.call(Method::PUT, "/api/user/profile", Some(&token), Some(json!({"phone": "call me"})))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    assert_eq!(h.get("/api/user/profile", Some(&token)).ok()["bio"], "hi");
    // Until saved: price alerts, trade and system on; e-mail, marketing and newsletter off.
    let defaults = h.get("/api/user/notification-settings", Some(&token));
    assert_eq!(
        defaults.ok(),
        &json!({"email": false, "priceAlerts": true, "trade": true, "system": true, "marketing": false, "newsletter": false})
    );
    let settings = json!({"email": true, "priceAlerts": false, "trade": false, "system": true, "marketing": false, "newsletter": true});
    h.call(Method::PUT, "/api/user/notification-settings", Some(&token), Some(settings.clone()))
        .ok();
    assert_eq!(h.get("/api/user/notification-settings", Some(&token)).ok(), &settings);
    let avatar = upload(&h, "/api/user/avatar", &token, PNG);
    let url = avatar.ok()["avatar"].as_str().unwrap().to_owned();
    assert_eq!(h.get(&url, None).status, StatusCode::OK, "avatars are public");
    h.post("/api/user/email/send-code", Some(&token), json!({})).ok();
    let code = h.outbox_code();
    assert_eq!(
        h.post("/api/user/email/verify", Some(&token), json!({"code": code})).ok()["emailVerified"],
        true
    );
    let team = h.get("/api/invite/team", Some(&token));
    assert_eq!(team.ok().as_array().unwrap().len(), 3);
    assert_eq!(
        (team.ok()[0]["generation"].as_u64(), team.ok()[0]["notCertified"].as_u64()),
        (Some(1), Some(0))
    );
    let address =
        json!({"label": "t", "chain": "tron", "address": "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz"});
    assert_eq!(
        h.post("/api/wallet/addresses", Some(&token), address).ok().as_array().unwrap().len(),
        1
    );
    assert_eq!(h.get("/api/wallet/addresses", Some(&token)).ok()[0]["chain"], "tron");
    assert!(h
        .call(Method::DELETE, "/api/wallet/addresses/0", Some(&token), None)
        .ok()
        .as_array()
        .unwrap()
        .is_empty());
    assert_eq!(h.get("/api/wallet/withdraw-info", Some(&token)).ok()["requiresTwoFactor"], false);
    h.post("/api/wallet/demo/reset", Some(&token), json!({})).ok();

    assert_eq!(h.get("/api/admin/me", Some(&admin)).ok()["username"], "admin");
    let products = h.get("/api/admin/products", Some(&admin));
    assert!(products.ok().as_array().unwrap().len() >= 30);
    h.call(
        Method::PUT,
        "/api/admin/products/DOGEUSDT",
        Some(&admin),
        Some(json!({"name": "DOGE/USDT", "enabled": false})),
    )
    .ok();
    let order = json!({"symbol": "DOGEUSDT", "direction": "up", "amount": "5", "duration": 60, "account": "demo"});
    h.post("/api/trade/orders", Some(&token), order)
        .fails(StatusCode::BAD_REQUEST, "PRODUCT_DISABLED");
    let rules = h.call(Method::DELETE, "/api/admin/rules/604800", Some(&admin), None);
    assert!(rules.ok().as_array().unwrap().iter().all(|r| r["duration"] != 604800));
    assert_eq!(h.get("/api/admin/rules", Some(&admin)).ok().as_array().unwrap().len(), 5);
    let order = json!({"symbol": "BTCUSDT", "direction": "down", "amount": "5", "duration": 60, "account": "demo"});
    h.post("/api/trade/orders", Some(&token), order).ok();
    assert_eq!(h.get(&format!("/api/admin/trades?user={uid}"), Some(&admin)).ok()["total"], 1);
    assert_eq!(h.get("/api/admin/trades?symbol=BTCUSDT", Some(&admin)).ok()["total"], 1);
    let trades =
        |q: &str| h.get(&format!("/api/admin/trades?{q}"), Some(&admin)).ok()["total"].clone();
    assert_eq!(trades("account=demo&start=2020-01-01&end=2999-12-31"), 1);
    assert_eq!(trades("account=real"), 0, "the order was on the demo account");
    assert_eq!(trades("start=2999-01-01"), 0);
    h.get("/api/admin/trades?account=paper", Some(&admin))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    assert_eq!(h.get("/api/admin/recharge-orders?status=pending", Some(&admin)).ok()["total"], 0);
    assert_eq!(h.get("/api/admin/withdraw-orders", Some(&admin)).ok()["total"], 0);
    assert_eq!(h.get("/api/admin/withdraw-orders/pending-count", Some(&admin)).ok()["count"], 0);
    h.post("/api/admin/withdraw-orders/7/approve", Some(&admin), json!({}))
        .fails(StatusCode::NOT_FOUND, "ORDER_NOT_FOUND");
}

/// An operator who allows real money on simulated prices gets the ordinary checks.
#[test]
fn real_money_on_simulated_prices_only_when_the_operator_allows_it() {
    let h = crate::start_with_http(|http| http.real_money_on_simulated_prices = true);
    let (_, token) = h.user("kate");
    let order = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": "real"});
    h.post("/api/trade/orders", Some(&token), order)
        .fails(StatusCode::BAD_REQUEST, "INSUFFICIENT_BALANCE");
}

/// Transfers guard money like withdrawals: the 2FA code when 2FA is on, and no money out for
/// 24 h after a password change (a stolen session cannot move it out at once).
#[test]
fn transfers_need_the_second_factor_and_wait_24_h_after_a_password_change() {
    let h = start();
    let admin = h.admin();
    let (uid, token) = h.user("mona");
    let (other_uid, _) = h.user("nils");
    h.post("/api/admin/house/fund", Some(&admin), json!({"amount": "1000"})).ok();
    let adjust = json!({"amount": "100", "reason": "test funds"});
    h.post(&format!("/api/admin/users/{uid}/adjust"), Some(&admin), adjust).ok();
    let mut app = h.enable_two_factor(&token);
    let send = |body: Value| h.post("/api/wallet/transfers", Some(&token), body);
    send(json!({"toUid": other_uid, "amount": "5"}))
        .fails(StatusCode::BAD_REQUEST, "TOTP_REQUIRED");
    let code = app.code();
    send(json!({"toUid": other_uid, "amount": "5", "totpCode": code})).ok();
    // The same code cannot move money twice.
    send(json!({"toUid": other_uid, "amount": "5", "totpCode": code}))
        .fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");

    let change =
        json!({"oldPassword": "secret1", "newPassword": "secret2", "confirmPassword": "secret2"});
    h.post("/api/user/password", Some(&token), change).ok();
    let blocked = send(json!({"toUid": other_uid, "amount": "5", "totpCode": app.code()}));
    blocked.fails(StatusCode::BAD_REQUEST, "TRANSFER_BLOCKED");
    assert_eq!(
        blocked.message(),
        "Transfers are not allowed within 24 hours after the login password is changed"
    );
    assert_eq!(h.get("/api/wallet/balance", Some(&token)).ok()["available"], "95.00");
}

/// Looking up who a UID is costs: a few a minute, so nobody walks the UIDs to list users.
#[test]
fn recipient_lookups_are_rate_limited() {
    let h = start();
    let (_, token) = h.user("nora");
    let (other, _) = h.user("otto");
    let path = format!("/api/wallet/recipient/{other}");
    let mut answered = 0;
    loop {
        let answer = h.get(&path, Some(&token));
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            answer.fails(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
            break;
        }
        assert_eq!(answer.ok()["name"], "o***o");
        answered += 1;
        assert!(answered <= 10, "never limited");
    }
    assert_eq!(answered, 10);
}

/// Uploads are bounded per user: a quota of files and bytes, and a rate.
#[test]
fn uploads_have_a_quota_and_a_rate_limit() {
    let h = crate::start_with_http(|http| {
        http.upload_quota = gateway::state::UploadQuota { files: 3, bytes: 1024 * 1024 }
    });
    let (_, token) = h.user("olga");
    for _ in 0..3 {
        upload(&h, "/api/upload", &token, PNG).ok();
    }
    let over = upload(&h, "/api/upload", &token, PNG);
    over.fails(StatusCode::CONFLICT, "UPLOAD_QUOTA_EXCEEDED");
    assert_eq!(over.message(), "Upload limit reached: at most 3 files and 1 MB per account");
    let mut huge = PNG.to_vec();
    huge.resize(6 * 1024 * 1024, 0);
    let big = upload(&h, "/api/upload", &token, &huge);
    big.fails(StatusCode::PAYLOAD_TOO_LARGE, "UPLOAD_TOO_LARGE");
    assert_eq!(big.message(), "The file is too large: at most 5 MB");

    // Under the default quota: the 11th upload within a minute is refused.
    let h = start();
    let (_, other) = h.user("pete");
    let answers: Vec<StatusCode> =
        (0..11).map(|_| upload(&h, "/api/upload", &other, PNG).status).collect();
    assert_eq!(answers[..10], [StatusCode::OK; 10], "{answers:?}");
    assert_eq!(answers[10], StatusCode::TOO_MANY_REQUESTS);
}

/// Responsible trading: the user's own limits refuse orders with a clear message; tightening
/// is at once, loosening waits; an admin can read the limits and has no call to change them.
#[test]
fn responsible_trading_limits_refuse_orders_and_admins_only_read_them() {
    let h = start();
    let admin = h.admin();
    let (uid, token) = h.user("rita");
    let put =
        |body: Value| h.call(Method::PUT, "/api/user/trading-limits", Some(&token), Some(body));
    let order = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": "demo"});
    assert!(h.get("/api/user/trading-limits", Some(&token)).ok()["current"]["dailyLoss"].is_null());
    put(json!({"dailyLoss": "abc"})).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    put(json!({"openContracts": 0})).fails(StatusCode::BAD_REQUEST, "VALIDATION");

    let now_ms =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
            as u64;
    let until = (now_ms / 86_400_000 + 30) * 86_400_000; // midnight UTC, 30 days ahead
    let set = put(json!({"dailyLoss": "50", "excludedUntil": until}));
    assert_eq!(set.ok()["current"]["dailyLoss"], "50");
    assert_eq!(set.ok()["current"]["excludedUntil"], until);
    let refused = h.post("/api/trade/orders", Some(&token), order.clone());
    refused.fails(StatusCode::FORBIDDEN, "SELF_EXCLUDED");
    let message = refused.message().to_owned();
    assert!(
        message.starts_with("You have excluded yourself from trading until 20")
            && message.ends_with(" 00:00 UTC"),
        "{message}"
    );
    put(json!({"excludedUntil": now_ms + 6 * 365 * 86_400_000}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    put(json!({"dailyLoss": ""})).fails(StatusCode::BAD_REQUEST, "VALIDATION");

    // Loosening: asked for, shown as pending, not in force; the exclusion cannot be shortened.
    let loose = put(json!({"dailyLoss": "500"}));
    assert_eq!(loose.ok()["current"]["dailyLoss"], "50");
    assert_eq!(loose.ok()["current"]["excludedUntil"], until);
    assert_eq!(loose.ok()["pending"]["dailyLoss"], "500");
    assert!(loose.ok()["pendingFrom"].as_u64().is_some());

    // The admin sees them, and no admin route changes them.
    let seen = h.get(&format!("/api/admin/users/{uid}/trading-limits"), Some(&admin));
    assert_eq!(seen.ok()["current"]["excludedUntil"], until);
    h.get("/api/admin/users/99999/trading-limits", Some(&admin))
        .fails(StatusCode::NOT_FOUND, "USER_NOT_FOUND");
    h.call(
        Method::PUT,
        &format!("/api/admin/users/{uid}/trading-limits"),
        Some(&admin),
        Some(json!({})),
    )
    .fails(StatusCode::METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED");
    h.get("/api/user/trading-limits", Some(&admin)).fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

/// The transaction history and the contract records export as CSV: every row the screen's
/// filters match, oldest first and across the export's batches, with the same amounts as the
/// history's totals and the wallet; a few exports a minute per account.
#[test]
fn exports_stream_every_matching_bill_and_contract_as_csv() {
    let h = start();
    let admin = h.admin();
    let (uid, token) = h.user("olga");
    let (other_uid, _) = h.user("pia");
    h.post("/api/admin/house/fund", Some(&admin), json!({"amount": "100000"})).ok();
    let adjustments = gateway::api::export::EXPORT_BATCH_ROWS + 2;
    let adjust = format!("/api/admin/users/{uid}/adjust");
    for n in 0..adjustments {
        h.post(&adjust, Some(&admin), json!({"amount": "1.01", "reason": format!("n{n}")})).ok();
    }
    h.post("/api/wallet/transfers", Some(&token), json!({"toUid": other_uid, "amount": "5"})).ok();
    let order = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": "demo"});
    let contract = h.post("/api/trade/orders", Some(&token), order).ok()["contractId"].as_u64();

    let export = |path: &str| {
        let answer = h.get(path, Some(&token));
        assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text);
        let mut reader = csv::Reader::from_reader(answer.text.as_bytes());
        let header: Vec<String> = reader.headers().unwrap().iter().map(str::to_owned).collect();
        let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
        (answer, header, rows)
    };
    let (answer, header, bills) = export("/api/wallet/bills/export");
    assert_eq!(answer.headers["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        answer.headers["content-disposition"],
        "attachment; filename=\"transactions-real.csv\""
    );
    assert_eq!(
        header,
        [
            "id",
            "time",
            "account",
            "type",
            "amount",
            "balance_after",
            "available_after",
            "reference"
        ]
    );
    assert_eq!(bills.len(), adjustments + 1, "every bill, past the first batch");
    let ids: Vec<u64> = bills.iter().map(|r| r[0].parse().unwrap()).collect();
    assert!(ids.windows(2).all(|w| w[0] < w[1]), "oldest first");
    let sum: rust_decimal::Decimal =
        bills.iter().map(|r| r[4].parse::<rust_decimal::Decimal>().unwrap()).sum();
    let wallet = h.get("/api/wallet/balance", Some(&token));
    assert_eq!(sum.to_string(), "1007.02");
    assert_eq!(wallet.ok()["total"], "1007.02");
    assert_eq!(&bills[bills.len() - 1][5], wallet.ok()["total"].as_str().unwrap());
    assert_eq!(&bills[bills.len() - 1][6], wallet.ok()["available"].as_str().unwrap());
    assert_eq!((&bills[0][1][..2], &bills[0][3]), ("20", "adjustment"), "RFC 3339 time, wire type");
    let screen = h.get("/api/wallet/bills?pageSize=1", Some(&token));
    assert_eq!(screen.ok()["total"], bills.len() as u64);

    let (_, _, sent) = export("/api/wallet/bills/export?type=transfer_out");
    assert_eq!(sent.len(), 1);
    assert_eq!((&sent[0][4], &sent[0][7]), ("-5.00", other_uid.to_string().as_str()));
    let (_, header, none) = export("/api/wallet/bills/export?end=1970-01-02");
    assert_eq!((header.len(), none.len()), (8, 0), "a range before every bill: the header only");

    // The statement: opening + the movements = closing, which is the wallet's total now.
    let statement = h.get("/api/wallet/statement", Some(&token));
    let whole = statement.ok();
    assert_eq!((&whole["opening"], &whole["closing"]), (&json!("0.00"), &wallet.ok()["total"]));
    assert_eq!(
        (whole["count"].as_u64(), &whole["totalIn"]),
        (Some(bills.len() as u64), &json!("1012.02"))
    );
    assert_eq!(whole["totalOut"], "-5.00");
    // A range between two bills: its balances are the ones the export shows around it.
    let (third, fourth): (u64, u64) = (bills[2][0].parse().unwrap(), bills[3][0].parse().unwrap());
    let time = |row: &csv::StringRecord| {
        let at =
            time::OffsetDateTime::parse(&row[1], &time::format_description::well_known::Rfc3339);
        u64::try_from(at.unwrap().unix_timestamp_nanos() / 1_000_000).unwrap()
    };
    assert!(third < fourth);
    let path = format!("/api/wallet/statement?start={}&end={}", time(&bills[1]), time(&bills[2]));
    let part = h.get(&path, Some(&token));
    let within = bills.iter().filter(|r| time(r) >= time(&bills[1]) && time(r) <= time(&bills[2]));
    let first_in = bills.iter().position(|r| time(r) >= time(&bills[1])).unwrap();
    let last_in = bills.iter().rposition(|r| time(r) <= time(&bills[2])).unwrap();
    let opening: rust_decimal::Decimal =
        bills[first_in][5].parse::<rust_decimal::Decimal>().unwrap()
            - bills[first_in][4].parse::<rust_decimal::Decimal>().unwrap();
    assert_eq!(part.ok()["opening"], opening.to_string());
    assert_eq!(part.ok()["closing"], &bills[last_in][5]);
    assert_eq!(part.ok()["count"], within.count() as u64);
    let before = h.get("/api/wallet/statement?end=1970-01-02", Some(&token));
    assert_eq!(
        (&before.ok()["opening"], &before.ok()["closing"]),
        (&json!("0.00"), &json!("0.00"))
    );
    // An account without a bill has had its wallet's balance all along.
    let demo = h.get("/api/wallet/statement?account=demo", Some(&token));
    let demo_total = h.get("/api/wallet/balance?account=demo", Some(&token)).ok()["total"].clone();
    assert_eq!((&demo.ok()["opening"], &demo.ok()["closing"]), (&demo_total, &demo_total));
    h.get("/api/wallet/statement?end=someday", Some(&token))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let (answer, header, contracts) = export("/api/trade/contracts/export?account=demo");
    assert_eq!(
        answer.headers["content-disposition"],
        "attachment; filename=\"contracts-demo.csv\""
    );
    assert_eq!((&header[0][..], &header[2][..], &header[14][..]), ("id", "symbol", "status"));
    assert_eq!(contracts.len(), 1);
    assert_eq!(contracts[0][0].parse::<u64>().ok(), contract);
    assert_eq!((&contracts[0][2], &contracts[0][3], &contracts[0][4]), ("BTCUSDT", "up", "10.00"));

    // Five exports so far: the sixth within the minute is refused, and bad input changes nothing.
    h.get("/api/wallet/bills/export?start=yesterday", Some(&token))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.get("/api/wallet/bills/export", None).fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
    export("/api/trade/contracts/export");
    h.get("/api/wallet/bills/export", Some(&token))
        .fails(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
}

/// The statement as a PDF, in the caller's language: its balances and totals are the JSON
/// statement's, which are the wallet's, formatted as the web app formats them.
#[test]
fn the_pdf_statement_shows_the_wallets_figures_in_the_callers_language() {
    let h = start();
    let admin = h.admin();
    let (uid, token) = h.user("olga");
    let (other_uid, _) = h.user("pia");
    h.post("/api/admin/house/fund", Some(&admin), json!({"amount": "100000"})).ok();
    let adjust = format!("/api/admin/users/{uid}/adjust");
    for amount in ["1000", "12.02"] {
        h.post(&adjust, Some(&admin), json!({"amount": amount, "reason": "seed"})).ok();
    }
    h.post("/api/wallet/transfers", Some(&token), json!({"toUid": other_uid, "amount": "5"})).ok();
    let wallet = h.get("/api/wallet/balance", Some(&token)).ok()["total"].clone();
    assert_eq!(wallet, "1007.02");
    let statement = h.get("/api/wallet/statement", Some(&token)).ok().clone();
    assert_eq!(statement["closing"], wallet);

    let pdf = |path: &str, language: &str| {
        let answer = h.call_lang(Method::GET, path, Some(&token), None, Some(language));
        assert_eq!(answer.status, StatusCode::OK, "{path}: {}", answer.text);
        assert_eq!(answer.headers["content-type"], "application/pdf");
        let disposition = answer.headers["content-disposition"].to_str().unwrap();
        assert!(disposition.starts_with("attachment; filename=\"statement-"), "{disposition}");
        pdf_extract::extract_text_from_mem(&answer.bytes).unwrap()
    };
    let english = pdf("/api/wallet/statement/pdf", "en-US");
    for expected in [
        "Account statement",
        "olga · UID",
        "Since the account was opened",
        "Opening balance",
        "0.00",
        "Adjustment",
        "+1,012.02",
        "Transfer out",
        "-5.00",
        "Closing balance",
        "1,007.02",
        "Movements in this period: 3.",
    ] {
        assert!(english.contains(expected), "{expected:?} in {english}");
    }
    let german = pdf("/api/wallet/statement/pdf?end=2999-12-31", "de-DE");
    for expected in ["Kontoauszug", "Bis 2999-12-31", "+1.012,02", "-5,00", "1.007,02"] {
        assert!(german.contains(expected), "{expected:?} in {german}");
    }
    let arabic = pdf("/api/wallet/statement/pdf", "ar-AR");
    assert!(arabic.contains("1,007.02") && arabic.contains("+1,012.02"), "{arabic}");
    // A trader's local day starts off a UTC midnight: the period shows that bound's UTC time.
    let local = pdf("/api/wallet/statement/pdf?start=1764450000000&end=2999-12-31", "en-US");
    assert!(local.contains("2025-11-29 21:00 UTC – 2999-12-31"), "{local}");
    let demo = pdf("/api/wallet/statement/pdf?account=demo", "en-US");
    let demo_total = h.get("/api/wallet/balance?account=demo", Some(&token)).ok()["total"].clone();
    let demo_total: rust_decimal::Decimal = demo_total.as_str().unwrap().parse().unwrap();
    assert!(
        demo.contains("Demo")
            && demo.contains(&format!("{demo_total:.2}").replace("10000", "10,000")),
        "{demo}"
    );
    h.get("/api/wallet/statement/pdf?start=yesterday", Some(&token))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.get("/api/wallet/statement/pdf", None).fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

/// Early close over HTTP: the offer of an open contract, a sale refused when the offer fell
/// below the one sent (with the offer of now, nothing sold), then a sale at the offer of now,
/// recorded with every figure it came from and paid into the wallet with a sale bill.
#[test]
fn a_contract_sells_back_at_the_offer_sent_or_better_and_is_recorded_with_its_figures() {
    use rust_decimal::Decimal;

    let h = start();
    let (_, token) = h.user("sven");
    let last = warm_up_btc(&h);
    let tick = |price| btc_tick(&h, price);
    let body = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": "demo"});
    let id = h.post("/api/trade/orders", Some(&token), body).ok()["contractId"].as_u64().unwrap();
    let offer_path = format!("/api/trade/contracts/{id}/offer");
    let sell_path = format!("/api/trade/contracts/{id}/sell");
    // That a contract has no offer before its entry tick is the engine's tests' to show: the
    // simulated feed here may enter it at any moment.
    tick(last);
    tick(last);
    let offer = h.get(&offer_path, Some(&token));
    let shown: Decimal = offer.ok()["offer"].as_str().unwrap().parse().unwrap();
    assert!(shown > Decimal::ZERO && shown < Decimal::new(1850, 2), "{:?}", offer.body);
    assert_eq!(offer.ok()["quote"]["winCredit"], "18.50");
    let (_, stranger) = h.user("tove");
    h.get(&offer_path, Some(&stranger)).fails(StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND");
    h.post(&sell_path, Some(&stranger), json!({"offer": "0"}))
        .fails(StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND");
    h.post(&sell_path, Some(&token), json!({"offer": "-1"}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");

    // Above any offer (the whole payout): refused with the offer of now, nothing sold.
    let before = h.get("/api/wallet/balance?account=demo", Some(&token)).ok().clone();
    let refused = h.post(&sell_path, Some(&token), json!({"offer": "18.50"}));
    refused.fails(StatusCode::CONFLICT, "OFFER_CHANGED");
    assert!(refused.message().starts_with("The offer changed to "), "{}", refused.message());
    let now: Decimal = refused.body["data"]["offer"].as_str().unwrap().parse().unwrap();
    assert!(now < Decimal::new(1850, 2), "the offer of now is below the whole payout");
    assert_eq!(h.get(&format!("/api/trade/contracts/{id}"), Some(&token)).ok()["status"], "open");

    let sold = h.post(&sell_path, Some(&token), json!({"offer": "0.01"}));
    let credited: Decimal = sold.ok()["credited"].as_str().unwrap().parse().unwrap();
    assert_eq!(sold.ok()["contractId"].as_u64(), Some(id));
    let row = h.get(&format!("/api/trade/contracts/{id}"), Some(&token)).ok().clone();
    assert_eq!((row["outcome"].as_str(), row["status"].as_str()), (Some("sold"), Some("settled")));
    assert_eq!(row["credited"], credited.to_string());
    assert_eq!(row["sale"]["offer"], credited.to_string());
    assert_eq!(row["exit"]["sequence"], row["sale"]["tick"]["sequence"]);
    assert!(
        row["sale"]["returns"].as_u64().unwrap() >= u64::from(engine::sale::WINDOW_RETURNS_MIN)
    );
    assert!(row["sale"]["sumSq"].as_str().unwrap().parse::<u128>().is_ok());
    let after = h.get("/api/wallet/balance?account=demo", Some(&token)).ok().clone();
    let available = |w: &Value| w["available"].as_str().unwrap().parse::<Decimal>().unwrap();
    assert_eq!(available(&after), available(&before) + credited);
    let bills = h.get("/api/wallet/bills?account=demo&type=sale", Some(&token));
    assert_eq!(bills.ok()["items"][0]["amount"], (credited - Decimal::TEN).to_string());
    h.post(&sell_path, Some(&token), json!({"offer": "0"}))
        .fails(StatusCode::NOT_FOUND, "CONTRACT_NOT_FOUND");
}
