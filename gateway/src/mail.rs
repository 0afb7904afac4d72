//! E-mail codes (decisions §6): 6 digits, valid 10 minutes, at most 5 tries, resend after
//! 60 s; delivered over real SMTP (lettre) when configured, else written to an outbox folder
//! in the data directory and logged, so a fresh install works with no mail server.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use lettre::message::Mailbox;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use rand::Rng;

/// How long a code is valid.
pub const CODE_TTL_MS: u64 = 10 * 60 * 1_000;
/// Wrong tries before a code is burnt.
pub const CODE_TRIES_MAX: u32 = 5;
/// Wait before another code may be sent to the same address.
pub const CODE_RESEND_MS: u64 = 60 * 1_000;
/// Codes outstanding at once; expired ones are dropped first.
pub const CODES_MAX: usize = 100_000;

/// What a code is for: a code of one purpose never works for another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// Sign in with e-mail and code.
    Login,
    /// Verify the e-mail of a signed-in user.
    Verify,
    /// Forgotten password.
    Reset,
}

#[derive(Debug)]
struct Entry {
    code: String,
    expires_ms: u64,
    sent_ms: u64,
    tries: u32,
}

/// Why a code could not be issued or was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeError {
    /// Sent less than 60 s ago; seconds left.
    TooSoon(u64),
    /// Too many codes outstanding.
    Full,
    /// Wrong, expired, burnt or never sent.
    Invalid,
}

/// Outstanding codes, in memory: a restart simply asks users for a new code.
#[derive(Debug, Default, Clone)]
pub struct Codes {
    /// (purpose, lower-cased e-mail) -> code.
    entries: Arc<Mutex<HashMap<(Purpose, String), Entry>>>,
}

impl Codes {
    /// A fresh 6-digit code for `email`, replacing any earlier one.
    pub fn issue(&self, purpose: Purpose, email: &str, now_ms: u64) -> Result<String, CodeError> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let key = (purpose, email.to_ascii_lowercase());
        if let Some(entry) = entries.get(&key) {
            let next = entry.sent_ms + CODE_RESEND_MS;
            if now_ms < next {
                return Err(CodeError::TooSoon((next - now_ms).div_ceil(1_000)));
            }
        }
        if entries.len() >= CODES_MAX {
            entries.retain(|_, entry| entry.expires_ms > now_ms);
            if entries.len() >= CODES_MAX {
                return Err(CodeError::Full);
            }
        }
        let code = format!("{:06}", rand::rngs::OsRng.gen_range(0..1_000_000u32));
        let entry = Entry {
            code: code.clone(),
            expires_ms: now_ms + CODE_TTL_MS,
            sent_ms: now_ms,
            tries: 0,
        };
        entries.insert(key, entry);
        Ok(code)
    }

    /// Forgets a code that could not be delivered, so the user may ask again at once.
    pub fn withdraw(&self, purpose: Purpose, email: &str) {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        entries.remove(&(purpose, email.to_ascii_lowercase()));
    }

    /// Checks and consumes a code: right once, then gone; five wrong tries burn it.
    pub fn check(
        &self,
        purpose: Purpose,
        email: &str,
        code: &str,
        now_ms: u64,
    ) -> Result<(), CodeError> {
        let mut entries = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        let key = (purpose, email.to_ascii_lowercase());
        let Some(entry) = entries.get_mut(&key) else { return Err(CodeError::Invalid) };
        if entry.expires_ms <= now_ms || entry.tries >= CODE_TRIES_MAX {
            entries.remove(&key);
            return Err(CodeError::Invalid);
        }
        if entry.code != code {
            entry.tries += 1;
            return Err(CodeError::Invalid);
        }
        entries.remove(&key);
        Ok(())
    }
}

/// SMTP settings.
#[derive(Debug, Clone, serde::Deserialize, Default)]
pub struct SmtpConfig {
    /// Server host.
    pub host: String,
    /// Server port (587 STARTTLS, 465 TLS, 25 plain).
    pub port: u16,
    /// `starttls`, `tls` or `none` (plain, for a local relay only).
    pub security: String,
    /// Login, if the server needs one.
    pub username: Option<String>,
    pub password: Option<String>,
    /// Sender address, e.g. `Trading Pro <no-reply@example.com>`.
    pub from: String,
}

/// Where mail goes.
#[derive(Clone)]
pub enum Mailer {
    /// Real SMTP.
    Smtp {
        /// The transport (pooled connections).
        transport: Box<AsyncSmtpTransport<Tokio1Executor>>,
        from: Mailbox,
    },
    /// One `.eml` file per message in this folder.
    Outbox(PathBuf),
}

impl std::fmt::Debug for Mailer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Mailer::Smtp { from, .. } => write!(f, "Mailer::Smtp(from {from})"),
            Mailer::Outbox(path) => write!(f, "Mailer::Outbox({})", path.display()),
        }
    }
}

/// Why mail could not be sent.
#[derive(Debug, thiserror::Error)]
pub enum MailError {
    /// Bad configuration or address.
    #[error("mail: {0}")]
    Address(String),
    /// SMTP failed.
    #[error("smtp: {0}")]
    Smtp(#[from] lettre::transport::smtp::Error),
    /// Writing to the outbox failed.
    #[error("outbox: {0}")]
    Io(#[from] std::io::Error),
}

impl Mailer {
    /// SMTP from `config`, else the outbox under `data_dir`.
    pub fn new(config: Option<&SmtpConfig>, outbox: PathBuf) -> Result<Mailer, MailError> {
        let Some(config) = config.filter(|c| !c.host.is_empty()) else {
            std::fs::create_dir_all(&outbox)?;
            return Ok(Mailer::Outbox(outbox));
        };
        let builder = match config.security.as_str() {
            "tls" => AsyncSmtpTransport::<Tokio1Executor>::relay(&config.host)?,
            "none" => AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&config.host),
            _ => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&config.host)?,
        };
        let mut builder =
            builder.port(config.port).timeout(Some(std::time::Duration::from_secs(10)));
        if let (Some(user), Some(password)) = (&config.username, &config.password) {
            builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
        }
        let from = config
            .from
            .parse()
            .map_err(|e: lettre::address::AddressError| MailError::Address(e.to_string()))?;
        Ok(Mailer::Smtp { transport: Box::new(builder.build()), from })
    }

    /// Sends a plain-text message.
    pub async fn send(&self, to: &str, subject: &str, body: &str) -> Result<(), MailError> {
        match self {
            Mailer::Smtp { transport, from } => {
                let to: Mailbox = to.parse().map_err(|e: lettre::address::AddressError| {
                    MailError::Address(e.to_string())
                })?;
                let message = Message::builder()
                    .from(from.clone())
                    .to(to)
                    .subject(subject)
                    .body(body.to_owned())
                    .map_err(|e| MailError::Address(e.to_string()))?;
                transport.send(message).await?;
                Ok(())
            }
            Mailer::Outbox(dir) => {
                let name = format!(
                    "{}-{:08x}.eml",
                    wal::pipeline::system_time_ms(),
                    rand::random::<u32>()
                );
                let text = format!("To: {to}\nSubject: {subject}\n\n{body}\n");
                tokio::fs::write(dir.join(&name), text).await?;
                tracing::info!(to, file = %name, "e-mail written to the outbox");
                Ok(())
            }
        }
    }
}
