//! Wallet sign-in (decisions §6): the server issues a one-time nonce inside a readable
//! message; the wallet signs it (EIP-191 `personal_sign` for MetaMask and Trust Wallet,
//! `signMessageV2` for TronLink); the server recovers the signer with secp256k1 and signs
//! the user in only if it is the claimed address. A bare address signs no one in.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use k256::ecdsa::{RecoveryId, Signature, VerifyingKey};
use rand::Rng;
use sha3::{Digest, Keccak256};

/// How long a sign-in message may wait for its signature.
pub const NONCE_TTL_MS: u64 = 5 * 60 * 1_000;
/// Outstanding nonces at once; expired ones are dropped first.
pub const NONCES_MAX: usize = 100_000;

/// A wallet family, by how it signs and writes addresses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// EVM wallets (MetaMask, Trust Wallet): EIP-191, 0x-hex addresses.
    Evm,
    /// TronLink: signMessageV2, base58check T-addresses.
    Tron,
}

impl Family {
    /// How a chain's wallets sign.
    pub fn of(chain: engine::types::Chain) -> Family {
        match chain {
            engine::types::Chain::Eth | engine::types::Chain::Trust => Family::Evm,
            engine::types::Chain::Tron => Family::Tron,
        }
    }
}

/// Keccak-256.
fn keccak(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Keccak256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// The digest a wallet signs for `message`.
pub fn message_digest(family: Family, message: &str) -> [u8; 32] {
    let prefix: &[u8] = match family {
        Family::Evm => b"\x19Ethereum Signed Message:\n",
        Family::Tron => b"\x19TRON Signed Message:\n",
    };
    let len = message.len().to_string();
    keccak(&[prefix, len.as_bytes(), message.as_bytes()])
}

/// The address of a public key, written as the family writes it (EVM lower-case hex).
pub fn address_of(family: Family, key: &VerifyingKey) -> String {
    let point = key.to_encoded_point(false);
    let hash = keccak(&[&point.as_bytes()[1..]]);
    let body = &hash[12..];
    match family {
        Family::Evm => format!("0x{}", hex::encode(body)),
        Family::Tron => {
            let mut payload = vec![0x41];
            payload.extend_from_slice(body);
            bs58::encode(payload).with_check().into_string()
        }
    }
}

/// Canonical form of a claimed address (EVM: lower case; TRON: as is, after a checksum test),
/// or `None` if it is not a valid address of the family. An EVM address in mixed case must
/// carry a right EIP-55 checksum (one in a single case has none to check), and the zero
/// address, which nobody holds the key of, is refused on both chains.
pub fn normalize_address(family: Family, address: &str) -> Option<String> {
    match family {
        Family::Evm => {
            let hex_part = address.strip_prefix("0x").or_else(|| address.strip_prefix("0X"))?;
            if hex_part.len() != 40 || !hex_part.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let lower = hex_part.to_ascii_lowercase();
            let mixed = hex_part != lower && hex_part != hex_part.to_ascii_uppercase();
            if (mixed && !eip55_checksum_holds(hex_part, &lower))
                || lower.bytes().all(|b| b == b'0')
            {
                return None;
            }
            Some(format!("0x{lower}"))
        }
        Family::Tron => {
            let bytes = bs58::decode(address).with_check(None).into_vec().ok()?;
            let valid = bytes.len() == 21 && bytes[0] == 0x41;
            (valid && bytes[1..].iter().any(|&b| b != 0)).then(|| address.to_owned())
        }
    }
}

/// EIP-55: a letter is upper case exactly where the matching nibble of keccak-256 of the
/// lower-case address is 8 or more.
fn eip55_checksum_holds(hex_part: &str, lower: &str) -> bool {
    let hash = keccak(&[lower.as_bytes()]);
    hex_part.bytes().enumerate().all(|(i, c)| {
        let nibble = (hash[i / 2] >> if i % 2 == 0 { 4 } else { 0 }) & 0x0f;
        !c.is_ascii_alphabetic() || c.is_ascii_uppercase() == (nibble >= 8)
    })
}

/// The signer of `message`, from a 65-byte `r || s || v` signature in hex; `None` if the
/// signature is malformed, has a high `s` (malleable) or recovers no key.
pub fn recover(family: Family, message: &str, signature_hex: &str) -> Option<String> {
    let raw = signature_hex.strip_prefix("0x").unwrap_or(signature_hex);
    let bytes = hex::decode(raw).ok()?;
    if bytes.len() != 65 {
        return None;
    }
    let signature = Signature::from_slice(&bytes[..64]).ok()?;
    if signature.normalize_s().is_some() {
        return None; // high s: refuse the malleable twin
    }
    let v = bytes[64];
    let recovery = RecoveryId::from_byte(if v >= 27 { v - 27 } else { v })?;
    let digest = message_digest(family, message);
    let key = VerifyingKey::recover_from_prehash(&digest, &signature, recovery).ok()?;
    Some(address_of(family, &key))
}

#[derive(Debug)]
struct Pending {
    /// The chain it was issued for: a nonce asked for `eth` does not sign in as `trust`
    /// (same signature scheme, another account).
    chain: engine::types::Chain,
    address: String,
    message: String,
    expires_ms: u64,
}

/// Outstanding sign-in messages, each usable once.
#[derive(Debug, Default, Clone)]
pub struct Nonces {
    /// nonce -> what it was issued for.
    pending: Arc<Mutex<HashMap<String, Pending>>>,
}

impl Nonces {
    /// A new nonce and the message to sign; `None` if too many are outstanding.
    pub fn issue(
        &self,
        chain: engine::types::Chain,
        address: &str,
        site: &str,
        now_ms: u64,
    ) -> Option<(String, String)> {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if pending.len() >= NONCES_MAX {
            pending.retain(|_, p| p.expires_ms > now_ms);
            if pending.len() >= NONCES_MAX {
                return None;
            }
        }
        let nonce: String = hex::encode(rand::rngs::OsRng.gen::<[u8; 16]>());
        let message = format!(
            "Sign in to {site}\n\nThis request will not trigger a blockchain transaction or cost any fee.\n\nAddress: {address}\nChain: {}\nNonce: {nonce}\nIssued at: {now_ms}",
            chain.tag()
        );
        let entry = Pending {
            chain,
            address: address.to_owned(),
            message: message.clone(),
            expires_ms: now_ms + NONCE_TTL_MS,
        };
        pending.insert(nonce.clone(), entry);
        Some((nonce, message))
    }

    /// Consumes `nonce` (whatever the outcome: one attempt per nonce) and checks that
    /// `signature` over its message was made by `address`. `Err(false)` = unknown, expired,
    /// used or issued for another address; `Err(true)` = bad signature.
    pub fn verify(
        &self,
        nonce: &str,
        chain: engine::types::Chain,
        address: &str,
        signature: &str,
        now_ms: u64,
    ) -> Result<(), bool> {
        let entry = self.pending.lock().unwrap_or_else(|p| p.into_inner()).remove(nonce);
        let Some(entry) = entry else { return Err(false) };
        if entry.expires_ms <= now_ms || entry.chain != chain || entry.address != address {
            return Err(false);
        }
        match recover(Family::of(chain), &entry.message, signature) {
            Some(signer) if signer == address => Ok(()),
            _ => Err(true),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use engine::types::Chain;

    // Vectors made by ethers 6.17.0 and tronweb 6.5.1 (tests/wallet/sign.mjs) for the key
    // 0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318.
    const MESSAGE: &str = "Sign in to Trading Pro\nNonce: abc123";

    #[test]
    fn recovers_an_ethers_personal_sign_signature() {
        let signature = "0xf4ff2280f551ed2d455ad359718015221ab4c309a86e959e7fd598b5425ce94b331ddd53feb02b02d09648a234c8fcb8656a6b92a77d3b953c877a45f6fd3f711c";
        let expected = normalize_address(Family::Evm, "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23");
        assert_eq!(recover(Family::Evm, MESSAGE, signature), expected);
        assert_ne!(recover(Family::Evm, "another message", signature), expected);
    }

    #[test]
    fn recovers_a_tronweb_sign_message_v2_signature() {
        let signature = "0x065af3c9df8d81751f61a520235d0fa866b3d7eb821b2011f95818ba5ca2928574c47d6de922b0916307d49fe6e185a62d074098a71a2ec83f8938a76e2fb4101b";
        let recovered = recover(Family::Tron, MESSAGE, signature);
        assert_eq!(recovered.as_deref(), Some("TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz"));
        // The same signature read as EVM is over another digest: another signer.
        assert_ne!(recover(Family::Evm, MESSAGE, signature), recovered);
    }

    #[test]
    fn addresses_are_checked() {
        // EIP-55's own examples, then one letter's case flipped.
        for good in [
            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",
            "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359",
        ] {
            assert!(normalize_address(Family::Evm, good).is_some(), "{good}");
        }
        assert!(
            normalize_address(Family::Evm, "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD").is_none()
        );
        // One case throughout carries no checksum.
        assert!(
            normalize_address(Family::Evm, "0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed").is_some()
        );
        assert!(
            normalize_address(Family::Evm, "0x5AAEB6053F3E94C9B9A09F33669435E7EF1BEAED").is_some()
        );
        assert!(normalize_address(Family::Evm, &format!("0x{}", "0".repeat(40))).is_none());
        assert!(normalize_address(Family::Tron, "T9yD14Nj9j7xAB4dbGeiX9h8unkKHxuWwb").is_none());
        assert!(normalize_address(Family::Evm, "0x1234").is_none());
        assert!(normalize_address(Family::Tron, "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHab").is_none());
        assert!(normalize_address(Family::Tron, "TE2H9hWjzYdwzDFRJfx9BFhr4MmjH1CHaz").is_some());
    }

    #[test]
    fn a_nonce_works_once() {
        let nonces = Nonces::default();
        let address = "0xabc";
        let (nonce, _) = nonces.issue(Chain::Eth, address, "X", 0).unwrap();
        assert_eq!(nonces.verify(&nonce, Chain::Eth, address, "0x00", 1), Err(true));
        assert_eq!(nonces.verify(&nonce, Chain::Eth, address, "0x00", 1), Err(false));
    }

    #[test]
    fn a_nonce_is_bound_to_its_chain() {
        let nonces = Nonces::default();
        let address = "0xabc";
        let (nonce, message) = nonces.issue(Chain::Eth, address, "X", 0).unwrap();
        assert!(message.contains("Chain: eth"), "{message}");
        // Trust Wallet signs as MetaMask does, but it is another account.
        assert_eq!(nonces.verify(&nonce, Chain::Trust, address, "0x00", 1), Err(false));
    }
}
