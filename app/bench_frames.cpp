#include "bench_frames.h"

#include "bench.h"

#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "model/frame.h"
#include "model/pipeline.h"
#include "model/scenariodocument.h"
#include "model/stage.h"
#include "window/mainwindow.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTemporaryDir>
#include <QTimer>

#include <algorithm>
#include <functional>
#include <memory>
#include <vector>

namespace ratelab::app {

namespace {

// DragStep is the k-th change of a drag (k from 0), made to the document's scenario as a slider
// makes it, and the name the document gives it ("Limit", "Workers").
struct DragStep {
    QString what;
    std::function<void(Scenario&, int)> apply;
};

// showsItsDocument says whether the window's frame is of its document's scenario as it is now.
bool showsItsDocument(ui::MainWindow& window)
{
    const ui::Frame& f = window.stage()->frame();
    return f.scenario && *f.scenario == window.document()->scenario();
}

void setPrecise(QTimer& timer, int ms)
{
    timer.setTimerType(Qt::PreciseTimer);
    timer.setInterval(ms);
}

void waitUntilIdle(ui::MainWindow& window)
{
    while (!window.pipeline()->isIdle())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

// openSettled shows the window at 1600x900 on start and returns once its frame is on screen.
void openSettled(ui::MainWindow& window, const Scenario& start)
{
    window.resize(1600, 900);
    window.show();
    window.openScenario(start);
    while (!window.pipeline()->isIdle() || !showsItsDocument(window))
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QCoreApplication::processEvents();
}

// PaintWatch calls onPaint with each object about to paint.
struct PaintWatch : QObject {
    std::function<void(QObject*)> onPaint;
    bool eventFilter(QObject* o, QEvent* e) override
    {
        if (e->type() == QEvent::Paint)
            onPaint(o);
        return false;
    }
};

// dragOnce opens a real MainWindow (offscreen, 1600x900) on `start`, then makes `changes` changes
// by `step`, one every 16 ms, through the document as the slider does, and times the GUI thread's
// longest stall and the last change's frame reaching the screen.
DragFigures dragOnce(const Scenario& start, int changes, const DragStep& step)
{
    ui::MainWindow window;
    openSettled(window, start);

    QElapsedTimer clock;
    clock.start();
    DragFigures figures;
    QEventLoop loop;
    qint64 lastTickNs = clock.nsecsElapsed(), lastChangeNs = -1;
    bool painted = false;
    int made = 0;

    // A paint of any dashboard widget once the last change's frame is shown is that frame painted.
    PaintWatch watch;
    watch.onPaint = [&](QObject* o) {
        auto* w = qobject_cast<QWidget*>(o);
        if (lastChangeNs >= 0 && !painted && w && window.dashboard()->isAncestorOf(w) && showsItsDocument(window))
            painted = true;
    };
    qApp->installEventFilter(&watch);

    QTimer ticker; // runs whenever the event loop does: the gaps between its ticks are the stalls
    setPrecise(ticker, 1);
    QObject::connect(&ticker, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        figures.maxGuiStallMs = std::max(figures.maxGuiStallMs, double(now - lastTickNs) / 1e6);
        lastTickNs = now;
        if (painted) { // the paint has finished by the tick after it
            figures.settleMs = double(now - lastChangeNs) / 1e6;
            loop.quit();
        }
    });
    QTimer mover;
    setPrecise(mover, 16);
    qint64 firstChangeNs = -1;
    std::size_t framesBefore = 0;
    QObject::connect(&mover, &QTimer::timeout, [&] {
        if (firstChangeNs < 0) {
            firstChangeNs = clock.nsecsElapsed();
            framesBefore = window.pipeline()->framesDelivered();
        }
        window.document()->change(step.what, [&](Scenario& s) { step.apply(s, made); });
        if (++made == changes) {
            mover.stop();
            lastChangeNs = clock.nsecsElapsed();
            const double seconds = double(lastChangeNs - firstChangeNs) / 1e9;
            figures.framesPerS = double(window.pipeline()->framesDelivered() - framesBefore) / std::max(seconds, 1e-9);
        }
    });
    QTimer::singleShot(120'000, &loop, &QEventLoop::quit); // a bound, never reached when it works
    ticker.start();
    mover.start();
    loop.exec();
    qApp->removeEventFilter(&watch);
    if (!painted)
        figures.settleMs = -1;
    waitUntilIdle(window); // the last jobs finish before the window goes
    return figures;
}

// medianDrag is the median of three drags, each on a fresh window, settings kept in a scratch
// directory so the bench neither reads nor leaves a user's last document.
DragFigures medianDrag(const Scenario& start, int changes, const DragStep& step)
{
    QTemporaryDir config;
    const QByteArray previous = qgetenv("XDG_CONFIG_HOME");
    const bool hadPrevious = qEnvironmentVariableIsSet("XDG_CONFIG_HOME");
    qputenv("XDG_CONFIG_HOME", config.path().toUtf8());
    std::vector<double> stalls, settles, rates;
    for (int i = 0; i < 3; ++i) {
        const DragFigures f = dragOnce(start, changes, step);
        stalls.push_back(f.maxGuiStallMs);
        settles.push_back(f.settleMs);
        rates.push_back(f.framesPerS);
    }
    if (hadPrevious)
        qputenv("XDG_CONFIG_HOME", previous);
    else
        qunsetenv("XDG_CONFIG_HOME");
    std::sort(stalls.begin(), stalls.end());
    std::sort(settles.begin(), settles.end());
    std::sort(rates.begin(), rates.end());
    return {stalls[1], settles[1], rates[1]};
}

} // namespace

namespace {

Scenario dragScenario(std::int64_t requests, bool cluster)
{
    Scenario s = benchScenario(requests);
    if (cluster)
        s.cluster = ClusterConfig::make({8, Balancer::RoundRobin, Coordination::Local});
    return s;
}

} // namespace

UpdateStages clusterStages(std::int64_t requests)
{
    return updateStages(dragScenario(requests, true), [](Scenario& s, int run) {
        s.config = LimiterConfig::make(101 + run % 2, kNanosPerSecond);
    });
}

DragFigures dragFigures(std::int64_t requests, int changes, bool cluster)
{
    const Scenario start = dragScenario(requests, cluster);
    const std::int64_t first = start.config.limit() + 1;
    return medianDrag(start, changes, {QStringLiteral("Limit"), [first](Scenario& s, int k) {
                                           s.config = LimiterConfig::make(first + k, s.config.windowNanos());
                                       }});
}

Scenario dragServerScenario(std::int64_t requests)
{
    Scenario s = benchScenario(requests);
    s.algorithms = {Algorithm::FixedWindow}; // the server's drag, not seven limiters'
    s.server = ServerConfig::parse("workers=64,service=exp:50ms,queue=1000,timeout=1s");
    s.concurrency = {GateSpec::parse("gradient2")};
    return s;
}

namespace {

// setWorkers is the k-th value of a workers drag: 65 on.
void setWorkers(Scenario& s, int k)
{
    ServerOptions o = s.server->options();
    o.workers = 65 + k;
    s.server = ServerConfig::make(o);
}

} // namespace

DragFigures dragServerFigures(std::int64_t requests, int changes)
{
    return medianDrag(dragServerScenario(requests), changes, {QStringLiteral("Workers"), setWorkers});
}

UpdateStages serverStages(std::int64_t requests) { return updateStages(dragServerScenario(requests), setWorkers); }

double updateMs(std::int64_t n)
{
    // A slider change: a new scenario is simulated, reduced to the rows' pixels, laid out and
    // painted, on a 1600x900 dashboard. The limit alternates so every run is a real change.
    ui::Dashboard dashboard;
    int flip = 0;
    return medianMs([&] {
        Scenario s = benchScenario(n);
        s.config = LimiterConfig::make(100 + (flip++ % 2), kNanosPerSecond);
        ui::layoutOffscreen(dashboard, s, QSize(1600, 900));
        g_sink = dashboard.render(1.0).pixel(800, 450);
    });
}

UpdateStages updateStages(std::int64_t n)
{
    return updateStages(benchScenario(n), [](Scenario& s, int run) {
        s.config = LimiterConfig::make(101 + run % 2, kNanosPerSecond);
    });
}

UpdateStages updateStages(const Scenario& start, const std::function<void(Scenario&, int)>& change)
{
    // A drag's frame, stage by stage: the dashboard laid out once at 1600x900, then per change
    // the frame built as the pipeline builds it (off the GUI thread, reusing the arrivals and
    // the lookback its cache keeps between a drag's frames), set on the rows, and painted.
    ui::Dashboard dashboard;
    ui::layoutOffscreen(dashboard, start, QSize(1600, 900));
    ui::FrameCache cache;
    std::vector<double> build, layOut, paint;
    for (int run = 0; run <= kRuns; ++run) {
        Scenario s = start;
        change(s, run);
        QElapsedTimer clock;
        clock.start();
        const ui::Frame frame =
            ui::buildFrame(std::make_shared<const Scenario>(s), nullptr, {}, dashboard.charts()->columns(), nullptr, &cache);
        const double built = double(clock.nsecsElapsed()) / 1e6;
        dashboard.setFrame(frame);
        QApplication::processEvents();
        const double laid = double(clock.nsecsElapsed()) / 1e6;
        g_sink = dashboard.render(1.0).pixel(800, 450);
        const double painted = double(clock.nsecsElapsed()) / 1e6;
        if (run == 0)
            continue; // the warm-up
        build.push_back(built);
        layOut.push_back(laid - built);
        paint.push_back(painted - laid);
    }
    const auto median = [](std::vector<double> v) {
        std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
        return v[v.size() / 2];
    };
    return {median(build), median(layOut), median(paint)};
}

} // namespace ratelab::app
