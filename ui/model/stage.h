// Stage is what a window shows, held in one place: the current frame (shared and immutable, so
// views read it and never copy it) and the playhead, with the counts that follow it. The frame
// pipeline sets the frame and the playback bar the playhead; the dashboard (its rows and table)
// observes the stage and draws. No view is where the frame or the playhead lives.
#pragma once

#include "model/frame.h"

#include <QObject>

#include <memory>
#include <optional>

namespace ratelab::ui {

class Stage : public QObject {
    Q_OBJECT
public:
    using QObject::QObject;

    // setFrame shows a frame that has a trace (others are ignored): the counts start again, at
    // the playhead. It emits frameChanged.
    void setFrame(std::shared_ptr<const Frame> frame);
    const Frame& frame() const { return *m_frame; }
    std::shared_ptr<const Frame> sharedFrame() const { return m_frame; }

    // setPlayhead shows the requests up to the playhead; nullopt shows everything and the totals.
    // It moves the counts and emits playheadChanged.
    void setPlayhead(std::optional<Playhead> playhead);
    const std::optional<Playhead>& playhead() const { return m_playhead; }

    // counts are every row's verdicts up to the playhead (all of them without one).
    const RunningCounts& counts() const { return m_counts; }

    // setVeiled hides the decisions (a question is asked: marks grey, counts blank, no level)
    // or reveals them. It emits veilChanged when that changes.
    void setVeiled(bool veiled);
    bool veiled() const { return m_veiled; }

signals:
    void frameChanged();
    void playheadChanged();
    void veilChanged();

private:
    void moveCounts();

    std::shared_ptr<const Frame> m_frame = std::make_shared<const Frame>(); // never null
    std::optional<Playhead> m_playhead;
    RunningCounts m_counts;
    bool m_veiled = false;
};

} // namespace ratelab::ui
