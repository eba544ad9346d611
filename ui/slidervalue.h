// SliderValue is one labelled setting: a slider to drag and a spin box to type, kept in step.
//
// The slider can map logarithmically (for counts spanning 1 to a million); the spin box holds
// the exact value typed. valueChanged fires once per change from either, never for the echo.
#pragma once

#include <QWidget>

class QDoubleSpinBox;
class QLabel;
class QSlider;

namespace ratelab::ui {

class SliderValue : public QWidget {
    Q_OBJECT
public:
    enum class Scale { Linear, Log };

    SliderValue(const QString& label, double min, double max, int decimals, const QString& suffix,
                Scale scale = Scale::Linear, QWidget* parent = nullptr);

    double value() const;
    // setValue sets the value without emitting valueChanged.
    void setValue(double v);
    // text is the value as typed, "0.1" rather than 0.1000000000000000055.
    QString text() const;
    void setToolTip(const QString& tip);
    // setStep sets the spin box's arrow step, which is also what slider values round to.
    void setStep(double step);

    QSlider* slider() const { return m_slider; }
    QDoubleSpinBox* spinBox() const { return m_spin; }

signals:
    void valueChanged(double value);

private:
    int positionOf(double v) const;
    double valueAt(int position) const;

    QLabel* m_label;
    QSlider* m_slider;
    QDoubleSpinBox* m_spin;
    Scale m_scale;
};

} // namespace ratelab::ui
