#include "model/stage.h"

namespace ratelab::ui {

void Stage::setFrame(std::shared_ptr<const Frame> frame)
{
    if (!frame || !frame->trace)
        return;
    m_frame = std::move(frame);
    m_counts.reset(m_frame->trace);
    moveCounts();
    emit frameChanged();
}

void Stage::setPlayhead(std::optional<Playhead> playhead)
{
    m_playhead = playhead;
    moveCounts();
    emit playheadChanged();
}

void Stage::moveCounts()
{
    if (m_frame->trace)
        m_counts.moveTo(m_playhead ? m_playhead->shown : m_frame->trace->arrivals.size());
}

void Stage::setVeiled(bool veiled)
{
    if (veiled == m_veiled)
        return;
    m_veiled = veiled;
    emit veilChanged();
}

} // namespace ratelab::ui
