#include "chart/dashboard.h"

#include <algorithm>
#include <iterator>
#include <memory>
#include <tuple>

#include "outputpath.h"

#include "chart/chartstack.h"
#include "chart/rowchart.h"
#include "limiters/algorithm_facts.h"
#include "limiters/products/product.h"
#include "arithmetic/decimal.h"
#include "scenario/rows.h"
#include "chart/summarytable.h"
#include "chart/theme.h"

#include <QHeaderView>

#include <QApplication>
#include <QHBoxLayout>
#include <QFileInfo>
#include <QImageWriter>
#include <QLabel>
#include <QLocale>
#include <QPainter>
#include <QScopeGuard>
#include <QBuffer>
#include <QSplitter>
#include <QVBoxLayout>

namespace ratelab::ui {

namespace {

QString secs(Nanos t) { return QString::fromStdString(formatSeconds(t)) + " s"; }

// perSecond writes a rate as "5/6/s" that a wrapped title never splits at a slash (a word joiner
// follows each one).
QString perSecond(const std::string& rate)
{
    return keepSlashesJoined(QString::fromStdString(rate) + "/s");
}

// Legend explains the strip's marks once for every row: shape and lane, not only colour. With a
// server behind the rows an admitted attempt's colour is its outcome there: the legend names the
// outcomes, so green means served in time and nothing else.
class Legend : public QWidget {
public:
    using QWidget::QWidget;
    QSize sizeHint() const override { return {std::max(entriesWidth(m_shown), m_room) + 8, fontMetrics().height() + 8}; }
    // State is what the legend names. With `server`, the server's outcomes, with a rate
    // limiter's verdicts when `rateRows`. `delays` keeps "admitted after a delay" (and a server's
    // "delayed") only where some row delayed a request: an entry for marks the picture does not
    // have asks what they are. `colourBy` names what a mark's colour tells when it is not the
    // verdict (a cluster's node, one of a few clients): the shapes then carry the verdict in the
    // text's colour, and the colour is named beside them, since green and red would say what the
    // marks do not. `colours` is how many such colours the marks take, one swatch mark each.
    struct State {
        bool server = false, rateRows = false, delays = true;
        QString colourBy;
        int colours = 0;
        friend bool operator==(const State&, const State&) = default;
    };
    // show names `revealed`, or while a question is asked (`veiled`) what the grey strip shows:
    // no colour by node or client, and the delays' entry whether or not a request waited (that
    // is part of what is hidden). For the frame a question was asked of, it is as wide as the
    // wider of the two, so the title beside it wraps alike and no plot moves at the reveal.
    void show(const State& revealed, bool veiled, const std::shared_ptr<const Frame>& frame)
    {
        State grey = revealed;
        grey.colourBy.clear();
        grey.colours = 0;
        grey.delays = true;
        if (veiled)
            m_asked = frame;
        const State shown = veiled ? grey : revealed;
        const int room = m_asked.lock() == frame ? std::max(entriesWidth(grey), entriesWidth(revealed)) : 0;
        if (shown == m_shown && room == m_room)
            return;
        m_shown = shown;
        m_room = room;
        updateGeometry();
        update();
    }
    QStringList texts() const
    {
        QStringList all;
        for (const Entry& e : entries())
            all << e.text;
        return all;
    }
    // swatch is the colours of the colour-by entry's marks, left to right (none without one).
    QList<QColor> swatch() const
    {
        QList<QColor> colours;
        const std::vector<Entry> all = entries();
        if (std::any_of(all.begin(), all.end(), [](const Entry& e) { return e.nodes; }))
            for (int n = 0; n < m_shown.colours; ++n)
                colours << RowChart::nodeColor(n, palette());
        return colours;
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        double x = width() - entriesWidth(m_shown) - 4;
        const double y = height() / 2.0;
        for (const Entry& e : entries()) {
            if (e.nodes) {
                const QList<QColor> colours = swatch();
                for (qsizetype n = 0; n < colours.size(); ++n)
                    RowChart::paintMark(&p, QPointF(x + 5 + 9 * n, y), e.lane, 1.0, colours[n]);
                x += swatchWidth(m_shown);
            } else {
                RowChart::paintMark(&p, QPointF(x + 5, y), e.lane, 1.0,
                                    e.color.isValid() ? e.color : RowChart::laneColor(e.lane, palette()));
            }
            p.setPen(palette().color(QPalette::WindowText));
            p.drawText(QPointF(x + 14, y + fontMetrics().ascent() / 2.0 - 1), e.text);
            x += 14 + fontMetrics().horizontalAdvance(e.text) + 16;
        }
    }

private:
    struct Entry {
        RowChart::Lane lane;
        QColor color; // invalid: the lane's own
        QString text;
        bool nodes = false; // a mark in each node's (or client's) colour as a swatch, not the lane's mark
    };
    std::vector<Entry> entries() const { return entries(m_shown); }
    std::vector<Entry> entries(const State& s) const
    {
        using L = RowChart::Lane;
        std::vector<Entry> all;
        if (!s.server) {
            // With a colour by node or client the shapes carry the verdict, in the text's colour.
            const QColor ink = s.colourBy.isEmpty() ? QColor() : palette().color(QPalette::WindowText);
            all.push_back({L::Admitted, ink, Dashboard::tr("admitted")});
            if (s.delays)
                all.push_back({L::Delayed, ink, Dashboard::tr("admitted after a delay")});
            all.push_back({L::Denied, ink, Dashboard::tr("denied")});
            if (!s.colourBy.isEmpty())
                all.push_back({L::Admitted, {}, s.colourBy, true});
            return all;
        }
        for (Outcome o : {Outcome::InTime, Outcome::Late, Outcome::QueueTimeout, Outcome::Refused, Outcome::Rejected})
            all.push_back({L::Admitted, RowChart::outcomeColor(o, palette()), RowChart::outcomeName(o)});
        if (s.rateRows) {
            if (s.delays)
                all.push_back({L::Delayed, {}, Dashboard::tr("delayed")});
            all.push_back({L::Denied, {}, Dashboard::tr("denied")});
        }
        return all;
    }
    int entriesWidth(const State& s) const
    {
        int w = 0;
        for (const Entry& e : entries(s))
            w += 14 + fontMetrics().horizontalAdvance(e.text) + 16 + (e.nodes ? swatchWidth(s) : 0);
        return w;
    }
    // swatchWidth is what the swatch's marks after its first take (9 px each).
    static int swatchWidth(const State& s) { return 9 * std::max(0, s.colours - 1); }
    State m_shown;
    int m_room = 0;                       // the width kept for the frame a question was asked of
    std::weak_ptr<const Frame> m_asked;   // that frame
};

// StaleCover lies over the charts and the table of a frame that is no longer current: a
// translucent wash of the background with the reason in the middle.
class StaleCover : public QWidget {
public:
    explicit StaleCover(QWidget* parent)
        : QWidget(parent)
    {
        setAttribute(Qt::WA_TransparentForMouseEvents);
    }
    void setReason(const QString& why)
    {
        m_reason = why;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override
    {
        QPainter p(this);
        QColor wash = palette().color(QPalette::Base);
        wash.setAlpha(200);
        p.fillRect(rect(), wash);
        QFont f = font();
        f.setBold(true);
        p.setFont(f);
        p.setPen(palette().color(QPalette::WindowText));
        const QRect box = rect().adjusted(24, 24, -24, -24);
        p.drawText(box, Qt::AlignCenter | Qt::TextWordWrap,
                   QObject::tr("Not current: these settings cannot be simulated (%1).\nThe greyed charts show the last "
                               "settings that could be.")
                       .arg(m_reason));
    }

private:
    QString m_reason;
};

} // namespace

Dashboard::Dashboard(QWidget* parent)
    : Dashboard(nullptr, parent)
{
}

Dashboard::Dashboard(Stage* stage, QWidget* parent)
    : QWidget(parent)
    , m_stage(stage ? stage : new Stage(this))
    , m_title(new QLabel(this))
    , m_splitter(new QSplitter(Qt::Vertical, this))
    , m_charts(new ChartStack(m_splitter))
    , m_summary(new SummaryTable(m_splitter))
{
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    m_title->setFont(titleFont);
    m_title->setWordWrap(true);
    m_title->setContentsMargins(8, 6, 8, 2);
    m_splitter->addWidget(m_charts);
    m_splitter->addWidget(m_summary);
    m_splitter->setStretchFactor(0, 1);
    m_splitter->setStretchFactor(1, 0);
    m_splitter->setChildrenCollapsible(false);
    m_summary->setMinimumHeight(m_summary->horizontalHeader()->height() + 3 * 22);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(0);
    auto* top = new QHBoxLayout;
    top->addWidget(m_title, 1);
    m_legend = new Legend(this);
    // Never wider than its entries: the room left is the title's, which wraps when it has less
    // (a legend that grew took it, and a wrapped title pushed the rows off a projector).
    m_legend->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Preferred);
    top->addWidget(m_legend);
    layout->addLayout(top);
    layout->addWidget(m_splitter, 1);
    connect(m_splitter, &QSplitter::splitterMoved, this, [this] { m_fitSummary = false; });
    connect(m_stage, &Stage::frameChanged, this, &Dashboard::showFrame);
    connect(m_stage, &Stage::playheadChanged, this, &Dashboard::showPlayhead);
    connect(m_stage, &Stage::veilChanged, this, [this] {
        m_charts->setVeiled(m_stage->veiled());
        m_summary->setVeiled(m_stage->veiled());
        if (!m_stage->frame().trace)
            return;
        if (!m_stage->veiled()) // the figures again
            showFrame();
        else
            showLegend();
    });
    if (m_stage->frame().trace) // a window's stage may have a frame already
        showFrame();
}

namespace {

// colourBy is what the strip's mark colours tell instead of the verdict, as RowChart::drawStrip
// chooses them: a cluster's nodes, or each of 2 to 8 clients; empty when they tell the verdict.
// With it, how many colours the marks take: one a node (RowChart::nodeColor repeats past 8), or
// one a client.
std::pair<QString, int> colourBy(const Scenario& scenario, const std::vector<AlgorithmTrace>& rows)
{
    if (scenario.cluster && std::any_of(rows.begin(), rows.end(), [](const AlgorithmTrace& r) { return r.kind.cluster; }))
        return {Dashboard::tr("colour: the node (each row's key)"), std::min(scenario.cluster->nodes(), 8)};
    const std::int64_t clients = scenario.clients ? scenario.clients->clients() : 0;
    if (clients >= 2 && clients <= 8
        && std::any_of(rows.begin(), rows.end(), [](const AlgorithmTrace& r) { return r.clients && r.clients->requests > 0; }))
        return {Dashboard::tr("colour: the client (each row's key)"), int(clients)};
    return {};
}

} // namespace

void Dashboard::showLegend()
{
    const Frame& frame = m_stage->frame();
    const auto& rows = frame.trace->results;
    Legend::State state;
    state.server = frame.scenario->server.has_value();
    state.rateRows = std::any_of(rows.begin(), rows.end(), [](const AlgorithmTrace& r) {
        return !r.engine || !r.engine->run.server || !r.engine->setup.layers.empty();
    });
    state.delays = std::any_of(rows.begin(), rows.end(), [](const AlgorithmTrace& r) { return r.metrics.delayed > 0; });
    std::tie(state.colourBy, state.colours) = colourBy(*frame.scenario, rows);
    static_cast<Legend*>(m_legend)->show(state, m_stage->veiled(), m_stage->sharedFrame());
}

void Dashboard::showFrame()
{
    const Frame& frame = m_stage->frame();
    m_title->setText(describe(*frame.scenario, m_openedArrivals));
    if (frame.trace)
        showLegend();
    m_charts->setFrame(m_stage->sharedFrame());
    m_summary->setFrame(frame);
    showCounts();
    fitSummary();
}

void Dashboard::setStale(const QString& why)
{
    if (why == m_staleReason)
        return;
    m_staleReason = why;
    if (!m_staleCover)
        m_staleCover = new StaleCover(this);
    static_cast<StaleCover*>(m_staleCover)->setReason(why);
    m_staleCover->setGeometry(m_splitter->geometry());
    m_staleCover->setVisible(!why.isEmpty());
    m_staleCover->raise();
    m_title->setEnabled(why.isEmpty());
}

void Dashboard::showPlayhead()
{
    m_charts->setPlayhead(m_stage->playhead());
    showCounts();
}

void Dashboard::showCounts()
{
    const Frame& frame = m_stage->frame();
    if (!frame.trace)
        return;
    const std::optional<Playhead>& playhead = m_stage->playhead();
    // Rows laid out for a frame still being built have no counts yet.
    const int rows = std::min(m_charts->rowCount(), int(frame.rows.size()));
    for (int r = 0; r < rows; ++r)
        m_charts->row(r)->setCounts(m_stage->counts().row(std::size_t(r)), playhead.has_value());
    m_summary->setCounts(m_stage->counts(), playhead ? std::optional<Nanos>(playhead->t) : std::nullopt);
}

void Dashboard::fitSummary()
{
    if (!m_fitSummary)
        return;
    const int total = m_splitter->height();
    const int summary = std::min(m_summary->sizeHint().height(), total / 3);
    m_splitter->setSizes({total - summary, summary});
}

void Dashboard::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    fitSummary();
    if (m_staleCover)
        m_staleCover->setGeometry(m_splitter->geometry());
}

void Dashboard::restoreSplitter(const QByteArray& state)
{
    m_fitSummary = !m_splitter->restoreState(state);
}

QString Dashboard::titleText() const { return m_title->text(); }

QStringList Dashboard::legendTexts() const { return static_cast<const Legend*>(m_legend)->texts(); }

QList<QColor> Dashboard::legendSwatch() const { return static_cast<const Legend*>(m_legend)->swatch(); }

void Dashboard::setOpenedArrivals(std::vector<Nanos> opened)
{
    std::sort(opened.begin(), opened.end());
    m_openedArrivals = std::move(opened);
    if (m_stage->frame().scenario)
        m_title->setText(describe(*m_stage->frame().scenario, m_openedArrivals));
}

namespace {
// addedText names the requests added to the pattern: the scenario's own by when they come (a
// lesson's spike is traffic, not a click), then those sent by hand, counted.
QString addedText(const std::vector<Nanos>& added, const std::optional<std::vector<Nanos>>& opened)
{
    std::vector<Nanos> all = added, own, byHand;
    std::sort(all.begin(), all.end());
    if (opened) {
        std::set_intersection(all.begin(), all.end(), opened->begin(), opened->end(), std::back_inserter(own));
        std::set_difference(all.begin(), all.end(), opened->begin(), opened->end(), std::back_inserter(byHand));
    } else {
        own = all;
    }
    const QLocale locale;
    QString text;
    if (!own.empty() && own.front() == own.back())
        text += Dashboard::tr(", %1 more at %2").arg(locale.toString(qlonglong(own.size())), secs(own.front()));
    else if (!own.empty())
        text += Dashboard::tr(", %1 more from %2 to %3")
                    .arg(locale.toString(qlonglong(own.size())), secs(own.front()), secs(own.back()));
    if (!byHand.empty())
        text += byHand.size() == 1 ? Dashboard::tr(", 1 sent by hand")
                                   : Dashboard::tr(", %1 sent by hand").arg(locale.toString(qlonglong(byHand.size())));
    return text;
}
} // namespace

namespace {
// settingsText lists the settings the rows read and no other: L per W when a row reads them, C
// and r when one does, nginx's own burst, nodelay and delay, then the product options (a
// scenario is refused with an option no row reads). A product given options of its own reads
// those, not L, W, C, r; nginx given a burst reads it, not C. Concurrency rows and layers alone
// read none of these.
QString settingsText(const Scenario& s)
{
    if (s.algorithms.empty())
        return {};
    const LimiterConfig& c = s.config;
    const NginxOptions& nginx = c.nginx();
    const QLocale locale;
    bool window = false, capacity = false, rate = false, nginxRow = false;
    for (Algorithm a : s.algorithms) {
        if (readsOwnOptions(a, c))
            continue;
        nginxRow = nginxRow || a == Algorithm::NginxLimitReq;
        const bool bucket = facts(a).reads == ConfigUse::CapacityRate;
        window = window || !bucket;
        rate = rate || bucket;
        capacity = capacity || (bucket && (a != Algorithm::NginxLimitReq || !nginx.burst));
    }
    QStringList read;
    if (window)
        read << QString("limit %1 per %2").arg(locale.toString(qlonglong(c.limit())), secs(c.windowNanos()));
    if (capacity)
        read << QString("capacity %1").arg(locale.toString(qlonglong(c.capacity())));
    if (rate)
        read << QString("rate %1").arg(perSecond(c.rate().exactText()));
    if (nginxRow && nginx.burst)
        read << QString("burst %1").arg(locale.toString(qlonglong(*nginx.burst)));
    if (nginxRow && nginx.nodelay)
        read << QString("nodelay");
    else if (nginxRow && nginx.delay > 0)
        read << QString("delay %1").arg(locale.toString(qlonglong(nginx.delay)));
    QStringList options;
    for (const ProductOption& o : c.productOptions())
        options << QString::fromStdString(o.name + " " + o.value);
    if (options.isEmpty())
        return read.join(", ");
    return read.isEmpty() ? options.join(", ") : read.join(", ") + "; " + options.join(", ");
}
} // namespace

QString Dashboard::describe(const Scenario& s, const std::optional<std::vector<Nanos>>& opened)
{
    const LimiterConfig& c = s.config;
    const QLocale locale; // counts with the reader's thousands separators: "1,000,000 requests"
    const auto n = [&locale](auto v) { return locale.toString(qlonglong(v)); };
    QString text = s.title.empty() ? QString("RateLab") : QString::fromStdString(s.title);
    const QString settings = settingsText(s);
    if (!settings.isEmpty())
        text += " — " + settings;
    const Pattern& p = s.pattern;
    if (s.explicitArrivals) {
        text += QString(" — %1 arrivals from a file").arg(n(s.explicitArrivals->size()));
    } else {
        switch (p.kind) {
        case PatternKind::Uniform:
            text += p.count == 1 ? QString(" — 1 request") : QString(" — %1 requests %2 apart").arg(n(p.count)).arg(secs(p.delayNanos));
            break;
        case PatternKind::Burst:
            // One burst has no period: "bursts of 20 every 60 s" would promise more than one.
            text += p.count == 1           ? QString(" — 1 request")
                    : p.count <= p.burstSize ? QString(" — %1 requests at once").arg(n(p.count))
                                           : QString(" — %1 requests in bursts of %2 every %3").arg(n(p.count), n(p.burstSize)).arg(secs(p.periodNanos));
            break;
        case PatternKind::Poisson:
            text += QString(" — %1 Poisson requests at %2 (seed %3)")
                        .arg(n(p.count))
                        .arg(perSecond(p.lambda.exactText()))
                        .arg(p.seed);
            break;
        case PatternKind::Edge:
            text += QString(" — %1 requests %2 before a window boundary, %1 at it").arg(n(c.limit())).arg(secs(p.gapNanos));
            break;
        case PatternKind::Worst:
            text += QString(" — the worst case of the %1 in any %2")
                        .arg(QString::fromUtf8(facts(p.worstOf).phrase))
                        .arg(secs(boundWindowNanos(p, c)));
            break;
        }
        if (p.startNanos != 0)
            text += QString(", from %1").arg(secs(p.startNanos));
    }
    // A title that names a path ("/api/login") wraps as a rate does: never at a slash.
    return keepSlashesJoined(text + addedText(s.addedArrivals, opened));
}

QImage Dashboard::render(qreal scale)
{
    QImage image(size() * scale, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(scale);
    image.fill(palette().color(QPalette::Base));
    QPainter painter(&image);
    QWidget::render(&painter);
    // The splitter's grip is for the mouse, not for a slide.
    for (int i = 1; i < m_splitter->count(); ++i) {
        const QSplitterHandle* grip = m_splitter->handle(i);
        painter.fillRect(QRect(grip->mapTo(this, QPoint(0, 0)), grip->size()), palette().color(QPalette::Base));
    }
    painter.end();
    return image;
}

void layoutOffscreen(Dashboard& dashboard, const Scenario& scenario, QSize size, TimeRange range)
{
    dashboard.setAttribute(Qt::WA_DontShowOnScreen);
    dashboard.layout()->setContentsMargins(16, 10, 16, 10); // an image for a slide gets margins
    // The events below lay the rows out; painting them too, into a backing store no one sees,
    // would only double what render() paints.
    dashboard.setUpdatesEnabled(false);
    const auto paintAgain = qScopeGuard([&] { dashboard.setUpdatesEnabled(true); });
    // A dashboard already laid out at this size knows its rows' pixel width: one pass suffices.
    const bool laidOut = dashboard.isVisible() && dashboard.size() == size && dashboard.charts()->rowCount() > 0;
    dashboard.resize(size);
    if (!laidOut) { // empty rows first, so the frame is reduced once, to their width
        dashboard.charts()->prepareRows(rowCount(scenario));
        dashboard.show();
        QApplication::processEvents();
    }
    auto shared = std::make_shared<const Scenario>(scenario);
    Frame frame = buildFrame(shared, nullptr, range, dashboard.charts()->laidOutColumns());
    if (!frame.error.isEmpty())
        throw InputError(frame.error.toStdString());
    dashboard.setFrame(frame);
    dashboard.show();
    QApplication::processEvents();
    // The title or the summary could have changed the rows' width: reduce to it if so.
    const int columns = dashboard.charts()->columns();
    if (!frame.rows.empty() && columns != int(frame.rows.front().columns.size())) {
        frame = buildFrame(shared, frame.trace, frame.range, columns);
        dashboard.setFrame(frame);
        QApplication::processEvents();
    }
}

void layoutForExport(Dashboard& dashboard, const Scenario& scenario, QSize size, TimeRange range)
{
    // A level plot keeps a readable height (its line, ceiling and labels apart).
    dashboard.charts()->setMinimumPlotHeight(28);
    layoutOffscreen(dashboard, scenario, size, range);
    // Every row is drawn, none scrolled away, and the title and the legend are never clipped:
    // a size too small for them is laid out larger, in the same proportions, and the image
    // fitted into the size asked (below).
    const int minimumWidth = dashboard.minimumSizeHint().width() + 160;
    const int overflow = dashboard.charts()->rowsOverflow();
    if (overflow > 0 || size.width() < minimumWidth) {
        const double grow = std::max({1.0, double(minimumWidth) / size.width(),
                                      double(dashboard.height() + overflow + 4) / std::max(1, dashboard.height())});
        layoutOffscreen(dashboard, scenario, (QSizeF(size) * grow).toSize(), range);
        for (int i = 0; i < 3 && dashboard.charts()->rowsOverflow() > 0; ++i) { // the table may have grown too
            const QSize now = dashboard.size();
            const double more = double(now.height() + dashboard.charts()->rowsOverflow() + 4) / now.height();
            layoutOffscreen(dashboard, scenario, (QSizeF(now) * more).toSize(), range);
        }
    }
}

QImage renderOffscreen(const Scenario& scenario, QSize size, qreal scale, TimeRange range, bool veiled)
{
    Dashboard dashboard;
    dashboard.stage()->setVeiled(veiled);
    layoutForExport(dashboard, scenario, size, range);
    const QSize target = (QSizeF(size) * scale).toSize();
    if (dashboard.size() == size)
        return dashboard.render(scale);
    // The rows have a minimum height: a dashboard asked smaller than it can lay out is drawn at
    // its own size, at a scale that keeps what is rendered within the pixel cap, and fitted into
    // an image of exactly the size asked, centred on the background.
    const QSize laid = dashboard.size();
    const qreal fit = std::min(qreal(target.width()) / laid.width(), qreal(target.height()) / laid.height());
    const qreal renderScale = std::min(scale, std::max(fit, qreal(1)));
    const QImage drawn = dashboard.render(renderScale);
    QImage fitted = drawn.scaled(target, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    // The scaled copy keeps the drawing's pixel ratio, and a painter lays an image out in its
    // logical size: at a render scale above 1 it would cover only target / renderScale.
    fitted.setDevicePixelRatio(1.0);
    QImage image(target, QImage::Format_ARGB32_Premultiplied);
    image.fill(dashboard.palette().color(QPalette::Base));
    QPainter painter(&image);
    painter.drawImage((target.width() - fitted.width()) / 2, (target.height() - fitted.height()) / 2, fitted);
    painter.end();
    image.setDevicePixelRatio(scale);
    return image;
}

QString writeImage(const QImage& image, const QString& path)
{
    if (const QString problem = io::outputPathProblem(path); !problem.isEmpty())
        return problem;
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, QFileInfo(path).suffix().toLower().toLatin1());
    if (writer.format().isEmpty() || !QImageWriter::supportedImageFormats().contains(writer.format()))
        writer.setFormat("png");
    if (!writer.write(image))
        return io::cannotWrite(path, writer.errorString());
    return io::writeFileAtomically(path, bytes);
}

} // namespace ratelab::ui
