//! Who is calling from where. A request's client is the socket's peer, unless that peer is a
//! proxy an administrator trusts (`--trusted-proxy <CIDR>`): then it is the rightmost hop of
//! the chain in the one header the administrator says the proxy writes
//! (`--trusted-proxy-header`: `x-forwarded-for`, the default, with `X-Forwarded-Proto`; or
//! `forwarded`) that is not itself a trusted proxy. The other header is never read: a proxy
//! appends to the header it writes and passes the client's others on untouched, so a client
//! would pick its own address there. Headers from anyone else are ignored.
//!
//! Behind the documented Caddy proxy every request comes from the proxy; without this, the
//! per-address sign-in limit would be shared by everyone and the audit log would record the
//! proxy.

use std::net::{IpAddr, SocketAddr};

use axum::extract::{ConnectInfo, Request, State};
use axum::http::HeaderMap;
use axum::middleware::Next;
use axum::response::Response;
use ipnet::IpNet;

/// The proxies whose forwarding header is believed, and which header that is.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<IpNet>, ForwardingHeader);

/// The header a trusted proxy writes the chain of hops into.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ForwardingHeader {
    /// `X-Forwarded-For`, with `X-Forwarded-Proto` (what most proxies write by default).
    #[default]
    XForwardedFor,
    /// `Forwarded` (RFC 7239).
    Forwarded,
}

impl std::str::FromStr for ForwardingHeader {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "x-forwarded-for" => Ok(ForwardingHeader::XForwardedFor),
            "forwarded" => Ok(ForwardingHeader::Forwarded),
            other => {
                Err(format!("`--trusted-proxy-header {other}`: `x-forwarded-for` or `forwarded`"))
            }
        }
    }
}

/// A request's client, as [`TrustedProxies::client`] found it: its address, and whether it
/// reached Ferry over TLS (as a trusted proxy says; a direct connection to Ferry is plain HTTP).
pub use ferry_service::access::ClientAddress as Client;

impl TrustedProxies {
    /// Reads CIDRs (`10.0.0.0/8`, `2001:db8::/32`) or single addresses.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<TrustedProxies, String> {
        let mut nets = Vec::new();
        for entry in entries {
            let entry = entry.as_ref().trim();
            if entry.is_empty() {
                continue;
            }
            let net = match entry.parse::<IpNet>() {
                Ok(net) => net,
                Err(_) => entry.parse::<IpAddr>().map(IpNet::from).map_err(|_| {
                    format!(
                        "`--trusted-proxy {entry}`: not an address or a CIDR (e.g. `10.0.0.0/8`)"
                    )
                })?,
            };
            nets.push(net);
        }
        Ok(TrustedProxies(nets, ForwardingHeader::default()))
    }

    /// Reads the chain from `header` only.
    pub fn with_header(mut self, header: ForwardingHeader) -> Self {
        self.1 = header;
        self
    }

    fn trusts(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.0.iter().any(|net| net.contains(&address))
    }

    /// The client of a request from `peer` carrying `headers`.
    pub fn client(&self, peer: Option<IpAddr>, headers: &HeaderMap) -> Client {
        let Some(peer) = peer else { return Client::default() };
        let direct = Client { address: Some(canonical(peer)), https: false };
        if !self.trusts(peer) {
            return direct;
        }
        let hops = forwarded_hops(headers, self.1);
        if hops.is_empty() {
            return direct;
        }
        // From the nearest hop outwards: the first that is not a trusted proxy is the client.
        // A hop that names no address (`unknown`, an obfuscated name) ends the chain there:
        // nothing beyond it can be believed, and it is not an address to limit or record.
        let mut chosen: Option<&Hop> = None;
        for hop in hops.iter().rev() {
            match hop.address {
                Some(address) if self.trusts(address) => chosen = Some(hop),
                Some(_) => {
                    chosen = Some(hop);
                    break;
                }
                None => break,
            }
        }
        match chosen {
            Some(hop) => Client { address: hop.address, https: hop.https },
            None => Client { address: direct.address, https: hops.last().is_some_and(|h| h.https) },
        }
    }
}

/// IPv4 addresses a dual-stack socket reports as IPv6 (`::ffff:a.b.c.d`) are the IPv4 ones.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(IpAddr::V6(v6)),
        v4 => v4,
    }
}

/// One hop of a forwarding chain: the address it came from, and whether over TLS.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Hop {
    address: Option<IpAddr>,
    https: bool,
}

/// The hops the proxies recorded in `header`, farthest first.
fn forwarded_hops(headers: &HeaderMap, header: ForwardingHeader) -> Vec<Hop> {
    if header == ForwardingHeader::Forwarded {
        let forwarded: Vec<&str> =
            headers.get_all("forwarded").iter().filter_map(|v| v.to_str().ok()).collect();
        return forwarded
            .iter()
            .flat_map(|v| v.split(','))
            .map(|element| {
                let mut hop = Hop { address: None, https: false };
                for pair in element.split(';') {
                    let Some((key, value)) = pair.split_once('=') else { continue };
                    let value = value.trim().trim_matches('"');
                    match key.trim().to_ascii_lowercase().as_str() {
                        "for" => hop.address = node_address(value),
                        "proto" => hop.https = value.eq_ignore_ascii_case("https"),
                        _ => {}
                    }
                }
                hop
            })
            .collect();
    }
    let list = |name: &str| -> Vec<String> {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|s| s.trim().to_string())
            .collect()
    };
    let addresses = list("x-forwarded-for");
    let protos = list("x-forwarded-proto");
    addresses
        .iter()
        .enumerate()
        .map(|(i, a)| {
            // One scheme per hop when the proxies kept them in step; one for all otherwise.
            let proto = if protos.len() == addresses.len() { protos.get(i) } else { protos.last() };
            Hop {
                address: node_address(a),
                https: proto.is_some_and(|p| p.eq_ignore_ascii_case("https")),
            }
        })
        .collect()
}

/// The address a forwarding node names: `192.0.2.60`, `192.0.2.60:4711`, `[2001:db8::17]`,
/// `[2001:db8::17]:4711` or a bare IPv6 address; `None` for `unknown` or an obfuscated name.
fn node_address(node: &str) -> Option<IpAddr> {
    let node = node.trim();
    if let Ok(address) = node.parse::<IpAddr>() {
        return Some(address);
    }
    if let Ok(socket) = node.parse::<SocketAddr>() {
        return Some(socket.ip());
    }
    node.strip_prefix('[')
        .and_then(|rest| rest.split_once(']'))
        .and_then(|(inner, _)| inner.parse().ok())
}

/// Finds each request's [`Client`] and keeps it in the request's extensions (where
/// [`crate::access::peer_of`] and the server functions read it).
pub async fn identify_client(
    State(proxies): State<std::sync::Arc<TrustedProxies>>,
    mut req: Request,
    next: Next,
) -> Response {
    let peer = req.extensions().get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip());
    let client = proxies.client(peer, req.headers());
    req.extensions_mut().insert(client);
    next.run(req).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(axum::http::HeaderName::from_bytes(k.as_bytes()).unwrap(), v.parse().unwrap());
        }
        h
    }

    fn ip(s: &str) -> Option<IpAddr> {
        Some(s.parse().unwrap())
    }

    #[test]
    fn a_trusted_proxy_names_the_rightmost_untrusted_hop() {
        let proxies = TrustedProxies::parse(&["10.0.0.0/8", "2001:db8::1"]).unwrap();
        // The client, a proxy of the client's own (untrusted, so where trust ends), then ours.
        let h = headers(&[
            ("x-forwarded-for", "198.51.100.1, 203.0.113.9, 10.0.0.7"),
            ("x-forwarded-proto", "https"),
        ]);
        assert_eq!(
            proxies.client(ip("10.0.0.5"), &h),
            Client { address: ip("203.0.113.9"), https: true }
        );
        let forwarding = proxies.clone().with_header(ForwardingHeader::Forwarded);
        let h = headers(&[
            (
                "forwarded",
                "for=192.0.2.60;proto=https, for=\"[2001:db8:cafe::17]:4711\";proto=http",
            ),
            ("forwarded", "for=10.1.1.1"),
        ]);
        assert_eq!(
            forwarding.client(ip("2001:db8::1"), &h),
            Client { address: ip("2001:db8:cafe::17"), https: false }
        );
        // Only the header the administrator named is read: a client's own `Forwarded`, passed on
        // untouched by a proxy that writes `X-Forwarded-For`, names nobody (and the reverse).
        let h = headers(&[
            ("forwarded", "for=192.0.2.60;proto=https"),
            ("x-forwarded-for", "198.51.100.1"),
        ]);
        assert_eq!(
            proxies.client(ip("10.0.0.5"), &h),
            Client { address: ip("198.51.100.1"), https: false }
        );
        assert_eq!(
            forwarding.client(ip("10.0.0.5"), &h),
            Client { address: ip("192.0.2.60"), https: true }
        );
        // Nothing forwarded: the proxy itself.
        assert_eq!(
            proxies.client(ip("10.0.0.5"), &HeaderMap::new()),
            Client { address: ip("10.0.0.5"), https: false }
        );
        // An address-less hop ends the chain: nothing beyond it is believed.
        let h = headers(&[("forwarded", "for=192.0.2.60, for=unknown, for=10.0.0.9")]);
        assert_eq!(forwarding.client(ip("10.0.0.5"), &h).address, ip("10.0.0.9"));
    }

    #[test]
    fn headers_from_anyone_else_are_ignored() {
        let proxies = TrustedProxies::parse(&["10.0.0.0/8"]).unwrap();
        let forged = headers(&[
            ("x-forwarded-for", "1.2.3.4"),
            ("forwarded", "for=5.6.7.8;proto=https"),
            ("x-forwarded-proto", "https"),
        ]);
        assert_eq!(
            proxies.client(ip("198.51.100.2"), &forged),
            Client { address: ip("198.51.100.2"), https: false }
        );
        assert_eq!(
            TrustedProxies::default().client(ip("10.0.0.5"), &forged),
            Client { address: ip("10.0.0.5"), https: false }
        );
        // A dual-stack socket's mapped IPv4 address is the IPv4 one.
        assert_eq!(proxies.client(ip("::ffff:10.0.0.5"), &forged).address, ip("1.2.3.4"));
    }

    #[test]
    fn entries_are_cidrs_or_addresses() {
        assert!(TrustedProxies::parse(&["10.0.0.0/8", "192.0.2.1", "::1"]).is_ok());
        let err = TrustedProxies::parse(&["10.0.0.0/33"]).unwrap_err();
        assert!(err.contains("10.0.0.0/33"), "{err}");
    }
}
