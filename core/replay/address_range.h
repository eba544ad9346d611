// Client addresses and the ranges products test them against (Traefik's ClientIP, Spring Cloud
// Gateway's RemoteAddr): an address is IPv4 or IPv6, and a range holds addresses of its own
// family only, as both products decide it. Go's IPNet.Contains compares an address made 4 bytes
// when it is IPv4 or IPv4-mapped with a network of 4 bytes, the rest with one of 16; Netty's
// IpSubnetFilterRule tests an Inet4Address against an IPv4 rule and an Inet6Address against an
// IPv6 one, and Java reads an IPv4-mapped literal as an Inet4Address.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ratelab {

// IpAddress is an address in its 16-byte form (an IPv4 one IPv4-mapped, ::ffff:a.b.c.d), and
// whether it is IPv4 (written so, or IPv4-mapped).
struct IpAddress {
    std::array<std::uint8_t, 16> bytes{};
    bool v4 = false;
};

// DryRunAddressRange is a network: its first `bits` bits (counted within the 4 bytes of an IPv4
// address, else the 16) are those of `net` (the 16-byte form); it holds addresses of its family.
struct DryRunAddressRange {
    std::array<std::uint8_t, 16> net{};
    int bits = 0;
    bool v4 = false;
};

// isIpv4Mapped says whether a 16-byte address is IPv4-mapped (::ffff:a.b.c.d).
bool isIpv4Mapped(const std::array<std::uint8_t, 16>& bytes);

// parseIpLiteral reads an address as written: a dotted quad (four decimal parts of 0-255, no
// leading zero: what Go's netip.ParseAddr and inet_pton take) or an IPv6 text form (RFC 4291,
// an IPv4 tail allowed), with no zone; nullopt for anything else.
std::optional<IpAddress> parseIpLiteral(std::string_view text);

// loggedAddress reads a log's client address as Traefik's RemoteAddrStrategy and netip.ParseAddr
// read the connection's: a port after "host:" or "[host]:" cut (net.SplitHostPort), an IPv6
// zone ("%eth0") dropped; nullopt when it is no address, which no range holds.
std::optional<IpAddress> loggedAddress(std::string_view text);

// maskedRange makes the range of `bits` leading bits of an address (bits within 4 bytes for an
// IPv4 one, within 16 for the others: 0-32 or 0-128), its other bits cleared.
DryRunAddressRange maskedRange(const IpAddress& address, int bits);

// inRange says whether the range holds the address: same family, same leading bits.
bool inRange(const DryRunAddressRange& range, const IpAddress& address);

} // namespace ratelab
