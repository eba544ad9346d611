#include "panels/slidervalue.h"

#include <QFontMetrics>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSlider>

#include <algorithm>
#include <cmath>

namespace ratelab::ui {

namespace {
constexpr int kSteps = 1000;
}

SliderValue::SliderValue(const QString& label, double min, double max, int decimals, const QString& suffix,
                         Scale scale, QWidget* parent)
    : QWidget(parent)
    , m_label(new QLabel(label, this))
    , m_slider(new QSlider(Qt::Horizontal, this))
    , m_field(new QLineEdit(this))
    , m_suffix(new QLabel(suffix.trimmed(), this))
    , m_min(min)
    , m_max(max)
    , m_decimals(decimals)
    , m_step(decimals == 0 ? 1 : std::pow(10.0, -decimals))
    , m_scale(scale)
{
    m_slider->setRange(0, kSteps);
    m_label->setBuddy(m_field);
    // The field is named by its label (its buddy); the slider, beside it, by the same words.
    m_slider->setAccessibleName(QString(label).replace("&&", QString(QChar(0))).remove('&').replace(QChar(0), "&"));
    m_label->setMinimumWidth(64);
    m_slider->setMinimumWidth(60);
    m_field->setMinimumWidth(QFontMetrics(m_field->font()).horizontalAdvance("0.000000001") + 12);
    m_field->setMaximumWidth(QFontMetrics(m_field->font()).horizontalAdvance("0000000.000000001") + 12);
    m_suffix->setMinimumWidth(QFontMetrics(m_suffix->font()).horizontalAdvance("/s") + 2);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_field);
    layout->addWidget(m_suffix);

    connect(m_slider, &QSlider::valueChanged, this, [this](int position) {
        const QString text = textOf(valueAt(position));
        if (text == m_shown)
            return;
        setProblem({});
        emit edited(text);
    });
    connect(m_field, &QLineEdit::editingFinished, this, &SliderValue::commitTyped);
    connect(m_field, &QLineEdit::textEdited, this, [this] { setProblem({}); });
}

void SliderValue::show(const QString& text, double approx)
{
    m_shown = text;
    m_approx = approx;
    const QSignalBlocker block(m_slider);
    m_slider->setValue(positionOf(approx));
    if (m_field->text() != text && (m_problem.isEmpty() || !m_field->hasFocus()))
        m_field->setText(text);
    if (!m_field->hasFocus())
        setProblem({});
}

QString SliderValue::text() const { return m_shown; }

void SliderValue::type(const QString& text)
{
    m_field->setText(text);
    commitTyped();
}

void SliderValue::commitTyped()
{
    const QString text = m_field->text();
    if (text == m_shown) {
        setProblem({});
        return;
    }
    const QString problem = m_check ? m_check(text) : QString();
    if (!problem.isEmpty()) {
        setProblem(problem);
        return;
    }
    setProblem({});
    emit edited(text);
}

void SliderValue::setProblem(const QString& problem)
{
    const bool changed = problem != m_problem;
    m_problem = problem;
    if (changed)
        emit problemChanged(problem);
    m_field->setStyleSheet(problem.isEmpty() ? QString() : QString("QLineEdit { border: 2px solid #d32f2f; }"));
    m_field->setToolTip(problem.isEmpty() ? m_tip : problem);
}

void SliderValue::setToolTip(const QString& tip)
{
    m_tip = tip;
    m_label->setToolTip(tip);
    m_slider->setToolTip(tip);
    m_field->setToolTip(m_problem.isEmpty() ? tip : m_problem);
}

int SliderValue::positionOf(double v) const
{
    double f = 0;
    if (m_scale == Scale::Log && m_min > 0)
        f = v > 0 ? std::log(v / m_min) / std::log(m_max / m_min) : 0;
    else
        f = (v - m_min) / (m_max - m_min);
    return int(std::lround(std::clamp(f, 0.0, 1.0) * kSteps));
}

double SliderValue::valueAt(int position) const
{
    const double f = double(position) / kSteps;
    const double v = (m_scale == Scale::Log && m_min > 0) ? m_min * std::pow(m_max / m_min, f) : m_min + f * (m_max - m_min);
    // Round to a value a person would pick: the step (linear) or two significant digits (log).
    double unit = m_step;
    if (m_scale == Scale::Log && v > 0)
        unit = std::max(unit, std::pow(10.0, std::floor(std::log10(v)) - 1));
    return std::clamp(std::round(v / unit) * unit, m_min, m_max);
}

QString SliderValue::textOf(double v) const
{
    // A plain decimal with at most the setting's decimals and no trailing zeros: "0.1", "12".
    QString s = QString::number(v, 'f', m_decimals);
    if (s.contains('.')) {
        while (s.endsWith('0'))
            s.chop(1);
        if (s.endsWith('.'))
            s.chop(1);
    }
    return s;
}

} // namespace ratelab::ui
