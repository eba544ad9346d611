// SummaryTable lists each algorithm's metrics: allowed, denied, delayed, max in any window,
// overshoot and memory per key.
#pragma once

#include "model/frame.h"

#include <QTableWidget>

#include <optional>
#include <vector>

namespace ratelab::ui {

class SummaryTable : public QTableWidget {
    Q_OBJECT
public:
    explicit SummaryTable(QWidget* parent = nullptr);
    void setFrame(const Frame& frame);
    // setCounts shows the admitted, denied and delayed counts up to the playhead at `upTo`, or
    // the totals (nullopt).
    void setCounts(const RunningCounts& counts, std::optional<Nanos> upTo);
    // setVeiled blanks every figure (the names stay) while a question is asked; setFrame and
    // setCounts fill them again once revealed.
    void setVeiled(bool veiled);
    QSize sizeHint() const override;
    // inTimeByClient writes a few clients' shares, "11/50" each (in time, of its requests), client
    // 0 first; empty for fewer than 2 clients or more than the table lists one by one.
    static QString inTimeByClient(const std::vector<ClientServed>& byClient);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fill(const std::vector<AlgorithmTrace>& results);
    // setCell writes a cell's text: the name left-aligned, a figure right-aligned.
    void setCell(int r, int c, const QString& text);
    // fillLimitColumns writes row r's limiter figures: allowed, denied, delayed, max in a window,
    // overshoot (with what it is measured against) and memory.
    void fillLimitColumns(int r, const AlgorithmTrace& result);
    // hideEmptyColumns hides the columns no row has a figure in.
    void hideEmptyColumns(const std::vector<AlgorithmTrace>& results, bool clients, bool nodes, bool server,
                          const std::vector<bool>& shown);
    // fillServer writes row r's server figures (goodput, wasted work, each outcome, each
    // client's share), marking in `shown` the columns it wrote.
    void fillServer(int r, const AlgorithmTrace& result, std::vector<bool>& shown);
    void blankFigures();
    bool m_veiled = false;
    // fitLastColumn lets the last column take the width left over only when its text fits there;
    // otherwise every column keeps its text's width and the table scrolls sideways.
    void fitLastColumn();
    std::shared_ptr<const Trace> m_trace;
    std::vector<std::vector<std::uint32_t>> m_maxSoFar; // per row: maxUnitsSoFar, once a trace
};

} // namespace ratelab::ui
