#include "replay/address_range.h"

#include "traffic/traffic_log.h"

#include <arpa/inet.h>

#include <cstring>

namespace ratelab {

namespace {

constexpr std::array<std::uint8_t, 12> kMappedPrefix{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

// keepBits clears every bit of b past the first `bits`.
void keepBits(std::array<std::uint8_t, 16>& b, int bits)
{
    for (int i = 0; i < 16; ++i) {
        const int keep = bits - 8 * i;
        b[std::size_t(i)] &= keep >= 8 ? 0xff : keep <= 0 ? 0 : std::uint8_t(0xff << (8 - keep));
    }
}

} // namespace

bool isIpv4Mapped(const std::array<std::uint8_t, 16>& bytes) { return std::memcmp(bytes.data(), kMappedPrefix.data(), 12) == 0; }

std::optional<IpAddress> parseIpLiteral(std::string_view text)
{
    if (text.empty() || text.size() > 45) // INET6_ADDRSTRLEN - 1: the longest text form
        return std::nullopt;
    char in[64];
    std::memcpy(in, text.data(), text.size());
    in[text.size()] = '\0';
    IpAddress out;
    if (text.find(':') == std::string_view::npos) {
        std::uint8_t v4[4];
        if (inet_pton(AF_INET, in, v4) != 1)
            return std::nullopt;
        std::memcpy(out.bytes.data(), kMappedPrefix.data(), 12);
        std::memcpy(out.bytes.data() + 12, v4, 4);
        out.v4 = true;
        return out;
    }
    if (inet_pton(AF_INET6, in, out.bytes.data()) != 1)
        return std::nullopt;
    out.v4 = isIpv4Mapped(out.bytes);
    return out;
}

std::optional<IpAddress> loggedAddress(std::string_view text)
{
    text = hostOfHostPort(text);
    // netip.ParseAddr takes a non-empty zone after an IPv6 address; the address compares without it.
    if (const std::size_t zone = text.find('%'); zone != std::string_view::npos) {
        if (zone + 1 == text.size() || text.substr(0, zone).find(':') == std::string_view::npos)
            return std::nullopt;
        text = text.substr(0, zone);
    }
    return parseIpLiteral(text);
}

DryRunAddressRange maskedRange(const IpAddress& address, int bits)
{
    DryRunAddressRange r{address.bytes, bits, address.v4};
    keepBits(r.net, address.v4 ? bits + 96 : bits);
    return r;
}

bool inRange(const DryRunAddressRange& range, const IpAddress& address)
{
    if (range.v4 != address.v4)
        return false;
    std::array<std::uint8_t, 16> b = address.bytes;
    keepBits(b, range.v4 ? range.bits + 96 : range.bits);
    return b == range.net;
}

} // namespace ratelab
