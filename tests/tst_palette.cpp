// The colours the charts paint, as readers with a colour-vision deficiency and a greyscale print
// see them, and their contrast with what lies behind them (WCAG 2.x), in both themes.
//
// Colour vision: Machado, Oliveira & Fernandes (2009), "A physiologically-based model for
// simulation of color vision deficiency", the dichromat matrices (severity 1.0) applied to
// linear RGB. Greyscale: relative luminance (BT.709 weights on linear RGB), what a greyscale
// conversion keeps. Difference: CIEDE2000 in CIELAB under D65. Contrast: WCAG 2.x's
// (L1 + 0.05) / (L2 + 0.05) of relative luminances; a translucent colour is first composited
// over its background as the painter does.
//
// The threshold for two verdicts to count as distinct is a CIEDE2000 difference of 10: about 1
// is the just-noticeable difference of two large patches side by side, and the noticeable
// difference grows steeply as marks get smaller and lie apart (Stone, Szafir & Setlur 2014,
// "An engineering model for color difference as a function of size"); a strip's marks are a few
// pixels wide and a reader compares them across the chart, so ten times that is asked.
#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "chart/rowchart.h"
#include "chart/theme.h"
#include "presets.h"

#include <QApplication>
#include <QImage>
#include <QTest>

#include <array>
#include <cmath>
#include <numbers>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

using Rgb = std::array<double, 3>; // linear RGB, 0 to 1
struct Lab {
    double L, a, b;
};
enum class Vision { Normal, Deuteranopia, Protanopia, Tritanopia, Greyscale };

double linear(double encoded) // the sRGB transfer function, IEC 61966-2-1
{
    return encoded <= 0.04045 ? encoded / 12.92 : std::pow((encoded + 0.055) / 1.055, 2.4);
}

Rgb linearRgb(QColor c) { return {linear(c.redF()), linear(c.greenF()), linear(c.blueF())}; }

double luminance(const Rgb& c) { return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; }

Rgb simulate(const Rgb& c, Vision v)
{
    using Matrix = std::array<std::array<double, 3>, 3>;
    static const Matrix deuteranopia{{{0.367322, 0.860646, -0.227968}, {0.280085, 0.672501, 0.047413}, {-0.011820, 0.042940, 0.968881}}};
    static const Matrix protanopia{{{0.152286, 1.052583, -0.204868}, {0.114503, 0.786281, 0.099216}, {-0.003882, -0.048116, 1.051998}}};
    static const Matrix tritanopia{{{1.255528, -0.076749, -0.178779}, {-0.078411, 0.930809, 0.147602}, {0.004733, 0.691367, 0.303900}}};
    if (v == Vision::Normal)
        return c;
    if (v == Vision::Greyscale) {
        const double y = luminance(c);
        return {y, y, y};
    }
    const Matrix& m = v == Vision::Deuteranopia ? deuteranopia : v == Vision::Protanopia ? protanopia : tritanopia;
    Rgb out{};
    for (int i = 0; i < 3; ++i)
        out[i] = std::clamp(m[i][0] * c[0] + m[i][1] * c[1] + m[i][2] * c[2], 0.0, 1.0); // a display shows no more
    return out;
}

Lab toLab(const Rgb& c) // sRGB primaries, D65 white
{
    const double x = 0.4124564 * c[0] + 0.3575761 * c[1] + 0.1804375 * c[2];
    const double y = 0.2126729 * c[0] + 0.7151522 * c[1] + 0.0721750 * c[2];
    const double z = 0.0193339 * c[0] + 0.1191920 * c[1] + 0.9503041 * c[2];
    const auto f = [](double t) { return t > 216.0 / 24389 ? std::cbrt(t) : (24389.0 / 27 * t + 16) / 116; };
    const double fx = f(x / 0.95047), fy = f(y), fz = f(z / 1.08883);
    return {116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)};
}

double degrees(double radians) { return radians * 180 / std::numbers::pi; }
double radians(double degrees) { return degrees * std::numbers::pi / 180; }

// ciede2000 is Sharma, Wu & Dalal (2005), "The CIEDE2000 color-difference formula:
// implementation notes", with kL = kC = kH = 1.
double ciede2000(Lab p, Lab q)
{
    const double cBar = (std::hypot(p.a, p.b) + std::hypot(q.a, q.b)) / 2;
    const double g = 0.5 * (1 - std::sqrt(std::pow(cBar, 7) / (std::pow(cBar, 7) + std::pow(25.0, 7))));
    const double a1 = (1 + g) * p.a, a2 = (1 + g) * q.a;
    const double c1 = std::hypot(a1, p.b), c2 = std::hypot(a2, q.b);
    const auto hue = [](double b, double a) { return a == 0 && b == 0 ? 0.0 : std::fmod(degrees(std::atan2(b, a)) + 360, 360); };
    const double h1 = hue(p.b, a1), h2 = hue(q.b, a2);
    double dh = 0;
    if (c1 * c2 != 0)
        dh = h2 - h1 > 180 ? h2 - h1 - 360 : h2 - h1 < -180 ? h2 - h1 + 360 : h2 - h1;
    const double dL = q.L - p.L, dC = c2 - c1, dH = 2 * std::sqrt(c1 * c2) * std::sin(radians(dh / 2));
    const double lBar = (p.L + q.L) / 2, cpBar = (c1 + c2) / 2;
    double hBar = h1 + h2;
    if (c1 * c2 != 0)
        hBar = std::abs(h1 - h2) <= 180 ? (h1 + h2) / 2 : h1 + h2 < 360 ? (h1 + h2 + 360) / 2 : (h1 + h2 - 360) / 2;
    const double t = 1 - 0.17 * std::cos(radians(hBar - 30)) + 0.24 * std::cos(radians(2 * hBar))
                     + 0.32 * std::cos(radians(3 * hBar + 6)) - 0.20 * std::cos(radians(4 * hBar - 63));
    const double dTheta = 30 * std::exp(-std::pow((hBar - 275) / 25, 2));
    const double rC = 2 * std::sqrt(std::pow(cpBar, 7) / (std::pow(cpBar, 7) + std::pow(25.0, 7)));
    const double sL = 1 + 0.015 * std::pow(lBar - 50, 2) / std::sqrt(20 + std::pow(lBar - 50, 2));
    const double sC = 1 + 0.045 * cpBar, sH = 1 + 0.015 * cpBar * t;
    const double rT = -std::sin(radians(2 * dTheta)) * rC;
    return std::sqrt(std::pow(dL / sL, 2) + std::pow(dC / sC, 2) + std::pow(dH / sH, 2) + rT * (dC / sC) * (dH / sH));
}

double difference(QColor x, QColor y, Vision v)
{
    return ciede2000(toLab(simulate(linearRgb(x), v)), toLab(simulate(linearRgb(y), v)));
}

// over composites a translucent colour on an opaque background, in the encoded values, as
// QPainter's raster engine blends.
QColor over(QColor fg, QColor bg)
{
    const double a = fg.alphaF();
    return QColor::fromRgbF(float(fg.redF() * a + bg.redF() * (1 - a)), float(fg.greenF() * a + bg.greenF() * (1 - a)),
                            float(fg.blueF() * a + bg.blueF() * (1 - a)));
}

double contrast(QColor fg, QColor bg)
{
    const double x = luminance(linearRgb(over(fg, bg))), y = luminance(linearRgb(bg));
    return (std::max(x, y) + 0.05) / (std::min(x, y) + 0.05);
}

const char* visionName(Vision v)
{
    switch (v) {
    case Vision::Normal: return "normal vision";
    case Vision::Deuteranopia: return "deuteranopia";
    case Vision::Protanopia: return "protanopia";
    case Vision::Tritanopia: return "tritanopia";
    case Vision::Greyscale: return "greyscale";
    }
    return "";
}

} // namespace

Q_DECLARE_METATYPE(ratelab::ui::Theme)
Q_DECLARE_METATYPE(Vision)

class TestPalette : public QObject {
    Q_OBJECT
private slots:
    // The difference formula against Sharma, Wu & Dalal's published test data (their table 1,
    // pairs 1, 7, 17, 25 and 36); the colour-vision matrices against their own columns: pure red
    // seen by a deuteranope is the deuteranopia matrix's first column (its negative blue clamped
    // to 0), pure blue seen by a tritanope its third (the negative red clamped to 0).
    void theMeasuresAreTheStandardOnes()
    {
        QCOMPARE(std::round(ciede2000({50, 2.6772, -79.7751}, {50, 0, -82.7485}) * 1e4) / 1e4, 2.0425);
        QCOMPARE(std::round(ciede2000({50, 0, 0}, {50, -1, 2}) * 1e4) / 1e4, 2.3669);
        QCOMPARE(std::round(ciede2000({50, 2.5, 0}, {73, 25, -18}) * 1e4) / 1e4, 27.1492);
        QCOMPARE(std::round(ciede2000({60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}) * 1e4) / 1e4, 1.2644);
        QCOMPARE(std::round(ciede2000({22.7233, 20.0904, -46.6940}, {23.0331, 14.9730, -42.5619}) * 1e4) / 1e4, 2.0373);
        const Rgb red = simulate({1, 0, 0}, Vision::Deuteranopia), blue = simulate({0, 0, 1}, Vision::Tritanopia);
        QCOMPARE(red[0], 0.367322);
        QCOMPARE(red[1], 0.280085);
        QCOMPARE(red[2], 0.0);
        QCOMPARE(blue[0], 0.0);
        QCOMPARE(blue[1], 0.147602);
        QCOMPARE(blue[2], 0.303900);
        // White is L* 100 and neutral; the WCAG contrast of black on white is 21:1.
        const Lab white = toLab({1, 1, 1});
        QVERIFY(std::abs(white.L - 100) < 1e-3 && std::abs(white.a) < 1e-2 && std::abs(white.b) < 1e-2);
        QCOMPARE(std::round(contrast(Qt::black, Qt::white) * 100) / 100, 21.0);
    }

    void verdictsStayDistinctForEveryVision_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::addColumn<Vision>("vision");
        for (const Theme theme : {Theme::Light, Theme::Dark})
            for (const Vision v : {Vision::Normal, Vision::Deuteranopia, Vision::Protanopia, Vision::Tritanopia, Vision::Greyscale})
                QTest::addRow("%s, %s", qPrintable(themeId(theme)), visionName(v)) << theme << v;
    }

    // Admitted, delayed and denied differ by a CIEDE2000 of 10 or more in each theme, as each
    // reader sees them. Before, green 1a9850 and red d73027 were 9.6 apart for a deuteranope and
    // 7.4 in greyscale, in both themes (one set).
    void verdictsStayDistinctForEveryVision()
    {
        QFETCH(Theme, theme);
        QFETCH(Vision, vision);
        applyTheme(theme);
        const QPalette palette = QApplication::palette();
        const std::pair<const char*, QColor> verdicts[] = {{"admitted", RowChart::admittedColor(palette)},
                                                           {"delayed", RowChart::delayedColor(palette)},
                                                           {"denied", RowChart::deniedColor(palette)}};
        QStringList close;
        for (std::size_t i = 0; i < 3; ++i)
            for (std::size_t j = i + 1; j < 3; ++j)
                if (const double d = difference(verdicts[i].second, verdicts[j].second, vision); d < 10)
                    close << QString("%1 and %2: %3").arg(verdicts[i].first, verdicts[j].first).arg(d, 0, 'f', 1);
        QVERIFY2(close.isEmpty(), qPrintable(close.join("; ")));
    }

    void serverOutcomesStayDistinctForEveryVision_data() { verdictsStayDistinctForEveryVision_data(); }

    // A server's outcomes colour the admitted lane's circles and split its bars, side by side in
    // one lane (in time, late, timed out, refused, rejected): only the colour tells them apart,
    // so each pair differs by a CIEDE2000 of 10 or more as each reader sees them. A greyscale
    // print keeps lightness alone, and five steps of 10 do not fit between 3:1 on the strip and
    // white on the dark theme: there "in time" is apart from every failure, the lesson's split
    // (the legend names each). Delayed and denied have lanes and shapes of their own. Before,
    // one set for both themes: late and refused 0.9 apart in greyscale, refused and rejected
    // 6.5 for a tritanope, in time and rejected 3.5 for a deuteranope on the light theme.
    void serverOutcomesStayDistinctForEveryVision()
    {
        QFETCH(Theme, theme);
        QFETCH(Vision, vision);
        applyTheme(theme);
        const QPalette palette = QApplication::palette();
        const Outcome outcomes[] = {Outcome::InTime, Outcome::Late, Outcome::QueueTimeout, Outcome::Refused, Outcome::Rejected};
        QStringList close;
        for (std::size_t i = 0; i < std::size(outcomes); ++i)
            for (std::size_t j = i + 1; j < std::size(outcomes); ++j) {
                if (vision == Vision::Greyscale && outcomes[i] != Outcome::InTime)
                    continue;
                const QColor x = RowChart::outcomeColor(outcomes[i], palette), y = RowChart::outcomeColor(outcomes[j], palette);
                if (const double d = difference(x, y, vision); d < 10)
                    close << QString("%1 and %2: %3")
                                 .arg(RowChart::outcomeName(outcomes[i]), RowChart::outcomeName(outcomes[j]))
                                 .arg(d, 0, 'f', 1);
            }
        QVERIFY2(close.isEmpty(), qPrintable(close.join("; ")));
    }

    void textAndMarksMeetWcag_data()
    {
        QTest::addColumn<Theme>("theme");
        QTest::newRow("light") << Theme::Light;
        QTest::newRow("dark") << Theme::Dark;
    }

    // What the charts draw, against each background it is drawn on: text at 4.5:1 (the headers
    // in WindowText, the axes' labels, legends and captions in PlaceholderText, nginx's
    // leftovers in the denials' colour), marks and lines at 3:1 (the verdicts and a server's
    // outcomes on the strip, on the plot (a queue's departures, the outcome bars) and beside the
    // title (the legend), a cluster's nodes and a
    // few clients on the strip, the level line and the playhead on the plot, a veiled mark on
    // the strip, the attempts' bars). Before, the first attempts' bars were the text colour at
    // a fifth: 1.6:1 on white.
    void textAndMarksMeetWcag()
    {
        QFETCH(Theme, theme);
        applyTheme(theme);
        const QPalette pal = QApplication::palette();
        const QColor base = pal.color(QPalette::Base), strip = pal.color(QPalette::AlternateBase),
                     window = pal.color(QPalette::Window);
        RowChart row; // reads its colours from the application's palette, as every chart does
        struct Check {
            QString what;
            QColor colour, behind;
            double least;
        };
        std::vector<Check> checks;
        for (const auto& [name, bg] : {std::pair{"plot", base}, std::pair{"strip", strip}, std::pair{"window", window}}) {
            const QString on = QString(" on the ") + name;
            checks.push_back({"titles" + on, pal.color(QPalette::WindowText), bg, 4.5});
            checks.push_back({"labels" + on, pal.color(QPalette::PlaceholderText), bg, 4.5});
            for (const auto& [verdict, lane] : {std::pair{"admitted", RowChart::Lane::Admitted},
                                                std::pair{"delayed", RowChart::Lane::Delayed},
                                                std::pair{"denied", RowChart::Lane::Denied}})
                checks.push_back({verdict + on, RowChart::laneColor(lane, pal), bg, 3});
            // A server's outcomes: marks on the strip, bars on the plot, the legend on the window.
            for (const Outcome o : {Outcome::InTime, Outcome::Late, Outcome::QueueTimeout, Outcome::Refused, Outcome::Rejected})
                checks.push_back({RowChart::outcomeName(o) + on, RowChart::outcomeColor(o, pal), bg, 3});
        }
        checks.push_back({"nginx's leftovers on the plot", RowChart::deniedColor(pal), base, 4.5});
        for (int node = 0; node < 8; ++node)
            checks.push_back({QString("node %1 on the strip").arg(node), RowChart::nodeColor(node, pal), strip, 3});
        checks.push_back({"the level line", row.levelColor(), base, 3});
        // The attempts lane's bars, and the retries against the first attempts they stand on.
        checks.push_back({"first attempts' bars", RowChart::attemptColor(false, pal), base, 3});
        checks.push_back({"retries' bars", RowChart::attemptColor(true, pal), base, 3});
        checks.push_back({"retries on first attempts", RowChart::attemptColor(true, pal), over(RowChart::attemptColor(false, pal), base), 3});
        checks.push_back({"a veiled mark", RowChart::veiledColor(), strip, 3});
        QStringList failing;
        for (const Check& c : checks)
            if (const double ratio = contrast(c.colour, c.behind); ratio < c.least)
                failing << QString("%1: %2 on %3, %4:1").arg(c.what, c.colour.name(), c.behind.name()).arg(ratio, 0, 'f', 2);
        QVERIFY2(failing.isEmpty(), qPrintable(failing.join("; ")));
    }

    void theBoundLabelIsReadable_data() { textAndMarksMeetWcag_data(); }

    // The worst case's label ("20 in this 10 s: the most it allows"), as rendered at 2x (a glyph's stem is
    // then whole pixels): its strongest pixel against the plot behind it is at 4.5:1 or more.
    // Before, it was a translucent violet: 2.6:1 on the dark theme, 3.9:1 on the light.
    void theBoundLabelIsReadable()
    {
        QFETCH(Theme, theme);
        applyTheme(theme);
        const io::LoadResult preset = io::loadPreset("edge-burst");
        QVERIFY(preset.scenario);
        Dashboard dashboard;
        layoutForExport(dashboard, *preset.scenario, QSize(1280, 720)); // every row drawn, none scrolled away
        const double scale = 2;
        const QImage image = dashboard.render(scale).convertToFormat(QImage::Format_ARGB32);
        const QColor base = dashboard.palette().color(QPalette::Base);
        int labels = 0;
        for (int r = 0; r < dashboard.charts()->rowCount(); ++r) {
            RowChart* row = dashboard.charts()->row(r);
            const QRectF box = row->boundLabelBox();
            if (box.isEmpty())
                continue;
            const QRect pixels = QRectF(QPointF(row->mapTo(&dashboard, box.topLeft().toPoint())) * scale, box.size() * scale)
                                     .toAlignedRect()
                                     .intersected(image.rect());
            double strongest = 1;
            for (int y = pixels.top(); y <= pixels.bottom(); ++y)
                for (int x = pixels.left(); x <= pixels.right(); ++x)
                    strongest = std::max(strongest, contrast(image.pixelColor(x, y), base));
            QVERIFY2(strongest >= 4.5, qPrintable(QString("row %1 (%2): %3:1").arg(r).arg(row->boundLabel()).arg(strongest, 0, 'f', 2)));
            ++labels;
        }
        QVERIFY(labels >= 3); // edge-burst's fixed window and both sliding windows show theirs
    }
};

QTEST_MAIN(TestPalette)
#include "tst_palette.moc"
