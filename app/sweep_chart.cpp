#include "sweep_chart.h"

#include "outputpath.h"

#include <QBuffer>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace ratelab::app {

namespace {

const QColor kColors[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                          QColor(0xd6, 0x27, 0x28), QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b),
                          QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};

// axisValue is value i of an axis as a number, for drawing only.
double axisValue(const SweepAxis& a, std::size_t i)
{
    if (a.parameter == SweepParameter::Rate)
        return a.rates[i].perSecond();
    if (a.parameter == SweepParameter::Window)
        return double(a.values[i]) / 1e9;
    return double(a.values[i]);
}

QString axisTitle(const SweepAxis& a)
{
    const QString id = QString::fromUtf8(sweepParameterId(a.parameter).data());
    return a.parameter == SweepParameter::Window ? id + " (s)" : a.parameter == SweepParameter::Rate ? id + " (per s)" : id;
}

void drawLines(QPainter& p, const SweepResult& r, QRectF area)
{
    const SweepAxis& x = r.axes[0];
    const double x0 = axisValue(x, 0), x1 = std::max(axisValue(x, x.size() - 1), x0 + 1e-9);
    const QRectF plot = area.adjusted(70, 20, -200, -50);
    const auto at = [&](double vx, double share) {
        return QPointF(plot.left() + (vx - x0) / (x1 - x0) * plot.width(), plot.bottom() - share * plot.height());
    };
    p.setPen(QPen(Qt::gray, 1));
    for (int k = 0; k <= 10; ++k) {
        const double y = plot.bottom() - k / 10.0 * plot.height();
        p.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
        p.drawText(QRectF(plot.left() - 65, y - 8, 58, 16), Qt::AlignRight | Qt::AlignVCenter, QString("%1%").arg(k * 10));
    }
    for (int k = 0; k <= 5; ++k) {
        const double v = x0 + (x1 - x0) * k / 5.0;
        const QPointF pt = at(v, 0);
        p.drawText(QRectF(pt.x() - 40, plot.bottom() + 4, 80, 16), Qt::AlignCenter, QString::number(v, 'g', 6));
    }
    p.setPen(Qt::black);
    p.drawRect(plot);
    p.drawText(QRectF(plot.left(), plot.bottom() + 24, plot.width(), 20), Qt::AlignCenter, axisTitle(x));
    p.drawText(QRectF(area.left(), area.top(), area.width(), 18), Qt::AlignCenter, "Share of requests denied");
    for (std::size_t a = 0; a < r.algorithms.size(); ++a) {
        const QColor color = kColors[a % std::size(kColors)];
        p.setPen(QPen(color, 2));
        QPolygonF line;
        for (std::size_t i = 0; i < x.size(); ++i)
            line << at(axisValue(x, i), r.cell(i, 0, a).deniedShare());
        p.drawPolyline(line);
        for (const QPointF& pt : line)
            p.drawEllipse(pt, 2.5, 2.5);
        const double ly = plot.top() + 10 + 22 * double(a);
        p.drawLine(QPointF(plot.right() + 15, ly), QPointF(plot.right() + 40, ly));
        p.setPen(Qt::black);
        p.drawText(QPointF(plot.right() + 46, ly + 5), QString::fromUtf8(algorithmId(r.algorithms[a]).data()));
    }
}

void drawHeatmaps(QPainter& p, const SweepResult& r, QRectF area)
{
    const std::size_t n = r.algorithms.size();
    const int cols = int(std::ceil(std::sqrt(double(n))));
    const int rows = int((n + std::size_t(cols) - 1) / std::size_t(cols));
    const double w = area.width() / cols, h = (area.height() - 30) / rows;
    p.drawText(QRectF(area.left(), area.top(), area.width(), 18), Qt::AlignCenter,
               QString("Share of requests denied (white 0%, red 100%): %1 across, %2 down")
                   .arg(axisTitle(r.axes[1]), axisTitle(r.axes[0])));
    for (std::size_t a = 0; a < n; ++a) {
        const QRectF panel(area.left() + w * double(int(a) % cols), area.top() + 24 + h * double(int(a) / cols), w, h);
        const QRectF plot = panel.adjusted(50, 20, -10, -24);
        p.setPen(Qt::black);
        p.drawText(QRectF(panel.left(), panel.top(), panel.width(), 18), Qt::AlignCenter,
                   QString::fromUtf8(algorithmId(r.algorithms[a]).data()));
        const double cw = plot.width() / double(r.columns()), ch = plot.height() / double(r.axes[0].size());
        for (std::size_t i = 0; i < r.axes[0].size(); ++i)
            for (std::size_t j = 0; j < r.columns(); ++j) {
                const double s = r.cell(i, j, a).deniedShare();
                p.fillRect(QRectF(plot.left() + cw * double(j), plot.top() + ch * double(i), cw + 0.5, ch + 0.5),
                           QColor::fromRgbF(1.0f, float(1 - s), float(1 - s)));
            }
        p.drawRect(plot);
        p.drawText(QRectF(panel.left(), plot.top() - 2, 46, 16), Qt::AlignRight, r.axes[0].text(0).c_str());
        p.drawText(QRectF(panel.left(), plot.bottom() - 14, 46, 16), Qt::AlignRight,
                   r.axes[0].text(r.axes[0].size() - 1).c_str());
        p.drawText(QRectF(plot.left(), plot.bottom() + 2, 80, 16), Qt::AlignLeft, r.axes[1].text(0).c_str());
        p.drawText(QRectF(plot.right() - 80, plot.bottom() + 2, 80, 16), Qt::AlignRight,
                   r.axes[1].text(r.columns() - 1).c_str());
    }
}

void draw(QPainter& p, const SweepResult& r, QSize size)
{
    p.setRenderHint(QPainter::Antialiasing);
    p.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    const QRectF area(10, 10, size.width() - 20, size.height() - 20);
    if (r.axes.size() > 1)
        drawHeatmaps(p, r, area);
    else
        drawLines(p, r, area);
}

} // namespace

QImage renderSweepChart(const SweepResult& result, QSize size)
{
    QImage image(size, QImage::Format_ARGB32);
    QPainter p(&image);
    draw(p, result, size);
    return image;
}

QString writeSweepChart(const SweepResult& result, const QString& path, bool svg)
{
    const QSize size(1200, 700);
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (svg) {
        QSvgGenerator generator;
        generator.setOutputDevice(&buffer);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle("RateLab sweep");
        QPainter p(&generator);
        draw(p, result, size);
    } else {
        if (!renderSweepChart(result, size).save(&buffer, "PNG"))
            return "cannot encode the PNG image";
    }
    const QString error = io::writeFileAtomically(path, bytes);
    return error.isEmpty() ? QString() : error;
}

} // namespace ratelab::app
