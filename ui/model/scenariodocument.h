// ScenarioDocument is the one exact scenario the app shows, simulates and saves.
//
// It owns the Scenario (exact integers and rationals, as a file or the CLI would give it), the
// file it came from (or the preset), and whether it changed since it was opened or saved. Views
// observe it and never hold a copy of their own: the simulation, saving, the window title and
// the settings all read scenario(). A control changes the document only when a person touches
// that control, through edit(), which is undoable; a value outside a control's range stays
// exactly as it is. It knows no widgets (it links Qt Core and, for QUndoStack, Qt GUI only).
#pragma once

#include "scenario/scenario.h"
#include "scenariofile.h"

#include <QObject>
#include <QString>

#include <functional>

class QUndoStack;

namespace ratelab::ui {

class ScenarioDocument : public QObject {
    Q_OBJECT
public:
    explicit ScenarioDocument(QObject* parent = nullptr);
    ~ScenarioDocument() override;

    const Scenario& scenario() const { return m_scenario; }
    // follows reports whether capacity and rate follow limit and window (the tick box): an edit
    // of the limit or the window then sets them too. It is part of the document's undo history;
    // a document opened follows when its capacity and rate are the defaults, and an edit that
    // makes them differ from the defaults (typing a rate) stops it following.
    bool follows() const { return m_follows; }
    // revision counts the changes of scenario() and follows() since the document was made: a
    // view can tell whether anything changed since it last looked.
    quint64 revision() const { return m_revision; }
    // filePath is the scenario file the document was opened from or saved to; empty otherwise.
    QString filePath() const { return m_filePath; }
    // presetId names the preset the document was opened from, if any (until it is saved).
    QString presetId() const { return m_presetId; }
    // lessonIsPresets: the document came from a preset and still has its lesson (an import or an
    // advised limit replaces it with one of its own).
    bool lessonIsPresets() const { return !m_presetId.isEmpty() && m_scenario.lesson == m_preset.lesson; }
    // displayName is what the window title shows: the file's name, the preset's title or
    // "Untitled".
    QString displayName() const;
    bool isModified() const;
    // differsFromPreset reports whether a document opened from a preset now has other settings
    // than the preset (its title and lesson aside): the lesson was written for the original.
    bool differsFromPreset() const;
    QUndoStack* undoStack() const { return m_undo; }

    // reset replaces the whole document (a new file, a preset, the last session's scenario)
    // and forgets the undo history. modified marks it as changed since its file was saved.
    void reset(const Scenario& s, const QString& filePath = {}, const QString& presetId = {}, bool modified = false);
    // edit records one change a person made, described for Edit > Undo ("Undo Limit"). Equal
    // scenarios record nothing. Successive edits with the same description merge into one undo
    // step (a slider drag), unless they are separated by another edit.
    void edit(const QString& what, const Scenario& next);
    // replace records a whole new scenario (an imported configuration) as one undoable edit; the
    // follow flag is taken from it, as reset() takes it.
    void replace(const QString& what, const Scenario& next);
    // change is edit() of the current scenario with f applied, when the result can be simulated
    // (checkScenario). f may throw InputError to refuse. A refusal changes nothing, emits
    // refused() with the reason and changed() (so views show the document again), and returns false.
    bool change(const QString& what, const std::function<void(Scenario&)>& f);
    // refuse reports an edit refused before it reached the document (a typed value a control
    // checked): refused(message) without any change; an empty message withdraws it.
    void refuse(const QString& message) { emit refused(message); }
    // setFollows ticks or unticks "capacity and rate follow limit and window" as one undoable
    // step; ticking it also sets capacity and rate to limit and limit / window in that step.
    void setFollows(bool on, const QString& what);

    // open reads a scenario file into the document. On failure the document stays as it was and
    // the result's error says why.
    io::LoadResult open(const QString& path);
    // openPreset opens a built-in scenario.
    io::LoadResult openPreset(const QString& id);
    // saveAs writes the document to path atomically; it returns an empty string or why not.
    QString saveAs(const QString& path);
    // revert reopens the file (or preset) the document came from, dropping unsaved changes. It
    // returns an empty string or why not.
    QString revert();

signals:
    // changed is emitted after every change of scenario(), edits, undo and redo included.
    void changed();
    // refused is emitted when change() refuses an edit: "Rate: nginx_limit_req: rate ...".
    // changed() follows it; revision() is then unchanged.
    void refused(const QString& message);
    // modifiedChanged is emitted when isModified() changes.
    void modifiedChanged(bool modified);
    // identityChanged is emitted when filePath(), presetId() or displayName() change.
    void identityChanged();

private:
    friend class ScenarioEdit;
    void apply(const Scenario& s, bool follows);
    void push(const QString& what, const Scenario& next, bool follows);

    Scenario m_scenario;
    QString m_filePath;
    QString m_presetId;
    QString m_presetTitle;
    Scenario m_preset; // as the preset opened, when presetId is set
    QUndoStack* m_undo;
    bool m_modifiedOnOpen = false;
    bool m_follows = true;
    quint64 m_revision = 0;
};

} // namespace ratelab::ui
