// SummaryTable lists each algorithm's metrics: allowed, denied, delayed, max in any window,
// overshoot and memory per key.
#pragma once

#include "model/frame.h"

#include <QTableWidget>

#include <optional>

namespace ratelab::ui {

class SummaryTable : public QTableWidget {
    Q_OBJECT
public:
    explicit SummaryTable(QWidget* parent = nullptr);
    void setFrame(const Frame& frame);
    // setCounts shows the admitted, denied and delayed counts up to the playhead at `upTo`, or
    // the totals (nullopt).
    void setCounts(const RunningCounts& counts, std::optional<Nanos> upTo);
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fill(const std::vector<AlgorithmTrace>& results);
    // fitLastColumn lets the last column take the width left over only when its text fits there;
    // otherwise every column keeps its text's width and the table scrolls sideways.
    void fitLastColumn();
    // maxUnitsSoFar[row][i] is the most units (request costs, 1 each by default) admitted inside
    // any window (s - W, s] among the row's first i decisions: Max in a window so far, and, at
    // the end, the overshoot in the units the limit counts. Built once a frame.
    void buildMaxSoFar();

    std::shared_ptr<const Trace> m_trace;
    std::vector<std::vector<std::uint32_t>> m_maxSoFar;
};

// maxUnitsInWindow returns, for decisions 0..n of result `row`, prefix[i]: the most units
// admitted inside any interval (s - W, s] among the first i decisions (prefix[0] = 0), where a
// request's units are its cost. Saturates at 2^32 - 1.
std::vector<std::uint32_t> maxUnitsInWindow(const Trace& trace, std::size_t row);

} // namespace ratelab::ui
