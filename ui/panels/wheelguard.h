// WheelGuard lets a scrolling panel of controls scroll under the pointer.
#pragma once

#include <QObject>

class QWidget;

namespace ratelab::ui {

// WheelGuard sends a wheel turned over a slider, combo box or spin box that does not have the
// focus to the scroll area around it, so scrolling the settings never changes a value on the
// way (Qt's advice: Qt::StrongFocus, and the wheel only for the control with the focus). A click
// or Tab gives a control the focus; then the wheel is its own again.
class WheelGuard : public QObject {
    Q_OBJECT
public:
    // guard installs one guard on every such control inside panel, as it is now.
    static void guard(QWidget* panel);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    explicit WheelGuard(QObject* parent) : QObject(parent) {}
};

} // namespace ratelab::ui
