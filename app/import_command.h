// `ratelab import FILE`: a product's rate-limit configuration, as its users write it, read into a
// scenario of the product's model, with what you wrote set beside what you get.
#pragma once

#include <QCommandLineParser>
#include <QStringList>

namespace ratelab::app {

// importCommand reads FILE (nginx, Envoy, Traefik, Spring, Kong, express-rate-limit or
// rate-limiter-flexible), prints the explanation, and with --save-scenario OUT writes the
// scenario (written atomically).
int importCommand(QCommandLineParser& parser, const QStringList& args);

} // namespace ratelab::app
