// The arrivals file's service and priority columns (semantics.md, "The server behind
// the limiter"): read exactly, served as each line says (every attempt of a request in its
// line's time), shed by Stripe's shedder by the line's class, refused by name where nothing reads
// them or where they are missing, and carried through scenario files and the CLI.
#include "spec_helpers.h"
#include "arithmetic/decimal.h"
#include "cli_run.h"
#include "engine/engine.h"
#include "engine/throttled_arrivals.h"
#include "report/report_run.h"
#include "scenario/rows.h"
#include "scenariofile.h"
#include "server/gate.h"
#include "traffic/arrivals.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>

using namespace ratelab;
using namespace clitest;

namespace {

constexpr Nanos ms = 1'000'000;
constexpr Nanos S = kNanosPerSecond;

QString errorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return "accepted";
}

// fileScenario is a scenario of arrivals text `file` behind `server`, with the rows `gates`
// (no rate algorithm: each row is a gate, or the server alone).
Scenario fileScenario(const char* file, const char* server, std::vector<std::string> gates = {"none"})
{
    Arrivals a = parseArrivalsWithCosts(file, "f");
    Scenario s;
    s.algorithms.clear();
    s.explicitArrivals = a.times;
    s.explicitService = a.services;
    s.explicitCritical = a.critical;
    s.server = ServerConfig::parse(server);
    for (const std::string& g : gates)
        s.concurrency.push_back(GateSpec::parse(g));
    return s;
}

// runs returns row r's run as compare runs it.
RowRun runOf(const Scenario& s, std::size_t r, const RowInputs& in) { return runRow(engineSetup(s, r), in.requests()); }

QString writeFile(const QTemporaryDir& dir, const char* name, const char* text)
{
    const QString path = dir.filePath(name);
    QFile f(path);
    f.open(QIODevice::WriteOnly);
    f.write(text);
    return path;
}

// throttledStarts runs `ratelab compare` on the arrivals `file` with one client behind `throttle`
// (a server of unbounded workers serving each request in its line's time, a limit nothing
// reaches) and returns each request's first attempt's start in ms, "-1" for one its throttle
// dropped; on a refusal, the one line of stderr.
QStringList throttledStarts(const QTemporaryDir& dir, const char* throttle, const char* file, QString extra = {})
{
    QStringList args{"compare", "--arrivals", writeFile(dir, "calls.csv", file), "--clients", "1", "--throttle", throttle,
                     "--server", "workers=inf,service=file,queue=0,queue_timeout=none,timeout=none", "--algorithms",
                     "fixed_window", "--limit", "1000000", "--window", "1", "--format", "csv"};
    if (!extra.isEmpty())
        args << extra.split(' ');
    const Run run = runRatelab(args);
    if (run.code != 0)
        return {QString::number(run.code) + ": " + QString::fromUtf8(run.err).trimmed()};
    const QList<QByteArray> lines = run.out.split('\n');
    const QList<QByteArray> header = lines.value(0).split(',');
    const qsizetype request = header.indexOf("request"), attempt = header.indexOf("attempt"), t = header.indexOf("t");
    QStringList starts;
    for (qsizetype i = 1; i < lines.size(); ++i) {
        const QList<QByteArray> cells = lines[i].split(',');
        if (cells.size() <= std::max({request, attempt, t}) || cells[attempt] != "0")
            continue;
        const qsizetype r = cells[request].toLongLong();
        while (starts.size() <= r)
            starts << "-1";
        starts[r] = QString::number(parseSeconds(cells[t].toStdString()) / ms);
    }
    return starts;
}

} // namespace

class TestRequestColumns : public QObject {
    Q_OBJECT
private slots:
    // Named columns: a duration with its unit or plain seconds, exact, as ns; the class by word.
    void readsServiceAndPriority()
    {
        const Arrivals a = parseArrivalsWithCosts("priority,t,service\ncritical,0,35ms\nnormal,0.5,0.25\nnormal,1,0\n", "f");
        QCOMPARE(a.times, (std::vector<Nanos>{0, 500 * ms, 1000 * ms}));
        QCOMPARE(a.services, (std::vector<Nanos>{35 * ms, 250 * ms, 0}));
        QCOMPARE(a.critical, (std::vector<std::uint8_t>{1, 0, 0}));
        QCOMPARE(parseArrivalsWithCosts("t,cost,client,service,priority\n0,2,1,1.5us,normal\n", "f").services,
                 (std::vector<Nanos>{1500}));
        const Arrivals plain = parseArrivalsWithCosts("0\n1\n", "f"); // no column: empty, as costs
        QVERIFY(plain.services.empty() && plain.critical.empty());
        const auto error = [](const char* text) { return errorOf([&] { parseArrivalsWithCosts(text, "f"); }); };
        QCOMPARE(error("t,service\n0,35ms\n1\n"),
                 QString("f:3: no service time (the header names a service column: every line gives one)"));
        QCOMPARE(error("t,priority\n0\n"), QString("f:2: no priority (the header names a priority column: every line gives one)"));
        QVERIFY(error("t,service\n0,-1ms\n").startsWith("f:2: service '-1ms'"));
        QVERIFY(error("t,service\n0,2h\n").startsWith("f:2: service '2h' must be from 0 s to 3600 s"));
        QVERIFY(error("t,service\n0,5parsecs\n").startsWith("f:2: service '5parsecs': "));
        QVERIFY(error("t,service\n0,0.1ns\n").startsWith("f:2: service '0.1ns': "));
        QCOMPARE(error("t,priority\n0,urgent\n"),
                 QString("f:2: priority 'urgent' is not critical, normal or a number (such as 9, -1 or 2.5)"));
        QCOMPARE(error("t,priority\n0,Critical\n"),
                 QString("f:2: priority 'Critical' is not critical, normal or a number (such as 9, -1 or 2.5)"));
        QVERIFY(error("t,prio\n").startsWith("f:1: unknown column 'prio' in the header (known: t, cost, client, service, priority)"));
        QVERIFY(error("0,1,2,3,4\n").startsWith("f:1: more than three columns")); // only a header names five
        QVERIFY(error("t,service\n0,1ms,2\n").startsWith("f:2: more columns than the header names"));
        QVERIFY(error("t,service,service\n").startsWith("f:1: column 'service' named twice"));
    }

    void serviceFileSpec()
    {
        const ServerConfig c = ServerConfig::parse("workers=1,service=file");
        QCOMPARE(c.options().service.kind, ServiceKind::File);
        QCOMPARE(c.text(), std::string("workers=1,service=file,queue=100,queue_timeout=none,timeout=none"));
        QCOMPARE(ServerConfig::parse(c.text()), c);
        QCOMPARE(errorOf([] { (void)ServerConfig::parse("service=file:1s"); }),
                 QString("service: file takes no time of its own (each request's is its arrivals line's; got 'file:1s')"));
    }

    // One worker, a queue of 10, service=file; lines 0 10ms, 0.005 0, 0.006 25ms:
    //   req 0 at 0:     starts 0, ends 0.010                         in time, latency 10 ms
    //   req 1 at 0.005: queued; the worker frees at 0.010 and takes it: starts 0.010, its
    //                   service 0 ends it at 0.010 (a completion at that same instant)
    //   req 2 at 0.006: queued behind it; the worker frees again at 0.010: starts 0.010,
    //                   ends 0.035                                    in time, latency 29 ms
    void oneWorkerServesEachLinesTime()
    {
        const Scenario s = fileScenario("t,service\n0,10ms\n0.005,0\n0.006,25ms\n", "workers=1,service=file,queue=10");
        const RowInputs in = resolveRowInputs(s);
        QCOMPARE(in.services, (std::vector<Nanos>{10 * ms, 0, 25 * ms}));
        const RowRun r = runOf(s, 0, in);
        QCOMPARE(r.served.size(), std::size_t(3));
        const Nanos arrived[] = {0, 5 * ms, 6 * ms}, start[] = {0, 10 * ms, 10 * ms}, end[] = {10 * ms, 10 * ms, 35 * ms};
        for (int i = 0; i < 3; ++i) {
            QCOMPARE(r.served[i].outcome, Outcome::InTime);
            QCOMPARE(r.served[i].arrived, arrived[i]);
            QCOMPARE(r.served[i].start, start[i]);
            QCOMPARE(r.served[i].end, end[i]);
        }
        QCOMPARE(r.server->maxQueue, 2);
        QCOMPARE(r.server->busyNanos, 35 * ms);
        QCOMPARE(r.server->end, 35 * ms);
        QCOMPARE(r.clients.latency.max, 29 * ms); // 0.035 - 0.006
    }

    // A retry asks for the same work: one worker, the client waits 20 ms and retries at once, once;
    // one line of 30 ms.
    //   try 0 at 0:     serves 0..0.030; its client gives up at 0.020 and retries
    //   try 1 at 0.020: queued; starts 0.030 when try 0 ends (late), ends 0.060 (its client gave
    //                   up at 0.040: late too). Both take the line's 30 ms.
    void everyAttemptTakesTheLinesTime()
    {
        Scenario s = fileScenario("t,service\n0,30ms\n", "workers=1,service=file,queue=10,timeout=20ms");
        ClientOptions o;
        o.clients = 1;
        o.retry = RetryPolicy::Immediate;
        o.maxRetries = 1;
        s.clients = ClientConfig::make(o);
        const RowInputs in = resolveRowInputs(s);
        const RowRun r = runOf(s, 0, in);
        QCOMPARE(r.served.size(), std::size_t(2));
        QCOMPARE(r.log[1].t, 20 * ms);
        QCOMPARE(r.served[0].outcome, Outcome::Late);
        QCOMPARE(r.served[0].end - r.served[0].start, 30 * ms);
        QCOMPARE(r.served[1].outcome, Outcome::Late);
        QCOMPARE(r.served[1].start, 30 * ms);
        QCOMPARE(r.served[1].end, 60 * ms);
        QCOMPARE(r.server->wastedNanos, 60 * ms);
    }

    // Stripe's shedder by the priority column: capacity 2, reserved 0.5, so the non-critical
    // allocation A = floor(0.5 * 2) = 1; every request is served 1 s by unbounded workers.
    //   req 0 normal at 0:    no normal in flight (0 < 1): admitted, ends 1
    //   req 1 normal at 0:    one normal in flight (1 >= 1): rejected
    //   req 2, 3 critical at 0: never shed: admitted
    //   req 4 normal at 0.5:  req 0 still in flight: rejected
    //   req 5 normal at 1:    req 0 completed at 1 (completions first): admitted
    // By client ids instead (critical=1 with one client, id 0), every request would be critical.
    void stripeShedsByThePriorityColumn()
    {
        const Scenario s = fileScenario("t,priority\n0,normal\n0,normal\n0,critical\n0,critical\n0.5,normal\n1,normal\n",
                                        "workers=inf,service=const:1s", {"stripe:capacity=2,reserved=0.5,priority=file"});
        const RowInputs in = resolveRowInputs(s);
        QCOMPARE(in.critical, (std::vector<std::uint8_t>{0, 0, 1, 1, 0, 0}));
        const RowRun r = runOf(s, 0, in);
        const Outcome want[] = {Outcome::InTime, Outcome::Rejected, Outcome::InTime,
                                Outcome::InTime, Outcome::Rejected, Outcome::InTime};
        for (int i = 0; i < 6; ++i)
            QCOMPARE(r.served[i].outcome, want[i]);
        QCOMPARE(r.server->rejected, 2);
        QCOMPARE(r.served[5].end, 2000 * ms);
    }

    void refusals()
    {
        const auto refused = [](const Scenario& s) { return errorOf([&] { (void)resolveRowInputs(s); }); };
        // A service column nothing reads, and service=file without one.
        QCOMPARE(refused(fileScenario("t,service\n0,1ms\n", "workers=1,service=exp:50ms")),
                 QString("the arrivals file has a service column; use --server service=file (or leave the column out)"));
        Scenario noServer = fileScenario("t,service\n0,1ms\n", "workers=1");
        noServer.server.reset();
        noServer.concurrency.clear();
        noServer.algorithms = {Algorithm::TokenBucket};
        QCOMPARE(refused(noServer), QString("the arrivals file has a service column; use --server service=file (or leave the column out)"));
        QCOMPARE(refused(fileScenario("t\n0\n", "workers=1,service=file")),
                 QString("--server service=file: the arrivals have no service column (name it in a header line, such as t,service)"));
        Scenario pattern = fileScenario("t\n0\n", "workers=1,service=file");
        pattern.explicitArrivals.reset();
        QVERIFY(refused(pattern).startsWith("--server service=file: the arrivals have no service column"));
        Scenario added = fileScenario("t,service\n0,1ms\n", "workers=1,service=file");
        added.addedArrivals = {5 * ms};
        QCOMPARE(refused(added), QString("--server service=file: 1 request(s) added by hand have no arrivals line, so no service time"));
        // A priority column nothing reads, and priority=file without one.
        QVERIFY(refused(fileScenario("t,priority\n0,normal\n", "workers=1", {"stripe:capacity=2,critical=1"}))
                    .startsWith("the arrivals file has a priority column; shed by it with a stripe row of priority=file"));
        QCOMPARE(refused(fileScenario("t\n0\n", "workers=1", {"stripe:capacity=2,priority=file"})),
                 QString("stripe: priority=file: the arrivals have no priority column (name it in a header line, such as t,priority)"));
        QCOMPARE(errorOf([] { (void)makeGate("stripe:capacity=2,priority=file,critical=1", 1); }),
                 QString("stripe: priority: with priority=file the arrivals' priority column says which requests are "
                         "critical; leave out critical, critical_share and clients"));
        QCOMPARE(errorOf([] { (void)makeGate("stripe:capacity=2,priority=line", 1); }),
                 QString("stripe: priority: unknown value 'line' (known: clients, file)"));
        // The engine itself refuses service=file without the column (a caller that skips the scenario).
        EngineSetup setup;
        setup.server = ServerConfig::parse("service=file");
        const std::vector<Nanos> one{0};
        QCOMPARE(errorOf([&] { (void)runRow(setup, {one, {}, {}}); }),
                 QString("service=file: the arrivals have no service column (a header line naming t,service)"));
    }

    // A priority column of numbers: any finite number, one kind in a column.
    void readsThrottlePriorities()
    {
        const Arrivals a = parseArrivalsWithCosts("t,priority\n0,9\n0.1,-1\n0.2,2.5\n0.3,1e3\n0.4,4294967296\n", "f");
        QCOMPARE(a.priorities, (std::vector<double>{9, -1, 2.5, 1000, 4294967296.0}));
        QVERIFY(a.critical.empty());
        QVERIFY(parseArrivalsWithCosts("t,priority\n0,normal\n", "f").priorities.empty());
        const auto error = [](const char* text) { return errorOf([&] { parseArrivalsWithCosts(text, "f"); }); };
        QCOMPARE(error("t,priority\n0,critical\n0.1,3\n"),
                 QString("f:3: priority '3' is a number but line 2 gave a word: the column holds words (critical, normal) "
                         "for a stripe row's priority=file or numbers for a client throttle, not both"));
        QCOMPARE(error("t,priority\n0,3\n0.1,normal\n"),
                 QString("f:3: priority 'normal' is a word but line 2 gave a number: the column holds words (critical, "
                         "normal) for a stripe row's priority=file or numbers for a client throttle, not both"));
        for (const char* bad : {"t,priority\n0,inf\n", "t,priority\n0,nan\n", "t,priority\n0,1e999\n",
                                "t,priority\n0,0x10\n", "t,priority\n0,3 high\n"})
            QVERIFY2(error(bad).contains("is not critical, normal or a number"), bad);
    }

    // The column reaches the throttle through compare, and overrides the spec's priority=.
    // Bottleneck, one at a time, high water 1, OVERFLOW_PRIORITY (lib/Bottleneck.js:394,
    // lib/Queues.js:67, lib/LocalDatastore.js:252): call 0 at 0 starts and runs 1 s; call 1 at
    // 0.1 (priority 9) finds 0 queued, below the high water, and queues; call 2 at 0.2 (priority
    // 1) finds 1 queued and no room, the high water: shiftLastFrom(1 + 1) takes the least
    // urgent non-empty list of 2..9, list 9, and drops call 1; call 2 starts at 1 s when call 0
    // is done. With every call at the key's priority (5, or 1 here) shiftLastFrom(6) (or 2)
    // finds nothing below and call 2 itself is dropped, call 1 starting at 1 s.
    void throttleTakesTheColumn()
    {
        QTemporaryDir dir;
        const char* overflowPriority = "bottleneck:max_concurrent=1,high_water=1,strategy=overflow_priority";
        const char* calls = "t,service,priority\n0,1s,5\n0.1,0,9\n0.2,0,1\n";
        QCOMPARE(throttledStarts(dir, overflowPriority, calls), (QStringList{"0", "-1", "1000"}));
        QCOMPARE(throttledStarts(dir, "bottleneck:max_concurrent=1,high_water=1,strategy=overflow_priority,priority=1", calls),
                 (QStringList{"0", "-1", "1000"}));
        QCOMPARE(throttledStarts(dir, overflowPriority, "t,service\n0,1s\n0.1,0\n0.2,0\n"), (QStringList{"0", "1000"}));
        QCOMPARE(throttledStarts(dir, "bottleneck:max_concurrent=1,high_water=1,strategy=overflow_priority,priority=1",
                                 "t,service\n0,1s\n0.1,0\n0.2,0\n"),
                 (QStringList{"0", "1000"}));
        // Bottleneck's own sanitising of a call's priority (lib/Job.js:34-45): 2.5 and 2^32 are
        // 5, 12 is 9, -3 is 0. One at a time, all at 0, 1 s each: call 0 starts; then 0 first
        // (call 4), the 5s in order (1, 2), 9 last (call 3).
        QCOMPARE(throttledStarts(dir, "bottleneck:max_concurrent=1",
                                 "t,service,priority\n0,1s,9\n0,1s,2.5\n0,1s,4294967296\n0,1s,12\n0,1s,-3\n"),
                 (QStringList{"0", "2000", "3000", "4000", "1000"}));
        // p-queue, one at a time, 1 s each (dist/priority-queue.js:42-67): larger first, any
        // number, FIFO among equal ones (a call goes after every one of at least its priority).
        // Call 0 starts at 0; by 1 s the queue holds 1 (1), 2 (3), 3 (2.5), 4 (-1), 5 (3): 2, 5,
        // 3, 1, 4 start at 1, 2, 3, 4, 5 s. Without the column, in arrival order.
        QCOMPARE(throttledStarts(dir, "p-queue:concurrency=1,priority=7",
                                 "t,service,priority\n0,1s,0\n0.1,1s,1\n0.2,1s,3\n0.3,1s,2.5\n0.4,1s,-1\n0.5,1s,3\n"),
                 (QStringList{"0", "4000", "1000", "3000", "5000", "2000"}));
        QCOMPARE(throttledStarts(dir, "p-queue:concurrency=1",
                                 "t,service\n0,1s\n0.1,1s\n0.2,1s\n0.3,1s\n0.4,1s\n0.5,1s\n"),
                 (QStringList{"0", "1000", "2000", "3000", "4000", "5000"}));
    }

    // A request added by hand has no line: its client's throttle gives it the spec's priority.
    void addedRequestTakesTheKey()
    {
        Scenario s;
        s.explicitArrivals = std::vector<Nanos>{0, 200 * ms};
        s.explicitPriority = {9, 1};
        s.addedArrivals = {100 * ms};
        s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1");
        const std::vector<double> p = resolvePriorities(s);
        QCOMPARE(p.size(), std::size_t(3));
        QCOMPARE(p[0], 9.0);
        QVERIFY(std::isnan(p[1]));
        QCOMPARE(p[2], 1.0);
        const std::vector<Nanos> starts = simulateThrottle("bottleneck:max_concurrent=1,priority=0", {0, 0, 0}, {S, S, S}, p);
        QCOMPARE(starts, (std::vector<Nanos>{0, S, 2 * S})); // the added one at the key's 0, before 1
    }

    // Each kind of the column where its reader is not: exit 2, one line.
    void priorityKindRefusals()
    {
        QTemporaryDir dir;
        const QString numbers = writeFile(dir, "numbers.csv", "t,priority\n0,9\n");
        const QString words = writeFile(dir, "words.csv", "t,priority\n0,critical\n");
        const auto refusal = [](const QStringList& args) {
            const Run run = runRatelab(args);
            return run.code == 2 && run.out.isEmpty() && run.err.count('\n') == 1 ? QString::fromUtf8(run.err)
                                                                                  : "exit " + QString::number(run.code);
        };
        QCOMPARE(refusal({"compare", "--arrivals", numbers, "--algorithms", "token_bucket"}),
                 QString("ratelab: the arrivals file's priority column holds numbers, which only a client throttle reads "
                         "(--throttle bottleneck:... or p-queue:...); write critical or normal for a stripe row's "
                         "priority=file, or leave the column out\n"));
        QCOMPARE(refusal({"compare", "--arrivals", numbers, "--algorithms", "token_bucket", "--server", "workers=1",
                          "--concurrency", "stripe:capacity=2,priority=file"}),
                 QString("ratelab: stripe: priority=file reads critical or normal from the priority column, and it holds "
                         "numbers (a client throttle's priorities)\n"));
        QCOMPARE(refusal({"compare", "--arrivals", words, "--algorithms", "token_bucket", "--throttle", "p-queue:concurrency=1"}),
                 QString("ratelab: --throttle: the arrivals file's priority column holds critical or normal, and a client "
                         "throttle takes a number per request (such as 9 or -1); the words are for a stripe row's "
                         "priority=file without a throttle\n"));
        QCOMPARE(refusal({"compare", "--arrivals", words, "--algorithms", "token_bucket", "--throttle", "p-queue:concurrency=1",
                          "--server", "workers=1", "--concurrency", "stripe:capacity=2,priority=file"}),
                 QString("ratelab: --throttle: the arrivals file's priority column holds critical or normal, and a client "
                         "throttle takes a number per request (such as 9 or -1); the words are for a stripe row's "
                         "priority=file without a throttle\n"));
        // The shedder still reads its words without a throttle.
        QCOMPARE(runRatelab({"compare", "--arrivals", words, "--algorithms", "token_bucket", "--server", "workers=1",
                             "--concurrency", "stripe:capacity=2,priority=file"}).code,
                 0);
    }

    // A scenario file keeps a column of numbers as JSON numbers, reads it back equal, runs it as
    // compare --arrivals does, and refuses a mixed one.
    void scenarioFilePriorities()
    {
        Scenario s;
        s.algorithms = {Algorithm::FixedWindow};
        s.config = LimiterConfig::make(1000000, S);
        s.explicitArrivals = std::vector<Nanos>{0, 100 * ms, 200 * ms};
        s.explicitService = {S, 0, 0};
        s.explicitPriority = {5, 9, 1};
        s.server = ServerConfig::parse("workers=inf,service=file,queue=0,queue_timeout=none,timeout=none");
        s.clients = ClientConfig::make(ClientOptions{});
        s.throttle = ClientThrottleSpec::parse("bottleneck:max_concurrent=1,high_water=1,strategy=overflow_priority");
        const QByteArray text = io::serializeScenario(s);
        QVERIFY2(text.contains("\"priority_of\": [\n    5, 9, 1\n  ]"), text.constData());
        const io::LoadResult read = io::parseScenario(text);
        QVERIFY2(read.scenario, qPrintable(read.error));
        QCOMPARE(read.scenario->explicitPriority, s.explicitPriority);
        QVERIFY(read.scenario->explicitCritical.empty());
        Scenario odd = s;
        odd.explicitPriority = {0.1, -2.5e-7, 1e300};
        const io::LoadResult oddBack = io::parseScenario(io::serializeScenario(odd));
        QVERIFY2(oddBack.scenario, qPrintable(oddBack.error));
        QCOMPARE(oddBack.scenario->explicitPriority, odd.explicitPriority);
        QTemporaryDir dir;
        const QString path = dir.filePath("s.ratelab.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text);
        f.close();
        const Run run = runRatelab({"compare", "--scenario", path, "--format", "csv"});
        QCOMPARE(run.code, 0);
        const QList<QByteArray> lines = run.out.split('\n');
        const qsizetype request = lines.value(0).split(',').indexOf("request");
        QVERIFY(request >= 0);
        QStringList requests;
        for (qsizetype i = 1; i < lines.size(); ++i)
            if (!lines[i].isEmpty())
                requests << lines[i].split(',').value(request);
        QCOMPARE(requests, (QStringList{"0", "2"})); // call 1 (priority 9) dropped, as above
        QByteArray mixed = text;
        mixed.replace("5, 9, 1", "5, \"critical\", 1");
        QVERIFY(io::parseScenario(mixed).error.contains("\"priority_of[1]\" must be a number, as \"priority_of[0]\" is"));
        mixed = text;
        mixed.replace("5, 9, 1", "\"normal\", 9, \"critical\"");
        QVERIFY(io::parseScenario(mixed).error.contains("\"priority_of[1]\" must be \"critical\" or \"normal\", as \"priority_of[0]\" is"));
    }

    // A scenario file keeps both columns, and reads back equal.
    void scenarioFileRoundTrip()
    {
        Scenario s = fileScenario("t,service,priority\n0,35ms,critical\n0.5,1.25,normal\n", "workers=2,service=file",
                                  {"stripe:capacity=2,priority=file"});
        s.algorithms = {Algorithm::TokenBucket}; // a scenario file names at least one
        const QByteArray text = io::serializeScenario(s);
        QVERIFY2(text.contains("\"service_of\": [\n    \"0.035\", \"1.25\"\n  ]"), text.constData());
        QVERIFY2(text.contains("\"priority_of\": [\n    \"critical\", \"normal\"\n  ]"), text.constData());
        const io::LoadResult read = io::parseScenario(text);
        QVERIFY2(read.scenario, qPrintable(read.error));
        const Scenario back = *read.scenario;
        QCOMPARE(back.explicitService, s.explicitService);
        QCOMPARE(back.explicitCritical, s.explicitCritical);
        QVERIFY(back.server == s.server);
        QCOMPARE(back.concurrency, s.concurrency);
    }

    // The CLI: compare serves by the file; a refusal is exit 2, one line on stderr, nothing on stdout.
    void cli()
    {
        QTemporaryDir dir;
        const QString served = writeFile(dir, "served.csv", "t,service\n0,10ms\n0.005,0\n0.006,25ms\n");
        const Run ok = runRatelab({"compare", "--arrivals", served, "--algorithms", "token_bucket", "--limit", "10",
                                   "--server", "workers=1,service=file,queue=10", "--format", "csv"});
        QCOMPARE(ok.code, 0);
        QVERIFY2(ok.out.contains(",in_time,"), ok.out.constData());
        const Run plain = runRatelab({"compare", "--arrivals", served, "--algorithms", "token_bucket"});
        QCOMPARE(plain.code, 2);
        QVERIFY(plain.out.isEmpty());
        QCOMPARE(plain.err, QByteArray("ratelab: the arrivals file has a service column; use --server service=file "
                                       "(or leave the column out)\n"));
        const Run noColumn = runRatelab({"compare", "--arrivals", writeFile(dir, "t.csv", "t\n0\n"), "--algorithms",
                                         "token_bucket", "--server", "service=file"});
        QCOMPARE(noColumn.code, 2);
        QVERIFY(noColumn.out.isEmpty());
        QCOMPARE(noColumn.err.count('\n'), 1);
        QVERIFY2(noColumn.err.contains("service=file: the arrivals have no service column"), noColumn.err.constData());
        const Run badLine = runRatelab({"compare", "--arrivals", writeFile(dir, "bad.csv", "t,priority\n0,urgent\n"),
                                        "--algorithms", "token_bucket"});
        QCOMPARE(badLine.code, 2);
        QVERIFY2(badLine.err.contains("bad.csv:2: priority 'urgent' is not critical, normal or a number"),
                 badLine.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestRequestColumns)
#include "tst_request_columns.moc"
