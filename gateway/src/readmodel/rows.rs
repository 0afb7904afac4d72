//! The rows as stored (MessagePack maps, JSON before) and as the API answers them (JSON).

use engine::types::{AccountKind, BillType, Direction, OrderStatus, Outcome, TickRef};
use engine::Settled;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A money movement with a bill type (decisions §3).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct BillRow {
    /// Order of the bill among all bills.
    pub id: u64,
    /// `real` or `demo`.
    #[serde(with = "crate::names::wire")]
    #[schema(value_type = String)]
    pub account: AccountKind,
    /// deposit, withdraw, profit, loss, fee, refund, reward, transfer_in, transfer_out, adjustment.
    #[serde(rename = "type", with = "crate::names::wire")]
    #[schema(value_type = String)]
    pub bill_type: BillType,
    /// Signed amount in USDT.
    #[schema(value_type = String)]
    pub amount: Decimal,
    /// Available balance after it.
    #[schema(value_type = String)]
    pub balance: Decimal,
    /// The account's whole balance after it (available + frozen + in position): a statement's
    /// opening and closing balances. Absent on bills kept before the read model recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub total: Option<Decimal>,
    /// Contract, order or counterparty it belongs to.
    pub reference: u64,
    /// Bills are final when written.
    pub status: String,
    /// When (ms since the epoch).
    pub time: u64,
}

/// A tick that entered or ended a contract, with where it sits in the log (decisions §1).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
pub struct TickRow {
    /// The tick's price (decimal string).
    #[schema(value_type = String)]
    pub price: Decimal,
    /// Tick time (ms since the epoch).
    pub time: u64,
    /// Log index of the tick.
    pub sequence: u64,
}

impl ContractRow {
    /// A contract just accepted, waiting for its entry tick.
    pub fn opened(
        c: &engine::types::Contract,
        symbol: engine::types::Symbol,
        leader: Option<engine::types::UserId>,
        tournament: Option<engine::tournament::TournamentId>,
    ) -> ContractRow {
        ContractRow {
            id: c.id.into(),
            user: c.user.into(),
            account: c.account,
            symbol: symbol.to_string(),
            direction: c.direction,
            stake: c.stake.to_decimal(),
            fee: c.fee.to_decimal(),
            payout_rate: c.payout_rate.to_decimal(),
            duration: c.duration_ms / 1_000,
            accepted_at: c.accepted_ms,
            accepted_index: c.accepted_index,
            entry: None,
            expiry_at: None,
            exit: None,
            outcome: None,
            credited: None,
            profit: None,
            settled_at: None,
            status: ContractState::WaitingEntry,
            sale: None,
            copied_from: leader.map(u32::from),
            tournament,
        }
    }

    /// The entry tick arrived: the contract runs until `expiry_ms`.
    pub fn entered(&mut self, entry: TickRef, expiry_ms: u64) {
        self.entry = Some(entry.into());
        self.expiry_at = Some(expiry_ms);
        self.status = ContractState::Open;
    }

    /// The whole row of a settled contract, from its settlement alone, where that holds every
    /// field: not for a sale (its offer came in an event of its own) nor a tournament's
    /// contract (its tournament is not in the settlement). Settling 20 k contracts a second,
    /// reading each row back and decoding it took a quarter of the projector's time.
    pub fn closed(s: &Settled<'_>) -> Option<ContractRow> {
        let c = &s.contract;
        if s.outcome == Outcome::Sold || c.account == AccountKind::Tournament {
            return None;
        }
        let mut row = ContractRow::opened(c, s.symbol, s.leader(), None);
        row.settled(s);
        Some(row)
    }

    /// The contract ended as `s` says.
    pub fn settled(&mut self, s: &Settled<'_>) {
        let c = &s.contract;
        self.entry = c.entry.map(TickRow::from);
        self.expiry_at = c.entry.map(|_| c.expiry_ms);
        self.exit = s.exit.map(TickRow::from);
        self.outcome = Some(s.outcome);
        self.credited = Some(s.credited.to_decimal());
        self.profit = Some(s.profit().to_decimal());
        self.settled_at = Some(s.settled_ms);
        self.copied_from = s.leader().map(u32::from);
        self.status =
            if s.outcome.is_void() { ContractState::Void } else { ContractState::Settled };
    }
}

impl From<TickRef> for TickRow {
    fn from(tick: TickRef) -> Self {
        TickRow { price: tick.price, time: tick.time_ms, sequence: tick.index }
    }
}

/// A contract record.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct ContractRow {
    /// Order number.
    pub id: u64,
    /// Owner's UID.
    pub user: u32,
    /// `real` or `demo`.
    #[serde(with = "crate::names::wire")]
    #[schema(value_type = String)]
    pub account: AccountKind,
    /// Product code.
    pub symbol: String,
    /// `up` (buy up) or `down` (buy down).
    #[serde(with = "crate::names::wire")]
    #[schema(value_type = String)]
    pub direction: Direction,
    /// Input amount.
    #[schema(value_type = String)]
    pub stake: Decimal,
    /// Fee paid.
    #[schema(value_type = String)]
    pub fee: Decimal,
    /// Payout rate locked at acceptance.
    #[schema(value_type = String)]
    pub payout_rate: Decimal,
    /// Duration in seconds.
    pub duration: u64,
    /// Accepted at.
    pub accepted_at: u64,
    /// Log index of the acceptance: the entry is the symbol's first tick after it.
    #[serde(default)]
    pub accepted_index: u64,
    /// Entry spot, once known.
    pub entry: Option<TickRow>,
    /// Expiry (entry time + duration), once entered.
    pub expiry_at: Option<u64>,
    /// Exit spot, once settled.
    pub exit: Option<TickRow>,
    /// win, loss, tie, void_no_entry, void_stale_feed, void_market_closed.
    #[serde(with = "crate::names::wire_option")]
    #[schema(value_type = Option<String>)]
    pub outcome: Option<Outcome>,
    /// Paid back to the wallet at settlement.
    #[schema(value_type = Option<String>)]
    pub credited: Option<Decimal>,
    /// Profit (+) or loss (-).
    #[schema(value_type = Option<String>)]
    pub profit: Option<Decimal>,
    /// Settled at.
    pub settled_at: Option<u64>,
    /// waiting_entry, open, settled, void.
    #[schema(value_type = String)]
    pub status: ContractState,
    /// A sale before expiry: the offer paid and every figure it came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sale: Option<SaleRow>,
    /// The UID of the trader whose order this contract copied, when it is a copy (absent
    /// for a trader's own order, so that rows stay as small as they were).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copied_from: Option<u32>,
    /// The tournament it was played in, when it is on a tournament balance.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tournament: Option<u32>,
}

/// A sale back before expiry, as the engine priced it (decisions §11; the rule is on the
/// rules page and in `GET /api/rules`). Integers are in the rule's units.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SaleRow {
    /// The tick the offer was priced at (the sale's exit).
    pub tick: TickRow,
    /// Log index of the first tick of the volatility window (which ends at `tick`).
    pub window_from: u64,
    /// Price changes in the window.
    pub returns: u16,
    /// Σ r² over the window, billionths squared (a decimal string: it can pass 2⁶⁴).
    #[schema(value_type = String)]
    #[serde(with = "u128_string")]
    pub sum_sq: u128,
    /// Σ gaps between the window's ticks (ms).
    pub sum_gap_ms: u64,
    /// Expiry − the sale's time (ms).
    pub time_left_ms: u64,
    /// ⌊√(Σr² × time left / Σgaps)⌋, billionths.
    pub sd: u64,
    /// How far in the money, billionths of the entry price.
    pub distance: i64,
    /// distance / sd, ten-thousandths, within ±4.
    pub z: i32,
    /// Φ(z), millionths.
    pub probability: u32,
    /// What a win would pay.
    #[schema(value_type = String)]
    pub win_credit: Decimal,
    /// ⌊win credit × probability⌋.
    #[schema(value_type = String)]
    pub fair: Decimal,
    /// The spread taken (fraction).
    #[schema(value_type = String)]
    pub spread: Decimal,
    /// What the sale paid.
    #[schema(value_type = String)]
    pub offer: Decimal,
}

impl From<&engine::sale::Quote> for SaleRow {
    fn from(q: &engine::sale::Quote) -> Self {
        SaleRow {
            tick: q.tick.into(),
            window_from: q.window_from,
            returns: q.returns,
            sum_sq: q.sum_sq,
            sum_gap_ms: q.sum_gap_ms,
            time_left_ms: q.time_left_ms,
            sd: q.sd,
            distance: q.distance,
            z: q.z,
            probability: q.probability,
            win_credit: q.win_credit.to_decimal(),
            fair: q.fair.to_decimal(),
            spread: q.spread.to_decimal(),
            offer: q.offer.to_decimal(),
        }
    }
}

/// A `u128` as a decimal string (JSON numbers lose precision past 2⁵³).
mod u128_string {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(value)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        String::deserialize(d)?.parse().map_err(serde::de::Error::custom)
    }
}

/// Where a contract stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ContractState {
    /// Accepted, waiting for its entry tick.
    WaitingEntry,
    /// Entered, running until its expiry.
    Open,
    /// Ended with a result.
    Settled,
    /// Ended without one; the stake returned.
    Void,
}

impl ContractState {
    /// Still running or waiting to.
    pub fn is_open(self) -> bool {
        matches!(self, ContractState::WaitingEntry | ContractState::Open)
    }

    /// The name on the wire.
    pub fn name(self) -> &'static str {
        match self {
            ContractState::WaitingEntry => "waiting_entry",
            ContractState::Open => "open",
            ContractState::Settled => "settled",
            ContractState::Void => "void",
        }
    }
}

/// A deposit or a withdrawal.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OrderKind {
    /// Money in.
    Deposit,
    /// Money out.
    Withdraw,
}

/// A deposit (recharge) or withdrawal order.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct OrderRow {
    /// Order id.
    pub id: u64,
    /// Owner's UID.
    pub user: u32,
    /// `deposit` or `withdraw`.
    #[schema(value_type = String)]
    pub kind: OrderKind,
    /// Amount (for withdrawals, including the fee).
    #[schema(value_type = String)]
    pub amount: Decimal,
    /// Fee taken on the order (0 for deposits).
    #[schema(value_type = String)]
    pub fee: Decimal,
    /// What arrives (amount - fee).
    #[schema(value_type = String)]
    pub actual: Decimal,
    /// bank_transfer, usdt_trc20, usdt_erc20 (deposits); wallet or bank (withdrawals).
    pub method: String,
    /// Account name, number and bank, or chain and address.
    pub details: serde_json::Value,
    /// Receipt upload name (deposits).
    pub receipt: Option<String>,
    /// pending, processing (a withdrawal approved, being paid out), completed, rejected or
    /// failed (a withdrawal whose payout failed; the money returned).
    #[serde(with = "crate::names::wire")]
    #[schema(value_type = String)]
    pub status: OrderStatus,
    /// The admin's remark on rejection.
    pub remark: String,
    /// Created at.
    pub created_at: u64,
    /// Decided at.
    pub completed_at: Option<u64>,
}

/// One sign-in.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct LoginRow {
    /// Session id.
    pub session: u64,
    /// Device (user agent, shortened).
    pub device: String,
    /// Client address.
    pub ip: String,
    /// Signed in at.
    pub started_at: u64,
    /// Ended at (sign-out, revocation), if ended.
    pub ended_at: Option<u64>,
}

/// An event of a user's security history, beside their sign-ins.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct SecurityRow {
    /// `twoFactorLocked`: too many wrong authenticator codes paused two-factor actions (sign-in,
    /// turning 2FA off, transfers, withdrawals).
    pub kind: String,
    /// When it happened (ms).
    pub time: u64,
    /// When the pause ends (ms); also the event's id.
    pub until: u64,
    /// Wrong codes in a row that led to it.
    pub failures: u32,
}

impl SecurityRow {
    /// A two-factor pause of the account.
    pub fn two_factor_locked(time: u64, until: u64, failures: u32) -> SecurityRow {
        SecurityRow { kind: "twoFactorLocked".into(), time, until, failures }
    }
}

/// What copy trading told a user, as the websocket frame of `kind` carried it: a copy started
/// or ended (`copy`), or a copy of the leader's order refused (`copy.refused`). Kept so that
/// a user who was away is told when they come back.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct CopyNoteRow {
    /// `copy` or `copy.refused`.
    pub kind: String,
    /// When (ms).
    pub time: u64,
    /// The follower's UID.
    pub follower: u32,
    /// The leader's UID.
    pub leader: u32,
    /// `started` or `ended` (a `copy`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<String>,
    /// Why a copy ended, told to the follower: by_leader, leader_stopped or stop_reached (the
    /// leader is told that a follower stopped, not why; nobody is told of their own act).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The leader's contract whose copy was refused (a `copy.refused`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract_id: Option<u64>,
    /// The refusal's code (a `copy.refused`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

impl CopyNoteRow {
    /// What `event` tells whom, if it is copy trading's: a copy started or ended (to the
    /// follower and the leader, each as they are told), or a copy refused (to the follower).
    /// The websocket sends these and the read model keeps them, so both say the same.
    pub fn of(event: &engine::Event, time: u64) -> Vec<(engine::types::UserId, CopyNoteRow)> {
        match *event {
            engine::Event::CopyChanged { follower, leader, change } => {
                [(follower, false), (leader, true)]
                    .into_iter()
                    .filter_map(|(to, to_leader)| {
                        Some((to, Self::change(time, follower, leader, change, to_leader)?))
                    })
                    .collect()
            }
            engine::Event::CopyRefused { follower, leader, contract, code } => {
                let note = CopyNoteRow {
                    kind: "copy.refused".into(),
                    time,
                    follower: follower.into(),
                    leader: leader.into(),
                    change: None,
                    reason: None,
                    contract_id: Some(contract.into()),
                    code: Some(code.into()),
                };
                vec![(follower, note)]
            }
            _ => Vec::new(),
        }
    }

    /// A copy started or ended, as `to_leader` or the follower is told; none when they did it
    /// themselves (nobody is told of their own act) or for a change of settings. A leader is
    /// not told why a follower stopped (a stop level reached would tell their balance).
    fn change(
        time: u64,
        follower: engine::types::UserId,
        leader: engine::types::UserId,
        change: engine::CopyChange,
        to_leader: bool,
    ) -> Option<CopyNoteRow> {
        use engine::{CopyChange, CopyEnd};
        let (change, reason) = match (change, to_leader) {
            (CopyChange::Started, true) => ("started", None),
            (CopyChange::Ended(CopyEnd::ByFollower | CopyEnd::StopReached), true) => {
                ("ended", None)
            }
            (
                CopyChange::Ended(
                    end @ (CopyEnd::ByLeader | CopyEnd::LeaderStopped | CopyEnd::StopReached),
                ),
                false,
            ) => ("ended", Some(end.code().into())),
            _ => return None,
        };
        Some(CopyNoteRow {
            kind: "copy".into(),
            time,
            follower: follower.into(),
            leader: leader.into(),
            change: Some(change.into()),
            reason,
            contract_id: None,
            code: None,
        })
    }
}

/// A system notice.
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct NoticeRow {
    /// Notice id.
    pub id: u64,
    /// The notice's title, shown in the notification centre's list.
    pub title: String,
    /// The notice's text, shown when a user opens it.
    pub body: String,
    /// Sent at.
    pub time: u64,
    /// The language it is written in (`en-US` ... `hi-IN`); empty: every language.
    #[serde(default)]
    pub lang: String,
    /// Withdrawn by an admin at this time (ms): users no longer see it.
    #[serde(default)]
    pub withdrawn_at: Option<u64>,
}

/// A price alert: waiting (from the engine) or fired (kept here).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AlertRow {
    /// Alert number.
    pub id: u64,
    /// Product code.
    pub symbol: String,
    /// The price watched for.
    #[schema(value_type = String)]
    pub price: Decimal,
    /// `above`: fires when the price rises to it; `below`: when it falls to it.
    pub direction: String,
    /// Set at (ms since the epoch).
    pub created_at: u64,
    /// When a tick reached it; none while waiting.
    pub fired_at: Option<u64>,
    /// The price of that tick.
    #[schema(value_type = Option<String>)]
    pub fired_price: Option<Decimal>,
    /// Log index of that tick (look it up in the tick archive).
    pub fired_sequence: Option<u64>,
}

impl AlertRow {
    /// A waiting alert as the engine holds it.
    pub fn waiting(alert: &engine::types::PriceAlert) -> AlertRow {
        AlertRow {
            id: alert.id,
            symbol: alert.symbol.to_string(),
            price: alert.price,
            direction: if alert.rising { "above" } else { "below" }.to_owned(),
            created_at: alert.created_ms,
            fired_at: None,
            fired_price: None,
            fired_sequence: None,
        }
    }

    /// The alert as `tick` fired it.
    pub fn fired(alert: &engine::types::PriceAlert, tick: TickRef) -> AlertRow {
        AlertRow {
            fired_at: Some(tick.time_ms),
            fired_price: Some(tick.price),
            fired_sequence: Some(tick.index),
            ..AlertRow::waiting(alert)
        }
    }
}

/// One back-office action, refused or not (decisions §1).
#[derive(Debug, Clone, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct AuditRow {
    /// Log index of the action.
    pub index: u64,
    /// Admin id.
    pub admin: u32,
    /// Action name.
    pub action: String,
    /// What it did.
    pub detail: String,
    /// Error code if refused.
    pub refused: Option<String>,
    /// When the action was applied (ms since the epoch).
    pub time: u64,
}

/// What an upload is for, which decides who may see it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UploadKind {
    /// A user's picture (public).
    Avatar,
    /// The platform's logo (public).
    Logo,
    /// A deposit's receipt (its owner and admins).
    Receipt,
}

/// An uploaded file and who may see it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct UploadRow {
    /// Uploader's UID.
    pub owner: u32,
    /// `avatar` or `logo` (public), or `receipt` (owner and admins).
    pub kind: UploadKind,
    /// MIME type found in the content.
    pub content_type: String,
    /// The deposit order this receipt backs, once one was asked for with it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deposit: Option<u64>,
}

/// Running totals for the dashboard.
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    /// Real contracts accepted.
    pub contracts: u64,
    /// Real stake accepted.
    #[schema(value_type = String)]
    pub volume: Decimal,
    /// Real contracts settled.
    pub settled: u64,
    /// Net result of users on settled real contracts (credited - stake).
    #[schema(value_type = String)]
    pub users_net: Decimal,
    /// Sign-ins.
    pub logins: u64,
    /// Accounts registered since the start.
    pub registrations: u64,
}

/// One UTC day's figures for the back-office's dashboard (real money only).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct DayRow {
    /// The day's start (ms since the epoch, UTC).
    pub day: u64,
    /// Accounts registered that day.
    pub registrations: u64,
    /// Sign-ins.
    pub logins: u64,
    /// Deposits approved: how many and how much.
    pub deposits: u64,
    #[schema(value_type = String)]
    pub deposit_amount: Decimal,
    /// Withdrawals paid out: how many and how much.
    pub withdrawals: u64,
    #[schema(value_type = String)]
    pub withdrawal_amount: Decimal,
    /// Real contracts accepted.
    pub contracts: u64,
    /// Real stake accepted.
    #[schema(value_type = String)]
    pub turnover: Decimal,
    /// Fees taken on real contracts.
    #[schema(value_type = String)]
    pub fees: Decimal,
    /// Real contracts settled (not void).
    pub settled: u64,
    /// The house's result on them: stakes kept minus what was credited, plus fees taken.
    #[schema(value_type = String)]
    pub house_result: Decimal,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Rows written by earlier versions, which stored these fields as strings, still read,
    /// and are written back the same.
    #[test]
    fn typed_fields_are_stored_and_answered_by_their_names() {
        let contract = serde_json::json!({
            "id": 7, "user": 1, "account": "demo", "symbol": "BTCUSDT", "direction": "down",
            "stake": "10", "fee": "0.1", "payoutRate": "0.85", "duration": 60,
            "acceptedAt": 1, "acceptedIndex": 2, "entry": null, "expiryAt": null, "exit": null,
            "outcome": "void_stale_feed", "credited": "10.1", "profit": "0", "settledAt": 3,
            "status": "void",
        });
        let row: ContractRow = serde_json::from_value(contract.clone()).unwrap();
        assert_eq!((row.account, row.direction), (AccountKind::Demo, Direction::Down));
        assert_eq!((row.outcome, row.status), (Some(Outcome::VoidStaleFeed), ContractState::Void));
        assert_eq!(serde_json::to_value(&row).unwrap(), contract);

        let order = serde_json::json!({
            "id": 1, "user": 1, "kind": "withdraw", "amount": "5", "fee": "1", "actual": "4",
            "method": "wallet", "details": {}, "receipt": null, "status": "processing",
            "remark": "", "createdAt": 1, "completedAt": null,
        });
        let row: OrderRow = serde_json::from_value(order.clone()).unwrap();
        assert_eq!((row.kind, row.status), (OrderKind::Withdraw, OrderStatus::Processing));
        assert_eq!(serde_json::to_value(&row).unwrap(), order);

        let bill = serde_json::json!({
            "id": 1, "account": "real", "type": "transfer_in", "amount": "1", "balance": "1",
            "reference": 0, "status": "completed", "time": 1,
        });
        let row: BillRow = serde_json::from_value(bill.clone()).unwrap();
        assert_eq!(row.bill_type, BillType::TransferIn);
        assert_eq!(serde_json::to_value(&row).unwrap(), bill);

        let unknown = serde_json::json!({ "owner": 1, "kind": "poster", "content_type": "x" });
        assert!(serde_json::from_value::<UploadRow>(unknown).is_err());
    }

    /// Rows are stored packed and read back whole, and rows stored as JSON by earlier
    /// versions read the same.
    #[test]
    fn packed_and_json_rows_read_the_same() {
        fn both<T>(json: serde_json::Value)
        where
            T: Serialize + serde::de::DeserializeOwned + PartialEq + std::fmt::Debug,
        {
            let row: T = serde_json::from_value(json.clone()).unwrap();
            let packed = super::super::encode_row(&row).unwrap();
            assert_ne!(packed.first(), Some(&b'{'), "told apart from JSON");
            assert_eq!(super::super::decode_row::<T>(&packed).unwrap(), row);
            let stored_as_json = serde_json::to_vec(&json).unwrap();
            assert_eq!(super::super::decode_row::<T>(&stored_as_json).unwrap(), row);
        }
        let tick = serde_json::json!({ "price": "65432.10", "time": 5, "sequence": 6 });
        both::<ContractRow>(serde_json::json!({
            "id": 7, "user": 1, "account": "demo", "symbol": "BTCUSDT", "direction": "down",
            "stake": "10.00", "fee": "0.10", "payoutRate": "0.85", "duration": 60,
            "acceptedAt": 1, "acceptedIndex": 2, "entry": tick, "expiryAt": 65, "exit": tick,
            "outcome": "win", "credited": "18.50", "profit": "8.40", "settledAt": 66,
            "status": "settled", "copiedFrom": 3, "tournament": 4,
            "sale": { "tick": tick, "windowFrom": 1, "returns": 2,
                "sumSq": "340282366920938463463374607431768211455", "sumGapMs": 3,
                "timeLeftMs": 4, "sd": 5, "distance": -6, "z": -7, "probability": 8,
                "winCredit": "18.50", "fair": "9.25", "spread": "0.05", "offer": "8.79" },
        }));
        both::<OrderRow>(serde_json::json!({
            "id": 1, "user": 1, "kind": "deposit", "amount": "5", "fee": "0", "actual": "5",
            "method": "bank", "details": { "bankName": "B", "accountNumber": "12" },
            "receipt": "r.png", "status": "completed", "remark": "ok", "createdAt": 1,
            "completedAt": 2,
        }));
        both::<BillRow>(serde_json::json!({
            "id": 1, "account": "real", "type": "profit", "amount": "-1.25", "balance": "1",
            "total": "3.5", "reference": 0, "status": "completed", "time": 1,
        }));
        both::<HourRow>(serde_json::json!({ "settled": 3, "wins": 2, "profit_cents": -5 }));
    }
}

/// One trader's real results settled within one UTC hour: the figures copy trading's
/// rankings add up (voids have no result and are not counted).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct HourRow {
    /// Contracts settled with a result (win, loss, tie, sale).
    pub settled: u32,
    /// Of them, the ones that ended in profit.
    pub wins: u32,
    /// Their net result in cents (credited − stake − fee).
    pub profit_cents: i64,
}

impl HourRow {
    /// The sum of two hours' figures.
    pub fn plus(self, other: HourRow) -> HourRow {
        HourRow {
            settled: self.settled + other.settled,
            wins: self.wins + other.wins,
            profit_cents: self.profit_cents + other.profit_cents,
        }
    }
}
