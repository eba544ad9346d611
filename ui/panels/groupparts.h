// groupparts: the small pieces the settings groups share (productiongroups.h): a combo box on a
// labelled row, and a checkable group's body that folds away when unticked.
#pragma once

#include <QString>

#include <string_view>

class QComboBox;
class QGroupBox;
class QLayout;
class QWidget;

namespace ratelab::ui {

// labelled puts a label and a combo box on one row, the label its buddy.
QLayout* labelled(const QString& text, QComboBox* combo);
// setRowVisible shows or hides every widget of a labelled row.
void setRowVisible(QLayout* row, bool visible);
// groupBody gives a checkable group box its body widget.
QWidget* groupBody(QGroupBox* box);
// qstr converts UTF-8 text from core.
inline QString qstr(std::string_view s) { return QString::fromUtf8(s.data(), qsizetype(s.size())); }

} // namespace ratelab::ui
