// The app's parts of what production adds: the Cluster, Clients and Layered
// policy groups, nginx's options, the headers in hover, and the At scale panel. Each expected
// figure is derived by hand from semantics.md in the comment above it.
#include "panels/atscalepanel.h"
#include "chart/chartstack.h"
#include "engine/clients.h"
#include "panels/controlpanel.h"
#include "presets.h"
#include "panels/errorbanner.h"
#include "window/documentactions.h"
#include "arithmetic/decimal.h"
#include "chart/dashboard.h"
#include "panels/explainpanel.h"
#include "window/mainwindow.h"
#include "panels/productiongroups.h"
#include "chart/rowchart.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"
#include "chart/summarytable.h"
#include "chart/timelinestrip.h"
#include "window_test.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QLineEdit>
#include <QLocale>
#include <QTimer>
#include <QMenu>
#include <QInputDialog>
#include <QMessageBox>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <QUndoStack>

using namespace ratelab;
using namespace ratelab::ui;

class TestProductionUi : public WindowTest {
    Q_OBJECT

    const AlgorithmTrace& result(Algorithm a) const
    {
        for (const AlgorithmTrace& r : frame().trace->results)
            if (r.algorithm == a && r.title.empty())
                return r;
        qFatal("no row for algorithm %d", int(a));
    }
    // openCluster opens `count` requests `delay` apart on a cluster made of o.
    void openCluster(const ClusterConfig::Options& o, std::int64_t count, Nanos delay)
    {
        Scenario s;
        s.pattern.count = count;
        s.pattern.delayNanos = delay;
        s.cluster = ClusterConfig::make(o);
        m_window->openScenario(s);
        settle();
    }

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s, C 10, 1/s
    void cleanup() { m_window.reset(); }

    void hoverShowsTheResponseAsAServerSendsIt()
    {
        // Request 11 at 1.0 s takes the one refilled token: 200, nothing remaining. Request 12 at
        // 1.1 s is denied with retry_after 0.9 s: 429 and Retry-After: 1 (whole seconds, up).
        RowChart* token = rowOf(Algorithm::TokenBucket);
        const QString admitted = token->hoverText(10);
        QVERIFY2(admitted.contains("HTTP/1.1 200 OK\nX-RateLimit-Limit: 10\nX-RateLimit-Remaining: 0"), qPrintable(admitted));
        const QString denied = token->hoverText(11);
        QVERIFY2(denied.contains("HTTP/1.1 429 Too Many Requests"), qPrintable(denied));
        QVERIFY2(denied.contains("\nRetry-After: 1\n"), qPrintable(denied));
        // What happened shows the same response under each row's line.
        m_window->explanation()->parentWidget()->show();
        m_window->explanation()->pin(11);
        QVERIFY(m_window->explanation()->text().contains("HTTP/1.1 429 Too Many Requests"));
    }

    void tickingClusterRunsTwoServers()
    {
        // Two nodes, round robin, each its own limiter of 10 per 10 s: node 0 takes the 8 even
        // requests, node 1 the 7 odd ones; neither reaches 10, so all 15 pass (one server: 10).
        QCOMPARE(result(Algorithm::FixedWindow).metrics.allowed, 10);
        ClusterGroup* cluster = m_window->controls()->cluster();
        cluster->setChecked(true);
        settle();
        QVERIFY(m_window->document()->scenario().cluster);
        const AlgorithmTrace& fixed = result(Algorithm::FixedWindow);
        QCOMPARE(fixed.metrics.allowed, 15);
        QCOMPARE(fixed.perNodeAllowed, (std::vector<std::int64_t>{8, 7}));
        QCOMPARE(fixed.metrics.maxInWindow, 15);
        SummaryTable* summary = m_window->dashboard()->summary();
        QVERIFY(!summary->isColumnHidden(10)); // per node
        QCOMPARE(summary->item(0, 10)->text(), QString("8 / 7"));
        // What happened names the node: request 12 (index 11) went to node 2, its 6th, admitted.
        m_window->explanation()->parentWidget()->show();
        m_window->explanation()->pin(11);
        const QString why = m_window->explanation()->text();
        QVERIFY2(why.contains("t = 1.100 s: Fixed window: node 2 of 2 -> admitted, 4 left"), qPrintable(why));
        // Store: shared is the one server again; Undo twice is no cluster at all.
        cluster->coordination()->setCurrentIndex(int(Coordination::Shared));
        settle();
        QCOMPARE(result(Algorithm::FixedWindow).metrics.allowed, 10);
        m_window->document()->undoStack()->undo();
        m_window->document()->undoStack()->undo();
        settle();
        QVERIFY(!m_window->document()->scenario().cluster);
        QVERIFY(!cluster->isChecked());
        QVERIFY(summary->isColumnHidden(10));
    }

    // An edit in the cluster group keeps what the group does not show: the outage, its fallback
    // and the joins a file gave the scenario.
    void editingTheClusterKeepsItsEvents()
    {
        ClusterConfig::Options o;
        o.nodes = 3;
        o.coordination = Coordination::Shared;
        o.outageFromNanos = kNanosPerSecond;
        o.outageToNanos = 2 * kNanosPerSecond;
        o.fallback = Fallback::Local;
        o.joins = {{2, kNanosPerSecond / 2}};
        Scenario s;
        s.cluster = ClusterConfig::make(o);
        m_window->openScenario(s);
        settle();
        ClusterGroup* cluster = m_window->controls()->cluster();
        cluster->coordination()->setCurrentIndex(int(Coordination::Racy));
        settle();
        const ClusterConfig& now = *m_window->document()->scenario().cluster;
        QCOMPARE(now.coordination(), Coordination::Racy);
        QCOMPARE(now.options().outageFromNanos, kNanosPerSecond);
        QCOMPARE(now.options().outageToNanos, 2 * kNanosPerSecond);
        QCOMPARE(now.options().fallback, Fallback::Local);
        QCOMPARE(now.options().joins.size(), std::size_t(1));
        QCOMPARE(now.options().joins.front().at, kNanosPerSecond / 2);
    }

    // The store goes down from 0.5 s to 1 s (typed), two servers on one shared store, fixed
    // window 10 per 10 s over 15 requests 0.1 s apart. Fail open admits the five inside
    // (0.5 .. 0.9 s) without counting them, so the ten outside fit the limit: all 15 pass (10
    // without the outage). Fail closed denies those five until 1 s (retry_after 1 - t) and the
    // ten outside pass: 10.
    void theStoreGoesDownAndTheServersFallBack()
    {
        ClusterGroup* cluster = m_window->controls()->cluster();
        cluster->setChecked(true);
        settle();
        QVERIFY(cluster->outage()->isHidden()); // local: no store to lose
        cluster->coordination()->setCurrentIndex(int(Coordination::Shared));
        settle();
        QVERIFY(!cluster->outage()->isHidden());
        QVERIFY(cluster->outageFrom()->isHidden());
        cluster->outage()->setChecked(true);
        settle();
        const auto options = [&] { return m_window->document()->scenario().cluster->options(); };
        // The middle third of the traffic (the last request at 1.4 s).
        QCOMPARE(options().outageFromNanos, Nanos(466'666'666));
        QCOMPARE(options().outageToNanos, Nanos(933'333'332));
        QVERIFY(!cluster->outageFrom()->isHidden());
        cluster->outageFrom()->type("0.5");
        cluster->outageTo()->type("1");
        settle();
        QCOMPARE(options().outageFromNanos, kNanosPerSecond / 2);
        QCOMPARE(options().outageToNanos, kNanosPerSecond);
        QCOMPARE(options().fallback, Fallback::Open);
        QCOMPARE(result(Algorithm::FixedWindow).metrics.allowed, 15);
        cluster->fallback()->setCurrentIndex(int(Fallback::Closed));
        settle();
        QCOMPARE(options().fallback, Fallback::Closed);
        const AlgorithmTrace& fixed = result(Algorithm::FixedWindow);
        QCOMPARE(fixed.metrics.allowed, 10);
        QVERIFY(fixed.log); // a cluster's row: the engine's log, read in place
        QVERIFY(!fixed.log->at(5).allowed);
        QCOMPARE(fixed.log->at(5).decision().retryAfter, kNanosPerSecond / 2); // at 0.5 s, back at 1 s
        QVERIFY(fixed.log->at(10).allowed);
        // A start after the end is refused with the reason, and changes nothing.
        cluster->outageFrom()->type("1.2");
        QVERIFY2(cluster->outageFrom()->problem().contains("an outage runs from a time to a later one"),
                 qPrintable(cluster->outageFrom()->problem()));
        QCOMPARE(options().outageFromNanos, kNanosPerSecond / 2);
        // Undo: open again, then the typed times undone one by one.
        m_window->document()->undoStack()->undo();
        settle();
        QCOMPARE(options().fallback, Fallback::Open);
        QCOMPARE(cluster->fallback()->currentIndex(), int(Fallback::Open));
        cluster->outage()->setChecked(false);
        settle();
        QVERIFY(!m_window->document()->scenario().cluster->hasOutage());
        QVERIFY(cluster->outageFrom()->isHidden());
        QCOMPARE(result(Algorithm::FixedWindow).metrics.allowed, 10);
    }

    // An autoscaler's steps show on the timeline, read from the run: 120 requests 0.1 s apart
    // are 10 attempts in each second; with Scale at 4 the second after holds ceil(10 / 4) = 3
    // nodes (of 1 to 4), from 1 s on, and every later second keeps 3. Every row scaled alike, so
    // the strip names none.
    void theTimelineShowsTheAutoscaler()
    {
        ClusterConfig::Options o;
        o.coordination = Coordination::Local;
        o.nodes = 4;
        o.autoscaleMin = 1;
        o.autoscaleMax = 4;
        o.scaleAt = Rate{4, kNanosPerSecond}; // attempts a second one node takes
        openCluster(o, 120, kNanosPerSecond / 10);
        TimelineStrip* strip = charts()->timeline();
        QVERIFY(strip->events().empty());
        QVERIFY(strip->isVisible());
        QCOMPARE(strip->scaling(), (std::vector<std::pair<Nanos, int>>{{0, 1}, {kNanosPerSecond, 3}}));
        m_window->controls()->algorithmBox(Algorithm::FixedWindow)->setChecked(false); // any row: the same load
        settle();
        QCOMPARE(strip->scaling(), (std::vector<std::pair<Nanos, int>>{{0, 1}, {kNanosPerSecond, 3}}));
        m_window->openScenario(Scenario{}); // no autoscaler: the strip goes
        settle();
        QVERIFY(strip->scaling().empty());
        QVERIFY(!strip->isVisible());
    }

    // The timeline strip shows the cluster's events above the rows; dragging one moves it in
    // the document (one undo step); a drag the cluster cannot take is refused, with the reason.
    void theTimelineMovesAnEventByDrag()
    {
        ClusterConfig::Options o;
        o.nodes = 3;
        o.coordination = Coordination::Shared;
        o.outageFromNanos = 5 * kNanosPerSecond;
        o.outageToNanos = 10 * kNanosPerSecond;
        o.joins = {{2, 2 * kNanosPerSecond}};
        openCluster(o, 60, kNanosPerSecond / 4);
        TimelineStrip* strip = charts()->timeline();
        QVERIFY(strip->isVisible());
        QCOMPARE(strip->events(), (std::vector<FleetEvent>{{FleetEvent::Kind::Join, 2, 2 * kNanosPerSecond},
                                                           {FleetEvent::Kind::StoreDown, 0, 5 * kNanosPerSecond},
                                                           {FleetEvent::Kind::StoreBack, 0, 10 * kNanosPerSecond}}));
        const auto options = [&] { return m_window->document()->scenario().cluster->options(); };
        const int y = strip->height() / 2;
        const auto drag = [&](Nanos from, double toX) {
            QTest::mousePress(strip, Qt::LeftButton, {}, QPoint(int(std::lround(strip->xOf(from))), y));
            QTest::mouseMove(strip, QPoint(int(std::lround(toX)), y));
            QTest::mouseRelease(strip, Qt::LeftButton, {}, QPoint(int(std::lround(toX)), y));
            settle();
        };
        // The store goes down at 3 s instead of 5 s (to the pixel, at a round time).
        const double to = std::lround(strip->xOf(3 * kNanosPerSecond));
        drag(5 * kNanosPerSecond, to);
        QCOMPARE(options().outageFromNanos, strip->timeAt(to));
        QVERIFY(std::abs(options().outageFromNanos - 3 * kNanosPerSecond) < kNanosPerSecond / 10);
        QCOMPARE(options().outageToNanos, 10 * kNanosPerSecond);
        QCOMPARE(m_window->document()->undoStack()->undoText(), QString("Move event"));
        m_window->document()->undoStack()->undo();
        settle();
        QCOMPARE(options().outageFromNanos, 5 * kNanosPerSecond);
        // Back before down: refused with the reason, nothing moved.
        drag(10 * kNanosPerSecond, strip->xOf(4 * kNanosPerSecond));
        QCOMPARE(options().outageToNanos, 10 * kNanosPerSecond);
        QVERIFY2(m_window->banner()->text().contains("the store must come back after it goes down"),
                 qPrintable(m_window->banner()->text()));
        // Node 3 joins at 1 s instead.
        const double joinTo = std::lround(strip->xOf(kNanosPerSecond));
        drag(2 * kNanosPerSecond, joinTo);
        QCOMPARE(options().joins.front().at, strip->timeAt(joinTo));
        // Without a cluster there is nothing to show.
        m_window->controls()->cluster()->setChecked(false);
        settle();
        QVERIFY(!strip->isVisible());
    }

    // A limit change shows on the timeline without a cluster, named by what it changes, and
    // moves by drag like the cluster's events.
    void aLimitChangeOnTheTimeline()
    {
        Scenario s;
        s.pattern.count = 40;
        s.pattern.delayNanos = kNanosPerSecond / 4;
        s.changes = {parseLimitChange("5:limit=20")};
        m_window->openScenario(s);
        settle();
        TimelineStrip* strip = charts()->timeline();
        QVERIFY(strip->isVisible());
        // The dashed ceiling steps at the change: the fixed window's limit 10 to 20, the token
        // bucket's capacity with it (it follows the limit); GCRA's largest backlog C / r is 10 / 1
        // = 10 s before and 20 / 2 = 10 s after, so its line stays.
        const auto steps = [&](Algorithm a) { // (level, from) after the first: the change's
            std::vector<std::pair<double, double>> levels;
            for (const auto& [t, v] : rowOf(a)->ceilingSteps())
                levels.emplace_back(v, levels.empty() ? 0.0 : t);
            return levels;
        };
        using Steps = std::vector<std::pair<double, double>>;
        QCOMPARE(steps(Algorithm::FixedWindow), (Steps{{10, 0}, {20, 5}}));
        QCOMPARE(steps(Algorithm::TokenBucket), (Steps{{10, 0}, {20, 5}}));
        QCOMPARE(steps(Algorithm::Gcra), (Steps{{10, 0}, {10, 5}}));
        QCOMPARE(strip->events(), (std::vector<FleetEvent>{{FleetEvent::Kind::LimitChange, 0, 5 * kNanosPerSecond}}));
        const int y = strip->height() / 2;
        const double to = std::lround(strip->xOf(2 * kNanosPerSecond));
        QTest::mousePress(strip, Qt::LeftButton, {}, QPoint(int(std::lround(strip->xOf(5 * kNanosPerSecond))), y));
        QTest::mouseMove(strip, QPoint(int(to), y));
        QTest::mouseRelease(strip, Qt::LeftButton, {}, QPoint(int(to), y));
        settle();
        QCOMPARE(m_window->document()->scenario().changes.front().at, strip->timeAt(to));
        // Limit 10 per 10 s; 40 requests 0.25 s apart all in [0 s, 10 s): the first 10 (to 2.25 s)
        // fill the old limit, and from about 2 s on the new one admits 10 more (to 4.75 s).
        QCOMPARE(result(Algorithm::FixedWindow).metrics.allowed, 20);
    }

    // Cohorts typed in the Clients group, one limit for all: 2 clients honouring retry_after and 1
    // that never retries make 3 clients; the one policy's fields fold away; a typo is refused with the
    // reason in the banner; Undo brings back the single policy.
    void cohortsAreTyped()
    {
        ClientsGroup* clients = m_window->controls()->clients();
        clients->setChecked(true);
        settle();
        m_window->document()->change("Key", [](Scenario& s) { // one limit for all
            ClientOptions o = s.clients->options();
            o.key = KeyMode::Global;
            s.clients = ClientConfig::make(o);
        });
        clients->cohorts()->setText("2:retry_after; 1:none");
        emit clients->cohorts()->editingFinished();
        settle();
        const ClientOptions o = m_window->document()->scenario().clients->options();
        QCOMPARE(o.clients, std::int64_t(3));
        QCOMPARE(o.cohorts.size(), std::size_t(2));
        QCOMPARE(o.cohorts[1].retry, RetryPolicy::None);
        QVERIFY(clients->retry()->isHidden());
        QCOMPARE(clients->cohorts()->text(), QString("2:retry_after; 1:none"));
        // Requests i go to client i mod 3: client 2 (requests 3k + 2) never retries; the fixed
        // window's denied requests 11..15 (indices 10..14) of clients 1, 2, 0, 1, 2: the two of
        // client 2 give up, the three others retry at the boundary and pass.
        const ClientStats& c = *result(Algorithm::FixedWindow).clients;
        QCOMPARE(c.gaveUp, std::int64_t(2));
        QCOMPARE(c.attempts, std::int64_t(18));
        clients->cohorts()->setText("2:retry_after; 1:nonsense");
        emit clients->cohorts()->editingFinished();
        settle();
        QVERIFY2(m_window->banner()->text().contains("unknown retry policy 'nonsense'"), qPrintable(m_window->banner()->text()));
        QCOMPARE(m_window->document()->scenario().clients->options().cohorts.size(), std::size_t(2));
        m_window->document()->undoStack()->undo(); // the cohorts, then the key
        settle();
        QVERIFY(m_window->document()->scenario().clients->options().cohorts.empty());
        QVERIFY(!clients->retry()->isHidden());
    }

    // Autoscaling in the Cluster group: 3 local nodes, from 1, at 5 attempts a second each. The
    // default 15 requests 0.1 s apart put 10 in second 0 (node 0 alone), so 2 nodes are up from
    // 1 s: round robin sends 1.0 .. 1.4 s (attempts 10 .. 14) to nodes 0, 1, 0, 1, 0.
    void autoscalingInTheApp()
    {
        ClusterGroup* cluster = m_window->controls()->cluster();
        cluster->setChecked(true);
        settle();
        cluster->nodes()->type("3");
        QVERIFY(cluster->minNodes()->isHidden());
        cluster->autoscale()->setChecked(true);
        settle();
        QVERIFY(!cluster->minNodes()->isHidden());
        cluster->scaleAt()->type("5");
        settle();
        const ClusterConfig::Options o = m_window->document()->scenario().cluster->options();
        QCOMPARE(o.autoscaleMin, 1);
        QCOMPARE(o.autoscaleMax, 3);
        QCOMPARE(o.scaleAt, Rate::reduced(5, kNanosPerSecond));
        const AlgorithmTrace& fixed = result(Algorithm::FixedWindow);
        QCOMPARE(std::vector<std::uint8_t>(fixed.nodes.begin(), fixed.nodes.begin() + 10), std::vector<std::uint8_t>(10, 0));
        QCOMPARE(std::vector<std::uint8_t>(fixed.nodes.begin() + 10, fixed.nodes.end()),
                 (std::vector<std::uint8_t>{0, 1, 0, 1, 0}));
        cluster->autoscale()->setChecked(false);
        settle();
        QVERIFY(!m_window->document()->scenario().cluster->hasAutoscale());
    }

    // The timeline's menu (a right-click on the strip or on the time axis) adds a node joining
    // or leaving, a limit change (its values asked for), and removes the event under it.
    void theTimelineAddsAndRemovesEvents()
    {
        TimelineStrip* strip = charts()->timeline();
        { // no cluster: only a limit change can be added
            QMenu* menu = strip->menuAt(strip->xOf(kNanosPerSecond), m_window.get());
            const QList<QAction*> actions = menu->actions();
            QCOMPARE(actions.size(), 3);
            QVERIFY(actions[0]->text().startsWith("Add a limit change at"));
            QVERIFY(!actions[1]->isEnabled() && !actions[2]->isEnabled());
            delete menu;
        }
        QTimer::singleShot(0, [] {
            auto* dialog = qobject_cast<QInputDialog*>(QApplication::activeModalWidget());
            QVERIFY(dialog);
            dialog->setTextValue("limit=20");
            dialog->accept();
        });
        emit strip->eventAddRequested(FleetEvent::Kind::LimitChange, kNanosPerSecond);
        settle();
        QCOMPARE(m_window->document()->scenario().changes.size(), std::size_t(1));
        QCOMPARE(limitChangeText(m_window->document()->scenario().changes.front()), std::string("1:limit=20"));

        m_window->controls()->cluster()->setChecked(true); // two local nodes
        settle();
        emit strip->eventAddRequested(FleetEvent::Kind::Join, kNanosPerSecond / 2);
        settle();
        ClusterConfig::Options o = m_window->document()->scenario().cluster->options();
        QCOMPARE(o.nodes, 3);
        QCOMPARE(o.joins, (std::vector<NodeEvent>{{2, kNanosPerSecond / 2}}));
        emit strip->eventAddRequested(FleetEvent::Kind::Leave, kNanosPerSecond);
        settle();
        o = m_window->document()->scenario().cluster->options();
        QCOMPARE(o.leaves, (std::vector<NodeEvent>{{2, kNanosPerSecond}})); // the newest node up then
        QMenu* menu = strip->menuAt(strip->xOf(kNanosPerSecond / 2), m_window.get());
        QVERIFY2(menu->actions().front()->text().startsWith("Remove node 3 joins"), qPrintable(menu->actions().front()->text()));
        delete menu;
        emit strip->eventRemoveRequested({FleetEvent::Kind::Leave, 2, kNanosPerSecond});
        settle();
        QVERIFY(m_window->document()->scenario().cluster->options().leaves.empty());
        QCOMPARE(m_window->document()->undoStack()->undoText(), QString("Remove event"));
        m_window->document()->undoStack()->undo();
        settle();
        QCOMPARE(m_window->document()->scenario().cluster->options().leaves.size(), std::size_t(1));
    }

    // Jitter shows with backoff only, and picks how each client spreads its delay.
    void jitterIsChosenWithBackoff()
    {
        ClientsGroup* clients = m_window->controls()->clients();
        clients->setChecked(true);
        settle();
        QVERIFY(clients->jitter()->isHidden()); // retry_after: no draw
        clients->retry()->setCurrentIndex(int(RetryPolicy::Backoff));
        settle();
        QVERIFY(!clients->jitter()->isHidden());
        QCOMPARE(clients->jitter()->currentIndex(), int(Jitter::Full));
        clients->jitter()->setCurrentIndex(int(Jitter::None));
        settle();
        QCOMPARE(m_window->document()->scenario().clients->options().jitter, Jitter::None);
        // No jitter: every denied request of the one client waits exactly the base, 0.1 s, first.
        const ChunkedLog<LoggedAttempt>& c = *result(Algorithm::FixedWindow).log;
        const LoggedAttempt& denied = c.at(10);
        QVERIFY(!denied.allowed);
        const auto retry = std::find_if(c.begin(), c.end(), [&](const LoggedAttempt& a) {
            return a.request == denied.request && a.attempt == 1;
        });
        QVERIFY(retry != c.end());
        QCOMPARE(retry->t - denied.t, kNanosPerSecond / 10);
        m_window->document()->undoStack()->undo();
        settle();
        QCOMPARE(clients->jitter()->currentIndex(), int(Jitter::Full));
    }

    void tickingClientsRetriesAsRetryAfterSays()
    {
        // One client honouring retry_after (max 3 retries). Fixed window: requests 11..15
        // (1.0 .. 1.4 s) are told to come back at the boundary, 10 s, and all pass there: 20
        // attempts, no one gives up. Token bucket: 10 pass at 0 .. 0.9 s, the 11th takes the
        // token of 1 s; 12..15 are each told the next token, at 2 s, so all four retry at 2 s:
        // one passes, three are told 3 s; then one of two passes; then the 14th passes at 4 s
        // and the 15th, on its third and last retry, is denied: it gives up. 15 + 4 + 3 + 2 = 24.
        ClientsGroup* clients = m_window->controls()->clients();
        clients->setChecked(true);
        settle();
        for (const AlgorithmTrace& r : frame().trace->results)
            QVERIFY(r.clients);
        const ClientStats& fixed = *result(Algorithm::FixedWindow).clients;
        QCOMPARE(fixed.attempts, 20);
        QCOMPARE(fixed.gaveUp, 0);
        QCOMPARE(fixed.latency.max, 9 * kNanosPerSecond); // the 11th, from 1.0 s to 10 s
        const ClientStats& bucket = *result(Algorithm::TokenBucket).clients;
        QCOMPARE(bucket.attempts, 24);
        QCOMPARE(bucket.gaveUp, 1);
        QCOMPARE(bucket.succeeded, 14);
        SummaryTable* summary = m_window->dashboard()->summary();
        QVERIFY(!summary->isColumnHidden(7)); // attempts
        // A retry's hover says so.
        const AlgorithmTrace& token = result(Algorithm::TokenBucket);
        std::size_t retry = 0;
        while (retry < token.previousAttempt.size() && token.previousAttempt[retry] < 0)
            ++retry;
        QVERIFY(retry < decisionCount(token));
        QVERIFY(rowOf(Algorithm::TokenBucket)->hoverText(retry).contains("retry 1"));
    }

    void aLayeredPolicyAddsItsRow()
    {
        LayersGroup* layers = m_window->controls()->layers();
        layers->setChecked(true);
        settle();
        QCOMPARE(m_window->document()->scenario().layers.size(), std::size_t(2));
        QCOMPARE(charts()->rowCount(), 8);
        QVERIFY(charts()->row(7)->title().startsWith("Layered policy: Token bucket + Sliding window counter"));
        // The first layer is the scenario's own token bucket, and the second (30 per 60 s) never
        // binds here: the policy decides as the token bucket does.
        const auto& rows = frame().trace->results;
        QCOMPARE(rows.back().metrics.allowed, result(Algorithm::TokenBucket).metrics.allowed);
        // A value no layer can take is refused in place; the document keeps its layers.
        const Scenario before = m_window->document()->scenario();
        layers->table()->item(0, 1)->setText("0"); // limit 0
        QVERIFY(m_window->document()->scenario() == before);
        QCOMPARE(layers->table()->item(0, 1)->foreground().color(), QColor(Qt::red));
        layers->table()->item(0, 1)->setText("10"); // fixed: the marks go
        QCOMPARE(layers->table()->item(0, 1)->foreground().color(), layers->table()->palette().text().color());
        layers->table()->item(0, 4)->setText("2"); // rate 2 per s: a new first layer
        settle();
        QCOMPARE(m_window->document()->scenario().layers.front().config.rate(), parseRate("2"));
    }

    // nginx-vs-leaky: nginx holds 5/6 r/s as 833 thousandths a second. After an admission it
    // holds 1000; 1200 ms later it has drained 833 * 1200 / 1000 = 999, so the next request finds
    // 1/1000 and, with burst 0, is rejected; 2400 ms after, 1999 drained: empty, admitted. The
    // row shows that 1/1000 at each of the 5 rejections (1.2, 3.6, 6.0, 8.4, 10.8 s), and its
    // line is what nginx holds, not the excess a burst of 0 keeps at 0.
    void nginxShowsTheThousandthThatRejects()
    {
        const io::LoadResult preset = io::loadPreset("nginx-vs-leaky");
        QVERIFY(preset.scenario);
        m_window->openScenario(*preset.scenario);
        settle();
        RowChart* nginx = charts()->row(0);
        QCOMPARE(nginx->algorithm(), Algorithm::NginxLimitReq);
        std::vector<std::pair<Nanos, std::int64_t>> expected;
        for (Nanos ms : {1200, 3600, 6000, 8400, 10800})
            expected.emplace_back(ms * 1'000'000, 1);
        QCOMPARE(nginx->nginxLeftovers(), expected);
        QVERIFY(charts()->row(1)->nginxLeftovers().empty()); // the leaky bucket has none
        // Its own axis, on the right, reads the line in thousandths: the level 1 it holds after
        // an admission is 1,000 there, and the burst 0 it compares with is in bold, last.
        const auto labels = nginx->thousandthsLabels();
        QVERIFY(!labels.empty());
        QCOMPARE(labels.back(), std::make_pair(0.0, QString("0")));
        QVERIFY(std::find(labels.begin(), labels.end(), std::make_pair(1.0, QLocale().toString(1000))) != labels.end());
        QVERIFY(charts()->row(1)->thousandthsLabels().empty());
        // The axis says what it reads, in nginx's word and unit (before, only "/1000"), whole on
        // the row, above its top label.
        QCOMPARE(RowChart::thousandthsUnitLines(), QStringList({"excess", "(1/1000 req)"}));
        const QRectF unit = nginx->thousandthsUnitBox();
        QVERIFY(!unit.isEmpty());
        QVERIFY(QRectF(nginx->rect()).contains(unit));
        QVERIFY(unit.bottom() < nginx->plotRect().top());
        const QFontMetricsF small(nginx->font());
        for (const QString& line : RowChart::thousandthsUnitLines())
            QVERIFY2(small.horizontalAdvance(line) * 0.85 <= unit.width() + 1, qPrintable(line));
        QVERIFY(charts()->row(1)->thousandthsUnitBox().isEmpty());
        // The room for it is kept on every row, so the plots keep one right edge; without nginx
        // the plots take it back.
        const double right = nginx->plotRect().right();
        QCOMPARE(charts()->row(1)->plotRect().right(), right);
        m_window->controls()->algorithmBox(Algorithm::NginxLimitReq)->setChecked(false);
        settle();
        QCOMPARE(charts()->row(0)->algorithm(), Algorithm::LeakyBucket);
        QVERIFY(charts()->row(0)->plotRect().right() > right + 20);
    }

    void nginxRefusesARateItCannotExpressAndSaysWhy()
    {
        // 3/7 per second is neither a whole number per second nor per minute.
        m_window->controls()->rate()->type("3/7"); // capacity and rate follow: untick first
        m_window->controls()->linkBox()->setChecked(false);
        m_window->controls()->rate()->type("3/7");
        settle();
        QCheckBox* nginx = m_window->controls()->algorithmBox(Algorithm::NginxLimitReq);
        nginx->setChecked(true);
        QVERIFY(!nginx->isChecked());
        QVERIFY(std::find(m_window->document()->scenario().algorithms.begin(), m_window->document()->scenario().algorithms.end(),
                          Algorithm::NginxLimitReq) == m_window->document()->scenario().algorithms.end());
        // Said in the window's banner, until the cause is gone.
        QVERIFY2(m_window->banner()->text().contains("nginx"), qPrintable(m_window->banner()->text()));
        // At 1 per second it is accepted, and its options appear under its box.
        m_window->controls()->rate()->type("1");
        QVERIFY(m_window->banner()->isHidden());
        nginx->setChecked(true);
        settle();
        QVERIFY(nginx->isChecked());
        QVERIFY(m_window->controls()->nginxBurst()->isVisible());
        QCOMPARE(m_window->controls()->nginxBurst()->text(), QString("9")); // capacity - 1
    }

    void fileCheckAgainstRedisAgrees()
    {
        // The default scenario on two local servers: Redis is one shared store, so it is
        // compared with `shared` on the same two nodes, and agrees. The window stays live.
        m_window->controls()->cluster()->setChecked(true);
        settle();
        QSignalSpy checked(m_window->documents(), &DocumentActions::redisChecked);
        m_window->documents()->checkRedisAction()->trigger();
        QVERIFY(!m_window->documents()->checkRedisAction()->isEnabled()); // running, off the GUI thread
        QVERIFY(checked.wait(30'000));
        QVERIFY2(checked.first().at(0).toBool(), qPrintable(checked.first().at(1).toString()));
        QVERIFY(checked.first().at(1).toString().contains("on 2 nodes"));
        QVERIFY(m_window->documents()->checkRedisAction()->isEnabled());
        for (QMessageBox* box : m_window->findChildren<QMessageBox*>())
            box->close();
    }

    // File > Copy Redis script: the server-clock script of the first algorithm, its config inside.
    void copyRedisScriptCopiesTheServerClockScript()
    {
        m_window->documents()->copyRedisScriptAction()->trigger();
        const QString text = QApplication::clipboard()->text();
        QVERIFY2(text.startsWith("-- RateLab server-clock script: fixed_window: limit 10 per 10 s."), qPrintable(text.left(200)));
        QVERIFY(text.contains("redis.call('TIME')"));
    }

    void atScaleCountsTheLogPerKey()
    {
        // "1,000 requests a minute for 10,000 users is 10 million log entries": the log keeps
        // up to L timestamps a key, 8 bytes each.
        m_window->controls()->limit()->type("1000");
        m_window->controls()->window()->type("60");
        settle();
        auto* panel = m_window->findChild<AtScalePanel*>();
        QVERIFY(panel);
        panel->keys()->type("10000");
        QTableWidget* table = panel->table();
        int log = -1;
        for (int r = 0; r < table->rowCount(); ++r)
            if (table->item(r, 0)->text() == "Sliding window log")
                log = r;
        QVERIFY(log >= 0);
        const QString all = table->item(log, 2)->text();
        QVERIFY2(all.contains(QLocale().toString(10'000'000) + " entries"), qPrintable(all));
        QVERIFY2(all.startsWith("80 MB"), qPrintable(all)); // 10^7 entries x 8 B
    }
};

QTEST_MAIN(TestProductionUi)
#include "tst_production_ui.moc"
