// The keyboard, the clicker and the wheel as a teacher uses them, on the real window:
// presentation mode is driven from the keyboard (the menu bar it hides held the keys), typing in
// a number box edits only the box, the wheel scrolls the settings instead of changing a value on
// the way, and a window saved on a large screen opens fitting a small one.
#include "panels/controlpanel.h"
#include "panels/playbackbar.h"
#include "model/scenariodocument.h"
#include "panels/slidervalue.h"
#include "window_test.h"

#include <QAbstractButton>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSlider>
#include <QUndoStack>
#include <QWheelEvent>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

constexpr Nanos kTenth = kNanosPerSecond / 10;

// press sends a key where a person's key goes: to the widget with the focus, else the window.
void press(QWidget* window, Qt::Key key)
{
    QWidget* to = QApplication::focusWidget();
    QTest::keyClick(to ? to : window, key);
}

// wheel turns the wheel over the middle of w, notches down (negative) or up.
void wheel(QWidget* w, int notches = -1)
{
    const QPointF at(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

} // namespace

class TestKeyboard : public WindowTest {
    Q_OBJECT

    ScenarioDocument* doc() const { return m_window->document(); }

    void activate()
    {
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
    }

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); } // 15 requests 0.1 s apart
    void cleanup() { m_window.reset(); }

    // F11, then the keys a presenter has: Home, Space to play and pause, Right and Left to step
    // a request at a time, and the clicker's PageDown and PageUp doing the same. Before, Space and
    // the arrows were the hidden menu bar's: Space pressed the focused button, Right moved focus.
    void presentationModeIsDrivenFromTheKeyboard()
    {
        activate();
        PlaybackBar* play = m_window->playback();
        press(m_window.get(), Qt::Key_F11);
        QVERIFY(m_window->isPresenting());
        QVERIFY(!qobject_cast<QLineEdit*>(QApplication::focusWidget())); // no box keeps the keys
        press(m_window.get(), Qt::Key_Home);
        QCOMPARE(play->shownRequests(), std::size_t(0));
        press(m_window.get(), Qt::Key_Space);
        QVERIFY(play->isPlaying());
        press(m_window.get(), Qt::Key_Space);
        QVERIFY(!play->isPlaying());
        press(m_window.get(), Qt::Key_Home);
        press(m_window.get(), Qt::Key_Right); // the first request, at 0 s
        QCOMPARE(play->shownRequests(), std::size_t(1));
        QCOMPARE(play->playhead(), Nanos(0));
        press(m_window.get(), Qt::Key_Right); // the second, at 0.1 s
        QCOMPARE(play->playhead(), kTenth);
        press(m_window.get(), Qt::Key_PageDown); // the clicker's next: the third, at 0.2 s
        QCOMPARE(play->playhead(), 2 * kTenth);
        QCOMPARE(play->shownRequests(), std::size_t(3));
        press(m_window.get(), Qt::Key_PageUp);
        QCOMPARE(play->playhead(), kTenth);
        press(m_window.get(), Qt::Key_Left);
        QCOMPARE(play->playhead(), Nanos(0));
        // The playback bar's buttons take no focus from Tab while presenting.
        for (QAbstractButton* b : play->findChildren<QAbstractButton*>())
            QCOMPARE(b->focusPolicy(), Qt::NoFocus);
        press(m_window.get(), Qt::Key_Escape);
        QVERIFY(!m_window->isPresenting());
        for (QAbstractButton* b : play->findChildren<QAbstractButton*>())
            QVERIFY(b->focusPolicy() != Qt::NoFocus);
    }

    // Letters, Space, R and B typed into any number box stay in the box: no request is sent, no
    // playback starts, the document does not change (before, "abc" in Skew sent a burst and "r"
    // in Down from a request). Enter on such text is refused in the box, and changes nothing.
    void typingInANumberBoxEditsOnlyTheBox()
    {
        Scenario s;
        ClusterConfig::Options o;
        o.nodes = 2;
        o.outageFromNanos = kNanosPerSecond;
        o.outageToNanos = 2 * kNanosPerSecond;
        s.cluster = ClusterConfig::make(o);
        m_window->openScenario(s);
        settle();
        activate();
        const Scenario before = doc()->scenario();
        const int steps = doc()->undoStack()->count();
        int boxes = 0;
        for (SliderValue* box : m_window->controls()->findChildren<SliderValue*>()) {
            if (!box->isVisible())
                continue;
            QLineEdit* field = box->field();
            const QString shown = field->text();
            field->setFocus();
            QTRY_VERIFY(field->hasFocus());
            field->selectAll();
            QTest::keyClicks(field, "abc rb");
            QVERIFY2(!m_window->playback()->isPlaying(), qPrintable(box->objectName() + shown));
            QTest::keyClick(field, Qt::Key_Return);
            settle();
            QVERIFY2(doc()->scenario() == before, qPrintable("typed into the box showing " + shown));
            QCOMPARE(doc()->undoStack()->count(), steps);
            field->setText(shown);
            ++boxes;
        }
        QVERIFY2(boxes >= 10, qPrintable(QString::number(boxes))); // Limit ... Skew, Down from, Back at
    }

    // The wheel over a slider of the scrolled settings scrolls them and leaves the value; with
    // the focus (a click or Tab) the slider takes the wheel (before, scrolling over Cost set it).
    void theWheelOverASliderScrollsTheSettings()
    {
        m_window->resize(1280, 480); // the settings do not fit: they scroll
        settle();
        auto* area = m_window->findChild<QScrollArea*>();
        QVERIFY(area && area->widget() == m_window->controls());
        QScrollBar* bar = area->verticalScrollBar();
        QVERIFY(bar->maximum() > 0);
        bar->setValue(0);
        QSlider* slider = m_window->controls()->cost()->slider();
        const int value = slider->value();
        const Scenario before = doc()->scenario();
        wheel(slider);
        QVERIFY(bar->value() > 0);
        QCOMPARE(slider->value(), value);
        QVERIFY(doc()->scenario() == before);
        // With the focus, the wheel is the slider's.
        activate();
        slider->setFocus();
        QTRY_VERIFY(slider->hasFocus());
        const int scrolled = bar->value();
        wheel(slider, 1); // up: Cost 1 is the slider's least
        QVERIFY(slider->value() != value);
        QCOMPARE(bar->value(), scrolled);
    }

    // A window closed 1620x1008 on a 1800x1120 screen by the app itself (its settings file, as
    // it wrote them) opens inside the 1280x720 projector, frame included. Before, it came back
    // 1290 px wide: it was fitted before its first show, when its minimum width still counted
    // the playback bar's sending buttons, which give way only once it has its width.
    void aWindowSavedByTheAppOnALargeScreenFitsASmallOne()
    {
        m_window.reset();
        const QString file = m_config.filePath("RateLab/ratelab.conf");
        QDir().mkpath(m_config.filePath("RateLab"));
        QFile::remove(file);
        QVERIFY(QFile::copy(RATELAB_TESTDATA "/settings-saved-on-1800x1120.conf", file));
        QFile::setPermissions(file, QFile::ReadOwner | QFile::WriteOwner);
        m_window = std::make_unique<MainWindow>();
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        settle();
        const QRect screenArea = m_window->screen()->availableGeometry();
        QCOMPARE(screenArea, QRect(0, 0, 1280, 720));
        const QRect frame = m_window->frameGeometry();
        QVERIFY2(screenArea.contains(frame),
                 qPrintable(QString("%1,%2 %3x%4").arg(frame.x()).arg(frame.y()).arg(frame.width()).arg(frame.height())));
    }

    // A window closed at 1600x1000 with a wide lesson opens again inside a smaller screen,
    // frame included, and the lesson leaves the charts two thirds of it.
    void aWindowSavedOnALargeScreenFitsASmallOne()
    {
        const QRect screenArea = m_window->screen()->availableGeometry();
        QVERIFY2(screenArea.width() < 1600 && screenArea.height() < 1000,
                 qPrintable(QString("the test screen is %1x%2").arg(screenArea.width()).arg(screenArea.height())));
        m_window->resize(1600, 1000);
        auto* lesson = m_window->findChild<QDockWidget*>("lessonDock");
        lesson->show();
        m_window->resizeDocks({lesson}, {800}, Qt::Horizontal);
        m_window->close(); // saves the geometry and the docks
        m_window.reset();
        m_window = std::make_unique<MainWindow>();
        m_window->show();
        QVERIFY(QTest::qWaitForWindowExposed(m_window.get()));
        settle();
        QVERIFY2(screenArea.contains(m_window->frameGeometry()),
                 qPrintable(QString("%1x%2").arg(m_window->frameGeometry().width()).arg(m_window->frameGeometry().height())));
        for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
            if (dock->isVisible() && !dock->isFloating())
                QVERIFY2(dock->width() <= m_window->width() / 3 + 1, qPrintable(dock->objectName()));
    }
};

QTEST_MAIN(TestKeyboard)
#include "tst_keyboard.moc"
