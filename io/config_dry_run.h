// A product configuration made ready for a dry run on a log (core/replay/dry_run.h): nginx's
// zones, limit_req lines and locations as readNginxConfig reads them, each zone's key mapped onto
// the log's key.
#pragma once

#include "replay/dry_run.h"

#include <QString>

#include <string>

namespace ratelab::io {

// dryRunConfig reads an nginx configuration for a log read by `logKey` (--key: "ip", "user" or
// a field). A zone keyed by $binary_remote_addr or $remote_addr maps onto "ip", $remote_user onto
// "user", $VAR onto the field VAR; any other key leaves its rules named in notReplayed, never
// silently dropped. It throws InputError for what nginx refuses, for a config that is not nginx's,
// and, by name, for what the dry run does not model: several server blocks (which one a request
// reaches is not in the log), a location inside a location.
DryRunConfig dryRunConfig(const QString& text, const std::string& logKey);

// dryRunConfigFile reads the file at path (at most 4 MiB) as dryRunConfig does; errors name the file.
DryRunConfig dryRunConfigFile(const QString& path, const std::string& logKey);

} // namespace ratelab::io
