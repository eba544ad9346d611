// Fuzz target: the scenario-file loader (io/scenariofile.cpp, parseScenario).
//
// parseScenario never throws. What it refuses gets a one-line message. What it accepts can be
// simulated as written (every row is run here, as the app runs them, when it holds at most 20000
// requests) and survives a round trip: serializeScenario, then parseScenario again, gives the
// very same scenario.
#include "arithmetic/decimal.h"
#include "../engine_helpers.h"
#include "fuzz_check.h"
#include "scenariofile.h"

#include <cstdint>
#include <exception>
#include <string>

using namespace ratelab;

namespace {

std::int64_t requestCount(const Scenario& s)
{
    std::int64_t n = std::int64_t(s.addedArrivals.size());
    if (s.explicitArrivals)
        return n + std::int64_t(s.explicitArrivals->size());
    return n + (s.pattern.kind == PatternKind::Edge ? 2 * s.config.limit() : s.pattern.count);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const QByteArray json(reinterpret_cast<const char*>(data), qsizetype(size));
    io::LoadResult result;
    try {
        result = io::parseScenario(json);
    } catch (const std::exception& e) {
        fuzz::fail("parseScenario threw", e.what());
    } catch (...) {
        fuzz::fail("parseScenario threw", "a non-standard exception");
    }
    if (!result.scenario) {
        const std::string error = result.error.toStdString();
        FUZZ_CHECK(!error.empty(), std::string_view(json.constData(), std::size_t(json.size())));
        fuzz::checkMessage(error);
        return 0;
    }
    FUZZ_CHECK(result.error.isEmpty(), result.error.toStdString());
    const Scenario& s = *result.scenario;
    if (requestCount(s) <= 20'000) {
        try {
            const Trace trace = test::traceOf(s);
            FUZZ_CHECK(trace.results.size() == rowCount(s), "results");
        } catch (const InputError& e) {
            // Accepted means it can be simulated; only a random Poisson stream may still run past
            // the end of time, and its message says so.
            FUZZ_CHECK(s.pattern.kind == PatternKind::Poisson && !s.explicitArrivals, e.what());
            fuzz::checkMessage(e.what());
        }
    }
    const QByteArray saved = io::serializeScenario(s);
    const io::LoadResult again = io::parseScenario(saved);
    FUZZ_CHECK(again.scenario.has_value(), again.error.toStdString() + " | " + saved.toStdString());
    FUZZ_CHECK(*again.scenario == s, saved.toStdString());
    return 0;
}
