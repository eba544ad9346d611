// The one codec of cluster and client settings: options on the command line make the
// same ClusterConfig and ClientConfig a scenario file makes, the file written from them reads
// back equal, and a bad value is refused for the same reason whether a flag or a file gives it.
// Every expected value and text below is written by hand from the options given.
#include "scenario_options.h"
#include "scenariofile.h"

#include "arithmetic/decimal.h"
#include "report/report_run.h"
#include "scenario/settings_codec.h"

#include <QCommandLineParser>
#include <QTest>

#include <functional>
#include <optional>
#include <set>
#include <sstream>
#include <vector>

using namespace ratelab;

namespace {

constexpr Nanos kMs = kNanosPerSecond / 1000;

// fromFlags builds the scenario the command line `args` describes, as `ratelab compare` does.
Scenario fromFlags(const QStringList& args)
{
    QCommandLineParser parser;
    app::addScenarioOptions(parser);
    app::addRunOptions(parser);
    if (!parser.parse(QStringList{"ratelab"} + args))
        throw InputError(parser.errorText().toStdString());
    return app::scenarioFromOptions(parser);
}

// flagError returns the refusal of `args`, or "" when they are accepted.
QString flagError(const QStringList& args)
{
    try {
        (void)fromFlags(args);
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return {};
}

// file is a scenario file holding `members` (`"cluster": {...}`) and the defaults otherwise.
QByteArray file(const QByteArray& members)
{
    return R"({"format": "ratelab-scenario", "version": 1, )" + members + "}";
}

ClusterConfig::Options cluster(const std::function<void(ClusterConfig::Options&)>& set)
{
    ClusterConfig::Options o;
    set(o);
    return o;
}

ClientOptions clients(const std::function<void(ClientOptions&)>& set)
{
    ClientOptions o;
    set(o);
    return o;
}

// Row is one round trip: the options, the configs they make and the file's text, by hand.
struct Row {
    const char* name;
    const char* args;
    std::optional<ClusterConfig> cluster;
    std::optional<ClientConfig> clients;
    QByteArray written; // the file's line(s), exactly
};

const std::vector<Row>& rows()
{
    static const std::vector<Row> table = [] {
        std::vector<Row> out;
        const auto row = [&](const char* name, const char* args, std::optional<ClusterConfig::Options> c,
                             std::optional<ClientOptions> k, const QByteArray& written) {
            out.push_back({name, args, c ? std::optional(ClusterConfig::make(*c)) : std::nullopt,
                           k ? std::optional(ClientConfig::make(*k)) : std::nullopt, written});
        };
        // Racy: 5 ms round trip; the file writes latency only here, and skew always.
        row("racy", "--nodes 3 --coordination racy --latency 0.005", cluster([](auto& o) {
                o.nodes = 3;
                o.coordination = Coordination::Racy;
                o.latencyNanos = 5 * kMs;
            }),
            std::nullopt,
            R"("cluster": {"nodes": 3, "balancer": "round_robin", "coordination": "racy", "latency": "0.005", "skew": "0"})");
        row("hybrid", "--nodes 3 --balancer random --coordination hybrid --sync 0.1 --skew 0.002", cluster([](auto& o) {
                o.nodes = 3;
                o.balancer = Balancer::Random;
                o.coordination = Coordination::Hybrid;
                o.syncNanos = 100 * kMs;
                o.skewNanos = 2 * kMs;
            }),
            std::nullopt,
            R"("cluster": {"nodes": 3, "balancer": "random", "coordination": "hybrid", "sync": "0.1", "skew": "0.002"})");
        // --outage T1:T2 is the file's outage object; each --join N@T an item of "joins".
        row("outage and a join", "--nodes 2 --outage 1:2.5 --fallback closed --join 1@0.5", cluster([](auto& o) {
                o.nodes = 2;
                o.outageFromNanos = 1000 * kMs;
                o.outageToNanos = 2500 * kMs;
                o.fallback = Fallback::Closed;
                o.joins = {{1, 500 * kMs}};
            }),
            std::nullopt,
            R"("cluster": {"nodes": 2, "balancer": "round_robin", "coordination": "shared", "skew": "0", )"
            R"("outage": {"from": "1", "to": "2.5", "fallback": "closed"}, "joins": ["1@0.5"]})");
        row("joins and leaves", "--nodes 3 --balancer hash --coordination local --join 1@0.1 --leave 2@0.3 --leave 1@0.9",
            cluster([](auto& o) {
                o.nodes = 3;
                o.balancer = Balancer::Hash;
                o.coordination = Coordination::Local;
                o.joins = {{1, 100 * kMs}};
                o.leaves = {{2, 300 * kMs}, {1, 900 * kMs}};
            }),
            std::nullopt,
            R"("cluster": {"nodes": 3, "balancer": "hash", "coordination": "local", "skew": "0", "joins": ["1@0.1"], )"
            R"("leaves": ["2@0.3", "1@0.9"]})");
        // --autoscale MIN:MAX is the file's autoscale object; nodes is MAX. 1/3 a second has no decimal.
        row("autoscale", "--coordination split --autoscale 2:4 --scale-at 1/3", cluster([](auto& o) {
                o.nodes = 4;
                o.coordination = Coordination::Split;
                o.autoscaleMin = 2;
                o.autoscaleMax = 4;
                o.scaleAt = Rate::reduced(1, 3 * kNanosPerSecond);
            }),
            std::nullopt,
            R"("cluster": {"nodes": 4, "balancer": "round_robin", "coordination": "split", "skew": "0", )"
            R"("autoscale": {"min": 2, "max": 4, "scale_at": "1/3"}})");
        // The clients write every field but a full jitter and no cohorts.
        row("backoff", "--clients 3 --retry backoff --max-retries 5 --backoff-base 0.2 --backoff-cap 3 --jitter decorrelated",
            std::nullopt, clients([](auto& o) {
                o.clients = 3;
                o.retry = RetryPolicy::Backoff;
                o.maxRetries = 5;
                o.backoffBaseNanos = 200 * kMs;
                o.backoffCapNanos = 3000 * kMs;
                o.jitter = Jitter::Decorrelated;
            }),
            R"("clients": {"clients": 3, "key": "client", "retry": "backoff", "retry_delay": "0", "max_retries": 5, )"
            R"("backoff_base": "0.2", "backoff_cap": "3", "jitter": "decorrelated"})");
        row("immediate", "--clients 4 --key global --retry immediate --retry-delay 0.05", std::nullopt, clients([](auto& o) {
                o.clients = 4;
                o.key = KeyMode::Global;
                o.retry = RetryPolicy::Immediate;
                o.retryDelayNanos = 50 * kMs;
            }),
            R"("clients": {"clients": 4, "key": "global", "retry": "immediate", "retry_delay": "0.05", "max_retries": 3, )"
            R"("backoff_base": "0.1", "backoff_cap": "10"})");
        // Cohorts hold every client (2 + 1); the clients' own policy is the first cohort's.
        row("cohorts and a cluster",
            "--cohort 2:retry_after --cohort 1:immediate:retry_delay=0.1,max_retries=20 --nodes 2 --coordination local",
            cluster([](auto& o) {
                o.nodes = 2;
                o.coordination = Coordination::Local;
            }),
            clients([](auto& o) {
                o.clients = 3;
                o.retry = RetryPolicy::RetryAfter;
                o.cohorts = {Cohort{.clients = 2, .retry = RetryPolicy::RetryAfter},
                             Cohort{.clients = 1, .retry = RetryPolicy::Immediate, .retryDelayNanos = 100 * kMs,
                                    .maxRetries = 20}};
            }),
            "\"cluster\": {\"nodes\": 2, \"balancer\": \"round_robin\", \"coordination\": \"local\", \"skew\": \"0\"},\n"
            R"(  "clients": {"clients": 3, "key": "client", "retry": "retry_after", "retry_delay": "0", "max_retries": 3, )"
            R"("backoff_base": "0.1", "backoff_cap": "10", "cohorts": ["2:retry_after", "1:immediate:retry_delay=0.1,max_retries=20"]})");
        return out;
    }();
    return table;
}

} // namespace

class TestSettingsCodec : public QObject {
    Q_OBJECT

private slots:
    // Flags -> config (as written by hand) -> scenario file (its text by hand) -> read back equal.
    void roundTrip_data()
    {
        QTest::addColumn<int>("row");
        for (std::size_t i = 0; i < rows().size(); ++i)
            QTest::newRow(rows()[i].name) << int(i);
    }

    void roundTrip()
    {
        QFETCH(int, row);
        const Row& want = rows()[std::size_t(row)];
        const Scenario s = fromFlags(QString(want.args).split(' '));
        QVERIFY(s.cluster == want.cluster);
        QVERIFY(s.clients == want.clients);
        const QByteArray text = io::serializeScenario(s);
        QVERIFY2(text.contains(want.written), text.constData());
        const io::LoadResult back = io::parseScenario(text);
        QVERIFY2(back.scenario, qPrintable(back.error));
        QVERIFY(back.scenario->cluster == want.cluster);
        QVERIFY(back.scenario->clients == want.clients);
        QCOMPARE(io::serializeScenario(*back.scenario), text);
    }

    // Every setting of the tables is written by some row: the round trip covers them all.
    void roundTripCoversEverySetting()
    {
        std::set<std::string_view> written;
        for (const Row& row : rows()) {
            for (const ClusterSetting& c : clusterSettings())
                if (row.cluster && !c.texts(row.cluster->options()).empty())
                    written.insert(c.key);
            for (const ClientSetting& c : clientSettings())
                if (row.clients && !c.texts(row.clients->options()).empty())
                    written.insert(c.key);
        }
        for (const ClusterSetting& c : clusterSettings())
            QVERIFY2(written.count(c.key), c.key.data());
        for (const ClientSetting& c : clientSettings())
            QVERIFY2(written.count(c.key), c.key.data());
    }

    // The report writes the settings as the file does, times as numbers like its other times.
    void reportWritesTheFileShape()
    {
        const Scenario s = fromFlags(
            QString("--n 3 --algorithms fixed_window --nodes 2 --outage 1:2.5 --join 1@0.5 --clients 2 --jitter equal").split(' '));
        std::ostringstream out;
        writeReport(out, s, ReportFormat::Json, false);
        const std::string input = out.str().substr(0, out.str().find('\n'));
        QVERIFY2(input.find(R"("clients": {"clients": 2, "key": "client", "retry": "none", "retry_delay": 0, "max_retries": 3, )"
                            R"("backoff_base": 0.1, "backoff_cap": 10, "jitter": "equal", "seed": 1})")
                     != std::string::npos,
                 input.c_str());
        QVERIFY2(input.find(R"("cluster": {"nodes": 2, "balancer": "round_robin", "coordination": "shared", "skew": 0, )"
                            R"("outage": {"from": 1, "to": 2.5, "fallback": "open"}, "joins": ["1@0.5"]})")
                     != std::string::npos,
                 input.c_str());
    }

    // A bad value: the same reason from the flag and from the file, each naming the setting its way.
    void sameReason_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("flag");    // the command line's prefix
        QTest::addColumn<QByteArray>("members");
        QTest::addColumn<QString>("path");    // the file's
        QTest::addColumn<QString>("reason");
        const auto row = [](const char* args, const char* flag, const char* members, const char* path, const char* reason) {
            QTest::newRow(args) << QString(args).split(' ') << QString(flag) << QByteArray(members) << QString(path)
                                << QString(reason);
        };
        row("--nodes 65", "--nodes", R"("cluster": {"nodes": 65})", "cluster.nodes", "must be at most 64 (got 65)");
        row("--balancer x", "--balancer", R"("cluster": {"balancer": "x"})", "cluster.balancer",
            "unknown balancer 'x' (known: round_robin, random, hash)");
        row("--coordination magic", "--coordination", R"("cluster": {"coordination": "magic"})", "cluster.coordination",
            "unknown coordination 'magic' (known: local, split, shared, racy, hybrid)");
        row("--coordination racy --latency -0.5", "--latency", R"("cluster": {"coordination": "racy", "latency": "-0.5"})",
            "cluster.latency", "must not be negative (got -0.5)");
        row("--skew abc", "--skew", R"("cluster": {"skew": "abc"})", "cluster.skew", "'abc' is not a number");
        row("--outage 1:x", "--outage", R"("cluster": {"outage": {"from": "1", "to": "x"}})", "cluster.outage.to",
            "'x' is not a number");
        row("--outage 1:2 --fallback maybe", "--fallback",
            R"("cluster": {"outage": {"from": "1", "to": "2", "fallback": "maybe"}})", "cluster.outage.fallback",
            "unknown fallback 'maybe' (known: open, closed, local)");
        row("--nodes 2 --join 1", "--join '1'", R"("cluster": {"nodes": 2, "joins": ["1"]})", "cluster.joins[0]",
            "expected N@T, a node and a time in seconds (got '1')");
        row("--nodes 2 --join 1@-1", "--join '1@-1'", R"("cluster": {"nodes": 2, "joins": ["1@-1"]})", "cluster.joins[0]",
            "must not be negative (got -1)");
        row("--leave 64@1", "--leave '64@1'", R"("cluster": {"leaves": ["64@1"]})", "cluster.leaves[0]",
            "must be at most 63 (got 64)");
        row("--autoscale 0:3", "--autoscale", R"("cluster": {"autoscale": {"min": 0, "max": 3}})", "cluster.autoscale.min",
            "must be at least 1 (got 0)");
        row("--autoscale 1:4 --scale-at 0", "--scale-at",
            R"("cluster": {"nodes": 4, "autoscale": {"min": 1, "max": 4, "scale_at": "0"}})", "cluster.autoscale.scale_at",
            "must be greater than 0 (got 0)");
        row("--clients 0", "--clients", R"("clients": {"clients": 0})", "clients.clients", "must be at least 1 (got 0)");
        row("--key user", "--key", R"("clients": {"key": "user"})", "clients.key", "unknown key 'user' (known: client, global)");
        row("--retry sometimes", "--retry", R"("clients": {"retry": "sometimes"})", "clients.retry",
            "unknown policy 'sometimes' (known: none, immediate, retry_after, retry_after_header, backoff)");
        row("--retry-delay -1", "--retry-delay", R"("clients": {"retry_delay": "-1"})", "clients.retry_delay",
            "must not be negative (got -1)");
        row("--max-retries 500", "--max-retries", R"("clients": {"max_retries": 500})", "clients.max_retries",
            "must be at most 100 (got 500)");
        row("--backoff-base 0", "--backoff-base", R"("clients": {"backoff_base": "0"})", "clients.backoff_base",
            "must be greater than 0 s (got 0)");
        row("--backoff-cap -2", "--backoff-cap", R"("clients": {"backoff_cap": "-2"})", "clients.backoff_cap",
            "must be greater than 0 s (got -2)");
        row("--jitter wild", "--jitter", R"("clients": {"jitter": "wild"})", "clients.jitter",
            "unknown jitter 'wild' (known: full, equal, decorrelated, none)");
        row("--cohort 2:retry_after:max_retries=500", "--cohort '2:retry_after:max_retries=500'",
            R"("clients": {"clients": 2, "cohorts": ["2:retry_after:max_retries=500"]})", "clients.cohorts[0]",
            "max_retries: must be at most 100 (got 500)");
    }

    void sameReason()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, flag);
        QFETCH(QByteArray, members);
        QFETCH(QString, path);
        QFETCH(QString, reason);
        QCOMPARE(flagError(args), flag + ": " + reason);
        const io::LoadResult r = io::parseScenario(file(members));
        QVERIFY(!r.scenario);
        QCOMPARE(r.error, "\"" + path + "\": " + reason);
    }

    // Every setting can be given on the command line: its own option, or half of a pair option.
    void everySettingHasAnOption()
    {
        std::set<std::string_view> paired;
        for (const PairOption& pair : clusterPairOptions())
            paired.insert({pair.first, pair.second});
        for (const ClusterSetting& s : clusterSettings())
            QVERIFY2(!s.flag.empty() || paired.count(s.key), s.key.data());
        for (const ClientSetting& s : clientSettings())
            QVERIFY2(!s.flag.empty(), s.key.data());
    }
};

QTEST_GUILESS_MAIN(TestSettingsCodec)
#include "tst_settings_codec.moc"
