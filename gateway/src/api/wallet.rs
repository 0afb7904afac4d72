//! Wallet (real and demo), deposits, withdrawals with saved addresses, transfers and bills.

use axum::extract::State;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use engine::command::RequestDeposit;
use engine::types::{
    AccountKind, BillType as BillKind, Destination, OrderStatus as EngineOrderStatus, Principal,
    UserId,
};
use engine::{Command, Reply};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::auth::{Body, Client, Params, PathValue, User};
use super::dto::{
    self, AccountParam, BillType, ChainParam, OrderQuery, PageQuery, PayMethodParam, WithdrawMethod,
};
use super::{export, two_factor};
use super::{ok, Answer, ApiError, AppState, Empty, Envelope, ErrorEnvelope, IdempotencyKey};
use crate::names::{bill_name, WireName};
use crate::readmodel::{
    BillRow, BillSums, OrderKind, OrderRow, Page, ReadModel, Statement, UploadKind,
};

/// 24 h, for the wallet's 24 h change.
const DAY_MS: u64 = 86_400_000;

pub(super) fn routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(balance))
        .routes(routes!(reset_demo))
        .routes(routes!(deposits, create_deposit))
        .routes(routes!(deposit_info))
        .routes(routes!(recipient))
        .routes(routes!(withdraw_info))
        .routes(routes!(withdrawals, create_withdrawal))
        .routes(routes!(addresses, add_address))
        .routes(routes!(remove_address))
        .routes(routes!(transfer))
        .routes(routes!(bills))
        .routes(routes!(export_bills))
        .routes(routes!(statement))
        .routes(routes!(statement_pdf))
}

/// A wallet (spec §3: total, available, in position, frozen, 24 h change).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Balance {
    /// `real` or `demo`.
    pub account: String,
    /// available + frozen + in position.
    pub total: String,
    /// Free to trade or withdraw.
    pub available: String,
    /// Stakes of open contracts.
    pub in_position: String,
    /// Pending withdrawals.
    pub frozen: String,
    /// Net trading result over 24 h (profit - loss - fees + rewards).
    pub change24h: String,
    /// The same as a percentage of the total 24 h ago.
    pub change24h_percent: String,
    /// The tournament running now whose balance this is (the `tournament` account); absent
    /// when none runs for the user, and the balance is then zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tournament: Option<u32>,
    /// The contract durations (seconds) that tournament allows; empty for every rule's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub durations: Option<Vec<u32>>,
}

/// Which wallet.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct AccountQuery {
    /// The real account when absent.
    #[param(inline)]
    pub account: Option<AccountParam>,
}

fn trading_bill(bill_type: BillKind) -> bool {
    matches!(bill_type, BillKind::Profit | BillKind::Loss | BillKind::Fee | BillKind::Reward)
}

/// Wallet balances and 24 h change.
#[utoipa::path(get, path = "/api/wallet/balance", tag = "wallet", security(("user" = [])), params(AccountQuery),
    responses((status = 200, body = Envelope<Balance>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn balance(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<AccountQuery>,
) -> Answer<Balance> {
    let history = state.history().await?;
    let kind = AccountKind::from(query.account.unwrap_or(AccountParam::Real));
    let id = user.id;
    let read = state
        .query(move |e| {
            let account = e.account(id)?;
            Some(match kind {
                AccountKind::Tournament => match e.running_seat(id) {
                    Some((t, seat)) => {
                        let durations = e.tournament(t).map(|t| t.rules.durations.clone());
                        (Some(t), durations, seat.wallet.clone())
                    }
                    None => (None, None, Default::default()),
                },
                kind => (None, None, account.wallet(kind).clone()),
            })
        })
        .await?;
    let (tournament, durations, wallet) = read.ok_or_else(ApiError::unauthorized)?;
    let since = state.now().saturating_sub(DAY_MS);
    let sums = history.bill_totals(id.into(), |b| {
        b.account == kind && b.time >= since && trading_bill(b.bill_type)
    })?;
    // decisions §3: profit - loss - fees + rewards (refunds of void contracts are not results).
    let change: Decimal = sums.iter().map(|(_, s)| *s).sum();
    let before = wallet.total().to_decimal() - change;
    let percent = if before > Decimal::ZERO {
        (change * Decimal::ONE_HUNDRED / before).round_dp(2)
    } else {
        Decimal::ZERO
    };
    ok(Balance {
        account: crate::names::account_name(kind).into(),
        total: wallet.total().to_string(),
        available: wallet.available.to_string(),
        in_position: wallet.in_position.to_string(),
        frozen: wallet.frozen.to_string(),
        change24h: change.to_string(),
        change24h_percent: percent.to_string(),
        tournament,
        durations,
    })
}

/// Put the demo wallet back to 10,000 USDT.
#[utoipa::path(post, path = "/api/wallet/demo/reset", tag = "wallet", security(("user" = [])),
    responses((status = 200, body = Envelope<Empty>), (status = 401, body = ErrorEnvelope), (status = 409, body = ErrorEnvelope)))]
async fn reset_demo(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
) -> Answer<Empty> {
    state.submit(key, Command::ResetDemo { user: user.id }).await?;
    ok(Empty {})
}

fn my_orders(
    history: &ReadModel,
    user: u32,
    kind: OrderKind,
    query: &OrderQuery,
) -> Answer<Page<OrderRow>> {
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    let status = query.status.and_then(|s| EngineOrderStatus::from_wire_name(s.as_str()));
    let page =
        history.orders(user, |o| o.kind == kind && status.is_none_or(|s| o.status == s), paging)?;
    ok(page)
}

/// The user's deposit (recharge) orders.
#[utoipa::path(get, path = "/api/wallet/deposits", tag = "wallet", security(("user" = [])), params(OrderQuery),
    responses((status = 200, body = Envelope<Page<OrderRow>>), (status = 401, body = ErrorEnvelope)))]
async fn deposits(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<OrderQuery>,
) -> Answer<Page<OrderRow>> {
    my_orders(state.history().await?, user.id.into(), OrderKind::Deposit, &query)
}

/// What the deposit form needs: the limits and where to pay.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DepositInfo {
    /// Smallest amount.
    pub min_amount: String,
    /// Largest amount.
    pub max_amount: String,
    /// The platform's receiving details per method; a method missing here cannot be used yet.
    pub accounts: Vec<dto::DepositAccountView>,
}

/// Deposit limits and the platform's receiving details per payment method.
#[utoipa::path(get, path = "/api/wallet/deposit-info", tag = "wallet", security(("user" = [])),
    responses((status = 200, body = Envelope<DepositInfo>), (status = 401, body = ErrorEnvelope)))]
async fn deposit_info(State(state): State<AppState>, _user: User) -> Answer<DepositInfo> {
    let info = state
        .query(|e| DepositInfo {
            min_amount: e.settings().deposit_min.to_string(),
            max_amount: e.settings().deposit_max.to_string(),
            accounts: e.deposit_accounts().iter().map(dto::DepositAccountView::of).collect(),
        })
        .await?;
    ok(info)
}

/// Who a transfer would go to, shown before the sender confirms.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Recipient {
    /// UID.
    pub uid: u32,
    /// Nickname, else username, masked: first and last character (`al***e`).
    pub name: String,
}

/// The name of a transfer's recipient, by UID (404 USER_NOT_FOUND).
#[utoipa::path(get, path = "/api/wallet/recipient/{uid}", tag = "wallet", security(("user" = [])),
    params(("uid" = u32, Path, description = "The recipient's UID")),
    responses((status = 200, body = Envelope<Recipient>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn recipient(
    State(state): State<AppState>,
    user: User,
    client: Client,
    PathValue(uid): PathValue<u32>,
) -> Answer<Recipient> {
    // A lookup shows who a UID is: a few a minute per account and per address, so nobody
    // lists the users by walking the UIDs.
    let lookups = &state.throttles.recipient_lookup;
    lookups.take(&format!("uid:{}", user.id))?;
    lookups.take(&format!("ip:{}", client.ip))?;
    let found = state
        .query(move |e| {
            e.user(UserId(uid)).map(|u| {
                let name =
                    if u.profile.nickname.is_empty() { &u.username } else { &u.profile.nickname };
                Recipient { uid, name: masked(name) }
            })
        })
        .await?;
    ok(found.ok_or_else(|| ApiError::from(engine::EngineError::UserNotFound))?)
}

/// A name as a sender sees it before a transfer: enough to recognise someone they know
/// (`al***e`), not enough to learn a stranger's.
pub fn masked(name: &str) -> String {
    let chars: Vec<char> = name.chars().collect();
    match chars.as_slice() {
        [] => String::new(),
        [first] | [first, _] => format!("{first}***"),
        [first, .., last] => format!("{first}***{last}"),
    }
}

/// `POST /api/wallet/deposits`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct DepositBody {
    /// Amount (string).
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub amount: String,
    /// How it was paid.
    #[schema(required = true, inline, value_type = PayMethodParam)]
    pub method: String,
    /// Payer's account name.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub account_name: String,
    /// Payer's account number or address.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub account_number: String,
    /// Payer's bank (required for a bank transfer, may be empty for USDT).
    #[schema(max_length = 100)]
    pub bank_name: String,
    /// Receipt: the `name` returned by the upload call.
    #[schema(required = true, min_length = 1, max_length = 100)]
    pub receipt: String,
}

/// An order created.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderCreated {
    /// Order id.
    pub order_id: u64,
    /// "pending".
    pub status: String,
}

/// Ask for a deposit: a pending recharge order for an admin to approve.
#[utoipa::path(post, path = "/api/wallet/deposits", tag = "wallet", security(("user" = [])), request_body = DepositBody,
    responses((status = 200, body = Envelope<OrderCreated>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, description = "ACCOUNT_FROZEN", body = ErrorEnvelope)))]
async fn create_deposit(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<DepositBody>,
) -> Answer<OrderCreated> {
    let amount = dto::amount("amount", &body.amount)?;
    let method = dto::pay_method(&body.method)?;
    let account_name =
        dto::text("accountName", &body.account_name, dto::FIELD_CHARS_MAX, "deposit_fields")?;
    let account_number =
        dto::text("accountNumber", &body.account_number, dto::FIELD_CHARS_MAX, "deposit_fields")?;
    let bank_name = dto::optional_text("bankName", &body.bank_name, dto::FIELD_CHARS_MAX)?;
    if method == engine::types::PayMethod::BankTransfer && bank_name.is_empty() {
        return Err(ApiError::invalid("bankName", "deposit_fields"));
    }
    let receipt = body.receipt.trim().to_owned();
    if receipt.is_empty() {
        return Err(ApiError::invalid("receipt", "receipt"));
    }
    let upload = state.history().await?.upload(&receipt)?;
    let Some(upload) = upload.filter(|u| u.owner == user.id.get() && u.kind == UploadKind::Receipt)
    else {
        return Err(ApiError::invalid("receipt", "receipt"));
    };
    if upload.deposit.is_some() {
        return Err(receipt_used());
    }
    let request = RequestDeposit {
        user: user.id,
        amount,
        method,
        account_name,
        account_number,
        bank_name,
        receipt,
    };
    let reply = match state.submit(key, Command::RequestDeposit(Box::new(request))).await {
        Err(error) if error.code == "RECEIPT_USED" => return Err(receipt_used()),
        other => other?,
    };
    let Reply::OrderCreated { order } = reply else {
        return Err(ApiError::internal("unexpected reply"));
    };
    ok(OrderCreated { order_id: order.into(), status: "pending".into() })
}

/// 409: the receipt already backs a deposit (field `receipt`).
fn receipt_used() -> ApiError {
    let mut error = ApiError::new(StatusCode::CONFLICT, "RECEIPT_USED");
    error.field = Some("receipt");
    error
}

/// A saved withdrawal address.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AddressView {
    /// Position (for removal).
    pub position: u32,
    /// The user's label.
    pub label: String,
    /// eth, tron or trust.
    pub chain: String,
    /// The wallet address, as the chain writes it.
    pub address: String,
    /// The default one.
    pub is_default: bool,
}

fn address_views(engine: &engine::Engine, id: UserId) -> Vec<AddressView> {
    engine.user(id).map_or_else(Vec::new, |u| {
        u.addresses
            .iter()
            .enumerate()
            .map(|(i, a)| AddressView {
                position: i as u32,
                label: a.label.clone(),
                chain: a.chain.tag().into(),
                address: a.address.clone(),
                is_default: u.default_address == Some(i as u32),
            })
            .collect()
    })
}

/// What the withdrawal form needs.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WithdrawInfo {
    /// Fee rate on the amount.
    pub fee_rate: String,
    /// Fixed fee.
    pub fee_fixed: String,
    /// Smallest amount.
    pub min_amount: String,
    /// Largest amount.
    pub max_amount: String,
    /// Real available balance.
    pub available: String,
    /// Saved addresses.
    pub addresses: Vec<AddressView>,
    /// 2FA code needed.
    pub requires_two_factor: bool,
    /// Blocked until (ms) after a password change, if blocked.
    pub blocked_until: Option<u64>,
}

/// Withdrawal limits, fees, saved addresses.
#[utoipa::path(get, path = "/api/wallet/withdraw-info", tag = "wallet", security(("user" = [])),
    responses((status = 200, body = Envelope<WithdrawInfo>), (status = 401, body = ErrorEnvelope)))]
async fn withdraw_info(State(state): State<AppState>, user: User) -> Answer<WithdrawInfo> {
    let (id, now) = (user.id, state.now());
    let info = state
        .query(move |e| {
            let s = e.settings();
            let u = e.user(id)?;
            let until =
                u.password_changed_ms + engine::constants::WITHDRAW_BLOCK_AFTER_PASSWORD_CHANGE_MS;
            Some(WithdrawInfo {
                fee_rate: s.withdraw_fee_rate.to_string(),
                fee_fixed: s.withdraw_fee_fixed.to_string(),
                min_amount: s.withdraw_min.to_string(),
                max_amount: s.withdraw_max.to_string(),
                available: e.account(id).map(|a| a.real.available).unwrap_or_default().to_string(),
                addresses: address_views(e, id),
                requires_two_factor: u.totp_secret.is_some(),
                blocked_until: (u.password_changed_ms != 0 && until > now).then_some(until),
            })
        })
        .await?;
    ok(info.ok_or_else(ApiError::unauthorized)?)
}

/// The user's withdrawal orders.
#[utoipa::path(get, path = "/api/wallet/withdrawals", tag = "wallet", security(("user" = [])), params(OrderQuery),
    responses((status = 200, body = Envelope<Page<OrderRow>>), (status = 401, body = ErrorEnvelope)))]
async fn withdrawals(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<OrderQuery>,
) -> Answer<Page<OrderRow>> {
    my_orders(state.history().await?, user.id.into(), OrderKind::Withdraw, &query)
}

/// `POST /api/wallet/withdrawals`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct WithdrawBody {
    /// Amount including the fee.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub amount: String,
    /// Where it goes.
    #[schema(required = true, inline, value_type = WithdrawMethod)]
    pub method: String,
    /// Wallet: eth, tron or trust.
    pub chain: String,
    /// Wallet: address (or use `addressPosition`).
    pub address: String,
    /// Wallet: a saved address by position.
    pub address_position: Option<u32>,
    /// Bank: account holder's name.
    pub account_name: String,
    /// Bank: account number.
    pub account_number: String,
    /// Bank: bank name.
    pub bank_name: String,
    /// Required when 2FA is on.
    pub totp_code: Option<String>,
}

/// Ask for a withdrawal: the amount is frozen until an admin decides.
#[utoipa::path(post, path = "/api/wallet/withdrawals", tag = "wallet", security(("user" = [])), request_body = WithdrawBody,
    responses((status = 200, body = Envelope<OrderCreated>), (status = 400, description = "VALIDATION, AMOUNT_OUT_OF_RANGE, INSUFFICIENT_BALANCE, WITHDRAWAL_BLOCKED, TOTP_REQUIRED, INVALID_TOTP", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, description = "ACCOUNT_FROZEN", body = ErrorEnvelope)))]
async fn create_withdrawal(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    client: Client,
    Body(body): Body<WithdrawBody>,
) -> Answer<OrderCreated> {
    let id = user.id;
    let found = state
        .query(move |e| e.user(id).map(|u| (u.totp_secret.clone(), u.addresses.clone())))
        .await?;
    let (totp_secret, saved) = found.ok_or_else(ApiError::unauthorized)?;
    let destination = match body.method.as_str() {
        "wallet" => match body.address_position {
            Some(position) => {
                let a = saved
                    .get(position as usize)
                    .ok_or_else(|| ApiError::invalid("addressPosition", "address"))?;
                Destination::Wallet { chain: a.chain, address: a.address.clone() }
            }
            None => {
                let (chain, address) = dto::wallet_address(&body.chain, &body.address)?;
                Destination::Wallet { chain, address }
            }
        },
        "bank" => {
            let name =
                dto::text("accountName", &body.account_name, dto::FIELD_CHARS_MAX, "bank_info")?;
            let number = dto::text(
                "accountNumber",
                &body.account_number,
                dto::FIELD_CHARS_MAX,
                "bank_info",
            )?;
            let bank = dto::text("bankName", &body.bank_name, dto::FIELD_CHARS_MAX, "bank_info")?;
            Destination::Bank { name, number, bank }
        }
        _ => return Err(ApiError::invalid("method", "method")),
    };
    let amount = dto::amount("amount", &body.amount)?;
    if let Some(secret) = totp_secret {
        let code = body.totp_code.as_deref();
        two_factor::verify(&state, Principal::User(id), &secret, code, client.language).await?;
    }
    let reply = state
        .submit(
            key,
            Command::RequestWithdrawal { user: id, amount, destination: Box::new(destination) },
        )
        .await?;
    let Reply::OrderCreated { order } = reply else {
        return Err(ApiError::internal("unexpected reply"));
    };
    ok(OrderCreated { order_id: order.into(), status: "pending".into() })
}

/// Saved withdrawal addresses.
#[utoipa::path(get, path = "/api/wallet/addresses", tag = "wallet", security(("user" = [])),
    responses((status = 200, body = Envelope<Vec<AddressView>>), (status = 401, body = ErrorEnvelope)))]
async fn addresses(State(state): State<AppState>, user: User) -> Answer<Vec<AddressView>> {
    let id = user.id;
    ok(state.query(move |e| address_views(e, id)).await?)
}

/// `POST /api/wallet/addresses`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct AddressBody {
    /// A label.
    #[schema(max_length = 100)]
    pub label: String,
    /// The address's chain.
    #[schema(required = true, inline, value_type = ChainParam)]
    pub chain: String,
    /// The wallet address on the chosen chain.
    #[schema(required = true, min_length = 1, max_length = 64)]
    pub address: String,
    /// Make it the default.
    pub is_default: bool,
}

/// Save a withdrawal address.
#[utoipa::path(post, path = "/api/wallet/addresses", tag = "wallet", security(("user" = [])), request_body = AddressBody,
    responses((status = 200, body = Envelope<Vec<AddressView>>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn add_address(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    Body(body): Body<AddressBody>,
) -> Answer<Vec<AddressView>> {
    let (chain, address) = dto::wallet_address(&body.chain, &body.address)?;
    let label = dto::optional_text("label", &body.label, dto::FIELD_CHARS_MAX)?;
    let id = user.id;
    state
        .submit(
            key,
            Command::AddAddress { user: id, label, chain, address, make_default: body.is_default },
        )
        .await?;
    ok(state.query(move |e| address_views(e, id)).await?)
}

/// Forget a saved address.
#[utoipa::path(delete, path = "/api/wallet/addresses/{position}", tag = "wallet", security(("user" = [])),
    params(("position" = u32, Path, description = "Position in the saved list")),
    responses((status = 200, body = Envelope<Vec<AddressView>>), (status = 401, body = ErrorEnvelope), (status = 404, description = "ADDRESS_NOT_FOUND", body = ErrorEnvelope)))]
async fn remove_address(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    PathValue(position): PathValue<u32>,
) -> Answer<Vec<AddressView>> {
    let id = user.id;
    state.submit(key, Command::RemoveAddress { user: id, position }).await?;
    ok(state.query(move |e| address_views(e, id)).await?)
}

/// `POST /api/wallet/transfers`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct TransferBody {
    /// Receiver's UID.
    #[schema(required = true, minimum = 1)]
    pub to_uid: u32,
    /// USDT to send, at most two decimals.
    #[schema(required = true, pattern = "^[0-9]{1,10}(\\.[0-9]{1,2})?$")]
    pub amount: String,
    /// Authenticator code, required when 2FA is on (as for withdrawals).
    pub totp_code: Option<String>,
}

/// Send real USDT to another user by UID, instantly.
#[utoipa::path(post, path = "/api/wallet/transfers", tag = "wallet", security(("user" = [])), request_body = TransferBody,
    responses((status = 200, body = Envelope<Empty>), (status = 400, description = "VALIDATION, INSUFFICIENT_BALANCE, SELF_TRANSFER, TRANSFER_BLOCKED, TOTP_REQUIRED, INVALID_TOTP", body = ErrorEnvelope), (status = 401, body = ErrorEnvelope), (status = 403, description = "ACCOUNT_FROZEN", body = ErrorEnvelope), (status = 404, body = ErrorEnvelope)))]
async fn transfer(
    State(state): State<AppState>,
    key: IdempotencyKey,
    user: User,
    client: Client,
    Body(body): Body<TransferBody>,
) -> Answer<Empty> {
    if body.to_uid == 0 {
        return Err(ApiError::invalid("toUid", "uid"));
    }
    let amount = dto::amount("amount", &body.amount)?;
    let id = user.id;
    let secret = state.query(move |e| e.user(id).and_then(|u| u.totp_secret.clone())).await?;
    if let Some(secret) = secret {
        let code = body.totp_code.as_deref();
        two_factor::verify(&state, Principal::User(id), &secret, code, client.language).await?;
    }
    state.submit(key, Command::Transfer { from: user.id, to: UserId(body.to_uid), amount }).await?;
    ok(Empty {})
}

/// Bill filters.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BillQuery {
    /// Every type when absent.
    #[serde(rename = "type")]
    #[param(inline)]
    pub bill_type: Option<BillType>,
    /// From (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub start: Option<String>,
    /// To, inclusive (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub end: Option<String>,
    /// The real account when absent.
    #[param(inline)]
    pub account: Option<AccountParam>,
    /// 1-based page.
    #[param(minimum = 1, maximum = 1_000_000)]
    pub page: Option<usize>,
    /// Rows per page.
    #[param(minimum = 1, maximum = 100)]
    pub page_size: Option<usize>,
}

/// The transaction history's filters, read once for a page or an export.
struct BillFilter {
    account: AccountKind,
    bill_type: Option<BillKind>,
    start: Option<u64>,
    end: Option<u64>,
}

impl BillFilter {
    fn new(
        bill_type: Option<BillType>,
        start: Option<String>,
        end: Option<String>,
        account: Option<AccountParam>,
    ) -> Result<BillFilter, ApiError> {
        Ok(BillFilter {
            account: AccountKind::from(account.unwrap_or(AccountParam::Real)),
            bill_type: bill_type.and_then(|t| BillKind::from_wire_name(t.as_str())),
            start: start.as_deref().map(|s| dto::date("start", s, false)).transpose()?,
            end: end.as_deref().map(|s| dto::date("end", s, true)).transpose()?,
        })
    }

    fn keeps(&self, b: &BillRow) -> bool {
        b.account == self.account
            && self.bill_type.is_none_or(|t| b.bill_type == t)
            && self.start.is_none_or(|s| b.time >= s)
            && self.end.is_none_or(|e| b.time <= e)
    }

    /// For an export, oldest first: bills are numbered in time order, so the first one past
    /// the end ends it.
    fn take(&self, b: &BillRow) -> export::Take {
        if self.end.is_some_and(|e| b.time > e) {
            export::Take::Stop
        } else if self.keeps(b) {
            export::Take::Row
        } else {
            export::Take::Skip
        }
    }
}

/// The transaction history's filters, for an export of every matching bill.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BillExportQuery {
    /// Every type when absent.
    #[serde(rename = "type")]
    #[param(inline)]
    pub bill_type: Option<BillType>,
    /// From (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub start: Option<String>,
    /// To, inclusive (YYYY-MM-DD UTC or ms).
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub end: Option<String>,
    /// The real account when absent.
    #[param(inline)]
    pub account: Option<AccountParam>,
}

/// The transaction history as a CSV file: every bill the filters of `GET /api/wallet/bills`
/// match, oldest first, streamed (no row limit). Columns: id, time (RFC 3339 UTC), account,
/// type, amount, balance_after, available_after, reference.
#[utoipa::path(get, path = "/api/wallet/bills/export", tag = "wallet", security(("user" = [])), params(BillExportQuery),
    responses(
        (status = 200, description = "CSV, one bill per line after the header", content_type = "text/csv", body = String),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 429, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope)))]
async fn export_bills(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<BillExportQuery>,
) -> Result<axum::response::Response, ApiError> {
    let filter = BillFilter::new(query.bill_type, query.start, query.end, query.account)?;
    let history = state.history().await?.clone();
    let permit = export::admit(&state, user.id.get())?;
    let account = Some(filter.account);
    Ok(export::csv_download(history, user.id.get(), account, permit, move |b| filter.take(b)))
}

/// A statement's account and dates (every bill type: balances move with all of them).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct StatementQuery {
    /// From (YYYY-MM-DD UTC or ms); since the account began when absent.
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub start: Option<String>,
    /// To, inclusive (YYYY-MM-DD UTC or ms); until now when absent.
    #[param(
        pattern = r"^([0-9]{1,15}|(19[7-9][0-9]|[2-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01]))$"
    )]
    pub end: Option<String>,
    /// The real account when absent.
    #[param(inline)]
    pub account: Option<AccountParam>,
}

/// One account's statement over a range.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StatementView {
    /// `real` or `demo`.
    pub account: String,
    /// The balance (available + frozen + in position) just before the range; null when it
    /// cannot be told (bills kept before balances were recorded).
    pub opening: Option<String>,
    /// The balance at the range's end (the wallet's total when the range runs to now).
    pub closing: Option<String>,
    /// Bills within the range.
    pub count: u64,
    /// Sum of incoming amounts.
    pub total_in: String,
    /// Sum of outgoing amounts (negative).
    pub total_out: String,
    /// Sum per bill type (every type, zero included); opening + every sum = closing.
    pub by_type: Vec<TypeSum>,
}

/// The sum of one bill type's amounts.
#[derive(Debug, Serialize, ToSchema)]
pub struct TypeSum {
    /// The bill type (deposit, withdraw, profit, ...).
    #[serde(rename = "type")]
    pub bill_type: String,
    /// The sum of its amounts (signed).
    pub amount: String,
}

/// A statement of the chosen account for a range of dates: opening and closing balances and
/// the movements' totals per type, from the same bills as the history and its export.
#[utoipa::path(get, path = "/api/wallet/statement", tag = "wallet", security(("user" = [])), params(StatementQuery),
    responses((status = 200, body = Envelope<StatementView>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn statement(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<StatementQuery>,
) -> Answer<StatementView> {
    let filter = BillFilter::new(None, query.start, query.end, query.account)?;
    let found = statement_of(&state, user.id, &filter).await?;
    let (total_in, total_out, by_type) = totals(found.sums);
    ok(StatementView {
        account: crate::names::account_name(filter.account).into(),
        opening: found.opening.map(|d| d.to_string()),
        closing: found.closing.map(|d| d.to_string()),
        count: found.count,
        total_in,
        total_out,
        by_type,
    })
}

/// Sums per bill type as the history and the statement show them: the incoming total, the
/// outgoing total (negative), and each type's sum.
fn totals(sums: BillSums) -> (String, String, Vec<TypeSum>) {
    let total =
        |keep: fn(&Decimal) -> bool| -> Decimal { sums.iter().map(|(_, s)| *s).filter(keep).sum() };
    let (total_in, total_out) = (total(|s| *s > Decimal::ZERO), total(|s| *s < Decimal::ZERO));
    let by_type = sums
        .into_iter()
        .map(|(t, s)| TypeSum { bill_type: bill_name(t).to_owned(), amount: s.to_string() })
        .collect();
    (total_in.to_string(), total_out.to_string(), by_type)
}

/// The statement of `filter`'s account and dates, from the same bills as the history.
async fn statement_of(
    state: &AppState,
    id: UserId,
    filter: &BillFilter,
) -> Result<Statement, ApiError> {
    let history = state.history().await?.clone();
    let (uid, account) = (id.get(), filter.account);
    let (start, end) = (filter.start, filter.end);
    let mut found =
        tokio::task::spawn_blocking(move || history.statement(uid, account, start, end))
            .await
            .map_err(ApiError::internal)??;
    if found.opening.is_none() && found.closing.is_none() && found.count == 0 {
        // No bill at all: the balance has been the wallet's since the account began.
        let wallet = state.query(move |e| e.account(id).map(|a| a.wallet(account).total())).await?;
        let total = wallet.ok_or_else(ApiError::unauthorized)?.to_decimal();
        (found.opening, found.closing) = (Some(total), Some(total));
    }
    Ok(found)
}

/// The statement as a PDF file to keep: the same figures as `GET /api/wallet/statement`, in
/// the caller's language (the `language` header), with the holder, the account, the period
/// and the time it was made. Limited like the exports.
#[utoipa::path(get, path = "/api/wallet/statement/pdf", tag = "wallet", security(("user" = [])), params(StatementQuery),
    responses(
        (status = 200, description = "A one-page PDF", content_type = "application/pdf", body = Vec<u8>),
        (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope),
        (status = 429, body = ErrorEnvelope), (status = 503, body = ErrorEnvelope)))]
async fn statement_pdf(
    State(state): State<AppState>,
    user: User,
    headers: axum::http::HeaderMap,
    Params(query): Params<StatementQuery>,
) -> Result<axum::response::Response, ApiError> {
    let filter = BillFilter::new(None, query.start, query.end, query.account)?;
    let permit = export::admit(&state, user.id.get())?;
    let found = statement_of(&state, user.id, &filter).await?;
    let id = user.id;
    let name = state.query(move |e| e.user(id).map(|u| u.username.clone())).await?;
    let name = name.ok_or_else(ApiError::unauthorized)?;
    let language = crate::i18n::language_of(&headers);
    let now = state.now();
    let sheet = statement_sheet(&state.i18n, language, &name, id, &filter, &found, now);
    let pdf = tokio::task::spawn_blocking(move || {
        let _permit = permit;
        crate::pdf::render(&sheet)
    })
    .await
    .map_err(ApiError::internal)?
    .map_err(ApiError::internal)?;
    let account = crate::names::account_name(filter.account);
    let file = format!("statement-{account}-{}.pdf", export::day(now));
    Ok((
        [
            (axum::http::header::CONTENT_TYPE, "application/pdf".to_owned()),
            (axum::http::header::CONTENT_DISPOSITION, format!("attachment; filename=\"{file}\"")),
            (axum::http::header::CACHE_CONTROL, "no-store".to_owned()),
        ],
        pdf,
    )
        .into_response())
}

/// The statement's page in `language`: the labels from the catalogues, amounts formatted as
/// the web app formats them.
fn statement_sheet(
    i18n: &crate::i18n::Catalogues,
    language: usize,
    name: &str,
    id: UserId,
    filter: &BillFilter,
    found: &Statement,
    now_ms: u64,
) -> crate::pdf::Sheet {
    let t_with =
        |key: &str, args: &[(&str, String)]| i18n.text(language, &format!("web.{key}"), args);
    let t = |key: &str| t_with(key, &[]);
    let account = crate::names::account_name(filter.account);
    // The web app sends the trader's local days as instants: a bound that is not a UTC day's
    // edge is shown with its UTC time, so the period is never a day off.
    let bound = |ms: u64, last: bool| {
        // A first bound at 00:00:00.000, a last one at 23:59:59.999.
        let edge = (ms + u64::from(last)).is_multiple_of(DAY_MS);
        if edge {
            export::day(ms)
        } else {
            format!("{} UTC", export::minute(ms))
        }
    };
    let period = match (filter.start, filter.end) {
        (Some(start), Some(end)) => format!("{} – {}", bound(start, false), bound(end, true)),
        (Some(start), None) => t_with("wallet.statement.since", &[("date", bound(start, false))]),
        (None, Some(end)) => t_with("wallet.statement.until", &[("date", bound(end, true))]),
        (None, None) => t("wallet.statement.wholeHistory"),
    };
    let money = |value: Option<Decimal>, signed: bool| {
        value.map_or_else(|| "—".to_owned(), |v| crate::i18n::format_money(language, v, signed))
    };
    let mut rows = vec![crate::pdf::Row {
        label: t("wallet.history.opening"),
        value: money(found.opening, false),
        balance: true,
    }];
    rows.extend(found.sums.iter().filter(|(_, sum)| !sum.is_zero()).map(|(kind, sum)| {
        crate::pdf::Row {
            label: t(&format!("wallet.billType.{}", bill_name(*kind))),
            value: money(Some(*sum), true),
            balance: false,
        }
    }));
    rows.push(crate::pdf::Row {
        label: t("wallet.history.closing"),
        value: money(found.closing, false),
        balance: true,
    });
    crate::pdf::Sheet {
        language: crate::i18n::LANGUAGES[language],
        title: t("wallet.statement.title"),
        facts: vec![
            (t("wallet.statement.holder"), format!("{name} · UID {}", id.get())),
            (t("wallet.statement.account"), t(&format!("header.{account}"))),
            (t("wallet.statement.period"), period),
            (t("wallet.statement.printed"), format!("{} UTC", export::minute(now_ms))),
        ],
        rows,
        note: t_with("wallet.statement.note", &[("count", found.count.to_string())]),
    }
}

/// Bills with totals.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Bills {
    /// This page.
    pub items: Vec<BillRow>,
    /// Matching bills.
    pub total: u64,
    /// Sum of incoming amounts.
    pub total_in: String,
    /// Sum of outgoing amounts (negative).
    pub total_out: String,
    /// Sum per type (every type, zero included), as in the statement.
    pub by_type: Vec<TypeSum>,
}

/// Transaction history with type and date filters and totals.
#[utoipa::path(get, path = "/api/wallet/bills", tag = "wallet", security(("user" = [])), params(BillQuery),
    responses((status = 200, body = Envelope<Bills>), (status = 400, body = ErrorEnvelope), (status = 401, body = ErrorEnvelope)))]
async fn bills(
    State(state): State<AppState>,
    user: User,
    Params(query): Params<BillQuery>,
) -> Answer<Bills> {
    let history = state.history().await?;
    let paging = PageQuery { page: query.page, page_size: query.page_size }.paging()?;
    let filter = BillFilter::new(query.bill_type, query.start, query.end, query.account)?;
    let (page, sums) = history.bills(user.id.into(), |b| filter.keeps(b), paging)?;
    let (total_in, total_out, by_type) = totals(sums);
    ok(Bills { items: page.items, total: page.total, total_in, total_out, by_type })
}
