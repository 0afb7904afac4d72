//! The wire names of the engine's enums: one spelling for the API, the websocket and the
//! stored history.

use engine::types::{
    AccountKind, BillType, Category, Destination, Direction, OrderStatus, Outcome, PayMethod,
};

pub(crate) fn account_name(kind: AccountKind) -> &'static str {
    match kind {
        AccountKind::Real => "real",
        AccountKind::Demo => "demo",
    }
}

/// The API name of a bill type.
pub fn bill_name(bill: BillType) -> &'static str {
    match bill {
        BillType::Deposit => "deposit",
        BillType::Withdraw => "withdraw",
        BillType::Profit => "profit",
        BillType::Loss => "loss",
        BillType::Fee => "fee",
        BillType::Refund => "refund",
        BillType::Reward => "reward",
        BillType::TransferIn => "transfer_in",
        BillType::TransferOut => "transfer_out",
        BillType::Adjustment => "adjustment",
    }
}

/// Every bill type's API name.
pub const BILL_TYPES: [&str; 10] = [
    "deposit",
    "withdraw",
    "profit",
    "loss",
    "fee",
    "refund",
    "reward",
    "transfer_in",
    "transfer_out",
    "adjustment",
];

/// The API name of a deposit's or withdrawal's status.
pub fn order_status_name(status: OrderStatus) -> &'static str {
    match status {
        OrderStatus::Pending => "pending",
        OrderStatus::Processing => "processing",
        OrderStatus::Completed => "completed",
        OrderStatus::Rejected => "rejected",
        OrderStatus::Failed => "failed",
    }
}

pub(crate) fn outcome_name(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win => "win",
        Outcome::Loss => "loss",
        Outcome::Tie => "tie",
        Outcome::VoidNoEntry => "void_no_entry",
        Outcome::VoidStaleFeed => "void_stale_feed",
        Outcome::VoidMarketClosed => "void_market_closed",
    }
}

pub(crate) fn direction_name(direction: Direction) -> &'static str {
    match direction {
        Direction::Up => "up",
        Direction::Down => "down",
    }
}

/// API name of a product category.
pub fn category_name(category: Category) -> &'static str {
    match category {
        Category::Crypto => "crypto",
        Category::Forex => "forex",
    }
}

/// API name of a payment method.
pub fn pay_method_name(method: PayMethod) -> &'static str {
    match method {
        PayMethod::BankTransfer => "bank_transfer",
        PayMethod::UsdtTrc20 => "usdt_trc20",
        PayMethod::UsdtErc20 => "usdt_erc20",
    }
}

/// A withdrawal destination as the API shows it: method name and details.
pub fn destination_json(destination: &Destination) -> (&'static str, serde_json::Value) {
    match destination {
        Destination::Wallet { chain, address } => {
            ("wallet", serde_json::json!({ "chain": chain.tag(), "address": address }))
        }
        Destination::Bank { name, number, bank } => (
            "bank",
            serde_json::json!({ "accountName": name, "accountNumber": number, "bankName": bank }),
        ),
    }
}
