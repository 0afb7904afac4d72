//! Users, sessions, passwords, 2FA, profiles, saved addresses and invite codes.

use crate::command::{NewSession, Register, SessionInfo};
use crate::constants::{
    ADDRESS_LENGTH_MAX, EMAIL_LENGTH_MAX, INVITE_CODE_LENGTH, PASSWORD_HASH_LENGTH_MAX,
    SESSIONS_PER_USER_MAX, TEXT_LENGTH_MAX, USERNAME_LENGTH_MAX, USERNAME_LENGTH_MIN,
    WITHDRAW_ADDRESSES_PER_USER_MAX,
};
use crate::event::{CommandResult, Event, Events, Reply};
use crate::money::Money;
use crate::types::{
    Account, AccountKind, Chain, Profile, SavedAddress, Session, SessionId, TwoFactorGuard, User,
    UserId,
};
use crate::{Engine, EngineError};

/// Invite-code alphabet: upper-case letters and digits without 0, O, 1 and I (decisions §5).
const INVITE_ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/// Longest a session may last (30 days).
const SESSION_TTL_MAX_MS: u64 = 30 * 24 * 3_600 * 1_000;

/// Bits of an invite code: 8 characters of 5 bits.
const INVITE_BITS: u32 = 40;
/// Rounds of the keyed permutation (a balanced Feistel network is a permutation for any
/// number of rounds; six make every output bit depend on every input and key bit).
const INVITE_ROUNDS: u64 = 6;

/// The invite code of a user id in an install without an invite key: a fixed bijection of the
/// id onto 8 base-32 characters. Every such install gives UID 1 the same code, which is why
/// new installs draw a key ([`invite_code_keyed`]); users who signed up before their install
/// had one keep the code they were given.
pub fn invite_code_for(id: UserId) -> String {
    const MASK: u64 = (1 << INVITE_BITS) - 1;
    let mut x = (u64::from(id.get()).wrapping_mul(0x9E37_79B9_7F4A_7C15 | 1)) & MASK;
    x ^= x >> 20;
    x = x.wrapping_mul(0x2545_F491_4F6C_DD1D | 1) & MASK;
    x ^= x >> 17;
    encode_invite(x)
}

/// A keyed permutation of the 40-bit code space: a Feistel network over two 20-bit halves
/// whose round function is xxh3 seeded with the install's key. Distinct inputs give distinct
/// codes, and without the key the code of a UID cannot be told.
pub fn invite_permute(key: u64, x: u64) -> u64 {
    const HALF: u32 = INVITE_BITS / 2;
    const HALF_MASK: u64 = (1 << HALF) - 1;
    let (mut left, mut right) = ((x >> HALF) & HALF_MASK, x & HALF_MASK);
    for round in 0..INVITE_ROUNDS {
        let mut input = [0u8; 16];
        input[..8].copy_from_slice(&right.to_le_bytes());
        input[8..].copy_from_slice(&round.to_le_bytes());
        let f = xxhash_rust::xxh3::xxh3_64_with_seed(&input, key) & HALF_MASK;
        (left, right) = (right, left ^ f);
    }
    (left << HALF) | right
}

/// An invite code as the index keys it: its eight bytes as one number, so that a million codes
/// index without a string each. `None` for text of another length, which no code has.
pub(crate) fn invite_key(code: &str) -> Option<u64> {
    const _: () = assert!(INVITE_CODE_LENGTH == 8);
    let bytes: [u8; INVITE_CODE_LENGTH] = code.as_bytes().try_into().ok()?;
    Some(u64::from_le_bytes(bytes))
}

fn encode_invite(x: u64) -> String {
    (0..INVITE_CODE_LENGTH)
        .map(|i| char::from(INVITE_ALPHABET[((x >> (5 * i)) & 31) as usize]))
        .collect()
}

pub(crate) fn valid_username(name: &str) -> bool {
    (USERNAME_LENGTH_MIN..=USERNAME_LENGTH_MAX).contains(&name.chars().count())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(crate) fn valid_email(email: &str) -> bool {
    let Some((local, domain)) = email.split_once('@') else { return false };
    email.len() <= EMAIL_LENGTH_MAX
        && !local.is_empty()
        && !domain.contains('@')
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !email.chars().any(|c| c.is_whitespace() || c.is_control())
}

pub(crate) fn valid_hash(hash: &str) -> bool {
    !hash.is_empty() && hash.len() <= PASSWORD_HASH_LENGTH_MAX
}

pub(crate) fn valid_text(text: &str) -> bool {
    text.len() <= TEXT_LENGTH_MAX && !text.chars().any(|c| c.is_control() && c != '\n')
}

pub(crate) fn valid_address(address: &str) -> bool {
    !address.is_empty()
        && address.len() <= ADDRESS_LENGTH_MAX
        && address.chars().all(|c| c.is_ascii_alphanumeric())
}

pub(crate) fn valid_totp_secret(secret: &str) -> bool {
    (16..=64).contains(&secret.len())
        && secret.bytes().all(|b| b.is_ascii_uppercase() || (b'2'..=b'7').contains(&b))
}

impl Engine {
    pub(crate) fn register(&mut self, r: Register, events: &mut Events) -> CommandResult {
        Self::check_registration_fields(&r)?;
        let (inviter, demo) = self.check_registration(&r)?;
        Ok(self.add_user(r, inviter, demo, events))
    }

    /// The fields' own rules: a valid username, an e-mail or a wallet, a password hash unless
    /// a wallet signs in.
    fn check_registration_fields(r: &Register) -> Result<(), EngineError> {
        if !valid_username(&r.username) {
            return Err(EngineError::Invalid("username"));
        }
        if let Some(email) = &r.email {
            if !valid_email(email) {
                return Err(EngineError::Invalid("email"));
            }
        } else if r.wallet.is_none() {
            return Err(EngineError::Invalid("email"));
        }
        match (&r.password_hash, &r.wallet) {
            (Some(hash), _) if !valid_hash(hash) => return Err(EngineError::Invalid("password")),
            (None, None) => return Err(EngineError::Invalid("password")),
            _ => {}
        }
        if let Some(w) = &r.wallet {
            if !valid_address(&w.address) {
                return Err(EngineError::Invalid("address"));
            }
        }
        Ok(())
    }

    /// Checks against the state (names and wallets free, the invitation, the demo supply, room
    /// for one more user); changes nothing. Returns the inviter and the demo grant.
    fn check_registration(&self, r: &Register) -> Result<(Option<UserId>, Money), EngineError> {
        if self.user_named(&r.username.to_lowercase()).is_some() {
            return Err(EngineError::UsernameExists);
        }
        if r.email.as_ref().is_some_and(|e| self.user_with_email(&e.to_lowercase()).is_some()) {
            return Err(EngineError::EmailExists);
        }
        if let Some(w) = &r.wallet {
            if self.user_with_wallet(&(w.chain, w.address.clone())).is_some() {
                return Err(EngineError::WalletExists);
            }
        }
        let inviter = match r.invite_code.as_deref() {
            Some(code) => {
                let key = invite_key(code).ok_or(EngineError::InvalidInviteCode)?;
                Some(self.user_invited_by(key).ok_or(EngineError::InvalidInviteCode)?)
            }
            None if self.settings.invite_code_required => {
                return Err(EngineError::InviteCodeRequired)
            }
            None => None,
        };
        // Settings were checked when set: the demo grant is an amount in cents.
        let demo = Money::from_decimal(self.settings.demo_balance).unwrap_or_default();
        self.check_supply(self.ledger.demo_minted, demo)?;
        if self.users.len() >= u32::MAX as usize - 1 {
            return Err(EngineError::LimitReached);
        }
        Ok((inviter, demo))
    }

    /// Adds a user whose registration passed every check: nothing can fail.
    fn add_user(
        &mut self,
        r: Register,
        inviter: Option<UserId>,
        demo: Money,
        events: &mut Events,
    ) -> Reply {
        let id = UserId::from_slot(self.users.len());
        let invite_code = self.new_invite_code(id);
        self.idx.username.insert(r.username.to_lowercase(), id);
        if let Some(e) = &r.email {
            self.idx.email.insert(e.to_lowercase(), id);
        }
        if let Some(w) = &r.wallet {
            self.idx.wallet.insert((w.chain, w.address.clone()), id);
        }
        if let Some(key) = invite_key(&invite_code) {
            self.idx.invite.insert(key, id);
        }
        if let Some(inviter) = inviter {
            self.user_mut(inviter).invitees.push(id);
        }
        self.ledger.demo_minted += demo;
        let mut account = Account::invited_by(inviter);
        account.demo.available = demo;
        self.accounts.push(account);
        events.push(Event::UserRegistered {
            user: id,
            username: r.username.clone(),
            email: r.email.clone(),
            inviter,
        });
        self.users.push(User {
            id,
            username: r.username,
            email: r.email,
            password_hash: r.password_hash,
            wallet: r.wallet,
            invite_code: invite_code.clone(),
            invitees: Vec::new(),
            email_verified: r.email_verified,
            totp_secret: None,
            two_factor: TwoFactorGuard::default(),
            password_changed_ms: 0,
            created_ms: self.now_ms,
            last_login_ms: 0,
            profile: Profile::default(),
            sessions: Vec::new(),
            addresses: Vec::new(),
            default_address: None,
        });
        self.wallet_event(id, AccountKind::Demo, None, demo, 0, events);
        Reply::Registered { user: id, invite_code }
    }

    /// A code no user has: the keyed permutation of the id, walked on (the permutation applied
    /// again) past codes given before the key was set. Without a key, the fixed bijection.
    fn new_invite_code(&self, id: UserId) -> String {
        if self.invite_key == 0 {
            return invite_code_for(id);
        }
        let mut x = invite_permute(self.invite_key, u64::from(id.get()));
        loop {
            let code = encode_invite(x);
            if invite_key(&code).is_none_or(|key| self.user_invited_by(key).is_none()) {
                return code;
            }
            x = invite_permute(self.invite_key, x);
        }
    }

    pub(crate) fn set_invite_key(&mut self, key: u64) -> CommandResult {
        if self.invite_key != 0 {
            return Err(EngineError::AlreadyInstalled);
        }
        if key == 0 {
            return Err(EngineError::Invalid("key"));
        }
        self.invite_key = key;
        Ok(Reply::Done)
    }

    pub(crate) fn set_chart_history(&mut self, seed: u64, end_ms: u64) -> CommandResult {
        if self.chart_history.is_some() {
            return Err(EngineError::AlreadyInstalled);
        }
        self.chart_history = Some((seed, end_ms));
        Ok(Reply::Done)
    }

    /// Seed and end (ms) of the chart history of simulated products, once set.
    pub fn chart_history(&self) -> Option<(u64, u64)> {
        self.chart_history
    }

    /// True once the install has its invite key.
    pub fn has_invite_key(&self) -> bool {
        self.invite_key != 0
    }

    /// Validates session details and builds the session, without storing it.
    pub(crate) fn new_session(&mut self, info: SessionInfo) -> Result<Session, EngineError> {
        if info.ttl_ms == 0 || info.ttl_ms > SESSION_TTL_MAX_MS {
            return Err(EngineError::Invalid("ttl"));
        }
        if !valid_text(&info.device) || info.ip.len() > ADDRESS_LENGTH_MAX {
            return Err(EngineError::Invalid("device"));
        }
        let id = self.next_session;
        self.next_session += 1;
        Ok(Session {
            id,
            created_ms: self.now_ms,
            expires_ms: self.now_ms + info.ttl_ms,
            device: info.device,
            ip: info.ip,
        })
    }

    pub(crate) fn create_session(&mut self, s: NewSession, events: &mut Events) -> CommandResult {
        self.user_of(s.user)?;
        let session = self.new_session(s.info)?;
        let (id, expires_ms) = (session.id, session.expires_ms);
        events.push(Event::SessionStarted {
            user: s.user,
            session: id,
            device: session.device.clone(),
            ip: session.ip.clone(),
        });
        let now = self.now_ms;
        let user = self.user_mut(s.user);
        user.last_login_ms = now;
        let ended = push_session(&mut user.sessions, session, now);
        for session in ended {
            events.push(Event::SessionEnded { user: s.user, session });
        }
        Ok(Reply::SessionCreated { session: id, expires_ms })
    }

    pub(crate) fn end_session(
        &mut self,
        user: UserId,
        session: SessionId,
        events: &mut Events,
    ) -> CommandResult {
        self.user_of(user)?;
        let sessions = &mut self.user_mut(user).sessions;
        let at =
            sessions.iter().position(|s| s.id == session).ok_or(EngineError::SessionNotFound)?;
        sessions.remove(at);
        events.push(Event::SessionEnded { user, session });
        Ok(Reply::Done)
    }

    pub(crate) fn set_password(
        &mut self,
        user: UserId,
        password_hash: String,
        keep: Option<SessionId>,
        events: &mut Events,
    ) -> CommandResult {
        self.user_of(user)?;
        if !valid_hash(&password_hash) {
            return Err(EngineError::Invalid("password"));
        }
        let now = self.now_ms;
        let record = self.user_mut(user);
        record.password_hash = Some(password_hash);
        record.password_changed_ms = now;
        let ended: Vec<SessionId> =
            record.sessions.iter().map(|s| s.id).filter(|&id| Some(id) != keep).collect();
        record.sessions.retain(|s| Some(s.id) == keep);
        events.push(Event::PasswordChanged { user });
        events.extend(ended.into_iter().map(|session| Event::SessionEnded { user, session }));
        Ok(Reply::Done)
    }

    pub(crate) fn verify_email(&mut self, user: UserId, events: &mut Events) -> CommandResult {
        if self.user_of(user)?.email.is_none() {
            return Err(EngineError::Invalid("email"));
        }
        self.user_mut(user).email_verified = true;
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    pub(crate) fn set_verified_email(
        &mut self,
        user: UserId,
        email: String,
        events: &mut Events,
    ) -> CommandResult {
        let current = self.user_of(user)?;
        if current.email_verified || !valid_email(&email) {
            return Err(EngineError::Invalid("email"));
        }
        let key = email.to_lowercase();
        if self.user_with_email(&key).is_some_and(|owner| owner != user) {
            return Err(EngineError::EmailExists);
        }
        if let Some(old) = current.email.as_ref().map(|e| e.to_lowercase()) {
            self.idx.email.remove(&old);
        }
        self.idx.email.insert(key, user);
        let u = self.user_mut(user);
        u.email = Some(email);
        u.email_verified = true;
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    pub(crate) fn set_totp(
        &mut self,
        user: UserId,
        secret: Option<String>,
        events: &mut Events,
    ) -> CommandResult {
        self.user_of(user)?;
        if secret.as_deref().is_some_and(|s| !valid_totp_secret(s)) {
            return Err(EngineError::Invalid("secret"));
        }
        let u = self.user_mut(user);
        // A new secret starts a new count of wrong codes; the newest step stays, so a code
        // used to turn 2FA off cannot serve again.
        u.two_factor.failures = 0;
        u.totp_secret = secret;
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    pub(crate) fn update_profile(
        &mut self,
        user: UserId,
        profile: Profile,
        events: &mut Events,
    ) -> CommandResult {
        self.user_of(user)?;
        let texts = [&profile.nickname, &profile.bio, &profile.phone, &profile.avatar];
        if !texts.iter().all(|t| valid_text(t)) || profile.nickname.chars().count() > 40 {
            return Err(EngineError::Invalid("profile"));
        }
        self.user_mut(user).profile = profile;
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    pub(crate) fn add_address(
        &mut self,
        user: UserId,
        label: String,
        chain: Chain,
        address: String,
        make_default: bool,
        events: &mut Events,
    ) -> CommandResult {
        let record = self.user_of(user)?;
        if !valid_address(&address) {
            return Err(EngineError::Invalid("address"));
        }
        if !valid_text(&label) || label.chars().count() > 40 {
            return Err(EngineError::Invalid("label"));
        }
        if record.addresses.len() >= WITHDRAW_ADDRESSES_PER_USER_MAX {
            return Err(EngineError::TooManyAddresses);
        }
        let record = self.user_mut(user);
        record.addresses.push(SavedAddress { label, chain, address });
        if make_default || record.default_address.is_none() {
            record.default_address = Some(record.addresses.len() as u32 - 1);
        }
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    pub(crate) fn remove_address(
        &mut self,
        user: UserId,
        position: u32,
        events: &mut Events,
    ) -> CommandResult {
        if position as usize >= self.user_of(user)?.addresses.len() {
            return Err(EngineError::AddressNotFound);
        }
        let record = self.user_mut(user);
        record.addresses.remove(position as usize);
        record.default_address = match record.default_address {
            Some(d) if d == position => (!record.addresses.is_empty()).then_some(0),
            Some(d) if d > position => Some(d - 1),
            other => other,
        };
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }
}

/// Adds a session, dropping expired ones and the oldest past the cap; returns the ended ids.
pub(crate) fn push_session(
    sessions: &mut Vec<Session>,
    session: Session,
    now: u64,
) -> Vec<SessionId> {
    let mut ended: Vec<SessionId> =
        sessions.iter().filter(|s| s.expires_ms <= now).map(|s| s.id).collect();
    sessions.retain(|s| s.expires_ms > now);
    while sessions.len() >= SESSIONS_PER_USER_MAX {
        ended.push(sessions.remove(0).id);
    }
    sessions.push(session);
    ended
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invite_codes_are_unique_and_use_the_alphabet() {
        let mut seen = std::collections::HashSet::new();
        for id in 1..=200_000 {
            let code = invite_code_for(UserId(id));
            assert_eq!(code.len(), 8);
            assert!(code.bytes().all(|b| INVITE_ALPHABET.contains(&b)), "{code}");
            assert!(seen.insert(code), "duplicate code for {id}");
        }
    }

    #[test]
    fn keyed_invite_codes_are_unique_and_depend_on_the_key() {
        let mut seen = std::collections::HashSet::new();
        for id in 1..=200_000u64 {
            assert!(seen.insert(encode_invite(invite_permute(0x5eed, id))), "duplicate for {id}");
        }
        // Two installs give UID 1 different codes, and neither is the unkeyed one.
        let a = encode_invite(invite_permute(0x5eed, 1));
        let b = encode_invite(invite_permute(0xbeef, 1));
        assert_ne!(a, b);
        assert_ne!(a, invite_code_for(UserId(1)));
    }

    #[test]
    fn a_new_key_never_gives_a_code_a_user_already_has() {
        use crate::command::{Command, Register};
        use crate::engine::Stamp;
        let mut engine = Engine::new();
        let mut index = 0;
        let mut run = |engine: &mut Engine, command| {
            index += 1;
            engine.apply(Stamp { index, time_ms: 1 }, command, &mut crate::Events::new())
        };
        let register = |name: &str| {
            Command::Register(Box::new(Register {
                username: name.into(),
                email: Some(format!("{name}@example.com")),
                password_hash: Some("hash".into()),
                wallet: None,
                invite_code: None,
                email_verified: false,
            }))
        };
        run(&mut engine, register("before")).unwrap();
        assert_eq!(engine.user(UserId(1)).unwrap().invite_code, invite_code_for(UserId(1)));
        let key = 7;
        run(&mut engine, Command::SetInviteKey { key }).unwrap();
        assert_eq!(
            run(&mut engine, Command::SetInviteKey { key: 9 }),
            Err(EngineError::AlreadyInstalled)
        );
        // Plant the collision directly: the code user 2 would get is taken by user 1.
        let planned = encode_invite(invite_permute(key, 2));
        let old = std::mem::replace(&mut engine.users[0].invite_code, planned.clone());
        engine.idx.invite.remove(&invite_key(&old).unwrap());
        engine.idx.invite.insert(invite_key(&planned).unwrap(), UserId(1));
        run(&mut engine, register("after")).unwrap();
        let code = engine.user(UserId(2)).unwrap().invite_code.clone();
        assert_ne!(code, planned);
        assert_eq!(code, encode_invite(invite_permute(key, invite_permute(key, 2))));
        assert_eq!(engine.user_by_invite_code(&code).unwrap().id, UserId(2));
    }

    #[test]
    fn usernames_and_emails_are_checked() {
        assert!(valid_username("abc"));
        assert!(valid_username("wallet_eth_1a2b3c4d"));
        assert!(!valid_username("ab"));
        assert!(!valid_username("a".repeat(21).as_str()));
        assert!(!valid_username("bad name"));
        assert!(valid_email("a@b.co"));
        assert!(!valid_email("a@b"));
        assert!(!valid_email("@b.co"));
        assert!(!valid_email("a b@c.de"));
    }
}
