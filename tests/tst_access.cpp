// The main window as a screen reader and a keyboard reach it: every control has an accessible
// name, Tab visits every control that is shown and enabled, and Alt with a menu's letter opens
// that menu.
#include "window_test.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QAccessible>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QHeaderView>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QScrollBar>
#include <QSet>
#include <QTabBar>
#include <QTextEdit>
#include <QToolBar>
#include <QToolButton>

#include <functional>

using namespace ratelab;
using namespace ratelab::ui;

namespace {

// isControl says whether w takes input of its own: a button, a check box, a slider, a number
// box, a text field or an editable text, a list one can select in or edit, a tab bar or a group
// box with a check box. A text field inside a number box or a combo box is that box's; scroll
// bars belong to what they scroll, headers to their table; read-only text and a table only read (the summary) are
// read by a screen reader through their own interfaces and take no input.
bool isControl(const QWidget* w)
{
    if (qobject_cast<const QScrollBar*>(w) || qobject_cast<const QHeaderView*>(w)
        || qobject_cast<const QAbstractItemView*>(w->parentWidget()))
        return false; // a table's headers and corner button are the table's
    if (qobject_cast<const QLineEdit*>(w))
        return !qobject_cast<const QAbstractSpinBox*>(w->parentWidget()) && !qobject_cast<const QComboBox*>(w->parentWidget());
    if (auto* g = qobject_cast<const QGroupBox*>(w))
        return g->isCheckable();
    if (auto* t = qobject_cast<const QTextEdit*>(w))
        return !t->isReadOnly();
    if (auto* t = qobject_cast<const QPlainTextEdit*>(w))
        return !t->isReadOnly();
    if (auto* v = qobject_cast<const QAbstractItemView*>(w))
        return v->editTriggers() != QAbstractItemView::NoEditTriggers || v->selectionMode() != QAbstractItemView::NoSelection;
    return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QAbstractSlider*>(w)
           || qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QComboBox*>(w) || qobject_cast<const QTabBar*>(w);
}

// describe names a widget in a failure: its class, object name, text or tooltip, and parents.
QString describe(const QWidget* w)
{
    QString text = w->metaObject()->className();
    if (!w->objectName().isEmpty())
        text += " '" + w->objectName() + "'";
    if (!w->toolTip().isEmpty())
        text += " (tip: " + w->toolTip().left(40) + ")";
    for (const QWidget* p = w->parentWidget(); p && !p->isWindow(); p = p->parentWidget())
        if (!p->objectName().isEmpty() && !p->objectName().startsWith("qt_")) {
            text += " in " + p->objectName();
            break;
        }
    return text;
}

} // namespace

class TestAccess : public WindowTest {
    Q_OBJECT

    // controls are the window's own controls (no menu's, no popup's), shown or not.
    QList<QWidget*> controls() const
    {
        QList<QWidget*> found;
        for (QWidget* w : m_window->findChildren<QWidget*>())
            if (w->window() == m_window.get() && !m_window->menuBar()->isAncestorOf(w) && isControl(w))
                found << w;
        return found;
    }

    void showEveryPanel()
    {
        for (QDockWidget* dock : m_window->findChildren<QDockWidget*>())
            dock->show();
        settle();
    }

private slots:
    void initTestCase() { useScratchSettings(); }
    void init() { openWindow(Scenario{}); }
    void cleanup() { m_window.reset(); }

    // Every control, in every panel and group (shown or not: a ticked group shows its own), has
    // a name a screen reader reads: its text, its own accessible name, or a label's whose buddy
    // it is. Before, the playback bar's buttons, speed, scrubber and burst size, the slider of
    // every setting, the deck's list of steps and the window's selectable lists and tables had
    // none.
    void everyControlHasAnAccessibleName()
    {
        showEveryPanel();
        QStringList unnamed;
        const QList<QWidget*> all = controls();
        for (QWidget* w : all) {
            QAccessibleInterface* iface = QAccessible::queryAccessibleInterface(w);
            QVERIFY(iface);
            if (iface->text(QAccessible::Name).trimmed().isEmpty())
                unnamed << describe(w);
        }
        for (const QString& u : unnamed) // the whole list (a failure's message is cut short)
            qInfo("unnamed: %s", qPrintable(u));
        QVERIFY2(all.size() >= 40, qPrintable(QString::number(all.size()))); // the settings alone have more
        QVERIFY2(unnamed.isEmpty(), qPrintable(QString("%1 of %2 unnamed: %3").arg(unnamed.size()).arg(all.size()).arg(unnamed.join("; "))));
    }

    // Tab, pressed from the first control, visits every control that is shown and enabled
    // before it comes back round: none is skipped (no focus) and none keeps the key (a trap).
    // The docks' own float and close buttons are left to View > Panels, as Qt leaves them.
    // Before, the at-scale, traffic and layers tables kept Tab to move between their cells.
    void tabReachesEveryControl()
    {
        showEveryPanel();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        QWidget* first = m_window->nextInFocusChain();
        while (first != m_window.get() && !(first->isVisible() && first->isEnabled() && (first->focusPolicy() & Qt::TabFocus)))
            first = first->nextInFocusChain();
        QVERIFY(first != m_window.get());
        first->setFocus(Qt::TabFocusReason);
        QTRY_COMPARE(QApplication::focusWidget(), first);
        QSet<QWidget*> reached{first};
        for (int presses = 0; presses < 2000; ++presses) {
            QTest::keyClick(QApplication::focusWidget(), Qt::Key_Tab);
            QWidget* now = QApplication::focusWidget();
            QVERIFY(now);
            if (now == first)
                break;
            reached.insert(now);
            for (QWidget* proxy = now->focusProxy(); proxy; proxy = proxy->focusProxy())
                reached.insert(proxy);
        }
        QVERIFY2(QApplication::focusWidget() == first, // round, not stuck in a box that keeps Tab
                 qPrintable("Tab stays in " + describe(QApplication::focusWidget())));
        // A tool bar's buttons take no focus (Qt's way): the keyboard reaches their actions in
        // the menus, with Alt.
        QSet<QAction*> inMenus;
        std::function<void(QMenu*)> collect = [&](QMenu* menu) {
            for (QAction* a : menu->actions()) {
                inMenus.insert(a);
                if (a->menu())
                    collect(a->menu());
            }
        };
        for (QAction* a : m_window->menuBar()->actions())
            collect(a->menu());
        QStringList missed;
        int shown = 0;
        for (QWidget* w : controls()) {
            if (!w->isVisible() || !w->isEnabled() || w->objectName().startsWith("qt_dockwidget"))
                continue;
            ++shown;
            auto* tool = qobject_cast<QToolButton*>(w);
            bool in = reached.contains(w)
                      || (tool && qobject_cast<QToolBar*>(w->parentWidget()) && inMenus.contains(tool->defaultAction()));
            for (QWidget* p = w->focusProxy(); p && !in; p = p->focusProxy())
                in = reached.contains(p);
            if (!in)
                missed << describe(w);
        }
        for (const QString& m : missed)
            qInfo("never reached: %s", qPrintable(m));
        QVERIFY2(shown >= 20, qPrintable(QString::number(shown)));
        QVERIFY2(missed.isEmpty(), qPrintable(QString("%1 of %2 never reached: %3").arg(missed.size()).arg(shown).arg(missed.join("; "))));
    }

    // Alt and each menu's marked letter open that menu, with every panel shown (a panel's
    // widgets could take the letter).
    void altAndItsLetterOpenEachMenu()
    {
        showEveryPanel();
        m_window->activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(m_window.get()));
        int menus = 0;
        for (QAction* a : m_window->menuBar()->actions()) {
            QMenu* menu = a->menu();
            QVERIFY(menu);
            const QKeySequence mnemonic = QKeySequence::mnemonic(a->text());
            QVERIFY2(!mnemonic.isEmpty(), qPrintable(a->text()));
            QTest::keyClick(m_window.get(), mnemonic[0].key(), mnemonic[0].keyboardModifiers());
            QTRY_VERIFY2(menu->isVisible(), qPrintable(a->text()));
            menu->close();
            QTRY_VERIFY(!menu->isVisible());
            ++menus;
        }
        QCOMPARE(menus, 5); // File, Edit, View, Playback, Help
    }
};

QTEST_MAIN(TestAccess)
#include "tst_access.moc"
