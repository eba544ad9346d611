// Each of a row's layers painted alone (chart/row_layers.h), into a white image without
// antialiasing, checked pixel by pixel against where the layer must and must not fall. The area
// is the plot x 10..110, y 30..70, the strip from y 20, the lanes down to y 80, over [0, 10 s):
// a second is 10 pixels, 5 s is x = 60.
#include "chart/row_layers.h"

#include <QImage>
#include <QPainter>
#include <QTest>

#include <array>

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
    }
};

QTEST_APPLESS_MAIN(TestRowLayers)
#include "tst_row_layers.moc"
