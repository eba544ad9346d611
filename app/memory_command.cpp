#include "memory_command.h"

#include "engine/clients.h"
#include "command.h"
#include "arithmetic/decimal.h"
#include "report/report.h"
#include "scenario_options.h"

#include <cstdio>
#include <iostream>

namespace ratelab::app {

namespace {

constexpr std::int64_t kMaxMemoryKeys = 10'000'000;

} // namespace

int memoryCommand(QCommandLineParser& parser, const QStringList& args)
{
    parser.addOptions({
        {"keys", "Active keys (clients, users, API keys), 1 to 10000000 (required).", "K"},
        {"limit", "Requests allowed per window (default 10).", "L"},
        {"window", "Window length in seconds (default 10).", "seconds"},
        {"capacity", "Bucket capacity (default: the limit).", "C"},
        {"rate", "Refill/drain rate per second, a decimal or a fraction (default: limit / window, exact).", "per-second"},
        {"json", "Write JSON instead of a table."},
    });
    int status = 0;
    if (!parseOrFail(parser, args, status))
        return status;
    if (!parser.isSet("keys"))
        return fail("memory: --keys K is required");
    // The same number grammar and ranges as compare's options.
    const std::int64_t keys = *integerOption(parser, "keys", 1, kMaxMemoryKeys);
    const std::int64_t limit = integerOption(parser, "limit", 1, LimiterConfig::kMaxLimit).value_or(10);
    const Nanos window = secondsOption(parser, "window", Sign::Positive).value_or(10 * kNanosPerSecond);
    const std::optional<std::int64_t> capacity = integerOption(parser, "capacity", 1, LimiterConfig::kMaxLimit);
    const std::optional<Rate> rate = rateOption(parser, "rate");
    const LimiterConfig config = LimiterConfig::make(limit, window, capacity, rate);

    if (parser.isSet("json")) {
        std::cout << "{\"input\": {\"keys\": " << keys << ", \"limit\": " << config.limit()
                  << ", \"window\": " << formatSeconds(config.windowNanos()) << ", \"capacity\": " << config.capacity()
                  << ", \"rate\": " << formatNumber(config.rate().perSecond()) << ", \"rate_exact\": \""
                  << config.rate().exactText() << "\"},\n \"results\": {";
        for (std::size_t i = 0; i < kAllAlgorithms.size(); ++i) {
            const Algorithm a = kAllAlgorithms[i];
            const Memory one = worstCaseMemory(a, config);
            const Memory all = memoryAtScale(a, config, keys);
            std::cout << (i ? ",\n  " : "\n  ") << '"' << algorithmId(a) << "\": {\"per_key\": {\"bytes\": "
                      << one.bytes << ", \"entries\": " << one.entries << "}, \"total\": {\"bytes\": " << all.bytes
                      << ", \"entries\": " << all.entries << "}}";
        }
        std::cout << "}}\n";
    } else {
        char header[160];
        std::snprintf(header, sizeof header, "%-24s %14s %12s %20s %18s %10s\n", "algorithm", "bytes/key",
                      "entries/key", "total bytes", "total entries", "total");
        std::cout << header;
        for (Algorithm a : kAllAlgorithms) {
            const Memory one = worstCaseMemory(a, config);
            const Memory all = memoryAtScale(a, config, keys);
            char line[160];
            std::snprintf(line, sizeof line, "%-24s %14lld %12lld %20lld %18lld %10s\n",
                          std::string(algorithmId(a)).c_str(), static_cast<long long>(one.bytes),
                          static_cast<long long>(one.entries), static_cast<long long>(all.bytes),
                          static_cast<long long>(all.entries), humanBytes(all.bytes).c_str());
            std::cout << line;
        }
    }
    return 0;
}

} // namespace ratelab::app
