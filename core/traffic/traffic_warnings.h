// What reading a log set aside or assumed, in words: the one text the command line prints as
// warnings and a dry run's report (JSON, web page, the app's) lists.
#pragma once

#include "traffic/traffic_log.h"

#include <string>
#include <vector>

namespace ratelab {

// trafficWarnings lists, in order: a first line cut short, comment lines, whole-second times,
// unreadable lines (the first few with their reasons), requests put back in time order.
std::vector<std::string> trafficWarnings(const Traffic& t);

} // namespace ratelab
