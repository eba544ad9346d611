#include "import_command.h"

#include "command.h"
#include "config_import.h"
#include "arithmetic/decimal.h"
#include "scenariofile.h"


#include <iostream>

namespace ratelab::app {

int importCommand(QCommandLineParser& parser, const QStringList& args)
{
    parser.setApplicationDescription("Read a product's rate-limit configuration (nginx limit_req, Envoy local_ratelimit, "
                                     "Traefik rateLimit, Spring RedisRateLimiter, Kong rate-limiting, express-rate-limit or "
                                     "rate-limiter-flexible options; an API Gateway usage plan, an AWS WAF rate-based rule, a "
                                     "Cloudflare rate limiting rule or an Upstash Ratelimit snippet) and show what it does: "
                                     "what you wrote, the burst, the long-run rate, three traffic shapes, and what the "
                                     "scenario does not model. docs/import.md and docs/managed-services.md say how each file "
                                     "is read.");
    parser.addPositionalArgument("FILE", "The configuration file.");
    parser.addOption({"save-scenario", "Write the imported scenario to OUT (a .ratelab.json file).", "OUT"});
    parser.addHelpOption();
    if (int status = 0; !parseOrAnswer(parser, args, status))
        return status;
    const QStringList files = parser.positionalArguments();
    if (files.size() != 1)
        return fail("import: name one configuration file");
    io::ImportedConfig imported;
    try {
        imported = io::importConfigurationFile(files.first());
    } catch (const InputError& e) {
        return fail(std::string("import: ") + e.what());
    }
    const std::string report = io::whatYouGet(imported);
    if (parser.isSet("save-scenario")) {
        const QString error = io::saveScenario(imported.scenario, parser.value("save-scenario"));
        if (!error.isEmpty())
            return fail("import: --save-scenario: " + error.toStdString());
    }
    std::cout << report;
    return 0;
}

} // namespace ratelab::app
