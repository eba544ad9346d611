// The arrivals file's service and priority columns (issue 33; semantics.md, "The server behind
// the limiter"): read exactly, served as each line says (every attempt of a request in its
// line's time), shed by Stripe's shedder by the line's class, refused by name where nothing reads
// them or where they are missing, and carried through scenario files and the CLI.
#include "cli_run.h"
#include "engine/engine.h"
#include "report/report_run.h"
#include "scenario/rows.h"
#include "scenariofile.h"
#include "server/gate.h"
#include "traffic/arrivals.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace ratelab;
using namespace clitest;

namespace {

constexpr Nanos ms = 1'000'000;

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
    s.concurrency = std::move(gates);
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
        QCOMPARE(error("t,priority\n0,1\n"), QString("f:2: priority '1' is not critical or normal"));
        QCOMPARE(error("t,priority\n0,Critical\n"), QString("f:2: priority 'Critical' is not critical or normal"));
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
        QVERIFY2(badLine.err.contains("bad.csv:2: priority 'urgent' is not critical or normal"), badLine.err.constData());
    }
};

QTEST_GUILESS_MAIN(TestRequestColumns)
#include "tst_request_columns.moc"
