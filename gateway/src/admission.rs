//! Caps on open connections, in all and per client address: the plain HTTP connections of the
//! server's listener and, apart, its websockets. A place is taken before a connection is
//! served and given back when its [`Admission`] drops.

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use rustc_hash::FxHashMap;

/// Why a connection got no place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refused {
    /// Every place is taken.
    Full,
    /// This address (or IPv6 /64) holds its share.
    AddressFull,
}

/// The places of one kind of connection.
#[derive(Debug)]
pub struct ConnectionCaps {
    /// Most connections at once.
    max: usize,
    /// Most connections at once from one address block.
    per_ip_max: usize,
    /// Open connections.
    open: AtomicUsize,
    /// Open connections per address block (only blocks with one or more).
    per_ip: Mutex<FxHashMap<IpAddr, usize>>,
}

impl ConnectionCaps {
    /// At most `max` connections, `per_ip_max` of them from one address block (each at least 1).
    pub fn new(max: usize, per_ip_max: usize) -> Arc<ConnectionCaps> {
        Arc::new(ConnectionCaps {
            max: max.max(1),
            per_ip_max: per_ip_max.max(1),
            open: AtomicUsize::new(0),
            per_ip: Mutex::default(),
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.load(Ordering::Relaxed)
    }

    fn per_ip(&self) -> MutexGuard<'_, FxHashMap<IpAddr, usize>> {
        self.per_ip.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A place for a connection from `ip` (none when served without a socket, as in tests).
    pub fn take(self: &Arc<Self>, ip: Option<IpAddr>) -> Result<Admission, Refused> {
        let open = self.open.fetch_add(1, Ordering::AcqRel);
        let mut admission = Admission { caps: Arc::clone(self), ip: None };
        if open >= self.max {
            return Err(Refused::Full);
        }
        if let Some(ip) = ip.map(address_block) {
            let mut per_ip = self.per_ip();
            let count = per_ip.entry(ip).or_default();
            if *count >= self.per_ip_max {
                return Err(Refused::AddressFull);
            }
            *count += 1;
            admission.ip = Some(ip);
        }
        Ok(admission)
    }
}

/// A connection's place, given back when dropped.
#[derive(Debug)]
pub struct Admission {
    /// Whose place.
    caps: Arc<ConnectionCaps>,
    /// The address block it counts against, once counted.
    ip: Option<IpAddr>,
}

impl Drop for Admission {
    fn drop(&mut self) {
        self.caps.open.fetch_sub(1, Ordering::AcqRel);
        if let Some(ip) = self.ip {
            let mut per_ip = self.caps.per_ip();
            if let Some(count) = per_ip.get_mut(&ip) {
                *count -= 1;
                if *count == 0 {
                    per_ip.remove(&ip);
                }
            }
        }
    }
}

/// Whose share a peer address counts against: an IPv4 address (also when IPv6-mapped), or an
/// IPv6 /64, the block one subscriber is usually given (one address each would be no cap).
pub fn address_block(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let s = v6.segments();
                IpAddr::V6(std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_per_address_cap_counts_ipv4_alone_and_ipv6_by_its_64_block() {
        let ip = |text: &str| text.parse::<IpAddr>().unwrap();
        assert_eq!(address_block(ip("203.0.113.7")), ip("203.0.113.7"));
        assert_eq!(address_block(ip("::ffff:203.0.113.7")), ip("203.0.113.7"));
        assert_eq!(address_block(ip("2001:db8:1:2:aaaa::1")), ip("2001:db8:1:2::"));
        assert_eq!(address_block(ip("2001:db8:1:2:bbbb::9")), address_block(ip("2001:db8:1:2::5")));
        assert_ne!(address_block(ip("2001:db8:1:3::1")), address_block(ip("2001:db8:1:2::1")));
    }

    #[test]
    fn places_are_capped_in_all_and_per_address_and_given_back() {
        let caps = ConnectionCaps::new(3, 2);
        let a = Some("10.0.0.1".parse().unwrap());
        let b = Some("10.0.0.2".parse().unwrap());
        let first = caps.take(a).unwrap();
        let _second = caps.take(a).unwrap();
        assert_eq!(caps.take(a).unwrap_err(), Refused::AddressFull);
        let third = caps.take(b).unwrap();
        assert_eq!(caps.take(b).unwrap_err(), Refused::Full);
        assert_eq!(caps.open(), 3);
        drop(first);
        drop(third);
        assert_eq!(caps.open(), 1);
        let _again = caps.take(a).unwrap();
        assert_eq!(caps.per_ip().len(), 1, "an address with no connection is forgotten");
    }
}
