// TimeAxis labels the shared time axis under the chart rows, at the same round steps as the
// rows' vertical grid lines.
#pragma once

#include "model/frame.h"

#include <QWidget>

#include <utility>
#include <vector>

namespace ratelab::ui {

// calendarTime is true for a scenario whose lesson is on the calendar: a product counting by
// calendar days, weeks or months (API Gateway's quota_period). Its axis then reads as dates.
bool calendarTime(const Scenario& s);

// dateText names the UTC date of t seconds from 1970-01-01T00:00Z ("Jan 20"), where the calendar
// products count from.
QString dateText(double seconds);

class TimeAxis : public QWidget {
    Q_OBJECT
public:
    explicit TimeAxis(QWidget* parent = nullptr);
    // setPlot tells where, in this widget's x coordinates, the plots begin and end.
    void setPlot(double left, double right, TimeRange range);
    // setCalendar labels a span of two days or more by date, at midnights (calendarTime).
    void setCalendar(bool calendar);
    // labels are the tick labels as drawn, left to right.
    QStringList labels() const;
    QSize sizeHint() const override;
    double plotLeft() const { return m_left; }
    double plotRight() const { return m_right; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    double m_left = 0, m_right = 0;
    TimeRange m_range;
    bool m_calendar = false;
    // ticks are the labelled times (seconds) with their labels, for the plot's width.
    std::vector<std::pair<double, QString>> ticks() const;
};

} // namespace ratelab::ui
