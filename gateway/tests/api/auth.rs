//! Sign-up, sign-in (account, e-mail code, wallet), sessions, passwords, 2FA.

use super::*;

#[test]
fn registration_checks_every_rule_and_error() {
    let h = start();
    let cases = [
        (
            json!({"username": "", "email": "a@b.co", "password": "secret1"}),
            "username",
            "Please enter your username",
        ),
        (
            json!({"username": "ab", "email": "a@b.co", "password": "secret1"}),
            "username",
            "Username must be 3-20 characters",
        ),
        (
            json!({"username": "a".repeat(21), "email": "a@b.co", "password": "secret1"}),
            "username",
            "Username must be 3-20 characters",
        ),
        (
            json!({"username": "alice", "email": "", "password": "secret1"}),
            "email",
            "Please enter your e-mail",
        ),
        (
            json!({"username": "alice", "email": "not-an-email", "password": "secret1"}),
            "email",
            "Please enter a valid e-mail address",
        ),
        (
            json!({"username": "alice", "email": "a@b.co", "password": ""}),
            "password",
            "Please enter your password",
        ),
        (
            json!({"username": "alice", "email": "a@b.co", "password": "12345"}),
            "password",
            "Password must be at least 6 characters",
        ),
        (
            json!({"username": "alice", "email": "a@b.co", "password": "secret1", "confirmPassword": "other1"}),
            "confirmPassword",
            "Passwords do not match",
        ),
        (
            json!({"username": "alice", "email": "a@b.co", "password": "secret1", "agreeTerms": false}),
            "agreeTerms",
            "Please agree to terms and conditions",
        ),
        (
            json!({"username": "alice", "email": "a@b.co", "password": "secret1", "inviteCode": "ABC"}),
            "inviteCode",
            "Invitation code must be 8 characters",
        ),
    ];
    for (body, field, message) in cases {
        let answer = h.post("/api/login/register", None, body);
        answer.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!((answer.body["field"].as_str(), answer.message()), (Some(field), message));
    }
    let alice = h.register("alice", None);
    assert_eq!(alice["inviteCode"].as_str().unwrap().len(), 8);
    let again = json!({"username": "Alice", "email": "other@example.com", "password": "secret1"});
    h.post("/api/login/register", None, again).fails(StatusCode::BAD_REQUEST, "USERNAME_EXISTS");
    let same_email =
        json!({"username": "bob", "email": "ALICE@example.com", "password": "secret1"});
    h.post("/api/login/register", None, same_email).fails(StatusCode::BAD_REQUEST, "EMAIL_EXISTS");
    let bad_code = json!({"username": "bob", "email": "bob@example.com", "password": "secret1", "inviteCode": "ZZZZZZZZ"});
    h.post("/api/login/register", None, bad_code)
        .fails(StatusCode::BAD_REQUEST, "INVALID_INVITE_CODE");
    // A refused sign-up changed nothing: bob is still free.
    let bob = h.register("bob", alice["inviteCode"].as_str());
    let admin = h.admin();
    let team = h.get(&format!("/api/admin/teams/{}", alice["uid"]), Some(&admin));
    assert_eq!(team.ok()[0]["members"][0]["uid"], bob["uid"]);
}

#[test]
fn account_login_sessions_logout_and_revocation() {
    let h = start();
    h.register("carol", None);
    let cases = [
        (json!({"username": "", "password": "secret1"}), "Please enter your username"),
        (json!({"username": "carol", "password": ""}), "Please enter your password"),
        (json!({"username": "carol", "password": "123"}), "Password must be at least 6 characters"),
    ];
    for (body, message) in cases {
        let answer = h.post("/api/login/login", None, body);
        answer.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        assert_eq!(answer.message(), message);
    }
    h.post("/api/login/login", None, json!({"username": "carol", "password": "wrong-pass"}))
        .fails(StatusCode::BAD_REQUEST, "INVALID_CREDENTIALS");
    h.post("/api/login/login", None, json!({"username": "nobody", "password": "secret1"}))
        .fails(StatusCode::BAD_REQUEST, "INVALID_CREDENTIALS");
    let first = h.login("carol");
    let second = h.login("carol");
    let info = h.get("/api/layout/user-info", Some(&first));
    assert_eq!(info.ok()["username"], "carol");
    assert_eq!(info.ok()["balance"], "0.00");
    let sessions = h.get("/api/user/sessions", Some(&first));
    assert_eq!(sessions.ok().as_array().unwrap().len(), 2);
    let history = h.get("/api/user/login-history", Some(&first));
    assert_eq!(history.ok()["total"], 2);
    // End the second session from the first: its token stops working at once.
    let other = sessions.ok().as_array().unwrap().iter().find(|s| s["current"] == false).unwrap()
        ["id"]
        .as_u64()
        .unwrap();
    h.call(Method::DELETE, &format!("/api/user/sessions/{other}"), Some(&first), None).ok();
    h.get("/api/layout/user-info", Some(&second))
        .fails(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED");
    h.post("/api/login/logout", Some(&first), json!({})).ok();
    h.get("/api/layout/user-info", Some(&first)).fails(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED");
    h.get("/api/layout/user-info", Some("not-a-token"))
        .fails(StatusCode::UNAUTHORIZED, "UNAUTHORIZED");
}

/// Failed sign-ins cost the address that makes them a growing delay, never the owner: an
/// attacker who fails on purpose from one address is held back (429 with Retry-After),
/// while the owner signs in from another address at once. The same holds for admins.
#[test]
fn failed_sign_ins_delay_their_own_address_not_the_owner() {
    let h = start();
    h.register("dave", None);
    let from = |ip: &str, path: &str, username: &str, password: &str| {
        let peer: std::net::SocketAddr = format!("{ip}:40000").parse().unwrap();
        h.request(
            Request::post(path)
                .header("content-type", "application/json")
                .extension(axum::extract::ConnectInfo(peer))
                .body(Body::from(json!({"username": username, "password": password}).to_string()))
                .unwrap(),
        )
    };
    for (path, username, password, refused) in [
        ("/api/login/login", "dave", "secret1", "INVALID_CREDENTIALS"),
        ("/api/admin/login", "admin", ADMIN_PASSWORD, "ADMIN_LOGIN_FAILED"),
    ] {
        for _ in 0..gateway::throttle::LOGIN_FREE_FAILURES + 1 {
            from("10.0.0.66", path, username, "wrong-pass").fails(StatusCode::BAD_REQUEST, refused);
        }
        // The delay doubles with each failure: within a few attempts the attacker waits.
        let limited = (0..6)
            .map(|_| from("10.0.0.66", path, username, "wrong-pass"))
            .find(|a| a.status == StatusCode::TOO_MANY_REQUESTS)
            .expect("the attacker's address is delayed");
        limited.fails(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
        assert!(limited.message().starts_with("Too many failed sign-ins"), "{}", limited.message());
        let retry: u64 = limited.headers["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=900).contains(&retry), "{retry}");
        // Even the right password waits there; from the owner's address it works at once.
        from("10.0.0.66", path, username, password)
            .fails(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED");
        from("10.0.0.7", path, username, password).ok();
    }
}

#[test]
fn change_password_and_forgot_password() {
    let h = start();
    let (_, token) = h.user("erin");
    let other = h.login("erin");
    let change = |old: &str, new: &str, confirm: &str| {
        h.post(
            "/api/user/password",
            Some(&token),
            json!({"oldPassword": old, "newPassword": new, "confirmPassword": confirm}),
        )
    };
    let empty = change("", "", "");
    assert_eq!(empty.message(), "Please fill in all password fields");
    assert_eq!(change("secret1", "newpass1", "newpass2").message(), "Passwords do not match");
    assert_eq!(
        change("secret1", "short", "short").message(),
        "Password must be at least 6 characters"
    );
    change("wrong-pw", "newpass1", "newpass1").fails(StatusCode::BAD_REQUEST, "WRONG_PASSWORD");
    change("secret1", "newpass1", "newpass1").ok();
    h.get("/api/layout/user-info", Some(&token)).ok();
    h.get("/api/layout/user-info", Some(&other)).fails(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED");
    // Withdrawals wait 24 h after a password change.
    let info = h.get("/api/wallet/withdraw-info", Some(&token));
    assert!(info.ok()["blockedUntil"].is_u64());

    // Forgot password: code by e-mail (outbox), verify, reset.
    h.post("/api/password/forgot/send-code", None, json!({"email": "erin@example.com"})).ok();
    let again =
        h.post("/api/password/forgot/send-code", None, json!({"email": "erin@example.com"}));
    again.fails(StatusCode::TOO_MANY_REQUESTS, "CODE_RESEND_TOO_SOON");
    let code = h.outbox_code();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    h.post(
        "/api/password/forgot/verify",
        None,
        json!({"email": "erin@example.com", "code": wrong}),
    )
    .fails(StatusCode::BAD_REQUEST, "INVALID_CODE");
    let verified = h.post(
        "/api/password/forgot/verify",
        None,
        json!({"email": "erin@example.com", "code": code}),
    );
    let reset_token = verified.ok()["resetToken"].as_str().unwrap().to_owned();
    let weak = h.post(
        "/api/password/forgot/reset",
        None,
        json!({"resetToken": reset_token, "password": "abcdefgh", "confirmPassword": "abcdefgh"}),
    );
    assert_eq!(
        weak.message(),
        "Password must be at least 8 characters and contain both letters and digits"
    );
    let reset =
        json!({"resetToken": reset_token, "password": "brandnew9", "confirmPassword": "brandnew9"});
    h.post("/api/password/forgot/reset", None, reset.clone()).ok();
    h.post("/api/password/forgot/reset", None, reset)
        .fails(StatusCode::BAD_REQUEST, "INVALID_CODE");
    h.get("/api/layout/user-info", Some(&token)).fails(StatusCode::UNAUTHORIZED, "SESSION_EXPIRED");
    h.post("/api/login/login", None, json!({"username": "erin", "password": "brandnew9"})).ok();
}

#[test]
fn email_code_login_and_email_verification_through_the_outbox() {
    let h = start();
    let (_, token) = h.user("frank");
    h.post("/api/login/send-code", None, json!({"email": "bad"}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.post("/api/login/send-code", None, json!({"email": "frank@example.com"})).ok();
    let code = h.outbox_code();
    let short =
        h.post("/api/login/login", None, json!({"email": "frank@example.com", "code": "123"}));
    assert_eq!(short.message(), "The verification code must be 6 digits");
    let login =
        h.post("/api/login/login", None, json!({"email": "frank@example.com", "code": code}));
    assert_eq!(login.ok()["user"]["username"], "frank");
    assert_eq!(login.ok()["user"]["emailVerified"], true, "the code proved the address");
    // The code works once.
    h.post("/api/login/login", None, json!({"email": "frank@example.com", "code": code}))
        .fails(StatusCode::BAD_REQUEST, "INVALID_CODE");
    h.post("/api/user/email/send-code", Some(&token), json!({}))
        .fails(StatusCode::BAD_REQUEST, "EMAIL_ALREADY_VERIFIED");
}

#[test]
fn two_factor_protects_sign_in() {
    let h = start();
    let (_, token) = h.user("gina");
    let setup = h.post("/api/user/2fa/setup", Some(&token), json!({}));
    let secret = setup.ok()["secret"].as_str().unwrap().to_owned();
    assert!(setup.ok()["otpauthUrl"].as_str().unwrap().starts_with("otpauth://totp/"));
    let mut app = crate::Authenticator::new(&secret);
    h.post("/api/user/2fa/enable", Some(&token), json!({"secret": secret, "code": "000000x"}))
        .fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");
    h.post("/api/user/2fa/enable", Some(&token), json!({"secret": secret, "code": app.code()}))
        .ok();
    assert_eq!(h.get("/api/user/2fa", Some(&token)).ok()["enabled"], true);
    // The code that turned 2FA on cannot sign in.
    let sign_in = |code: Option<String>| {
        let mut body = json!({"username": "gina", "password": "secret1"});
        if let Some(code) = code {
            body["totpCode"] = json!(code);
        }
        h.post("/api/login/login", None, body)
    };
    sign_in(Some(app.last_code())).fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");
    sign_in(None).fails(StatusCode::BAD_REQUEST, "TOTP_REQUIRED");
    sign_in(Some("12345x".into())).fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");
    let code = app.code();
    sign_in(Some(code.clone())).ok();
    // A code signs in once: the same code a second time is refused.
    sign_in(Some(code)).fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");
    // Turning 2FA off needs the password as well as a code; a wrong one spends no code.
    let off = |password: &str, code: String| {
        h.post("/api/user/2fa/disable", Some(&token), json!({"code": code, "password": password}))
    };
    let refused = off("wrong-password", app.code());
    refused.fails(StatusCode::BAD_REQUEST, "WRONG_PASSWORD");
    assert_eq!(refused.body["field"], "password");
    h.post("/api/user/2fa/disable", Some(&token), json!({"code": app.last_code()}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    off("secret1", app.last_code()).ok();
    h.post("/api/login/login", None, json!({"username": "gina", "password": "secret1"})).ok();
}

/// Wrong authenticator codes are counted per account, whatever the address and wherever the
/// code is asked: after five, every two-factor action of the account waits (429 with the time),
/// the owner gets an e-mail, and the pause is in their security history; it holds after a
/// restart of the server.
#[test]
fn wrong_codes_pause_every_two_factor_action_of_the_account() {
    let h = start();
    let (_, token) = h.user("hugo");
    let mut app = h.enable_two_factor(&token);
    let wrong = |i: u8| {
        let body = json!({"username": "hugo", "password": "secret1", "totpCode": app.wrong_code()});
        let mut request = axum::http::Request::post("/api/login/login")
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let address = std::net::SocketAddr::from(([127, 0, 3, i], 40_000));
        request.extensions_mut().insert(axum::extract::ConnectInfo(address));
        h.request(request)
    };
    for i in 1..5 {
        wrong(i).fails(StatusCode::BAD_REQUEST, "INVALID_TOTP");
    }
    let paused = wrong(5);
    paused.fails(StatusCode::TOO_MANY_REQUESTS, "TWO_FACTOR_LOCKED");
    let retry: u64 = paused.headers["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((14 * 60..=15 * 60).contains(&retry), "{retry}");
    assert!(paused.message().contains("UTC"), "{}", paused.message());
    // A right code is refused too, for a transfer as for a sign-in.
    let transfer = json!({"toUid": 1, "amount": "1", "totpCode": app.code()});
    h.post("/api/wallet/transfers", Some(&token), transfer)
        .fails(StatusCode::TOO_MANY_REQUESTS, "TWO_FACTOR_LOCKED");
    // The owner is told by e-mail and in their security history.
    let outbox = std::fs::read_dir(h.dir.path().join("outbox")).unwrap();
    let mails: Vec<String> =
        outbox.map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap()).collect();
    assert!(
        mails
            .iter()
            .any(|m| m.contains("hugo@example.com") && m.contains("wrong authenticator codes")),
        "{mails:?}"
    );
    let history = h.get("/api/user/security-events", Some(&token));
    let items = history.ok()["items"].as_array().unwrap().clone();
    assert_eq!(items.len(), 1, "{items:?}");
    assert_eq!(items[0]["kind"], "twoFactorLocked");
    assert_eq!(items[0]["failures"], 5);
}

/// Guesses spread over many addresses are held by a budget per account: past it the password
/// is not looked at, right or wrong, and the owner still signs in from a device that signed
/// in before, or with an e-mail code.
#[test]
fn password_guesses_from_many_addresses_are_bounded_per_account() {
    let h = start();
    h.register("iris", None);
    let first =
        h.post("/api/login/login", None, json!({"username": "iris", "password": "secret1"}));
    let device = first.ok()["deviceToken"].as_str().unwrap().to_owned();
    let from = |i: u32, body: Value| {
        let mut request = axum::http::Request::post("/api/login/login")
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let [a, b] = (i as u16).to_be_bytes();
        let address = std::net::SocketAddr::from(([127, 1, a, b], 40_000));
        request.extensions_mut().insert(axum::extract::ConnectInfo(address));
        h.request(request)
    };
    let guess = json!({"username": "iris", "password": "guess-123"});
    let mut refused_at = None;
    for i in 1..=100 {
        let answer = from(i, guess.clone());
        if answer.status == StatusCode::TOO_MANY_REQUESTS {
            answer.fails(StatusCode::TOO_MANY_REQUESTS, "PASSWORD_SIGN_IN_PAUSED");
            assert!(answer.headers.contains_key("retry-after"));
            refused_at = Some(i);
            break;
        }
        answer.fails(StatusCode::BAD_REQUEST, "INVALID_CREDENTIALS");
    }
    assert_eq!(refused_at, Some(21), "twenty guesses an hour per account, from any address");
    // Past the budget even the right password from a new device gets the same answer.
    let right = json!({"username": "iris", "password": "secret1"});
    from(500, right.clone()).fails(StatusCode::TOO_MANY_REQUESTS, "PASSWORD_SIGN_IN_PAUSED");
    // The owner's device that signed in before still signs in.
    let mut known = right.clone();
    known["deviceToken"] = json!(device);
    from(501, known).ok();
    // Another account's device token is no key to this one.
    h.register("jack", None);
    let jack = h.post("/api/login/login", None, json!({"username": "jack", "password": "secret1"}));
    let mut other = right.clone();
    other["deviceToken"] = json!(jack.ok()["deviceToken"].as_str().unwrap());
    from(502, other).fails(StatusCode::TOO_MANY_REQUESTS, "PASSWORD_SIGN_IN_PAUSED");
    // And an e-mail code signs the owner in.
    h.post("/api/login/send-code", None, json!({"email": "iris@example.com"})).ok();
    let code = h.outbox_code();
    h.post("/api/login/login", None, json!({"email": "iris@example.com", "code": code})).ok();
}

fn npm_sign(chain: &str, private_key: &str, message: &str) -> (String, String) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/wallet");
    assert!(
        dir.join("node_modules").exists(),
        "run `npm ci` in tests/wallet (scripts/test.sh does)"
    );
    let input = json!({"chain": chain, "privateKey": private_key, "message": message}).to_string();
    let output = std::process::Command::new("node")
        .arg(dir.join("sign.mjs"))
        .arg(input)
        .output()
        .expect("node runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let signed: Value = serde_json::from_slice(&output.stdout).unwrap();
    (
        signed["address"].as_str().unwrap().to_owned(),
        signed["signature"].as_str().unwrap().to_owned(),
    )
}

/// Signatures made by ethers (MetaMask's personal_sign) and tronweb (TronLink's
/// signMessageV2) sign in; a wrong signature, a reused nonce and a bare address do not.
#[test]
fn wallet_login_with_signatures_from_real_wallet_libraries() {
    let h = start();
    let key = "0x8f2a55949038a9610f50fb23b5883af3b4ecb3c3bb792cbcefbd1542c692be63";
    let other_key = "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
    let mut wallet_token = String::new();
    for chain in ["eth", "tron"] {
        let (address, _) = npm_sign(chain, key, "x");
        let nonce =
            h.post("/api/login/wallet-nonce", None, json!({"chain": chain, "address": address}));
        let (nonce, message) = (
            nonce.ok()["nonce"].as_str().unwrap().to_owned(),
            nonce.ok()["message"].as_str().unwrap().to_owned(),
        );
        // Signed by another key: refused, and the nonce is spent.
        let (_, forged) = npm_sign(chain, other_key, &message);
        let attempt = |signature: &str, nonce: &str| {
            h.post(
                "/api/login/wallet-login",
                None,
                json!({"chain": chain, "address": address, "signature": signature, "nonce": nonce}),
            )
        };
        attempt(&forged, &nonce).fails(StatusCode::UNAUTHORIZED, "INVALID_SIGNATURE");
        let (_, signature) = npm_sign(chain, key, &message);
        attempt(&signature, &nonce).fails(StatusCode::BAD_REQUEST, "NONCE_INVALID");
        // A fresh nonce, signed by the right key: signed in, account created.
        let fresh =
            h.post("/api/login/wallet-nonce", None, json!({"chain": chain, "address": address}));
        let (nonce, message) = (
            fresh.ok()["nonce"].as_str().unwrap().to_owned(),
            fresh.ok()["message"].as_str().unwrap().to_owned(),
        );
        let (_, signature) = npm_sign(chain, key, &message);
        let login = attempt(&signature, &nonce);
        let data = login.ok();
        assert_eq!(data["isNewUser"], true);
        let username = data["user"]["username"].as_str().unwrap();
        assert!(
            username.starts_with(&format!("wallet_{chain}_")) && username.len() <= 20,
            "{username}"
        );
        assert_eq!(data["user"]["loginType"], "wallet");
        assert_eq!(data["user"]["hasPassword"], false);
        // Reusing that nonce fails; a bare address (the spec's payload) never signs in.
        attempt(&signature, &nonce).fails(StatusCode::BAD_REQUEST, "NONCE_INVALID");
        let bare =
            h.post("/api/login/wallet-login", None, json!({"chain": chain, "address": address}));
        bare.fails(StatusCode::BAD_REQUEST, "VALIDATION");
        // Second sign-in: same account.
        let again =
            h.post("/api/login/wallet-nonce", None, json!({"chain": chain, "address": address}));
        let (nonce, message) = (
            again.ok()["nonce"].as_str().unwrap().to_owned(),
            again.ok()["message"].as_str().unwrap().to_owned(),
        );
        let (_, signature) = npm_sign(chain, key, &message);
        let second = attempt(&signature, &nonce);
        assert_eq!(second.ok()["isNewUser"], false);
        assert_eq!(second.ok()["user"]["uid"], data["user"]["uid"]);
        wallet_token = second.ok()["token"].as_str().unwrap().to_owned();
    }
    // A wallet user has no e-mail: they add one, proven by a code sent to it.
    let token = Some(wallet_token.as_str());
    h.post("/api/user/email/send-code", token, json!({}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.post("/api/user/email/send-code", token, json!({"email": "not-an-email"}))
        .fails(StatusCode::BAD_REQUEST, "VALIDATION");
    h.register("taken", None);
    h.post("/api/user/email/send-code", token, json!({"email": "TAKEN@example.com"}))
        .fails(StatusCode::BAD_REQUEST, "EMAIL_EXISTS");
    h.post("/api/user/email/send-code", token, json!({"email": "wally@example.com"})).ok();
    let code = h.outbox_code();
    let wrong = if code == "000000" { "111111" } else { "000000" };
    h.post("/api/user/email/verify", token, json!({"code": wrong, "email": "wally@example.com"}))
        .fails(StatusCode::BAD_REQUEST, "INVALID_CODE");
    assert!(h.get("/api/user/profile", token).ok()["email"].is_null(), "nothing saved yet");
    let verified = h.post(
        "/api/user/email/verify",
        token,
        json!({"code": code, "email": "wally@example.com"}),
    );
    assert_eq!(
        (verified.ok()["email"].as_str(), verified.ok()["emailVerified"].as_bool()),
        (Some("wally@example.com"), Some(true))
    );
    // The address now signs in by e-mail code, and a verified address is not replaced this way.
    h.post("/api/user/email/send-code", token, json!({"email": "other@example.com"}))
        .fails(StatusCode::BAD_REQUEST, "EMAIL_ALREADY_VERIFIED");
    h.post("/api/login/send-code", None, json!({"email": "wally@example.com"})).ok();
    // A nonce issued for MetaMask (eth), validly signed, does not sign in as Trust Wallet: the
    // same key and scheme, but another account.
    let (address, _) = npm_sign("eth", key, "x");
    let eth = h.post("/api/login/wallet-nonce", None, json!({"chain": "eth", "address": address}));
    let (nonce, message) =
        (eth.ok()["nonce"].as_str().unwrap().to_owned(), eth.ok()["message"].as_str().unwrap());
    let (_, signature) = npm_sign("eth", key, message);
    h.post(
        "/api/login/wallet-login",
        None,
        json!({"chain": "trust", "address": address, "signature": signature, "nonce": nonce}),
    )
    .fails(StatusCode::BAD_REQUEST, "NONCE_INVALID");
    let unknown = h.post("/api/login/wallet-nonce", None, json!({"chain": "", "address": "0x00"}));
    assert_eq!(unknown.message(), "Please select a blockchain");
}

/// A minimal SMTP server speaking RFC 5321 over TCP: accepts one message, hands back its data.
fn smtp_server() -> (u16, std::sync::mpsc::Receiver<String>) {
    use std::io::{BufRead, BufReader, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let mut stream = stream.unwrap();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut reply =
                |line: &str| stream.write_all(format!("{line}\r\n").as_bytes()).unwrap();
            reply("220 localhost ESMTP test");
            let (mut data, mut in_data) = (String::new(), false);
            let mut line = String::new();
            while reader.read_line(&mut line).unwrap_or(0) > 0 {
                if in_data {
                    if line == ".\r\n" {
                        in_data = false;
                        reply("250 2.0.0 queued");
                        let _ = sender.send(std::mem::take(&mut data));
                    } else {
                        data.push_str(&line);
                    }
                } else {
                    let verb = line.get(..4).unwrap_or("").to_ascii_uppercase();
                    match verb.as_str() {
                        "EHLO" => reply("250-localhost\r\n250 8BITMIME"),
                        "HELO" | "MAIL" | "RCPT" | "RSET" | "NOOP" => reply("250 2.0.0 ok"),
                        "DATA" => {
                            in_data = true;
                            reply("354 end with .");
                        }
                        "QUIT" => {
                            reply("221 bye");
                            break;
                        }
                        _ => reply("502 5.5.2 unknown"),
                    }
                }
                line.clear();
            }
        }
    });
    (port, receiver)
}

/// An e-mail code goes over real SMTP to a local server, and signs the user in.
#[test]
fn email_code_over_smtp_signs_in() {
    let (port, mailbox) = smtp_server();
    let smtp = gateway::mail::SmtpConfig {
        host: "127.0.0.1".into(),
        port,
        security: "none".into(),
        username: None,
        password: None,
        from: "Trading Pro <no-reply@trade.example>".into(),
    };
    let h = start_with(Some(smtp));
    h.register("hank", None);
    h.post("/api/login/send-code", None, json!({"email": "hank@example.com"})).ok();
    let message = mailbox
        .recv_timeout(std::time::Duration::from_secs(10))
        .expect("a message arrived over SMTP");
    assert!(message.contains("To: hank@example.com"), "{message}");
    let code = code_in(message.split("\r\n\r\n").nth(1).unwrap_or(&message));
    let login =
        h.post("/api/login/login", None, json!({"email": "hank@example.com", "code": code}));
    assert_eq!(login.ok()["user"]["username"], "hank");
}
