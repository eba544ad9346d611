// Where a painter's logical pixels land on its device's pixels, for drawing through an image.
#pragma once

#include <QPointF>

#include <optional>

class QPainter;

namespace ratelab::ui {

// rasterOrigin returns the translation that lies below the painter's world transform when the
// painter draws into pixels (the raster engine: a widget, an image) and nothing but that
// translation lies there (a device pixel ratio of 1): an image drawn at a device position minus
// it lands on exactly those pixels. It returns nullopt for any other painter (an SVG generator,
// which wants shapes, not pictures of them; a high-density device): draw shape by shape then.
std::optional<QPointF> rasterOrigin(QPainter* p);

} // namespace ratelab::ui
