// The desktop explorer, driven as a user would: sliders, checkboxes, hovering a mark.
#include "chartstack.h"
#include "controlpanel.h"
#include "dashboard.h"
#include "mainwindow.h"
#include "pipeline.h"
#include "rowchart.h"
#include "slidervalue.h"
#include "summarytable.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLineSeries>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>

using namespace ratelab;
using namespace ratelab::ui;

class TestMainWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_config;
    std::unique_ptr<MainWindow> m_window;

    // settle waits until the pipeline has delivered the frame of the controls' latest state.
    void settle()
    {
        QTRY_VERIFY_WITH_TIMEOUT(m_window->pipeline()->isIdle(), 20000);
        QCoreApplication::processEvents();
    }
    const Frame& frame() const { return m_window->dashboard()->frame(); }
    ChartStack* charts() const { return m_window->dashboard()->charts(); }
    RowChart* rowOf(Algorithm a) const
    {
        for (int i = 0; i < charts()->rowCount(); ++i)
            if (charts()->row(i)->algorithm() == a)
                return charts()->row(i);
        return nullptr;
    }
    std::size_t resultIndex(Algorithm a) const
    {
        const auto& results = frame().trace->results;
        for (std::size_t i = 0; i < results.size(); ++i)
            if (results[i].algorithm == a)
                return i;
        return results.size();
    }

private slots:
    void initTestCase()
    {
        // Settings go to a scratch directory, so the test neither reads nor leaves user state.
        qputenv("XDG_CONFIG_HOME", m_config.path().toUtf8());
    }

    void init()
    {
        m_window = std::make_unique<MainWindow>();
        m_window->resize(1280, 720);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        m_window->controls()->setScenario(Scenario{});
        m_window->controls()->limit()->spinBox()->setValue(11); // a real change: emits
        m_window->controls()->limit()->spinBox()->setValue(10);
        settle();
    }

    void cleanup() { m_window.reset(); }

    void opensWithTheDefaultComparison()
    {
        QCOMPARE(m_window->windowTitle(), QString("RateLab"));
        QCOMPARE(charts()->rowCount(), 7);
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(15));
        // The reference case: the token bucket admits 11.
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::TokenBucket)].metrics.allowed, std::int64_t(11));
        QCOMPARE(m_window->dashboard()->summary()->rowCount(), 7);
        QCOMPARE(m_window->dashboard()->summary()->item(3, 1)->text(), QString("11"));
    }

    void movingTheLimitSliderResimulatesAndRedraws()
    {
        RowChart* fixed = rowOf(Algorithm::FixedWindow);
        const QList<QPointF> before = fixed->levelPoints();
        QSlider* slider = m_window->controls()->limit()->slider();
        // Drag the limit slider down to its lowest position: limit 1.
        slider->setValue(slider->minimum());
        settle();
        QCOMPARE(m_window->controls()->limit()->value(), 1.0);
        QCOMPARE(frame().trace->config.limit(), std::int64_t(1));
        // Fixed window with limit 1 over 15 requests in one window admits exactly 1.
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::FixedWindow)].metrics.allowed, std::int64_t(1));
        fixed = rowOf(Algorithm::FixedWindow);
        const QList<QPointF> after = fixed->levelPoints();
        QVERIFY(after != before);
        double maxLevel = 0;
        for (const QPointF& p : after)
            maxLevel = std::max(maxLevel, p.y());
        QCOMPARE(maxLevel, 1.0); // the drawn count never exceeds the new limit
    }

    void typingAValueIsTheSameAsDragging()
    {
        QDoubleSpinBox* delay = m_window->controls()->delay()->spinBox();
        delay->setValue(1.0); // typed and confirmed
        settle();
        QCOMPARE(frame().trace->arrivals.at(1), Nanos(1'000'000'000));
        // One request a second is exactly the refill rate: the token bucket admits all 15.
        QCOMPARE(frame().trace->results[resultIndex(Algorithm::TokenBucket)].metrics.allowed, std::int64_t(15));
        QCOMPARE(m_window->controls()->delay()->slider()->value(), 200); // 1 s of 0..5 s on 1000 steps
    }

    void uncheckingAnAlgorithmRemovesItsRow()
    {
        QVERIFY(rowOf(Algorithm::Gcra));
        m_window->controls()->algorithmBox(Algorithm::Gcra)->setChecked(false);
        settle();
        QCOMPARE(charts()->rowCount(), 6);
        QVERIFY(!rowOf(Algorithm::Gcra));
        QCOMPARE(m_window->dashboard()->summary()->rowCount(), 6);
        m_window->controls()->algorithmBox(Algorithm::Gcra)->setChecked(true);
        settle();
        QCOMPARE(charts()->rowCount(), 7);
    }

    void patternParametersAppearOnlyForTheirPattern()
    {
        ControlPanel* panel = m_window->controls();
        QVERIFY(panel->delay()->isVisible());
        panel->pattern()->setCurrentIndex(int(PatternKind::Burst));
        settle();
        QVERIFY(!panel->delay()->isVisible());
        QCOMPARE(frame().scenario->pattern.kind, PatternKind::Burst);
        // 15 requests in bursts of 5 every second: 0, 0, 0, 0, 0, 1, ...
        QCOMPARE(frame().trace->arrivals.at(5), Nanos(1'000'000'000));
    }

    void hoverTextMatchesTheCoreDecision()
    {
        RowChart* token = rowOf(Algorithm::TokenBucket);
        const std::size_t r = resultIndex(Algorithm::TokenBucket);
        QVERIFY(token->exactMarks());
        for (std::size_t i : {std::size_t(9), std::size_t(10), std::size_t(11)}) {
            const QPointF at = token->markPosition(i);
            const auto found = token->requestAt(at);
            QVERIFY(found.has_value());
            QCOMPARE(*found, i);
            const Decision& d = frame().trace->results[r].decisions[i];
            const QString text = token->hoverText(i);
            QVERIFY2(text.contains(QString("request %1 at t = ").arg(i + 1)), qPrintable(text));
            QCOMPARE(text.contains("denied"), !d.allowed);
            QVERIFY2(text.contains(QString("remaining at this instant: %1").arg(d.remaining)), qPrintable(text));
        }
        // Request 11 (index 10) at exactly 1.0 s finds one refilled token: admitted, 1 -> 0.
        QVERIFY(token->hoverText(10).contains("t = 1 s"));
        QVERIFY(token->hoverText(10).contains("tokens: 1 -> 0"));
        // Request 12 at 1.1 s is denied and may retry when the next token is due, 0.9 s later.
        QVERIFY(token->hoverText(11).contains("denied, retry after 0.9 s"));
    }

    void zoomingNarrowsEveryRowAndResetRestores()
    {
        const TimeRange full = charts()->range();
        charts()->zoom(1.0, 0.1);
        settle();
        const TimeRange zoomed = frame().range;
        QVERIFY(zoomed.to - zoomed.from < (full.to - full.from) / 5);
        for (int i = 0; i < charts()->rowCount(); ++i)
            QCOMPARE(charts()->row(i)->levelPoints().first().x(), secondsAsDouble(zoomed.from));
        charts()->resetZoom();
        settle();
        QCOMPARE(frame().range, full);
    }

    void manyRequestsAreReducedPerPixel()
    {
        m_window->controls()->requests()->spinBox()->setValue(200000);
        m_window->controls()->delay()->spinBox()->setValue(0.001);
        settle();
        QCOMPARE(frame().trace->arrivals.size(), std::size_t(200000));
        RowChart* row = rowOf(Algorithm::TokenBucket);
        QVERIFY(!row->exactMarks());
        // A few points per pixel column, never one per request.
        QVERIFY(row->levelPoints().size() <= 4 * row->plotColumns() + 8);
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
