#include "chart/device_pixels.h"

#include <QPaintEngine>
#include <QPainter>

namespace ratelab::ui {

std::optional<QPointF> rasterOrigin(QPainter* p)
{
    if (!p->paintEngine() || p->paintEngine()->type() != QPaintEngine::Raster)
        return std::nullopt;
    p->save();
    p->resetTransform();
    const QTransform below = p->deviceTransform();
    p->restore();
    if (below.type() > QTransform::TxTranslate)
        return std::nullopt;
    return QPointF(below.dx(), below.dy());
}

} // namespace ratelab::ui
