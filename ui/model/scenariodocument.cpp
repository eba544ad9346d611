#include "model/scenariodocument.h"

#include "limiters/follows.h"

#include "scenario/rows.h"

#include "arithmetic/decimal.h"
#include "presets.h"

#include <QFileInfo>
#include <QUndoCommand>
#include <QUndoStack>

namespace ratelab::ui {

// ScenarioEdit is one undoable change: the scenario before and after it.
// ScenarioEdit is one undoable change: the scenario and the follow flag before and after it.
class ScenarioEdit : public QUndoCommand {
public:
    ScenarioEdit(ScenarioDocument* doc, const QString& what, Scenario before, bool followsBefore, Scenario after,
                 bool followsAfter)
        : QUndoCommand(what), m_doc(doc), m_before(std::move(before)), m_after(std::move(after)),
          m_followsBefore(followsBefore), m_followsAfter(followsAfter)
    {
    }
    void undo() override { m_doc->apply(m_before, m_followsBefore); }
    void redo() override { m_doc->apply(m_after, m_followsAfter); }
    int id() const override { return 1; }
    bool mergeWith(const QUndoCommand* other) override
    {
        if (other->text() != text())
            return false;
        const auto* next = static_cast<const ScenarioEdit*>(other);
        m_after = next->m_after;
        m_followsAfter = next->m_followsAfter;
        if (m_after == m_before && m_followsAfter == m_followsBefore)
            setObsolete(true);
        return true;
    }

private:
    ScenarioDocument* m_doc;
    Scenario m_before;
    Scenario m_after;
    bool m_followsBefore;
    bool m_followsAfter;
};

ScenarioDocument::ScenarioDocument(QObject* parent)
    : QObject(parent)
    , m_undo(new QUndoStack(this))
{
    connect(m_undo, &QUndoStack::cleanChanged, this, [this] { emit modifiedChanged(isModified()); });
}

ScenarioDocument::~ScenarioDocument() = default;

QString ScenarioDocument::displayName() const
{
    if (!m_filePath.isEmpty())
        return QFileInfo(m_filePath).fileName();
    if (!m_presetId.isEmpty())
        return m_presetTitle.isEmpty() ? m_presetId : m_presetTitle;
    return tr("Untitled");
}

namespace {

Scenario withoutWords(Scenario s)
{
    s.title.clear();
    s.lesson.clear();
    return s;
}

} // namespace

bool ScenarioDocument::differsFromPreset() const
{
    return !m_presetId.isEmpty() && !(withoutWords(m_scenario) == withoutWords(m_preset));
}

bool ScenarioDocument::isModified() const { return m_modifiedOnOpen || !m_undo->isClean(); }

void ScenarioDocument::apply(const Scenario& s, bool follows)
{
    m_scenario = s;
    m_follows = follows;
    ++m_revision;
    emit changed();
}

void ScenarioDocument::reset(const Scenario& s, const QString& filePath, const QString& presetId, bool modified)
{
    const bool wasModified = isModified();
    m_undo->clear();
    m_modifiedOnOpen = modified;
    m_filePath = filePath;
    m_presetId = presetId;
    m_presetTitle = presetId.isEmpty() ? QString() : QString::fromStdString(s.title);
    m_preset = presetId.isEmpty() ? Scenario{} : s;
    m_scenario = s;
    m_follows = followsLimits(s.config);
    ++m_revision;
    emit identityChanged();
    emit changed();
    if (wasModified != isModified())
        emit modifiedChanged(isModified());
}

void ScenarioDocument::edit(const QString& what, const Scenario& nextScenario) { push(what, nextScenario, m_follows); }

void ScenarioDocument::replace(const QString& what, const Scenario& next) { push(what, next, followsLimits(next.config)); }

void ScenarioDocument::setFollows(bool on, const QString& what)
{
    Scenario next = m_scenario;
    if (on)
        next.config = next.config.withLimits(next.config.limit(), next.config.windowNanos());
    push(what, next, on);
}

void ScenarioDocument::push(const QString& what, const Scenario& nextScenario, bool follows)
{
    // An edit that sets capacity or rate by hand (the Rate box, "try rate 1") stops them
    // following, in the same undo step.
    follows = follows && followsLimits(nextScenario.config);
    if (nextScenario == m_scenario && follows == m_follows)
        return;
    Scenario next = nextScenario;
    // A preset's title names what its settings show: once they change, say what it is based
    // on (in the same undo step), so the window, the charts and an export stay true.
    if (!m_presetId.isEmpty() && next.title == m_preset.title && !(withoutWords(next) == withoutWords(m_preset)))
        next.title = tr("Based on \u201c%1\u201d").arg(m_presetTitle).toStdString();
    const bool wasModified = isModified();
    m_undo->push(new ScenarioEdit(this, what, m_scenario, m_follows, next, follows)); // redo() applies it
    if (wasModified != isModified())
        emit modifiedChanged(isModified());
}

bool ScenarioDocument::change(const QString& what, const std::function<void(Scenario&)>& f)
{
    Scenario next = m_scenario;
    try {
        f(next);
        checkScenario(next);
    } catch (const InputError& e) {
        // Nothing changes; the views show the document again (a box that was ticked unticks).
        emit refused(what + ": " + QString::fromUtf8(e.what()));
        emit changed();
        return false;
    }
    edit(what, next);
    return true;
}

io::LoadResult ScenarioDocument::open(const QString& path)
{
    io::LoadResult r = io::loadScenarioFile(path);
    if (r.scenario)
        reset(*r.scenario, QFileInfo(path).absoluteFilePath());
    return r;
}

io::LoadResult ScenarioDocument::openPreset(const QString& id)
{
    io::LoadResult r = io::loadPreset(id);
    if (r.scenario)
        reset(*r.scenario, {}, id);
    return r;
}

QString ScenarioDocument::saveAs(const QString& path)
{
    const QString error = io::saveScenario(m_scenario, path);
    if (!error.isEmpty())
        return error;
    m_filePath = QFileInfo(path).absoluteFilePath();
    m_presetId.clear();
    m_preset = Scenario{};
    const bool wasModified = isModified();
    m_modifiedOnOpen = false;
    m_undo->setClean();
    emit identityChanged();
    if (wasModified)
        emit modifiedChanged(false);
    return {};
}

QString ScenarioDocument::revert()
{
    if (!m_filePath.isEmpty()) {
        const io::LoadResult r = io::loadScenarioFile(m_filePath);
        if (!r.scenario)
            return r.error;
        reset(*r.scenario, m_filePath);
        return {};
    }
    if (!m_presetId.isEmpty()) {
        const io::LoadResult r = io::loadPreset(m_presetId);
        if (!r.scenario)
            return r.error;
        reset(*r.scenario, {}, m_presetId);
        return {};
    }
    return tr("there is no file to revert to: the scenario was never saved");
}

} // namespace ratelab::ui
