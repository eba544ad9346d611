// MainWindow wires the widgets and actions together; it draws and decides nothing itself.
#pragma once

#include "model/frame.h"
#include "scenario/scenario.h"

#include <QColor>
#include <QMainWindow>

class QAction;
class QLabel;
class QMenu;
class QDockWidget;
class QAbstractButton;
class QScrollArea;
class QSplitter;

namespace ratelab::ui {

class ControlPanel;
class Dashboard;
class DeckActions;
class DeckPlayer;
class Stage;
class DocumentActions;
class ErrorBanner;
class ExplainPanel;
class LessonPanel;
class Pipeline;
class PlaybackBar;
class ScenarioDocument;
class Settings;
class TrafficPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // openScenario makes scenario the document (untitled, unmodified) and simulates it.
    void openScenario(const Scenario& scenario);

    ScenarioDocument* document() const { return m_document; }
    ControlPanel* controls() const { return m_controls; }
    Dashboard* dashboard() const { return m_dashboard; }
    // stage holds what the window shows: the frame and the playhead.
    Stage* stage() const { return m_stage; }
    Pipeline* pipeline() const { return m_pipeline; }
    PlaybackBar* playback() const { return m_playback; }
    ExplainPanel* explanation() const { return m_explain; }
    LessonPanel* lesson() const { return m_lesson; }
    DocumentActions* documents() const { return m_documents; }
    ErrorBanner* banner() const { return m_banner; }
    bool isPresenting() const { return m_presenting; }
    // inClass says whether the keys drive a class (presenting, or a deck open): then only the
    // keys that move through it act, and none changes the scenario.
    bool inClass() const;
    // blankColour is the colour the screen is blanked to (b or . black, w or , white), invalid
    // when the charts show.
    QColor blankColour() const;
    // coverText is what the cover says: the end of the deck, or nothing on a blanked screen.
    QString coverText() const;
    // deck is the open lesson deck and the step shown; decks() its File menu actions.
    DeckPlayer* deck() const { return m_deck; }
    DeckActions* decks() const { return m_decks; }

public slots:
    void setPresenting(bool on);
    // nextStep reveals a deck step's hidden decisions or shows the next step; without a deck
    // it steps the playback forward (PageDown, a clicker's forward button).
    void nextStep();
    // previousStep shows the deck's previous step; without a deck it steps the playback back.
    void previousStep();
    // blank covers the window with colour (b, . black; w, , white), as slide programs do; the
    // next key or click uncovers it, the same key included.
    // showEnd covers the window with the end of the deck, as slide programs end a show
    // (PageDown on the last step, revealed); any key goes back to the last step.
    void blank(const QColor& colour, const QString& text = {});
    void unblank();
    // presentFrom starts presenting (F5 from the deck's first step, Shift+F5 from the step shown).
    void presentFrom(bool firstStep);

protected:
    void closeEvent(QCloseEvent* event) override;
    void showEvent(QShowEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // The side panels' docks, which the window's connections and first layout show and hide.
    struct Docks {
        QDockWidget* lesson;
        QDockWidget* explain;
        QDockWidget* atScale;
        QDockWidget* traffic;
        QDockWidget* deck;
    };
    void layOutCentre();
    Docks createDocks();
    void connectDocument();
    void connectCharts(const Docks& docks);
    void connectDecks(const Docks& docks);
    void connectPanels(const Docks& docks);
    // openFirstDocument opens what the last session left open, or on a first start the classic.
    void openFirstDocument();
    // restoreLayout restores the last session's geometry and panels, fitted to this screen.
    void restoreLayout(const Docks& docks);
    void createMenus();
    void createFileMenu();
    void createEditMenu();
    QAction* createViewMenu();
    void createPlaybackMenu();
    void addClassKeys(QMenu* play);
    void createHelpMenu();
    // updateClassKeys gives the keys to the class or back to editing when presenting or a deck
    // starts or ends.
    void updateClassKeys();
    // typingHasTheKeys says whether a text field, a dialog or a menu has the keys, so no
    // single-letter key of the window acts.
    bool typingHasTheKeys() const;
    // fitToScreen keeps the window, its frame included, inside the screen it opens on: a
    // geometry saved on a larger screen comes back fitting this one.
    void fitToScreen();
    void requestFrame();
    void showFrame(std::shared_ptr<const Frame> frame);
    void showFrameError(const QString& why);
    void showPlayhead(Nanos t);
    void documentChanged();
    void showShortcuts();
    void editTitleAndLesson();
    void showAlgorithms();
    void updateTitle();
    QDockWidget* addDock(const QString& title, const QString& name, QWidget* content, Qt::DockWidgetArea area);

    std::unique_ptr<Settings> m_settings;
    ScenarioDocument* m_document;
    ControlPanel* m_controls;
    QScrollArea* m_controlScroll;
    Stage* m_stage;
    Dashboard* m_dashboard;
    Pipeline* m_pipeline;
    PlaybackBar* m_playback;
    ExplainPanel* m_explain;
    LessonPanel* m_lesson;
    QDockWidget* m_lessonDock = nullptr;
    TrafficPanel* m_traffic = nullptr;
    DocumentActions* m_documents;
    DeckPlayer* m_deck;
    DeckActions* m_decks;
    ErrorBanner* m_banner;
    quint64 m_refusedAt = 0; // the document's revision when an edit was last refused
    QSplitter* m_splitter;
    TimeRange m_requestedRange;
    bool m_presenting = false;
    QList<QPair<QAbstractButton*, Qt::FocusPolicy>> m_buttonFocus; // the playback buttons' own, while presenting
    bool m_shown = false; // frames wait for the first show: the charts' width is known only then
    QSize m_restoredSize;  // the size the window was given when made (restored, fitted)
    QAction* m_presentAction = nullptr;
    QAction* m_sendAction = nullptr;
    QAction* m_burstAction = nullptr;
    QList<QAction*> m_classActions; // the keys that act only while a class runs (Up, Down, blanking)
    QWidget* m_blank = nullptr; // the cover while the screen is blanked or the deck has ended
    QLabel* m_coverText = nullptr;
    struct Shown {
        QByteArray state;
        bool maximized = false, fullScreen = false, menuBar = true, statusBar = true, controls = true, summary = true,
             lesson = false;
    } m_beforePresenting;
    QFont m_normalFont;
};

} // namespace ratelab::ui
