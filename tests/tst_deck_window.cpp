// A class run from a deck on the real window: PageDown (a clicker's forward button)
// moves through the steps and reveals a question's hidden decisions, PageUp goes back, Right at
// the end of a step's playback goes on; a step frames its span; the deck is edited and saved
// from the app; the handout has a page per step, from the window and from `ratelab deck --pdf`.
#include "cli_run.h"
#include "deckfile.h"
#include "presets.h"
#include "model/deckplayer.h"
#include "model/stage.h"
#include "panels/deckpanel.h"
#include "panels/controlpanel.h"
#include "panels/lessonpanel.h"
#include "panels/slidervalue.h"
#include "panels/playbackbar.h"
#include "chart/summarytable.h"
#include "chart/dashboard.h"
#include "model/scenariodocument.h"
#include "window/deckactions.h"
#include "window/handout.h"
#include "window_test.h"

#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QScrollArea>
#include <QScrollBar>
#include <QToolButton>
#include <QRegularExpression>
#include <QTextDocument>
#include <QTextLayout>

#include <set>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

void press(QWidget* window, Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier)
{
    QWidget* to = QApplication::focusWidget();
    QTest::keyClick(to ? to : window, key, modifiers);
}

// clickerKeys are the keys a presenter's clicker and a slide program's user send, then every
// letter and digit (a key typed by mistake, or text meant for a dialog that did not open).
QList<QPair<Qt::Key, Qt::KeyboardModifiers>> clickerKeys()
{
    QList<QPair<Qt::Key, Qt::KeyboardModifiers>> keys;
    for (Qt::Key k : {Qt::Key_PageDown, Qt::Key_PageUp, Qt::Key_B, Qt::Key_Period, Qt::Key_W, Qt::Key_Comma, Qt::Key_F5,
                      Qt::Key_Escape, Qt::Key_Space, Qt::Key_Space, Qt::Key_Return, Qt::Key_Enter, Qt::Key_Left,
                      Qt::Key_Right, Qt::Key_Up, Qt::Key_Down, Qt::Key_Home, Qt::Key_End})
        keys.append({k, Qt::NoModifier});
    keys.append({Qt::Key_F5, Qt::ShiftModifier});
    for (int k = Qt::Key_A; k <= Qt::Key_Z; ++k)
        keys.append({Qt::Key(k), Qt::NoModifier});
    for (int k = Qt::Key_0; k <= Qt::Key_9; ++k)
        keys.append({Qt::Key(k), Qt::NoModifier});
    keys.append({Qt::Key_Escape, Qt::NoModifier});
    return keys;
}

QString keyName(Qt::Key key, Qt::KeyboardModifiers modifiers)
{
    return QKeySequence(int(modifiers) | int(key)).toString();
}

// pdfPages counts a PDF's page objects ("/Type /Page", not the "/Type /Pages" tree).
int pdfPages(const QString& path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    return int(QString::fromLatin1(f.readAll()).count(QRegularExpression("/Type\\s*/Page(?!s)")));
}

} // namespace

class TestDeckWindow : public WindowTest {
    Q_OBJECT

    DeckPlayer* deck() const { return m_window->deck(); }
    SummaryTable* table() const { return m_window->dashboard()->summary(); }

    void openDeck(const QString& id)
    {
        QVERIFY(m_window->decks()->openDeck(id));
        settle();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }

    // revealStep shows step `index` of a deck as the room sees it: presented, its question
    // answered.
    void revealStep(const QString& id, int index)
    {
        openDeck(id);
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        deck()->goTo(index);
        deck()->next(); // the reveal
        settle();
        QCOMPARE(deck()->index(), index);
        QVERIFY(!m_window->stage()->veiled());
    }

    // badgeTips are the tooltips of a row's badges, one per badge, top lane first.
    static QStringList badgeTips(RowChart* row)
    {
        (void)row->grab(); // paints the strip, and its badges
        QStringList tips;
        for (int y = 0; y < row->height(); y += 2)
            for (int x = 0; x < row->width(); x += 2)
                if (const QString tip = row->badgeTip(QPointF(x, y)); !tip.isEmpty() && !tips.contains(tip))
                    tips << tip;
        return tips;
    }

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); }
    void cleanup() { m_window.reset(); }

    // Opening a deck shows its first step: the scenario, its span framed, its words.
    void aDeckOpensAtItsFirstStep()
    {
        openDeck("fixed-window-2x");
        const io::Deck d = *io::loadDeckFile("fixed-window-2x").deck;
        QCOMPARE(m_window->document()->scenario(), d.steps[0].scenario);
        QCOMPARE(frame().range.from, Nanos(9'800'000'000));
        QCOMPARE(frame().range.to, Nanos(10'300'000'000));
        QCOMPARE(m_window->lesson()->title(), QString("A fixed window: 10 per 10 s"));
        QVERIFY(!m_window->stage()->veiled());
        QCOMPARE(table()->item(0, 1)->text(), QString("10"));
    }

    // In presentation mode: PageDown to step 2, whose question hides the decisions (marks grey
    // in one lane, counts blank, the table's figures '?'); PageDown reveals them (20 admitted,
    // the answer shown); PageDown again is step 3; PageUp goes back to step 2, hidden again.
    void theClickerMovesThroughTheStepsAndReveals()
    {
        openDeck("fixed-window-2x");
        press(m_window.get(), Qt::Key_F11);
        QVERIFY(m_window->isPresenting());
        press(m_window.get(), Qt::Key_PageDown);
        settle();
        QCOMPARE(deck()->index(), 1);
        QVERIFY(m_window->stage()->veiled());
        QVERIFY(charts()->row(0)->veiled());
        QCOMPARE(charts()->row(0)->countsText(), QString("decisions hidden"));
        QCOMPARE(table()->item(0, 1)->text(), QString("?"));
        QVERIFY(m_window->lesson()->question().contains("How many of the 20"));
        QVERIFY(m_window->lesson()->answer().isEmpty());

        press(m_window.get(), Qt::Key_PageDown); // the reveal
        settle();
        QCOMPARE(deck()->index(), 1);
        QVERIFY(!m_window->stage()->veiled());
        QVERIFY(!charts()->row(0)->veiled());
        QCOMPARE(table()->item(0, 1)->text(), QString("20"));
        QCOMPARE(table()->item(0, 2)->text(), QString("0"));
        QVERIFY(m_window->lesson()->answer().contains("All 20"));

        press(m_window.get(), Qt::Key_PageDown);
        settle();
        QCOMPARE(deck()->index(), 2);
        QCOMPARE(m_window->document()->scenario().algorithms.size(), std::size_t(2));
        press(m_window.get(), Qt::Key_PageUp);
        settle();
        QCOMPARE(deck()->index(), 1);
        QVERIFY(m_window->stage()->veiled()); // asked again
        press(m_window.get(), Qt::Key_Escape);
        QVERIFY(!m_window->isPresenting());
    }

    // Right steps the playback through the step's requests; at the end it reveals, then goes on
    // to the next step; Left at the start of a step goes back one.
    void rightAtTheEndOfAStepGoesOn()
    {
        openDeck("fixed-window-2x");
        deck()->goTo(1);
        settle();
        PlaybackBar* play = m_window->playback();
        press(m_window.get(), Qt::Key_Home);
        QCOMPARE(play->shownRequests(), std::size_t(0));
        press(m_window.get(), Qt::Key_Right);
        QCOMPARE(play->shownRequests(), std::size_t(1));
        QCOMPARE(deck()->index(), 1); // a step of the playback, not of the deck
        press(m_window.get(), Qt::Key_End);
        QVERIFY(play->atEnd());
        press(m_window.get(), Qt::Key_Right); // the end: reveal
        QVERIFY(!m_window->stage()->veiled());
        QCOMPARE(deck()->index(), 1);
        press(m_window.get(), Qt::Key_Right); // then the next step
        settle();
        QCOMPARE(deck()->index(), 2);
        press(m_window.get(), Qt::Key_Home);
        press(m_window.get(), Qt::Key_Left); // at the start: the step before
        settle();
        QCOMPARE(deck()->index(), 1);
    }

    // A deck that cannot be read says why in a dialog, and where: line and column as an editor
    // shows them (before, a byte offset). The deck breaks on line 4, where "steps" follows
    // "version": 1 without a comma: Qt stops at its opening quote, column 3. `ratelab deck
    // --help` names the command as typed (before, "ratelab-gui [options] deck", the path of the
    // executable that draws).
    void aBadDeckSaysWhereInADialog()
    {
        QTemporaryDir dir;
        const QString path = dir.filePath("bad.ratelab-deck.json");
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("{\n  \"format\": \"ratelab-deck\",\n  \"version\": 1\n  \"steps\": []\n}\n");
        f.close();
        bool opened = true;
        const QString shown = messageShownBy([&] { opened = m_window->decks()->openDeck(path); });
        QVERIFY(!opened);
        QVERIFY(!deck()->isOpen());
        QVERIFY2(shown.contains("bad.ratelab-deck.json: not valid JSON") && shown.contains("at line 4, column 3"),
                 qPrintable(shown));
        const clitest::Run help = clitest::runRatelab({"deck", "--help"});
        QCOMPARE(help.code, 0);
        QVERIFY2(help.out.startsWith("Usage: ratelab deck [options] deck\n"), qPrintable(help.out.left(80)));
        const clitest::Run compare = clitest::runRatelab({"compare", "--help"});
        QVERIFY2(compare.out.startsWith("Usage: ratelab compare [options]\n"), qPrintable(compare.out.left(80)));
    }

    // The handout for before the class gives no answer away. In buckets-burst-now step 1 asks how
    // many of the 32 requests the token bucket passes (19) and step 2 which the leaky bucket
    // admits (the same 19); step 3 asks nothing but draws those rows decided, "19 admitted · 13
    // denied": the answers to both. Without answers every chart from the first question on is
    // the one drawn with the decisions hidden, and the veil shows (it differs from the chart as
    // decided); with answers every chart is drawn as decided, and the answers are printed.
    void theQuestionsHandoutGivesNoAnswerAway()
    {
        const io::Deck d = *io::loadDeckFile("buckets-burst-now").deck;
        QVERIFY(!d.steps[0].question.empty() && d.steps[2].question.empty());
        const QSize size(600, 400);
        for (std::size_t i = 0; i < d.steps.size(); ++i) {
            const io::DeckStep& s = d.steps[i];
            const TimeRange range = s.hasFocus() ? TimeRange{*s.from, *s.to} : TimeRange{};
            const QImage hidden = renderOffscreen(s.scenario, size, 1.0, range, true);
            const QImage decided = renderOffscreen(s.scenario, size, 1.0, range, false);
            const QString step = QString("step %1").arg(i + 1);
            QVERIFY2(hidden != decided, qPrintable(step));
            const HandoutPage before = handoutPage(d, i, false, size);
            QVERIFY2(before.chart == hidden, qPrintable(step));
            QVERIFY2(!before.html.contains("Answer:"), qPrintable(step));
            const HandoutPage after = handoutPage(d, i, true, size);
            QVERIFY2(after.chart == decided, qPrintable(step));
            QCOMPARE(after.html.contains("Answer:"), !s.answer.empty());
        }
    }

    // Clients' retries are drawn only once revealed: where and how many they are follows from the
    // decisions. Before, retries-and-retry-after's step 1 asked "how many attempts?" over a strip
    // showing the retries' ticks (and, drawn a mark each, "x220"). Its client retries every 0.5 s;
    // the same scenario with a client that waits for Retry-After makes 30 attempts, not 220.
    // Veiled, both draw the same 20 requests at 0 s; decided, they differ.
    void aVeiledRowDrawsNoRetries()
    {
        const io::Deck d = *io::loadDeckFile("retries-and-retry-after").deck;
        Scenario loop = d.steps[0].scenario;
        Scenario honour = d.steps[1].scenario;
        honour.title = loop.title; // the header's title is not what is compared
        QVERIFY(loop.clients->options().retry != honour.clients->options().retry);
        const QSize size(600, 400);
        const TimeRange range{*d.steps[0].from, *d.steps[0].to};
        QVERIFY(renderOffscreen(loop, size, 1.0, range, false) != renderOffscreen(honour, size, 1.0, range, false));
        QVERIFY(renderOffscreen(loop, size, 1.0, range, true) == renderOffscreen(honour, size, 1.0, range, true));
        // 200 at once, too many to draw a mark each: a bar per column of the first attempts,
        // not of the 3,800 retries of the loop or the 190 at 10 s of the others.
        for (Scenario* s : {&loop, &honour})
            s->pattern.count = s->pattern.burstSize = 200;
        QVERIFY(renderOffscreen(loop, size, 1.0, range, false) != renderOffscreen(honour, size, 1.0, range, false));
        QVERIFY(renderOffscreen(loop, size, 1.0, range, true) == renderOffscreen(honour, size, 1.0, range, true));
    }

    // A clicker's keys and every letter and digit, with a deck open and then presenting: the
    // scenario on screen stays the step's own after each key, whatever step that key showed.
    // Before, b sent a burst of 5 into the step ("20 admitted · 5 denied" under a question about
    // 20) and r a request.
    void noKeyChangesADecksScenario()
    {
        openDeck("fixed-window-2x");
        for (bool presenting : {false, true}) {
            if (presenting)
                press(m_window.get(), Qt::Key_F11);
            QCOMPARE(m_window->isPresenting(), presenting);
            for (const auto& [key, modifiers] : clickerKeys()) {
                const QString name = keyName(key, modifiers) + (presenting ? " presenting" : "");
                press(m_window.get(), key, modifiers);
                if (m_window->blankColour().isValid())
                    press(m_window.get(), key, modifiers); // the same key again uncovers
                QVERIFY2(!m_window->blankColour().isValid(), qPrintable(name));
                settle();
                QVERIFY2(m_window->document()->scenario() == deck()->step().scenario, qPrintable(name));
                QVERIFY2(m_window->document()->scenario().addedArrivals.empty(), qPrintable(name));
            }
        }
        QVERIFY(deck()->isOpen());
    }

    // b and . blank the screen to black, w and , to white, while a class runs; any key or the
    // same key uncovers it, and the key that uncovers does nothing else (PageDown shows no next
    // step). Without a class, b is a letter like the others: it neither blanks nor sends.
    void bAndWBlankTheScreenLikeSlidePrograms()
    {
        const Scenario before = m_window->document()->scenario();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        m_window->dashboard()->setFocus();
        press(m_window.get(), Qt::Key_B);
        press(m_window.get(), Qt::Key_R);
        settle();
        QVERIFY(!m_window->blankColour().isValid());
        QVERIFY(m_window->document()->scenario() == before); // before: 6 sent by hand
        // Sending by hand takes Ctrl: Ctrl+B sends a burst of 5 (the burst box's default) at the
        // playhead, Ctrl+R one.
        press(m_window.get(), Qt::Key_B, Qt::ControlModifier);
        press(m_window.get(), Qt::Key_R, Qt::ControlModifier);
        settle();
        QCOMPARE(m_window->document()->scenario().addedArrivals.size(), std::size_t(6));

        openDeck("fixed-window-2x");
        // A text field keeps its letters while a class runs: "b" typed into the Limit box is a
        // letter there, and blanks nothing.
        QLineEdit* limit = m_window->controls()->limit()->field();
        limit->setFocus();
        QTRY_VERIFY(limit->hasFocus());
        QTest::keyClick(limit, Qt::Key_B);
        QVERIFY(!m_window->blankColour().isValid());
        QVERIFY2(limit->text().endsWith('b'), qPrintable(limit->text()));
        limit->setText("10");
        m_window->dashboard()->setFocus();
        press(m_window.get(), Qt::Key_B);
        QCOMPARE(m_window->blankColour(), QColor(Qt::black));
        auto* cover = m_window->findChild<QWidget*>("blankScreen");
        QVERIFY(cover && cover->isVisible());
        QCOMPARE(cover->geometry(), m_window->rect());
        press(m_window.get(), Qt::Key_B);
        QVERIFY(!m_window->blankColour().isValid());
        press(m_window.get(), Qt::Key_Period);
        QCOMPARE(m_window->blankColour(), QColor(Qt::black));
        press(m_window.get(), Qt::Key_PageDown); // uncovers only
        QVERIFY(!m_window->blankColour().isValid());
        QCOMPARE(deck()->index(), 0);
        press(m_window.get(), Qt::Key_W);
        QCOMPARE(m_window->blankColour(), QColor(Qt::white));
        press(m_window.get(), Qt::Key_Escape);
        QVERIFY(!m_window->blankColour().isValid());
        press(m_window.get(), Qt::Key_Comma);
        QCOMPARE(m_window->blankColour(), QColor(Qt::white));
        QTest::mouseClick(cover, Qt::LeftButton);
        QVERIFY(!m_window->blankColour().isValid());
        press(m_window.get(), Qt::Key_Return); // Enter goes on, as PageDown: step 2
        settle();
        QCOMPARE(deck()->index(), 1);
    }

    // PageDown on the last step, revealed, shows the end of the deck, as a slide show ends
    // (before, only a status bar message, hidden while presenting); any key goes back to the
    // last step, and only that: PageUp then goes to the step before. fixed-window-2x has 4 steps.
    void theDeckHasAVisibleEnd()
    {
        openDeck("fixed-window-2x");
        press(m_window.get(), Qt::Key_F11);
        deck()->goTo(3);
        settle();
        int presses = 0;
        while (!m_window->blankColour().isValid() && presses < 3) { // a question's reveal first
            press(m_window.get(), Qt::Key_PageDown);
            ++presses;
        }
        QCOMPARE(m_window->blankColour(), QColor(Qt::black));
        QVERIFY2(m_window->coverText().startsWith("End of the deck \u201cWhy the fixed window lets 2x through\u201d"),
                 qPrintable(m_window->coverText()));
        QCOMPARE(deck()->index(), 3);
        press(m_window.get(), Qt::Key_PageUp); // back to the last step, not past it
        QVERIFY(!m_window->blankColour().isValid());
        QCOMPARE(deck()->index(), 3);
        QVERIFY(m_window->isPresenting());
        press(m_window.get(), Qt::Key_PageUp);
        settle();
        QCOMPARE(deck()->index(), 2);
    }

    // Every shipped deck given as a class: F5, then only PageDown, at 1280x720. Each step shows
    // its own scenario (no key changed it), framed on its span, with every row on the projector
    // (none scrolled away); a question hides the decisions until a press reveals them and its
    // answer; a long lesson pages first; after the last step the end of the deck.
    void everyShippedDeckIsGivenFromTheClicker_data()
    {
        QTest::addColumn<QString>("id");
        for (const QString& id : io::shippedDecks())
            QTest::newRow(qPrintable(id)) << id;
    }

    void everyShippedDeckIsGivenFromTheClicker()
    {
        QFETCH(QString, id);
        const io::Deck d = *io::loadDeckFile(id).deck;
        openDeck(id);
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        settle();
        for (std::size_t i = 0; i < d.steps.size(); ++i) {
            const io::DeckStep& step = d.steps[i];
            const QByteArray where = QString("%1, step %2").arg(id).arg(i + 1).toUtf8();
            QCOMPARE(deck()->index(), int(i));
            QVERIFY2(m_window->document()->scenario() == step.scenario, where.constData());
            QCOMPARE(m_window->lesson()->title(), QString::fromStdString(step.scenario.title));
            if (step.hasFocus()) {
                QCOMPARE(frame().range.from, *step.from);
                QCOMPARE(frame().range.to, *step.to);
            }
            QVERIFY2(charts()->rowsOverflow() == 0,
                     qPrintable(QString("%1: the rows need %2 px more than the projector has")
                                    .arg(where.constData())
                                    .arg(charts()->rowsOverflow())));
            int presses = 0;
            if (!step.question.empty()) {
                QVERIFY2(m_window->stage()->veiled(), where.constData());
                QVERIFY2(m_window->lesson()->question().contains(QString::fromStdString(step.question).toHtmlEscaped()), where.constData());
                QVERIFY2(m_window->lesson()->answer().isEmpty(), where.constData());
                while (m_window->stage()->veiled() && presses < 20) { // a long lesson pages first
                    press(m_window.get(), Qt::Key_PageDown);
                    ++presses;
                }
                settle();
                QVERIFY2(!m_window->stage()->veiled(), where.constData());
                QCOMPARE(deck()->index(), int(i));
                QVERIFY2(m_window->lesson()->answer().contains(QString::fromStdString(step.answer).toHtmlEscaped()), where.constData());
                QVERIFY2(m_window->document()->scenario() == step.scenario, where.constData());
            } else {
                QVERIFY2(!m_window->stage()->veiled(), where.constData());
            }
            while (deck()->index() == int(i) && !m_window->blankColour().isValid() && presses < 40) {
                press(m_window.get(), Qt::Key_PageDown);
                ++presses;
            }
            QVERIFY2(presses < 40, where.constData());
            settle();
        }
        QCOMPARE(m_window->blankColour(), QColor(Qt::black));
        QVERIFY2(m_window->coverText().startsWith("End of the deck"), qPrintable(m_window->coverText()));
        QCOMPARE(deck()->index(), int(d.steps.size()) - 1);
    }

    // Every step of every shipped deck presented on the 1280x720 projector, hidden and revealed:
    // no caption of a row is cut with "…" (its title, the legend of its line, its counts, a
    // lane's name, the server's caption). Before, the larger type cut "line: what nginx holds
    // (right:…", "4809 attempts for 1650 req…" and "aimd:initial_limit=10,min_li…": a header
    // too narrow for its three texts now puts the next on a line of its own.
    void noCaptionIsCutOnTheProjector_data()
    {
        QTest::addColumn<QString>("id");
        for (const QString& id : io::shippedDecks())
            QTest::newRow(qPrintable(id)) << id;
    }

    void noCaptionIsCutOnTheProjector()
    {
        QFETCH(QString, id);
        const io::Deck d = *io::loadDeckFile(id).deck;
        openDeck(id);
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        QCOMPARE(m_window->size(), QSize(1280, 720));
        const auto check = [&](int step, const char* state) {
            settle();
            for (int r = 0; r < charts()->rowCount(); ++r) {
                const QStringList cut = charts()->row(r)->cutCaptions();
                QVERIFY2(cut.isEmpty(), qPrintable(QString("%1, step %2 %3, row %4: %5").arg(id).arg(step + 1).arg(state).arg(r).arg(cut.join(" | "))));
            }
        };
        for (int i = 0; i < int(d.steps.size()); ++i) {
            deck()->goTo(i);
            check(i, deck()->revealed() ? "" : "hidden");
            if (!deck()->revealed()) {
                QVERIFY(deck()->next());
                QVERIFY(deck()->revealed());
                check(i, "revealed");
            }
        }
    }

    // A reveal moves no plot: the students watch the same picture fill in, at 1280x720
    // presenting, in every step of every deck. Before, the dashboard's legend lost "admitted
    // after a delay" at the reveal where no row delayed a request, and the title beside it, which
    // that entry had wrapped, took a line less: every row moved up (retries-and-retry-after's
    // steps 1 and 3).
    void aRevealMovesNoPlot_data() { noCaptionIsCutOnTheProjector_data(); }

    void aRevealMovesNoPlot()
    {
        QFETCH(QString, id);
        const io::Deck d = *io::loadDeckFile(id).deck;
        openDeck(id);
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        const auto plots = [&] {
            settle();
            QList<QRect> all;
            for (int r = 0; r < charts()->rowCount(); ++r) {
                const RowChart* row = charts()->row(r);
                all << QRect(row->mapTo(m_window.get(), row->plotRect().topLeft().toPoint()), row->plotRect().size().toSize());
            }
            return all;
        };
        for (int i = 0; i < int(d.steps.size()); ++i) {
            deck()->goTo(i);
            if (deck()->revealed())
                continue;
            const QList<QRect> veiled = plots();
            QVERIFY(deck()->next());
            QVERIFY(deck()->revealed());
            const QList<QRect> revealed = plots();
            for (qsizetype r = 0; r < veiled.size(); ++r)
                QVERIFY2(revealed.value(r) == veiled[r], qPrintable(QString("%1, step %2, row %3: from %4,%5 %6x%7 to %8,%9 %10x%11")
                                                                     .arg(id).arg(i + 1).arg(r)
                                                                     .arg(veiled[r].x()).arg(veiled[r].y()).arg(veiled[r].width()).arg(veiled[r].height())
                                                                     .arg(revealed.value(r).x()).arg(revealed.value(r).y())
                                                                     .arg(revealed.value(r).width()).arg(revealed.value(r).height())));
        }
    }

    // A question over clients that retry: each retry exists because an attempt was denied, so
    // while the decisions are hidden no retry is drawn (no mark, link, badge or bar). tight-retry-
    // loop: 20 requests at 0 s, the 10 denied retried every 0.5 s until 10 s; veiled, the strip
    // is grey at 0 s alone, as a mark (a wide row) or as a bar (a narrow one).
    void aHiddenQuestionDrawsNoRetries_data()
    {
        QTest::addColumn<int>("width");
        QTest::newRow("marks") << 1280;
        QTest::newRow("bars") << 700;
    }

    void aHiddenQuestionDrawsNoRetries()
    {
        QFETCH(int, width);
        m_window->resize(width, 720);
        io::Deck d;
        d.title = "Retries";
        io::DeckStep step;
        step.scenario = *io::loadPreset("tight-retry-loop").scenario;
        step.scenario.algorithms = {Algorithm::FixedWindow};
        step.question = "How many attempts are denied?";
        d.steps.push_back(step);
        deck()->open(d, {});
        settle();
        m_window->playback()->setPlayhead(frame().range.to); // every attempt, retries too
        settle();
        QCOMPARE(m_window->playback()->shownRequests(), std::size_t(20)); // every request, with its retries
        QVERIFY(m_window->stage()->veiled());
        // Grey strip pixels before and after 0.25 s: the 20 at 0 s, and anything later.
        const auto grey = [this] {
            RowChart* row = charts()->row(0);
            const QImage image = row->grab().toImage();
            const QRectF plot = row->plotRect();
            const double span = double(frame().range.to - frame().range.from);
            const int x0 = int(plot.left() + plot.width() * (250'000'000.0 - double(frame().range.from)) / span);
            std::pair<int, int> n{0, 0};
            for (int y = 0; y < int(plot.top()); ++y)
                for (int x = 0; x < image.width(); ++x)
                    if (image.pixelColor(x, y) == RowChart::veiledColor())
                        ++(x <= x0 ? n.first : n.second);
            return n;
        };
        const auto [atStart, later] = grey();
        QVERIFY(atStart > 0);
        QCOMPARE(later, 0);
    }

    // A window closed while presenting gives back the application's font it scaled up: the next
    // window presented at 1.35 x 1.35 (its header wrapped and pushed the rows off the projector).
    void aWindowClosedWhilePresentingLeavesTheFontAsItWas()
    {
        const QFont before = QApplication::font();
        openDeck("fixed-window-2x");
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        QCOMPARE(QApplication::font().pointSizeF(), before.pointSizeF() * 1.35);
        m_window.reset();
        QCOMPARE(QApplication::font(), before);
    }

    // F5 presents from the deck's first step, Shift+F5 from the step shown; presenting hides
    // Send request and Burst.
    void f5PresentsAndHidesSending()
    {
        openDeck("fixed-window-2x");
        deck()->goTo(2);
        settle();
        press(m_window.get(), Qt::Key_F5, Qt::ShiftModifier);
        QVERIFY(m_window->isPresenting());
        QCOMPARE(deck()->index(), 2);
        for (QToolButton* b : m_window->playback()->findChildren<QToolButton*>())
            QVERIFY2(!b->isVisible() || (b->text() != "Burst" && b->text() != "Send request"), qPrintable(b->text()));
        press(m_window.get(), Qt::Key_Escape);
        QVERIFY(!m_window->isPresenting());
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        settle();
        QCOMPARE(deck()->index(), 0);
    }

    // A lesson longer than its panel in presentation type: PageDown pages it to its end before
    // it goes on, PageUp back to its start (before, the rest was cut off with no key to reach it).
    void aLongLessonPagesWithTheClicker()
    {
        io::Deck d = *io::loadDeckFile("fixed-window-2x").deck;
        QStringList lines;
        for (int i = 1; i <= 80; ++i)
            lines << QString("Line %1 of a lesson longer than the projector.").arg(i);
        d.steps[0].scenario.lesson = lines.join('\n').toStdString();
        deck()->open(d, {});
        settle();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        press(m_window.get(), Qt::Key_F11);
        settle();
        QScrollBar* bar = m_window->lesson()->scrollArea()->verticalScrollBar();
        QTRY_VERIFY(bar->maximum() > 0); // 80 lines do not fit 720 px
        QCOMPARE(bar->value(), 0);
        int pages = 0;
        while (deck()->index() == 0 && pages < 100) {
            const int at = bar->value();
            press(m_window.get(), Qt::Key_PageDown);
            if (deck()->index() == 0)
                QVERIFY2(bar->value() > at, qPrintable(QString::number(pages)));
            else
                QCOMPARE(at, bar->maximum()); // on only from the end of the text
            ++pages;
        }
        QVERIFY2(pages >= 3, qPrintable(QString::number(pages))); // at least two pages, then on
        settle();
        QCOMPARE(deck()->index(), 1);
        press(m_window.get(), Qt::Key_PageUp);
        settle();
        QCOMPARE(deck()->index(), 0);
        QCOMPARE(bar->value(), 0); // another step's text is read from its start
        press(m_window.get(), Qt::Key_Down);
        QVERIFY(bar->value() > 0);
        press(m_window.get(), Qt::Key_PageUp); // back to the start of the text, not a step back
        QCOMPARE(bar->value(), 0);
        QCOMPARE(deck()->index(), 0);
    }

    // The-server-behind's AIMD step (its 4th) presented on the 1280x720 projector: its narrative,
    // question and answer in presentation type are longer than the panel, and the revealed answer
    // is scrolled into view. The step's title stays whole in view above them (before, the answer
    // scrolled it off the top: "adapts: AIMD" cut in half, the rest gone).
    void theTitleStaysInViewOverALongAnswer()
    {
        openDeck("the-server-behind");
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        deck()->goTo(3);
        settle();
        QVERIFY(deck()->next()); // reveals
        settle();
        const LessonPanel* lesson = m_window->lesson();
        QVERIFY(!lesson->answer().isEmpty());
        QTRY_VERIFY(lesson->scrollArea()->verticalScrollBar()->value() > 0); // the answer scrolled into view
        const QLabel* title = lesson->titleLabel();
        QCOMPARE(title->text(), QString("A limit that adapts: AIMD"));
        QVERIFY(title->isVisible());
        QCOMPARE(title->visibleRegion().boundingRect(), title->rect());
    }

    // Without a deck PageDown and PageUp step the playback, as a clicker did before decks.
    void withoutADeckTheClickerStepsThePlayback()
    {
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        PlaybackBar* play = m_window->playback();
        press(m_window.get(), Qt::Key_Home);
        press(m_window.get(), Qt::Key_PageDown);
        QCOMPARE(play->shownRequests(), std::size_t(1));
        press(m_window.get(), Qt::Key_PageDown);
        QCOMPARE(play->shownRequests(), std::size_t(2));
        press(m_window.get(), Qt::Key_PageUp);
        QCOMPARE(play->shownRequests(), std::size_t(1));
    }

    // A deck edited in the app: the scenario on screen added as a step after the one shown, its
    // words written, moved up, and saved; the file reads back as the deck the app holds.
    void aDeckIsEditedAndSavedFromTheApp()
    {
        openDeck("buckets-burst-now");
        auto* panel = m_window->findChild<DeckPanel*>();
        QVERIFY(panel);
        Scenario mine;
        mine.config = LimiterConfig::make(3, kNanosPerSecond);
        m_window->openScenario(mine);
        panel->addCurrent(); // after step 1
        QCOMPARE(deck()->count(), 5);
        QCOMPARE(deck()->index(), 1);
        QVERIFY(deck()->isModified());
        deck()->setText(1, "Mine", "Three a second.", "How many?", "Three.");
        deck()->moveStep(1, -1);
        QCOMPARE(deck()->index(), 0);
        QCOMPARE(deck()->deck().steps[0].scenario.config.limit(), 3);
        QCOMPARE(panel->list()->count(), 5);
        QVERIFY(panel->list()->item(0)->text().startsWith("1. Mine"));
        QTemporaryDir dir;
        const QString path = dir.filePath("mine.ratelab-deck.json");
        QVERIFY(m_window->decks()->saveDeckTo(path));
        QVERIFY(!deck()->isModified());
        const io::DeckLoad again = io::loadDeckFile(path);
        QVERIFY2(again.deck, qPrintable(again.error));
        QVERIFY(*again.deck == deck()->deck());
        QCOMPARE(again.deck->steps[0].question, std::string("How many?"));
    }

    // buckets-burst-now step 3, the leaky bucket as a queue (capacity 5, drains 1 a second) over
    // bursts of 4 every 2 s: it admits the token bucket's 19 (4, 3, then 2 a burst) and holds
    // each until the one ahead has left, one a second: the first leaves at 0 s, undelayed, the
    // other 18 at 1, 2, ..., 18 s. Reached with the clicker (F5, then PageDown: reveal, step 2,
    // reveal, step 3; a new row, the queue's, not laid out yet when its frame came) the queue's row shows those 18 departures, "19 admitted (18 delayed) ·
    // 13 denied" and its level, exactly as when step 3 is chosen in the Deck panel's list.
    // Before, the clicker's step 3 drew no departure.
    void aStepReachedByTheClickerShowsWhatTheListShows()
    {
        openDeck("buckets-burst-now");
        std::vector<Nanos> expected;
        for (Nanos s = 1; s <= 18; ++s)
            expected.push_back(s * kNanosPerSecond);
        const auto departures = [this] {
            std::vector<Nanos> times;
            for (const auto& [request, leaves] : rowOf(Algorithm::LeakyBucketQueue)->departures())
                times.push_back(leaves);
            return times;
        };
        press(m_window.get(), Qt::Key_F5);
        QVERIFY(m_window->isPresenting());
        // Reveal, step 2, reveal, step 3: four presses, and more while a lesson longer than its
        // panel is paged first.
        for (int presses = 0; deck()->index() < 2 && presses < 20; ++presses) {
            press(m_window.get(), Qt::Key_PageDown);
            settle();
        }
        QCOMPARE(deck()->index(), 2);
        QVERIFY(!m_window->stage()->veiled());
        RowChart* queue = rowOf(Algorithm::LeakyBucketQueue);
        QVERIFY(queue);
        QCOMPARE(departures(), expected);
        QVERIFY2(queue->countsText().startsWith("19 admitted (18 delayed) · 13 denied"), qPrintable(queue->countsText()));
        // The level, whatever the plot's width (the window's differs from presentation mode's):
        // the heights it takes and where it ends.
        const auto levels = [](const RowChart* row) {
            std::set<double> heights;
            for (const QPointF& q : row->levelPoints())
                heights.insert(q.y());
            return std::pair{heights, row->levelPoints().isEmpty() ? QPointF() : row->levelPoints().last()};
        };
        const auto clickerLevel = levels(queue);
        QVERIFY(clickerLevel.first.size() > 1);
        press(m_window.get(), Qt::Key_Escape);
        QVERIFY(!m_window->isPresenting());
        settle();

        auto* panel = m_window->findChild<DeckPanel*>();
        QVERIFY(panel);
        panel->list()->setCurrentRow(1);
        settle();
        panel->list()->setCurrentRow(2);
        settle();
        QCOMPARE(deck()->index(), 2);
        queue = rowOf(Algorithm::LeakyBucketQueue);
        QCOMPARE(departures(), expected);
        QVERIFY2(queue->countsText().startsWith("19 admitted (18 delayed) · 13 denied"), qPrintable(queue->countsText()));
        QVERIFY(levels(queue) == clickerLevel);
    }

    // many-servers-one-limit step 2: two servers, each its own limit of 10 per 10 s, a request
    // every 0.25 s from 0 to 9.75 s, node 1 taking those at 0, 0.5, ..., 9.5 s and node 2 those
    // at 0.25, ..., 9.75 s. Each row draws a line per node, and each line goes on to the view's
    // end E as a plain row's level does (before, they stopped at 9.75 s, the last request; the
    // view runs on past 15 s). At E each node's fixed window has rolled over at 10 s to an empty
    // one (0), each node's log has let its 10 entries expire 10 s after they were admitted (node
    // 2's last at 4.75 s, by 14.75 s: 0), and each node's token bucket (10, one more a second),
    // which its 19th request left at 0 and its 20th, half a second later, found at 0.5 (denied),
    // has refilled from 0.5 at its last request: 0.5 + (E - 9.5) for node 1, 0.5 + (E - 9.75)
    // for node 2, at most 10.
    void clusterLevelsRunToTheEndOfTheView()
    {
        openDeck("many-servers-one-limit");
        deck()->goTo(1);
        deck()->next(); // the reveal
        settle();
        const double end = secondsAsDouble(frame().range.to);
        QVERIFY2(end > 14.75, qPrintable(QString::number(end)));
        for (const Algorithm algorithm : {Algorithm::FixedWindow, Algorithm::SlidingWindowLog, Algorithm::TokenBucket}) {
            const RowChart* row = rowOf(algorithm);
            QVERIFY(row);
            QCOMPARE(row->keyLines().size(), std::size_t(2));
            for (const RowChart::KeyLine& line : row->keyLines()) {
                const QString where = row->title() + ", " + line.name;
                const double last = line.index == 0 ? 9.5 : 9.75;
                const double level = algorithm == Algorithm::TokenBucket ? std::min(10.0, 0.5 + (end - last)) : 0.0;
                QVERIFY2(!line.points.isEmpty(), qPrintable(where));
                QVERIFY2(line.points.last().x() == end, qPrintable(where + QString(": ends at %1 s").arg(line.points.last().x())));
                QVERIFY2(std::abs(line.points.last().y() - level) < 1e-9,
                         qPrintable(where + QString(": %1, not %2").arg(line.points.last().y()).arg(level)));
            }
        }
    }

    // The legend of many-servers-one-limit step 2 (two servers): a mark's colour is its node's,
    // and the swatch shows one colour per node, two here (before, always three); step 1, one
    // server, one colour.
    void theNodeSwatchHasAColourPerNode()
    {
        openDeck("many-servers-one-limit");
        deck()->goTo(1);
        deck()->next();
        settle();
        const QPalette palette = m_window->dashboard()->palette();
        QCOMPARE(m_window->dashboard()->legendSwatch(), (QList<QColor>{RowChart::nodeColor(0, palette), RowChart::nodeColor(1, palette)}));
        deck()->goTo(0);
        deck()->next();
        settle();
        QCOMPARE(m_window->dashboard()->legendSwatch(), (QList<QColor>{RowChart::nodeColor(0, palette)}));
    }

    // redis-scripts-and-failures step 1: 20 pass at 0 s (each reads a count of 0), but the racy
    // store replays the admissions in turn and refuses what no longer fits its fixed window of 10
    // per 10 s (semantics.md, "Cluster"): its line rises to 10 and stays there, while the row
    // admits 20. The answer says that the line stops at 10, as drawn.
    void theStoresLineIsWhatTheWordsSay()
    {
        revealStep("redis-scripts-and-failures", 0);
        const RowChart* row = rowOf(Algorithm::FixedWindow);
        QVERIFY(row);
        QVERIFY2(row->countsText().startsWith("20 admitted"), qPrintable(row->countsText()));
        QCOMPARE(row->keyLines().size(), std::size_t(1));
        const RowChart::KeyLine& store = row->keyLines().front();
        QCOMPARE(store.name, QString("store"));
        double most = 0;
        for (const QPointF& q : store.points)
            most = std::max(most, q.y());
        QCOMPARE(most, 10.0);
        QVERIFY2(m_window->lesson()->answer().contains("its line stops at 10"), qPrintable(m_window->lesson()->answer()));
    }

    // choosing-a-limit step 5, the token bucket (60 tokens, 1 a second) against 4 tries a
    // second at 0, 1, ..., 29 s: at k s it holds 60 - 3k before the tries, so 4 pass while
    // 60 - 3k >= 4 (k <= 18), 3 pass at 19 s (60 - 57 = 3) and 1 denied, then 1 a second passes
    // and 3 are denied from 20 s to 29 s: 31 denied, drawn as one run of marks from 19 s to 29 s,
    // 1 second apart as the admitted ones are. Its badge counts the whole run, 31 as the header
    // says, not the 30 after the lone mark at 19 s; 76 + 3 + 10 = 89 admitted in one run too.
    void aRunsBadgeCountsItsFirstLoneMark()
    {
        revealStep("choosing-a-limit", 4);
        RowChart* bucket = rowOf(Algorithm::TokenBucket);
        QVERIFY(bucket);
        QVERIFY2(bucket->countsText().startsWith("89 admitted · 31 denied"), qPrintable(bucket->countsText()));
        QCOMPARE(badgeTips(bucket), (QStringList{"89 at 30 instants from 0 s to 29 s (4 at 0 s)",
                                                 "31 at 11 instants from 19 s to 29 s (1 at 19 s)"}));
    }

    // managed-services step 4 shows -2 s to 122 s. The WAF rule (Limit 10 per 60 s, a check
    // every 10 s, a verdict in force 30 s after its check) blocks from 20 + 30 = 50 s; the
    // scraper's last request is at 119 s, so the check at 160 s still counts 19 or 20 (over 10)
    // and the one at 170 s at most 10 (not over): the block lifts at 170 + 30 = 200 s, past the
    // view, and the caption says so. Cloudflare's (step 3, shown to 620 s) ends at 600.5 s, inside.
    void aBlockPastTheViewSaysSo()
    {
        revealStep("managed-services", 3);
        const RowChart* waf = rowOf(Algorithm::AwsWafRate);
        QVERIFY(waf);
        QCOMPARE(frame().range.to, Nanos(122) * kNanosPerSecond);
        QCOMPARE(waf->blockCaption(), QString("blocked 50 s to 200 s, past the end of this view"));
        deck()->goTo(2);
        deck()->next();
        settle();
        QCOMPARE(rowOf(Algorithm::CloudflareRate)->blockCaption(), QString("blocked 0.5 s to 600.5 s"));
    }

    // A step's title names the settings its rows read, no other: a fixed window reads L per W, a
    // token bucket C and r, nginx r and its burst, a product given its own options (the WAF's
    // Limit and EvaluationWindowSec) those alone. The values are the decks' and presets' own.
    void aTitleNamesOnlyTheSettingsItsRowsRead()
    {
        const QString rate = QString::fromUtf8("1/\u2060s"); // a word joiner keeps "1/s" whole
        // redis-scripts-and-failures step 1 (racing-read-write): a fixed window of 10 per 10 s
        // alone, 2 bursts of 20, 1 s apart.
        const io::Deck redis = *io::loadDeckFile("redis-scripts-and-failures").deck;
        QCOMPARE(Dashboard::describe(redis.steps[0].scenario),
                 QString::fromUtf8("Read, then write: a race \u2014 limit 10 per 10 s \u2014 40 requests in bursts of 20 every 1 s"));
        // buckets-burst-now step 1 (token-vs-leaky): a token bucket alone, 5 tokens, 1 a second;
        // 8 bursts of 4, 2 s apart.
        const io::Deck buckets = *io::loadDeckFile("buckets-burst-now").deck;
        QCOMPARE(Dashboard::describe(buckets.steps[0].scenario),
                 QString::fromUtf8("A token bucket \u2014 capacity 5, rate ") + rate
                     + QString::fromUtf8(" \u2014 32 requests in bursts of 4 every 2 s"));
        // managed-services step 4: the WAF reads its own Limit 10 per EvaluationWindowSec 60, the
        // sliding log L = 10 per W = 60 s; no row reads a capacity or a rate.
        const io::Deck managed = *io::loadDeckFile("managed-services").deck;
        QCOMPARE(Dashboard::describe(managed.steps[3].scenario),
                 QString::fromUtf8("AWS WAF: the verdict comes late \u2014 limit 10 per 60 s; EvaluationWindowSec 60, Limit 10 "
                                   "\u2014 120 arrivals from a file"));
        // redis-scripts-and-failures step 5: two products, each given its own options, read no L,
        // W, C or r; their 20 requests are one burst, with no period to name.
        QCOMPARE(Dashboard::describe(redis.steps[4].scenario),
                 QString::fromUtf8("Two products, read literally \u2014 burstCapacity 0, count_per_period 1, max_burst 15, "
                                   "period 1, replenishRate 10 \u2014 20 requests at once"));
        // estimates-and-memory step 3 (n-per-t): a token bucket and two windows read all four,
        // 10 per 10 s and 10 tokens at 1 a second; the pattern is the bucket's worst case.
        const io::Deck estimates = *io::loadDeckFile("estimates-and-memory").deck;
        QCOMPARE(Dashboard::describe(estimates.steps[2].scenario),
                 QString::fromUtf8("N per T is not at most N in any T \u2014 limit 10 per 10 s, capacity 10, rate ") + rate
                     + QString::fromUtf8(" \u2014 the worst case of the token bucket in any 10 s"));
        // nginx-limit-req step 2 (nginx-page-load): nginx alone, limit_req rate=50r/s burst=8
        // nodelay, reads r and its burst, not C = 50; two pages of 27, 0.1 s apart. Step 4
        // (nginx-vs-leaky) gives no burst: nginx's is C - 1, so C = 1 is read, as the leaky
        // bucket reads it, with r = 5/6 a second; 10 requests 1.2 s apart.
        const io::Deck nginx = *io::loadDeckFile("nginx-limit-req").deck;
        QCOMPARE(Dashboard::describe(nginx.steps[1].scenario),
                 QString::fromUtf8("One request every 20 ms \u2014 rate 50/\u2060s, burst 8, nodelay \u2014 54 requests in bursts of "
                                   "27 every 0.1 s"));
        QCOMPARE(Dashboard::describe(nginx.steps[3].scenario),
                 QString::fromUtf8("nginx counts in thousandths \u2014 capacity 1, rate 5/\u20606/\u2060s \u2014 10 requests 1.2 s apart"));
        // The window shows that title.
        revealStep("buckets-burst-now", 0);
        QCOMPARE(m_window->dashboard()->titleText(), Dashboard::describe(buckets.steps[0].scenario));
    }

    // choosing-a-limit step 5 names "/api/login" in its narrative and its answer: laid out at any
    // width, from a narrow panel to a wide one, no line of the lesson panel ends at a slash.
    void aPathIsNeverBrokenAtItsSlash()
    {
        revealStep("choosing-a-limit", 4);
        QStringList shown;
        for (const QLabel* label : m_window->lesson()->findChildren<QLabel*>()) {
            if (!label->isVisible() || !label->text().contains("login"))
                continue;
            QTextDocument words;
            words.setDefaultFont(label->font());
            words.setHtml(label->text()); // the answer is rich text; plain text reads the same
            shown << words.toPlainText();
            for (int width = 40; width <= 600; width += 3) {
                QTextLayout layout(words.toPlainText(), label->font());
                QTextOption wrap;
                wrap.setWrapMode(QTextOption::WordWrap);
                layout.setTextOption(wrap);
                layout.beginLayout();
                for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
                    line.setLineWidth(width);
                    const QString text = layout.text().mid(line.textStart(), line.textLength()).trimmed();
                    QVERIFY2(!text.endsWith('/'), qPrintable(QString("at %1 px a line ends at a slash: %2").arg(width).arg(text)));
                }
                layout.endLayout();
            }
        }
        QCOMPARE(shown.size(), 2); // the narrative and the answer
    }

    // The handout: a page per step, from the app's writer and from the command line, which
    // refuses what it cannot do with one line and nothing on stdout.
    void theHandoutHasAPagePerStep()
    {
        QTemporaryDir dir;
        const io::Deck d = *io::loadDeckFile("many-servers-one-limit").deck;
        const QString path = dir.filePath("handout.pdf");
        QCOMPARE(writeHandout(d, path), QString());
        QCOMPARE(pdfPages(path), 3);
        const QString questions = dir.filePath("questions.pdf");
        QCOMPARE(writeHandout(d, questions, false), QString());
        QCOMPARE(pdfPages(questions), 3);
        const QString cli = dir.filePath("cli.pdf");
        const clitest::Run r = clitest::runRatelab({"deck", "fixed-window-2x", "--pdf", cli});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.isEmpty());
        QCOMPARE(pdfPages(cli), 4);
        const clitest::Run outline = clitest::runRatelab({"deck", "buckets-burst-now"});
        QCOMPARE(outline.code, 0);
        QVERIFY(outline.out.startsWith("Buckets: burst now, pay later\n  1. A token bucket\n     asks: How many of the 32"));
        for (const QStringList& bad : {QStringList{"deck"}, QStringList{"deck", "nope"},
                                       QStringList{"deck", "fixed-window-2x", "--pdf", dir.path()},
                                       QStringList{"deck", "fixed-window-2x", "--no-answers"}}) {
            const clitest::Run refused = clitest::runRatelab(bad);
            QCOMPARE(refused.code, 2);
            QVERIFY(refused.out.isEmpty());
            QCOMPARE(refused.err.count('\n'), 1);
            QVERIFY(refused.err.startsWith("ratelab: deck: "));
        }
    }
    // The app's File > Export deck as web page writes what `ratelab deck --html` writes, the
    // questions-only page what --no-answers writes: one writer, reached from both.
    void theAppWritesTheDecksWebPage()
    {
        openDeck("buckets-burst-now");
        QTemporaryDir dir;
        const QString app = dir.filePath("app.html"), appQuestions = dir.filePath("app-questions.html");
        QVERIFY(m_window->decks()->exportPage(app));
        QVERIFY(m_window->decks()->exportPage(appQuestions, false));
        const QString cli = dir.filePath("cli.html"), cliQuestions = dir.filePath("cli-questions.html");
        QCOMPARE(clitest::runRatelab({"deck", "buckets-burst-now", "--html", cli}).code, 0);
        QCOMPARE(clitest::runRatelab({"deck", "buckets-burst-now", "--html", cliQuestions, "--no-answers"}).code, 0);
        // Each page seals its answers with a key of its own (data-key): the pages agree but for
        // the key and what it seals.
        const auto bytes = [](const QString& path) {
            QFile f(path);
            QString page = f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
            page.replace(QRegularExpression("data-key=\"[^\"]*\""), "data-key=\"\"");
            page.replace(QRegularExpression("(<script type=\"application/octet-stream\" class=\"sealed\">)[^<]*"), "\\1");
            return page;
        };
        QVERIFY(!bytes(app).isEmpty());
        QCOMPARE(bytes(app), bytes(cli));
        QCOMPARE(bytes(appQuestions), bytes(cliQuestions));
        QVERIFY(!bytes(appQuestions).contains("19 admitted")); // step 1's answer (tst_decks)
    }
};

QTEST_MAIN(TestDeckWindow)
#include "tst_deck_window.moc"
