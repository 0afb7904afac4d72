//! The wire names of the engine's enums: one spelling for the API, the websocket and the
//! stored history.

use engine::types::{
    AccountKind, BillType, Category, Destination, Direction, OrderStatus, Outcome, PayMethod,
};

/// An enum with one wire name per variant.
pub trait WireName: Copy + 'static {
    /// Every variant.
    const ALL: &'static [Self];
    /// Its name on the wire.
    fn wire_name(self) -> &'static str;
    /// The variant named `name`.
    fn from_wire_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.wire_name() == name)
    }
}

/// The name function of an engine enum and its [`WireName`].
macro_rules! wire_names {
    ($(#[$doc:meta])* $name:ident($ty:ident) { $($variant:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        pub fn $name(value: $ty) -> &'static str {
            match value {
                $($ty::$variant => $text),+
            }
        }

        impl WireName for $ty {
            const ALL: &'static [$ty] = &[$($ty::$variant),+];
            fn wire_name(self) -> &'static str {
                $name(self)
            }
        }
    };
}

wire_names! {
    /// Which balance.
    account_name(AccountKind) { Real = "real", Demo = "demo", Tournament = "tournament" }
}

wire_names! {
    /// A bill's type.
    bill_name(BillType) {
        Deposit = "deposit",
        Withdraw = "withdraw",
        Profit = "profit",
        Loss = "loss",
        Fee = "fee",
        Refund = "refund",
        Reward = "reward",
        TransferIn = "transfer_in",
        TransferOut = "transfer_out",
        Adjustment = "adjustment",
        Sale = "sale",
        TournamentFee = "tournament_fee",
        TournamentPrize = "tournament_prize",
        TournamentRefund = "tournament_refund",
    }
}

wire_names! {
    /// A deposit's or withdrawal's status.
    order_status_name(OrderStatus) {
        Pending = "pending",
        Processing = "processing",
        Completed = "completed",
        Rejected = "rejected",
        Failed = "failed",
    }
}

wire_names! {
    /// How a contract ended.
    outcome_name(Outcome) {
        Win = "win",
        Loss = "loss",
        Tie = "tie",
        VoidNoEntry = "void_no_entry",
        VoidStaleFeed = "void_stale_feed",
        VoidMarketClosed = "void_market_closed",
        Sold = "sold",
    }
}

wire_names! {
    /// Rise or fall.
    direction_name(Direction) { Up = "up", Down = "down" }
}

wire_names! {
    /// A product's category.
    category_name(Category) { Crypto = "crypto", Forex = "forex" }
}

wire_names! {
    /// A deposit's payment method.
    pay_method_name(PayMethod) {
        BankTransfer = "bank_transfer",
        UsdtTrc20 = "usdt_trc20",
        UsdtErc20 = "usdt_erc20",
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

/// Serde for a field stored and answered by its [`WireName`]:
/// `#[serde(with = "crate::names::wire")]`.
pub mod wire {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::WireName;

    /// Writes the name.
    pub fn serialize<T: WireName, S: Serializer>(value: &T, to: S) -> Result<S::Ok, S::Error> {
        to.serialize_str(value.wire_name())
    }

    /// Reads a name; an unknown one is an error.
    pub fn deserialize<'de, T: WireName, D: Deserializer<'de>>(from: D) -> Result<T, D::Error> {
        let name = String::deserialize(from)?;
        T::from_wire_name(&name).ok_or_else(|| D::Error::unknown_variant(&name, &[]))
    }
}

/// [`wire`] for an optional field (null when absent).
pub mod wire_option {
    use serde::de::Error;
    use serde::{Deserialize, Deserializer, Serializer};

    use super::WireName;

    /// Writes the name, or null.
    pub fn serialize<T: WireName, S: Serializer>(
        value: &Option<T>,
        to: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => to.serialize_some(value.wire_name()),
            None => to.serialize_none(),
        }
    }

    /// Reads a name or null.
    pub fn deserialize<'de, T: WireName, D: Deserializer<'de>>(
        from: D,
    ) -> Result<Option<T>, D::Error> {
        match Option::<String>::deserialize(from)? {
            Some(name) => T::from_wire_name(&name)
                .map(Some)
                .ok_or_else(|| D::Error::unknown_variant(&name, &[])),
            None => Ok(None),
        }
    }
}
