// SliderValue is one labelled setting: a slider to drag and a field to type the exact value in.
//
// The field holds the value's exact text ("0.0025", "3/7", "2000000"), never a rounded double:
// the document owns the value and the field shows it as it is. The slider covers a convenient
// range; a value outside it keeps its exact text and pins the slider at that end. edited() fires
// when a person drags (with a value rounded to a step a person would pick) or types a value the
// setting's check accepts; text that does not parse turns the field red and says why, and changes
// nothing.
#pragma once

#include <QWidget>

#include <functional>

class QLabel;
class QLineEdit;
class QSlider;

namespace ratelab::ui {

class SliderValue : public QWidget {
    Q_OBJECT
public:
    enum class Scale { Linear, Log };
    // Check returns why text is not a valid value (one line), or an empty string.
    using Check = std::function<QString(const QString& text)>;

    SliderValue(const QString& label, double min, double max, int decimals, const QString& suffix,
                Scale scale = Scale::Linear, QWidget* parent = nullptr);

    // setCheck sets what typed text must satisfy before edited() fires.
    void setCheck(Check check) { m_check = std::move(check); }
    // show displays a value exactly as text, with the slider at approx (pinned at an end when
    // approx lies outside the slider's range). It emits nothing.
    void show(const QString& text, double approx);
    // text is the value as shown: exact.
    QString text() const;
    // value is the slider's reading of the shown value, for tests and display only.
    double value() const { return m_approx; }
    // problem is why the typed text was refused, or empty.
    QString problem() const { return m_problem; }
    // type enters text as a person would (then Enter): edited() fires if it is accepted.
    void type(const QString& text);
    void setToolTip(const QString& tip);
    // setStep sets what slider values round to (linear scale).
    void setStep(double step) { m_step = step; }

    QSlider* slider() const { return m_slider; }
    QLineEdit* field() const { return m_field; }

signals:
    void edited(const QString& text);
    // problemChanged reports why the typed text is refused (the red box), or "" once it is not.
    void problemChanged(const QString& problem);

private:
    void commitTyped();
    void setProblem(const QString& problem);
    int positionOf(double v) const;
    double valueAt(int position) const;
    QString textOf(double v) const;

    QLabel* m_label;
    QSlider* m_slider;
    QLineEdit* m_field;
    QLabel* m_suffix;
    double m_min, m_max;
    int m_decimals;
    double m_step;
    Scale m_scale;
    Check m_check;
    QString m_shown;
    double m_approx = 0;
    QString m_problem;
    QString m_tip;
};

} // namespace ratelab::ui
