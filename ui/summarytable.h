// SummaryTable lists each algorithm's metrics: allowed, denied, delayed, max in any window,
// overshoot and memory per key.
#pragma once

#include "frame.h"

#include <QTableWidget>

namespace ratelab::ui {

class SummaryTable : public QTableWidget {
    Q_OBJECT
public:
    explicit SummaryTable(QWidget* parent = nullptr);
    void setFrame(const Frame& frame);
    QSize sizeHint() const override;
};

} // namespace ratelab::ui
