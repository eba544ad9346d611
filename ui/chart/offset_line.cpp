#include "chart/offset_line.h"

#include "chart/device_pixels.h"

#include <QPainter>
#include <QPen>
#include <QPolygonF>
#include <QRectF>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {

// wholePixels is true when every offset is a whole number of pixels.
bool wholePixels(std::span<const QPointF> offsets)
{
    return std::all_of(offsets.begin(), offsets.end(), [](QPointF o) {
        return o.x() == std::round(o.x()) && o.y() == std::round(o.y());
    });
}

} // namespace

void OffsetLine::draw(QPainter* p, const QPolygonF& line, const QPen& pen, std::span<const QPointF> offsets, const QRectF& area)
{
    const QTransform toDevice = p->deviceTransform();
    const std::optional<QPointF> origin = rasterOrigin(p);
    const bool oneToOne = origin && toDevice.type() <= QTransform::TxTranslate && wholePixels(offsets);
    // The image holds the area and as many pixels around it as an offset moves, so each copy
    // brings into the area what its stroke would. A caller gives the same area paint after paint
    // (the clip may change: a playhead moves), so the image is made once.
    int margin = 0;
    for (const QPointF offset : offsets)
        margin = std::max({margin, int(std::abs(offset.x())), int(std::abs(offset.y()))});
    const QRect device = toDevice.mapRect(area).toAlignedRect().adjusted(-margin, -margin, margin, margin);
    if (oneToOne && m_image.size() != device.size())
        m_image = QImage(device.size(), QImage::Format_ARGB32_Premultiplied);
    p->save();
    p->setPen(pen);
    if (!oneToOne || m_image.isNull()) { // or an empty area, or one too large to allocate
        for (const QPointF offset : offsets) {
            p->translate(offset);
            p->drawPolyline(line);
            p->translate(-offset);
        }
    } else {
        m_image.fill(Qt::transparent);
        QPainter image(&m_image);
        image.setRenderHints(p->renderHints());
        // The painter's own mapping less the image's origin, a whole number of pixels: the
        // stroke's coverage is the same, pixel for pixel.
        image.setTransform(toDevice * QTransform::fromTranslate(-device.x(), -device.y()));
        if (p->hasClipping()) // what no copy shows is not stroked: the line past a playhead
            image.setClipRect(p->clipBoundingRect().adjusted(-margin, -margin, margin, margin));
        image.setPen(pen);
        image.drawPolyline(line);
        image.end();
        p->resetTransform(); // device pixels, less what lies below
        for (const QPointF offset : offsets)
            p->drawImage(QPointF(device.topLeft()) + offset - *origin, m_image);
    }
    p->restore();
}

} // namespace ratelab::ui
