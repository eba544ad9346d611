#include "server_options.h"

#include "arithmetic/decimal.h"
#include "server/client_throttle.h"
#include "server/gate.h"

namespace ratelab::app {

namespace {

QString kinds()
{
    QString list;
    for (std::string_view k : gateKinds())
        list += (list.isEmpty() ? "" : ", ") + QString::fromUtf8(k.data(), qsizetype(k.size()));
    return list;
}

// specOf reads an option's spec, and names the option and the text in a refusal.
template <typename Spec>
Spec specOf(const char* option, const QString& text)
{
    const std::string spec = text.toStdString();
    try {
        return Spec::parse(spec);
    } catch (const InputError& e) {
        throw InputError(std::string("--") + option + " " + ratelab::quoted(spec) + ": " + e.what());
    }
}

} // namespace

void addServerOptions(QCommandLineParser& parser)
{
    parser.addOptions({
        {"server",
         "A server behind the limiter: every admitted attempt is served (docs/server.md), e.g. "
         "workers=8,service=exp:50ms,queue=100,queue_timeout=1s,timeout=2s; service const:D, exp:MEAN or "
         "lognormal:MEDIAN:SIGMA; timeout is the client's. 'none' removes a scenario's server.",
         "spec"},
        {"concurrency",
         "A concurrency limiter in front of the server, as a row of its own (repeatable): " + kinds()
             + ", with its options, e.g. gradient2:initial_limit=20 (docs/concurrency-limits.md).",
         "KIND[:key=value,...]"},
        {"layered-gate", "A concurrency limiter after the layered policy's layers (--layer), in front of the server.",
         "KIND[:key=value,...]"},
        {"throttle",
         "A client throttle every client runs before the limiter (docs/client-throttles.md): "
         "bottleneck:max_concurrent=2,min_time=100ms or p-queue:concurrency=2,interval=1s,interval_cap=5; "
         "'none' removes a scenario's.",
         "KIND[:key=value,...]"},
    });
}

void applyServerOptions(const QCommandLineParser& p, Scenario& s)
{
    if (p.isSet("server")) {
        const std::string text = p.value("server").toStdString();
        if (text == "none") {
            s.server.reset();
        } else {
            try {
                s.server = ServerConfig::parse(text);
            } catch (const InputError& e) {
                throw InputError("--server: " + std::string(e.what()));
            }
        }
    }
    if (p.isSet("concurrency")) {
        s.concurrency.clear();
        for (const QString& text : p.values("concurrency"))
            s.concurrency.push_back(specOf<GateSpec>("concurrency", text));
    }
    if (p.isSet("throttle"))
        s.throttle = p.value("throttle") == "none" ? ClientThrottleSpec() : specOf<ClientThrottleSpec>("throttle", p.value("throttle"));
    if (p.isSet("layered-gate"))
        s.layeredGate = specOf<GateSpec>("layered-gate", p.value("layered-gate"));
    if ((!s.concurrency.empty() || !s.layeredGate.empty()) && !s.server)
        throw InputError(std::string(p.isSet("concurrency") ? "--concurrency" : "--layered-gate")
                         + ": a concurrency limiter needs a server behind it: give --server");
}

} // namespace ratelab::app
