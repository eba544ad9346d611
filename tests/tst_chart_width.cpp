// How wide the charts are, and that each frame is reduced once, to that width: at start-up, when
// rows start or stop scrolling, when the first row appears after none; and the side panels and
// the summary that share the window with them.
#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "window/documentactions.h"
#include "window/mainwindow.h"
#include "model/pipeline.h"
#include "scenario/scenario.h"
#include "model/scenariodocument.h"
#include "chart/summarytable.h"
#include "window_test.h"

#include <QDockWidget>
#include <QHeaderView>
#include <QScreen>
#include <QScrollBar>
#include <QSettings>
#include <QTest>

using namespace ratelab;
using namespace ratelab::ui;

class TestChartWidth : public WindowTest {
    Q_OBJECT

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s
    void cleanup() { m_window.reset(); }

    // A window builds its first frame once, when shown, at the charts' real width: not before
    // (at a width not yet laid out), and not again for a resize that asks for the same frame.
    void startupBuildsOneFrameAtTheChartsWidth_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<QString>("preset");
        QTest::newRow("the default, 1280x720") << QSize(1280, 720) << QString();
        QTest::newRow("the default, 1600x1000") << QSize(1600, 1000) << QString();
        QTest::newRow("a preset, 1600x1000") << QSize(1600, 1000) << QString("edge-burst");
        QTest::newRow("a preset, 1280x720") << QSize(1280, 720) << QString("token-vs-leaky");
        QTest::newRow("two servers, 1600x1000") << QSize(1600, 1000) << QString("two-servers-local");
        QTest::newRow("clients, 1280x720") << QSize(1280, 720) << QString("noisy-client");
    }
    void startupBuildsOneFrameAtTheChartsWidth()
    {
        QFETCH(QSize, size);
        QFETCH(QString, preset);
        m_window = std::make_unique<MainWindow>();
        if (!preset.isEmpty())
            m_window->documents()->openPreset(preset); // as ratelab --preset ID does
        m_window->resize(size);
        QCoreApplication::processEvents();
        QCOMPARE(m_window->pipeline()->jobsStarted(), std::size_t(0));
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        settle();
        QTest::qWait(0); // the charts look at their width after the frame's rows are laid out
        settle();
        QCOMPARE(m_window->pipeline()->jobsStarted(), std::size_t(1));
        QCOMPARE(int(frame().rows.front().columns.size()), charts()->columns());
    }

    // The rows' plot width does not depend on whether they scroll: seven rows scroll at
    // 1280x720, two fit, and both are drawn at one width (no frame rebuilt for the bar).
    void rowsThatStopScrollingKeepTheirWidth()
    {
        const int scrolling = charts()->columns();
        QVERIFY(charts()->row(0)->height() * 7 > charts()->height()); // they do scroll
        Scenario two;
        two.algorithms = {Algorithm::TokenBucket, Algorithm::Gcra};
        m_window->openScenario(two);
        settle();
        QTest::qWait(0);
        settle();
        QCOMPARE(charts()->rowCount(), 2);
        QVERIFY(charts()->row(0)->height() * 2 < charts()->height()); // and now they fit
        QCOMPARE(charts()->columns(), scrolling);
        QCOMPARE(int(frame().rows.front().columns.size()), scrolling);
    }

    // On a small screen (the offscreen one is 800x600, a projector 1280x720) the charts get the
    // width: a first start, with no saved layout, opens the classic preset with its lesson and
    // every other side panel closed.
    // On a small screen the charts keep the width: of the side panels only the Lesson and What
    // happened open at a first start, one above the other (What happened was a hidden
    // tab behind the Lesson).
    void sidePanelsStartClosedOnASmallScreen()
    {
        m_window.reset();
        QSettings("RateLab", "ratelab").clear();
        m_window = std::make_unique<MainWindow>();
        QVERIFY(m_window->screen()->availableGeometry().width() < 1500);
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        const auto docks = m_window->findChildren<QDockWidget*>();
        QCOMPARE(docks.size(), 5); // Lesson, What happened, At scale, Traffic, Deck
        for (const QDockWidget* dock : docks)
            QVERIFY2(dock->isVisible() == (dock->objectName() == "lessonDock" || dock->objectName() == "explainDock"),
                     qPrintable(dock->windowTitle()));
        const auto* lesson = m_window->findChild<QDockWidget*>("lessonDock");
        const auto* happened = m_window->findChild<QDockWidget*>("explainDock");
        QVERIFY(m_window->tabifiedDockWidgets(const_cast<QDockWidget*>(lesson)).isEmpty());
        QVERIFY(lesson->geometry().bottom() < happened->geometry().top()); // one above the other
        QCOMPARE(m_window->document()->presetId(), QString("seed-compare"));
    }

    // Ticking the first algorithm after none builds its frame once, at the row's width (in
    // presentation mode too, where larger type widens the row's margins).
    void theFirstRowAfterNoneIsReducedOnce()
    {
        m_window->setPresenting(true);
        Scenario none;
        none.algorithms = {};
        m_window->openScenario(none);
        settle();
        QCOMPARE(charts()->rowCount(), 0);
        const std::size_t before = m_window->pipeline()->jobsStarted();
        Scenario one;
        one.algorithms = {Algorithm::Gcra};
        m_window->openScenario(one);
        settle();
        QTest::qWait(0);
        settle();
        QCOMPARE(charts()->rowCount(), 1);
        QCOMPARE(m_window->pipeline()->jobsStarted(), before + 1);
        QCOMPARE(int(frame().rows.front().columns.size()), charts()->columns());
        m_window->setPresenting(false);
    }

    // A summary narrower than its text scrolls sideways and keeps its last column whole ("80 B
    // (10 entries)", not "80 B (10 ..."); a wide one lets that column fill the row.
    // A row's title, legend and counts never overprint each other ("Leaky bucket (queue)19
    // admitted"): each in the header, whole, the next on a line of its own where it would not fit.
    void titlesAndCountsNeverOverlap()
    {
        for (const int width : {1600, 760}) {
            m_window->resize(width, 720);
            settle();
            for (int r = 0; r < charts()->rowCount(); ++r) {
                RowChart* row = charts()->row(r);
                const RowChart::HeaderLayout h = row->header();
                const QString where = QString("%1 px: %2 | %3 | %4").arg(width).arg(h.title.text, h.legend.text, h.counts.text);
                const QRectF header = row->headerRect();
                for (const RowChart::HeaderPart* part : {&h.title, &h.legend, &h.counts})
                    QVERIFY2(header.contains(part->box), qPrintable(where));
                QVERIFY2(!h.title.box.intersects(h.legend.box) && !h.title.box.intersects(h.counts.box)
                             && !h.legend.box.intersects(h.counts.box),
                         qPrintable(where));
                QCOMPARE(h.title.text, row->title());
                QCOMPARE(h.counts.text, row->countsText());
            }
        }
    }

    void summaryKeepsItsLastColumnWhole()
    {
        SummaryTable table;
        table.setFrame(frame());
        const int memory = 6; // the last column shown without clients or nodes
        QVERIFY(table.isColumnHidden(memory + 1));
        table.show();
        QVERIFY(QTest::qWaitForWindowExposed(&table));
        int widest = 0; // "80 B (10 entries)", and a cell's margins besides
        for (int r = 0; r < table.rowCount(); ++r)
            widest = std::max(widest, table.fontMetrics().horizontalAdvance(table.item(r, memory)->text()) + 6);
        QHeaderView* header = table.horizontalHeader();
        for (int width = 400; width <= 800; width += 25) {
            table.resize(width, 240);
            QTest::qWait(0);
            QVERIFY2(header->sectionSize(memory) >= widest,
                     qPrintable(QString("at %1 px: %2 < %3").arg(width).arg(header->sectionSize(memory)).arg(widest)));
            const bool fits = header->sectionPosition(memory) + widest <= table.viewport()->width();
            QCOMPARE(table.horizontalScrollBar()->maximum() > 0, !fits);
        }
        table.resize(1400, 240);
        QTest::qWait(0);
        QCOMPARE(header->sectionViewportPosition(memory) + header->sectionSize(memory), table.viewport()->width());
    }
};

QTEST_MAIN(TestChartWidth)
#include "tst_chart_width.moc"
