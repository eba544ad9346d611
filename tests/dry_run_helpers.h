// The dry-run tests' shared steps: a config written to a temporary folder, the message a config
// is refused with, and the rule numbers that denied each request.
#pragma once

#include "arithmetic/decimal.h"
#include "config_dry_run.h"
#include "replay/dry_run.h"

#include <QFile>
#include <QTemporaryDir>

#include <string>
#include <vector>

namespace ratelab::test {

// deniedBy returns, per request, the rule that denied it (as DryRunResult::deniedBy holds it).
inline std::vector<int> deniedBy(const DryRunResult& r) { return {r.deniedBy.begin(), r.deniedBy.end()}; }

// write writes text to the file `name` in dir and returns its path; a failure ends the test run.
inline QString write(const QTemporaryDir& dir, const QString& name, const QByteArray& text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(text) != text.size())
        qFatal("cannot write %s", qPrintable(path));
    return path;
}

// refusal returns the message dryRunConfigFile refuses the config at path with, keyed by `key`,
// or "(accepted)".
inline std::string refusal(const QString& path, const std::string& key = "ip")
{
    try {
        (void)io::dryRunConfigFile(path, key);
    } catch (const InputError& e) {
        return e.what();
    }
    return "(accepted)";
}

} // namespace ratelab::test
