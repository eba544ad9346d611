#include "panels/wheelguard.h"

#include <QAbstractScrollArea>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QScrollBar>
#include <QWidget>

namespace ratelab::ui {

void WheelGuard::guard(QWidget* panel)
{
    auto* guard = new WheelGuard(panel);
    for (QWidget* w : panel->findChildren<QWidget*>()) {
        if (qobject_cast<QScrollBar*>(w)) // a scroll bar is the scrolling itself
            continue;
        if (qobject_cast<QAbstractSlider*>(w) || qobject_cast<QComboBox*>(w) || qobject_cast<QAbstractSpinBox*>(w)) {
            w->setFocusPolicy(Qt::StrongFocus); // not WheelFocus: the wheel does not take the focus
            w->installEventFilter(guard);
        }
    }
}

bool WheelGuard::eventFilter(QObject* watched, QEvent* event)
{
    auto* w = qobject_cast<QWidget*>(watched);
    if (event->type() != QEvent::Wheel || !w || w->hasFocus())
        return QObject::eventFilter(watched, event);
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
        if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
            QCoreApplication::sendEvent(area->viewport(), event);
            return true;
        }
    return true; // no panel to scroll: the value still does not change
}

} // namespace ratelab::ui
