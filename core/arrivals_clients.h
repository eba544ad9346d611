// Reading arrivals that name their client: `t` or `t,client` per line.
//
// Kept apart from arrivals.cpp (one time per line) so the two can grow independently; the final
// format is `t[,cost[,client]]`, see the note in arrivals_clients.cpp.
#pragma once

#include "nanos.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ratelab {

// ArrivalsWithClients is an arrivals file whose lines may name the client.
struct ArrivalsWithClients {
    std::vector<Nanos> times;
    std::vector<std::int64_t> clients; // empty when no line names one; else one per time
};

// parseArrivalsWithClients reads `t` or `t,client` lines, client an integer in
// 0..ClientConfig::kMaxClients - 1; a file names a client on every line or on none. Blank lines
// and `#` comments are ignored; a UTF-8 byte-order mark is skipped. Times are exact, non-negative
// and non-decreasing, at most kMaxArrivals of them. Errors throw InputError "NAME:LINE: what".
ArrivalsWithClients parseArrivalsWithClients(std::string_view text, std::string_view name);

// readArrivalsWithClientsFile reads a file (or a pipe) with parseArrivalsWithClients; a missing or
// unreadable file is an InputError too.
ArrivalsWithClients readArrivalsWithClientsFile(const std::string& path);

} // namespace ratelab
