//! Users, sessions, passwords, 2FA, profiles, saved addresses and invite codes.

use crate::command::{NewSession, Register, SessionInfo};
use crate::constants::{
    ADDRESS_LENGTH_MAX, EMAIL_LENGTH_MAX, INVITE_CODE_LENGTH, PASSWORD_HASH_LENGTH_MAX,
    SESSIONS_PER_USER_MAX, TEXT_LENGTH_MAX, USERNAME_LENGTH_MAX, USERNAME_LENGTH_MIN,
    WITHDRAW_ADDRESSES_PER_USER_MAX,
};
use crate::event::{CommandResult, Event, Reply};
use crate::types::{
    Account, AccountKind, Chain, Profile, SavedAddress, Session, SessionId, User, UserId,
};
use crate::{Engine, EngineError};

/// Invite-code alphabet: upper-case letters and digits without 0, O, 1 and I (decisions §5).
const INVITE_ALPHABET: &[u8; 32] = b"ABCDEFGHJKLMNPQRSTUVWXYZ23456789";
/// Longest a session may last (30 days).
const SESSION_TTL_MAX_MS: u64 = 30 * 24 * 3_600 * 1_000;

/// The invite code of a user id: a bijection of the id onto 8 base-32 characters, so codes are
/// unique without a random source and do not reveal sign-up order at a glance.
pub fn invite_code_for(id: UserId) -> String {
    const MASK: u64 = (1 << 40) - 1;
    let mut x = (u64::from(id).wrapping_mul(0x9E37_79B9_7F4A_7C15 | 1)) & MASK;
    x ^= x >> 20;
    x = x.wrapping_mul(0x2545_F491_4F6C_DD1D | 1) & MASK;
    x ^= x >> 17;
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
    pub(crate) fn register(&mut self, r: Register, events: &mut Vec<Event>) -> CommandResult {
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
        let username_key = r.username.to_lowercase();
        if self.idx.username.contains_key(&username_key) {
            return Err(EngineError::UsernameExists);
        }
        let email_key = r.email.as_ref().map(|e| e.to_lowercase());
        if email_key.as_ref().is_some_and(|e| self.idx.email.contains_key(e)) {
            return Err(EngineError::EmailExists);
        }
        if let Some(w) = &r.wallet {
            if self.idx.wallet.contains_key(&(w.chain, w.address.clone())) {
                return Err(EngineError::WalletExists);
            }
        }
        let inviter = match r.invite_code.as_deref() {
            Some(code) => {
                if code.len() != INVITE_CODE_LENGTH {
                    return Err(EngineError::InvalidInviteCode);
                }
                Some(*self.idx.invite.get(code).ok_or(EngineError::InvalidInviteCode)?)
            }
            None if self.settings.invite_code_required => {
                return Err(EngineError::InviteCodeRequired)
            }
            None => None,
        };
        if self.users.len() >= UserId::MAX as usize - 1 {
            return Err(EngineError::LimitReached);
        }

        let id = self.users.len() as UserId + 1;
        let invite_code = invite_code_for(id);
        self.idx.username.insert(username_key, id);
        if let Some(e) = email_key {
            self.idx.email.insert(e, id);
        }
        if let Some(w) = &r.wallet {
            self.idx.wallet.insert((w.chain, w.address.clone()), id);
        }
        self.idx.invite.insert(invite_code.clone(), id);
        if let Some(inviter) = inviter {
            self.user_mut(inviter).invitees.push(id);
        }
        let demo = self.settings.demo_balance;
        self.ledger.demo_minted += demo;
        let mut account = Account { inviter, ..Account::default() };
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
            password_changed_ms: 0,
            created_ms: self.now_ms,
            last_login_ms: 0,
            profile: Profile::default(),
            sessions: Vec::new(),
            addresses: Vec::new(),
            default_address: None,
        });
        self.wallet_event(id, AccountKind::Demo, None, demo, 0, events);
        Ok(Reply::Registered { user: id, invite_code })
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

    pub(crate) fn create_session(
        &mut self,
        s: NewSession,
        events: &mut Vec<Event>,
    ) -> CommandResult {
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
        events: &mut Vec<Event>,
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
        events: &mut Vec<Event>,
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

    pub(crate) fn verify_email(&mut self, user: UserId, events: &mut Vec<Event>) -> CommandResult {
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
        events: &mut Vec<Event>,
    ) -> CommandResult {
        let current = self.user_of(user)?;
        if current.email_verified || !valid_email(&email) {
            return Err(EngineError::Invalid("email"));
        }
        let key = email.to_lowercase();
        if self.idx.email.get(&key).is_some_and(|&owner| owner != user) {
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
        events: &mut Vec<Event>,
    ) -> CommandResult {
        self.user_of(user)?;
        if secret.as_deref().is_some_and(|s| !valid_totp_secret(s)) {
            return Err(EngineError::Invalid("secret"));
        }
        self.user_mut(user).totp_secret = secret;
        events.push(Event::UserUpdated { user });
        Ok(Reply::Done)
    }

    pub(crate) fn update_profile(
        &mut self,
        user: UserId,
        profile: Profile,
        events: &mut Vec<Event>,
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
        events: &mut Vec<Event>,
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
        events: &mut Vec<Event>,
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
            let code = invite_code_for(id);
            assert_eq!(code.len(), 8);
            assert!(code.bytes().all(|b| INVITE_ALPHABET.contains(&b)), "{code}");
            assert!(seen.insert(code), "duplicate code for {id}");
        }
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
