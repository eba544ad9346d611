// SummaryTable lists each algorithm's metrics: allowed, denied, delayed, max in any window,
// overshoot and memory per key.
#pragma once

#include "model/frame.h"

#include <QFutureWatcher>
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
    // setMaxColumn writes column 4, max in a window: the totals, or so far up to the decisions
    // shown (m_shown) once m_maxSoFar is made.
    void setMaxColumn();
    // maxSoFarReady takes the rows' maxUnitsSoFar made off the GUI thread, if still of m_trace.
    void maxSoFarReady();
    std::shared_ptr<const Trace> m_trace;
    // Per row: maxUnitsSoFar, made once a trace, on the simulation pool, when the playhead first
    // leaves the end (a million decisions a row would stall the GUI thread as playback starts).
    using MaxSoFar = std::vector<std::vector<std::uint32_t>>;
    MaxSoFar m_maxSoFar;
    QFutureWatcher<MaxSoFar> m_maxWatcher;
    std::shared_ptr<const Trace> m_maxFor;  // the trace m_maxWatcher's job is of
    std::optional<std::vector<std::size_t>> m_shown; // per row: the decisions shown (nullopt: the end)
};

} // namespace ratelab::ui
