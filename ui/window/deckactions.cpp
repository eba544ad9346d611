#include "window/deckactions.h"

#include "model/deckplayer.h"
#include "model/scenariodocument.h"
#include "model/stage.h"
#include "panels/lessonpanel.h"
#include "window/handout.h"
#include "window/webpage.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>

namespace ratelab::ui {

namespace {

const char* const kDeckFilter = "RateLab decks (*.ratelab-deck.json *.json);;All files (*)";

} // namespace

DeckActions::DeckActions(QWidget* window, DeckPlayer* player, ScenarioDocument* document, Stage* stage, LessonPanel* lesson)
    : QObject(window)
    , m_window(window)
    , m_player(player)
    , m_document(document)
    , m_stage(stage)
    , m_lesson(lesson)
{
    connect(m_player, &DeckPlayer::stepChanged, this, &DeckActions::showStep);
    connect(m_player, &DeckPlayer::revealedChanged, this, &DeckActions::showReveal);
    connect(m_player, &DeckPlayer::deckChanged, this, &DeckActions::showReveal);
}

void DeckActions::fillMenu(QMenu* file)
{
    QAction* open = file->addAction(tr("Open &deck\u2026"), this, [this] {
        if (!maybeKeep())
            return;
        const QString p = QFileDialog::getOpenFileName(m_window, tr("Open deck"), QDir::homePath(), tr(kDeckFilter));
        if (!p.isEmpty())
            openDeck(p);
    });
    open->setShortcut(QKeySequence("Ctrl+Shift+O"));
    open->setToolTip(tr("A class in one file: steps of scenarios with their narrative and questions"));
    QMenu* decks = file->addMenu(tr("Dec&ks"));
    for (const QString& id : io::shippedDecks()) {
        const io::DeckLoad load = io::loadDeckFile(id);
        decks->addAction(load.deck ? QString::fromStdString(load.deck->title) : id, this, [this, id] {
            if (maybeKeep())
                openDeck(id);
        });
    }
    QAction* save = file->addAction(tr("Save deck"), this, [this] {
        if (m_player->path().isEmpty() || m_player->path().startsWith(":/") || io::shippedDecks().contains(m_player->path()))
            saveAs();
        else
            saveDeckTo(m_player->path());
    });
    QAction* saveAs = file->addAction(tr("Save deck as\u2026"), this, &DeckActions::saveAs);
    const std::vector<QAction*> exports = addExportActions(file);
    QAction* close = file->addAction(tr("Close deck"), this, [this] {
        if (maybeKeep())
            m_player->close();
    });
    const auto enable = [this, save, saveAs, exports, close] {
        for (QAction* a : {save, saveAs, close})
            a->setEnabled(m_player->isOpen());
        for (QAction* a : exports)
            a->setEnabled(m_player->isOpen());
    };
    connect(m_player, &DeckPlayer::deckChanged, this, enable);
    enable();
}

std::vector<QAction*> DeckActions::addExportActions(QMenu* file)
{
    // Each handout, a PDF to print or a web page to share, with its answers or for before the class.
    const auto ask = [this](bool answers, bool page) {
        const QString name = QString(answers ? "handout" : "questions") + (page ? ".html" : ".pdf");
        const QString p = QFileDialog::getSaveFileName(m_window, page ? tr("Export deck as web page") : tr("Export deck handout"),
                                                       QDir(QDir::homePath()).filePath(name),
                                                       page ? tr("Web page (*.html)") : tr("PDF (*.pdf)"));
        if (!p.isEmpty())
            (void)(page ? exportPage(p, answers) : exportHandout(p, answers));
    };
    return {file->addAction(tr("Export deck &handout (PDF)\u2026"), this, [ask] { ask(true, false); }),
            file->addAction(tr("Export deck q&uestions, without answers (PDF)\u2026"), this, [ask] { ask(false, false); }),
            file->addAction(tr("Export deck as web page\u2026"), this, [ask] { ask(true, true); }),
            file->addAction(tr("Export deck questions as web page, without answers\u2026"), this, [ask] { ask(false, true); })};
}

bool DeckActions::exportPage(const QString& path, bool answers)
{
    // What `ratelab deck DECK --html` writes (--no-answers without the answers).
    QString error;
    try {
        error = writePage(deckPage(m_player->deck(), QSize(1280, 720), answers), path);
    } catch (const std::exception& e) {
        error = QString::fromUtf8(e.what());
    }
    if (!error.isEmpty()) {
        QMessageBox::warning(m_window, tr("Export deck as web page"), error);
        return false;
    }
    emit status(tr("Wrote the deck's page, %1 steps, to %2").arg(m_player->count()).arg(path));
    return true;
}

bool DeckActions::openDeck(const QString& pathOrId)
{
    const io::DeckLoad load = io::loadDeckFile(pathOrId);
    if (!load.deck) {
        QMessageBox::warning(m_window, tr("Open deck"), tr("The deck could not be opened.\n\n%1").arg(load.error));
        return false;
    }
    m_player->open(*load.deck, pathOrId);
    emit status(tr("Deck \u201c%1\u201d: %2 steps. PageDown: next step (or reveal), PageUp: back")
                    .arg(QString::fromStdString(load.deck->title))
                    .arg(load.deck->steps.size()));
    return true;
}

bool DeckActions::saveDeckTo(const QString& path)
{
    if (const QString error = m_player->save(path); !error.isEmpty()) {
        QMessageBox::warning(m_window, tr("Save deck"), error);
        return false;
    }
    emit status(tr("Saved the deck to %1").arg(path));
    return true;
}

void DeckActions::saveAs()
{
    const QString current = m_player->path();
    const QString name = QFileInfo(current).fileName().isEmpty() || current.startsWith(":/") || !current.contains('/')
                             ? "lesson.ratelab-deck.json"
                             : QFileInfo(current).fileName();
    const QString p = QFileDialog::getSaveFileName(m_window, tr("Save deck"), QDir(QDir::homePath()).filePath(name), tr(kDeckFilter));
    if (!p.isEmpty())
        saveDeckTo(p);
}

bool DeckActions::exportHandout(const QString& path, bool answers)
{
    if (const QString error = writeHandout(m_player->deck(), path, answers); !error.isEmpty()) {
        QMessageBox::warning(m_window, tr("Export deck handout"), error);
        return false;
    }
    emit status(tr("Wrote the handout, %1 pages, to %2").arg(m_player->count()).arg(path));
    return true;
}

bool DeckActions::maybeKeep()
{
    if (!m_player->isOpen() || !m_player->isModified())
        return true;
    const auto answer = QMessageBox::question(m_window, tr("The deck was edited"),
                                              tr("Save the changes to the deck \u201c%1\u201d?")
                                                  .arg(QString::fromStdString(m_player->deck().title)),
                                              QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel);
    if (answer == QMessageBox::Cancel)
        return false;
    if (answer == QMessageBox::Discard)
        return true;
    saveAs();
    return !m_player->isModified();
}

void DeckActions::showStep()
{
    const io::DeckStep& step = m_player->step();
    m_document->reset(step.scenario);
    emit rangeRequested(step.hasFocus() ? TimeRange{*step.from, *step.to} : TimeRange{});
    emit pinRequested(step.pin);
}

void DeckActions::showReveal()
{
    const bool open = m_player->isOpen();
    m_stage->setVeiled(open && !m_player->revealed());
    if (!open) {
        m_lesson->setStep({}, {}, {}, true);
        return;
    }
    const io::DeckStep& step = m_player->step();
    const QString title = QString::fromStdString(m_player->deck().title);
    m_lesson->setStep(tr("%1 \u00b7 step %2 of %3").arg(title).arg(m_player->index() + 1).arg(m_player->count()),
                      QString::fromStdString(step.question), QString::fromStdString(step.answer), m_player->revealed());
}

} // namespace ratelab::ui
