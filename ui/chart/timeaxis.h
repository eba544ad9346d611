// TimeAxis labels the shared time axis under the chart rows, at the same round steps as the
// rows' vertical grid lines.
#pragma once

#include "model/frame.h"

#include <QWidget>

namespace ratelab::ui {

class TimeAxis : public QWidget {
    Q_OBJECT
public:
    explicit TimeAxis(QWidget* parent = nullptr);
    // setPlot tells where, in this widget's x coordinates, the plots begin and end.
    void setPlot(double left, double right, TimeRange range);
    QSize sizeHint() const override;
    double plotLeft() const { return m_left; }
    double plotRight() const { return m_right; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    double m_left = 0, m_right = 0;
    TimeRange m_range;
};

} // namespace ratelab::ui
