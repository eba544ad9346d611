// PNG export: the headless command and the pixels it draws.
#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "presets.h"
#include "chart/rowchart.h"
#include "chart/theme.h"
#include "deckfile.h"

#include <QBuffer>
#include <QDir>
#include <QPainter>
#include <QSvgGenerator>
#include <QSvgRenderer>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include "cli_run.h"

using namespace ratelab;
using namespace ratelab::ui;
using clitest::Run;
using clitest::runRatelab;

namespace {

// A pixel is in a verdict's colour when it is within a few levels of it: a mark's centre pixel
// is wholly inside its shape, and the three colours are over 100 levels apart.
bool near(QColor c, QColor want)
{
    return std::abs(c.red() - want.red()) + std::abs(c.green() - want.green()) + std::abs(c.blue() - want.blue()) <= 40;
}
bool isGreen(QColor c) { return near(c, RowChart::admittedColor()); }
bool isRed(QColor c) { return near(c, RowChart::deniedColor()); }
bool isAmber(QColor c) { return near(c, RowChart::delayedColor()); }

} // namespace

class TestExport : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { applyTheme(Theme::Light); } // as the command draws, whose images these are compared with

    void stripPixelsFollowTheCoreDecisions_data()
    {
        QTest::addColumn<double>("scale");
        QTest::newRow("1x") << 1.0;
        QTest::newRow("2x for slides") << 2.0;
    }

    void stripPixelsFollowTheCoreDecisions()
    {
        QFETCH(double, scale);
        Dashboard dashboard;
        layoutOffscreen(dashboard, Scenario{}, QSize(1200, 700));
        const QImage image = dashboard.render(scale);
        QCOMPARE(image.size(), QSize(1200, 700) * scale);
        const Trace& trace = *dashboard.frame().trace;
        ChartStack* charts = dashboard.charts();
        QCOMPARE(charts->rowCount(), int(trace.results.size()));
        int checked = 0;
        for (int r = 0; r < charts->rowCount(); ++r) {
            RowChart* row = charts->row(r);
            QVERIFY(row->exactMarks());
            for (std::size_t i = 0; i < decisionCount(trace.results[r]); ++i) {
                const QPointF at = QPointF(row->mapTo(&dashboard, row->markPosition(i).toPoint())) * scale;
                const QColor c = image.pixelColor(at.toPoint());
                const Decision d = decisionAt(trace, std::size_t(r), i);
                if (!d.allowed)
                    QVERIFY2(isRed(c), qPrintable(QString("row %1 request %2: %3").arg(r).arg(i).arg(c.name())));
                else if (d.delay > 0)
                    QVERIFY2(isAmber(c), qPrintable(QString("row %1 request %2: %3").arg(r).arg(i).arg(c.name())));
                else
                    QVERIFY2(isGreen(c), qPrintable(QString("row %1 request %2: %3").arg(r).arg(i).arg(c.name())));
                ++checked;
            }
        }
        QCOMPARE(checked, 7 * 15);
    }

    // Eight local nodes at 100,000 requests: each node's level line holds thousands of vertices,
    // so the row's lines are inked a pixel column at a time (RowLines::keyDense). They are drawn
    // where the widget puts them, in the second row too (whose widget is not at the dashboard's
    // origin): across the plot, each column of the level's lane holds the last node's colour
    // somewhere (its line is drawn last, over the others).
    void aDenseRowsNodeLinesAreDrawn()
    {
        Scenario s;
        s.config = LimiterConfig::make(100, kNanosPerSecond);
        s.algorithms = {Algorithm::FixedWindow, Algorithm::SlidingWindowLog};
        s.pattern.kind = PatternKind::Poisson;
        s.pattern.count = 100'000;
        s.pattern.lambda = Rate{200, kNanosPerSecond};
        s.pattern.seed = 42;
        s.cluster = ClusterConfig::make({8, Balancer::RoundRobin, Coordination::Local});
        Dashboard dashboard;
        layoutOffscreen(dashboard, s, QSize(1000, 500), TimeRange{0, 400 * kNanosPerSecond});
        RowChart* row = dashboard.charts()->row(1);
        const QImage image = dashboard.render(1.0);
        const QColor last = RowChart::nodeColor(7);
        const QRectF plot = row->plotRect();
        int columns = 0, inked = 0;
        for (int x = int(plot.left()) + 20; x < int(plot.right()) - 20; x += 25) {
            ++columns;
            bool found = false;
            for (int y = int(plot.top()); y < int(plot.bottom()) && !found; ++y)
                found = near(image.pixelColor(row->mapTo(&dashboard, QPoint(x, y))), last);
            inked += found;
        }
        QVERIFY2(columns > 20 && inked == columns, qPrintable(QString("%1 of %2").arg(inked).arg(columns)));
    }

    void denseColumnsShowTheAdmittedShare()
    {
        // Limit 1 per 10 s over 100,000 requests 1 us apart (0.1 s): one admitted, the rest
        // denied. Reduced per pixel column, the first column holds the one admission among
        // hundreds of denials: a hairline in the admitted lane, not a full bar; the denied lane
        // is full wherever there are only denials.
        Scenario s;
        s.config = LimiterConfig::make(1, 10 * kNanosPerSecond);
        s.algorithms = {Algorithm::FixedWindow};
        s.pattern.count = 100'000;
        s.pattern.delayNanos = 1000;
        Dashboard dashboard;
        layoutOffscreen(dashboard, s, QSize(1000, 500), TimeRange{0, 100'000'000});
        RowChart* row = dashboard.charts()->row(0);
        QVERIFY(!row->exactMarks());
        const QImage image = dashboard.render(1.0);
        const auto laneInk = [&](RowChart::Lane lane, double x, bool (*is)(QColor)) {
            int n = 0;
            for (int dy = -8; dy <= 8; ++dy) {
                const QPoint at = row->mapTo(&dashboard, QPoint(int(x), int(row->laneCentre(lane)) + dy));
                n += is(image.pixelColor(at));
            }
            return n;
        };
        const QRectF plot = row->plotRect();
        const double first = plot.left() + 0.5, later = plot.left() + plot.width() / 2;
        QCOMPARE(laneInk(RowChart::Lane::Admitted, first, isGreen), 1);
        QCOMPARE(laneInk(RowChart::Lane::Admitted, later, isGreen), 0);
        QVERIFY(laneInk(RowChart::Lane::Denied, later, isRed) >= 8);
    }

    // A slide's title writes counts as its reader does: "1,000,000 requests", not "1000000".
    void titleCountsHaveThousandsSeparators()
    {
        const QLocale before;
        QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates));
        Scenario s;
        s.config = LimiterConfig::make(1'000, 60'000'000'000, 2'000, Rate{1, 30'000'000});
        s.pattern.count = 1'000'000;
        const QString title = Dashboard::describe(s);
        QLocale::setDefault(before);
        QVERIFY2(title.contains("limit 1,000 per 60 s, capacity 2,000"), qPrintable(title));
        QVERIFY2(title.contains("1,000,000 requests"), qPrintable(title));
    }

    void commandWritesAPngOfTheAskedSize()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("dash.png");
        const Run run = runRatelab({"export", "--png", path, "--width", "800", "--height", "600", "--scale", "2",
                                 "--pattern", "edge"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.err.isEmpty());
        QImage image(path);
        QCOMPARE(image.size(), QSize(1600, 1200));
        QVERIFY(!QFile::exists(path + ".tmp"));
    }

    // The dark theme is the app's palette: the image's background is its base, #15181d.
    void commandExportsInTheDarkTheme()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("dark.png");
        const Run run = runRatelab({"export", "--png", path, "--width", "800", "--height", "600", "--theme", "dark"});
        QCOMPARE(run.code, 0);
        QVERIFY(run.err.isEmpty());
        QCOMPARE(QImage(path).pixelColor(1, 1), QColor(0x15, 0x18, 0x1d));
        const Run bad = runRatelab({"export", "--png", dir.filePath("x.png"), "--theme", "blue"});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.out.isEmpty());
        QCOMPARE(bad.err, QByteArray("ratelab: export: --theme must be light or dark (got 'blue')\n"));
        QVERIFY(!QFile::exists(dir.filePath("x.png")));
    }

    void everyRowIsDrawnAtAnySize_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::newRow("800x500") << QSize(800, 500);
        QTest::newRow("320x240") << QSize(320, 240);
        QTest::newRow("1600x900") << QSize(1600, 900);
        QTest::newRow("1280x300") << QSize(1280, 300);
    }

    // checks that an export at any size draws all 7 rows of seed-compare whole, none scrolled
    // away, with the title and legend unclipped, fitted into an image of exactly the size asked.
    void everyRowIsDrawnAtAnySize()
    {
        QFETCH(QSize, size);
        const io::LoadResult preset = io::loadPreset("seed-compare");
        QVERIFY(preset.scenario);
        Dashboard dashboard;
        layoutForExport(dashboard, *preset.scenario, size);
        QCOMPARE(dashboard.charts()->rowCount(), 7);
        QCOMPARE(dashboard.charts()->rowsOverflow(), 0);
        // Every row lies inside the visible part of the chart stack.
        const QRect visible = dashboard.charts()->rect();
        for (int r = 0; r < 7; ++r) {
            RowChart* row = dashboard.charts()->row(r);
            const QRect at(row->mapTo(dashboard.charts(), QPoint(0, 0)), row->size());
            QVERIFY2(visible.contains(at), qPrintable(QString("row %1 at %2,%3").arg(r).arg(at.top()).arg(at.bottom())));
        }
        // Proportions kept: the layout is the size asked, scaled.
        const QSize laid = dashboard.size();
        QVERIFY(laid.width() >= size.width() && laid.height() >= size.height());
        QVERIFY(std::abs(double(laid.width()) / laid.height() - double(size.width()) / size.height()) < 0.02);
        const QImage image = renderOffscreen(*preset.scenario, size, 1.0);
        QCOMPARE(image.size(), size);
    }

    void anExportFillsItsCanvas_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<double>("scale");
        // 1280x720 and 640x480 are laid out larger than asked (the rows would scroll) and fitted
        // back; 1920x1080 is laid out at its own size.
        for (const QSize size : {QSize(1280, 720), QSize(1600, 900), QSize(640, 480), QSize(1920, 1080)})
            for (const double scale : {1.0, 2.0})
                QTest::addRow("%dx%d at %gx", size.width(), size.height(), scale) << size << scale;
    }

    // The dashboard covers the whole image at every size and scale: what is not background
    // reaches each edge to within the layout's margin (16 px at the sides, 10 px above and
    // below, less when the layout was grown and fitted back) and a few pixels of a glyph's or
    // a frame's own inset, all times the scale. Before, a layout grown and then drawn at a
    // scale above 1 kept that scale's pixel ratio when it was fitted: 1280x720 at 2x filled
    // 1494x832 of its 2560x1440, in the top left corner.
    void anExportFillsItsCanvas()
    {
        QFETCH(QSize, size);
        QFETCH(double, scale);
        const io::LoadResult preset = io::loadPreset("edge-burst");
        QVERIFY(preset.scenario);
        const QImage image = renderOffscreen(*preset.scenario, size, scale).convertToFormat(QImage::Format_ARGB32);
        QCOMPARE(image.size(), (QSizeF(size) * scale).toSize());
        const QRgb background = image.pixel(0, 0);
        const auto differs = [&](QRgb c) {
            return std::abs(qRed(c) - qRed(background)) + std::abs(qGreen(c) - qGreen(background))
                       + std::abs(qBlue(c) - qBlue(background)) > 24;
        };
        int left = image.width(), right = -1, top = image.height(), bottom = -1;
        for (int y = 0; y < image.height(); ++y) {
            const auto* line = reinterpret_cast<const QRgb*>(image.constScanLine(y));
            for (int x = 0; x < image.width(); ++x)
                if (differs(line[x])) {
                    left = std::min(left, x);
                    right = std::max(right, x);
                    top = std::min(top, y);
                    bottom = std::max(bottom, y);
                }
        }
        const QString extent = QString("drawn from %1,%2 to %3,%4 of %5x%6")
                                   .arg(left).arg(top).arg(right).arg(bottom).arg(image.width()).arg(image.height());
        const double side = (16 + 12) * scale, end = (10 + 12) * scale;
        QVERIFY2(left <= side && right >= image.width() - 1 - side, qPrintable(extent));
        QVERIFY2(top <= end && bottom >= image.height() - 1 - end, qPrintable(extent));
    }

    // The command writes what renderOffscreen draws: 1280x720 at 2x is a 2560x1440 file, filled.
    void theCommandWritesASlideAtTwiceTheSize()
    {
        QTemporaryDir dir;
        const QString file = dir.filePath("slide.png");
        const Run run = runRatelab({"export", "--preset", "edge-burst", "--png", file, "--width", "1280", "--height",
                                    "720", "--scale", "2"});
        QCOMPARE(run.code, 0);
        const io::LoadResult preset = io::loadPreset("edge-burst");
        QVERIFY(preset.scenario);
        const QImage written(file);
        QCOMPARE(written.size(), QSize(2560, 1440));
        QImage drawn = renderOffscreen(*preset.scenario, QSize(1280, 720), 2.0).convertToFormat(QImage::Format_ARGB32);
        drawn.setDevicePixelRatio(1); // a PNG keeps pixels, not the ratio they were drawn at
        QCOMPARE(written.convertToFormat(QImage::Format_ARGB32), drawn);
    }

    void fromAndToFrameTheSlide()
    {
        // The exported image equals the dashboard laid out here over the same range, pixel for
        // pixel; without --from/--to it is framed on the activity (the default view).
        QTemporaryDir dir;
        const QString framed = dir.filePath("framed.png"), chosen = dir.filePath("chosen.png");
        Run run = runRatelab({"export", "--png", framed, "--width", "900", "--height", "600", "--preset", "edge-burst"});
        QCOMPARE(run.code, 0);
        run = runRatelab({"export", "--png", chosen, "--width", "900", "--height", "600", "--preset", "edge-burst",
                          "--from", "9.99", "--to", "10.01"});
        QCOMPARE(run.code, 0);
        const io::LoadResult preset = io::loadPreset("edge-burst");
        QVERIFY(preset.scenario);
        Dashboard dashboard;
        layoutOffscreen(dashboard, *preset.scenario, QSize(900, 600), TimeRange{9'990'000'000, 10'010'000'000});
        QCOMPARE(dashboard.frame().range, (TimeRange{9'990'000'000, 10'010'000'000}));
        QCOMPARE(QImage(chosen).convertToFormat(QImage::Format_ARGB32),
                 renderOffscreen(*preset.scenario, QSize(900, 600), 1.0, TimeRange{9'990'000'000, 10'010'000'000})
                     .convertToFormat(QImage::Format_ARGB32));
        Dashboard activity;
        layoutOffscreen(activity, *preset.scenario, QSize(900, 600));
        QCOMPARE(activity.frame().range, fullRange(*activity.frame().trace));
        QCOMPARE(QImage(framed).convertToFormat(QImage::Format_ARGB32),
                 renderOffscreen(*preset.scenario, QSize(900, 600), 1.0).convertToFormat(QImage::Format_ARGB32));
        // One without the other, or backwards: refused.
        run = runRatelab({"export", "--png", chosen, "--from", "1"});
        QCOMPARE(run.code, 2);
        QVERIFY(run.err.contains("--from and --to go together"));
        run = runRatelab({"export", "--png", chosen, "--from", "2", "--to", "1"});
        QCOMPARE(run.code, 2);
        QVERIFY(run.err.contains("--to must be later than --from"));
    }

    void badExportsAreRefusedAndKeepTheOldFile_data()
    {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        QTest::newRow("width 0") << QStringList{"--width", "0"} << "--width";
        QTest::newRow("height 0") << QStringList{"--height", "0"} << "--height";
        QTest::newRow("scale 0") << QStringList{"--scale", "0"} << "--scale";
        QTest::newRow("not a number") << QStringList{"--width", "wide"} << "--width";
        QTest::newRow("too many pixels") << QStringList{"--width", "16000", "--height", "16000", "--scale", "8"}
                                         << "million pixels";
        QTest::newRow("bad scenario") << QStringList{"--limit", "0"} << "limit";
    }

    void badExportsAreRefusedAndKeepTheOldFile()
    {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString path = dir.filePath("old.png");
        {
            QFile old(path);
            QVERIFY(old.open(QIODevice::WriteOnly));
            old.write("previous content");
        }
        const Run run = runRatelab(QStringList{"export", "--png", path} + args);
        QCOMPARE(run.code, 2);
        QVERIFY(run.out.isEmpty());
        QCOMPARE(run.err.count('\n'), 1);
        QVERIFY2(run.err.startsWith("ratelab: ") && run.err.contains(message.toUtf8()), run.err.constData());
        QFile old(path);
        QVERIFY(old.open(QIODevice::ReadOnly));
        QCOMPARE(old.readAll(), QByteArray("previous content"));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{"old.png"});
    }

    void unwritablePathIsRefused()
    {
        const Run run = runRatelab({"export", "--png", "/nonexistent-directory/dash.png"});
        QCOMPARE(run.code, 2);
        QCOMPARE(run.err.count('\n'), 1);
        QVERIFY2(run.err.contains("cannot write /nonexistent-directory/dash.png"), run.err.constData());
    }

    // checks that a row drawn to SVG (File > Export SVG, a web page's rows) has nothing left of its
    // axis where the raster row has nothing: QSvgGenerator (Qt before 6.7) writes no clip, so what
    // the row leaves to its clip shows there. buckets-burst-now's first step frames 0 s to about
    // 17 s, and the band of its closest 5 s, (-0.999999999 s, 4 s], begins before the plot.
    void anSvgRowDrawsNothingLeftOfItsAxis()
    {
        Dashboard dashboard;
        layoutForExport(dashboard, io::loadDeckFile("buckets-burst-now").deck->steps.at(0).scenario, QSize(1280, 720));
        RowChart* row = dashboard.charts()->row(0);
        QByteArray bytes;
        QBuffer buffer(&bytes);
        buffer.open(QIODevice::WriteOnly);
        QSvgGenerator svg;
        svg.setOutputDevice(&buffer);
        svg.setSize(row->size());
        svg.setViewBox(row->rect());
        svg.setResolution(row->logicalDpiY());
        QPainter painter(&svg);
        row->render(&painter);
        painter.end();
        QImage drawn(row->size(), QImage::Format_RGB32);
        drawn.fill(Qt::white);
        QPainter onto(&drawn);
        QSvgRenderer(bytes).render(&onto);
        onto.end();
        const QImage raster = row->grab().toImage().convertToFormat(QImage::Format_RGB32);
        // Left of the axis's labels (a third of the way to the plot): the row's background only.
        const int left = int(row->plotRect().left() / 3);
        QVERIFY(left > 5);
        for (const QImage* image : {&raster, static_cast<const QImage*>(&drawn)})
            for (int y = int(row->plotRect().top()); y < int(row->plotRect().bottom()); ++y)
                for (int x = 0; x < left; ++x)
                    QVERIFY2(image->pixel(x, y) == image->pixel(left, y),
                             qPrintable(QString("%1 at x %2, y %3").arg(image == &raster ? "raster" : "svg").arg(x).arg(y)));
    }
};

QTEST_MAIN(TestExport)
#include "tst_export.moc"
