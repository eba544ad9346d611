// compare's streamed output: streamCsv and streamJson write, as they decide, exactly what the
// writers of a whole trace (the scenario's rows, engine_helpers.h) write, and decideStream hands
// over every decision of simulateOne, in order, with its metrics.
//
// The CSV rows are also checked against the formatting every writer had before streaming
// (formatSeconds, formatNumber and std::to_string, field by field), so the writers' own number
// formatting (std::to_chars into a buffer) is tested against independent code.
#include "engine_helpers.h"
#include "arithmetic/decimal.h"
#include "engine/admitted_window.h"
#include "report/report.h"
#include "trace_writers.h"

#include <QTest>

#include <sstream>

using namespace ratelab;
using namespace ratelab::test;

namespace {

Scenario uniform(std::int64_t n, Nanos delay)
{
    Scenario s;
    s.pattern.kind = PatternKind::Uniform;
    s.pattern.count = n;
    s.pattern.delayNanos = delay;
    return s;
}

Scenario poisson(std::int64_t n, std::int64_t limit, std::uint64_t seed)
{
    Scenario s;
    s.config = LimiterConfig::make(limit, kNanosPerSecond);
    s.pattern.kind = PatternKind::Poisson;
    s.pattern.count = n;
    s.pattern.lambda = Rate{2 * limit, kNanosPerSecond};
    s.pattern.seed = seed;
    return s;
}

// extremes has explicit times from 0 to the last nanosecond, costs up to one no wait admits, and
// a rate that is not a decimal: retry_after is null (JSON) or empty (CSV) for some requests.
Scenario extremes()
{
    Scenario s;
    s.config = LimiterConfig::make(5, 7 * kNanosPerSecond, 6, Rate{3, 7 * kNanosPerSecond});
    s.explicitArrivals = std::vector<Nanos>{0, 0, 1, 999'999'999, kNanosPerSecond, kNanosPerSecond + 100'000'000,
                                            kMaxNanos / 2, kMaxNanos - 1, kMaxNanos, kMaxNanos};
    s.explicitCosts = {1, 7, 2, 0, 3, 1, 1, 9, 1, 2};
    s.cost = 1;
    return s;
}

std::vector<std::pair<const char*, Scenario>> scenarios()
{
    std::vector<std::pair<const char*, Scenario>> all;
    all.emplace_back("the default", Scenario{});
    all.emplace_back("no requests", uniform(0, kNanosPerSecond));
    all.emplace_back("one request", uniform(1, kNanosPerSecond));
    all.emplace_back("30 at 0.5 s", uniform(30, kNanosPerSecond / 2));
    all.emplace_back("a burst at one instant", uniform(50, 0));
    all.emplace_back("poisson, past a chunk and a buffer", poisson(20'000, 100, 7));
    Scenario costly = poisson(3'000, 10, 3);
    costly.cost = 3;
    all.emplace_back("every request costs 3", costly);
    all.emplace_back("explicit extremes with costs", extremes());
    Scenario some = uniform(40, kNanosPerSecond / 10);
    some.algorithms = {Algorithm::Gcra, Algorithm::NginxLimitReq, Algorithm::Gcra};
    all.emplace_back("chosen algorithms, one twice", some);
    return all;
}

std::string csvOf(const Trace& trace)
{
    std::ostringstream out;
    writeCsv(out, trace);
    return out.str();
}

// referenceCsv formats a trace field by field with the standalone formatters.
std::string referenceCsv(const Trace& trace)
{
    std::string out = std::string("algorithm,t,allowed,delay,remaining,retry_after,level") +
                      (trace.costs.empty() ? "" : ",cost") + "\n";
    for (const AlgorithmTrace& a : trace.results)
        for (std::size_t i = 0; i < a.decisions.size(); ++i) {
            const Decision& d = a.decisions[i];
            out += std::string(algorithmId(a.algorithm)) + "," + formatSeconds(trace.arrivals[i]) + "," +
                   (d.allowed ? "true" : "false") + "," + formatSeconds(d.delay) + "," + std::to_string(d.remaining) +
                   "," + (d.retryNever() ? std::string() : formatSeconds(d.retryAfter)) + "," + formatNumber(d.level) +
                   (trace.costs.empty() ? std::string() : std::string(",") + std::to_string(trace.costs[i])) + "\n";
        }
    return out;
}

} // namespace

class TestStream : public QObject {
    Q_OBJECT

private slots:
    void streamedCsvIsTheTracesCsv()
    {
        for (const auto& [name, s] : scenarios()) {
            std::ostringstream streamed;
            streamCsv(streamed, s);
            QVERIFY2(streamed.str() == csvOf(traceOf(s)), name);
        }
    }

    void streamedJsonIsTheTracesJson()
    {
        for (const auto& [name, s] : scenarios()) {
            std::ostringstream streamed, whole;
            streamJson(streamed, s);
            writeJson(whole, s, traceOf(s));
            QVERIFY2(streamed.str() == whole.str(), name);
        }
    }

    void csvNumbersAreTheReferenceFormatting()
    {
        for (const auto& [name, s] : scenarios()) {
            const Trace trace = traceOf(s);
            QVERIFY2(csvOf(trace) == referenceCsv(trace), name);
        }
    }

    void decideStreamHandsOverEveryDecisionInOrder()
    {
        const Scenario s = poisson(10'000, 100, 11);
        const std::vector<Nanos> arrivals = resolveArrivals(s);
        for (Algorithm a : kAllAlgorithms) {
            const AlgorithmTrace whole = simulateOne(s.config, a, arrivals);
            std::vector<Decision> handed;
            std::size_t chunks = 0;
            const Metrics m = decideStream(s.config, a, arrivals, {}, [&](std::size_t first, std::span<const Decision> ds) {
                QCOMPARE(first, handed.size()); // contiguous, in order
                handed.insert(handed.end(), ds.begin(), ds.end());
                ++chunks;
            });
            QVERIFY(chunks > 1); // 10,000 decisions do not come in one piece
            QCOMPARE(handed.size(), whole.decisions.size());
            for (std::size_t i = 0; i < handed.size(); ++i) {
                const Decision& x = handed[i];
                const Decision& y = whole.decisions[i];
                QVERIFY(x.allowed == y.allowed && x.delay == y.delay && x.retryAfter == y.retryAfter &&
                        x.remaining == y.remaining && x.level == y.level);
            }
            QCOMPARE(m.allowed, whole.metrics.allowed);
            QCOMPARE(m.denied, whole.metrics.denied);
            QCOMPARE(m.delayed, whole.metrics.delayed);
            QCOMPARE(m.maxInWindow, whole.metrics.maxInWindow);
            AdmittedWindow window(s.config.windowNanos()); // the engine's count, one request at a time
            std::int64_t most = 0;
            for (std::size_t i = 0; i < arrivals.size(); ++i)
                most = std::max(most, window.add(arrivals[i], whole.decisions[i].allowed));
            QCOMPARE(m.maxInWindow, most);
            QCOMPARE(m.memory.bytes, whole.metrics.memory.bytes);
        }
    }

    void aRefusedScenarioWritesNothing()
    {
        Scenario s = uniform(10, kNanosPerSecond);
        s.pattern.startNanos = kMaxNanos; // ten requests past the end of time
        std::ostringstream csv, json;
        QVERIFY_THROWS_EXCEPTION(InputError, streamCsv(csv, s));
        QVERIFY_THROWS_EXCEPTION(InputError, streamJson(json, s));
        QCOMPARE(csv.str(), std::string());
        QCOMPARE(json.str(), std::string());
    }
};

QTEST_GUILESS_MAIN(TestStream)
#include "tst_stream.moc"
