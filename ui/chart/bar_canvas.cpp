#include "chart/bar_canvas.h"

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
    m_toDevice = p->deviceTransform();
    if (m_toDevice.type() > QTransform::TxScale)
        return false;
    // What the painter adds below its world transform (a widget's offset in the window) must be
    // a translation too: end() draws the image in device pixels through it.
    p->save();
    p->resetTransform();
    const bool plain = p->deviceTransform().type() <= QTransform::TxTranslate;
    p->restore();
    if (!plain)
        return false;
    m_device = m_toDevice.mapRect(area).toAlignedRect();
    if (m_device.isEmpty())
        return false;
    if (m_image.size() != m_device.size())
        m_image = QImage(m_device.size(), QImage::Format_ARGB32_Premultiplied);
    m_image.fill(Qt::transparent);
    return true;
}

void BarCanvas::fill(const QRectF& r, QRgb opaque)
{
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
    const QTransform rest = p->deviceTransform();
    p->setCompositionMode(QPainter::CompositionMode_SourceOver);
    p->drawImage(QPointF(m_device.x() - rest.dx(), m_device.y() - rest.dy()), m_image);
    p->restore();
}

} // namespace ratelab::ui
