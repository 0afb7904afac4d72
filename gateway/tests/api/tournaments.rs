//! Tournaments over HTTP: the back-office writes, publishes and cancels them; players enter,
//! trade their tournament balance and read the standings and each other's contracts.

use super::*;

fn now_ms() -> u64 {
    wal::pipeline::system_time_ms()
}

/// A running tournament on BTCUSDT over 60 s contracts, for an hour from a second ago.
fn rules(title: &str, fee: &str, start_at: u64) -> Value {
    json!({
        "title": title, "symbols": ["BTCUSDT"], "durations": [60],
        "startAt": start_at, "endAt": start_at + 3_600_000,
        "entryFee": fee, "startBalance": "1000", "rebuysMax": 1, "rebuyFee": "5", "rebuyBelow": "500",
        "poolShareBp": 8000, "poolMin": "20", "prizesBp": [7000, 3000]
    })
}

#[test]
fn an_admin_publishes_a_tournament_players_enter_and_trade_it() {
    let h = crate::start_with_http(|http| http.real_money_on_simulated_prices = true);
    let admin = h.admin();
    let (ann_id, ann) = h.user("annabel");
    let (_, bob) = h.user("bobby");
    h.post("/api/admin/house/fund", Some(&admin), json!({"amount": "10000"})).ok();
    let adjust = json!({"amount": "100", "reason": "test funds"});
    h.post(&format!("/api/admin/users/{ann_id}/adjust"), Some(&admin), adjust).ok();

    for (body, field, message) in [
        (json!({"prizesBp": [5000, 4000]}), "prizesBp", "Prize shares must add up to 100 %"),
        (json!({"title": ""}), "title", "Enter a title of up to 60 characters"),
        (json!({"poolShareBp": 10001}), "poolShareBp", "Enter a share from 0 to 100 %"),
        (json!({"entryFee": "-1"}), "entryFee", "Please enter a valid amount"),
    ] {
        let mut r = rules("Sprint", "10", now_ms() - 1_000);
        for (k, v) in body.as_object().unwrap() {
            r[k] = v.clone();
        }
        let refused = h.post("/api/admin/tournaments", Some(&admin), r);
        refused.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!((refused.body["field"].as_str(), refused.message()), (Some(field), message));
    }
    let draft =
        h.post("/api/admin/tournaments", Some(&admin), rules("Sprint", "10", now_ms() - 1_000));
    let id = draft.ok()["tournament"]["id"].as_u64().unwrap();
    assert_eq!(draft.ok()["tournament"]["status"], "draft");
    assert_eq!(h.get("/api/tournaments", None).ok(), &json!([]), "drafts are not in the lobby");
    h.get(&format!("/api/tournaments/{id}"), None)
        .fails(StatusCode::NOT_FOUND, "TOURNAMENT_NOT_FOUND");
    h.post(&format!("/api/tournaments/{id}/join"), Some(&ann), json!({}))
        .fails(StatusCode::CONFLICT, "TOURNAMENT_CLOSED");
    let renamed = h.call(
        Method::PUT,
        &format!("/api/admin/tournaments/{id}"),
        Some(&admin),
        Some(rules("Evening sprint", "10", now_ms() - 1_000)),
    );
    assert_eq!(renamed.ok()["tournament"]["rules"]["title"], "Evening sprint");
    let published =
        h.post(&format!("/api/admin/tournaments/{id}/publish"), Some(&admin), json!({}));
    assert_eq!(published.ok()["tournament"]["status"], "running");
    h.call(
        Method::PUT,
        &format!("/api/admin/tournaments/{id}"),
        Some(&admin),
        Some(rules("Late", "1", now_ms())),
    )
    .fails(StatusCode::CONFLICT, "TOURNAMENT_CLOSED");
    let lobby = h.get("/api/tournaments", None);
    assert_eq!(lobby.ok()[0]["id"].as_u64(), Some(id));
    assert_eq!(
        (lobby.ok()[0]["pool"].as_str(), lobby.ok()[0]["players"].as_u64()),
        (Some("20.00"), Some(0))
    );

    // Bob has no real money for the fee; Ann enters once, however often she asks.
    h.post(&format!("/api/tournaments/{id}/join"), Some(&bob), json!({}))
        .fails(StatusCode::BAD_REQUEST, "INSUFFICIENT_BALANCE");
    let order = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "100", "duration": 60, "account": "tournament"});
    h.post("/api/trade/orders", Some(&ann), order.clone())
        .fails(StatusCode::CONFLICT, "NO_TOURNAMENT_BALANCE");
    let mine = h.post(&format!("/api/tournaments/{id}/join"), Some(&ann), json!({}));
    assert_eq!(mine.ok()[0]["me"]["balance"], "1000.00");
    assert_eq!(mine.ok()[0]["rebuysLeft"], 1);
    h.post(&format!("/api/tournaments/{id}/join"), Some(&ann), json!({})).ok();
    let wallet = h.get("/api/wallet/balance?account=real", Some(&ann));
    assert_eq!(wallet.ok()["available"], "90.00", "{}", wallet.body);
    let seat = h.get("/api/wallet/balance?account=tournament", Some(&ann));
    assert_eq!(
        (seat.ok()["total"].as_str(), seat.ok()["tournament"].as_u64()),
        (Some("1000.00"), Some(id))
    );
    let none = h.get("/api/wallet/balance?account=tournament", Some(&bob));
    assert_eq!((none.ok()["total"].as_str(), none.ok().get("tournament")), (Some("0.00"), None));
    let bills = h.get("/api/wallet/bills", Some(&ann));
    let fees: Vec<_> = (bills.ok()["items"].as_array().unwrap().iter())
        .filter(|b| b["type"] == "tournament_fee")
        .map(|b| b["amount"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(fees, ["-10.00"], "{}", bills.body);

    // Her order trades the tournament balance; the product and duration are the tournament's.
    let accepted = h.post("/api/trade/orders", Some(&ann), order.clone());
    let contract = accepted.ok()["contractId"].as_u64().unwrap();
    let mut other = order.clone();
    other["duration"] = json!(300);
    h.post("/api/trade/orders", Some(&ann), other)
        .fails(StatusCode::BAD_REQUEST, "NOT_TOURNAMENT_PRODUCT");
    h.post(&format!("/api/tournaments/{id}/rebuy"), Some(&ann), json!({}))
        .fails(StatusCode::CONFLICT, "REBUY_UNAVAILABLE");
    let detail = h.get(&format!("/api/tournaments/{id}"), None);
    let first = &detail.ok()["standings"][0];
    assert_eq!(
        (first["uid"].as_u64(), first["name"].as_str()),
        (Some(u64::from(ann_id)), Some("a***l"))
    );
    assert_eq!(
        (first["balance"].as_str(), first["prize"].as_str()),
        (Some("1000.00"), Some("14.00"))
    );
    let played = h.get(&format!("/api/tournaments/{id}/players/{ann_id}/contracts"), None);
    let row = &played.ok()["items"][0];
    assert_eq!((row["id"].as_u64(), row["account"].as_str()), (Some(contract), Some("tournament")));
    assert_eq!(row["tournament"].as_u64(), Some(id));
    let records = h.get("/api/trade/contracts?account=real", Some(&ann));
    assert_eq!(records.ok()["items"], json!([]), "not among her real contracts");
    h.post(&format!("/api/admin/tournaments/{id}/cancel"), Some(&admin), json!({}))
        .fails(StatusCode::CONFLICT, "TOURNAMENT_CLOSED");

    // A tournament that has not started is cancelled with every fee refunded.
    let later = h.post(
        "/api/admin/tournaments",
        Some(&admin),
        rules("Tomorrow", "10", now_ms() + 86_400_000),
    );
    let later = later.ok()["tournament"]["id"].as_u64().unwrap();
    h.post(&format!("/api/admin/tournaments/{later}/publish"), Some(&admin), json!({})).ok();
    h.post(&format!("/api/tournaments/{later}/join"), Some(&ann), json!({})).ok();
    assert_eq!(h.get("/api/wallet/balance?account=real", Some(&ann)).ok()["available"], "80.00");
    let cancelled =
        h.post(&format!("/api/admin/tournaments/{later}/cancel"), Some(&admin), json!({}));
    assert_eq!(cancelled.ok()["tournament"]["status"], "cancelled");
    assert_eq!(h.get("/api/wallet/balance?account=real", Some(&ann)).ok()["available"], "90.00");
}

#[test]
fn real_money_tournaments_need_real_prices() {
    let h = crate::start();
    let admin = h.admin();
    h.post("/api/admin/tournaments", Some(&admin), rules("Paid", "10", now_ms()))
        .fails(StatusCode::FORBIDDEN, "SIMULATED_PRICES_DEMO_ONLY");
    // A rule left out is refused, not taken as a default.
    let mut partial = rules("Partial", "0", now_ms());
    partial.as_object_mut().unwrap().remove("symbols");
    h.post("/api/admin/tournaments", Some(&admin), partial)
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let mut free = rules("Free", "0", now_ms());
    (free["rebuyFee"], free["poolMin"]) = (json!("0"), json!("0"));
    h.post("/api/admin/tournaments", Some(&admin), free).ok();
}
