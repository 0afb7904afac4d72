//! Session tokens: a JWT (HS256) naming a user or admin and a session id. Signature and
//! expiry are checked here; whether the session is still live is [`crate::sessions`]'s
//! question.

use std::path::Path;

use axum::http::header;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

/// Session length without remember-me.
pub const SESSION_TTL_MS: u64 = 24 * 60 * 60 * 1_000;
/// Session length with remember-me.
pub const SESSION_REMEMBER_TTL_MS: u64 = 30 * 24 * 60 * 60 * 1_000;
/// Admin session length.
pub const ADMIN_SESSION_TTL_MS: u64 = 12 * 60 * 60 * 1_000;
/// Password-reset tokens live this long after the e-mail code was checked.
pub const RESET_TTL_MS: u64 = 15 * 60 * 1_000;
/// How long a device token proves an earlier sign-in (renewed at every sign-in).
pub const DEVICE_TTL_MS: u64 = 180 * 24 * 60 * 60 * 1_000;

/// What a token says.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Claims {
    /// User or admin id.
    pub sub: u32,
    /// Session id (for reset tokens: the password-change time it was issued against).
    pub sid: u64,
    /// `user`, `admin` or `reset`.
    pub kind: String,
    /// Expiry, seconds since the epoch.
    pub exp: u64,
    /// Issued at, seconds since the epoch.
    pub iat: u64,
}

/// Signs and checks tokens.
pub struct Tokens {
    /// Signing key.
    encoding: EncodingKey,
    /// Checking key.
    decoding: DecodingKey,
}

impl std::fmt::Debug for Tokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tokens")
    }
}

impl Tokens {
    /// From a secret.
    pub fn new(secret: &[u8]) -> Tokens {
        Tokens {
            encoding: EncodingKey::from_secret(secret),
            decoding: DecodingKey::from_secret(secret),
        }
    }

    /// The secret kept in `path` (created with 32 random bytes on first start, owner-only),
    /// so that tokens survive restarts.
    pub fn from_file(path: &Path) -> std::io::Result<Tokens> {
        if let Ok(secret) = std::fs::read(path) {
            if secret.len() >= 32 {
                return Ok(Tokens::new(&secret));
            }
        }
        let secret: [u8; 32] = rand::random();
        let encoded = hex::encode(secret);
        std::fs::write(path, &encoded)?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
        Ok(Tokens::new(encoded.as_bytes()))
    }

    /// The tokens of a cluster member: the signing key comes from the cluster secret, so a
    /// session token issued by one member is valid on every member.
    pub fn for_cluster(cluster_secret: &str) -> Tokens {
        Tokens::new(format!("trading session tokens\0{cluster_secret}").as_bytes())
    }

    /// A token for `sub`/`sid` of `kind`, valid until `expires_ms`.
    pub fn issue(&self, sub: u32, sid: u64, kind: &str, now_ms: u64, expires_ms: u64) -> String {
        let claims =
            Claims { sub, sid, kind: kind.into(), exp: expires_ms / 1_000, iat: now_ms / 1_000 };
        jsonwebtoken::encode(&Header::new(Algorithm::HS256), &claims, &self.encoding)
            .expect("HS256 signing cannot fail")
    }

    /// A device token for `sub` (a user, or an admin with `kind` "admin"): proof, on this
    /// device's later sign-ins, that it signed in to that account before.
    pub fn issue_device(&self, sub: u32, kind: &str, now_ms: u64) -> String {
        let kind = format!("device-{kind}");
        self.issue(sub, rand::random(), &kind, now_ms, now_ms + DEVICE_TTL_MS)
    }

    /// The account a device token of `kind` proves, if it is valid.
    pub fn device_of(&self, token: Option<&str>, kind: &str) -> Option<u32> {
        let token = token.filter(|t| t.len() <= 1_024)?;
        self.check(token, &format!("device-{kind}")).map(|claims| claims.sub)
    }

    /// The claims of a valid, unexpired token of `kind`.
    pub fn check(&self, token: &str, kind: &str) -> Option<Claims> {
        let mut validation = Validation::new(Algorithm::HS256);
        validation.leeway = 0;
        let data = jsonwebtoken::decode::<Claims>(token, &self.decoding, &validation).ok()?;
        (data.claims.kind == kind).then_some(data.claims)
    }
}

/// The bearer token of a request, if it carries one.
pub fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value.strip_prefix("Bearer ").or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim())
}
