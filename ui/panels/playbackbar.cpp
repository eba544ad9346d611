#include "panels/playbackbar.h"

#include "arithmetic/decimal.h"
#include "report/explain.h"

#include <QComboBox>
#include <QEvent>
#include <QHBoxLayout>
#include <QIcon>
#include <QPainter>
#include <QPixmap>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSlider>
#include <QSpinBox>
#include <QStyle>
#include <QToolButton>

#include <algorithm>
#include <cmath>
#include <iterator>

namespace ratelab::ui {

namespace {
constexpr int kScrubSteps = 10000;
constexpr int kFrameMs = 33;
constexpr double kSpeeds[] = {0.25, 0.5, 1, 2, 4, 8, 16};
constexpr int kClassroomSeconds = 10;
enum class Media { Back, Play, Pause, Forward };

// mediaIcon draws a transport icon in the palette's button text colour: the style's own icons
// are black whatever the theme, and vanish on a dark one.
QIcon mediaIcon(Media kind, QColor ink)
{
    QPixmap pixmap(QSize(32, 32));
    pixmap.fill(Qt::transparent);
    QPainter p(&pixmap);
    p.setRenderHint(QPainter::Antialiasing);
    p.setPen(Qt::NoPen);
    p.setBrush(ink);
    const auto triangle = [&](double x, bool right) {
        const QPointF pts[3] = {{x, 7}, {x, 25}, {right ? x + 13 : x - 13, 16}};
        p.drawPolygon(pts, 3);
    };
    switch (kind) {
    case Media::Play: triangle(9, true); break;
    case Media::Pause:
        p.drawRect(QRectF(8, 7, 6, 18));
        p.drawRect(QRectF(18, 7, 6, 18));
        break;
    case Media::Forward: triangle(5, true); triangle(16, true); break;
    case Media::Back: triangle(27, false); triangle(16, false); break;
    }
    return QIcon(pixmap);
}

} // namespace

void PlaybackBar::changeEvent(QEvent* event)
{
    QWidget::changeEvent(event);
    if (event->type() == QEvent::PaletteChange)
        syncWidgets();
}

PlaybackBar::PlaybackBar(QWidget* parent)
    : QWidget(parent)
    , m_back(new QToolButton)
    , m_play(new QToolButton)
    , m_forward(new QToolButton)
    , m_speed(new QComboBox)
    , m_scrub(new QSlider(Qt::Horizontal))
    , m_time(new QLabel)
    , m_send(new QToolButton)
    , m_burst(new QToolButton)
    , m_burstSize(new QSpinBox)
{
    setUpSpeed();
    setUpControls();
    layOut();
    connectControls();
    syncWidgets();
}

void PlaybackBar::setUpSpeed()
{
    // Each choice names what it is relative to: the requests (the default), the view,
    // or real time.
    m_speed->addItem(tr("Follow the requests"), kFollowRequests);
    m_speed->addItem(QString(), kWholeView);
    for (double s : kSpeeds) {
        m_speed->addItem(tr("%1x real time").arg(s), s);
        m_speed->setItemData(m_speed->count() - 1,
                             tr("%1 simulated seconds per real second, whatever the view holds").arg(s), Qt::ToolTipRole);
    }
    m_speed->setCurrentIndex(0);
    m_speed->setToolTip(tr("Playback speed: follow the requests one by one, the whole view at one speed, "
                           "or a multiple of real time"));
    connect(m_speed, &QComboBox::currentIndexChanged, this, [this] { m_paceSynced = false; });
}

void PlaybackBar::setUpControls()
{
    m_back->setToolTip(tr("Step back to the previous request (Left)"));
    m_play->setToolTip(tr("Play or pause simulated time (Space)"));
    m_forward->setToolTip(tr("Step to the next request (Right)"));
    setClassroomSeconds(0);
    m_scrub->setRange(0, kScrubSteps);
    m_scrub->setToolTip(tr("Drag to scrub through simulated time"));
    m_time->setObjectName("time");
    m_time->setMinimumWidth(QFontMetrics(font()).horizontalAdvance("t = 00000.000 s") + 8);
    m_send->setText(tr("Send request"));
    m_send->setToolTip(tr("Send one request at the playhead (Ctrl+R)"));
    m_burst->setText(tr("Burst"));
    m_burst->setToolTip(tr("Send a burst of requests at once at the playhead (Ctrl+B)"));
    m_burstSize->setRange(2, 1000);
    m_burstSize->setValue(5);
    m_burstSize->setToolTip(tr("Requests in a burst"));
    for (QToolButton* b : {m_send, m_burst})
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    // What a screen reader says for the controls that show an icon or a value, not a name.
    m_back->setAccessibleName(tr("Step back"));
    m_forward->setAccessibleName(tr("Step forward"));
    m_speed->setAccessibleName(tr("Playback speed"));
    m_scrub->setAccessibleName(tr("Simulated time"));
    m_burstSize->setAccessibleName(tr("Requests in a burst"));
}

void PlaybackBar::layOut()
{
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(6, 2, 6, 2);
    layout->addWidget(m_back);
    layout->addWidget(m_play);
    layout->addWidget(m_forward);
    layout->addWidget(m_speed);
    layout->addWidget(m_scrub, 1);
    layout->addWidget(m_time);
    layout->addSpacing(12);
    layout->addWidget(m_send);
    layout->addWidget(m_burst);
    layout->addWidget(m_burstSize);
}

void PlaybackBar::connectControls()
{
    m_timer.setInterval(kFrameMs);
    connect(&m_timer, &QTimer::timeout, this, &PlaybackBar::tick);
    connect(m_play, &QToolButton::clicked, this, &PlaybackBar::togglePlay);
    connect(m_back, &QToolButton::clicked, this, &PlaybackBar::stepBack);
    connect(m_forward, &QToolButton::clicked, this, &PlaybackBar::stepForward);
    connect(m_scrub, &QSlider::valueChanged, this, [this](int v) {
        if (!m_range.isValid())
            return;
        setPlayhead(m_range.from + Nanos(std::llround(double(m_range.to - m_range.from) * v / kScrubSteps)));
    });
    connect(m_send, &QToolButton::clicked, this, [this] { emit sendRequested(m_playheadNanos, 1); });
    connect(m_burst, &QToolButton::clicked, this, [this] { emit sendRequested(m_playheadNanos, burstSize()); });
}

void PlaybackBar::setTrace(std::shared_ptr<const Trace> trace, TimeRange range)
{
    const bool wasAtEnd = atEnd() || !m_range.isValid();
    // The same trace over the same view (a frame made again) keeps its pace and where playing is.
    if (trace != m_trace || range != m_range) {
        m_paceStale = true;
        m_paceSynced = false;
    }
    m_trace = std::move(trace);
    m_range = range;
    // A new scenario keeps the playhead where the teacher left it, unless it showed everything.
    m_playheadNanos = wasAtEnd ? range.to : std::clamp(m_playheadNanos, range.from, range.to);
    m_shown = std::min(m_shown, requestsUpTo(m_playheadNanos));
    if (wasAtEnd)
        m_shown = requestsUpTo(m_playheadNanos);
    syncWidgets();
}

std::size_t PlaybackBar::requestsUpTo(Nanos t) const
{
    if (!m_trace)
        return 0;
    const auto& a = m_trace->arrivals;
    return std::size_t(std::upper_bound(a.begin(), a.end(), t) - a.begin());
}

void PlaybackBar::setClassroomSeconds(double seconds)
{
    m_scenarioSeconds = seconds > 0 ? seconds : 0;
    m_classroomSeconds = seconds > 0 ? seconds : kClassroomSeconds;
    m_paceStale = true;
    m_paceSynced = false;
    const QString text = QLocale().toString(m_classroomSeconds, 'g', 4);
    const PaceRule rule;
    const auto s = [](Nanos n) { return QLocale().toString(secondsAsDouble(n), 'g', 3); };
    QString follow = tr("Each request in turn: the gaps between requests play as they happened, but a burst is "
                        "slowed to one request every %1 s and no idle stretch lasts more than %2 s (marked » idle)")
                         .arg(s(rule.minStepNanos), s(rule.maxStepNanos));
    follow += m_scenarioSeconds > 0 ? tr("; this scenario plays it all in %1 s").arg(text)
                                    : tr("; at most %1 s in all").arg(s(rule.maxTotalNanos));
    m_speed->setItemData(0, follow, Qt::ToolTipRole);
    m_speed->setItemText(1, tr("Whole view in %1 s").arg(text));
    m_speed->setItemData(1, tr("The whole view at one steady speed in %1 seconds: a short burst passes quickly").arg(text),
                         Qt::ToolTipRole);
}

const Pace& PlaybackBar::pace() const
{
    if (!m_paceStale)
        return m_pace;
    // Each request in the view, and once each instant with only retries (attempts reach past the
    // arrivals): at an instant with requests the knots are those requests, one by one.
    std::vector<Nanos> instants;
    if (m_trace) {
        const auto& a = m_trace->arrivals;
        instants.assign(std::lower_bound(a.begin(), a.end(), m_range.from), std::lower_bound(a.begin(), a.end(), m_range.to));
        std::vector<Nanos> retries;
        for (const AlgorithmTrace& r : m_trace->results)
            if (r.kind.attempts)
                std::copy_if(r.times.begin(), r.times.end(), std::back_inserter(retries), [&](Nanos t) {
                    return t >= m_range.from && t < m_range.to && !std::binary_search(a.begin(), a.end(), t);
                });
        std::sort(retries.begin(), retries.end());
        retries.erase(std::unique(retries.begin(), retries.end()), retries.end());
        instants.insert(instants.end(), retries.begin(), retries.end());
    }
    const Nanos length = m_scenarioSeconds > 0 ? Nanos(std::llround(m_scenarioSeconds * 1e9)) : 0;
    m_pace = Pace::follow(std::move(instants), m_range.from, std::max(m_range.from, m_range.to), length);
    m_paceStale = false;
    return m_pace;
}

double PlaybackBar::speed() const
{
    const double chosen = m_speed->currentData().toDouble();
    if (chosen > 0 || !m_range.isValid())
        return chosen > 0 ? chosen : 1.0;
    if (chosen == kWholeView)
        return secondsAsDouble(m_range.to - m_range.from) / m_classroomSeconds;
    const PaceSegment gap = pace().segmentAt(m_playheadNanos);
    return gap.realTo > gap.realFrom ? double(gap.simTo - gap.simFrom) / double(gap.realTo - gap.realFrom) : 1.0;
}

Nanos PlaybackBar::playLength() const
{
    if (!m_range.isValid())
        return 0;
    const double chosen = m_speed->currentData().toDouble();
    if (chosen == kFollowRequests)
        return pace().realLength();
    return Nanos(std::llround(double(m_range.to - m_range.from) / speed()));
}

void PlaybackBar::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    placeSending();
}

void PlaybackBar::setSendingShown(bool shown)
{
    if (shown == m_sendingShown)
        return; // placed at the next resize, once the bar has its width
    m_sendingShown = shown;
    placeSending();
}

void PlaybackBar::placeSending()
{
    // Narrow (a projector, presentation type): the scrubber keeps its room and the sending
    // buttons give way (Ctrl+R and Ctrl+B, and the Playback menu, still send).
    const int sending = m_send->sizeHint().width() + m_burst->sizeHint().width() + m_burstSize->sizeHint().width() + 24;
    const int others = m_back->sizeHint().width() * 3 + m_speed->sizeHint().width() + m_time->minimumWidth() + 40;
    const bool room = m_sendingShown && width() - others - sending >= 220;
    for (QWidget* w : std::initializer_list<QWidget*>{m_send, m_burst, m_burstSize})
        w->setVisible(room);
}
int PlaybackBar::burstSize() const { return m_burstSize->value(); }

void PlaybackBar::setSpeed(double factor)
{
    const int i = m_speed->findData(factor);
    if (i >= 0)
        m_speed->setCurrentIndex(i);
}

void PlaybackBar::togglePlay()
{
    if (m_timer.isActive()) {
        m_timer.stop();
    } else {
        if (atEnd())
            goToStart();
        m_clock.start();
        m_timer.start();
    }
    syncWidgets();
    emit playheadChanged(m_playheadNanos);
}

void PlaybackBar::tick()
{
    // The clock is the GUI's, never the limiters': a frame's real time, handed on.
    const Nanos elapsed = m_clock.nsecsElapsed();
    m_clock.restart();
    advance(elapsed);
}

void PlaybackBar::advance(Nanos realNanos)
{
    if (!m_range.isValid())
        return;
    realNanos = std::max<Nanos>(realNanos, 0);
    Nanos next = m_range.to;
    if (m_speed->currentData().toDouble() == kFollowRequests && m_trace) {
        // The pace's own real clock, taken up again from the playhead when it was moved: a
        // position rounded both ways never moves the playhead back (Pace::realAt).
        const Pace& p = pace();
        if (!m_paceSynced || m_paceSim != m_playheadNanos || m_paceShown != m_shown)
            m_paceReal = p.realAt(inPace(m_playheadNanos, m_shown));
        m_paceReal = realNanos >= p.realLength() - m_paceReal ? p.realLength() : m_paceReal + realNanos;
        if (m_paceReal < p.realLength()) {
            const PacePosition at = p.at(m_paceReal);
            const std::size_t shown = shownAt(at);
            if (at.sim > m_playheadNanos || (at.sim == m_playheadNanos && shown > m_shown))
                moveTo(at.sim, shown);
            m_paceSim = m_playheadNanos;
            m_paceShown = m_shown;
            m_paceSynced = true;
            return;
        }
    } else {
        const double step = double(realNanos) * speed();
        if (step < double(m_range.to - m_playheadNanos))
            next = m_playheadNanos + Nanos(std::llround(step));
    }
    if (next >= m_range.to) {
        next = m_range.to;
        m_timer.stop();
    }
    setPlayhead(next);
    m_paceSynced = false;
}

PacePosition PlaybackBar::inPace(Nanos t, std::size_t shown) const
{
    // At an instant with requests the pace's knots are those requests: as many reached as shown.
    const auto& a = m_trace->arrivals;
    const std::size_t before = std::size_t(std::lower_bound(a.begin(), a.end(), t) - a.begin());
    const std::size_t here = pace().instantsBefore(t);
    return {t, shown >= before ? here + (shown - before) : here};
}

std::size_t PlaybackBar::shownAt(PacePosition at) const
{
    const auto& a = m_trace->arrivals;
    const auto first = std::lower_bound(a.begin(), a.end(), at.sim);
    const auto last = std::upper_bound(first, a.end(), at.sim);
    const std::size_t here = at.reached - std::min(at.reached, pace().instantsBefore(at.sim));
    return std::size_t(first - a.begin()) + std::min(here, std::size_t(last - first));
}

void PlaybackBar::stepForward()
{
    if (!m_trace)
        return;
    // One request at a time, the requests of a burst too; past the last one, the end. From the
    // end, stepping starts again at the first request.
    if (atEnd())
        goToStart();
    const auto& t = m_trace->arrivals;
    if (m_shown < t.size() && !atEnd())
        moveTo(std::max(t[m_shown], m_range.from), m_shown + 1);
    else
        setPlayhead(m_range.to);
}

void PlaybackBar::stepBack()
{
    if (!m_trace)
        return;
    const auto& t = m_trace->arrivals;
    const std::size_t shown = std::min(m_shown, requestsUpTo(m_range.to));
    if (shown > 1 && t[shown - 2] >= m_range.from)
        moveTo(t[shown - 2], shown - 1);
    else
        goToStart();
}

void PlaybackBar::goToStart()
{
    if (!m_trace)
        return;
    const auto& a = m_trace->arrivals;
    moveTo(m_range.from, std::size_t(std::lower_bound(a.begin(), a.end(), m_range.from) - a.begin()));
}

void PlaybackBar::setPlayhead(Nanos t)
{
    t = std::clamp(t, m_range.from, std::max(m_range.from, m_range.to));
    moveTo(t, requestsUpTo(t));
}

void PlaybackBar::moveTo(Nanos t, std::size_t shown)
{
    if (t == m_playheadNanos && shown == m_shown && m_range.isValid()) {
        syncWidgets();
        return;
    }
    m_playheadNanos = t;
    m_shown = shown;
    syncWidgets();
    emit playheadChanged(t);
}

void PlaybackBar::syncWidgets()
{
    const QColor ink = palette().color(QPalette::ButtonText);
    m_back->setIcon(mediaIcon(Media::Back, ink));
    m_forward->setIcon(mediaIcon(Media::Forward, ink));
    m_play->setIcon(mediaIcon(m_timer.isActive() ? Media::Pause : Media::Play, ink));
    m_play->setAccessibleName(m_timer.isActive() ? tr("Pause") : tr("Play"));
    const QSignalBlocker block(m_scrub);
    if (m_range.isValid())
        m_scrub->setValue(int(std::llround(double(m_playheadNanos - m_range.from) / double(m_range.to - m_range.from) * kScrubSteps)));
    const QString idle = idleNote();
    // Playing, to the millisecond (the digits of every nanosecond would flicker); paused, exact.
    const QString at = m_timer.isActive() ? QLocale::c().toString(secondsAsDouble(m_playheadNanos), 'f', 3)
                                          : QString::fromStdString(explainSeconds(m_playheadNanos));
    const QString t = atEnd() ? tr("end") : QString("t = %1 s").arg(at);
    m_time->setText(idle.isEmpty() ? t : t + QString::fromUtf8("  \u00bb ") + tr("idle %1 s").arg(idle));
    m_time->setToolTip(idle.isEmpty() ? tr("Simulated time at the playhead")
                                      : tr("No request for %1 s: played faster so the next request comes sooner").arg(idle));
}

QString PlaybackBar::idleNote() const
{
    // Only while following the requests and playing: a drag or a zoom never builds a pace.
    if (!m_timer.isActive() || m_speed->currentData().toDouble() != kFollowRequests || atEnd())
        return {};
    const PaceSegment gap = pace().segmentAt(m_playheadNanos);
    if (!gap.compressed() || m_playheadNanos <= gap.simFrom)
        return {};
    const double idle = secondsAsDouble(gap.simTo - gap.simFrom);
    return QLocale().toString(idle, 'f', idle < 10 ? 2 : idle < 100 ? 1 : 0);
}

} // namespace ratelab::ui
