// What the window refuses or cannot draw is seen, and what the document holds is what Undo
// brings back: the error banner and the greyed charts, the follow flag in the undo history,
// explicit arrival times against the pattern's controls, and a pin that never resizes the window.
#include "panels/controlpanel.h"
#include "window/documentactions.h"
#include "panels/errorbanner.h"
#include "panels/explainpanel.h"
#include "presets.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"
#include "window_test.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QMenuBar>
#include <QStatusBar>
#include <QUndoStack>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

// unsimulatable names client 7 of 5: the document holds it (a file could), the engine refuses it.
Scenario unsimulatable()
{
    Scenario s;
    s.explicitArrivals = std::vector<Nanos>{0, kNanosPerSecond};
    s.explicitClients = {0, 7};
    ClientOptions five;
    five.clients = 5;
    s.clients = ClientConfig::make(five);
    return s;
}

} // namespace

class TestErrorBanner : public WindowTest {
    Q_OBJECT
private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); }
    void cleanup() { m_window.reset(); }

    void aRefusedEditShowsItsReasonUntilTheNextChange()
    {
        ErrorBanner* banner = m_window->banner();
        QVERIFY(banner->isHidden());
        // More requests than the app simulates: refused, with the reason, and nothing changes.
        const Scenario before = m_window->document()->scenario();
        m_window->controls()->requests()->type("999999999999");
        settle();
        QVERIFY(!banner->isHidden());
        QVERIFY2(banner->text().contains("Requests"), qPrintable(banner->text()));
        QVERIFY2(banner->text().contains("Not changed"), qPrintable(banner->text()));
        QCOMPARE(m_window->document()->scenario(), before);
        // The charts are current: a refusal changed nothing, they are not greyed.
        QVERIFY(!m_window->dashboard()->isStale());
        // Fixing it (any accepted edit) removes the cause, and the banner.
        m_window->controls()->requests()->type("20");
        settle();
        QVERIFY(banner->isHidden());
        QCOMPARE(m_window->document()->scenario().pattern.count, 20);
    }

    void aFailedFrameGreysTheChartsAndSaysWhy()
    {
        ErrorBanner* banner = m_window->banner();
        const Frame good = frame();
        m_window->openScenario(unsimulatable());
        settle();
        QVERIFY(!banner->isHidden());
        QVERIFY2(banner->frameError().contains("client 7"), qPrintable(banner->frameError()));
        QVERIFY(m_window->dashboard()->isStale());
        QCOMPARE(frame().scenario, good.scenario); // the last good frame, shown greyed, not replaced
        // Settings that simulate again: the banner goes, the charts are current.
        m_window->openScenario(Scenario{});
        settle();
        QVERIFY(banner->isHidden());
        QVERIFY(!m_window->dashboard()->isStale());
        QCOMPARE(*frame().scenario, m_window->document()->scenario());
    }

    void theBannerStaysInPresentationMode()
    {
        m_window->openScenario(unsimulatable());
        settle();
        m_window->setPresenting(true);
        QCoreApplication::processEvents();
        QVERIFY(m_window->banner()->isVisible());
        m_window->setPresenting(false);
    }

    // `ratelab --present` asks for presentation before the window has handled an event: Esc must
    // still bring back the status bar, the menus and the controls.
    void escAfterStartingPresentingRestoresTheWindow()
    {
        m_window = std::make_unique<MainWindow>();
        m_window->show();
        m_window->setPresenting(true); // as gui.cpp does for --present, before any event is handled
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        QVERIFY(!m_window->statusBar()->isVisible());
        m_window->setPresenting(false);
        QCoreApplication::processEvents();
        QVERIFY(m_window->statusBar()->isVisible());
        QVERIFY(m_window->menuBar()->isVisible());
        QVERIFY(m_window->controls()->isVisible());
    }

    void undoRestoresTheFollowFlag()
    {
        ControlPanel* controls = m_window->controls();
        ScenarioDocument* doc = m_window->document();
        QVERIFY(doc->follows());
        QVERIFY(controls->linkBox()->isChecked());
        controls->linkBox()->setChecked(false);
        QVERIFY(!doc->follows());
        // Unticked, a limit change leaves capacity (10) alone.
        controls->limit()->type("20");
        QCOMPARE(doc->scenario().config.capacity(), 10);
        doc->undoStack()->undo(); // the limit
        doc->undoStack()->undo(); // the untick
        QVERIFY(doc->follows());
        QVERIFY(controls->linkBox()->isChecked());
        // Ticked again, the limit carries capacity with it.
        controls->limit()->type("20");
        QCOMPARE(doc->scenario().config.capacity(), 20);
    }

    void typingARateStopsFollowingInOneStep()
    {
        // nginx-vs-leaky's "try rate 1": the Rate box is live while capacity and rate follow.
        ControlPanel* controls = m_window->controls();
        ScenarioDocument* doc = m_window->document();
        QVERIFY(controls->rate()->isEnabled());
        const int steps = doc->undoStack()->count();
        controls->rate()->type("2");
        QCOMPARE(doc->scenario().config.rate(), Rate::reduced(2, kNanosPerSecond));
        QVERIFY(!doc->follows());
        QVERIFY(!controls->linkBox()->isChecked());
        QCOMPARE(doc->undoStack()->count(), steps + 1);
        doc->undoStack()->undo();
        QVERIFY(doc->follows());
        QCOMPARE(doc->scenario().config.rate(), Rate::reduced(10, 10 * kNanosPerSecond));
    }

    void arrivalsFromAFileHideThePatternUntilOneIsChosen()
    {
        const io::LoadResult preset = io::loadPreset("noisy-client");
        QVERIFY(preset.scenario);
        m_window->openScenario(*preset.scenario);
        settle();
        ControlPanel* controls = m_window->controls();
        // The pattern's settings do not apply: not shown; the box says where the times come from.
        QVERIFY(controls->requests()->isHidden());
        QVERIFY(controls->delay()->parentWidget()->isHidden());
        QVERIFY2(controls->pattern()->currentText().contains("28"), qPrintable(controls->pattern()->currentText()));
        // Choosing a pattern replaces the times in one undo step, and the charts follow.
        const int steps = m_window->document()->undoStack()->count();
        controls->pattern()->setCurrentIndex(int(PatternKind::Uniform));
        settle();
        QVERIFY(!m_window->document()->scenario().explicitArrivals);
        QVERIFY(m_window->document()->scenario().explicitClients.empty());
        QCOMPARE(m_window->document()->undoStack()->count(), steps + 1);
        QVERIFY(!controls->requests()->isHidden());
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(15));
        QVERIFY(!m_window->dashboard()->isStale());
        controls->requests()->type("20");
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(20));
        m_window->document()->undoStack()->undo();
        m_window->document()->undoStack()->undo();
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(28));
    }

    void pinningNeverResizesTheWindow()
    {
        const io::LoadResult preset = io::loadPreset("edge-burst");
        QVERIFY(preset.scenario);
        m_window->openScenario(*preset.scenario);
        settle();
        for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
            if (dock->objectName() == "explainDock")
                dock->show();
        QCoreApplication::processEvents();
        const QSize before = m_window->size();
        // The last request of a burst: the longest heading ("the 10th of 10 at ... s").
        RowChart* row = charts()->row(0);
        const std::size_t last = frame().trace->arrivals.size() - 1;
        m_window->explanation()->pin(last);
        // The pin took: the panel holds the longest heading, so a panel that grew with its text
        // would have asked for more room. Its layout requests are posted events: deliver them all.
        const QString text = m_window->explanation()->text();
        QVERIFY2(text.contains("Request 20 of 20") && text.contains("the 10th of 10"), qPrintable(text));
        for (int round = 0; round < 3; ++round) {
            QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
            QCoreApplication::processEvents();
        }
        QCOMPARE(m_window->size(), before);
        Q_UNUSED(row);
    }

    void aLongRedisCheckAsksFirstWithAnEstimate()
    {
        QVERIFY(redisWarning(100'000).isEmpty());
        // 1,000,000 requests x 7 algorithms at about 0.1 ms a round trip: about 12 minutes.
        const QString w = redisWarning(7'000'000);
        QVERIFY2(w.contains(QLocale().toString(7'000'000)) && w.contains("about 12 minutes"), qPrintable(w));
        QVERIFY2(redisWarning(200'000).contains("about 20 seconds"), qPrintable(redisWarning(200'000)));
    }

    void readableDurationsRoundUpAndKeepTheExactText()
    {
        QStringList exact;
        QCOMPARE(readableDurations("t = 1.400 s: token bucket: denied, retry in 8.600000001 s", &exact),
                 QString("t = 1.400 s: token bucket: denied, retry in 8.601 s"));
        QCOMPARE(exact, QStringList{"retry in 8.600000001 s"});
        // Millisecond figures stay as they are; 0.9999 s rounds up to 1.000 s.
        QCOMPARE(readableDurations("retry in 0.250 s"), QString("retry in 0.250 s"));
        QCOMPARE(readableDurations("waits 0.9999 s"), QString("waits 1.000 s"));
    }
};

QTEST_MAIN(TestErrorBanner)
#include "tst_errorbanner.moc"
