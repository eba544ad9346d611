#include "panels/groupparts.h"

#include <QComboBox>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace ratelab::ui {

QLayout* labelled(const QString& text, QComboBox* combo)
{
    auto* row = new QHBoxLayout;
    auto* label = new QLabel(text);
    label->setMinimumWidth(70);
    label->setBuddy(combo);
    row->addWidget(label);
    row->addWidget(combo, 1);
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    combo->setMinimumContentsLength(12);
    return row;
}

void setRowVisible(QLayout* row, bool visible)
{
    for (int i = 0; i < row->count(); ++i)
        if (QWidget* w = row->itemAt(i)->widget())
            w->setVisible(visible);
}

QWidget* groupBody(QGroupBox* box)
{
    auto* outer = new QVBoxLayout(box);
    auto* inner = new QWidget;
    outer->addWidget(inner);
    outer->setContentsMargins(6, 4, 6, 4);
    return inner;
}

} // namespace ratelab::ui
