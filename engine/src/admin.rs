//! Back-office commands: permission-checked, and audited whether they succeed or not.
//! Nothing here can choose a contract's outcome (decisions §1).

use rust_decimal::Decimal;

use crate::command::{AdminAction, SessionInfo};
use crate::constants::{
    ADMINS_MAX, DURATION_MAX_SECS, DURATION_MIN_SECS, LANGUAGES, OPEN_CONTRACTS_PER_USER_LIMIT,
    PRODUCTS_MAX, RULES_MAX,
};
use crate::engine::Book;
use crate::event::{AuditRecord, CommandResult, Event, Events, Reply};
use crate::identity::{
    push_session, valid_address, valid_hash, valid_text, valid_totp_secret, valid_username,
};
use crate::money::{is_valid_amount, is_valid_rate, Money};
use crate::types::{
    Access, AccountKind, Admin, AdminId, BillType, Category, DepositAccount, MarketHours,
    PayMethod, Product, Role, Rule, SessionId, Settings, Symbol, TwoFactorGuard, UserId,
};
use crate::{Engine, EngineError};

/// Longest notice body.
const NOTICE_BODY_LENGTH_MAX: usize = 5_000;

impl Engine {
    pub(crate) fn bootstrap_admin(
        &mut self,
        username: String,
        password_hash: String,
    ) -> CommandResult {
        if !self.admins.is_empty() {
            return Err(EngineError::AdminExists);
        }
        self.add_admin(username, password_hash, Role::Super)
    }

    fn add_admin(&mut self, username: String, password_hash: String, role: Role) -> CommandResult {
        if !valid_username(&username) {
            return Err(EngineError::Invalid("username"));
        }
        if !valid_hash(&password_hash) {
            return Err(EngineError::Invalid("password"));
        }
        let key = username.to_lowercase();
        if self.idx.admin_name.contains_key(&key) {
            return Err(EngineError::UsernameExists);
        }
        if self.admins.len() >= ADMINS_MAX {
            return Err(EngineError::LimitReached);
        }
        let id = AdminId::from_slot(self.admins.len());
        self.idx.admin_name.insert(key, id);
        self.admins.push(Admin {
            id,
            username,
            password_hash,
            role,
            disabled: false,
            sessions: Vec::new(),
            totp_secret: None,
            two_factor: TwoFactorGuard::default(),
            password_changed_ms: 0,
        });
        Ok(Reply::AdminCreated { admin: id })
    }

    fn active_admin(&self, admin: AdminId) -> Result<&Admin, EngineError> {
        match self.admin(admin) {
            Some(a) if !a.disabled => Ok(a),
            _ => Err(EngineError::AdminNotFound),
        }
    }

    pub(crate) fn create_admin_session(
        &mut self,
        admin: AdminId,
        info: SessionInfo,
    ) -> CommandResult {
        self.active_admin(admin)?;
        let session = self.new_session(info)?;
        let (id, expires_ms) = (session.id, session.expires_ms);
        let now = self.now_ms;
        push_session(&mut self.admins[admin.index()].sessions, session, now);
        Ok(Reply::SessionCreated { session: id, expires_ms })
    }

    pub(crate) fn end_admin_session(
        &mut self,
        admin: AdminId,
        session: SessionId,
        events: &mut Events,
    ) -> CommandResult {
        self.active_admin(admin)?;
        let sessions = &mut self.admins[admin.index()].sessions;
        let at =
            sessions.iter().position(|s| s.id == session).ok_or(EngineError::SessionNotFound)?;
        sessions.remove(at);
        events.push(Event::AdminSessionsEnded { admin, sessions: vec![session] });
        Ok(Reply::Done)
    }

    /// Ends the sessions of `admin` that `keep` refuses, saying which.
    fn end_admin_sessions_but(
        &mut self,
        admin: AdminId,
        keep: Option<SessionId>,
        events: &mut Events,
    ) {
        let sessions = &mut self.admins[admin.index()].sessions;
        let ended: Vec<SessionId> =
            sessions.iter().map(|s| s.id).filter(|id| Some(*id) != keep).collect();
        sessions.retain(|s| Some(s.id) == keep);
        if !ended.is_empty() {
            events.push(Event::AdminSessionsEnded { admin, sessions: ended });
        }
    }

    /// Checks the admin and the role, runs the action, and records it in the audit log.
    pub(crate) fn admin_command(
        &mut self,
        admin: AdminId,
        action: AdminAction,
        events: &mut Events,
    ) -> CommandResult {
        let name = action.name();
        let detail = audit_detail(&action);
        let result = match self.active_admin(admin) {
            Err(e) => Err(e),
            Ok(a) if !action.area().is_none_or(|area| a.role.can(area, Access::Write)) => {
                Err(EngineError::Forbidden)
            }
            Ok(_) => self.admin_action(admin, action, events),
        };
        events.push(Event::Audit(Box::new(AuditRecord {
            admin,
            action: name,
            detail,
            refused: result.as_ref().err().map(EngineError::code),
            index: self.applied_index,
            time_ms: self.now_ms,
        })));
        result
    }

    fn admin_action(
        &mut self,
        acting: AdminId,
        action: AdminAction,
        events: &mut Events,
    ) -> CommandResult {
        match action {
            AdminAction::CreateAdmin { username, password_hash, role } => {
                self.add_admin(username, password_hash, role)
            }
            AdminAction::SetUserFrozen { user, frozen, reason } => {
                self.set_user_frozen(user, frozen, &reason, events)
            }
            AdminAction::AdjustBalance { user, delta, reason } => {
                self.adjust_balance(user, delta, &reason, events)
            }
            AdminAction::FundHouse { amount } => self.fund_house(amount),
            AdminAction::ApproveDeposit { order } => self.approve_deposit(order, events),
            AdminAction::RejectDeposit { order, remark } => {
                self.reject_deposit(order, remark, events)
            }
            AdminAction::ApproveWithdrawal { order } => self.approve_withdrawal(order, events),
            AdminAction::RejectWithdrawal { order, remark } => {
                self.reject_withdrawal(order, remark, events)
            }
            AdminAction::CompleteWithdrawal { order } => self.complete_withdrawal(order, events),
            AdminAction::SetDepositAccounts(accounts) => {
                self.set_deposit_accounts(accounts, events)
            }
            AdminAction::FailWithdrawal { order, remark } => {
                self.fail_withdrawal(order, remark, events)
            }
            AdminAction::UpsertProduct { symbol, name, category, precision, enabled, hours } => {
                self.upsert_product(symbol, name, category, precision, enabled, hours, events)
            }
            AdminAction::SetRule(rule) => self.set_rule(rule, events),
            AdminAction::SetSaleTerms(terms) => self.set_sale_terms(*terms, events),
            AdminAction::CreateTournament(_)
            | AdminAction::UpdateTournament { .. }
            | AdminAction::PublishTournament { .. }
            | AdminAction::CancelTournament { .. } => self.tournament_action(action, events),
            AdminAction::RemoveRule { duration_secs } => self.remove_rule(duration_secs, events),
            AdminAction::UpdateSettings(settings) => self.update_settings(*settings, events),
            AdminAction::BroadcastNotice { title, body, lang } => {
                if title.trim().is_empty()
                    || !valid_text(&title)
                    || body.len() > NOTICE_BODY_LENGTH_MAX
                    || !(lang.is_empty() || LANGUAGES.contains(&lang.as_str()))
                {
                    return Err(EngineError::Invalid("notice"));
                }
                events.push(Event::Notice { id: self.applied_index, title, body, lang });
                Ok(Reply::Done)
            }
            AdminAction::WithdrawNotice { notice } => {
                events.push(Event::NoticeWithdrawn { notice });
                Ok(Reply::Done)
            }
            AdminAction::SetAdminDisabled { admin, disabled } => {
                self.set_admin_disabled(acting, admin, disabled, events)
            }
            AdminAction::ChangeOwnPassword { password_hash, keep_session } => {
                if !valid_hash(&password_hash) {
                    return Err(EngineError::Invalid("password"));
                }
                let now = self.now_ms;
                let me = &mut self.admins[acting.index()];
                me.password_hash = password_hash;
                me.password_changed_ms = now;
                self.end_admin_sessions_but(acting, Some(keep_session), events);
                Ok(Reply::Done)
            }
            AdminAction::SetOwnTotp { secret } => {
                if secret.as_ref().is_some_and(|s| !valid_totp_secret(s)) {
                    return Err(EngineError::Invalid("secret"));
                }
                let a = &mut self.admins[acting.index()];
                a.two_factor.failures = 0;
                a.totp_secret = secret;
                Ok(Reply::Done)
            }
        }
    }

    /// Disables (sessions ended) or enables an admin. Nobody disables themselves: as only a
    /// super admin may do this, one always stays to manage the others.
    fn set_admin_disabled(
        &mut self,
        acting: AdminId,
        admin: AdminId,
        disabled: bool,
        events: &mut Events,
    ) -> CommandResult {
        self.admin(admin).ok_or(EngineError::AdminNotFound)?;
        if disabled && admin == acting {
            return Err(EngineError::AdminKept);
        }
        self.admins[admin.index()].disabled = disabled;
        if disabled {
            self.end_admin_sessions_but(admin, None, events);
        }
        Ok(Reply::Done)
    }

    fn set_user_frozen(
        &mut self,
        user: UserId,
        frozen: bool,
        reason: &str,
        events: &mut Events,
    ) -> CommandResult {
        self.account_of(user)?;
        if !valid_text(reason) {
            return Err(EngineError::Invalid("reason"));
        }
        self.account_mut(user).frozen = frozen;
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    /// Moves money between the house and a user's real available balance, with a reason.
    fn adjust_balance(
        &mut self,
        user: UserId,
        delta: Decimal,
        reason: &str,
        events: &mut Events,
    ) -> CommandResult {
        let account = self.account_of(user)?;
        if !is_valid_amount(delta.abs()) {
            return Err(EngineError::Invalid("amount"));
        }
        let delta = Money::from_decimal(delta).ok_or(EngineError::Invalid("amount"))?;
        if reason.trim().is_empty() || !valid_text(reason) {
            return Err(EngineError::Invalid("reason"));
        }
        if delta.is_positive() && self.house_free() < delta {
            return Err(EngineError::HouseExposureLimit);
        }
        if delta < Money::ZERO && account.real.available < -delta {
            return Err(EngineError::InsufficientBalance);
        }
        self.account_mut(user).real.available += delta;
        self.ledger.house -= delta;
        self.wallet_event(user, AccountKind::Real, Some(BillType::Adjustment), delta, 0, events);
        Ok(Reply::Done)
    }

    fn fund_house(&mut self, amount: Decimal) -> CommandResult {
        if !is_valid_amount(amount) {
            return Err(EngineError::Invalid("amount"));
        }
        let amount = Money::from_decimal(amount).ok_or(EngineError::Invalid("amount"))?;
        self.check_supply(self.ledger.real_supply(), amount)?;
        self.ledger.house += amount;
        self.ledger.seed_capital += amount;
        Ok(Reply::Done)
    }

    #[allow(clippy::too_many_arguments)]
    fn upsert_product(
        &mut self,
        symbol: Symbol,
        name: String,
        category: Category,
        precision: u8,
        enabled: bool,
        hours: MarketHours,
        events: &mut Events,
    ) -> CommandResult {
        if Symbol::new(symbol.as_str()) != Some(symbol) {
            return Err(EngineError::Invalid("symbol"));
        }
        if name.trim().is_empty() || name.len() > 32 || !valid_text(&name) {
            return Err(EngineError::Invalid("name"));
        }
        if precision > 10 {
            return Err(EngineError::Invalid("precision"));
        }
        if !hours.is_valid() {
            return Err(EngineError::Invalid("hours"));
        }
        let product = Product { symbol, name, category, precision, enabled, hours };
        match self.idx.symbol.get(&symbol) {
            Some(&at) => {
                let at = usize::from(at);
                if self.products[at].hours != product.hours && self.books[at].has_open_contracts() {
                    return Err(EngineError::ProductHasOpenContracts);
                }
                self.products[at] = product;
            }
            None => {
                if self.products.len() >= PRODUCTS_MAX {
                    return Err(EngineError::LimitReached);
                }
                self.idx.symbol.insert(symbol, self.products.len() as u16);
                self.products.push(product);
                self.books.push(Book::default());
            }
        }
        events.push(Event::CatalogueChanged);
        Ok(Reply::Done)
    }

    fn set_rule(&mut self, rule: Rule, events: &mut Events) -> CommandResult {
        if !(DURATION_MIN_SECS..=DURATION_MAX_SECS).contains(&rule.duration_secs) {
            return Err(EngineError::Invalid("duration"));
        }
        if !is_valid_rate(rule.payout_rate) || rule.payout_rate.is_zero() {
            return Err(EngineError::Invalid("payout_rate"));
        }
        if !is_valid_rate(rule.fee_rate) || rule.fee_rate > Decimal::new(5, 1) {
            return Err(EngineError::Invalid("fee_rate"));
        }
        if !is_valid_amount(rule.stake_min)
            || !is_valid_amount(rule.stake_max)
            || rule.stake_min > rule.stake_max
        {
            return Err(EngineError::Invalid("stake"));
        }
        check_pair_loses(&rule, &self.settings.reward_rates)?;
        match self.rules.binary_search_by_key(&rule.duration_secs, |r| r.duration_secs) {
            Ok(at) => self.rules[at] = rule,
            Err(_) if self.rules.len() >= RULES_MAX => return Err(EngineError::LimitReached),
            Err(at) => self.rules.insert(at, rule),
        }
        self.refresh_terms();
        events.push(Event::CatalogueChanged);
        Ok(Reply::Done)
    }

    fn remove_rule(&mut self, duration_secs: u32, events: &mut Events) -> CommandResult {
        let at = self
            .rules
            .binary_search_by_key(&duration_secs, |r| r.duration_secs)
            .map_err(|_| EngineError::RuleNotFound)?;
        self.rules.remove(at);
        self.refresh_terms();
        events.push(Event::CatalogueChanged);
        Ok(Reply::Done)
    }

    fn set_deposit_accounts(
        &mut self,
        mut accounts: Vec<DepositAccount>,
        events: &mut Events,
    ) -> CommandResult {
        accounts.sort_by_key(|a| a.method as u8);
        if accounts.windows(2).any(|w| w[0].method == w[1].method) {
            return Err(EngineError::Invalid("method"));
        }
        for a in &accounts {
            let bank = a.method == PayMethod::BankTransfer;
            if a.number.trim().is_empty()
                || a.name.trim().is_empty()
                || bank == a.bank.trim().is_empty()
                || (!bank && !valid_address(&a.number))
                || ![&a.name, &a.number, &a.bank].iter().all(|t| valid_text(t))
            {
                return Err(EngineError::Invalid("depositAccount"));
            }
        }
        self.deposit_accounts = accounts;
        events.push(Event::CatalogueChanged);
        Ok(Reply::Done)
    }

    fn update_settings(&mut self, s: Settings, events: &mut Events) -> CommandResult {
        validate_settings(&s)?;
        for rule in &self.rules {
            check_pair_loses(rule, &s.reward_rates)?;
        }
        self.settings = s;
        self.refresh_terms();
        events.push(Event::CatalogueChanged);
        Ok(Reply::Done)
    }
}

/// Rounding can move a matched pair's result by at most this: the winner's payout, two fees
/// and six rewards, each rounded to the cent (9 × 0.005 USDT).
const PAIR_ROUNDING_SLACK: Decimal = Decimal::from_parts(45, 0, 0, false, 3);

/// Refuses a rule that, with these reward rates, would let a matched pair gain (decisions §5).
/// One user buys Up and another (or the same) Down with stake `s` on the same product and
/// duration, both invited by one chain: one wins `s × payout`, the other loses `s`, both pay
/// `s × fee`, and each stake earns the chain `s × Σ rates` (rewards are paid on wins and on
/// losses). The group's result, `s × (payout + 2 Σ rates − 1 − 2 fee)`, must stay below zero
/// by more than rounding can add, at the rule's smallest stake and so at every larger one.
fn check_pair_loses(rule: &Rule, reward_rates: &[Decimal]) -> Result<(), EngineError> {
    if !rule.enabled {
        return Ok(());
    }
    let rewards: Decimal = reward_rates.iter().sum();
    let two = Decimal::TWO;
    let margin = Decimal::ONE + two * rule.fee_rate - rule.payout_rate - two * rewards;
    if margin * rule.stake_min > PAIR_ROUNDING_SLACK {
        return Ok(());
    }
    Err(EngineError::PairCouldGain {
        duration_secs: rule.duration_secs,
        payout_rate: rule.payout_rate,
        reward_rates: rewards,
        fee_rate: rule.fee_rate,
    })
}

fn validate_settings(s: &Settings) -> Result<(), EngineError> {
    if s.site_name.trim().is_empty() || s.site_name.len() > 64 {
        return Err(EngineError::Invalid("site_name"));
    }
    let texts = [
        &s.logo,
        &s.site_description,
        &s.customer_service_link,
        &s.customer_service_hours,
        &s.provider_link,
    ];
    if !texts.iter().all(|t| valid_text(t)) {
        return Err(EngineError::Invalid("text"));
    }
    if !is_valid_rate(s.withdraw_fee_rate) || s.withdraw_fee_rate > Decimal::new(5, 1) {
        return Err(EngineError::Invalid("withdraw_fee_rate"));
    }
    if s.withdraw_fee_fixed < Decimal::ZERO
        || (!s.withdraw_fee_fixed.is_zero() && !is_valid_amount(s.withdraw_fee_fixed))
    {
        return Err(EngineError::Invalid("withdraw_fee_fixed"));
    }
    let ranges = [(s.withdraw_min, s.withdraw_max), (s.deposit_min, s.deposit_max)];
    if !ranges.iter().all(|&(min, max)| is_valid_amount(min) && is_valid_amount(max) && min <= max)
    {
        return Err(EngineError::Invalid("limits"));
    }
    if s.open_contracts_per_user_max == 0
        || s.open_contracts_per_user_max > OPEN_CONTRACTS_PER_USER_LIMIT
    {
        return Err(EngineError::Invalid("open_contracts_per_user_max"));
    }
    let rewards_ok = s.reward_rates.len() == crate::constants::REFERRAL_GENERATIONS
        && s.reward_rates.iter().all(|&r| is_valid_rate(r) && r <= Decimal::new(1, 1));
    if !rewards_ok {
        return Err(EngineError::Invalid("reward_rates"));
    }
    if !is_valid_amount(s.demo_balance) {
        return Err(EngineError::Invalid("demo_balance"));
    }
    Ok(())
}

/// The action's parameters for the audit log, without secrets (no password hashes).
fn audit_detail(action: &AdminAction) -> String {
    match action {
        AdminAction::SetDepositAccounts(accounts) => accounts
            .iter()
            .map(|a| format!("{:?}={} {} {}", a.method, a.name, a.number, a.bank))
            .collect::<Vec<_>>()
            .join("; "),
        AdminAction::CreateAdmin { username, role, .. } => {
            format!("username={username} role={role:?}")
        }
        AdminAction::SetUserFrozen { user, frozen, reason } => {
            format!("user={user} frozen={frozen} reason={reason}")
        }
        AdminAction::AdjustBalance { user, delta, reason } => {
            format!("user={user} delta={delta} reason={reason}")
        }
        AdminAction::FundHouse { amount } => format!("amount={amount}"),
        AdminAction::ApproveDeposit { order }
        | AdminAction::ApproveWithdrawal { order }
        | AdminAction::CompleteWithdrawal { order } => format!("order={order}"),
        AdminAction::RejectDeposit { order, remark }
        | AdminAction::RejectWithdrawal { order, remark }
        | AdminAction::FailWithdrawal { order, remark } => {
            format!("order={order} remark={remark}")
        }
        AdminAction::UpsertProduct { symbol, enabled, .. } => {
            format!("symbol={symbol} enabled={enabled}")
        }
        AdminAction::SetRule(r) => format!(
            "duration={}s payout={} stake={}..{} fee={} enabled={}",
            r.duration_secs, r.payout_rate, r.stake_min, r.stake_max, r.fee_rate, r.enabled
        ),
        AdminAction::RemoveRule { duration_secs } => format!("duration={duration_secs}s"),
        AdminAction::SetSaleTerms(t) => format!(
            "enabled={} cutoff={}s spread={} durations={} products={}",
            t.enabled,
            t.cutoff_secs,
            t.spread,
            t.durations
                .iter()
                .map(|d| format!("{}s:{}", d.duration_secs, d.spread))
                .collect::<Vec<_>>()
                .join(","),
            t.products
                .iter()
                .map(|p| format!(
                    "{}:{}",
                    p.symbol,
                    if p.enabled { p.spread.to_string() } else { "off".into() }
                ))
                .collect::<Vec<_>>()
                .join(","),
        ),
        AdminAction::CreateTournament(rules) => rules.audit(),
        AdminAction::UpdateTournament { tournament, rules } => {
            format!("tournament={tournament} {}", rules.audit())
        }
        AdminAction::PublishTournament { tournament }
        | AdminAction::CancelTournament { tournament } => format!("tournament={tournament}"),
        AdminAction::UpdateSettings(_) => "settings".to_string(),
        AdminAction::BroadcastNotice { title, lang, .. } => format!("title={title} lang={lang}"),
        AdminAction::WithdrawNotice { notice } => format!("notice={notice}"),
        AdminAction::SetAdminDisabled { admin, disabled } => {
            format!("admin={admin} disabled={disabled}")
        }
        AdminAction::ChangeOwnPassword { .. } => "password changed".to_string(),
        AdminAction::SetOwnTotp { secret } => format!("two_factor={}", secret.is_some()),
    }
}
