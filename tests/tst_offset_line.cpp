// OffsetLine draws what three strokes of the line draw: the same pixels touched, each within a
// unit or four of rounding (a copy blends colour times coverage as a stroke does, but in another
// order where the line crosses itself), and exactly the strokes where the painter is scaled.
// The reference is Qt's own drawPolyline at each offset, on a second image.
#include "chart/offset_line.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QPen>
#include <QPolygonF>
#include <QTest>

#include <cstdlib>
#include <random>

using namespace ratelab::ui;

class TestOffsetLine : public QObject {
    Q_OBJECT

private slots:
    void sameAsThreeStrokes_data()
    {
        QTest::addColumn<qreal>("ratio");
        QTest::addColumn<QPointF>("translation");
        QTest::addColumn<int>("tolerance");
        QTest::addColumn<qreal>("playhead"); // the clip's right, in the area's (a playing row)
        QTest::newRow("screen") << qreal(1) << QPointF(0, 0) << 4 << qreal(278.75);
        QTest::newRow("screen, a widget's offset") << qreal(1) << QPointF(16.5, 9) << 4 << qreal(278.75);
        QTest::newRow("screen, playing") << qreal(1) << QPointF(16.5, 9) << 4 << qreal(140.3);
        QTest::newRow("export at scale 2: stroked, exact") << qreal(2) << QPointF(3, 5) << 0 << qreal(278.75);
    }

    void sameAsThreeStrokes()
    {
        QFETCH(qreal, ratio);
        QFETCH(QPointF, translation);
        QFETCH(int, tolerance);
        QFETCH(qreal, playhead);
        // A level line as a row draws it: a vertical stroke per column, then on to the next.
        std::mt19937 rng(7);
        QPolygonF line;
        for (int k = 0; k < 300; ++k) {
            const double x = 20 + k * 0.93, lo = 70 - double(rng() % 30), hi = lo - double(rng() % 40);
            line << QPointF(x, lo) << QPointF(x + 0.45, hi) << QPointF(x + 0.45, lo) << QPointF(x + 0.93, lo - 1);
        }
        QPen pen(QColor(0x25, 0x63, 0xeb), 1);
        pen.setCosmetic(true);
        const QRectF area(18.5, 10, 260.25, 70), clip(QPointF(18.5, 10), QPointF(playhead, 80));
        const QPointF offsets[] = {QPointF(0, 0), QPointF(1 / ratio, 0), QPointF(0, 1 / ratio)};
        const auto paint = [&](bool once) {
            QImage image(QSize(340, 100) * ratio, QImage::Format_ARGB32_Premultiplied);
            image.setDevicePixelRatio(ratio);
            image.fill(QColor(0xf7, 0xf7, 0xf7));
            QPainter p(&image);
            p.setRenderHint(QPainter::Antialiasing);
            p.translate(translation);
            p.setClipRect(clip);
            if (once) {
                OffsetLine l;
                l.draw(&p, line, pen, offsets, area);
            } else {
                p.setPen(pen);
                for (const QPointF o : offsets) {
                    p.translate(o);
                    p.drawPolyline(line);
                    p.translate(-o);
                }
            }
            p.end();
            return image;
        };
        const QImage strokes = paint(false), once = paint(true);
        const QRgb background = QColor(0xf7, 0xf7, 0xf7).rgba();
        int touched = 0, worst = 0;
        for (int y = 0; y < strokes.height(); ++y)
            for (int x = 0; x < strokes.width(); ++x) {
                const QRgb a = strokes.pixel(x, y), b = once.pixel(x, y);
                touched += a != background;
                QCOMPARE(a != background, b != background); // the same pixels touched
                worst = std::max({worst, std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)),
                                  std::abs(qBlue(a) - qBlue(b))});
            }
        QVERIFY(touched > 2000); // the line was drawn, three copies wide
        QVERIFY2(worst <= tolerance, qPrintable(QString("a channel differs by %1").arg(worst)));
    }

    // An SVG export keeps the line as a vector: strokes, not a picture of them.
    void anSvgKeepsItsStrokes()
    {
        QBuffer file;
        file.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&file);
        svg.setSize(QSize(100, 100));
        {
            QPainter p(&svg);
            QPen pen(Qt::blue, 1);
            pen.setCosmetic(true);
            const QPointF offsets[] = {QPointF(0, 0), QPointF(1, 0), QPointF(0, 1)};
            OffsetLine().draw(&p, QPolygonF({QPointF(10, 10), QPointF(50, 80), QPointF(90, 20)}), pen, offsets,
                              QRectF(0, 0, 100, 100));
        }
        const QByteArray text = file.data();
        QVERIFY(!text.contains("<image"));
        QCOMPARE(text.count("<polyline"), 3);
    }
};

QTEST_MAIN(TestOffsetLine)
#include "tst_offset_line.moc"
