#include "window/mainwindow.h"
#include "panels/trafficpanel.h"

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
    QDockWidget* lessonDock = addDock("Lesson", "lessonDock", m_lesson, Qt::RightDockWidgetArea);
    QDockWidget* explainDock = addDock("What happened", "explainDock", m_explain, Qt::RightDockWidgetArea);
    // One column of side panels: the lesson above, What happened below it (both seen at once, the
    // story and the request it is at), the other panels as tabs beside What happened.
    splitDockWidget(lessonDock, explainDock, Qt::Vertical);
    QDockWidget* atScaleDock = addDock("At scale", "atScaleDock", new AtScalePanel(m_document), Qt::RightDockWidgetArea);
    tabifyDockWidget(explainDock, atScaleDock);
    m_traffic = new TrafficPanel(m_document); // issue 22: a real access log, its keys and a sweep
    QDockWidget* trafficDock = addDock(tr("Traffic"), "trafficDock", m_traffic, Qt::RightDockWidgetArea);
    tabifyDockWidget(atScaleDock, trafficDock);
    QDockWidget* deckDock = addDock(tr("Deck"), "deckDock", new DeckPanel(m_deck, m_document), Qt::RightDockWidgetArea);
    tabifyDockWidget(trafficDock, deckDock);
    lessonDock->raise();
    explainDock->raise();
    resizeDocks({lessonDock}, {kDockWidth}, Qt::Horizontal);
    m_lessonDock = lessonDock;
    m_documents = new DocumentActions(this, *m_settings, m_dashboard, m_document);
    m_decks = new DeckActions(this, m_deck, m_document, m_stage, m_lesson);
    createMenus();
    // The status bar exists from the start, shown with the window: made later (by the first
    // message), it would still be hidden when --present notes what to restore on Esc.
    statusBar();

    connect(m_document, &ScenarioDocument::changed, this, &MainWindow::documentChanged);
    connect(m_document, &ScenarioDocument::identityChanged, this, &MainWindow::updateTitle);
    // A refusal stays in the banner until the document changes again (the cause is then gone).
    connect(m_document, &ScenarioDocument::refused, this, [this](const QString& why) {
        m_refusedAt = m_document->revision();
        m_banner->setRefusal(why);
    });
    connect(m_document, &ScenarioDocument::modifiedChanged, this, &MainWindow::updateTitle);
    connect(m_document, &ScenarioDocument::identityChanged, this, [this] {
        // A newly opened scenario shows its own lesson and the whole of its traffic.
        const Scenario& s = m_document->scenario();
        if (!s.lesson.empty()) {
            m_lessonDock->show();
            m_lessonDock->raise();
        }
        m_requestedRange = {};
    });
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
    // A deck's step: its span framed, its request pinned, its decisions hidden until revealed.
    connect(m_decks, &DeckActions::rangeRequested, this, [this](TimeRange range) {
        m_requestedRange = range;
        requestFrame();
    });
    connect(m_decks, &DeckActions::pinRequested, this, [this, explainDock](std::optional<std::size_t> i) {
        m_dashboard->charts()->setPinned(i);
        m_explain->pin(i);
        if (i && !m_presenting) {
            explainDock->show();
            explainDock->raise();
        }
    });
    connect(m_decks, &DeckActions::status, this, [this](const QString& m) { statusBar()->showMessage(m, 8000); });
    connect(m_stage, &Stage::veilChanged, this, [this] { m_explain->setVeiled(m_stage->veiled()); });
    connect(m_deck, &DeckPlayer::opened, this, [this, deckDock] {
        if (m_presenting)
            return;
        deckDock->show();
        deckDock->raise();
        m_lessonDock->show();
        // The step's words and question are what the class reads: the lesson gets most of the
        // column, once the window is laid out (a deck opened at start comes before the show).
        QTimer::singleShot(0, this, [this] {
            if (!m_presenting)
                resizeDocks({m_lessonDock}, {height() * 3 / 5}, Qt::Vertical);
        });
    });
    connect(m_deck, &DeckPlayer::deckChanged, this, &MainWindow::updateTitle);
    connect(m_deck, &DeckPlayer::stepChanged, this, &MainWindow::updateTitle);
    connect(m_lesson, &LessonPanel::editRequested, this, &MainWindow::editTitleAndLesson);
    connect(m_dashboard->charts(), &ChartStack::pinned, this, [this, explainDock](std::optional<std::size_t> i) {
        m_explain->pin(i);
        if (i) {
            explainDock->show();
            explainDock->raise();
        }
    });
    connect(m_playback, &PlaybackBar::playheadChanged, this, &MainWindow::showPlayhead);
    connect(m_playback, &PlaybackBar::sendRequested, m_controls, &ControlPanel::addRequests);
    connect(m_documents, &DocumentActions::status, this, [this](const QString& m) { statusBar()->showMessage(m, 6000); });
    connect(m_documents, &DocumentActions::imported, this, [this] {
        m_lessonDock->show(); // the explanation is the imported scenario's lesson
        m_lessonDock->raise();
        m_requestedRange = {};
    });

    applyTheme(themeFromId(m_settings->theme()));
    if (const auto last = m_settings->lastDocument())
        m_document->reset(last->scenario, last->filePath, last->presetId, last->modified);
    else
        m_document->openPreset("seed-compare"); // a first start: the classic, with its lesson
    documentChanged();
    updateTitle();
    const QSize screenSize = screen()->availableGeometry().size();
    if (!restoreGeometry(m_settings->geometry())) // a projector: all of it (fitToScreen keeps the frame on it)
        resize(screenSize.width() < 1600 ? screenSize : screenSize * 0.9);
    const bool docksRestored = restoreState(m_settings->splitterState("docks"));
    // A layout saved on a larger screen: the side panels start at their first-start width, and
    // the window fits this screen (a dock half of a large screen leaves no room for the charts).
    if (const QSize saved = m_settings->savedScreen(); docksRestored && !saved.isEmpty()
        && (saved.width() > screenSize.width() || saved.height() > screenSize.height())) {
        QList<QDockWidget*> docks;
        for (QDockWidget* dock : findChildren<QDockWidget*>())
            if (!dock->isFloating())
                docks << dock;
        resizeDocks(docks, QList<int>(docks.size(), kDockWidth), Qt::Horizontal);
    }
    fitToScreen();
    if (!docksRestored && screenSize.width() < 1500) {
        // On a small screen (a 1280x720 projector) the charts need the width: the side panels
        // start closed (View > Panels) but the lesson and What happened, one above the other.
        for (QDockWidget* dock : {lessonDock, explainDock, atScaleDock, trafficDock, deckDock})
            dock->hide();
        if (!m_document->scenario().lesson.empty()) { // the lesson is what a first start is for
            lessonDock->show();
            explainDock->show();
        }
    }
    m_splitter->restoreState(m_settings->splitterState("main"));
    m_dashboard->restoreSplitter(m_settings->splitterState("dashboard"));
    requestFrame();
}

MainWindow::~MainWindow()
{
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
    // The lesson was written for the preset: say so once the settings no longer match it.
    const Scenario& original = s;
    const bool forOriginal = m_document->differsFromPreset() && !original.lesson.empty();
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

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu("&File");
    m_documents->fillMenu(file);
    file->addSeparator();
    m_decks->fillMenu(file);
    file->addAction(tr("Open &Traffic Log…"), this, [this] {
        QDockWidget* dock = findChild<QDockWidget*>("trafficDock");
        dock->show();
        dock->raise();
        m_traffic->chooseLog();
    });
    file->addSeparator();
    file->addAction("&Quit", this, &QWidget::close)->setShortcut(QKeySequence::Quit);

    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    edit->addAction(undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(redo);

    QMenu* view = menuBar()->addMenu("&View");
    ChartStack* charts = m_dashboard->charts();
    QAction* zoomIn = view->addAction("Zoom &in", this, [charts] {
        const TimeRange r = charts->range();
        charts->zoom(secondsAsDouble(r.from + (r.to - r.from) / 2), 0.5);
    });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction("Zoom &out", this, [charts] {
        const TimeRange r = charts->range();
        charts->zoom(secondsAsDouble(r.from + (r.to - r.from) / 2), 2.0);
    });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* reset = view->addAction(QIcon::fromTheme("zoom-fit-best"), tr("Zoom to &activity"), charts, &ChartStack::resetZoom);
    reset->setShortcut(QKeySequence("Ctrl+0"));
    reset->setToolTip(tr("Frame the requests and the recovery after them (Ctrl+0); zoom with the wheel or Shift+drag, pan by dragging"));
    view->addSeparator();
    QMenu* panels = view->addMenu("Pa&nels");
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        panels->addAction(dock->toggleViewAction());
    QAction* present = view->addAction("&Presentation mode", this, &MainWindow::setPresenting);
    present->setCheckable(true);
    present->setShortcut(QKeySequence(Qt::Key_F11));
    m_presentAction = present;
    // Esc leaves presentation mode; the window has no menu bar to find the way out then.
    auto* leave = new QAction(this);
    leave->setShortcut(QKeySequence(Qt::Key_Escape));
    connect(leave, &QAction::triggered, this, [this] { setPresenting(false); });
    addAction(leave);
    addAction(present); // F11 works with the menu bar hidden too
    QMenu* themes = view->addMenu("&Theme");
    auto* themeGroup = new QActionGroup(this);
    for (Theme t : {Theme::Light, Theme::Dark}) {
        QAction* a = themes->addAction(t == Theme::Light ? "&Light" : "&Dark", this, [this, t] {
            applyTheme(t);
            m_settings->setTheme(themeId(t));
        });
        a->setCheckable(true);
        a->setChecked(themeId(t) == m_settings->theme());
        themeGroup->addAction(a);
    }

    // The playback keys belong to the window, not only to the menu: presentation mode hides the
    // menu bar, and a presenter's clicker sends PageDown and PageUp. A text box with the focus
    // keeps the keys it edits with (Space, letters, arrows, Home, End): QLineEdit claims them
    // before a shortcut sees them, so typing in a box never plays, steps or sends a request.
    const auto windowKeys = [this](QAction* a, const QList<QKeySequence>& keys) {
        a->setShortcuts(keys);
        addAction(a);
    };
    QMenu* play = menuBar()->addMenu("&Playback");
    windowKeys(play->addAction("&Play / pause", m_playback, &PlaybackBar::togglePlay), {Qt::Key_Space});
    // Right and Left step the playback; with a deck open, Right at the end of a step's playback
    // reveals or goes on to the next step, and Left at its start goes back a step.
    windowKeys(play->addAction("Step &forward", this, [this] {
                   if (m_deck->isOpen() && m_playback->atEnd())
                       nextStep();
                   else
                       m_playback->stepForward();
               }),
               {Qt::Key_Right});
    windowKeys(play->addAction("Step &back", this, [this] {
                   if (m_deck->isOpen() && m_playback->shownRequests() == 0)
                       previousStep();
                   else
                       m_playback->stepBack();
               }),
               {Qt::Key_Left});
    windowKeys(play->addAction(tr("&Next deck step (or reveal)"), this, &MainWindow::nextStep), {Qt::Key_PageDown});
    windowKeys(play->addAction(tr("P&revious deck step"), this, &MainWindow::previousStep), {Qt::Key_PageUp});
    windowKeys(play->addAction(tr("Go to the &start"), m_playback, &PlaybackBar::goToStart), {Qt::Key_Home});
    windowKeys(play->addAction("Show &everything", this, [this] { m_playback->setPlayhead(kMaxNanos); }), {Qt::Key_End});
    play->addSeparator();
    windowKeys(play->addAction("&Send a request at the playhead", this,
                               [this] { m_controls->addRequests(m_playback->playhead(), 1); }),
               {Qt::Key_R});
    windowKeys(play->addAction("Send a b&urst at the playhead", this,
                               [this] { m_controls->addRequests(m_playback->playhead(), m_playback->burstSize()); }),
               {Qt::Key_B});
    play->addAction("&Clear requests sent by hand", m_controls, &ControlPanel::clearAddedRequests);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard and mouse"), this, &MainWindow::showShortcuts)->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("The &algorithms"), this, &MainWindow::showAlgorithms);
    help->addSeparator();
    help->addAction(tr("&About RateLab"), this, [this] {
        QMessageBox::about(this, tr("About RateLab"),
                           tr("<b>RateLab %1</b><p>Rate limiters side by side over the same simulated traffic, with "
                              "exact integer-nanosecond arithmetic.</p><p>The behaviour of every limiter follows "
                              "semantics.md; the command line (<tt>ratelab --help</tt>) gives the same numbers.</p>")
                               .arg(QApplication::applicationVersion()));
    });

    QToolBar* bar = addToolBar("Main");
    bar->setObjectName("mainToolBar");
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    bar->addAction(m_documents->exportImageAction());
    bar->addAction(m_documents->copyImageAction());
    bar->addSeparator();
    bar->addAction(reset);
    bar->addAction(present);
}

void MainWindow::nextStep()
{
    if (!m_deck->isOpen())
        m_playback->stepForward();
    else if (!m_deck->next())
        statusBar()->showMessage(tr("The last step of the deck"), 4000);
}

void MainWindow::previousStep()
{
    if (!m_deck->isOpen())
        m_playback->stepBack();
    else if (!m_deck->previous())
        statusBar()->showMessage(tr("The first step of the deck"), 4000);
}

void MainWindow::editTitleAndLesson()
{
    QDialog dialog(this);
    dialog.setWindowTitle(tr("Title and lesson"));
    auto* title = new QLineEdit(QString::fromStdString(m_document->scenario().title));
    auto* lesson = new QPlainTextEdit(QString::fromStdString(m_document->scenario().lesson));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
    connect(buttons, &QDialogButtonBox::accepted, &dialog, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
    auto* form = new QFormLayout(&dialog);
    form->addRow(tr("&Title"), title);
    form->addRow(tr("&Lesson"), lesson);
    form->addRow(buttons);
    dialog.resize(520, 320);
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_document->change(tr("Title and lesson"), [&](Scenario& s) {
        s.title = title->text().toStdString();
        s.lesson = lesson->toPlainText().toStdString();
    });
}

void MainWindow::showShortcuts()
{
    // Read from the actions themselves, so the sheet is never out of date.
    QString rows;
    for (QMenu* menu : menuBar()->findChildren<QMenu*>()) {
        for (QAction* a : menu->actions()) {
            if (a->shortcut().isEmpty())
                continue;
            QStringList keys;
            for (const QKeySequence& k : a->shortcuts())
                keys << k.toString(QKeySequence::NativeText);
            rows += QString("<tr><td style='padding-right:16px'><b>%1</b></td><td>%2</td></tr>")
                        .arg(keys.join(tr(" or ")).toHtmlEscaped(),
                             a->text().remove('&').remove(QChar(0x2026)).toHtmlEscaped());
        }
    }
    rows += tr("<tr><td><b>Esc</b></td><td>Leave presentation mode</td></tr>"
               "<tr><td><b>Wheel</b></td><td>Zoom the time axis around the pointer</td></tr>"
               "<tr><td><b>Drag</b></td><td>Pan</td></tr>"
               "<tr><td><b>Shift+drag</b></td><td>Zoom to the span dragged over</td></tr>"
               "<tr><td><b>Click a mark</b></td><td>Pin that request: highlighted in every row, explained in What happened</td></tr>"
               "<tr><td><b>Hover a mark</b></td><td>That request's decision</td></tr>");
    QMessageBox box(QMessageBox::NoIcon, tr("Keyboard and mouse"), "<table>" + rows + "</table>", QMessageBox::Close, this);
    box.exec();
}

void MainWindow::showAlgorithms()
{
    QString html;
    for (const AlgorithmFacts& f : algorithmFacts())
        html += QString("<h3>%1</h3><p>%2</p><p><i>%3</i></p>")
                    .arg(QString::fromUtf8(f.title.data(), qsizetype(f.title.size())).toHtmlEscaped(),
                         QString::fromUtf8(f.summary.data(), qsizetype(f.summary.size())).toHtmlEscaped(),
                         tr("Reads %1; its chart shows %2, with the %3 dashed.")
                             .arg(f.reads == ConfigUse::LimitWindow ? tr("the limit and the window") : tr("the capacity and the rate"),
                                  QString::fromUtf8(f.levelUnit.data(), qsizetype(f.levelUnit.size())),
                                  QString::fromUtf8(f.ceilingName.data(), qsizetype(f.ceilingName.size()))));
    QMessageBox box(QMessageBox::NoIcon, tr("The algorithms"), html, QMessageBox::Close, this);
    box.exec();
}

void MainWindow::showEvent(QShowEvent* event)
{
    QMainWindow::showEvent(event);
    if (m_shown)
        return;
    m_shown = true;
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

void MainWindow::setPresenting(bool on)
{
    if (on == m_presenting)
        return;
    m_presenting = on;
    m_presentAction->setChecked(on);
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
