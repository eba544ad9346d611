// MainWindow's menus and the dialogs they open: File (the document's and the deck's actions),
// Edit, View, Playback (the keys a presenter and a clicker use, on the window so that they work
// with the menu bar hidden), Help. The window's wiring is in mainwindow.cpp.
#include "window/mainwindow.h"

#include "chart/chartstack.h"
#include "chart/dashboard.h"
#include "chart/theme.h"
#include "limiters/algorithm_facts.h"
#include "model/deckplayer.h"
#include "model/scenariodocument.h"
#include "model/settings.h"
#include "panels/controlpanel.h"
#include "panels/lessonpanel.h"
#include "panels/playbackbar.h"
#include "panels/dryrunview.h"
#include "panels/trafficpanel.h"
#include "window/deckactions.h"
#include "window/documentactions.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QFormLayout>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>

namespace ratelab::ui {
void MainWindow::createMenus()
{
    createFileMenu();
    createEditMenu();
    QAction* reset = createViewMenu();
    createPlaybackMenu();
    createHelpMenu();

    QToolBar* bar = addToolBar(tr("Main"));
    bar->setObjectName("mainToolBar");
    bar->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
    // Qt's own button for the tools a narrow window has no room for has no name of its own.
    if (auto* more = bar->findChild<QToolButton*>("qt_toolbar_ext_button"))
        more->setAccessibleName(tr("More tools"));
    bar->addAction(m_documents->exportImageAction());
    bar->addAction(m_documents->copyImageAction());
    bar->addSeparator();
    bar->addAction(reset);
    bar->addAction(m_presentAction);
}

void MainWindow::createFileMenu()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    m_documents->fillMenu(file);
    file->addSeparator();
    m_decks->fillMenu(file);
    file->addAction(tr("Open &Traffic Log…"), this, [this] {
        QDockWidget* dock = findChild<QDockWidget*>("trafficDock");
        dock->show();
        dock->raise();
        m_traffic->chooseLog();
    });
    file->addAction(tr("Advise a &Limit from the Log…"), m_traffic, &TrafficPanel::showAdvice);
    // The Traffic panel's dry run, as `ratelab replay --config --html` writes it.
    QAction* dryRunPage = file->addAction(tr("Export dry run as web page\u2026"), this, [this] {
        if (const DryRunReport* report = m_traffic->dryRun()->report())
            m_documents->exportDryRunPage(*report);
    });
    dryRunPage->setToolTip(tr("The Traffic panel's dry run as one web page: what was not replayed, the rules, their "
                              "denials by hour, the top keys and the diff"));
    const auto enable = [this, dryRunPage] { dryRunPage->setEnabled(m_traffic->dryRun()->report() != nullptr); };
    connect(m_traffic->dryRun(), &DryRunView::finished, dryRunPage, enable);
    enable();
    file->addSeparator();
    file->addAction(tr("&Quit"), this, &QWidget::close)->setShortcut(QKeySequence::Quit);

}

void MainWindow::createEditMenu()
{
    QMenu* edit = menuBar()->addMenu(tr("&Edit"));
    QAction* undo = m_document->undoStack()->createUndoAction(this, tr("&Undo"));
    undo->setShortcut(QKeySequence::Undo);
    edit->addAction(undo);
    QAction* redo = m_document->undoStack()->createRedoAction(this, tr("&Redo"));
    redo->setShortcut(QKeySequence::Redo);
    edit->addAction(redo);

}

// createViewMenu returns its "Zoom to activity" action, which the tool bar shows too.
QAction* MainWindow::createViewMenu()
{
    QMenu* view = menuBar()->addMenu(tr("&View"));
    ChartStack* charts = m_dashboard->charts();
    QAction* zoomIn = view->addAction(tr("Zoom &in"), this, [charts] {
        const TimeRange r = charts->range();
        charts->zoom(secondsAsDouble(r.from + (r.to - r.from) / 2), 0.5);
    });
    zoomIn->setShortcut(QKeySequence::ZoomIn);
    QAction* zoomOut = view->addAction(tr("Zoom &out"), this, [charts] {
        const TimeRange r = charts->range();
        charts->zoom(secondsAsDouble(r.from + (r.to - r.from) / 2), 2.0);
    });
    zoomOut->setShortcut(QKeySequence::ZoomOut);
    QAction* reset = view->addAction(QIcon::fromTheme("zoom-fit-best"), tr("Zoom to &activity"), charts, &ChartStack::resetZoom);
    reset->setShortcut(QKeySequence("Ctrl+0"));
    reset->setToolTip(tr("Frame the requests and the recovery after them (Ctrl+0); zoom with the wheel or Shift+drag, pan by dragging"));
    view->addSeparator();
    QMenu* panels = view->addMenu(tr("Pa&nels"));
    for (QDockWidget* dock : findChildren<QDockWidget*>())
        panels->addAction(dock->toggleViewAction());
    QAction* present = view->addAction(tr("&Presentation mode"), this, &MainWindow::setPresenting);
    present->setCheckable(true);
    present->setShortcut(QKeySequence(Qt::Key_F11));
    m_presentAction = present;
    // Esc leaves presentation mode; the window has no menu bar to find the way out then.
    auto* leave = new QAction(this);
    leave->setShortcut(QKeySequence(Qt::Key_Escape));
    connect(leave, &QAction::triggered, this, [this] { setPresenting(false); });
    addAction(leave);
    addAction(present); // F11 works with the menu bar hidden too
    // F5 and Shift+F5 start a slide show in slide programs, and clickers send them: presenting
    // from the deck's first step, or from the step shown.
    QAction* fromStart = view->addAction(tr("Present from the &first step"), this, [this] { presentFrom(true); });
    fromStart->setShortcut(QKeySequence(Qt::Key_F5));
    QAction* fromHere = view->addAction(tr("Present from this step"), this, [this] { presentFrom(false); });
    fromHere->setShortcut(QKeySequence(Qt::SHIFT | Qt::Key_F5));
    addAction(fromStart);
    addAction(fromHere);
    QMenu* themes = view->addMenu(tr("&Theme"));
    auto* themeGroup = new QActionGroup(this);
    for (Theme t : {Theme::Light, Theme::Dark}) {
        QAction* a = themes->addAction(t == Theme::Light ? tr("&Light") : tr("&Dark"), this, [this, t] {
            applyTheme(t);
            m_settings->setTheme(themeId(t));
        });
        a->setCheckable(true);
        a->setChecked(themeId(t) == m_settings->theme());
        themeGroup->addAction(a);
    }

    return reset;
}

void MainWindow::createPlaybackMenu()
{
    // The playback keys belong to the window, not only to the menu: presentation mode hides the
    // menu bar, and a presenter's clicker sends PageDown and PageUp. A text box with the focus
    // keeps the keys it edits with (Space, letters, arrows, Home, End): QLineEdit claims them
    // before a shortcut sees them, so typing in a box never plays, steps or sends a request.
    const auto windowKeys = [this](QAction* a, const QList<QKeySequence>& keys) {
        a->setShortcuts(keys);
        addAction(a);
    };
    QMenu* play = menuBar()->addMenu(tr("&Playback"));
    windowKeys(play->addAction(tr("&Play / pause"), m_playback, &PlaybackBar::togglePlay), {Qt::Key_Space});
    // Right and Left step the playback; with a deck open, Right at the end of a step's playback
    // reveals or goes on to the next step, and Left at its start goes back a step.
    windowKeys(play->addAction(tr("Step &forward"), this, [this] {
                   if (m_deck->isOpen() && m_playback->atEnd())
                       nextStep();
                   else
                       m_playback->stepForward();
               }),
               {Qt::Key_Right});
    windowKeys(play->addAction(tr("Step &back"), this, [this] {
                   if (m_deck->isOpen() && m_playback->shownRequests() == 0)
                       previousStep();
                   else
                       m_playback->stepBack();
               }),
               {Qt::Key_Left});
    windowKeys(play->addAction(tr("&Next deck step (or reveal)"), this, &MainWindow::nextStep), {Qt::Key_PageDown});
    // Enter goes on as PageDown does (keyPressEvent: a number box keeps its Enter).
    windowKeys(play->addAction(tr("P&revious deck step"), this, &MainWindow::previousStep), {Qt::Key_PageUp});
    windowKeys(play->addAction(tr("Go to the &start"), m_playback, &PlaybackBar::goToStart), {Qt::Key_Home});
    windowKeys(play->addAction(tr("Show &everything"), this, [this] { m_playback->setPlayhead(kMaxNanos); }), {Qt::Key_End});
    addClassKeys(play);
    play->addSeparator();
    // Sending requests changes the scenario: its keys take Ctrl, so text typed into the window
    // (a path meant for a dialog that did not open) never sends any; while a class runs they
    // send nothing from the keyboard at all (updateClassKeys), the step's question is about the
    // traffic it shows.
    m_sendAction = play->addAction(tr("Send a re&quest at the playhead"), this,
                                   [this] { m_controls->addRequests(m_playback->playhead(), 1); });
    m_burstAction = play->addAction(tr("Send a b&urst at the playhead"), this,
                                    [this] { m_controls->addRequests(m_playback->playhead(), m_playback->burstSize()); });
    addAction(m_sendAction);
    addAction(m_burstAction);
    play->addAction(tr("&Clear requests sent by hand"), m_controls, &ControlPanel::clearAddedRequests);

}

// addClassKeys adds the keys that act only while a class runs: scrolling the lesson, blanking the
// screen.
void MainWindow::addClassKeys(QMenu* play)
{
    // Up and Down scroll the lesson while a class runs (a slider or list with the focus would
    // otherwise take them and change the scenario); PageDown and PageUp page it first when it is
    // longer than its panel, so a clicker reads a long lesson to its end.
    m_classActions << play->addAction(tr("Scroll the lesson down"), this, [this] { m_lesson->scrollBy(1); });
    m_classActions.last()->setShortcut(Qt::Key_Down);
    m_classActions << play->addAction(tr("Scroll the lesson up"), this, [this] { m_lesson->scrollBy(-1); });
    m_classActions.last()->setShortcut(Qt::Key_Up);
    // The keys of slide programs and of the clickers made for them: b or . blank the screen to
    // black, w or , to white; any key then uncovers it. They act only while a class runs, and never
    // while a text field has the keys (a typed "b" is a letter there).
    m_classActions << play->addAction(tr("Blank the screen to black"), this, [this] {
        if (!typingHasTheKeys())
            blank(Qt::black);
    });
    m_classActions.last()->setShortcuts({Qt::Key_B, Qt::Key_Period});
    m_classActions << play->addAction(tr("Blank the screen to white"), this, [this] {
        if (!typingHasTheKeys())
            blank(Qt::white);
    });
    m_classActions.last()->setShortcuts({Qt::Key_W, Qt::Key_Comma});
    for (QAction* a : std::as_const(m_classActions))
        addAction(a);
}

void MainWindow::createHelpMenu()
{
    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&Keyboard and mouse"), this, &MainWindow::showShortcuts)->setShortcut(QKeySequence::HelpContents);
    help->addAction(tr("The a&lgorithms"), this, &MainWindow::showAlgorithms);
    help->addSeparator();
    help->addAction(tr("&About RateLab"), this, [this] {
        QMessageBox::about(this, tr("About RateLab"),
                           tr("<b>RateLab %1</b><p>Rate limiters side by side over the same simulated traffic, with "
                              "exact integer-nanosecond arithmetic.</p><p>The behaviour of every limiter follows "
                              "semantics.md; the command line (<tt>ratelab --help</tt>) gives the same numbers.</p>")
                               .arg(QApplication::applicationVersion()));
    });

}

void MainWindow::nextStep()
{
    if (inClass() && m_lesson->isVisible() && m_lesson->scrollBy(1, true))
        return; // the rest of a long lesson first
    if (!m_deck->isOpen())
        m_playback->stepForward();
    else if (!m_deck->next()) // past the last step: a visible end, as a slide show ends
        blank(Qt::black, (m_presenting ? tr("End of the deck \u201c%1\u201d\n\nAny key goes back to its last step; "
                                            "Esc then leaves presentation mode")
                                       : tr("End of the deck \u201c%1\u201d\n\nAny key goes back to its last step"))
                             .arg(QString::fromStdString(m_deck->deck().title)));
}

void MainWindow::previousStep()
{
    if (inClass() && m_lesson->isVisible() && m_lesson->scrollBy(-1, true))
        return;
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
               "<tr><td><b>Enter</b></td><td>As PageDown, while presenting or with a deck open</td></tr>"
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

} // namespace ratelab::ui
