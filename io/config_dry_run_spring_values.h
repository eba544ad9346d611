// The values Spring Cloud Gateway's predicates take that are written in Java's and Netty's forms:
// a RemoteAddr source (an address and prefix) and an After/Before/Between date-time, read as the
// gateway's own converters read them. Internal to io (config_dry_run_spring.cpp).
#pragma once

#include "replay/address_range.h"
#include "replay/dry_run.h"

#include <string>

namespace ratelab::io {

// nettyRange reads a RemoteAddr source as RemoteAddrRoutePredicateFactory.addSource does
// (spring-cloud-gateway 5227205c743d): "/32" appended when it has no '/', to an IPv6 address
// too (which then takes its whole /32); the prefix by Integer.parseInt (a sign, decimal
// digits); the address by Netty's IpSubnetFilterRule: InetAddress.getByName (an IPv4-mapped
// literal is an Inet4Address), 0-32 bits for IPv4, 0-128 for IPv6, else IllegalArgumentException
// and the route is not built. A host name, which getByName resolves by DNS, is not read.
// `where` names the predicate in the InputError thrown for a source Spring refuses.
DryRunAddressRange nettyRange(std::string source, const std::string& where);

// javaInstant reads a date-time as StringToZonedDateTimeConverter does (spring-cloud-gateway
// 5227205c743d, support/): a long is milliseconds since 1970 (Instant.ofEpochMilli), anything
// else ZonedDateTime.parse's ISO_ZONED_DATE_TIME: yyyy-MM-dd, 'T' in any case, HH:mm, optional
// :ss and then an optional fraction of up to 9 digits after its '.' (appendFraction(NANO, 0, 9,
// true): "47." is 47 s), the offset (isoOffset), then optionally a zone in brackets
// ("2017-01-20T17:42:47.789-07:00[America/Denver]"). The instant is the local date-time at the
// offset (Parsed.resolveInstant prefers the offset to the zone). A zone without an offset
// ("...47.789[America/Denver]") is refused, as ISO_OFFSET_DATE_TIME requires the offset.
// It throws InputError, naming `where`, for a date-time Spring refuses.
DryRunInstant javaInstant(const std::string& t, const std::string& where);

} // namespace ratelab::io
