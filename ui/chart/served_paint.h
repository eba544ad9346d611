// paintServedBuckets draws the server's buckets (core's view/served.h): each bucket's goodput as a
// bar, or its latency as a band from p50 to p99 with a tick at p50. RowChart draws each in a lane
// of its own (rowchart_lanes.cpp), with the lane's scale.
#pragma once

#include "view/served.h"

#include <QColor>
#include <QLineF>
#include <QPainter>
#include <QPen>
#include <QVector>

#include <algorithm>

namespace ratelab::ui {

struct ServedPaint {
    double left = 0, from = 0, sx = 1; // x = left + (t - from) * sx, t in seconds
    double shownTo = 1e300;             // buckets starting after it are not drawn (the playhead)
    double barBottom = 0;               // the goodput bars' baseline
    bool bars = true;                   // the goodput bars
    bool latency = true;                // the latency band
    QColor good, band, ink;             // the bars, the band and the p50 ticks
};

// barTop(k) is bucket k's bar's top; latencyY(ns) a latency's height.
template <typename BarTop, typename LatencyY>
void paintServedBuckets(QPainter* p, const ServedBuckets& b, const ServedPaint& s, BarTop barTop, LatencyY latencyY)
{
    const double width = double(b.widthNanos) / 1e9;
    QVector<QLineF> median; // a tick per bucket, never joined: the band is no level line
    for (std::size_t k = 0; k < b.inTime.size(); ++k) {
        const double t0 = double(b.from) / 1e9 + double(k) * width;
        if (t0 > s.shownTo)
            break;
        const double x0 = s.left + (t0 - s.from) * s.sx, x1 = x0 + width * s.sx - 1;
        if (s.bars)
            p->fillRect(QRectF(QPointF(x0, barTop(k)), QPointF(x1, s.barBottom)), s.good);
        if (b.served[k] == 0 || !s.latency)
            continue;
        const double y50 = latencyY(b.p50[k]), y99 = latencyY(b.p99[k]);
        p->fillRect(QRectF(QPointF(x0, y99), QPointF(x1 + 1, std::max(y50, y99 + 1))), s.band);
        median << QLineF(QPointF(x0, y50), QPointF(x1 + 1, y50));
    }
    QPen medianPen(s.ink, 1.4);
    medianPen.setCosmetic(true);
    p->setPen(medianPen);
    p->drawLines(median);
}

} // namespace ratelab::ui
