#include "chart/timelinestrip.h"

#include "arithmetic/decimal.h"

#include <QContextMenuEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {
constexpr double kGrabPixels = 6;

// exactSecondsLabel writes an event's time as every report writes times: exact (formatSeconds).
QString exactSecondsLabel(Nanos t) { return QString::fromStdString(formatSeconds(t)) + " s"; }
} // namespace

TimelineStrip::TimelineStrip(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setMouseTracking(true);
    setToolTip(tr("The cluster's events: drag one to move it"));
    hide();
}

QSize TimelineStrip::sizeHint() const { return {200, fontMetrics().height() + 10}; }

void TimelineStrip::setPlot(double left, double right, TimeRange range)
{
    m_left = left;
    m_right = right;
    m_range = range;
    update();
}

void TimelineStrip::setScenario(const Scenario* scenario)
{
    m_events = scenario ? fleetEvents(*scenario) : std::vector<FleetEvent>{};
    m_changes = scenario ? scenario->changes : std::vector<LimitChange>{};
    m_fallback = scenario && scenario->cluster ? scenario->cluster->options().fallback : Fallback::Open;
    m_hasCluster = scenario && scenario->cluster && !scenario->cluster->hasAutoscale();
    updateVisible();
    update();
}

void TimelineStrip::setScaling(std::vector<std::pair<Nanos, int>> steps, const QString& whose)
{
    m_scaling = std::move(steps);
    m_scalingWhose = whose;
    updateVisible();
    update();
}

void TimelineStrip::updateVisible()
{
    if (!m_dragged)
        setVisible(!m_events.empty() || m_scaling.size() > 1);
}

double TimelineStrip::paintScaling(QPainter& p, double lastLabelEnd) const
{
    const QFontMetrics fm = fontMetrics();
    const double h = height(), baseline = (h + fm.ascent() - fm.descent()) / 2;
    QColor muted = palette().color(QPalette::WindowText);
    muted.setAlpha(170);
    for (std::size_t k = 0; k < m_scaling.size(); ++k) {
        const auto [at, up] = m_scaling[k];
        if (at < m_range.from || at >= m_range.to)
            continue;
        const double x = xOf(at);
        if (k > 0) { // the start is no step
            p.setPen(QPen(muted, 1.5, Qt::DashLine));
            p.drawLine(QPointF(x, 1), QPointF(x, h - 1));
        }
        QString label = up == 1 ? tr("1 node up") : tr("%1 nodes up").arg(up);
        if (k == 0 && !m_scalingWhose.isEmpty())
            label = tr("%1's autoscaler: %2").arg(m_scalingWhose, label);
        const double lx = x + 5;
        const double nextX = k + 1 < m_scaling.size() ? xOf(m_scaling[k + 1].first) : 1e300;
        if (lx < lastLabelEnd || lx + fm.horizontalAdvance(label) > nextX - 2)
            continue; // no room before the next step: its mark stays, its words are the next's
        p.setPen(muted);
        p.drawText(QPointF(lx, baseline), label);
        lastLabelEnd = lx + fm.horizontalAdvance(label) + 6;
    }
    return lastLabelEnd;
}

double TimelineStrip::xOf(Nanos t) const
{
    if (!m_range.isValid())
        return m_left;
    const double f = (secondsAsDouble(t) - secondsAsDouble(m_range.from))
                   / (secondsAsDouble(m_range.to) - secondsAsDouble(m_range.from));
    return m_left + f * (m_right - m_left);
}

Nanos TimelineStrip::timeAt(double x) const
{
    if (!m_range.isValid() || m_right <= m_left)
        return 0;
    const double perPixel = double(m_range.to - m_range.from) / (m_right - m_left);
    // A round step (a power of ten of nanoseconds) no coarser than a pixel: the time typed back
    // reads as a person would type it ("10.25 s", not "10.2483017 s").
    Nanos step = 1;
    while (step <= kMaxNanos / 10 && double(step * 10) <= perPixel)
        step *= 10;
    const double t = double(m_range.from) + (x - m_left) * perPixel;
    const double clamped = std::clamp(t, 0.0, double(kMaxNanos / 2));
    return Nanos(std::llround(clamped / double(step))) * step;
}

std::optional<std::size_t> TimelineStrip::eventNear(double x) const
{
    std::optional<std::size_t> best;
    double bestDistance = kGrabPixels;
    for (std::size_t i = 0; i < m_events.size(); ++i) {
        const double d = std::abs(xOf(m_events[i].at) - x);
        if (d <= bestDistance) {
            best = i;
            bestDistance = d;
        }
    }
    return best;
}

QString TimelineStrip::describe(const FleetEvent& e) const
{
    switch (e.kind) {
    case FleetEvent::Kind::Join: return tr("node %1 joins").arg(e.node + 1);
    case FleetEvent::Kind::Leave: return tr("node %1 leaves").arg(e.node + 1);
    case FleetEvent::Kind::StoreDown:
        return m_fallback == Fallback::Open     ? tr("store down: fail open")
               : m_fallback == Fallback::Closed ? tr("store down: fail closed")
                                                : tr("store down: each node local");
    case FleetEvent::Kind::StoreBack: return tr("store back");
    case FleetEvent::Kind::LimitChange: {
        // "limit 20, rate 2/s": what the change names, from its own text
        const LimitChange& c = m_changes.at(std::size_t(e.node));
        QStringList parts;
        if (c.limit)
            parts << tr("limit %1").arg(*c.limit);
        if (c.capacity)
            parts << tr("capacity %1").arg(*c.capacity);
        if (c.rate)
            parts << tr("rate %1/s").arg(QString::fromStdString(c.rate->exactText()));
        return parts.join(", ");
    }
    }
    return {};
}

Nanos TimelineStrip::shownAt(std::size_t i) const { return m_dragged == i ? m_dragTo : m_events[i].at; }

double TimelineStrip::paintOutage(QPainter& p, double lastLabelEnd) const
{
    std::optional<std::size_t> down, back;
    for (std::size_t i = 0; i < m_events.size(); ++i) {
        if (m_events[i].kind == FleetEvent::Kind::StoreDown)
            down = i;
        if (m_events[i].kind == FleetEvent::Kind::StoreBack)
            back = i;
    }
    if (!down || !back)
        return lastLabelEnd;
    const double h = height();
    const auto fm = fontMetrics();
    const double x0 = xOf(shownAt(*down)), x1 = xOf(shownAt(*back));
    QColor band = palette().color(QPalette::Highlight);
    band.setAlpha(60);
    p.fillRect(QRectF(QPointF(x0, 1), QPointF(x1, h - 1)), band);
    QString label = describe(m_events[*down]);
    if (m_dragged == down || m_dragged == back)
        label = exactSecondsLabel(shownAt(*down)) + " - " + exactSecondsLabel(shownAt(*back));
    p.setPen(palette().color(QPalette::WindowText));
    // Inside the band when it fits, else just after it.
    const double inside = std::min(x1, m_right) - std::max(x0, m_left) - 16;
    const double lx = fm.horizontalAdvance(label) <= inside ? std::max(x0, m_left) + 8 : x1 + 8;
    p.drawText(QPointF(lx, (h + fm.ascent() - fm.descent()) / 2), label);
    return lx + fm.horizontalAdvance(label) + 6;
}

QString TimelineStrip::eventLabel(std::size_t i) const
{
    const FleetEvent& e = m_events[i];
    // Nodes joining (or leaving) at one instant share one label: "nodes 3, 4 join".
    QStringList same;
    for (std::size_t j = i; j < m_events.size() && m_events[j].kind == e.kind && m_events[j].at == e.at
                            && (j == i || (m_dragged != i && m_dragged != j));
         ++j)
        same << QString::number(m_events[j].node + 1);
    QString label = same.size() > 1 ? (e.kind == FleetEvent::Kind::Join ? tr("nodes %1 join") : tr("nodes %1 leave"))
                                          .arg(same.join(", "))
                                    : describe(e);
    if (m_dragged == i)
        label += "  " + exactSecondsLabel(m_dragTo);
    return label;
}

double TimelineStrip::paintEvents(QPainter& p, double lastLabelEnd) const
{
    const QColor text = palette().color(QPalette::WindowText);
    const QColor accent = palette().color(QPalette::Highlight);
    const double h = height();
    const auto fm = fontMetrics();
    const double baseline = (h + fm.ascent() - fm.descent()) / 2;
    for (std::size_t i = 0; i < m_events.size(); ++i) {
        const FleetEvent& e = m_events[i];
        const double x = xOf(shownAt(i));
        p.setPen(QPen(m_dragged == i ? accent : text, m_dragged == i ? 2.5 : 1.5));
        p.drawLine(QPointF(x, 1), QPointF(x, h - 1));
        // A handle: a small triangle pointing the way the event opens (a join, the store down
        // into the band) or closes.
        const bool right = e.kind == FleetEvent::Kind::Join || e.kind == FleetEvent::Kind::StoreDown;
        QPolygonF handle;
        handle << QPointF(x, h / 2 - 4) << QPointF(x + (right ? 5 : -5), h / 2) << QPointF(x, h / 2 + 4);
        p.setBrush(m_dragged == i ? accent : text);
        p.drawPolygon(handle);
        if (e.kind == FleetEvent::Kind::StoreDown || e.kind == FleetEvent::Kind::StoreBack)
            continue; // the band says it
        // An event sharing the previous one's kind and instant is in its label.
        if (i > 0 && m_dragged != i && m_dragged != i - 1 && m_events[i - 1].kind == e.kind && m_events[i - 1].at == e.at)
            continue;
        const QString label = eventLabel(i);
        const double lx = x + 7;
        if (lx < lastLabelEnd && m_dragged != i)
            continue; // a neighbour's label is there: the mark stays, its words are in the tooltip
        p.setPen(text);
        p.drawText(QPointF(lx, baseline), label);
        lastLabelEnd = lx + fm.horizontalAdvance(label) + 6;
    }
    return lastLabelEnd;
}

void TimelineStrip::paintEvent(QPaintEvent*)
{
    if (!m_range.isValid() || m_right <= m_left)
        return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    p.setClipRect(QRectF(m_left - kGrabPixels, 0, m_right - m_left + 2 * kGrabPixels, double(height())));
    // Labels never overlap: each is drawn after where the last one drawn ends. The outage first,
    // as a band under the marks.
    double lastLabelEnd = paintScaling(p, -1e9);
    lastLabelEnd = paintOutage(p, lastLabelEnd);
    paintEvents(p, lastLabelEnd);
}

void TimelineStrip::mousePressEvent(QMouseEvent* event)
{
    m_dragged = eventNear(event->position().x());
    if (!m_dragged)
        return QWidget::mousePressEvent(event);
    m_dragTo = m_events[*m_dragged].at;
    update();
}

void TimelineStrip::mouseMoveEvent(QMouseEvent* event)
{
    const double x = event->position().x();
    if (m_dragged) {
        m_dragTo = timeAt(x);
        update();
        return;
    }
    const auto near = eventNear(x);
    setCursor(near ? Qt::SizeHorCursor : Qt::ArrowCursor);
    if (near)
        QToolTip::showText(event->globalPosition().toPoint(),
                           tr("%1 at %2: drag to move").arg(describe(m_events[*near]), exactSecondsLabel(m_events[*near].at)),
                           this);
}

void TimelineStrip::mouseReleaseEvent(QMouseEvent* event)
{
    if (!m_dragged)
        return QWidget::mouseReleaseEvent(event);
    const FleetEvent e = m_events[*m_dragged];
    const Nanos to = timeAt(event->position().x());
    m_dragged.reset();
    update();
    if (to != e.at)
        emit eventMoved(e, to);
}

QMenu* TimelineStrip::menuAt(double x, QWidget* parent)
{
    auto* menu = new QMenu(parent);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const Nanos at = timeAt(x);
    const QString when = exactSecondsLabel(at);
    if (const auto near = eventNear(x)) {
        const FleetEvent e = m_events[*near];
        menu->addAction(tr("Remove %1 (at %2)").arg(describe(e), exactSecondsLabel(e.at)), this,
                        [this, e] { emit eventRemoveRequested(e); });
        menu->addSeparator();
    }
    menu->addAction(tr("Add a limit change at %1...").arg(when), this,
                    [this, at] { emit eventAddRequested(FleetEvent::Kind::LimitChange, at); });
    QAction* join = menu->addAction(tr("Add a node joining at %1").arg(when), this,
                                    [this, at] { emit eventAddRequested(FleetEvent::Kind::Join, at); });
    QAction* leave = menu->addAction(tr("Add a node leaving at %1").arg(when), this,
                                     [this, at] { emit eventAddRequested(FleetEvent::Kind::Leave, at); });
    for (QAction* a : {join, leave}) {
        a->setEnabled(m_hasCluster);
        if (!m_hasCluster)
            a->setToolTip(tr("Tick Cluster (without autoscaling) first"));
    }
    return menu;
}

void TimelineStrip::contextMenuEvent(QContextMenuEvent* event)
{
    menuAt(event->pos().x(), this)->popup(event->globalPos());
}

} // namespace ratelab::ui
