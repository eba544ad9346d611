#include "slidervalue.h"

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
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
    , m_spin(new QDoubleSpinBox(this))
    , m_scale(scale)
{
    m_spin->setRange(min, max);
    m_spin->setDecimals(decimals);
    m_spin->setSuffix(suffix);
    m_spin->setKeyboardTracking(false); // act on Enter or focus-out, not on every keystroke
    m_spin->setAccelerated(true);
    m_spin->setSingleStep(decimals == 0 ? 1 : std::pow(10.0, -decimals));
    m_spin->setMinimumWidth(88);
    m_slider->setRange(0, kSteps);
    m_label->setBuddy(m_spin);
    m_label->setMinimumWidth(64);
    m_slider->setMinimumWidth(60);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_label);
    layout->addWidget(m_slider, 1);
    layout->addWidget(m_spin);

    connect(m_slider, &QSlider::valueChanged, this, [this](int position) {
        const QSignalBlocker block(m_spin);
        m_spin->setValue(valueAt(position));
        emit valueChanged(m_spin->value());
    });
    connect(m_spin, &QDoubleSpinBox::valueChanged, this, [this](double v) {
        const QSignalBlocker block(m_slider);
        m_slider->setValue(positionOf(v));
        emit valueChanged(v);
    });
}

double SliderValue::value() const { return m_spin->value(); }

void SliderValue::setValue(double v)
{
    const QSignalBlocker blockSpin(m_spin);
    const QSignalBlocker blockSlider(m_slider);
    m_spin->setValue(v);
    m_slider->setValue(positionOf(m_spin->value()));
}

QString SliderValue::text() const { return QString::number(m_spin->value(), 'f', m_spin->decimals()); }

void SliderValue::setToolTip(const QString& tip)
{
    m_label->setToolTip(tip);
    m_slider->setToolTip(tip);
    m_spin->setToolTip(tip);
}

void SliderValue::setStep(double step) { m_spin->setSingleStep(step); }

int SliderValue::positionOf(double v) const
{
    const double lo = m_spin->minimum(), hi = m_spin->maximum();
    double f = 0;
    if (m_scale == Scale::Log && lo > 0)
        f = std::log(v / lo) / std::log(hi / lo);
    else
        f = (v - lo) / (hi - lo);
    return int(std::lround(std::clamp(f, 0.0, 1.0) * kSteps));
}

double SliderValue::valueAt(int position) const
{
    const double lo = m_spin->minimum(), hi = m_spin->maximum();
    const double f = double(position) / kSteps;
    const double v = (m_scale == Scale::Log && lo > 0) ? lo * std::pow(hi / lo, f) : lo + f * (hi - lo);
    // Round to a value a person would pick: the single step (linear) or two significant digits
    // (log), never finer than the spin box shows.
    double unit = m_spin->singleStep();
    if (m_scale == Scale::Log && v > 0)
        unit = std::max(unit, std::pow(10.0, std::floor(std::log10(v)) - 1));
    return std::clamp(std::round(v / unit) * unit, lo, hi);
}

} // namespace ratelab::ui
