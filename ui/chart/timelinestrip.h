// TimelineStrip shows a cluster's events above the rows, on the rows' time axis: the store's
// outage as a band, nodes joining and leaving as marks, and what an autoscaler did (read from
// the run: dashed, since the load decides it, not a person). A person drags an event to move it;
// the strip only reports the move (eventMoved), the document decides.
#pragma once

#include "engine/cluster.h"
#include "model/frame.h"
#include "scenario/scenario.h"

#include <QWidget>

class QMenu;

#include <optional>
#include <vector>

namespace ratelab::ui {

class TimelineStrip : public QWidget {
    Q_OBJECT
public:
    explicit TimelineStrip(QWidget* parent = nullptr);
    // setPlot tells where, in this widget's x coordinates, the plots begin and end.
    void setPlot(double left, double right, TimeRange range);
    // setScenario shows a scenario's events: its cluster's, its limit changes (none: the strip hides).
    void setScenario(const Scenario* scenario);
    const std::vector<FleetEvent>& events() const { return m_events; }
    // setScaling shows an autoscaler's steps: from each time on, how many nodes are up (the first
    // is the start); scaling() is what is shown. `whose` names the row they are from when the
    // rows scaled differently (empty: every row's).
    void setScaling(std::vector<std::pair<Nanos, int>> steps, const QString& whose = {});
    const std::vector<std::pair<Nanos, int>>& scaling() const { return m_scaling; }
    // xOf is where time t lies; timeAt the time at x, rounded to a round step finer than a pixel.
    double xOf(Nanos t) const;
    Nanos timeAt(double x) const;
    QSize sizeHint() const override;
    // menuAt builds the menu a right-click at x offers (this strip's x, or the time axis's: they
    // share the plot's left and right): add an event there, remove the one under it.
    QMenu* menuAt(double x, QWidget* parent);

signals:
    // eventMoved asks for event e to happen at `to` instead.
    void eventMoved(ratelab::FleetEvent e, ratelab::Nanos to);
    // eventAddRequested asks for an event of this kind at `at` (a limit change, a node joining or
    // leaving); eventRemoveRequested for e to go.
    void eventAddRequested(ratelab::FleetEvent::Kind kind, ratelab::Nanos at);
    void eventRemoveRequested(ratelab::FleetEvent e);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void contextMenuEvent(QContextMenuEvent* event) override;

private:
    std::optional<std::size_t> eventNear(double x) const;
    QString describe(const FleetEvent& e) const;

    double m_left = 0, m_right = 0;
    TimeRange m_range;
    std::vector<FleetEvent> m_events;
    std::vector<LimitChange> m_changes;
    std::vector<std::pair<Nanos, int>> m_scaling;
    QString m_scalingWhose;
    void updateVisible();
    // paintScaling draws the autoscaler's steps, their labels after lastLabelEnd; returns where
    // the last label ends.
    double paintScaling(QPainter& p, double lastLabelEnd) const;
    // shownAt is when event i is drawn: where it is being dragged to, else its time.
    Nanos shownAt(std::size_t i) const;
    // paintOutage draws the store's outage as a band under the marks, its words inside it (or
    // after it); paintEvents draws each event's mark and label. Each returns where its last
    // label ends.
    double paintOutage(QPainter& p, double lastLabelEnd) const;
    double paintEvents(QPainter& p, double lastLabelEnd) const;
    // eventLabel is event i's words, shared with the events of its kind at its instant.
    QString eventLabel(std::size_t i) const;
    Fallback m_fallback = Fallback::Open;
    bool m_hasCluster = false;
    std::optional<std::size_t> m_dragged;
    Nanos m_dragTo = 0;
};

} // namespace ratelab::ui
