// A long polyline drawn at a few whole-pixel offsets, stroked once.
#pragma once

#include <QImage>
#include <QPointF>

#include <span>

class QPainter;
class QPen;
class QPolygonF;
class QRectF;

namespace ratelab::ui {

// OffsetLine draws a polyline at a few small offsets (the level line's weight of two pixels is
// three one-pixel copies). Where a raster painter maps logical pixels to device pixels one to
// one (a screen or an export at scale 1), it strokes the line once into an image and composites
// that at each offset, which costs about half of stroking thousands of vertices three times. A copy blends as a stroke does (colour times coverage, over what is
// there), so the pixels are the strokes' to within 4 of 255 where the line crosses itself. Other
// painters (a scaled export, a high-density screen, an SVG file, which keeps its vectors) stroke
// it at each offset. It keeps its image between paints (a row's plot: about 1 MB).
class OffsetLine {
public:
    // draw strokes `line` with `pen` at each of `offsets`, under the painter's clip (logical
    // coordinates); `area` holds every pixel that may be shown, the clip's at any time.
    void draw(QPainter* p, const QPolygonF& line, const QPen& pen, std::span<const QPointF> offsets, const QRectF& area);

private:
    QImage m_image;
};

} // namespace ratelab::ui
