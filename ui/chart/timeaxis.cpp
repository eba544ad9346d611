#include "chart/timeaxis.h"

#include "chart/ticks.h"

#include <algorithm>
#include <cmath>

#include <QDate>
#include <QLocale>
#include <QPainter>

namespace ratelab::ui {

TimeAxis::TimeAxis(QWidget* parent)
    : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize TimeAxis::sizeHint() const { return {200, fontMetrics().height() + 12}; }

void TimeAxis::setPlot(double left, double right, TimeRange range)
{
    m_left = left;
    m_right = right;
    m_range = range;
    update();
}

void TimeAxis::setCalendar(bool calendar)
{
    if (calendar == m_calendar)
        return;
    m_calendar = calendar;
    update();
}

bool calendarTime(const Scenario& s)
{
    if (std::find(s.algorithms.begin(), s.algorithms.end(), Algorithm::AwsApiGateway) == s.algorithms.end())
        return false;
    const auto& options = s.config.productOptions();
    return std::any_of(options.begin(), options.end(), [](const ProductOption& o) {
        return o.name == "quota_period" || o.name.ends_with(".quota_period");
    });
}

QString dateText(double seconds)
{
    const QDate date = QDate(1970, 1, 1).addDays(qint64(std::floor(seconds / kDaySeconds)));
    return QLocale().toString(date, QStringLiteral("MMM d"));
}

std::vector<std::pair<double, QString>> TimeAxis::ticks() const
{
    std::vector<std::pair<double, QString>> all;
    if (!m_range.isValid() || m_right <= m_left)
        return all;
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const double step = timeStep(to - from, std::max(2, int((m_right - m_left) / 110)), m_calendar);
    const bool dates = m_calendar && step >= kDaySeconds;
    const int precision = std::max(0, int(-std::floor(std::log10(step) + 1e-9)) + (step / std::pow(10.0, std::floor(std::log10(step))) == 2.5 ? 1 : 0));
    // Ticks by index, not by adding step to a double: far from 0 (a start at 10^9 s) a small step
    // can be below the double's resolution, and t += step would never move.
    const double first = std::ceil(from / step - 1e-9);
    for (int k = 0; k < 1000; ++k) {
        const double t = (first + k) * step;
        if (t > to + step * 1e-9)
            break;
        all.emplace_back(t, dates ? dateText(t) // "Jan 20": the lesson's own words
                                  : QLocale().toString(std::abs(t) < step * 1e-6 ? 0.0 : t, 'f', precision) + " s");
    }
    return all;
}

QStringList TimeAxis::labels() const
{
    QStringList texts;
    for (const auto& [t, label] : ticks())
        texts << label;
    return texts;
}

void TimeAxis::paintEvent(QPaintEvent*)
{
    const auto all = ticks();
    if (all.empty())
        return;
    QPainter p(this);
    p.setPen(palette().color(QPalette::WindowText));
    const double from = secondsAsDouble(m_range.from), to = secondsAsDouble(m_range.to);
    const auto fm = fontMetrics();
    for (const auto& [t, label] : all) {
        const double x = m_left + (t - from) / (to - from) * (m_right - m_left);
        p.drawLine(QPointF(x, 0), QPointF(x, 4));
        const double w = fm.horizontalAdvance(label);
        // Below the tick with a gap: the tick never runs into the label.
        p.drawText(QPointF(std::max(0.0, std::min(x - w / 2, width() - w)), 7 + fm.ascent()), label);
    }
}

} // namespace ratelab::ui
