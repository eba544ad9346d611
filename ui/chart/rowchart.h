// RowChart draws one algorithm of a frame: its allow/deny strip above, its level below.
//
// The level is a line in the chart's plot area built from the row's pixel-column reduction (a
// few points per column, never one per request), with the limit or capacity as a dashed Qt
// Charts line. The strip and
// the window boundaries are painted over the chart: when the visible requests fit, one mark per
// request at its exact time (admitted: green circle, top lane; delayed: amber triangle, middle
// lane; denied: red cross, bottom lane), otherwise one bar per pixel column and lane.
#pragma once

#include "view/row_extras.h"
#include "view/served.h"

#include "chart/bar_canvas.h"
#include "chart/offset_line.h"
#include "chart/lane_layers.h"
#include "chart/row_layers.h"
#include "model/frame.h"

#include <QChartView>
#include <QGuiApplication>
#include <QPalette>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

class QLineSeries;
class QPainter;
class QValueAxis;

namespace ratelab::ui {

class RowChart : public QChartView {
    Q_OBJECT
public:
    explicit RowChart(QWidget* parent = nullptr);

    // setFrame shows result `row` of the frame, shared with every other view of it (no copy).
    void setFrame(std::shared_ptr<const Frame> frame, std::size_t row);
    // previewRange moves the time axis at once, before the re-reduced frame arrives.
    void previewRange(TimeRange range);

    // setMinimumPlotHeight keeps the level plot at least this tall (the row grows to fit).
    void setMinimumPlotHeight(int pixels);
    // setCounts sets the counts in the header: so far (partial) or in all.
    void setCounts(const Counts& counts, bool partial);
    const Counts& counts() const { return m_counts; }
    // badgeTip says what the "×N" badge at `pos` counts ("19 at 10 instants from 0 s to 9 s (10
    // at 0 s)"), or nothing when there is none there.
    QString badgeTip(QPointF pos) const;
    // countsText is the header's right side: the counts up to the playhead, and the bound.
    QString countsText() const;
    // headerTexts are the title and the counts as the header draws them (header()).
    std::pair<QString, QString> headerTexts() const;
    QRectF headerRect() const;
    // HeaderLayout is the row's header as drawn: its title, the legend of its line and its counts, each
    // whole on a line unless wider than the header alone (then elided), and its `lines`.
    struct HeaderPart {
        QString text;
        QRectF box;
    };
    struct HeaderLayout {
        HeaderPart title, legend, counts;
        int lines = 1;
    };
    HeaderLayout header() const;
    // headerElided is true when a text of the header is cut ("…") to fit it; cutCaptions are the
    // whole texts of the captions drawn cut: the header's, the server's, a lane's past the plot.
    bool headerElided() const;
    QStringList cutCaptions() const;
    // setPlayhead shows only the requests the playhead has reached, with a line at its time;
    // nullopt shows everything.
    void setPlayhead(std::optional<Playhead> playhead);

    Algorithm algorithm() const;
    // plotRect is the plot area in widget coordinates.
    QRectF plotRect() const;
    // plotColumns is the width of the plot area in pixels: the reduction's column count.
    int plotColumns() const;
    // markPosition is the centre of the row's decision i's mark in widget coordinates (for a row
    // over the arrivals, decision i is request i).
    QPointF markPosition(std::size_t i) const;
    // requestAt is the request whose mark is nearest to pos (within a few pixels), if any.
    std::optional<std::size_t> requestAt(QPointF pos) const;
    // decisionAt is the row's decision whose mark is nearest to pos (within a few pixels), if any.
    std::optional<std::size_t> decisionAt(QPointF pos) const;
    // kHoverReach is how far from a mark (in pixels, along the time axis) the pointer still finds it.
    static constexpr double kHoverReach = 6;
    // hoverText describes the row's decision i: time, verdict, remaining, retry-after, levels, and
    // the response headers a server would send.
    QString hoverText(std::size_t i) const;
    // boundLabel names the closest window on the level plot ("10 in this 10 s: the most it
    // allows", "9 in this 1 s (it allows up to 59)"), and
    // boundLabelBox is where it is drawn: where the level line leaves room (empty: not drawn).
    QString boundLabel() const;
    QRectF boundLabelBox() const;
    // PlotLabel is a caption drawn over the plot and its box (widget pixels): the ceiling's name
    // ("limit 10"), the key of the node or client lines, the bound's label and a block's
    // caption (a server's measures are named in their lanes). plotLabels lists those drawn, each placed clear of those before it
    // in this order, so no two overprint.
    enum class LabelKind { Ceiling, Key, Bound, Block };
    struct PlotLabel {
        LabelKind kind;
        QString text;
        QRectF box;
    };
    std::vector<PlotLabel> plotLabels() const;
    // crossesLevel is true when the level line, or a node's or client's line, passes through
    // box (in widget pixels).
    bool crossesLevel(const QRectF& box) const;
    // crossesCeiling is true when the dashed ceiling line passes through box.
    bool crossesCeiling(const QRectF& box) const;
    // keyBox is where the key of the node or client lines is drawn: the first corner of the plot
    // (top left, bottom left, bottom right, top right), else place along its top or bottom edge,
    // that no line passes through and no caption placed before it takes (plotLabels), else the
    // first corner no caption takes.
    QRectF keyBox() const;
    // title is the row's name: the algorithm's, or the row's own ("Layered policy: ...").
    QString title() const;
    static QString titleOf(const AlgorithmTrace& result);
    // shownEnd is one past the last visible request drawn: those after the playhead are not.
    std::size_t shownEnd() const;
    // exactMarks reports whether every visible request has its own mark.
    bool exactMarks() const;
    // departures are a queue's delayed requests in view and when each leaves (t + delay), the
    // hollow diamonds drawn along the bottom of its plot (those the playhead has reached).
    const std::vector<std::pair<std::size_t, Nanos>>& departures() const { return m_departures; }
    // levelPoints is the level polyline drawn, as (seconds, level) vertices.
    const QList<QPointF>& levelPoints() const { return m_levelPoints; }
    // KeyLine is one node's, the store's or one client's level (level_lines.h, recorded by the engine), in seconds.
    struct KeyLine {
        QString name;
        int index = 0;
        QList<QPointF> points;
    };
    // keyLines are the level lines of a row whose state is not one limiter's; keyLinesOmitted
    // counts the quieter states not drawn.
    const std::vector<KeyLine>& keyLines() const { return m_keyLines; }
    std::int64_t keyLinesOmitted() const { return m_keyLinesOmitted; }
    // nginxLeftovers is, for an nginx row whose requests all have marks, each rejected visible
    // request's time and what nginx still held then, in its own unit (thousandths of a
    // request): the "1/1000 left" that rejects it. Empty for the other rows.
    const std::vector<std::pair<Nanos, std::int64_t>>& nginxLeftovers() const { return m_nginxLeft; }
    // thousandthsLabels is the right-hand axis of an nginx row: the level axis's ticks and the
    // ceiling (burst) in nginx's own unit, whole thousandths of a request, as (level, text).
    // Empty for the other rows, which keep the same room on the right when any row is nginx's.
    std::vector<std::pair<double, QString>> thousandthsLabels() const;
    // thousandthsUnitLines head that axis with what it reads and its unit ("excess", "(1/1000
    // req)"), in thousandthsUnitBox (empty for the other rows).
    static QStringList thousandthsUnitLines();
    QRectF thousandthsUnitBox() const;
    // ceilingSteps is the dashed ceiling from each time on, as (seconds, level): one step, or one
    // more at each limit change in view.
    const std::vector<std::pair<double, double>>& ceilingSteps() const { return m_ceilingSteps; }

    using Lane = MarkLane;
    // laneCentre is the y of a lane's centre in widget coordinates.
    double laneCentre(Lane lane) const { return mapFromScene(QPointF(0, laneY(lane))).y(); }

    // paintMark draws the mark of a lane centred on c: circle, triangle or cross, in the lane's
    // colour or `color` (a cluster's node), filled or hollow (a retry).
    static void paintMark(QPainter* p, QPointF c, Lane lane, double scale = 1.0, QColor color = {}, bool hollow = false);
    // nodeColor is the colour of a cluster's node n (or of client n of a few) on the marks.
    static QColor nodeColor(int node, const QPalette& palette = QGuiApplication::palette());
    QColor levelColor() const;
    // The verdicts' colours in the theme of `palette` (the application's: the theme's).
    static QColor admittedColor(const QPalette& palette = QGuiApplication::palette());
    static QColor delayedColor(const QPalette& palette = QGuiApplication::palette());
    static QColor deniedColor(const QPalette& palette = QGuiApplication::palette());
    static QColor laneColor(Lane lane, const QPalette& palette = QGuiApplication::palette());

    // setPinned highlights request i (clicked in any row), or nothing.
    void setPinned(std::optional<std::size_t> i);
    // setVeiled hides the decisions while a question is asked: every mark grey in the middle
    // lane, no level line, no counts, no decision on hover.
    void setVeiled(bool veiled);
    bool veiled() const { return m_veiled; }
    static QColor veiledColor();

    // The server behind the limiter (rowchart_server.cpp), for a row whose run has one:
    // outcomeOf is what became of decision i at the server (nullopt: no server); outcomeColor
    // the colour its mark is drawn in; served the latency band's and goodput bars' buckets;
    // limitLine the concurrency limiter's limit over time (seconds, limit) as a step line, and
    // inSystemLine the attempts in the server under it.
    std::optional<Outcome> outcomeOf(std::size_t i) const;
    static QColor outcomeColor(Outcome o, const QPalette& palette = QGuiApplication::palette());
    static QString outcomeName(Outcome o);
    const std::optional<ServedBuckets>& served() const { return m_served; }
    const QList<QPointF>& limitLine() const { return m_limitLine; }
    const QList<QPointF>& inSystemLine() const { return m_inSystemLine; }
    // ServerLane is one measure of a row in a band of its own (lane_layers.h): the requests in the
    // server with the limit, the latency band, the goodput and, with retries, the attempts.
    // serverLanes are a concurrency limiter's, in its plot, and empty for the other rows.
    using ServerLane = ui::ServerLane;
    std::vector<ServerLane> serverLanes() const;
    // attemptColor is the attempts lane's bars' colour: first attempts, or the retries stacked on
    // them.
    static QColor attemptColor(bool retry, const QPalette& palette = QGuiApplication::palette());
    // lanesBelow are, on a row with a level plot (not a concurrency limiter's, whose lanes hold
    // them), the measures in lanes of their own under the level plot, each against its own axis
    // (on the level's, a latency or a rate would read as tokens or requests in a window): with a
    // server behind the limiter, its latency and goodput; with clients that retry, the attempts
    // a second. A lane is there whether or not its measure is (a veiled row
    // must not tell that some were denied), and veiled it shows its name alone (laneLabels).
    // attemptsLane is the attempts' lane among them.
    std::vector<ServerLane> lanesBelow() const;
    std::optional<ServerLane> attemptsLane() const;
    // LaneLabel is one text drawn for a lane: on its axis, the limit, the top, 0 and round ticks;
    // in it, its name. laneLabels lists those drawn (layOutLaneLabels); veiled, only the name.
    using LaneLabel = ui::LaneLabel;
    std::vector<LaneLabel> laneLabels(const ServerLane& lane) const;
    // legendText is the grey caption after the row's name: what its line, marks and colours are.
    QString legendText() const;

    // The managed services' mechanism (rowchart_mechanism.cpp): blockSpans are the periods a
    // Cloudflare or AWS WAF rule blocks (each denial's [t, t + retry_after), merged), shaded on
    // the plot; quotaLimit is an API Gateway usage plan's quota, whose counter (the units
    // admitted in the period so far) is then the row's line, in place of the tokens.
    const std::vector<std::pair<Nanos, Nanos>>& blockSpans() const { return m_blockSpans; }
    std::optional<std::int64_t> quotaLimit() const { return m_quotaLimit; }
    // blockCaption is what a block span says ("blocked 0.5 s to 600.5 s"); blockCaptionBox is
    // where it is drawn (empty: none).
    QString blockCaption() const;
    QRectF blockCaptionBox() const;

signals:
    void zoomRequested(double anchorSeconds, double factor);
    void panRequested(double deltaSeconds);
    // spanSelected asks to zoom to [from, to] seconds (Shift+drag).
    void spanSelected(double fromSeconds, double toSeconds);
    // requestClicked reports a click on request i's mark, or on no mark (nullopt).
    void requestClicked(std::optional<std::size_t> i);

protected:
    void drawForeground(QPainter* painter, const QRectF& rect) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void changeEvent(QEvent* event) override;

private:
    // cutHeaderParts are the whole texts of the header's parts that are drawn cut.
    QStringList cutHeaderParts() const;
    // The strip and labels grow with the font, so presentation mode's larger type never
    // overlaps the marks or clips a label.
    int headerHeight() const;
    // m_headerLines are the header's lines: as many as its texts take now or revealed and whole
    // (the plot keeps its place through a reveal and a playback).
    int m_headerLines = 1;
    // m_askedFrame is the frame a question was last asked of (shown veiled): its header keeps
    // the veiled texts' lines too after the reveal, so the rows below keep their place.
    std::weak_ptr<const Frame> m_askedFrame;
    double headerWidth() const;
    HeaderLayout layOutHeader(const QString& title, const QString& legend, const QString& counts) const;
    QString countsTextAs(bool partial, bool veiled) const;
    QString legendTextAs(bool veiled) const;
    int laneHeight() const;
    int stripHeight() const { return 3 * laneHeight() + 4; }
    // A mark is at most 0.85 of its lane tall, so marks of two lanes never touch.
    double markScale() const { return laneHeight() / 9.5; }
    void updateMargins();

    void applyPalette();
    double xOf(double seconds) const;
    double laneY(Lane lane) const;
    QRectF plot() const;
    RowArea area() const; // what the painters of row_layers.h draw in
    Lane laneOf(Verdict v) const;
    void drawStrip(QPainter* p) const;
    // sentPerColumn counts, per column of the row, the requests the clients sent (not their
    // retries), up to the last shown.
    std::vector<std::int32_t> sentPerColumn(const AlgorithmTrace& result, const ReducedRow& r) const;
    void drawExactMarks(QPainter* p, const AlgorithmTrace& result, const ReducedRow& r) const;
    // The exact marks' parts (rowchart_strip.cpp): the retries' links under the marks, one
    // instant's decisions grouped and drawn, and the badges counting them, laid out last.
    struct ExactMarks;
    void drawRetryLinks(QPainter* p, const AlgorithmTrace& result, const ReducedRow& r, std::size_t end) const;
    std::size_t groupInstant(const AlgorithmTrace& result, ExactMarks& marks, std::size_t i) const;
    void drawInstantMarks(QPainter* p, ExactMarks& marks, Nanos at) const;
    void drawBadges(QPainter* p, const ExactMarks& marks) const;
    // m_badgeTips: each "×N" badge drawn last and what it counts, for its tooltip.
    mutable std::vector<std::pair<QRectF, QString>> m_badgeTips;
    mutable BarCanvas m_barCanvas;  // the strip's bars, kept between paints
    mutable OffsetLine m_levelLine; // the level line's three copies, kept between paints
    // drawDepartures marks when each delayed request leaves a queue (t + delay), along the
    // bottom of the level plot, where the line steps down.
    void drawDepartures(QPainter* p) const;
    // clientCount is the scenario's number of clients (0 without clients).
    int clientCount() const;
    void drawBoundaries(QPainter* p) const;
    void drawHeader(QPainter* p) const;
    void drawLevelLabels(QPainter* p) const;
    // The labels' places, each given the boxes of those placed before it (plotLabels' order) to
    // keep clear of: the ceiling's name on its dashed line, the key, the bound's label and a
    // block's caption. An empty box: not drawn.
    QRectF ceilingTagBox() const;
    QRectF keyBoxClearOf(const std::vector<QRectF>& taken) const;
    QRectF boundLabelBoxClearOf(const std::vector<QRectF>& taken) const;
    QRectF blockCaptionBoxClearOf(const std::vector<QRectF>& taken) const;
    QString ceilingTagText() const;
    QString levelText(double v) const; // a level as the axis writes it: "12", "0.5 s"
    QFont smallFont() const; // the captions' type: a little smaller than the row's
    // m_labels are plotLabels() as this paint places them (made once a paint, not once a label).
    mutable std::vector<PlotLabel> m_labels;
    QRectF paintedLabel(LabelKind kind) const;
    // levelTicks are the values labelled on the level axis (the ceiling is labelled apart).
    std::vector<double> levelTicks() const;
    void drawLevel(QPainter* p) const;
    void drawPlayhead(QPainter* p) const;
    // levelCeiling is the ceiling in force at the view's right edge, where its name is written.
    double levelCeiling() const;
    std::vector<std::pair<double, double>> m_ceilingSteps; // ceilingSteps()
    void buildCeilingSteps(const Frame& frame);
    // buildLevelPoints sets the ceiling's steps and the level line's points; it returns the
    // highest of them.
    double buildLevelPoints(const Frame& frame, const ReducedRow& r);
    // showCeiling draws the ceiling's steps to the view's end (`to`, in seconds).
    void showCeiling(double to);
    // buildDepartures replays when each delayed request leaves the queue (m_departures).
    void buildDepartures(const Frame& frame, const ReducedRow& r);
    // visibleRight is the right edge of what is drawn: the plot's, or the playhead's.
    double visibleRight() const;
    QString ceilingName() const;

    std::shared_ptr<const Frame> m_frame; // never null: an empty frame until the first
    std::size_t m_row = 0;
    TimeRange m_range;
    QList<QPointF> m_levelPoints;
    QLineSeries* m_ceiling;
    QValueAxis* m_timeAxis;
    QValueAxis* m_levelAxis;
    std::optional<QPointF> m_dragFrom;
    std::optional<QPointF> m_pressAt;
    std::optional<QPointF> m_boxFrom, m_boxTo;
    std::optional<std::size_t> m_pinned;
    double secondsAt(double sceneX) const;
    void drawPinned(QPainter* p) const;
    void drawBox(QPainter* p) const;
    std::optional<Playhead> m_playhead;
    int m_minimumPlotHeight = 8;
    Counts m_counts;
    bool m_partialCounts = false;
    bool m_veiled = false;
    // A queue's visible delayed requests: (request, departure time), read once a frame.
    std::vector<std::pair<std::size_t, Nanos>> m_departures;
    // nginx: what it holds, in thousandths of a request, as (seconds, thousandths) vertices from
    // the first visible admission on, and the rejected requests' leftovers.
    QList<QPointF> m_nginxWater;
    std::vector<KeyLine> m_keyLines;
    std::int64_t m_keyLinesOmitted = 0;
    std::optional<AttemptBuckets> m_attemptRates; // rows of clients that retry
    int m_laneBelowHeight = 0;                    // each of lanesBelow's, set with the margins
    // laneBelowGap is the room above each lane under the level plot: half a level label (the 0
    // centred on the plot's bottom) and the lane's top label's overhang.
    int laneBelowGap() const;
    // measuresBelow are the measures lanesBelow draws, top down, and measuresInPlot those
    // serverLanes draws; laneOf is a measure's lane (its name, unit and round top) with no place
    // yet: one rule for the lanes under a level plot and for a concurrency limiter's.
    std::vector<ServerLane::Measure> measuresBelow() const;
    std::vector<ServerLane::Measure> measuresInPlot() const;
    // leastLaneHeight is the least height of a lane: its top, its 0 and its name.
    int leastLaneHeight() const;
    // inPlotLaneGap is the room between a concurrency limiter's lanes: a lane's top label never
    // meets the baseline of the lane above.
    double inPlotLaneGap() const;
    ServerLane laneOf(ServerLane::Measure measure) const;
    // timeBottom is the bottom of what is drawn against time: the last lane's below, or the plot's.
    double timeBottom() const;
    std::optional<ServedBuckets> m_served;          // rows with a server
    QList<QPointF> m_limitLine, m_inSystemLine;      // rows with a server: steps in (seconds, count)
    std::vector<OutcomeCounts> m_outcomeColumns;     // rows with a server: the strip's columns by outcome
    bool m_gateRow = false; // a concurrency limiter's row: its limit replaces the level and the ceiling
    void buildServer();
    void drawServer(QPainter* p) const;
    std::vector<std::pair<Nanos, Nanos>> m_blockSpans;
    std::optional<std::int64_t> m_quotaLimit;
    QString m_quotaPeriod; // "this month (from the 1st)"
    void buildBlockSpans();
    bool buildQuota(const Frame& frame);
    void drawBlockSpans(QPainter* p) const;
    void drawServerLanes(QPainter* p) const; // rowchart_lanes.cpp
    LaneTime laneTime() const; // the lanes' time scale, up to the playhead
    LaneInk laneInk() const;   // the palette's colours a lane's axis is drawn in
    void buildKeyLines();
    void drawKeyLines(QPainter* p) const;
    void drawLanesBelow(QPainter* p) const;
    // drawMeasure draws what a lane measures in it (its axis and grid: paintLaneAxis, paintLaneGrid).
    void drawMeasure(QPainter* p, const ServerLane& lane) const;
    std::vector<std::pair<Nanos, std::int64_t>> m_nginxLeft;
    void buildNginxWater();
    // nginx's own axis (rowchart_nginx.cpp): room kept on the right of every row when any row is
    // nginx's, so the rows' plots keep one left and right edge.
    bool m_thousandthsRoom = false;
    int rightMargin() const;
    void drawThousandths(QPainter* p) const;
    // The worst case (rowchart_bound.cpp): the row's bound in any T, what it reached, where.
    std::optional<BoundReach> m_bound;
    void computeBound();
    QString boundText(bool partial) const;
    // measuredWindow is the window this row's max_in_window and its window bands are counted in
    // (ownLimit: a product given its own options, its own period).
    Nanos measuredWindow() const;
    void drawBound(QPainter* p) const;      // the closest window's band, under the level line
    void drawBoundLabel(QPainter* p) const; // its count, over the level line
    std::optional<std::pair<double, double>> boundBand() const;
    QColor boundColor() const;
    bool crosses(const QList<QPointF>& points, double unit, const QRectF& box) const; // a polyline of (s, level / unit)
    QStringList keyNames() const;
};

// firstClearOf is where a caption goes among its candidate places: the first that meets none of
// the boxes `taken` and for which `good` holds (clear of the lines), else the first that meets
// none, else the first.
template <typename Good>
QRectF firstClearOf(const std::vector<QRectF>& candidates, const std::vector<QRectF>& taken, Good good)
{
    const auto clear = [&](const QRectF& c) {
        return std::none_of(taken.begin(), taken.end(), [&](const QRectF& t) { return t.intersects(c); });
    };
    for (const QRectF& c : candidates)
        if (clear(c) && good(c))
            return c;
    for (const QRectF& c : candidates)
        if (clear(c))
            return c;
    return candidates.empty() ? QRectF() : candidates.front();
}

} // namespace ratelab::ui
