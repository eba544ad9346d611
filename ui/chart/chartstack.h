// ChartStack holds one RowChart per algorithm of the frame, all on one time range: a wheel or
// drag on any row zooms or pans every row, and asks for a frame reduced to the new range.
#pragma once

#include "engine/cluster.h"
#include "model/frame.h"

#include <QWidget>

#include <optional>

class QLabel;
class QScrollArea;
class QVBoxLayout;

namespace ratelab::ui {

class RowChart;
class TimeAxis;
class TimelineStrip;

class ChartStack : public QWidget {
    Q_OBJECT
public:
    explicit ChartStack(QWidget* parent = nullptr);

    void setFrame(std::shared_ptr<const Frame> frame);
    // range is the visible range; empty after resetZoom until the next frame.
    TimeRange range() const { return m_range; }
    // isZoomed reports whether the view differs from the trace's full range.
    bool isZoomed() const { return m_zoomed; }
    // columns is the pixel width of the rows' plot areas.
    int columns() const;
    // laidOutColumns is columns once every layout change made so far has been laid out.
    int laidOutColumns();
    int rowCount() const { return int(m_rows.size()); }
    // rowsOverflow is how many pixels taller than their view the rows need to be at their
    // minimum height (0 when every row fits and no scroll bar is needed).
    int rowsOverflow() const;
    // setMinimumPlotHeight keeps every row's level plot at least this tall; when the rows do
    // not fit, they scroll (the time axis stays). Exports keep the default, which always fits.
    void setMinimumPlotHeight(int pixels);
    // setScrollBarSpaceKept keeps the vertical scroll bar's width free beside the rows even
    // while it is hidden, so the plot width (a frame's column count) does not change when rows
    // start or stop scrolling: the window's first frame is then built once, at its real width.
    void setScrollBarSpaceKept(bool kept);
    // prepareRows keeps exactly n rows; added ones stay empty until a frame fills them. Laid out
    // before a first frame, they make columns() the width that frame will be drawn at.
    void prepareRows(std::size_t n);
    RowChart* row(int i) const { return m_rows.at(i); }
    // ensureRowVisible scrolls the rows so that row i is shown whole (when they scroll).
    void ensureRowVisible(int i);
    TimeAxis* axis() const { return m_axis; }
    TimelineStrip* timeline() const { return m_timeline; }

public slots:
    void setPlayhead(std::optional<ratelab::ui::Playhead> playhead);
    void zoom(double anchorSeconds, double factor);
    void pan(double deltaSeconds);
    void resetZoom();
    // zoomToSpan shows [from, to] seconds.
    void zoomToSpan(double fromSeconds, double toSeconds);
    void setPinned(std::optional<std::size_t> request);
    // setVeiled hides every row's decisions (rows made later too) or reveals them.
    void setVeiled(bool veiled);

signals:
    // rangeRequested asks for a frame over range (empty: the full range).
    void rangeRequested(ratelab::ui::TimeRange range);
    // columnsChanged says the rows' plot width is no longer the one the frame was reduced to:
    // the frame last asked for is wanted again, at the new width.
    void columnsChanged();
    // pinned reports a request clicked in any row, or a click on none (nullopt).
    void pinned(std::optional<std::size_t> request);
    // fleetEventMoved reports a cluster event dragged along the timeline strip to `to`.
    void fleetEventMoved(ratelab::FleetEvent e, ratelab::Nanos to);
    void fleetEventAddRequested(ratelab::FleetEvent::Kind kind, ratelab::Nanos at);
    void fleetEventRemoveRequested(ratelab::FleetEvent e);

protected:
    void resizeEvent(QResizeEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void updateScrollBarSpace();
    // followWidth places the axis and asks for a frame again if the rows' width is no longer
    // the one the frame shown was reduced to.
    void followWidth();
    void setRange(TimeRange range);
    void updateAxis();

    QVBoxLayout* m_layout;
    QScrollArea* m_scroll;
    QVBoxLayout* m_rowsLayout;
    int m_minimumPlotHeight = 8;
    bool m_scrollBarSpaceKept = false;
    TimeAxis* m_axis;
    TimelineStrip* m_timeline;
    QLabel* m_empty;
    std::vector<RowChart*> m_rows;
    TimeRange m_range;
    TimeRange m_full;
    bool m_zoomed = false;
    int m_frameColumns = 0;
    std::optional<Playhead> m_playhead;
    std::optional<std::size_t> m_pinned;
    bool m_veiled = false;
};

} // namespace ratelab::ui
