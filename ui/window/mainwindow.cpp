#include "window/mainwindow.h"
#include "panels/trafficpanel.h"
#include "panels/dryrunview.h"

#include "panels/atscalepanel.h"

#include "limiters/algorithm_facts.h"
#include "chart/chartstack.h"
#include "panels/controlpanel.h"
#include "chart/dashboard.h"
#include "model/deckplayer.h"
#include "panels/deckpanel.h"
#include "window/deckactions.h"
#include "window/documentactions.h"
#include "panels/errorbanner.h"
#include "panels/explainpanel.h"
#include "panels/lessonpanel.h"
#include "model/pipeline.h"

#include <QTimer>
#include "panels/playbackbar.h"
#include "scenario/rows.h"
#include "model/scenariodocument.h"
#include "model/settings.h"
#include "chart/summarytable.h"
#include "chart/theme.h"
#include "panels/wheelguard.h"

#include <QAction>

#include <algorithm>

#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QDialog>
#include <QDialogButtonBox>
#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QKeyEvent>
#include <QLabel>
#include <QTextEdit>
#include <QSignalBlocker>
#include <QDockWidget>
#include <QFormLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QLocale>
#include <QInputDialog>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSplitter>
#include <QStatusBar>
#include <QToolBar>
#include <QUndoStack>
#include <QVBoxLayout>

namespace ratelab::ui {

namespace {

constexpr int kDockWidth = 290; // a side panel's width at a first start

} // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent)
    , m_settings(std::make_unique<Settings>())
    , m_document(new ScenarioDocument(this))
    , m_controls(new ControlPanel(m_document))
    , m_controlScroll(new QScrollArea)
    , m_stage(new Stage(this))
    , m_dashboard(new Dashboard(m_stage, nullptr))
    , m_pipeline(new Pipeline(this))
    , m_playback(new PlaybackBar)
    , m_explain(new ExplainPanel)
    , m_lesson(new LessonPanel)
    , m_deck(new DeckPlayer(this))
    , m_banner(new ErrorBanner)
    , m_splitter(new QSplitter(Qt::Horizontal))
    , m_normalFont(QApplication::font())
{
    layOutCentre();
    const Docks docks = createDocks();
    m_documents = new DocumentActions(this, *m_settings, m_dashboard, m_document);
    m_decks = new DeckActions(this, m_deck, m_document, m_stage, m_lesson);
    createMenus();
    updateClassKeys();
    // The status bar exists from the start, shown with the window: made later (by the first
    // message), it would still be hidden when --present notes what to restore on Esc.
    statusBar();

    connectDocument();
    connectCharts(docks);
    connectDecks(docks);
    connectPanels(docks);
    applyTheme(themeFromId(m_settings->theme()));
    openFirstDocument();
    restoreLayout(docks);
    requestFrame();
}

void MainWindow::layOutCentre()
{
    m_dashboard->charts()->setMinimumPlotHeight(60); // readable on a 1280x720 projector: rows scroll
    m_dashboard->charts()->setScrollBarSpaceKept(true);
    m_controlScroll->setWidget(m_controls);
    m_controlScroll->setWidgetResizable(true);
    WheelGuard::guard(m_controls); // the wheel scrolls the settings; it changes a value only with the focus
    m_controlScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_controlScroll->setMinimumWidth(m_controls->sizeHint().width() + 20);
    auto* centre = new QWidget;
    auto* centreLayout = new QVBoxLayout(centre);
    centreLayout->setContentsMargins(0, 0, 0, 0);
    centreLayout->setSpacing(0);
    centreLayout->addWidget(m_banner);
    centreLayout->addWidget(m_playback);
    centreLayout->addWidget(m_dashboard, 1);
    m_splitter->addWidget(m_controlScroll);
    m_splitter->addWidget(centre);
    m_splitter->setStretchFactor(1, 1);
    m_splitter->setChildrenCollapsible(false);
    setCentralWidget(m_splitter);
}

MainWindow::Docks MainWindow::createDocks()
{
    QDockWidget* lessonDock = addDock("Lesson", "lessonDock", m_lesson, Qt::RightDockWidgetArea);
    QDockWidget* explainDock = addDock("What happened", "explainDock", m_explain, Qt::RightDockWidgetArea);
    // One column of side panels: the lesson above, What happened below it (both seen at once, the
    // story and the request it is at), the other panels as tabs beside What happened.
    splitDockWidget(lessonDock, explainDock, Qt::Vertical);
    QDockWidget* atScaleDock = addDock("At scale", "atScaleDock", new AtScalePanel(m_document), Qt::RightDockWidgetArea);
    tabifyDockWidget(explainDock, atScaleDock);
    m_traffic = new TrafficPanel(m_document); // a real access log, its keys and a sweep
    QDockWidget* trafficDock = addDock(tr("Traffic"), "trafficDock", m_traffic, Qt::RightDockWidgetArea);
    tabifyDockWidget(atScaleDock, trafficDock);
    QDockWidget* deckDock = addDock(tr("Deck"), "deckDock", new DeckPanel(m_deck, m_document), Qt::RightDockWidgetArea);
    tabifyDockWidget(trafficDock, deckDock);
    lessonDock->raise();
    explainDock->raise();
    resizeDocks({lessonDock}, {kDockWidth}, Qt::Horizontal);
    m_lessonDock = lessonDock;
    return {lessonDock, explainDock, atScaleDock, trafficDock, deckDock};
}

void MainWindow::connectDocument()
{
    connect(m_document, &ScenarioDocument::changed, this, &MainWindow::documentChanged);
    connect(m_document, &ScenarioDocument::identityChanged, this, &MainWindow::updateTitle);
    // A refusal stays in the banner until the document changes again (the cause is then gone).
    connect(m_document, &ScenarioDocument::refused, this, [this](const QString& why) {
        m_refusedAt = m_document->revision();
        m_banner->setRefusal(why);
    });
    connect(m_document, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ScenarioDocument::identityChanged, this, [this] {
        // A newly opened scenario shows its own lesson and the whole of its traffic; the requests
        // it came with are its own, only those added later were sent by hand.
        const Scenario& s = m_document->scenario();
        m_dashboard->setOpenedArrivals(s.addedArrivals);
        if (!s.lesson.empty()) {
            m_lessonDock->show();
            m_lessonDock->raise();
        }
        m_requestedRange = {};
    });
}

void MainWindow::connectCharts(const Docks& docks)
{
    connect(m_dashboard->charts(), &ChartStack::rangeRequested, this, [this](TimeRange range) {
        m_requestedRange = range;
        requestFrame();
    });
    connect(m_dashboard->charts(), &ChartStack::columnsChanged, this, &MainWindow::requestFrame);
    connect(m_dashboard->charts(), &ChartStack::fleetEventMoved, this, [this](FleetEvent e, Nanos to) {
        m_document->change(tr("Move event"), [&](Scenario& s) { s = withEventMoved(s, e, to); });
    });
    connect(m_dashboard->charts(), &ChartStack::fleetEventRemoveRequested, this, [this](FleetEvent e) {
        m_document->change(tr("Remove event"), [&](Scenario& s) { s = withEventRemoved(s, e); });
    });
    connect(m_dashboard->charts(), &ChartStack::fleetEventAddRequested, this, [this](FleetEvent::Kind kind, Nanos at) {
        if (kind != FleetEvent::Kind::LimitChange) {
            m_document->change(kind == FleetEvent::Kind::Join ? tr("Add a node joining") : tr("Add a node leaving"),
                               [&](Scenario& s) { s = withEventAdded(s, kind, at); });
            return;
        }
        bool ok = false;
        const QString when = QString::fromStdString(formatSeconds(at));
        const QString values = QInputDialog::getText(
            this, tr("Limit change"), tr("From %1 s on, the new values (limit=, capacity=, rate=):").arg(when),
            QLineEdit::Normal, QString("limit=%1").arg(m_document->scenario().config.limit() * 2), &ok);
        if (!ok || values.trimmed().isEmpty())
            return;
        m_document->change(tr("Add a limit change"), [&](Scenario& s) {
            s.changes.push_back(parseLimitChange(when.toStdString() + ":" + values.trimmed().toStdString()));
            (void)changedConfigs(s.config, s.changes); // the values must make a config
        });
    });
    connect(m_pipeline, &Pipeline::frameReady, this, &MainWindow::showFrame);
    connect(m_dashboard->charts(), &ChartStack::pinned, this, [this, explain = docks.explain](std::optional<std::size_t> i) {
        m_explain->pin(i);
        if (i) {
            explain->show();
            explain->raise();
        }
    });
}

void MainWindow::connectDecks(const Docks& docks)
{
    // A deck's step: its span framed, its request pinned, its decisions hidden until revealed.
    connect(m_decks, &DeckActions::rangeRequested, this, [this](TimeRange range) {
        m_requestedRange = range;
        requestFrame();
    });
    connect(m_decks, &DeckActions::pinRequested, this, [this, explain = docks.explain](std::optional<std::size_t> i) {
        m_dashboard->charts()->setPinned(i);
        m_explain->pin(i);
        if (i && !m_presenting) {
            explain->show();
            explain->raise();
        }
    });
    connect(m_decks, &DeckActions::status, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
    connect(m_stage, &Stage::veilChanged, this, [this] { m_explain->setVeiled(m_stage->veiled()); });
    connect(m_deck, &DeckPlayer::opened, this, [this, deck = docks.deck] {
        if (m_presenting)
            return;
        deck->show();
        deck->raise();
        m_lessonDock->show();
        // The step's words and question are what the class reads: the lesson gets most of the
        // column, once the window is laid out (a deck opened at start comes before the show).
        QTimer::singleShot(0, this, [this] {
            if (!m_presenting)
                resizeDocks({m_lessonDock}, {height() * 3 / 5}, Qt::Vertical);
        });
    });
    connect(m_deck, &DeckPlayer::deckChanged, this, &MainWindow::updateTitle);
    connect(m_deck, &DeckPlayer::deckChanged, this, &MainWindow::updateClassKeys);
    // A class starts: the keys are the class's, not a settings box's that had the focus (an
    // arrow or a letter there would change the step's scenario under its question).
    connect(m_deck, &DeckPlayer::opened, this, [this] { m_dashboard->setFocus(); });
    connect(m_deck, &DeckPlayer::stepChanged, this, &MainWindow::updateTitle);
}

void MainWindow::connectPanels(const Docks& docks)
{
    connect(m_lesson, &LessonPanel::editRequested, this, &MainWindow::editTitleAndLesson);
    connect(m_playback, &PlaybackBar::playheadChanged, this, &MainWindow::showPlayhead);
    connect(m_playback, &PlaybackBar::sendRequested, m_controls, &ControlPanel::addRequests);
    connect(m_documents, &DocumentActions::status, this, [this](const QString& m) { statusBar()->showMessage(m, 6000); });
    connect(m_documents, &DocumentActions::imported, this, [this, traffic = docks.traffic](const QString& path) {
        m_lessonDock->show(); // the explanation is the imported scenario's lesson
        m_lessonDock->raise();
        m_requestedRange = {};
        if (m_traffic->hasTraffic()) { // a config over an open log: its dry run on that log too
            traffic->show();
            m_traffic->dryRun()->run(path);
        }
    });

}

void MainWindow::openFirstDocument()
{
    if (const auto last = m_settings->lastDocument())
        m_document->reset(last->scenario, last->filePath, last->presetId, last->modified);
    else
        m_document->openPreset("seed-compare"); // a first start: the classic, with its lesson
    documentChanged();
    updateTitle();
}

void MainWindow::restoreLayout(const Docks& docks)
{
    const QSize screenSize = screen()->availableGeometry().size();
    if (!restoreGeometry(m_settings->geometry())) // a projector: all of it (fitToScreen keeps the frame on it)
        resize(screenSize.width() < 1600 ? screenSize : screenSize * 0.9);
    const bool docksRestored = restoreState(m_settings->splitterState("docks"));
    // A layout saved on a larger screen: the side panels start at their first-start width, and
    // the window fits this screen (a dock half of a large screen leaves no room for the charts).
    if (const QSize saved = m_settings->savedScreen(); docksRestored && !saved.isEmpty()
        && (saved.width() > screenSize.width() || saved.height() > screenSize.height())) {
        QList<QDockWidget*> docked;
        for (QDockWidget* dock : findChildren<QDockWidget*>())
            if (!dock->isFloating())
                docked << dock;
        resizeDocks(docked, QList<int>(docked.size(), kDockWidth), Qt::Horizontal);
    }
    fitToScreen();
    m_restoredSize = size();
    if (!docksRestored && screenSize.width() < 1500) {
        // On a small screen (a 1280x720 projector) the charts need the width: the side panels
        // start closed (View > Panels) but the lesson and What happened, one above the other.
        for (QDockWidget* dock : {docks.lesson, docks.explain, docks.atScale, docks.traffic, docks.deck})
            dock->hide();
        if (!m_document->scenario().lesson.empty()) { // the lesson is what a first start is for
            docks.lesson->show();
            docks.explain->show();
        }
    }
    m_splitter->restoreState(m_settings->splitterState("main"));
    m_dashboard->restoreSplitter(m_settings->splitterState("dashboard"));
}

MainWindow::~MainWindow()
{
    // Presentation scales the application's font, which outlives this window: a window made
    // next would take the scaled font as its normal one and scale it again when it presents.
    if (m_presenting)
        QApplication::setFont(m_normalFont);
    // A box being edited ends its editing when it loses the focus, and the window's parts go one
    // by one from here on: its refusal or edit must not reach a document or banner already gone
    // (UBSan caught a refusal reaching this window half destroyed). The focus leaves it now,
    // silently.
    if (QWidget* w = QApplication::focusWidget(); w && isAncestorOf(w)) {
        const QSignalBlocker quiet(w);
        w->clearFocus();
    }
}

void MainWindow::fitToScreen()
{
    if (windowState() & (Qt::WindowMaximized | Qt::WindowFullScreen))
        return;
    // The frame is known once a window manager has framed the window; before, a title bar's and
    // borders' room.
    const QRect frame = frameGeometry(), inner = geometry();
    const QMargins margins = frame.size() == inner.size()
                                 ? QMargins(8, 40, 8, 8)
                                 : QMargins(inner.left() - frame.left(), inner.top() - frame.top(),
                                            frame.right() - inner.right(), frame.bottom() - inner.bottom());
    const QRect room = screen()->availableGeometry().marginsRemoved(margins);
    QRect g = inner;
    g.setSize(g.size().boundedTo(room.size()));
    g.moveLeft(std::clamp(g.left(), room.left(), std::max(room.left(), room.right() + 1 - g.width())));
    g.moveTop(std::clamp(g.top(), room.top(), std::max(room.top(), room.bottom() + 1 - g.height())));
    if (g != inner)
        setGeometry(g);
}

QDockWidget* MainWindow::addDock(const QString& title, const QString& name, QWidget* content, Qt::DockWidgetArea area)
{
    auto* dock = new QDockWidget(title, this);
    dock->setObjectName(name);
    dock->setWidget(content);
    dock->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetFloatable);
    addDockWidget(area, dock);
    return dock;
}

void MainWindow::openScenario(const Scenario& scenario) { m_document->reset(scenario); }

void MainWindow::documentChanged()
{
    if (m_document->revision() != m_refusedAt)
        m_banner->setRefusal({});
    const Scenario& s = m_document->scenario();
    // The preset's lesson was written for its settings: say so once they no longer match it.
    const bool forOriginal = m_document->differsFromPreset() && m_document->lessonIsPresets() && !s.lesson.empty();
    m_lesson->setLesson(QString::fromStdString(s.title), QString::fromStdString(s.lesson), forOriginal);
    m_playback->setClassroomSeconds(secondsAsDouble(s.playbackNanos));
    requestFrame();
}

void MainWindow::updateTitle()
{
    if (m_deck->isOpen()) { // a class: the deck and where it is
        setWindowTitle(tr("%1, step %2 of %3%4 — RateLab")
                           .arg(QString::fromStdString(m_deck->deck().title))
                           .arg(m_deck->index() + 1)
                           .arg(m_deck->count())
                           .arg(m_deck->isModified() ? "*" : ""));
        return;
    }
    setWindowTitle(m_document->displayName() + "[*] — RateLab");
    setWindowModified(m_document->isModified());
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (m_shown)
        return;
    m_shown = true;
    // Laid out and framed, the window fits the screen again: before the first show its minimum
    // width counted parts that give way once it has its width (the playback bar's sending
    // buttons), so a window saved on a larger screen could come back wider than this one. A size
    // set since it was made is the caller's, and stays.
    if (size() == m_restoredSize)
        QTimer::singleShot(0, this, &MainWindow::fitToScreen);
    // The first frame is built once, at the width of rows laid out for it while the window
    // settles (laid out later, inside requestFrame, they would not be at their final width yet).
    m_dashboard->charts()->prepareRows(rowCount(m_document->scenario()));
    QTimer::singleShot(0, this, [this] {
        m_dashboard->charts()->laidOutColumns();
        requestFrame();
    });
}

void MainWindow::requestFrame()
{
    if (!m_shown)
        return;
    // The first row ticked after none is laid out before its frame is asked for, so it is
    // reduced once, at that row's width.
    ChartStack* charts = m_dashboard->charts();
    const std::size_t rows = rowCount(m_document->scenario());
    const bool first = charts->rowCount() == 0 && rows != 0;
    if (first)
        charts->prepareRows(rows);
    try {
        m_pipeline->request(m_document->scenario(), m_requestedRange, first ? charts->laidOutColumns() : charts->columns());
    } catch (const std::exception& e) {
        showFrameError(QString::fromUtf8(e.what()));
    }
}

void MainWindow::showFrameError(const QString& why)
{
    // The last frame that could be built stays, greyed and saying so: never as if current.
    m_banner->setFrameError(why);
    m_dashboard->setStale(why);
}

void MainWindow::showFrame(std::shared_ptr<const Frame> shared)
{
    const Frame& frame = *shared;
    if (!frame.error.isEmpty()) {
        showFrameError(frame.error);
        return;
    }
    m_banner->setFrameError({});
    m_dashboard->setStale({});
    m_stage->setFrame(shared);
    m_playback->setTrace(frame.trace, frame.range);
    showPlayhead(m_playback->playhead());
    const auto n = frame.trace->arrivals.size();
    statusBar()->showMessage(QString("%1 request%2 · wheel to zoom, drag to pan, hover a mark for its decision")
                                 .arg(QLocale().toString(qulonglong(n)))
                                 .arg(n == 1 ? "" : "s"));
}

void MainWindow::showPlayhead(Nanos t)
{
    const Frame& frame = m_stage->frame();
    if (!frame.trace)
        return;
    Q_UNUSED(t);
    const Playhead at = m_playback->position();
    m_stage->setPlayhead(m_playback->atEnd() ? std::nullopt : std::optional<Playhead>(at));
    m_explain->show(frame.trace, at.shown);
}

bool MainWindow::inClass() const { return m_presenting || m_deck->isOpen(); }

QColor MainWindow::blankColour() const
{
    return m_blank && m_blank->isVisible() ? m_blank->palette().color(QPalette::Window) : QColor();
}

void MainWindow::updateClassKeys()
{
    const bool inClass = this->inClass();
    m_sendAction->setShortcut(inClass ? QKeySequence() : QKeySequence(Qt::CTRL | Qt::Key_R));
    m_burstAction->setShortcut(inClass ? QKeySequence() : QKeySequence(Qt::CTRL | Qt::Key_B));
    for (QAction* a : std::as_const(m_classActions))
        a->setEnabled(inClass);
    m_playback->setSendingShown(!m_presenting);
    if (!inClass)
        unblank();
}

bool MainWindow::typingHasTheKeys() const
{
    if (QApplication::activeModalWidget() || QApplication::activePopupWidget())
        return true;
    QWidget* focus = QApplication::focusWidget();
    if (!focus)
        return false;
    if (qobject_cast<QDialog*>(focus->window()))
        return true;
    if (auto* combo = qobject_cast<QComboBox*>(focus))
        return combo->isEditable();
    return qobject_cast<QLineEdit*>(focus) || qobject_cast<QAbstractSpinBox*>(focus)
           || qobject_cast<QTextEdit*>(focus) || qobject_cast<QPlainTextEdit*>(focus);
}

QString MainWindow::coverText() const { return blankColour().isValid() ? m_coverText->text() : QString(); }

void MainWindow::blank(const QColor& colour, const QString& text)
{
    if (!m_blank) {
        m_blank = new QWidget(this);
        m_blank->setObjectName("blankScreen");
        m_blank->setAutoFillBackground(true);
        m_coverText = new QLabel;
        m_coverText->setAlignment(Qt::AlignCenter);
        m_coverText->setWordWrap(true);
        QFont large = m_coverText->font();
        large.setPointSizeF(large.pointSizeF() * 1.6);
        m_coverText->setFont(large);
        auto* layout = new QVBoxLayout(m_blank);
        layout->addWidget(m_coverText);
    }
    QPalette p = m_blank->palette();
    p.setColor(QPalette::Window, colour);
    p.setColor(QPalette::WindowText, colour.lightness() < 128 ? Qt::white : Qt::black);
    m_blank->setPalette(p);
    m_coverText->setPalette(p);
    m_coverText->setText(text);
    m_blank->setGeometry(rect());
    m_blank->raise();
    m_blank->show();
    // Until uncovered, every key and click is the uncovering one: none reaches a shortcut.
    qApp->installEventFilter(this);
}

void MainWindow::unblank()
{
    if (!m_blank || m_blank->isHidden())
        return;
    m_blank->hide();
    qApp->removeEventFilter(this);
}

bool MainWindow::eventFilter(QObject* watched, QEvent* event)
{
    if (m_blank && m_blank->isVisible()) {
        switch (event->type()) {
        case QEvent::ShortcutOverride: // the key goes on as a key press, to uncover
            event->accept();
            return true;
        case QEvent::KeyPress:
            unblank();
            return true;
        case QEvent::MouseButtonPress:
            if (watched == m_blank || watched == m_coverText) {
                unblank();
                return true;
            }
            break;
        default:
            break;
        }
    }
    return QMainWindow::eventFilter(watched, event);
}

void MainWindow::resizeEvent(QResizeEvent* event)
{
    QMainWindow::resizeEvent(event);
    if (m_blank)
        m_blank->setGeometry(rect());
}

void MainWindow::keyPressEvent(QKeyEvent* event)
{
    // Enter is a clicker's and a slide program's "next"; it reaches the window only when the
    // widget with the focus did not use it, and a number box that did keeps it.
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && inClass()
        && !(event->modifiers() & ~Qt::KeypadModifier)) {
        if (!typingHasTheKeys())
            nextStep();
        event->accept();
        return;
    }
    QMainWindow::keyPressEvent(event);
}

void MainWindow::presentFrom(bool firstStep)
{
    if (firstStep && m_deck->isOpen())
        m_deck->goTo(0);
    setPresenting(true);
}

void MainWindow::setPresenting(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    m_presentAction->setChecked(on);
    updateClassKeys();
    // Presentation: full screen with only the charts and the lesson, type and marks scaled up.
    // Everything it hides or changes is noted first and put back exactly on leaving.
    if (on) {
        // What is set to show, not what is on screen: a window that starts presenting (--present)
        // has shown nothing yet, and Esc must bring back its status bar and panels all the same.
        m_beforePresenting = {saveState(), isMaximized(), isFullScreen(), menuBar()->isVisibleTo(this),
                              statusBar()->isVisibleTo(this), m_controlScroll->isVisibleTo(this),
                              m_dashboard->summary()->isVisibleTo(this), m_lessonDock->isVisibleTo(this)};
        QFont f = m_normalFont;
        f.setPointSizeF(f.pointSizeF() * 1.35);
        QApplication::setFont(f);
        for (QToolBar* bar : findChildren<QToolBar*>())
            bar->hide();
        for (QDockWidget* dock : findChildren<QDockWidget*>())
            dock->hide();
        menuBar()->hide();
        statusBar()->hide();
        m_controlScroll->hide();
        m_dashboard->summary()->hide();
        if (!m_document->scenario().lesson.empty()) {
            m_lessonDock->show();
            m_lessonDock->raise();
        }
        m_lesson->setLarge(true);
        // The keys drive the class: no text box keeps them, and Tab never lands on a playback
        // button that Space would then press.
        m_buttonFocus.clear();
        for (QAbstractButton* b : m_playback->findChildren<QAbstractButton*>()) {
            m_buttonFocus.append({b, b->focusPolicy()});
            b->setFocusPolicy(Qt::NoFocus);
        }
        m_dashboard->setFocus();
        showFullScreen();
    } else {
        QApplication::setFont(m_normalFont);
        m_lesson->setLarge(false);
        for (const auto& [button, policy] : m_buttonFocus)
            button->setFocusPolicy(policy);
        menuBar()->setVisible(m_beforePresenting.menuBar);
        statusBar()->setVisible(m_beforePresenting.statusBar);
        m_controlScroll->setVisible(m_beforePresenting.controls);
        m_dashboard->summary()->setVisible(m_beforePresenting.summary);
        restoreState(m_beforePresenting.state); // toolbars and docks as they were
        if (m_beforePresenting.fullScreen)
            showFullScreen();
        else if (m_beforePresenting.maximized)
            showMaximized();
        else
            showNormal();
    }
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    if (!m_decks->maybeKeep()) { // an edited deck is never lost without asking
        event->ignore();
        return;
    }
    if (m_presenting)
        setPresenting(false);
    m_settings->setGeometry(saveGeometry());
    m_settings->setSavedScreen(screen()->availableGeometry().size());
    m_settings->setSplitterState("docks", saveState());
    m_settings->setSplitterState("main", m_splitter->saveState());
    m_settings->setSplitterState("dashboard", m_dashboard->splitter()->saveState());
    m_settings->setLastDocument({m_document->scenario(), m_document->filePath(), m_document->presetId(), m_document->isModified()});
    event->accept();
}

} // namespace ratelab::ui
