// BarCanvas gives the pixels QPainter::fillRect gives: rectangles at fractional positions, under
// no transform, a fractional translation and the export's scales, clipped as the strip clips them.
// The reference is Qt's own fillRect on a second image, not anything of ours.
#include "chart/bar_canvas.h"

#include <QBuffer>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QTest>

#include <random>

using namespace ratelab::ui;

class TestBarCanvas : public QObject {
    Q_OBJECT

private slots:
    void sameAsFillRect_data()
    {
        QTest::addColumn<QTransform>("transform");
        QTest::addColumn<int>("seed");
        QTest::newRow("none") << QTransform() << 1;
        QTest::newRow("integer translation") << QTransform::fromTranslate(16, 32) << 2;
        QTest::newRow("fractional translation") << QTransform::fromTranslate(3.5, 7.25) << 3;
        QTest::newRow("scale 2 (slides)") << QTransform::fromScale(2, 2) << 4;
        QTest::newRow("scale 1.5, translated") << QTransform::fromScale(1.5, 1.5) * QTransform::fromTranslate(5, 9) << 5;
        QTest::newRow("scale 1.25") << QTransform::fromScale(1.25, 1.25) << 6;
    }

    void sameAsFillRect()
    {
        QFETCH(QTransform, transform);
        QFETCH(int, seed);
        // Bars as the strip draws them: columns narrower than a pixel (each one wide, so they
        // overlap), heights in tenths, three colours in turn, some reaching past the clip.
        std::mt19937 rng(seed);
        std::vector<std::pair<QRectF, QRgb>> bars;
        const QRgb colours[] = {qRgb(0x1a, 0x98, 0x50), qRgb(0xf5, 0x9e, 0x0b), qRgb(0xd7, 0x30, 0x27)};
        for (int k = 0; k < 700; ++k) {
            const double x = 10 + k * 0.37 + (rng() % 8) / 8.0, h = 1 + (rng() % 130) / 10.0;
            const double bottom = 20 + double(rng() % 40) / 4.0;
            bars.push_back({QRectF(x, bottom - h, 1, h), colours[k % 3]});
        }
        const QRectF clip(8.5, 12.5, 250.25, 19.5);
        bool began = true;
        const auto paint = [&](bool canvas) {
            QImage image(640, 120, QImage::Format_ARGB32_Premultiplied);
            image.fill(qRgb(0xf7, 0xf7, 0xf7));
            QPainter p(&image);
            p.setTransform(transform);
            p.setClipRect(clip);
            BarCanvas c;
            if (canvas)
                began = c.begin(&p, clip);
            for (const auto& [r, colour] : bars) {
                if (canvas)
                    c.fill(r, colour);
                else
                    p.fillRect(r, QColor(colour));
            }
            if (canvas)
                c.end(&p);
            p.end();
            return image;
        };
        const QImage byQt = paint(false), byCanvas = paint(true);
        QVERIFY(began);
        int differ = 0, barPixels = 0;
        for (int y = 0; y < byQt.height(); ++y)
            for (int x = 0; x < byQt.width(); ++x) {
                differ += byQt.pixel(x, y) != byCanvas.pixel(x, y);
                barPixels += byQt.pixel(x, y) != qRgb(0xf7, 0xf7, 0xf7);
            }
        QVERIFY(barPixels > 1000); // the bars were drawn, inside the clip
        QCOMPARE(differ, 0);
    }

    // Where the canvas's pixels would not be fillRect's (or where shapes, not pixels, are
    // wanted), it declines and the caller fills one by one.
    void declinesWhereItWouldDiffer()
    {
        const QRectF area(0, 0, 20, 20);
        BarCanvas c;
        QImage image(50, 50, QImage::Format_ARGB32_Premultiplied);
        {
            QPainter p(&image);
            QVERIFY(c.begin(&p, area)); // the plain case, for contrast
            c.end(&p);
            p.rotate(10);
            QVERIFY(!c.begin(&p, area));
        }
        {
            QPainter p(&image);
            p.setRenderHint(QPainter::Antialiasing);
            QVERIFY(!c.begin(&p, area));
            p.setRenderHint(QPainter::Antialiasing, false);
            p.setCompositionMode(QPainter::CompositionMode_Source);
            QVERIFY(!c.begin(&p, area));
        }
        QImage dense(100, 100, QImage::Format_ARGB32_Premultiplied);
        dense.setDevicePixelRatio(2); // a high-density screen, or an export at scale 2
        {
            QPainter p(&dense);
            QVERIFY(!c.begin(&p, area));
        }
        QBuffer svgFile;
        svgFile.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&svgFile);
        svg.setSize(QSize(50, 50));
        {
            QPainter p(&svg); // an SVG keeps its bars as shapes
            QVERIFY(!c.begin(&p, area));
        }
    }
};

QTEST_MAIN(TestBarCanvas)
#include "tst_bar_canvas.moc"
