// Dashboard is what RateLab shows and exports: a title with the settings, one chart row per
// algorithm on a shared time axis, and the summary table.
#pragma once

#include "model/frame.h"
#include "model/stage.h"

#include <QColor>
#include <QList>
#include <QStringList>
#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QSplitter;

namespace ratelab::ui {

class ChartStack;
class SummaryTable;

class Dashboard : public QWidget {
    Q_OBJECT
public:
    // Dashboard draws `stage` (a window's), or a stage of its own (an export, a test).
    explicit Dashboard(QWidget* parent = nullptr);
    Dashboard(Stage* stage, QWidget* parent);

    Stage* stage() const { return m_stage; }
    // setFrame sets the stage's frame; the charts and the table read that one shared, immutable frame.
    void setFrame(std::shared_ptr<const Frame> frame) { m_stage->setFrame(std::move(frame)); }
    void setFrame(const Frame& frame) { setFrame(std::make_shared<const Frame>(frame)); }
    // setStale greys the charts and the table and says why they are not current (the settings
    // could not be simulated); an empty reason shows them as current again.
    void setStale(const QString& why);
    bool isStale() const { return !m_staleReason.isEmpty(); }
    // setPlayhead sets the stage's playhead: marks, and counts in the rows and the table, up to
    // it; nullopt shows everything and the totals.
    void setPlayhead(std::optional<Playhead> playhead) { m_stage->setPlayhead(playhead); }
    const Frame& frame() const { return m_stage->frame(); }
    ChartStack* charts() const { return m_charts; }
    SummaryTable* summary() const { return m_summary; }
    QSplitter* splitter() const { return m_splitter; }
    // legend is the strip's key beside the title (drawn to a web page's SVG as it is).
    QWidget* legend() const { return m_legend; }
    // restoreSplitter restores a saved split; without one the summary gets the room it needs.
    void restoreSplitter(const QByteArray& state);

    // render draws the dashboard as it is now into an image of size * scale pixels.
    QImage render(qreal scale = 1.0);

    // describe sums up a scenario's settings in one line, for the title. `opened` are the
    // requests added to the pattern that the scenario came with (its file's or preset's own,
    // a spike at 10 s): those are part of the traffic ("150 more at 10 s"), and only the others
    // were sent by hand. Without it (an export of a file) every added request is the scenario's.
    static QString describe(const Scenario& s, const std::optional<std::vector<Nanos>>& opened = std::nullopt);
    // titleText is the title as shown: describe() of the frame's scenario.
    QString titleText() const;
    // legendTexts are the legend's entries, as it names them left to right.
    QStringList legendTexts() const;
    // legendSwatch are the colours of the legend's swatch of node or client marks, left to right
    // (none when the marks' colour is the verdict).
    QList<QColor> legendSwatch() const;
    // setOpenedArrivals tells the title which added requests the open document came with
    // (describe's `opened`, sorted).
    void setOpenedArrivals(std::vector<Nanos> opened);

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void fitSummary();
    void showFrame();    // the stage's frame changed
    void showLegend();   // what the marks mean as they are drawn now
    void showPlayhead(); // the stage's playhead moved
    void showCounts();

    Stage* m_stage;
    QLabel* m_title;
    QSplitter* m_splitter;
    ChartStack* m_charts;
    SummaryTable* m_summary;
    bool m_fitSummary = true;
    QString m_staleReason;
    QWidget* m_staleCover = nullptr;
    QWidget* m_legend = nullptr;
    std::optional<std::vector<Nanos>> m_openedArrivals;
};

// layoutOffscreen lays out `dashboard` (not shown on any screen) at `size` with a frame of the
// scenario over `range` (empty: the full range), reduced to the rows' exact pixel width.
void layoutOffscreen(Dashboard& dashboard, const Scenario& scenario, QSize size, TimeRange range = {});

// layoutForExport is layoutOffscreen at `size`, or, when its rows would not all fit without
// scrolling or its title and legend would be clipped, at a larger size of the same proportions:
// the dashboard's size is then what renderOffscreen scales down to `size`.
void layoutForExport(Dashboard& dashboard, const Scenario& scenario, QSize size, TimeRange range = {});

// renderOffscreen lays out a fresh dashboard of `size` for the scenario over `range` (empty: the
// full range), draws it at `scale` and returns the image; InputError from the scenario propagates.
// veiled draws it with the decisions hidden (a deck's question, on a handout given before class).
QImage renderOffscreen(const Scenario& scenario, QSize size, qreal scale, TimeRange range = {}, bool veiled = false);

// writeImage saves an image in the format the path's suffix names, encoded in memory and then
// written by io::writeFileAtomically. It returns an empty string on success and one line saying
// why otherwise; the old file is kept on failure.
QString writeImage(const QImage& image, const QString& path);

} // namespace ratelab::ui
