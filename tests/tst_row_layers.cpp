// Each of a row's layers painted alone (chart/row_layers.h, chart/lane_layers.h), into a white image without
// antialiasing, checked pixel by pixel against where the layer must and must not fall. The area
// is the plot x 10..110, y 30..70, the strip from y 20, the lanes down to y 80, over [0, 10 s):
// a second is 10 pixels, 5 s is x = 60.
#include "chart/lane_layers.h"
#include "chart/row_layers.h"
#include "view/reduce.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPainter>
#include <QTest>

#include <array>
#include <cmath>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

constexpr Nanos S = 1'000'000'000;

RowArea area() { return {QRectF(10, 30, 100, 40), 20, 80, 0, 10 * S}; }

QImage blank()
{
    QImage image(140, 100, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    return image;
}

template <typename Paint>
QImage painted(Paint paint)
{
    QImage image = blank();
    QPainter p(&image);
    paint(p);
    return image;
}

bool white(const QImage& image, int x, int y) { return image.pixelColor(x, y) == QColor(Qt::white); }

// inked is true when some pixel of `box` is as `is` says (text's ink, say).
template <typename Is>
bool inked(const QImage& image, const QRect& box, Is is)
{
    for (int x = box.left(); x <= box.right(); ++x)
        for (int y = box.top(); y <= box.bottom(); ++y)
            if (is(image.pixelColor(x, y)))
                return true;
    return false;
}

bool black(const QColor& c) { return c.lightness() < 60; }

} // namespace

class TestRowLayers : public QObject {
    Q_OBJECT

private slots:
    void timesMapAcrossThePlot()
    {
        QCOMPARE(area().xOf(0), 10.0);
        QCOMPARE(area().xOf(5), 60.0);
        QCOMPARE(area().xOf(10), 110.0);
        QCOMPARE(area().xOf(12), 130.0); // beyond the edge, in proportion
        QCOMPARE(area().column(40, 50), QRectF(40, 20, 10, 60));
    }

    void thePlayheadCrossesStripPlotAndLanes()
    {
        const QImage at5 = painted([](QPainter& p) { paintPlayhead(p, area(), 5 * S); });
        for (const int y : {21, 50, 79})
            QVERIFY2(!white(at5, 59, y) || !white(at5, 60, y), qPrintable(QString::number(y)));
        const QColor c = at5.pixelColor(60, 50);
        QVERIFY(c.red() > 200 && c.blue() < 100); // orange
        for (const auto& [x, y] : std::array<std::pair<int, int>, 4>{{{70, 50}, {50, 50}, {60, 15}, {60, 85}}})
            QVERIFY2(white(at5, x, y), qPrintable(QString("%1,%2").arg(x).arg(y)));
        // At the range's end, or before its start, there is nothing to draw.
        QCOMPARE(painted([](QPainter& p) { paintPlayhead(p, area(), 10 * S); }), blank());
        QCOMPARE(painted([](QPainter& p) { paintPlayhead(p, area(), -1); }), blank());
    }

    void aSelectionFillsItsSpanInEitherOrder()
    {
        const QImage image = painted([](QPainter& p) { paintSelection(p, area(), 80, 40, Qt::blue); });
        QVERIFY(!white(image, 60, 25) && !white(image, 60, 75));
        const QColor c = image.pixelColor(60, 50);
        QVERIFY(c.blue() == 255 && c.red() > 150); // a fifth of the highlight over white
        for (const auto& [x, y] : std::array<std::pair<int, int>, 4>{{{30, 50}, {90, 50}, {60, 15}, {60, 85}}})
            QVERIFY2(white(image, x, y), qPrintable(QString("%1,%2").arg(x).arg(y)));
        QCOMPARE(painted([](QPainter& p) { paintSelection(p, area(), 40, 80, Qt::blue); }), image);
    }

    void everyOtherWindowIsShadedAndEachStartLined()
    {
        // Windows of 2 s: [2, 4) and [6, 8) shaded (x 30..50, 70..90), lines at x 10, 30, 50, 70, 90.
        const QImage image = painted([](QPainter& p) { paintWindowBands(p, area(), {2 * S, std::nullopt, false}); });
        for (const int x : {35, 45, 75, 85}) {
            const QColor c = image.pixelColor(x, 50);
            QVERIFY2(!white(image, x, 50) && c.blue() > c.red(), qPrintable(QString::number(x)));
        }
        for (const int x : {15, 25, 55, 65, 95, 105})
            QVERIFY2(white(image, x, 50), qPrintable(QString::number(x)));
        QVERIFY(!white(image, 30, 50) && !white(image, 70, 25)); // the lines cross the strip too
        QVERIFY(white(image, 35, 85) && white(image, 35, 15));   // nothing beyond the row
        // The trailing window at 5 s, (3, 5]: x 40..60, orange over the band and the plain window.
        const QImage trailing = painted([](QPainter& p) { paintWindowBands(p, area(), {2 * S, 5 * S, false}); });
        const QColor c = trailing.pixelColor(55, 50);
        QVERIFY(!white(trailing, 55, 50) && c.red() > c.blue());
        QVERIFY(white(trailing, 65, 50));
        // Windows of 1 s are 10 pixels apart, closer than 12: nothing is drawn.
        QCOMPARE(painted([](QPainter& p) { paintWindowBands(p, area(), {S, std::nullopt, false}); }), blank());
    }

    void blockedSpansShadeThePlotLeftOfThePlayhead()
    {
        const std::array<std::pair<Nanos, Nanos>, 2> spans{{{2 * S, 4 * S}, {20 * S, 30 * S}}};
        const QImage image = painted([&](QPainter& p) { paintBlockSpans(p, area(), spans, QColor(200, 0, 0, 100), 40); });
        QVERIFY(!white(image, 35, 50));
        QVERIFY(white(image, 45, 50)); // the span goes on to x 50, but the playhead is at 40
        QVERIFY(white(image, 35, 25)); // the plot only: not the strip
        QVERIFY(white(image, 25, 50)); // before the span
    }

    void aPinnedMarkIsRingedAndLined()
    {
        const QImage image = painted([](QPainter& p) { paintPinned(p, area(), 60, 25, 5); });
        const QColor ring = image.pixelColor(65, 25);
        QVERIFY(ring.blue() > ring.green() && ring.red() > ring.green()); // violet
        QVERIFY(white(image, 62, 25) && white(image, 58, 25)); // inside the ring, off the line
        QVERIFY(white(image, 60, 90));                        // the line stops at the lanes' bottom
        bool dashed = false, gap = false; // the dashed line through the row at x 60
        for (int y = 35; y < 80; ++y)
            (white(image, 60, y) ? gap : dashed) = true;
        QVERIFY(dashed && gap);
    }

    // What marks a moment (the playhead, a pinned mark, a departure) and what labels the plot
    // from outside it (the key, an unclipped label) is drawn whatever clip the painter has.
    void marksAndUnclippedLabelsIgnoreTheClipTheyFind()
    {
        const auto clipped = [](auto paint) {
            return painted([&](QPainter& p) {
                p.setClipRect(QRectF(0, 0, 20, 20));
                paint(p);
            });
        };
        QVERIFY(!white(clipped([](QPainter& p) { paintPlayhead(p, area(), 5 * S); }), 60, 50));
        QVERIFY(!white(clipped([](QPainter& p) { paintPinned(p, area(), 60, 25, 5); }), 65, 25));
        const std::array<Nanos, 1> leaves{5 * S};
        QVERIFY(!white(clipped([&](QPainter& p) { paintDepartures(p, area(), leaves, 4, Qt::darkYellow); }), 60, 61));
        QCOMPARE(clipped([](QPainter& p) { paintLabel(p, QRectF(40, 40, 20, 10), "", Qt::yellow, Qt::black, std::nullopt); })
                     .pixelColor(45, 45),
                 QColor(Qt::yellow));
        const std::array<QColor, 0> none{};
        QCOMPARE(clipped([&](QPainter& p) { paintKey(p, QRectF(40, 40, 50, 12), {}, none, QFont(), Qt::yellow, Qt::black, Qt::gray); })
                     .pixelColor(45, 45),
                 QColor(Qt::yellow));
    }

    // The dark theme's bands and lines are light on a dark plot.
    void darkWindowBandsAreLight()
    {
        QImage image(140, 100, QImage::Format_ARGB32_Premultiplied);
        image.fill(Qt::black);
        {
            QPainter p(&image);
            paintWindowBands(p, area(), {2 * S, std::nullopt, true});
        }
        QVERIFY(image.pixelColor(35, 50).lightness() > 0);  // the band [2, 4)
        QCOMPARE(image.pixelColor(25, 50), QColor(Qt::black)); // the plain window [0, 2)
        QVERIFY(image.pixelColor(30, 50).lightness() > image.pixelColor(35, 50).lightness()); // its start's line
    }

    void theBoundBandShadesThePlotBetweenDashedEdges()
    {
        const QColor violet(0x6d, 0x28, 0xd9);
        const QImage image = painted([&](QPainter& p) { paintBoundBand(p, area(), 40, 60, violet, false); });
        const QColor c = image.pixelColor(50, 50);
        QVERIFY(!white(image, 50, 50) && c.blue() > c.green());
        QVERIFY(white(image, 50, 25) && white(image, 35, 50) && white(image, 65, 50));
        bool dashed = false; // some of the edge is drawn over the shade, not all of it
        bool gap = false;
        for (int y = 31; y < 70; ++y)
            (image.pixelColor(40, y) == image.pixelColor(50, y) ? gap : dashed) = true;
        QVERIFY(dashed && gap);
        // An edge left of the plot is not drawn, and the shade stops at the plot's edge.
        const QImage left = painted([&](QPainter& p) { paintBoundBand(p, area(), 5, 30, violet, false); });
        QVERIFY(white(left, 5, 50) && white(left, 9, 50) && !white(left, 20, 50));
    }

    void aLabelIsWrittenOnItsPatchInsideItsClip()
    {
        const QRectF box(20, 40, 40, 14);
        const QImage image = painted([&](QPainter& p) { paintLabel(p, box, "x", Qt::yellow, Qt::black, std::nullopt); });
        QCOMPARE(image.pixelColor(21, 41), QColor(Qt::yellow));
        QVERIFY(inked(image, QRect(20, 40, 40, 14), black));
        const QImage clipped = painted([&](QPainter& p) { paintLabel(p, box, "x", Qt::yellow, Qt::black, QRectF(30, 0, 100, 100)); });
        QVERIFY(white(clipped, 21, 41) && clipped.pixelColor(35, 41) == QColor(Qt::yellow));
    }

    void theLevelLineRunsToThePlayhead()
    {
        // From (0 s, 0) to (10 s, the top): the plot's diagonal, (10, 70) to (110, 30); drawn up
        // to x 60, the playhead. nginx's water, in thousandths, draws the same line.
        const QList<QPointF> points{{0, 0}, {10, 1}};
        const QList<QPointF> water{{0, 0}, {10, 1000}};
        OffsetLine cache;
        const QImage image = painted([&](QPainter& p) { paintLevelLine(p, area(), {&points, 1, 1, Qt::blue, 60}, cache); });
        const auto near = [&](const QImage& i, int x, int y) { return !white(i, x, y) || !white(i, x, y - 1) || !white(i, x, y + 1); };
        QVERIFY(near(image, 30, 62) && near(image, 50, 54));
        QVERIFY(white(image, 90, 38) && white(image, 50, 40)); // past the playhead; off the line
        OffsetLine other;
        QCOMPARE(painted([&](QPainter& p) { paintLevelLine(p, area(), {&water, 1000, 1, Qt::blue, 60}, other); }), image);
    }

    void departuresAreHollowDiamondsAlongThePlotsBottom()
    {
        // h = 4 at the plot's bottom (70): centred on y 65, at x 60 for 5 s; 12 s is out of range.
        const std::array<Nanos, 2> leaves{5 * S, 12 * S};
        const QImage image = painted([&](QPainter& p) { paintDepartures(p, area(), leaves, 4, Qt::darkYellow); });
        QVERIFY(!white(image, 60, 61) && !white(image, 63, 65) && !white(image, 57, 65));
        QVERIFY(white(image, 60, 65)); // hollow
        QVERIFY(white(image, 130, 65) && white(image, 60, 55));
    }

    void theStripsBandIsFilledAndClipsWhatFollows()
    {
        QRectF clip;
        const QImage image = painted([&](QPainter& p) {
            clip = paintStripBand(p, area(), Qt::yellow, 60);
            p.fillRect(QRectF(0, 0, 140, 100), Qt::black); // clipped to the band's clip
        });
        QCOMPARE(clip, QRectF(QPointF(4, 20), QPointF(65, 28))); // 6 px left of the plot, 5 right of x 60
        QCOMPARE(image.pixelColor(50, 24), QColor(Qt::black));
        QCOMPARE(image.pixelColor(70, 24), QColor(Qt::yellow)); // the band, right of the clip
        QVERIFY(white(image, 50, 29) && white(image, 2, 24) && white(image, 112, 24));
    }

    // Four columns of 25 pixels; lanes' bottoms at 40, 55, 70 and a full bar 10 high. Column 0:
    // 3 admitted, 1 denied: bars of 7.5 (y 32.5..40) and 2.5 (67.5..70); column 1 empty; column
    // 2: 2 delayed, a full bar (45..55).
    void theStripsBarsAreEachLanesShare()
    {
        const std::array<Column, 4> columns{{{3, 0, 1}, {}, {0, 2, 0}, {}}};
        StripBars bars;
        bars.columns = columns;
        bars.bottom = {40, 55, 70};
        bars.fullHeight = 10;
        bars.colour = {Qt::red, Qt::green, Qt::blue};
        const QRectF all(0, 0, 140, 100);
        BarCanvas canvas;
        const QImage image = painted([&](QPainter& p) { paintStripBars(p, area(), bars, all, canvas); });
        QCOMPARE(image.pixelColor(20, 38), QColor(Qt::red));
        QCOMPARE(image.pixelColor(20, 69), QColor(Qt::blue));
        QCOMPARE(image.pixelColor(70, 50), QColor(Qt::green));
        for (const auto& [x, y] : std::array<std::pair<int, int>, 4>{{{20, 31}, {20, 66}, {45, 38}, {70, 44}}})
            QVERIFY2(white(image, x, y), qPrintable(QString("%1,%2").arg(x).arg(y)));
        // Veiled: every request in the middle lane, a full bar.
        bars.veiled = true;
        const QImage veiled = painted([&](QPainter& p) { paintStripBars(p, area(), bars, all, canvas); });
        QCOMPARE(veiled.pixelColor(20, 50), QColor(Qt::green));
        QVERIFY(white(veiled, 20, 38) && white(veiled, 20, 69));
        // With a server: column 0's admitted bar split by outcome, 1 in time (the lower half) and
        // 1 late.
        bars.veiled = false;
        std::array<OutcomeCounts, 1> outcomes{};
        outcomes[0][std::size_t(Outcome::InTime)] = 1;
        outcomes[0][std::size_t(Outcome::Late)] = 1;
        bars.outcomes = outcomes;
        bars.outcomeColour[std::size_t(Outcome::InTime)] = Qt::cyan;
        bars.outcomeColour[std::size_t(Outcome::Late)] = Qt::magenta;
        const QImage served = painted([&](QPainter& p) { paintStripBars(p, area(), bars, all, canvas); });
        QCOMPARE(served.pixelColor(20, 39), QColor(Qt::cyan));
        QCOMPARE(served.pixelColor(20, 34), QColor(Qt::magenta));
        QCOMPARE(served.pixelColor(20, 69), QColor(Qt::blue));
        // Veiled with retries: a column counts what the clients sent (here 2 in column 0, 0 in
        // column 2), a full bar where any were sent and none where only retries fell.
        bars.outcomes = {};
        bars.veiled = true;
        const std::array<std::int32_t, 4> sent{2, 0, 0, 0};
        bars.sent = sent;
        const QImage sentOnly = painted([&](QPainter& p) { paintStripBars(p, area(), bars, all, canvas); });
        QCOMPARE(sentOnly.pixelColor(20, 46), QColor(Qt::green));
        QVERIFY(white(sentOnly, 70, 50));
        // A translucent colour is filled as it is, over what is there.
        bars.sent = {};
        bars.veiled = false;
        bars.colour = {QColor(255, 0, 0, 128), Qt::green, Qt::blue};
        const QImage translucent = painted([&](QPainter& p) { paintStripBars(p, area(), bars, all, canvas); });
        const QColor pink = translucent.pixelColor(20, 38);
        QVERIFY(pink.red() == 255 && pink.green() > 100 && pink.green() < 160);
    }

    void keyLinesStopAtThePlayheadEachInItsColour()
    {
        // (0 s, 0), (5 s, half), (10 s, the top), up to 5 s: (10, 70) to (60, 50) only.
        // A second line, flat at a quarter of the top (y 60), blue.
        const std::array<QList<QPointF>, 2> points{QList<QPointF>{{0, 0}, {5, 0.5}, {10, 1}},
                                                   QList<QPointF>{{0, 0.25}, {5, 0.25}, {10, 0.25}}};
        const std::array<QColor, 2> colours{Qt::red, Qt::blue};
        const QImage image = painted([&](QPainter& p) { paintKeyLines(p, area(), {points, colours, 1, 200, 5}); });
        const auto near = [&](const QImage& i, int x, int y, auto is) {
            for (int dy = -1; dy <= 1; ++dy)
                if (is(i.pixelColor(x, y + dy)))
                    return true;
            return false;
        };
        const auto red = [](const QColor& c) { return c.red() > 200 && c.green() < 120 && c.blue() < 120; };
        const auto blue = [](const QColor& c) { return c.blue() > 200 && c.green() < 120 && c.red() < 120; };
        QVERIFY(near(image, 30, 62, red) && near(image, 50, 54, red));
        QVERIFY(near(image, 20, 60, blue) && near(image, 50, 60, blue) && !near(image, 50, 60, red));
        QVERIFY(white(image, 90, 38) && white(image, 80, 42) && white(image, 80, 60)); // both stop at 5 s
        // The scene x visibleRight clips them too: at x 35, before 5 s.
        const QImage clipped = painted([&](QPainter& p) { paintKeyLines(p, area(), {points, colours, 1, 35, 1e300}); });
        QVERIFY(near(clipped, 30, 62, red) && white(clipped, 45, 58) && white(clipped, 45, 60));
    }

    // A dense row's lines are drawn as the level line is, three one-pixel strokes (offsets 0 and 1
    // pixel right and down); the others with a 1.6 px pen. Without antialiasing, a line flat at
    // half the top (y 50) inks rows 50 and 51 drawn dense, rows 49 and 50 with the pen: the
    // choice is the row's flag, not the line's length. A line whose 6,000 points leave a gap from
    // 3 s to 7 s (x 40 to 80) is whole across it.
    void aDenseRowsLinesAreOnePixelStrokes()
    {
        QList<QPointF> flat;
        for (int i = 0; i < 6000; ++i)
            flat << QPointF(i < 1024 ? 3.0 * i / 1023 : 7 + 3.0 * (i - 1024) / 4975, 0.5);
        const std::array<QList<QPointF>, 1> one{flat};
        const std::array<QColor, 1> colour{Qt::black};
        const QImage dense = painted([&](QPainter& p) { paintKeyLines(p, area(), {one, colour, 1, 200, 1e300, true}); });
        const QImage wide = painted([&](QPainter& p) { paintKeyLines(p, area(), {one, colour, 1, 200, 1e300, false}); });
        for (int x = 12; x < 108; ++x) {
            QVERIFY2(!white(dense, x, 50) && !white(dense, x, 51) && white(dense, x, 49), qPrintable(QString::number(x)));
            QVERIFY2(!white(wide, x, 49) && !white(wide, x, 50) && white(wide, x, 51), qPrintable(QString::number(x)));
        }
        // Three points, dense: the flag, not the length, chooses.
        const std::array<QList<QPointF>, 1> three{QList<QPointF>{{0, 0.5}, {5, 0.5}, {10, 0.5}}};
        const QImage short_ = painted([&](QPainter& p) { paintKeyLines(p, area(), {three, colour, 1, 200, 1e300, true}); });
        QVERIFY(!white(short_, 60, 51) && white(short_, 60, 49));
    }

    // A dense line with ten segments a pixel column, zig-zagging between a quarter (y 60) and three
    // quarters (y 40) of the top each hundredth of a second, inks each column from row 40 to row
    // 61 (one down) and nothing above or below; a blue line flat at half (y 50) drawn after it
    // inks rows 50 and 51 over it, and the black shows either side (rows 49 and 52).
    void aDenseLinesColumnIsOneRunOverTheLinesBefore()
    {
        QList<QPointF> zigzag;
        for (int i = 0; i <= 1000; ++i)
            zigzag << QPointF(i / 100.0, i % 2 == 0 ? 0.25 : 0.75);
        const std::array<QList<QPointF>, 2> lines{zigzag, QList<QPointF>{{0, 0.5}, {10, 0.5}}};
        const std::array<QColor, 2> colours{Qt::black, Qt::blue};
        const QImage image = painted([&](QPainter& p) { paintKeyLines(p, area(), {lines, colours, 1, 200, 1e300, true}); });
        for (int x = 11; x < 110; ++x) {
            const QString at = QString::number(x);
            QVERIFY2(white(image, x, 39) && white(image, x, 62), qPrintable(at));
            for (int y = 40; y <= 61; ++y)
                QVERIFY2(image.pixelColor(x, y) == QColor(y == 50 || y == 51 ? Qt::blue : Qt::black),
                         qPrintable(at + "," + QString::number(y)));
        }
        // A line from a point a billion seconds before the view is drawn from the view's edge.
        const std::array<QList<QPointF>, 1> far{QList<QPointF>{{-1e9, 0.5}, {5, 0.5}}};
        const std::array<QColor, 1> black{Qt::black};
        const QImage edge = painted([&](QPainter& p) { paintKeyLines(p, area(), {far, black, 1, 200, 1e300, true}); });
        for (int x = 10; x <= 60; ++x)
            QVERIFY2(!white(edge, x, 50) && !white(edge, x, 51) && white(edge, x, 49), qPrintable(QString::number(x)));
        QVERIFY(white(edge, 8, 50) && white(edge, 62, 50)); // the clip keeps a pixel left of the plot
    }

    // Thinned to 10 spans of a second over [0, 10 s): the first span keeps its first (5), least
    // (1), most (9) and last (4) points in time order; the second, two points of one value, both;
    // a point past the range stays.
    void aLineIsThinnedToFourPointsASpan()
    {
        const auto seconds = [](const std::vector<LevelPoint>& v) {
            QList<QPointF> out;
            for (const LevelPoint& p : v)
                out << QPointF(p.seconds, p.level);
            return out;
        };
        const auto thinnedLine = [](const std::vector<LevelPoint>& v, double from, double to, int buckets) {
            return thinnedPoints(v.size(), [&](std::size_t i) { return v[i]; }, from, to, buckets);
        };
        const std::vector<LevelPoint> points{{0.0, 5}, {0.2, 1}, {0.4, 9}, {0.6, 3}, {0.8, 4}, {1.0, 2}, {1.5, 2}, {12, 7}};
        QCOMPARE(seconds(thinnedLine(points, 0, 10, 10)),
                 (QList<QPointF>{{0.0, 5}, {0.2, 1}, {0.4, 9}, {0.8, 4}, {1.0, 2}, {1.5, 2}, {12, 7}}));
        // The most before the least keeps time order: 9 at 0.1 s, then 1 at 0.3 s.
        const std::vector<LevelPoint> falling{{0.0, 5}, {0.1, 9}, {0.3, 1}, {0.5, 3}};
        QCOMPARE(seconds(thinnedLine(falling, 0, 10, 10)), seconds(falling));
        const std::vector<LevelPoint> more{{0.0, 5}, {0.1, 9}, {0.2, 6}, {0.3, 1}, {0.5, 3}};
        QCOMPARE(seconds(thinnedLine(more, 0, 10, 10)), (QList<QPointF>{{0.0, 5}, {0.1, 9}, {0.3, 1}, {0.5, 3}}));
        // A time that is not a number is kept as it is, and the pass goes on past it.
        const std::vector<LevelPoint> odd{{std::nan(""), 1}, {0.5, 2}};
        QCOMPARE(thinnedLine(odd, 0, 10, 10).size(), std::size_t(2));
        QCOMPARE(thinnedLine({}, 0, 10, 10).size(), std::size_t(0));
    }

    void aKeyNamesEachColourAfterItsSwatch()
    {
        const QRectF box(20, 40, 110, 16);
        const std::array<QColor, 1> colours{Qt::red};
        QFont font;
        font.setPixelSize(10);
        const QImage image = painted([&](QPainter& p) {
            paintKey(p, box, {"node 0", "a note"}, colours, font, Qt::yellow, Qt::black, Qt::gray);
        });
        QCOMPARE(image.pixelColor(21, 41), QColor(Qt::yellow));
        bool swatch = false; // 10 x 3 at x 24..34, around the text's middle
        for (int y = 40; y < 56; ++y)
            swatch = swatch || image.pixelColor(28, y) == QColor(Qt::red);
        QVERIFY(swatch);
        QVERIFY(white(image, 18, 48) && white(image, 50, 60)); // nothing outside the box
        // The name in ink after its swatch, the note muted after the name.
        const QFontMetricsF fm(font);
        const double noteLeft = 24 + 14 + fm.horizontalAdvance("node 0") + 12;
        const auto columns = [](double from, double to) { return QRect(int(from), 40, int(to) - int(from), 16); };
        // On the yellow patch (no blue) the muted grey is the only ink with blue in it.
        const auto grey = [](const QColor& c) { return c.blue() > 60 && c.lightness() < 230; };
        QVERIFY(inked(image, columns(38, noteLeft - 12), black) && !inked(image, columns(noteLeft, 130), black));
        QVERIFY(inked(image, columns(noteLeft, 130), grey));
        // A key too narrow for the note stops after the name: its patch stays bare there.
        const QImage narrow = painted([&](QPainter& p) {
            paintKey(p, QRectF(20, 40, noteLeft - 20 + 5, 16), {"node 0", "a note"}, colours, font, Qt::yellow, Qt::black, Qt::gray);
        });
        QVERIFY(inked(narrow, columns(38, noteLeft - 12), black) && !inked(narrow, columns(noteLeft, noteLeft + 5), grey));
    }

    void aHeadersPartsAreWrittenInTheirBoxes()
    {
        QFont font;
        font.setPixelSize(10);
        const HeaderText header{"Title", "3 admitted", "legend", QRectF(0, 0, 60, 14), QRectF(80, 0, 60, 14), QRectF(0, 20, 60, 14)};
        const QImage image = painted([&](QPainter& p) { paintHeader(p, header, font, Qt::black, QColor(0, 0, 255)); });
        const auto blue = [](const QColor& c) { return c.blue() > 200 && c.red() < 150; };
        const auto in = [&](const QRectF& box, auto is) { return inked(image, box.toRect().adjusted(0, 0, -1, -1), is); };
        QVERIFY(in(header.titleBox, black) && in(header.countsBox, black) && in(header.legendBox, blue));
        QVERIFY(!in(header.titleBox, blue) && !in(header.legendBox, black));
        QVERIFY(!in(QRectF(60, 40, 80, 60), black)); // nothing below the header
    }

    // Marks centred at (50, 50): a dot of radius 3.6, a triangle from y 45.5 to 53.5, a cross
    // with arms to 3 pixels out along the diagonals; at scale 2, twice the size.
    void eachLanesMarkHasItsShape()
    {
        const auto mark = [](MarkLane lane, double scale, bool hollow) {
            return painted([&](QPainter& p) { paintMark(p, {50, 50}, lane, scale, Qt::red, hollow); });
        };
        const auto red = [](const QImage& i, int x, int y) { const QColor c = i.pixelColor(x, y); return c.red() > 200 && c.green() < 150; };
        const QImage dot = mark(MarkLane::Admitted, 1, false);
        QVERIFY(red(dot, 50, 50) && red(dot, 52, 50) && white(dot, 55, 50));
        const QImage ring = mark(MarkLane::Admitted, 1, true);
        QVERIFY(white(ring, 50, 50) && (red(ring, 53, 50) || red(ring, 54, 50)));
        const QImage twice = mark(MarkLane::Admitted, 2, false);
        QVERIFY(red(twice, 56, 50) && white(twice, 59, 50));
        const QImage triangle = mark(MarkLane::Delayed, 1, false);
        QVERIFY(red(triangle, 50, 52) && white(triangle, 50, 44) && white(triangle, 46, 46));
        const QImage cross = mark(MarkLane::Denied, 1, false);
        QVERIFY(red(cross, 50, 50) && red(cross, 52, 52) && red(cross, 48, 52) && white(cross, 53, 50) && white(cross, 50, 47));
    }

    void retryLinksAndBadges()
    {
        const std::array<QLineF, 1> links{QLineF(20, 50, 80, 50)};
        const QImage linked = painted([&](QPainter& p) { paintRetryLinks(p, links, Qt::black); });
        QVERIFY(!white(linked, 50, 50) && white(linked, 50, 45) && white(linked, 85, 50));
        QFont font;
        font.setPixelSize(10);
        const std::array<StripBadge, 1> badges{{{QRectF(40, 40, 30, 12), QRectF(41, 40, 80, 12), "x10"}}};
        const QImage badged = painted([&](QPainter& p) { paintBadges(p, badges, font, Qt::black, Qt::yellow); });
        QCOMPARE(badged.pixelColor(41, 41), QColor(Qt::yellow));
        QVERIFY(inked(badged, QRect(41, 40, 29, 12), black));
        QVERIFY(white(badged, 38, 45) && white(badged, 60, 55));
    }

    // The level axis: ticks muted, the ceiling bold in ink, beside a plot from x 50 to 110 whose
    // top is 10: the value 5 at y 50, 10 at y 30. Left, each right-aligned 5 pixels short of the
    // plot; right, from 5 pixels past it.
    void axisLabelsSitBesideThePlotAtTheirHeights()
    {
        const RowArea wide{QRectF(50, 30, 60, 40), 20, 80, 0, 10 * S};
        QFont font;
        font.setPixelSize(10);
        const std::array<AxisLabel, 2> labels{{{5, "5", false}, {10, "10", true}}};
        const QImage left = painted([&](QPainter& p) { paintAxisLabels(p, wide, {labels, 10}, font, Qt::black, Qt::gray); });
        const auto grey = [](const QColor& c) { return c.lightness() < 200; };
        QVERIFY(inked(left, QRect(30, 44, 15, 12), grey));  // "5" at y 50, ending at x 45
        QVERIFY(!inked(left, QRect(30, 44, 15, 12), black)); // muted
        QVERIFY(inked(left, QRect(25, 24, 20, 12), black));  // "10" at y 30 in ink
        QVERIFY(!inked(left, QRect(46, 0, 94, 100), grey));  // nothing in the gap or the plot
        QVERIFY(!inked(left, QRect(0, 60, 140, 40), grey));  // nor where no value is
        const QImage right = painted([&](QPainter& p) { paintAxisLabels(p, wide, {labels, 10, true, 30}, font, Qt::black, Qt::gray); });
        QVERIFY(inked(right, QRect(115, 44, 15, 12), grey));
        QVERIFY(inked(right, QRect(115, 24, 20, 12), black));
        QVERIFY(!inked(right, QRect(0, 0, 115, 100), grey));
        // The ceiling's label is bold: more ink than the same text plain.
        const auto ink = [&](bool strong) {
            const std::array<AxisLabel, 1> one{{{5, "88", strong}}};
            const QImage image = painted([&](QPainter& p) { paintAxisLabels(p, wide, {one, 10}, font, Qt::black, Qt::black); });
            int n = 0;
            for (int x = 0; x < 50; ++x)
                for (int y = 40; y < 60; ++y)
                    n += image.pixelColor(x, y).lightness() < 128;
            return n;
        };
        QVERIFY2(ink(true) > ink(false), qPrintable(QString("%1 %2").arg(ink(true)).arg(ink(false))));
    }

    void aNoteIsWrittenWhereItIsAlignedAndLeavesThePen()
    {
        QImage image = blank();
        QPainter p(&image);
        p.setPen(Qt::red);
        QFont font;
        font.setPixelSize(10);
        p.setFont(font);
        paintNote(p, QRectF(10, 30, 100, 40), Qt::AlignLeft | Qt::AlignBottom, "note", Qt::black);
        QCOMPARE(p.pen().color(), QColor(Qt::red));
        p.end();
        QVERIFY(inked(image, QRect(10, 56, 30, 14), black));  // the bottom left
        QVERIFY(!inked(image, QRect(60, 0, 80, 100), black)); // not the right
        QVERIFY(!inked(image, QRect(0, 0, 140, 50), black));  // nor the top
        // In the painter's font: 24-pixel type reaches higher than 10-pixel type could.
        const QImage big = painted([](QPainter& p) {
            QFont large;
            large.setPixelSize(24);
            p.setFont(large);
            paintNote(p, QRectF(10, 30, 100, 40), Qt::AlignLeft | Qt::AlignBottom, "Note", Qt::black);
        });
        QVERIFY(inked(big, QRect(10, 46, 40, 6), black));
    }

    // Over a plot whose top is 2 requests (20 pixels a request): a leftover of 500 at 1 s has its
    // tick at x 20 from y 60 up 6 pixels; its text, centred on x 20, is pushed right to start at
    // x 11. A rejection at 1.5 s would write over it: it is left out, tick and all. One of 200 at
    // 9 s has its tick at x 100 from y 66, its text ending inside the plot.
    void leftoversAreWrittenOverEachRejectionThinnedAndKeptInThePlot()
    {
        QFont font;
        font.setPixelSize(6); // "500/1000" about 30 pixels wide: two fit in the plot
        const std::array<std::pair<Nanos, std::int64_t>, 4> at{{{S, 500}, {3 * S / 2, 100}, {9 * S, 200}, {12 * S, 0}}};
        const auto paint = [&](std::optional<Nanos> until) {
            return painted([&](QPainter& p) { paintLeftovers(p, area(), {at, 2, until}, font, Qt::black); });
        };
        const QImage all = paint(std::nullopt);
        QVERIFY(!white(all, 20, 57));                             // the first's tick
        QVERIFY(white(all, 25, 65) && white(all, 25, 69));        // the second is left out
        QVERIFY(!white(all, 100, 63));                            // the third's tick, at y 66 up to 60
        const auto ink = [](const QColor& c) { return c.lightness() < 200; }; // small type is grey at its edges
        QVERIFY(inked(all, QRect(11, 40, 20, 13), ink));          // the first's text, from x 11
        QVERIFY(!inked(all, QRect(0, 0, 11, 100), ink));          // never left of the plot
        QVERIFY(!inked(all, QRect(110, 0, 30, 100), ink));        // nor right of it
        const QImage untilEight = paint(8 * S);
        QVERIFY(white(untilEight, 100, 63));                      // after the playhead: not written
        QVERIFY(!white(untilEight, 20, 57));
        // One at 5 s (x 60) is centred on its tick; none outside [0, 10 s) is written.
        const double w = QFontMetricsF(font).horizontalAdvance("500/1000");
        const std::array<std::pair<Nanos, std::int64_t>, 1> middle{{{5 * S, 500}}};
        const QImage centred = painted([&](QPainter& p) { paintLeftovers(p, area(), {middle, 2, std::nullopt}, font, Qt::black); });
        const int textLeft = int(std::floor(60 - w / 2)), textRight = int(std::ceil(60 + w / 2));
        QVERIFY(inked(centred, QRect(textLeft, 40, 4, 13), ink) && inked(centred, QRect(textRight - 4, 40, 4, 13), ink));
        QVERIFY(!inked(centred, QRect(0, 0, textLeft - 1, 100), ink) && !inked(centred, QRect(textRight + 2, 0, 40, 100), ink));
        for (const Nanos t : {-S / 2, 10 * S}) {
            const std::array<std::pair<Nanos, std::int64_t>, 1> outside{{{t, 500}}};
            QCOMPARE(painted([&](QPainter& p) { paintLeftovers(p, area(), {outside, 2, std::nullopt}, font, Qt::black); }), blank());
        }
    }

    // A lane from y 10 to 90 whose top is 10 (8 pixels a unit), its limit 2 at y 74: the limit,
    // the top, the tick at 5 (y 50) and the name; 0 (at y 85, less half a line) would touch the
    // limit's label and is left out. Written for type about 12 pixels high (10-pixel DejaVu).
    void laneLabelsKeepClearOfEachOtherAndVeiledNameTheLaneOnly()
    {
        QFont font;
        font.setPixelSize(10);
        const double h = QFontMetricsF(font).height();
        QVERIFY2(h > 8 && h < 16, qPrintable(QString::number(h)));
        ServerLane lane{ServerLane::Measure::InServer, "in server", "", 10, QRectF(50, 10, 60, 80), 2.0, true};
        const std::vector<LaneLabel> labels = layOutLaneLabels(lane, font, false);
        QCOMPARE(labels.size(), std::size_t(4));
        QCOMPARE(labels[0].kind, LaneLabel::Marked); // the limit first, at its height
        QCOMPARE(labels[0].value, 2.0);
        QCOMPARE(labels[0].box.center().y(), 74.0);
        QCOMPARE(labels[0].box.right(), 45.0); // right of the axis's box: 5 short of the lane
        QCOMPARE(labels[1].kind, LaneLabel::Top);
        QCOMPARE(labels[1].text, QString("10"));
        QCOMPARE(labels[2].kind, LaneLabel::Tick);
        QCOMPARE(labels[2].value, 5.0);
        QCOMPARE(labels[2].box.center().y(), 50.0);
        QCOMPARE(labels[3].kind, LaneLabel::Caption);
        QCOMPARE(labels[3].text, QString("in server"));
        QCOMPARE(labels[3].box.topLeft(), QPointF(53, 10));
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = i + 1; j < 3; ++j)
                QVERIFY2(!labels[i].box.adjusted(0, -h / 4, 0, h / 4).intersects(labels[j].box),
                         qPrintable(labels[i].text + " " + labels[j].text));
        const std::vector<LaneLabel> veiled = layOutLaneLabels(lane, font, true);
        QCOMPARE(veiled.size(), std::size_t(1));
        QCOMPARE(veiled[0].kind, LaneLabel::Caption);
        // A count's ticks are whole: on a lane 200 pixels tall whose top is 2, room for 11 ticks
        // gives a step of 0.2 (9 ticks), and a count's step is 1 (one tick, at 1).
        const auto ticks = [&](bool whole) {
            const ServerLane tall{ServerLane::Measure::InServer, "", "", 2, QRectF(50, 0, 60, 200), std::nullopt, whole};
            std::vector<double> values;
            for (const LaneLabel& l : layOutLaneLabels(tall, font, false))
                if (l.kind == LaneLabel::Tick)
                    values.push_back(l.value);
            return values;
        };
        QCOMPARE(ticks(false).size(), std::size_t(9));
        QCOMPARE(ticks(true), std::vector<double>{1.0});
        // A lane shorter than a label has its limit's label at its top, never clamped past it.
        const ServerLane thin{ServerLane::Measure::InServer, "", "", 10, QRectF(50, 0, 60, 8), 9.0, true};
        QCOMPARE(layOutLaneLabels(thin, font, false).front().box.center().y(), h / 2);
    }

    // In the server: 5 from 2.25 s to 6 s (x 32.5..70, half the lane's 40 pixels: the column at
    // x 32 half covered, so half as tall), the limit 8 throughout (y 38). A step is drawn once its
    // end is shown.
    void theServerIsFilledToItsCountUnderItsLimit()
    {
        const ServerLane lane{ServerLane::Measure::InServer, "", "", 10, QRectF(10, 30, 100, 40), std::nullopt};
        const QList<QPointF> in{{0, 0}, {2.25, 0}, {2.25, 5}, {6, 5}, {6, 0}, {10, 0}};
        const QList<QPointF> limit{{0, 8}, {10, 8}};
        const auto paint = [&](double shownTo) {
            return painted([&](QPainter& p) { paintInSystem(p, lane, {0, 10, shownTo}, in, limit, Qt::blue, Qt::black); });
        };
        const QImage image = paint(10);
        const QColor fill = image.pixelColor(50, 60);
        QVERIFY(!white(image, 50, 60) && fill.blue() > fill.red());
        QVERIFY(!white(image, 33, 51) && !white(image, 69, 69));
        QVERIFY(white(image, 32, 55) && !white(image, 32, 65)); // the half-covered column
        QVERIFY(white(image, 31, 65) && white(image, 70, 65));
        QVERIFY(white(image, 50, 48) && white(image, 25, 60) && white(image, 75, 60));
        QVERIFY(black(image.pixelColor(50, 38)) && black(image.pixelColor(100, 38)));
        const QImage shown = paint(6);
        QVERIFY(!white(shown, 50, 60) && white(shown, 100, 38)); // the limit's one step ends at 10 s
        QVERIFY(white(paint(5.9), 50, 60));
    }

    // Buckets of 2 s: 2 first attempts, then 4 and 4 retries; a lane of 4 a second is 40 pixels,
    // so an attempt in a bucket is 5 pixels.
    void attemptBarsStackRetriesOnFirstAttempts()
    {
        const ServerLane lane{ServerLane::Measure::Attempts, "", "", 4, QRectF(10, 30, 100, 40), std::nullopt};
        const AttemptBuckets b{0, 2 * S, {2, 4}, {0, 4}};
        const auto paint = [&](double shownTo) {
            return painted([&](QPainter& p) { paintAttemptBars(p, lane, {0, 10, shownTo}, b, Qt::gray, Qt::black); });
        };
        const QImage image = paint(10);
        QCOMPARE(image.pixelColor(20, 65), QColor(Qt::gray)); // 10 pixels of first attempts
        QCOMPARE(image.pixelColor(28, 65), QColor(Qt::gray));
        QVERIFY(white(image, 29, 65)); // a pixel between buckets
        QVERIFY(white(image, 20, 58));
        QCOMPARE(image.pixelColor(40, 55), QColor(Qt::gray)); // 20, and 20 of retries on them
        QCOMPARE(image.pixelColor(40, 35), QColor(Qt::black));
        QVERIFY(white(image, 40, 28) && white(image, 55, 65));
        QVERIFY(white(paint(1.9), 40, 55)); // a bucket starting after the playhead
    }

    // Buckets of 5 s: 10 served, 6 of them in time, in the first (1.2 a second: 12 pixels of a
    // lane of 4), 5 in time in the second (10 pixels); latencies p50 1 s and p99 3 s in the first
    // (y 60 and 40 on a lane of 4 s).
    void servedDrawsGoodputBarsOrTheLatencyBand()
    {
        const ServerLane lane{ServerLane::Measure::Goodput, "", "", 4, QRectF(10, 30, 100, 40), std::nullopt};
        const ServedBuckets b{0, 5 * S, {10, 5}, {6, 5}, {S, S}, {3 * S, 2 * S}};
        const auto paint = [&](bool latency, double shownTo) {
            return painted([&](QPainter& p) { paintServed(p, lane, {0, 10, shownTo}, b, latency, Qt::green, Qt::black); });
        };
        const QImage bars = paint(false, 10);
        QCOMPARE(bars.pixelColor(30, 60), QColor(Qt::green));
        QVERIFY(white(bars, 30, 56) && !white(bars, 30, 59));
        QCOMPARE(bars.pixelColor(80, 65), QColor(Qt::green));
        QVERIFY(white(bars, 80, 58));
        QVERIFY(white(paint(false, 4.9), 80, 65)); // the second starts after the playhead
        const QImage band = paint(true, 10);
        QVERIFY(!white(band, 30, 50) && !black(band.pixelColor(30, 50))); // the band, faint
        QVERIFY(black(band.pixelColor(30, 60)));                          // the p50 tick
        QVERIFY(white(band, 30, 35) && white(band, 30, 65));              // above p99, below p50
        QVERIFY(white(band, 30, 75));                                     // no goodput bars
    }

    void gridsCarryTimeThroughALaneAndLineItsTicks()
    {
        const QRectF below(10, 72, 100, 8);
        const QImage time = painted([&](QPainter& p) { paintTimeGrid(p, area(), below, 2, Qt::black); });
        QVERIFY(!white(time, 30, 75) && !white(time, 90, 75));
        QVERIFY(white(time, 40, 75) && white(time, 30, 60) && white(time, 30, 85));
        // Lines at 1.25 s steps fall between pixels: x 22.5 is drawn on 23.
        const QImage halves = painted([&](QPainter& p) { paintTimeGrid(p, area(), below, 1.25, Qt::black); });
        QVERIFY(!white(halves, 23, 75) && white(halves, 22, 75) && white(halves, 24, 75));
        // 512 steps in the range are drawn; 1,024 are not (steps exact in binary).
        QVERIFY(!white(painted([&](QPainter& p) { paintTimeGrid(p, area(), below, 10.0 / 512, Qt::black); }), 60, 75));
        QCOMPARE(painted([&](QPainter& p) { paintTimeGrid(p, area(), below, 10.0 / 1024, Qt::black); }), blank());
        const ServerLane lane{ServerLane::Measure::InServer, "", "", 10, QRectF(10, 30, 100, 40), std::nullopt};
        const std::array<LaneLabel, 3> labels{{{LaneLabel::Top, 10, "10", {}}, {LaneLabel::Tick, 5, "5", {}}, {LaneLabel::Zero, 0, "0", {}}}};
        const QImage ticks = painted([&](QPainter& p) { paintLaneGrid(p, lane, labels, Qt::black); });
        QVERIFY(!white(ticks, 60, 50) || !white(ticks, 60, 51)); // the tick's line, y 50.5
        for (const int y : {29, 30, 31, 45, 69, 70, 71}) // no line at the top or at 0
            QVERIFY2(white(ticks, 60, y), qPrintable(QString::number(y)));
    }

    void aLaneAxisDrawsItsBaselineLabelsAndName()
    {
        QFont font;
        font.setPixelSize(10);
        const ServerLane lane{ServerLane::Measure::InServer, "queue", "", 10, QRectF(50, 30, 60, 40), std::nullopt};
        const std::array<LaneLabel, 3> labels{{{LaneLabel::Marked, 5, "5", QRectF(0, 44, 45, 12)},
                                               {LaneLabel::Tick, 8, "8", QRectF(0, 32, 45, 12)},
                                               {LaneLabel::Caption, 0, "queue", QRectF(53, 30, 40, 12)}}};
        const QImage image = painted([&](QPainter& p) {
            p.fillRect(QRectF(50, 30, 60, 40), Qt::yellow); // what the lane drew
            paintLaneAxis(p, lane, labels, font, {Qt::darkGray, Qt::white, Qt::black, Qt::gray});
        });
        QCOMPARE(image.pixelColor(80, 70), QColor(Qt::darkGray)); // the baseline, under the lane
        QVERIFY(inked(image, QRect(30, 44, 15, 12), black));                                    // the limit, in ink
        QVERIFY(inked(image, QRect(30, 32, 15, 12), [](const QColor& c) { return c.lightness() < 200; }));
        QVERIFY(!inked(image, QRect(30, 32, 15, 12), black));                                   // a tick, muted
        QVERIFY(inked(image, QRect(53, 30, 40, 12), black));                                    // the name
        // The name's patch: white at 0.85 over yellow, (255, 255, 0.85 x 255).
        const QColor under = image.pixelColor(54, 31);
        QVERIFY2(under.red() == 255 && under.green() == 255 && std::abs(under.blue() - 217) <= 1, qPrintable(under.name()));
        QCOMPARE(image.pixelColor(100, 50), QColor(Qt::yellow));
        // The limit is bold: more ink than a tick of the same text in the same colour.
        const auto inkOf = [&](LaneLabel::Kind kind) {
            const std::array<LaneLabel, 1> one{{{kind, 5, "88", QRectF(0, 44, 45, 12)}}};
            const QImage i = painted([&](QPainter& p) { paintLaneAxis(p, lane, one, font, {Qt::white, Qt::white, Qt::black, Qt::black}); });
            int n = 0;
            for (int x = 0; x < 46; ++x)
                for (int y = 40; y < 60; ++y)
                    n += i.pixelColor(x, y).lightness() < 128;
            return n;
        };
        QVERIFY(inkOf(LaneLabel::Marked) > inkOf(LaneLabel::Tick));
    }
};

QTEST_MAIN(TestRowLayers)
#include "tst_row_layers.moc"
