#include "chart/bar_canvas.h"

#include "chart/device_pixels.h"

#include <QPainter>
#include <QRectF>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

// deviceFillRect is the raster engine's toNormalizedFillRect (Qt 6, qpaintengine_raster.cpp):
// the device pixels an aliased fillRect fills, each edge rounded to the nearest pixel boundary.
QRect deviceFillRect(const QRectF& r)
{
    int x1 = qRound(r.x()), y1 = qRound(r.y());
    int x2 = qRound(r.right()), y2 = qRound(r.bottom());
    if (x2 < x1)
        std::swap(x1, x2);
    if (y2 < y1)
        std::swap(y1, y2);
    return QRect(x1, y1, x2 - x1, y2 - y1);
}

} // namespace

bool BarCanvas::begin(QPainter* p, const QRectF& area)
{
    // fillRect's pixels are these only without antialiasing and drawn over what is there.
    const std::optional<QPointF> origin = rasterOrigin(p);
    m_toDevice = p->deviceTransform();
    if (!origin || m_toDevice.type() > QTransform::TxScale || p->testRenderHint(QPainter::Antialiasing)
        || p->compositionMode() != QPainter::CompositionMode_SourceOver)
        return false;
    m_origin = *origin;
    m_device = m_toDevice.mapRect(area).toAlignedRect();
    if (m_device.isEmpty())
        return false;
    if (m_image.size() != m_device.size())
        m_image = QImage(m_device.size(), QImage::Format_ARGB32_Premultiplied);
    if (m_image.isNull()) // too large to allocate: one by one
        return false;
    m_image.fill(Qt::transparent);
    return true;
}

void BarCanvas::fill(const QRectF& r, QRgb opaque)
{
    Q_ASSERT(qAlpha(opaque) == 255); // a translucent colour would blend where fillRect replaces
    // As fillRect maps a rectangle before rounding it: translated, or mapped when scaled.
    const QRectF mapped = m_toDevice.type() == QTransform::TxNone        ? r
                          : m_toDevice.type() == QTransform::TxTranslate ? r.translated(m_toDevice.dx(), m_toDevice.dy())
                                                                         : m_toDevice.mapRect(r);
    const QRect d = deviceFillRect(mapped).intersected(m_device).translated(-m_device.topLeft());
    if (d.isEmpty())
        return;
    const qsizetype stride = m_image.bytesPerLine() / qsizetype(sizeof(QRgb));
    QRgb* row = reinterpret_cast<QRgb*>(m_image.bits()) + d.top() * stride + d.left();
    for (int y = 0; y < d.height(); ++y, row += stride)
        std::fill_n(row, d.width(), opaque);
}

void BarCanvas::end(QPainter* p)
{
    p->save();
    p->resetTransform();
    p->drawImage(QPointF(m_device.topLeft()) - m_origin, m_image);
    p->restore();
}

} // namespace ratelab::ui
