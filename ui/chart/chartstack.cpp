#include "chart/chartstack.h"

#include "report/report_run.h"
#include "chart/rowchart.h"
#include "chart/timeaxis.h"
#include "chart/timelinestrip.h"

#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QMenu>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {
constexpr Nanos kMinSpanNanos = 1000; // 1 µs: a few requests apart at most
}

ChartStack::ChartStack(QWidget* parent)
    : QWidget(parent)
    , m_layout(new QVBoxLayout(this))
    , m_scroll(new QScrollArea(this))
    , m_rowsLayout(nullptr)
    , m_axis(new TimeAxis(this))
    , m_timeline(new TimelineStrip(this))
    , m_empty(new QLabel("No algorithm is chosen: tick at least one under Algorithms.", this))
{
    m_layout->setContentsMargins(0, 0, 0, 0);
    m_layout->setSpacing(0);
    m_empty->setAlignment(Qt::AlignCenter);
    m_empty->setWordWrap(true);
    m_empty->hide();
    auto* rows = new QWidget;
    m_rowsLayout = new QVBoxLayout(rows);
    m_rowsLayout->setContentsMargins(0, 0, 0, 0);
    m_rowsLayout->setSpacing(0);
    m_scroll->setWidget(rows);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setBackgroundRole(QPalette::Base);
    rows->setBackgroundRole(QPalette::Base);
    m_layout->addWidget(m_timeline);
    m_layout->addWidget(m_empty, 1);
    connect(m_timeline, &TimelineStrip::eventMoved, this, &ChartStack::fleetEventMoved);
    connect(m_timeline, &TimelineStrip::eventAddRequested, this, &ChartStack::fleetEventAddRequested);
    connect(m_timeline, &TimelineStrip::eventRemoveRequested, this, &ChartStack::fleetEventRemoveRequested);
    // The time axis offers the timeline's menu too: it is always there, the strip only with events.
    m_axis->installEventFilter(this);
    m_axis->setToolTip(tr("Right-click to add an event at a time: a limit change, a node joining or leaving"));
    m_layout->addWidget(m_scroll, 1);
    m_layout->addWidget(m_axis);
}

bool ChartStack::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_axis && event->type() == QEvent::ContextMenu) {
        const auto* e = static_cast<QContextMenuEvent*>(event);
        m_timeline->menuAt(e->pos().x(), this)->popup(e->globalPos());
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

void ChartStack::updateAxis()
{
    if (m_rows.empty())
        return;
    const QRectF plot = m_rows.front()->plotRect();
    const double left = m_rows.front()->mapTo(this, plot.topLeft().toPoint()).x();
    m_axis->setPlot(left, left + plot.width(), m_range);
    m_timeline->setPlot(left, left + plot.width(), m_range);
}

void ChartStack::prepareRows(std::size_t n)
{
    while (m_rows.size() > n) {
        delete m_rows.back();
        m_rows.pop_back();
    }
    while (m_rows.size() < n) {
        auto* row = new RowChart(m_scroll->widget());
        row->setMinimumPlotHeight(m_minimumPlotHeight);
        row->setVeiled(m_veiled);
        connect(row, &RowChart::zoomRequested, this, &ChartStack::zoom);
        connect(row, &RowChart::panRequested, this, &ChartStack::pan);
        connect(row, &RowChart::spanSelected, this, &ChartStack::zoomToSpan);
        connect(row, &RowChart::requestClicked, this, [this](std::optional<std::size_t> i) {
            setPinned(i);
            emit pinned(i);
        });
        m_rowsLayout->insertWidget(int(m_rows.size()), row, 1);
        m_rows.push_back(row);
    }
    m_empty->setVisible(n == 0);
    m_scroll->setVisible(n != 0);
    m_axis->setVisible(n != 0);
}

void ChartStack::setScrollBarSpaceKept(bool kept)
{
    m_scrollBarSpaceKept = kept;
    updateScrollBarSpace();
}

void ChartStack::updateScrollBarSpace()
{
    // The rows are as wide as the scroll area less its bar, whether the bar shows or not.
    QWidget* rows = m_scroll->widget();
    if (m_scrollBarSpaceKept)
        rows->setFixedWidth(std::max(0, width() - m_scroll->verticalScrollBar()->sizeHint().width()));
    else {
        rows->setMinimumWidth(0);
        rows->setMaximumWidth(QWIDGETSIZE_MAX);
    }
}

void ChartStack::setFrame(std::shared_ptr<const Frame> shared)
{
    if (!shared || !shared->trace)
        return;
    const Frame& frame = *shared;
    const std::size_t n = frame.rows.size();
    prepareRows(n);
    if (m_pinned && *m_pinned >= frame.trace->arrivals.size())
        m_pinned.reset();
    for (std::size_t i = 0; i < n; ++i) {
        m_rows[i]->setPinned(m_pinned);
        m_rows[i]->setPlayhead(m_playhead);
        m_rows[i]->setFrame(shared, i);
    }
    m_frameColumns = frame.rows.empty() ? 0 : int(frame.rows.front().columns.size());
    m_full = fullRange(*frame.trace);
    m_range = frame.range;
    m_zoomed = !(m_range == m_full);
    m_timeline->setScenario(n > 0 ? frame.scenario.get() : nullptr);
    m_axis->setCalendar(frame.scenario && calendarTime(*frame.scenario));
    // The autoscaler's steps: the rows' load is the same unless clients retry differently, so
    // the strip shows the first row's, naming it when another row scaled otherwise.
    const AlgorithmTrace* first = nullptr;
    bool differ = false;
    for (const AlgorithmTrace& r : frame.trace->results)
        if (r.engine && r.engine->run.scaling.size() > 1) {
            if (!first)
                first = &r;
            else
                differ = differ || r.engine->run.scaling != first->engine->run.scaling;
        }
    m_timeline->setScaling(first ? first->engine->run.scaling : std::vector<std::pair<Nanos, int>>{},
                           differ ? RowChart::titleOf(*first) : QString());
    updateAxis();
    // Rows just added lay out their plots later: place the axis again once they have. The width
    // may also have changed while this frame was built (a window maximized as it opened).
    QTimer::singleShot(0, this, &ChartStack::followWidth);
}

void ChartStack::followWidth()
{
    const int columns = laidOutColumns();
    updateAxis();
    // Rows prepared for the first frame have none to redraw yet: it is being built.
    if (m_frameColumns != 0 && columns != m_frameColumns)
        emit columnsChanged();
}

void ChartStack::ensureRowVisible(int i)
{
    if (i >= 0 && i < rowCount())
        m_scroll->ensureWidgetVisible(m_rows[std::size_t(i)], 0, 0);
}

int ChartStack::rowsOverflow() const
{
    if (m_rows.empty())
        return 0;
    const int needed = m_scroll->widget()->minimumSizeHint().height();
    return std::max(0, needed - m_scroll->viewport()->height());
}

void ChartStack::setMinimumPlotHeight(int pixels)
{
    m_minimumPlotHeight = pixels;
    for (RowChart* row : m_rows)
        row->setMinimumPlotHeight(pixels);
}

int ChartStack::columns() const
{
    return m_rows.empty() ? 1 : m_rows.front()->plotColumns(); // no rows: nothing is reduced
}

int ChartStack::laidOutColumns()
{
    // A layout change posts its requests: the widgets', then each chart's own for its plot.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    return columns();
}

void ChartStack::setRange(TimeRange range)
{
    m_range = range;
    m_zoomed = true;
    for (RowChart* row : m_rows)
        row->previewRange(range);
    updateAxis();
    emit rangeRequested(range);
}

void ChartStack::zoom(double anchorSeconds, double factor)
{
    if (!m_range.isValid())
        return;
    const double anchor = anchorSeconds * 1e9;
    double from = anchor - (anchor - double(m_range.from)) * factor;
    double to = anchor + (double(m_range.to) - anchor) * factor;
    const double maxSpan = 4.0 * double(m_full.to - m_full.from);
    if (to - from < kMinSpanNanos || to - from > maxSpan)
        return;
    if (from < 0) { // zooming out at the start: the view keeps its span and starts at 0, as a pan stops there
        to -= from;
        from = 0;
    }
    if (to < 0x1p63) { // every double below 2^63 is a whole number of nanoseconds a Nanos holds
        setRange({Nanos(std::llround(from)), Nanos(std::llround(to))});
        return;
    }
    // Zooming out past the end of time: the view keeps its span and ends there, as a pan stops
    // there; a span longer than all of time becomes all of it. (Rounded as it was, `to` overflowed
    // to the most negative time: a reversed range, which the rows' axes refused while taking a
    // tick step made for it over the span they kept: billions of grid lines.)
    const Nanos span = to - from < 0x1p63 ? Nanos(std::llround(to - from)) : kMaxNanos;
    setRange({kMaxNanos - span, kMaxNanos});
}

void ChartStack::pan(double deltaSeconds)
{
    if (!m_range.isValid())
        return;
    // Pan within [0, the end of time]: the view keeps its span and stops at either end.
    const Nanos span = m_range.to - m_range.from;
    const double from = std::max(0.0, double(m_range.from) + deltaSeconds * 1e9);
    const Nanos start = from < 0x1p62 ? std::min<Nanos>(Nanos(from), kMaxNanos - span) : kMaxNanos - span;
    setRange({start, start + span});
}

void ChartStack::setPlayhead(std::optional<Playhead> playhead)
{
    m_playhead = playhead;
    for (RowChart* row : m_rows)
        row->setPlayhead(playhead);
}

void ChartStack::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    updateScrollBarSpace();
    // The rows lay out their plot areas after this event: look once they have.
    QTimer::singleShot(0, this, &ChartStack::followWidth);
}

void ChartStack::zoomToSpan(double fromSeconds, double toSeconds)
{
    const double from = std::max(0.0, fromSeconds * 1e9), to = toSeconds * 1e9;
    if (to - from < kMinSpanNanos || !(to < 9.2e18))
        return;
    setRange({Nanos(std::llround(from)), Nanos(std::llround(to))});
}

void ChartStack::setPinned(std::optional<std::size_t> request)
{
    m_pinned = request;
    for (RowChart* row : m_rows)
        row->setPinned(request);
}

void ChartStack::resetZoom()
{
    m_zoomed = false;
    emit rangeRequested(TimeRange{});
}

void ChartStack::setVeiled(bool veiled)
{
    m_veiled = veiled;
    for (RowChart* row : m_rows)
        row->setVeiled(veiled);
}

} // namespace ratelab::ui
