//! Copy trading over HTTP: sharing, following with checked settings, copies in the records,
//! either side ending it, and the public results (real money only).

use super::*;

fn settings(account: &str, percent: u32, min: &str, max: &str, stop: &str) -> Value {
    json!({"account": account, "percent": percent, "minStake": min, "maxStake": max, "stopBelow": stop})
}

#[test]
fn a_follower_copies_a_leaders_order_and_either_side_can_end_it() {
    let h = start();
    let (lea, leader) = h.user("leonora");
    let (fid, follower) = h.user("frederik");
    let put =
        |path: &str, token: &str, body: Value| h.call(Method::PUT, path, Some(token), Some(body));
    let delete = |path: &str, token: &str| h.call(Method::DELETE, path, Some(token), None);
    let following = format!("/api/copy/following/{lea}");

    h.get(&format!("/api/copy/traders/{lea}"), None).fails(StatusCode::NOT_FOUND, "NOT_COPYABLE");
    assert_eq!(h.get("/api/copy/traders", None).ok()["items"], json!([]));
    put(&following, &follower, settings("demo", 50, "1", "100", "0"))
        .fails(StatusCode::NOT_FOUND, "NOT_COPYABLE");
    put("/api/copy/sharing", &leader, json!({})).fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let shared = put("/api/copy/sharing", &leader, json!({"sharing": true}));
    assert_eq!(shared.ok()["sharing"], true);
    assert_eq!(shared.ok()["followersMax"], engine::copy::FOLLOWERS_PER_LEADER_MAX);
    // Listed at once, though the results were added up a moment ago (they are kept a minute).
    let board = h.get("/api/copy/traders", None);
    assert_eq!(board.ok()["items"][0]["uid"].as_u64(), Some(u64::from(lea)));
    assert_eq!(board.ok()["items"][0]["stats"]["contracts"], 0);

    for (body, field, message) in [
        (
            settings("demo", 0, "1", "100", "0"),
            "percent",
            "Enter a whole percentage from 1 to 1000",
        ),
        (
            settings("demo", 1001, "1", "100", "0"),
            "percent",
            "Enter a whole percentage from 1 to 1000",
        ),
        (settings("demo", 50, "0", "100", "0"), "minStake", "Please enter a valid amount"),
        (
            settings("demo", 50, "5", "4", "0"),
            "maxStake",
            "The largest stake cannot be below the smallest",
        ),
        (settings("demo", 50, "1", "100", "-1"), "stopBelow", "Please enter a valid amount"),
        (settings("demo", 50, "1", "100", ""), "stopBelow", "Please enter a valid amount"),
        (settings("gold", 50, "1", "100", "0"), "account", ""),
    ] {
        let refused = put(&following, &follower, body);
        refused.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!(refused.body["field"], field, "{:?}", refused.body);
        if !message.is_empty() {
            assert_eq!(refused.message(), message);
        }
    }
    put(&format!("/api/copy/following/{fid}"), &follower, settings("demo", 50, "1", "100", "0"))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    let mine = put(&following, &follower, settings("demo", 50, "1", "100", "0.00"));
    let link = &mine.ok()["following"][0];
    assert_eq!(
        (link["uid"].as_u64(), link["name"].as_str()),
        (Some(u64::from(lea)), Some("l***a"))
    );
    assert_eq!(link["settings"], settings("demo", 50, "1.00", "100.00", "0.00"));
    let profile = h.get(&format!("/api/copy/traders/{lea}"), None);
    assert_eq!(profile.ok()["followers"], 1, "followers are counted live");
    let theirs = h.get("/api/copy", Some(&leader));
    assert_eq!(theirs.ok()["followers"][0]["uid"].as_u64(), Some(u64::from(fid)));
    assert_eq!(theirs.ok()["followers"][0]["name"], "f***k");
    // The follower's stakes and stop level are theirs alone.
    assert_eq!(theirs.ok()["followers"][0]["account"], "demo");
    assert_eq!(theirs.ok()["followers"][0].get("settings"), None);

    // The leader's demo order is copied onto the follower's demo wallet at half the stake.
    let order = json!({"symbol": "BTCUSDT", "direction": "down", "amount": "10", "duration": 60, "account": "demo"});
    let lead =
        h.post("/api/trade/orders", Some(&leader), order).ok()["contractId"].as_u64().unwrap();
    let copies = h.get("/api/trade/contracts?copied=true", Some(&follower));
    let copy = &copies.ok()["items"][0];
    assert_eq!(copies.ok()["total"], 1);
    assert_eq!(copy["copiedFrom"].as_u64(), Some(u64::from(lea)));
    assert_eq!((copy["stake"].as_str(), copy["direction"].as_str()), (Some("5.00"), Some("down")));
    assert!(copy["id"].as_u64().unwrap() > lead);
    assert_eq!(h.get("/api/trade/contracts?copied=false", Some(&follower)).ok()["total"], 0);
    let own = h.get(&format!("/api/trade/contracts/{lead}"), Some(&leader));
    assert_eq!(own.ok()["copiedFrom"], Value::Null);

    // The leader removes the follower; the follower then has nothing to stop.
    let after = delete(&format!("/api/copy/followers/{fid}"), &leader);
    assert_eq!(after.ok()["followers"], json!([]));
    assert_eq!(h.get("/api/copy", Some(&follower)).ok()["following"], json!([]));
    delete(&following, &follower).fails(StatusCode::NOT_FOUND, "COPY_NOT_FOUND");
    // Removed followers cannot follow again; and the same answer as for nobody.
    put(&following, &follower, settings("demo", 50, "1", "100", "0"))
        .fails(StatusCode::NOT_FOUND, "NOT_COPYABLE");
    put("/api/copy/following/999999", &follower, settings("demo", 50, "1", "100", "0"))
        .fails(StatusCode::NOT_FOUND, "NOT_COPYABLE");
    // What each was told, kept for when they were away: the follower why it ended, the
    // leader that it started; nobody is told of their own act.
    let notes = |token: &str| h.get("/api/copy/notes", Some(token)).ok()["items"].clone();
    let told = notes(&follower);
    assert_eq!(told.as_array().unwrap().len(), 1, "{told}");
    assert_eq!(
        (told[0]["kind"].as_str(), told[0]["change"].as_str()),
        (Some("copy"), Some("ended"))
    );
    assert_eq!(told[0]["reason"], "by_leader");
    let told = notes(&leader);
    assert_eq!(told.as_array().unwrap().len(), 1, "{told}");
    assert_eq!((told[0]["change"].as_str(), told[0].get("reason")), (Some("started"), None));
    assert_eq!(told[0]["follower"].as_u64(), Some(u64::from(fid)));
    h.get("/api/copy", None).fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

/// Results rank real money only, from settled contracts: a real contract sold back counts,
/// a demo one does not.
#[test]
fn the_rankings_add_up_real_results_only() {
    use rust_decimal::Decimal;

    let h = crate::start_with_http(|http| http.real_money_on_simulated_prices = true);
    let admin = h.admin();
    let (lea, leader) = h.user("leontine");
    h.post("/api/admin/house/fund", Some(&admin), json!({"amount": "10000"})).ok();
    let adjust = json!({"amount": "100", "reason": "test funds"});
    h.post(&format!("/api/admin/users/{lea}/adjust"), Some(&admin), adjust).ok();
    h.call(Method::PUT, "/api/copy/sharing", Some(&leader), Some(json!({"sharing": true}))).ok();
    let last = warm_up_btc(&h);
    let mut sold = Vec::new();
    for account in ["real", "demo"] {
        let order = json!({"symbol": "BTCUSDT", "direction": "up", "amount": "10", "duration": 60, "account": account});
        let id =
            h.post("/api/trade/orders", Some(&leader), order).ok()["contractId"].as_u64().unwrap();
        btc_tick(&h, last);
        btc_tick(&h, last);
        let path = format!("/api/trade/contracts/{id}/sell");
        let answer = h.post(&path, Some(&leader), json!({"offer": "0.01"}));
        sold.push(answer.ok()["credited"].as_str().unwrap().parse::<Decimal>().unwrap());
    }
    let board = h.get("/api/copy/traders?period=7d", None);
    assert_eq!(board.ok()["period"], "7d");
    let row = &board.ok()["items"][0];
    assert_eq!(row["uid"].as_u64(), Some(u64::from(lea)));
    assert_eq!(row["name"], "l***e");
    assert_eq!(row["stats"]["contracts"], 1, "the demo sale does not count");
    let profit = sold[0] - Decimal::TEN;
    assert_eq!(row["stats"]["profit"], profit.to_string());
    assert_eq!(row["stats"]["wins"], u32::from(profit > Decimal::ZERO));
    let profile = h.get(&format!("/api/copy/traders/{lea}"), None);
    assert_eq!(profile.ok()["month"], row["stats"]);
    assert_eq!(profile.ok()["day"], row["stats"]);
    h.get("/api/copy/traders?period=2d", None).fails(StatusCode::BAD_REQUEST, "VALIDATION");
}
