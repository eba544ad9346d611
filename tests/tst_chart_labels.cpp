// Where a row's labels go (the bound, a node's key, the title's rates), on the real window at
// the sizes a teacher uses: never across the level line or each other.
#include "chart/chartstack.h"
#include "chart/rowchart.h"
#include "chart/theme.h"
#include "model/deckplayer.h"
#include "presets.h"
#include "window/deckactions.h"
#include "window_test.h"

#include <QLocale>
#include <QTest>

#include <cmath>

using namespace ratelab;
using namespace ratelab::ui;

class TestChartLabels : public WindowTest {
    Q_OBJECT

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart, limit 10 per 10 s
    void cleanup() { m_window.reset(); }

    // The closest window's label ("10 in this 10 s: the most it allows") sits where the level line leaves
    // room, at a projector's size and a laptop's: it never hides the line the row teaches (here
    // the staircase to the limit, all inside the band).
    void boundLabelsNeverCrossTheLevelLine()
    {
        // The label says what its second number is: the fixed window (10 per 10 s) admits the
        // first 10 of the 15, all in [0 s, 10 s), and allows up to 2 x 10 = 20 in any 10 s (10 at
        // a window's end, 10 at the next one's start). Before, "(at most 20)" said nothing of whom.
        QCOMPARE(charts()->row(0)->algorithm(), Algorithm::FixedWindow);
        QCOMPARE(charts()->row(0)->boundLabel(), QString("10 in this 10 s (it allows up to 20)"));
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            m_window->resize(size);
            settle();
            for (int r = 0; r < 4; ++r) {
                const RowChart* row = charts()->row(r);
                const QRectF box = row->boundLabelBox();
                QVERIFY2(!box.isEmpty(), qPrintable(row->boundLabel()));
                QVERIFY2(!row->crossesLevel(box), qPrintable(QString("row %1 at %2x%3").arg(r).arg(size.width()).arg(size.height())));
                QVERIFY(row->crossesLevel(QRectF(row->rect()))); // the test can see a crossing
            }
        }
    }

    // In pick-a-limit the token bucket's closest window ends where its line starts to climb,
    // under the capacity line; in nginx-page-load nginx's is at the plot's left edge, where its
    // line slopes down through every height: at a projector's size and up, each label finds a
    // place clear of the lines.
    void boundLabelsKeepOffTheLines_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::newRow("pick-a-limit") << "pick-a-limit";
        QTest::newRow("nginx-page-load") << "nginx-page-load";
    }

    void boundLabelsKeepOffTheLines()
    {
        QFETCH(QString, preset);
        const io::LoadResult p = io::loadPreset(preset);
        QVERIFY(p.scenario);
        openWindow(*p.scenario);
        std::vector<QSize> sizes;
        for (int w = 1280; w <= 1600; w += 160)
            for (int h = 720; h <= 1000; h += 40)
                sizes.emplace_back(w, h);
        for (const QSize size : sizes) {
            m_window->resize(size);
            settle();
            for (std::size_t r = 0; r < frame().rows.size(); ++r) {
                const RowChart* row = charts()->row(r);
                const QRectF box = row->boundLabelBox();
                QVERIFY(!box.isEmpty());
                const QString where = QString("row %1 at %2x%3").arg(r).arg(size.width()).arg(size.height());
                QVERIFY2(!row->crossesLevel(box), qPrintable(where));
                QVERIFY2(!row->crossesCeiling(box), qPrintable(where));
            }
        }
        const RowChart* first = charts()->row(0);
        QVERIFY(first->crossesCeiling(first->plotRect())); // the test can see a crossing
    }

    // The key of the node lines goes to a corner no line passes through: in two-servers-local
    // the token bucket's lines start at the top left, so its key moves; the windows' keep it.
    void nodeKeysStayOffTheLines()
    {
        const io::LoadResult p = io::loadPreset("two-servers-local");
        QVERIFY(p.scenario);
        openWindow(*p.scenario);
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            m_window->resize(size);
            settle();
            for (int r = 0; r < 3; ++r) {
                const RowChart* row = charts()->row(r);
                const QRectF box = row->keyBox();
                QVERIFY(!box.isEmpty());
                QVERIFY2(!row->crossesLevel(box), qPrintable(QString("row %1 at %2x%3").arg(r).arg(size.width()).arg(size.height())));
            }
        }
    }

    // A rate limiter in front of a server (the server presets with a fixed window or a token
    // bucket of 10 a second, or 200, added) draws, over one plot, the ceiling's name, the key of
    // the client lines, the attempt bars' peak and caption, the server's caption and the bound:
    // at a projector's size and a laptop's, in both themes, no two of them overlap. Before, the
    // server's caption ran across the top of the plot under the key and "limit 10".
    void captionsNeverOverlap_data()
    {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QString>("theme");
        QTest::addColumn<int>("limit");
        for (const char* preset : {"retry-storm-metastable", "noisy-tenant-apf"})
            for (const char* theme : {"light", "dark"})
                for (const int limit : {10, 200})
                    QTest::addRow("%s, %s, %d", preset, theme, limit) << QString(preset) << QString(theme) << limit;
    }

    void captionsNeverOverlap()
    {
        QFETCH(QString, preset);
        QFETCH(QString, theme);
        QFETCH(int, limit);
        io::LoadResult p = io::loadPreset(preset);
        QVERIFY(p.scenario);
        Scenario s = *p.scenario;
        s.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
        s.config = LimiterConfig::make(limit, kNanosPerSecond);
        openWindow(s);
        applyTheme(themeFromId(theme)); // after the window's own, from its settings
        int labelled = 0;
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            m_window->resize(size);
            settle();
            for (int r = 0; r < charts()->rowCount(); ++r) {
                const std::vector<RowChart::PlotLabel> labels = charts()->row(r)->plotLabels();
                labelled += int(labels.size());
                for (std::size_t i = 0; i < labels.size(); ++i)
                    for (std::size_t j = i + 1; j < labels.size(); ++j)
                        QVERIFY2(!labels[i].box.intersects(labels[j].box),
                                 qPrintable(QString("row %1 at %2x%3: \"%4\" and \"%5\"")
                                                .arg(r)
                                                .arg(size.width())
                                                .arg(size.height())
                                                .arg(labels[i].text, labels[j].text)));
            }
        }
        QVERIFY(labelled >= 4); // the test sees the captions
    }

    // A server's lanes read between 0 and their top. The-server-behind's AIMD step (its 5th):
    // 2,000 requests 0.005 s apart (200 a second) through a limit that climbs to 31 and halves to
    // 15, 7, 3, 1. The lane of the requests in the server then runs to niceCeiling(31 x 1.05 =
    // 32.6) = 40, and the goodput's to niceCeiling(200 x 1.05 = 210) = 300 a second. In a lane
    // six labels tall or more, a 1-2-5 step about a label and a half apart is 10 or 5 requests
    // and 100 or 50 a second: 10, 20, 30 and 100/s, 200/s are on the axes (before, only 0 and the
    // top were, and 31, 15, 7 could not be read), in ink, at both sizes and in both themes, and
    // no label of a lane meets another or a lane's caption.
    void laneAxesHaveRoundTicks_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << "light";
        QTest::newRow("dark") << "dark";
    }

    void laneAxesHaveRoundTicks()
    {
        QFETCH(QString, theme);
        QVERIFY(m_window->decks()->openDeck("the-server-behind"));
        m_window->deck()->goTo(4);
        QVERIFY(m_window->deck()->next()); // reveals the question's decisions
        QVERIFY(m_window->deck()->revealed());
        applyTheme(themeFromId(theme));
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            m_window->resize(size);
            settle();
            const RowChart* row = charts()->row(0);
            const std::vector<RowChart::ServerLane> lanes = row->serverLanes();
            QCOMPARE(lanes.size(), std::size_t(3));
            QCOMPARE(lanes[0].top, 40.0);
            QCOMPARE(lanes[2].top, 300.0);
            const QFontMetricsF fm(row->font());
            const auto ticks = [&](const RowChart::ServerLane& lane) {
                QStringList shown;
                for (const RowChart::LaneLabel& l : row->laneLabels(lane))
                    if (l.kind == RowChart::LaneLabel::Tick)
                        shown << l.text;
                return shown;
            };
            const QString where = QString("%1x%2: ").arg(size.width()).arg(size.height());
            QVERIFY2(lanes[0].rect.height() >= 6 * fm.height(), qPrintable(where));
            for (const char* v : {"10", "20", "30"})
                QVERIFY2(ticks(lanes[0]).contains(v), qPrintable(where + ticks(lanes[0]).join(' ')));
            for (const char* v : {"100/s", "200/s"})
                QVERIFY2(ticks(lanes[2]).contains(v), qPrintable(where + ticks(lanes[2]).join(' ')));
            std::vector<RowChart::LaneLabel> all;
            for (const RowChart::ServerLane& lane : lanes)
                for (const RowChart::LaneLabel& l : row->laneLabels(lane))
                    all.push_back(l);
            for (std::size_t i = 0; i < all.size(); ++i)
                for (std::size_t j = i + 1; j < all.size(); ++j)
                    QVERIFY2(!all[i].box.intersects(all[j].box), qPrintable(where + all[i].text + " and " + all[j].text));
            // Ink on the goodput's axis between its top's label and its 0's: the ticks are drawn.
            const QImage image = const_cast<RowChart*>(row)->grab().toImage();
            const QRectF& g = lanes[2].rect;
            QHash<QRgb, int> colours; // the commonest is the background; the rest is ink
            int pixels = 0;
            for (int y = int(g.top() + fm.height()) + 1; y < int(g.bottom() - fm.height()) - 1; ++y)
                for (int x = 0; x < int(g.left()) - 5; ++x, ++pixels)
                    ++colours[image.pixel(x, y)];
            const int ink = pixels - *std::max_element(colours.begin(), colours.end());
            QVERIFY2(ink > 20, qPrintable(where + QString::number(ink)));
        }
    }

    // A row of clients that retry draws their attempts a second in a lane of its own, under the
    // level plot, against its own axis in its own unit; the level plot keeps the level's axis
    // alone. Before, the bars stood in the level plot's bottom third and only the tallest one's
    // "100/s" said their scale, level with the level axis's 4. retries-and-retry-after's first
    // step: one client sends 20 requests at 0 s to a fixed window of 10 per 10 s and retries each
    // denial 0.5 s later, up to 20 times, in a view from -0.5 s to 10.5 s. The bars are 60 at
    // most, of a round width of at least 11 s / 60 = 0.183 s: 0.2 s, from -0.5 s. The 20 first
    // attempts fall in [-0.1 s, 0.1 s); each round of 10 retries (0.5 s, 1 s, ..., 10 s) in a
    // bucket of its own, as they are 0.5 s apart. The tallest bar is 20 in 0.2 s, 100 a second,
    // and the lane's top niceCeiling(100 x 1.05 = 105) = 120/s. Its ticks between are a 1-2-5
    // step of 120 (20, 50 or 100 a second, or 10 in a tall lane): whole tens.
    void attemptsHaveALaneOfTheirOwn_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << "light";
        QTest::newRow("dark") << "dark";
    }

    void attemptsHaveALaneOfTheirOwn()
    {
        QFETCH(QString, theme);
        QVERIFY(m_window->decks()->openDeck("retries-and-retry-after"));
        applyTheme(themeFromId(theme));
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            m_window->deck()->goTo(0);
            QVERIFY(!m_window->deck()->revealed());
            m_window->resize(size);
            settle();
            const RowChart* row = charts()->row(0);
            QCOMPARE(row->algorithm(), Algorithm::FixedWindow);
            const QString where = QString("%1x%2: ").arg(size.width()).arg(size.height());
            // Veiled, the lane is there, with its name alone: its bars and scale would answer.
            const std::optional<RowChart::ServerLane> veiled = row->attemptsLane();
            QVERIFY2(veiled, qPrintable(where));
            const std::vector<RowChart::LaneLabel> named = row->laneLabels(*veiled);
            QCOMPARE(named.size(), std::size_t(1));
            QCOMPARE(named[0].kind, RowChart::LaneLabel::Caption);
            QVERIFY(m_window->deck()->next()); // reveals the question's decisions
            settle();
            const std::optional<RowChart::ServerLane> lane = row->attemptsLane();
            QVERIFY2(lane, qPrintable(where));
            QCOMPARE(lane->rect, veiled->rect); // the reveal does not move the plot
            QCOMPARE(lane->top, 120.0);
            QCOMPARE(lane->unit, QString("/s"));
            const QRectF plot = row->plotRect();
            QVERIFY2(lane->rect.top() > plot.bottom(), qPrintable(where));
            for (const RowChart::PlotLabel& l : row->plotLabels()) // nothing on the level plot is a rate
                QVERIFY2(!l.text.contains("/s"), qPrintable(where + l.text));
            QStringList texts;
            for (const RowChart::LaneLabel& l : row->laneLabels(*lane)) {
                texts << l.text;
                if (l.kind == RowChart::LaneLabel::Caption) {
                    QVERIFY2(l.text.startsWith("attempts (req/s)"), qPrintable(l.text));
                    continue;
                }
                // Beside the lane, never beside the level plot above it.
                QVERIFY2(l.box.center().y() >= lane->rect.top() && l.box.center().y() <= lane->rect.bottom(), qPrintable(where + l.text));
                QCOMPARE(l.text, QLocale().toString(l.value) + "/s");
                QVERIFY2(l.kind != RowChart::LaneLabel::Tick || std::fmod(l.value, 10) == 0, qPrintable(where + l.text));
            }
            QVERIFY2(texts.contains("120/s") && texts.contains("0/s"), qPrintable(where + texts.join(' ')));
            // No bar in the level plot: under the retries at 0.5 s its bottom is as empty as at
            // the level 3, well above where the bars stood (the level runs at 10 there).
            const QImage image = const_cast<RowChart*>(row)->grab().toImage();
            const int x = int(plot.left() + (0.6 + 0.5) / 11.0 * plot.width());
            QCOMPARE(image.pixel(x, int(plot.bottom()) - 3), image.pixel(x, int(plot.bottom() - plot.height() / 4)));
        }
    }

    // A rate limiter with a server behind it draws the server's latency and goodput each in a
    // lane of its own under the level plot, named and scaled as a concurrency limiter's lanes
    // are; the level plot keeps the level alone. Before, a grey band and green bars stood in the
    // level plot, on scales named only by a caption over it ("grey band: latency p50 to p99 (top
    // 2.1 s) · bars: served in time (top 95/s)"). A token bucket of capacity 3 (limit 3 per 10 s)
    // takes 10 requests at 0 s: it admits 3 and denies 7. The server has 2 workers of 1 s each
    // and the client waits 1.5 s: two are served from 0 s to 1 s (latency 1 s: in time), the
    // third waits for a worker and is served from 1 s to 2 s (latency 2 s: late). Viewed from 0 s
    // to 30 s, the buckets are the least round width of at least 30 s / 60 = 0.5 s: 0.5 s, so
    // bucket 2, [1 s, 1.5 s), holds the two in time and bucket 4, [2 s, 2.5 s), the late one.
    // Goodput peaks at 2 in 0.5 s, 4 a second: its lane's top is niceCeiling(4 x 1.05 = 4.2) =
    // 5/s. The slowest p99 is 2 s: the latency lane's top is niceCeiling(2 x 1.05 = 2.1) = 3 s.
    void aServerBehindARateLimiterHasLanesOfItsOwn_data()
    {
        QTest::addColumn<QString>("theme");
        QTest::newRow("light") << "light";
        QTest::newRow("dark") << "dark";
    }

    void aServerBehindARateLimiterHasLanesOfItsOwn()
    {
        QFETCH(QString, theme);
        Scenario s;
        s.algorithms = {Algorithm::TokenBucket};
        s.config = LimiterConfig::make(3, 10 * kNanosPerSecond);
        s.explicitArrivals = std::vector<Nanos>(10, 0);
        s.server = ServerConfig::parse("workers=2,service=const:1s,timeout=1.5s");
        openWindow(s);
        applyTheme(themeFromId(theme));
        charts()->zoomToSpan(0, 30);
        settle();
        const RowChart* row = charts()->row(0);
        QCOMPARE(row->algorithm(), Algorithm::TokenBucket);
        QVERIFY(row->served());
        QCOMPARE(row->served()->widthNanos, kNanosPerSecond / 2);
        QCOMPARE(row->served()->inTime[2], std::int64_t(2));
        QCOMPARE(row->served()->served[4], std::int64_t(1));
        QCOMPARE(row->served()->inTime[4], std::int64_t(0));
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            m_window->resize(size);
            settle();
            const QString where = QString("%1x%2: ").arg(size.width()).arg(size.height());
            const std::vector<RowChart::ServerLane> lanes = row->lanesBelow();
            QCOMPARE(lanes.size(), std::size_t(2));
            QCOMPARE(lanes[0].name, QString("latency p50 to p99 (s)"));
            QCOMPARE(lanes[0].top, 3.0);
            QCOMPARE(lanes[1].name, QString("goodput: served in time (req/s)"));
            QCOMPARE(lanes[1].top, 5.0);
            const auto texts = [&](const RowChart::ServerLane& lane) {
                QStringList shown;
                for (const RowChart::LaneLabel& l : row->laneLabels(lane))
                    shown << l.text;
                return shown;
            };
            QVERIFY2(texts(lanes[0]).contains("3 s") && texts(lanes[0]).contains("0 s"), qPrintable(where + texts(lanes[0]).join('|')));
            QVERIFY2(texts(lanes[1]).contains("5/s") && texts(lanes[1]).contains("0/s"), qPrintable(where + texts(lanes[1]).join('|')));
            const QRectF plot = row->plotRect();
            QVERIFY2(lanes[0].rect.top() > plot.bottom() && lanes[1].rect.top() > lanes[0].rect.bottom(), qPrintable(where));
            for (const RowChart::PlotLabel& l : row->plotLabels()) // the level plot names no latency or rate
                QVERIFY2(!l.text.contains("/s") && !l.text.contains("latency") && !l.text.contains("grey band"), qPrintable(where + l.text));
            // The bars are drawn in their lane, none in the level plot: at 1.25 s, in the bucket
            // of the two in time, the plot's bottom is as empty as at 20.25 s, where nothing was
            // served (the level, 0.375 of 4 tokens at 1.25 s, runs well above it).
            const QImage image = const_cast<RowChart*>(row)->grab().toImage();
            const auto x = [&](double t) { return int(plot.left() + t / 30 * plot.width()); };
            QCOMPARE(image.pixel(x(1.25), int(plot.bottom()) - 3), image.pixel(x(20.25), int(plot.bottom()) - 3));
            const QRectF& g = lanes[1].rect; // 4/s of 5/s: the bar fills 0.8 of the lane
            QCOMPARE(QColor(image.pixel(x(1.25), int(g.bottom()) - 3)), RowChart::outcomeColor(Outcome::InTime, row->palette()));
            int inked = 0; // the latency band at 1 s: ink in its column where 20.25 s has none
            const QRectF& l = lanes[0].rect;
            for (int y = int(l.top() + QFontMetricsF(row->font()).height()) + 1; y < int(l.bottom()) - 1; ++y)
                inked += image.pixel(x(1.25), y) != image.pixel(x(20.25), y) ? 1 : 0;
            QVERIFY2(inked > 0, qPrintable(where));
            // Veiled, the lanes stay where they are with their names alone (their scales would
            // tell how many were served).
            charts()->setVeiled(true);
            settle();
            const std::vector<RowChart::ServerLane> veiled = row->lanesBelow();
            QCOMPARE(veiled.size(), std::size_t(2));
            for (std::size_t k = 0; k < veiled.size(); ++k) {
                QCOMPARE(veiled[k].rect, lanes[k].rect);
                QCOMPARE(texts(veiled[k]), QStringList{lanes[k].name});
            }
            QCOMPARE(row->plotRect(), plot);
            charts()->setVeiled(false);
        }
    }

    // Every lane of every row reads from its 0 to its top, with its name, however many rows share
    // the window: retry-storm-metastable with a fixed window and a token bucket in front is four
    // rows of four measures each (the two rate limiters' level plots with three lanes under each,
    // the concurrency limiters' four lanes in their plots) in a window of 1280x720 or 1600x1000.
    // A lane labels its 0 only when it is 2.2 labels tall or more (laneLabels): the rows scroll
    // rather than squeeze a lane under that. Before, the rate limiters' rows kept their lanes'
    // room and the concurrency limiters' lanes were squeezed to a caption's height, their names
    // over each other and no 0 on their axes.
    void everyLaneReadsFromZero()
    {
        io::LoadResult p = io::loadPreset("retry-storm-metastable");
        QVERIFY(p.scenario);
        Scenario s = *p.scenario;
        s.algorithms = {Algorithm::FixedWindow, Algorithm::TokenBucket};
        openWindow(s);
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)}) {
            m_window->resize(size);
            settle();
            QCOMPARE(charts()->rowCount(), 4);
            for (int r = 0; r < charts()->rowCount(); ++r) {
                const RowChart* row = charts()->row(r);
                std::vector<RowChart::ServerLane> lanes = row->serverLanes();
                for (const RowChart::ServerLane& lane : row->lanesBelow())
                    lanes.push_back(lane);
                QCOMPARE(lanes.size(), r < 2 ? std::size_t(3) : std::size_t(4));
                for (const RowChart::ServerLane& lane : lanes) {
                    const std::vector<RowChart::LaneLabel> labels = row->laneLabels(lane);
                    QVERIFY2(std::any_of(labels.begin(), labels.end(), [](const RowChart::LaneLabel& l) { return l.kind == RowChart::LaneLabel::Zero; }),
                             qPrintable(QString("%1x%2, row %3: %4, %5 px").arg(size.width()).arg(size.height()).arg(r).arg(lane.name).arg(lane.rect.height())));
                }
            }
        }
        // As the preset ships (its two concurrency rows alone), the lanes are about four labels
        // tall: "300" stood on "200" with no space between, read as one number.
        openWindow(*p.scenario);
        for (const QSize size : {QSize(1280, 720), QSize(1600, 1000)})
            for (int r = 0; r < charts()->rowCount(); ++r)
                lanesKeepLabelsApart(charts()->row(r), size);
    }

    // A wrapped title never splits a rate at its slashes ("0.5/" then "s" on the next line on a
    // projector): a word joiner follows each slash.
    void titlesKeepRatesWhole()
    {
        Scenario s;
        s.config = LimiterConfig::make(5, 6 * kNanosPerSecond);
        const QString title = Dashboard::describe(s);
        QVERIFY2(title.contains(QString::fromUtf8("rate 5/\u20606/\u2060s")), qPrintable(title));
    }

    // A scenario of concurrency rows alone (the server presets) names no limit, capacity or rate:
    // no row reads them.
    void titleOfServerRowsAloneNamesNoLimit()
    {
        Scenario s;
        s.algorithms.clear();
        s.concurrency = {GateSpec::parse("none"), GateSpec::parse("fixed:limit=10")};
        s.pattern.count = 3;
        const QString title = Dashboard::describe(s);
        QVERIFY2(!title.contains("limit") && !title.contains("capacity") && !title.contains("rate"), qPrintable(title));
        QVERIFY2(title.startsWith(QString::fromUtf8("RateLab — 3 requests")), qPrintable(title));
    }

private:
    // lanesKeepLabelsApart checks that no two labels of a lane come within a quarter of a line of
    // each other (laneLabels' rule), at `size`.
    void lanesKeepLabelsApart(const RowChart* row, QSize size)
    {
        m_window->resize(size);
        settle();
        const double gap = QFontMetricsF(row->font()).height() / 4 - 0.01;
        std::vector<RowChart::ServerLane> lanes = row->serverLanes();
        for (const RowChart::ServerLane& lane : row->lanesBelow())
            lanes.push_back(lane);
        for (const RowChart::ServerLane& lane : lanes) {
            const std::vector<RowChart::LaneLabel> labels = row->laneLabels(lane);
            for (std::size_t i = 0; i < labels.size(); ++i)
                for (std::size_t j = i + 1; j < labels.size(); ++j)
                    QVERIFY2(!labels[i].box.adjusted(0, -gap, 0, gap).intersects(labels[j].box),
                             qPrintable(QString("%1x%2, %3: %4 and %5").arg(size.width()).arg(size.height()).arg(lane.name, labels[i].text, labels[j].text)));
        }
    }
};

QTEST_MAIN(TestChartLabels)
#include "tst_chart_labels.moc"
