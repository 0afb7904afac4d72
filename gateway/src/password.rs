//! Password hashing: argon2id, 19 MiB, 2 iterations, 1 lane (OWASP minimum, decisions §6).

use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::{Algorithm, Argon2, Params, Version};
use rand::Rng;

/// Memory cost in KiB.
const MEMORY_KIB: u32 = 19 * 1_024;
const ITERATIONS: u32 = 2;
const LANES: u32 = 1;
/// Length of generated passwords.
const GENERATED_LENGTH: usize = 20;

fn hasher() -> Argon2<'static> {
    // The parameters are constants within argon2's limits, so this cannot fail.
    let params = Params::new(MEMORY_KIB, ITERATIONS, LANES, None).expect("valid argon2 parameters");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// Hashes a password into a PHC string with a fresh random salt.
pub fn hash(password: &str) -> String {
    let salt = SaltString::generate(&mut OsRng);
    match hasher().hash_password(password.as_bytes(), &salt) {
        Ok(hash) => hash.to_string(),
        Err(e) => panic!("argon2 hashing failed with valid parameters: {e}"),
    }
}

/// True if `password` matches the PHC string `hash`.
pub fn verify(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .is_ok_and(|parsed| hasher().verify_password(password.as_bytes(), &parsed).is_ok())
}

/// A random password of letters and digits, for the first admin when none is configured.
pub fn generate() -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789";
    let mut rng = rand::rngs::OsRng;
    (0..GENERATED_LENGTH).map(|_| char::from(ALPHABET[rng.gen_range(0..ALPHABET.len())])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_verify_only_their_password() {
        let h = hash("correct horse");
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(verify("correct horse", &h));
        assert!(!verify("wrong horse", &h));
        assert!(!verify("correct horse", "not a hash"));
    }

    #[test]
    fn generated_passwords_differ() {
        let (a, b) = (generate(), generate());
        assert_eq!(a.len(), GENERATED_LENGTH);
        assert_ne!(a, b);
    }
}
