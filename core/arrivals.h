// Reading arrival times from text: one time in seconds per line.
#pragma once

#include "nanos.h"

#include <string_view>
#include <vector>

namespace ratelab {

// parseArrivals reads one arrival time in seconds per line. Blank lines and everything after a
// `#` are ignored. Times must be non-negative and non-decreasing; at most kMaxArrivals of them.
// Errors throw InputError as "NAME:LINE: what is wrong".
std::vector<Nanos> parseArrivals(std::string_view text, std::string_view name);

// readArrivalsFile reads and parses a file; a missing or unreadable file is an InputError too.
std::vector<Nanos> readArrivalsFile(const std::string& path);

} // namespace ratelab
