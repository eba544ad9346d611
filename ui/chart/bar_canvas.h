// Many small solid rectangles drawn with one image, for the strip's bars at a million requests.
#pragma once

#include <QImage>
#include <QRect>
#include <QRgb>
#include <QTransform>

class QPainter;
class QRectF;

namespace ratelab::ui {

// BarCanvas fills rectangles into an image of device pixels and draws it with one drawImage: the
// same pixels QPainter::fillRect gives an opaque colour without antialiasing (it rounds each
// corner as the raster engine does), at about a third of its cost: a strip of 1,500 columns, three
// lanes and seven rows is 20,000 fillRect calls, each with the painter's own per-call overhead.
// It keeps its image between paints (a row's strip: about 0.2 MB).
class BarCanvas {
public:
    // begin prepares an empty canvas over `area` (logical coordinates; every rectangle filled
    // must lie in it to be drawn) and returns true, or returns false when the painter is not a
    // plain raster one (rasterOrigin), maps by more than a scale and a translation, antialiases
    // or composes otherwise than over: fill the rectangles one by one then.
    bool begin(QPainter* p, const QRectF& area);
    // fill fills r (logical coordinates) with an opaque colour.
    void fill(const QRectF& r, QRgb opaque);
    // end draws what was filled, under the painter's clip, and leaves its state as it was.
    void end(QPainter* p);

private:
    QImage m_image;
    QTransform m_toDevice;
    QPointF m_origin; // rasterOrigin's: below the world transform
    QRect m_device;   // the image's rectangle, in device pixels
};

} // namespace ratelab::ui
