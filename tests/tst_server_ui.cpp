// The app's server behind the limiter ("In the app"): the Server group turns the
// server on and edits it through the document (undoably), the concurrency limiter rows come and
// go with it, and the charts colour each attempt by its outcome and draw a gate row's limit.
// Every expected figure is derived by hand from semantics.md ("The server behind the limiter")
// in the comment above it.
#include "chart/chartstack.h"
#include "chart/rowchart.h"
#include "chart/summarytable.h"
#include "model/scenariodocument.h"
#include "panels/controlpanel.h"
#include "panels/productiongroups.h"
#include "panels/servergroup.h"
#include "panels/slidervalue.h"
#include "scenario/rows.h"
#include "window_test.h"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QUndoStack>

using namespace ratelab;
using namespace ratelab::ui;

class TestServerUi : public WindowTest {
    Q_OBJECT

    ServerGroup* group() const { return m_window->controls()->server(); }
    ThrottleGroup* throttleGroup() const { return m_window->controls()->throttle(); }
    QUndoStack* undo() const { return m_window->document()->undoStack(); }

    // typeSpec types a spec in a field and presses Enter, as a person would.
    static void typeSpec(QLineEdit* field, const QString& text)
    {
        field->setText(text);
        emit field->editingFinished();
    }
    const Scenario& scenario() const { return m_window->document()->scenario(); }

    // serveFromThePanel turns the server on and sets, as a person would: 1 worker, a constant
    // 0.3 s service, a queue of 2 and a client timeout of 0.8 s.
    void serveFromThePanel()
    {
        group()->setChecked(true);
        settle();
        QVERIFY(scenario().server.has_value());
        group()->service()->setCurrentIndex(0); // constant
        group()->serviceTime()->type("0.3");
        group()->workers()->setValue(1);
        group()->queue()->type("2");
        group()->clientTimeout()->type("0.8");
        settle();
    }

private slots:
    void initTestCase() { useScratchSettings(); }
    void init()
    {
        // Fixed window, 10 per 10 s; 15 requests 0.1 s apart from 0 s: requests 0 to 9 (0.0 s to
        // 0.9 s) admitted, 10 to 14 denied.
        Scenario s;
        s.algorithms = {Algorithm::FixedWindow};
        openWindow(s);
    }
    void cleanup() { m_window.reset(); }

    void thePanelSetsTheServerAndTheStripShowsEachOutcome()
    {
        serveFromThePanel();
        ServerOptions want;
        want.workers = 1;
        want.service = {ServiceKind::Constant, 300'000'000, 0};
        want.queue = 2;
        want.queueTimeout = kNoTimeout;
        want.clientTimeout = 800'000'000;
        QCOMPARE(scenario().server->options(), want);
        // One worker, 0.3 s each, a queue of 2, at one instant completions before arrivals:
        //   r0 0.0 served 0.0-0.3 (in time, 0.3 s); r1 0.1 and r2 0.2 queue; at 0.3 r0 leaves, r1
        //   starts (0.3-0.6), r3 queues; r4 0.4 and r5 0.5 find the queue full: refused; 0.6 r1
        //   leaves (0.5 s, in time), r2 starts (0.6-0.9, 0.7 s: in time), r6 queues; r7, r8
        //   refused; 0.9 r3 starts (0.9-1.2), r9 queues; 1.2 r6 (1.2-1.5); 1.5 r9 (1.5-1.8).
        //   r3, r6, r9 each end 0.9 s after they arrived, past the client's 0.8 s: late.
        //   r10 to r14 never reach the server.
        using O = Outcome;
        const O want15[] = {O::InTime, O::InTime, O::InTime, O::Late, O::Refused, O::Refused, O::Late, O::Refused,
                            O::Refused, O::Late, O::NotAdmitted, O::NotAdmitted, O::NotAdmitted, O::NotAdmitted,
                            O::NotAdmitted};
        RowChart* row = charts()->row(0);
        QVERIFY(row->exactMarks());
        for (std::size_t i = 0; i < 15; ++i) {
            QCOMPARE(row->outcomeOf(i), std::optional<Outcome>(want15[i]));
        }
        // Each outcome has a colour of its own in the strip (the key names them).
        QSet<QRgb> colours;
        for (O o : {O::InTime, O::Late, O::QueueTimeout, O::Refused, O::Rejected})
            colours.insert(RowChart::outcomeColor(o).rgb());
        QCOMPARE(colours.size(), 5);
        QCOMPARE(RowChart::outcomeColor(O::InTime), RowChart::admittedColor());
        // The band and the bars: 6 served (3 in time), latencies 0.3, 0.5, 0.7, 0.9, 0.9, 0.9 s.
        QVERIFY(row->served().has_value());
        std::int64_t served = 0, inTime = 0;
        Nanos worst = 0;
        for (std::size_t k = 0; k < row->served()->served.size(); ++k) {
            served += row->served()->served[k];
            inTime += row->served()->inTime[k];
            worst = std::max(worst, row->served()->p99[k]);
        }
        QCOMPARE(served, 6);
        QCOMPARE(inTime, 3);
        QCOMPARE(worst, Nanos(900'000'000));
        // A row without a gate draws no limit line.
        QVERIFY(row->limitLine().isEmpty());
        // The summary: wasted work 3 late x 0.3 s = 0.900 s; goodput 3 in time over 1.8 s = 1.667/s.
        SummaryTable* table = m_window->dashboard()->summary();
        int goodput = -1, wasted = -1;
        for (int c = 0; c < table->columnCount(); ++c) {
            if (table->horizontalHeaderItem(c)->text() == "Goodput")
                goodput = c;
            if (table->horizontalHeaderItem(c)->text() == "Wasted work")
                wasted = c;
        }
        QVERIFY(goodput > 0 && wasted > 0);
        QVERIFY(!table->isColumnHidden(goodput));
        QCOMPARE(table->item(0, wasted)->text(), QString("0.900 s")); // as the p99 column writes seconds
        QCOMPARE(table->item(0, goodput)->text(), QString("1.667/s"));
    }

    void aGateRowDrawsItsLimitAndUndoRemovesIt()
    {
        serveFromThePanel();
        const int undos = m_window->document()->undoStack()->count();
        group()->gateKind()->setCurrentText("fixed");
        group()->addGate()->click();
        settle();
        QCOMPARE(scenario().concurrency, std::vector<GateSpec>{GateSpec::parse("fixed")});
        // The spec is edited in its list item: limit=2.
        group()->gates()->item(0)->setText("fixed:limit=2");
        settle();
        QCOMPARE(scenario().concurrency, std::vector<GateSpec>{GateSpec::parse("fixed:limit=2")});
        QCOMPARE(charts()->rowCount(), 2);
        QVERIFY(gateRow(scenario(), 1));
        RowChart* gate = charts()->row(1);
        // Two in flight at most, no rate layer in front: r0 (0.0) and r1 (0.1) admitted, r2 0.2
        // rejected; at 0.3 r0 leaves and r3 takes its place; r4, r5 rejected; 0.6 r1 leaves, r6
        // in; r7, r8 out; 0.9 r3 leaves, r9 in; r10, r11 out; 1.2 r6 leaves, r12 in; r13, r14
        // out. Each admitted one waits for the one before it: 0.3, 0.5, 0.6, 0.6, 0.6, 0.6 s,
        // all under 0.8 s: in time.
        using O = Outcome;
        const O want15[] = {O::InTime, O::InTime, O::Rejected, O::InTime, O::Rejected, O::Rejected, O::InTime,
                            O::Rejected, O::Rejected, O::InTime, O::Rejected, O::Rejected, O::InTime, O::Rejected,
                            O::Rejected};
        for (std::size_t i = 0; i < 15; ++i)
            QCOMPARE(gate->outcomeOf(i), std::optional<Outcome>(want15[i]));
        // The limit is 2 all along; in the server never more than 2, and 2 at 0.15 s.
        QVERIFY(!gate->limitLine().isEmpty());
        for (const QPointF& q : gate->limitLine())
            QCOMPARE(q.y(), 2.0);
        double most = 0, at015 = -1;
        for (qsizetype k = 0; k < gate->inSystemLine().size(); ++k) {
            const QPointF q = gate->inSystemLine()[k];
            most = std::max(most, q.y());
            if (q.x() <= 0.15)
                at015 = q.y();
        }
        QCOMPARE(most, 2.0);
        QCOMPARE(at015, 2.0);
        // Its header counts attempts, not rate verdicts: 6 in time, 9 rejected (the table above).
        QCOMPARE(gate->countsText(), QString("15 attempts · 6 served in time · 9 failed (9 rejected)"));
        // The server-only row above: 15 admitted, 3 in time, 3 late + 4 refused failed.
        QVERIFY2(charts()->row(0)->countsText().contains(QString("· 3 served in time · 7 failed")),
                 qPrintable(charts()->row(0)->countsText()));
        // A spec the gate refuses changes nothing, marks the item and says why in the banner.
        QSignalSpy refused(m_window->document(), &ScenarioDocument::refused);
        group()->gates()->item(0)->setText("fixed:limt=2");
        QVERIFY(!refused.isEmpty());
        QVERIFY(refused.last().at(0).toString().contains("limt"));
        QCOMPARE(scenario().concurrency, std::vector<GateSpec>{GateSpec::parse("fixed:limit=2")});
        QCOMPARE(group()->gates()->item(0)->foreground().color(), QColor(Qt::red));
        // Undo: the spec, then the row, then every server edit, back to no server.
        m_window->document()->undoStack()->undo();
        m_window->document()->undoStack()->undo();
        settle();
        QVERIFY(scenario().concurrency.empty());
        QCOMPARE(charts()->rowCount(), 1);
        QCOMPARE(m_window->document()->undoStack()->count() - m_window->document()->undoStack()->index(), 2);
        QUndoStack* stack = m_window->document()->undoStack();
        int on = -1;
        for (int k = 0; k < stack->count(); ++k)
            if (stack->text(k) == "Server on")
                on = k;
        QVERIFY(on >= 0 && on < undos);
        stack->setIndex(on); // before "Server on"
        settle();
        QVERIFY(!scenario().server);
        QVERIFY(!group()->isChecked());
        QCOMPARE(charts()->row(0)->outcomeOf(0), std::nullopt);
        QVERIFY(!charts()->row(0)->served());
    }

    // A kind whose defaults do not make a gate (bulkhead needs max_parallel, stripe capacity) is
    // refused in the banner, naming the key, and adds nothing.
    void aKindWithARequiredKeyIsRefusedWhenAdded()
    {
        serveFromThePanel();
        const int undos = m_window->document()->undoStack()->count();
        QSignalSpy refused(m_window->document(), &ScenarioDocument::refused);
        for (const char* kind : {"bulkhead", "stripe"}) {
            group()->gateKind()->setCurrentText(kind);
            group()->addGate()->click();
            QVERIFY(!refused.isEmpty());
            QVERIFY2(refused.last().at(0).toString().contains(kind == std::string("bulkhead") ? "max_parallel" : "capacity"),
                     qPrintable(refused.last().at(0).toString()));
        }
        QVERIFY(scenario().concurrency.empty());
        QCOMPARE(m_window->document()->undoStack()->count(), undos);
    }

    void theThrottleIsTypedAndARefusalSaysWhy()
    {
        serveFromThePanel();
        QLineEdit* field = throttleGroup()->throttle();
        field->setText("bottleneck:max_concurrent=1");
        emit field->editingFinished();
        settle();
        QCOMPARE(scenario().throttle.text(), std::string("bottleneck:max_concurrent=1"));
        // A key Bottleneck does not have: the document keeps the throttle, the banner says why.
        QSignalSpy refused(m_window->document(), &ScenarioDocument::refused);
        field->setText("bottleneck:max_concurent=1");
        emit field->editingFinished();
        QVERIFY(!refused.isEmpty());
        QVERIFY2(refused.last().at(0).toString().contains("max_concurent"), qPrintable(refused.last().at(0).toString()));
        QCOMPARE(scenario().throttle.text(), std::string("bottleneck:max_concurrent=1"));
        // Emptied: no throttle, one undoable step.
        field->setText("");
        emit field->editingFinished();
        settle();
        QVERIFY(scenario().throttle.empty());
        m_window->document()->undoStack()->undo();
        QCOMPARE(scenario().throttle.text(), std::string("bottleneck:max_concurrent=1"));
    }

    // With no algorithm ticked (the server presets open so), the Limits say they apply to no row,
    // and tick one and the note goes.
    void theLimitsSayWhenNoRowReadsThem()
    {
        const auto noted = [this] {
            for (const QLabel* l : m_window->controls()->findChildren<QLabel*>())
                if (l->isVisible() && l->text().startsWith("No algorithm is ticked"))
                    return true;
            return false;
        };
        QVERIFY(!noted());
        QVERIFY(m_window->document()->change("Server rows alone", [](Scenario& s) {
            s.algorithms.clear();
            s.server = ServerConfig::parse("workers=1,service=const:100ms");
            s.concurrency = {GateSpec::parse("none")};
        }));
        settle();
        QVERIFY(noted());
        undo()->undo();
        settle();
        QVERIFY(!noted());
    }

    void theThrottleIsThereWithoutAServer()
    {
        // A throttle runs in the clients, before the limiter: its group is shown and usable with
        // the server off (client-throttle-under-limit has no server) and with no Clients group.
        QVERIFY(!scenario().server);
        QVERIFY(!scenario().clients);
        QVERIFY(throttleGroup()->isVisibleTo(m_window.get()));
        QVERIFY(throttleGroup()->throttle()->isEnabled());
        QVERIFY(!throttleGroup()->throttle()->toolTip().isEmpty());
        QVERIFY(throttleGroup()->throttle()->toolTip().contains("Bottleneck"));
        QVERIFY(throttleGroup()->throttle()->toolTip().contains("p-queue"));
        typeSpec(throttleGroup()->throttle(), "p-queue:interval=1s,interval_cap=5");
        settle();
        QCOMPARE(scenario().throttle.text(), std::string("p-queue:interval=1s,interval_cap=5"));
        // The server on and off again keeps it (its concurrency rows go; the throttle is not one).
        group()->setChecked(true);
        settle();
        group()->setChecked(false);
        settle();
        QVERIFY(!scenario().server);
        QCOMPARE(scenario().throttle.text(), std::string("p-queue:interval=1s,interval_cap=5"));
        QVERIFY(throttleGroup()->isVisibleTo(m_window.get()));
        QCOMPARE(throttleGroup()->throttle()->text(), QString("p-queue:interval=1s,interval_cap=5"));
        // An unknown kind: refused, the field red, the banner names the known kinds.
        QSignalSpy refused(m_window->document(), &ScenarioDocument::refused);
        typeSpec(throttleGroup()->throttle(), "bottlenek");
        QVERIFY(!refused.isEmpty());
        const QString why = refused.last().at(0).toString();
        QVERIFY2(why.startsWith("Throttle: ") && why.contains("bottlenek") && why.contains("p-queue"), qPrintable(why));
        QVERIFY(throttleGroup()->throttle()->styleSheet().contains("red"));
        QCOMPARE(scenario().throttle.text(), std::string("p-queue:interval=1s,interval_cap=5"));
        // none, as --throttle none, removes it.
        typeSpec(throttleGroup()->throttle(), "none");
        settle();
        QVERIFY(scenario().throttle.empty());
        QVERIFY(throttleGroup()->throttle()->styleSheet().isEmpty());
        QCOMPARE(undo()->undoText(), QString("Throttle off"));
    }

    void theLayeredGateIsTypedUndoneAndSaved()
    {
        serveFromThePanel();
        QLineEdit* field = group()->layeredGate();
        // No layers: the gate after them has nothing to follow (rows.cpp refuses it), so it is off.
        QVERIFY(!field->isEnabled());
        m_window->controls()->layers()->setChecked(true);
        settle();
        QVERIFY(!scenario().layers.empty());
        QVERIFY(field->isEnabled());
        QVERIFY(field->toolTip().contains("Netflix concurrency-limits"));
        QVERIFY(field->toolTip().contains("Kubernetes API Priority and Fairness"));
        const int before = undo()->index();
        typeSpec(field, "fixed:limit=1");
        settle();
        QCOMPARE(scenario().layeredGate.text(), std::string("fixed:limit=1"));
        QCOMPARE(undo()->index(), before + 1);
        // The layered row (row 1, after fixed_window) admits one attempt in flight at a time. Its
        // layers (a token bucket of 10 at 1/s, a sliding window counter of 30 per 60 s) admit
        // r0 to r9 (0.0 to 0.9 s: 10 tokens, and 0.9 refilled); each is served 0.3 s by the one
        // worker: r0 in flight 0.0-0.3; r1, r2 rejected; at 0.3 r0 leaves first, r3 in (0.3-0.6);
        // r4, r5 out; r6 in (0.6-0.9); r7, r8 out; r9 in (0.9-1.2). Each in time (0.3 s < 0.8 s).
        QVERIFY(isLayeredRow(scenario(), 1));
        using O = Outcome;
        const O want10[] = {O::InTime, O::Rejected, O::Rejected, O::InTime, O::Rejected,
                            O::Rejected, O::InTime, O::Rejected, O::Rejected, O::InTime};
        for (std::size_t i = 0; i < 10; ++i)
            QCOMPARE(charts()->row(1)->outcomeOf(i), std::optional<Outcome>(want10[i]));
        // A key the gate does not have: nothing changes, the field is red, the banner says why.
        QSignalSpy refused(m_window->document(), &ScenarioDocument::refused);
        typeSpec(field, "fixed:limt=1");
        QVERIFY(!refused.isEmpty());
        QString why = refused.last().at(0).toString();
        QVERIFY2(why.startsWith("Concurrency limiter after the layers: ") && why.contains("limt"), qPrintable(why));
        QVERIFY(field->styleSheet().contains("red"));
        QCOMPARE(field->toolTip(), why.mid(why.indexOf(": ") + 2));
        QCOMPARE(scenario().layeredGate.text(), std::string("fixed:limit=1"));
        QCOMPARE(undo()->index(), before + 1);
        // An unknown kind names the known ones.
        typeSpec(field, "gradient");
        why = refused.last().at(0).toString();
        QVERIFY2(why.contains("gradient2") && why.contains("envoy"), qPrintable(why));
        // A good one replaces it in one step; undo and redo walk it back and forth.
        typeSpec(field, "gradient2:initial_limit=5");
        settle();
        QCOMPARE(scenario().layeredGate.text(), std::string("gradient2:initial_limit=5"));
        QVERIFY(field->styleSheet().isEmpty());
        // Each spec typed is an undo step of its own, named with it.
        QCOMPARE(undo()->index(), before + 2);
        QCOMPARE(undo()->undoText(), QString("Concurrency limiter after the layers gradient2:initial_limit=5"));
        undo()->undo();
        settle();
        QCOMPARE(scenario().layeredGate.text(), std::string("fixed:limit=1"));
        QCOMPARE(field->text(), QString("fixed:limit=1"));
        undo()->redo();
        settle();
        QCOMPARE(field->text(), QString("gradient2:initial_limit=5"));
        // Saved and opened again: the same gate, server, throttle and layers.
        typeSpec(throttleGroup()->throttle(), "bottleneck:max_concurrent=2");
        settle();
        const Scenario saved = scenario();
        QTemporaryDir dir;
        const QString path = dir.filePath("layered-gate.ratelab.json");
        QCOMPARE(m_window->document()->saveAs(path), QString());
        m_window->document()->reset(Scenario{});
        settle();
        QVERIFY(scenario().layeredGate.empty());
        QCOMPARE(field->text(), QString());
        const io::LoadResult opened = m_window->document()->open(path);
        QVERIFY2(opened.scenario.has_value(), qPrintable(opened.error));
        settle();
        QCOMPARE(scenario().layeredGate.text(), std::string("gradient2:initial_limit=5"));
        QCOMPARE(scenario().throttle.text(), std::string("bottleneck:max_concurrent=2"));
        QCOMPARE(scenario().server->options(), saved.server->options());
        QCOMPARE(scenario().layers.size(), saved.layers.size());
        QCOMPARE(field->text(), QString("gradient2:initial_limit=5"));
        QCOMPARE(throttleGroup()->throttle()->text(), QString("bottleneck:max_concurrent=2"));
        // The Layered policy off takes its gate along in one step (not a refusal); undo brings both.
        m_window->controls()->layers()->setChecked(false);
        settle();
        QVERIFY(scenario().layers.empty());
        QVERIFY(scenario().layeredGate.empty());
        QVERIFY(!field->isEnabled());
        undo()->undo();
        settle();
        QVERIFY(!scenario().layers.empty());
        QCOMPARE(scenario().layeredGate.text(), std::string("gradient2:initial_limit=5"));
        // Emptied: no gate after the layers, one undoable step.
        typeSpec(field, "");
        settle();
        QVERIFY(scenario().layeredGate.empty());
        QCOMPARE(undo()->undoText(), QString("Concurrency limiter after the layers off"));
    }
};

QTEST_MAIN(TestServerUi)
#include "tst_server_ui.moc"
