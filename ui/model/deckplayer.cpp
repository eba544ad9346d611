#include "model/deckplayer.h"

#include <algorithm>
#include <utility>

namespace ratelab::ui {

void DeckPlayer::open(io::Deck deck, const QString& path)
{
    m_deck = std::move(deck);
    m_path = path;
    m_modified = false;
    emit deckChanged();
    emit opened();
    goTo(0);
}

void DeckPlayer::close()
{
    if (!m_deck)
        return;
    m_deck.reset();
    m_path.clear();
    m_modified = false;
    m_index = 0;
    m_revealed = true;
    emit deckChanged();
    emit revealedChanged();
}

void DeckPlayer::goTo(int i)
{
    if (!m_deck || i < 0 || i >= count())
        return;
    m_index = i;
    m_revealed = step().question.empty();
    emit stepChanged();
    emit revealedChanged();
}

bool DeckPlayer::next()
{
    if (!m_deck)
        return false;
    if (!m_revealed) {
        m_revealed = true;
        emit revealedChanged();
        return true;
    }
    if (m_index + 1 >= count())
        return false;
    goTo(m_index + 1);
    return true;
}

bool DeckPlayer::previous()
{
    if (!m_deck || m_index == 0)
        return false;
    goTo(m_index - 1);
    return true;
}

void DeckPlayer::insertStep(int at, io::DeckStep step)
{
    if (!m_deck)
        m_deck.emplace();
    at = std::clamp(at, 0, count());
    m_deck->steps.insert(m_deck->steps.begin() + at, std::move(step));
    edited();
    goTo(at);
}

void DeckPlayer::removeStep(int i)
{
    if (!m_deck || count() <= 1 || i < 0 || i >= count())
        return;
    m_deck->steps.erase(m_deck->steps.begin() + i);
    edited();
    goTo(std::min(m_index, count() - 1));
}

void DeckPlayer::moveStep(int i, int by)
{
    const int to = i + by;
    if (!m_deck || i < 0 || i >= count() || to < 0 || to >= count())
        return;
    std::swap(m_deck->steps[std::size_t(i)], m_deck->steps[std::size_t(to)]);
    if (m_index == i)
        m_index = to;
    else if (m_index == to)
        m_index = i;
    edited();
}

void DeckPlayer::setText(int i, const QString& title, const QString& narrative, const QString& question,
                         const QString& answer)
{
    if (!m_deck || i < 0 || i >= count())
        return;
    io::DeckStep& s = m_deck->steps[std::size_t(i)];
    s.scenario.title = title.toStdString();
    s.scenario.lesson = narrative.toStdString();
    s.question = question.toStdString();
    s.answer = question.isEmpty() ? std::string() : answer.toStdString();
    edited();
    if (i == m_index)
        goTo(i); // shown again with its new text (and hidden again if it now asks)
}

void DeckPlayer::setScenario(int i, const Scenario& s)
{
    if (!m_deck || i < 0 || i >= count())
        return;
    io::DeckStep& step = m_deck->steps[std::size_t(i)];
    Scenario next = s;
    next.title = step.scenario.title;
    next.lesson = step.scenario.lesson;
    step.scenario = std::move(next);
    if (step.pin && *step.pin >= resolveArrivals(step.scenario).size())
        step.pin.reset(); // the request it pinned is gone
    edited();
}

void DeckPlayer::setTitle(const QString& title)
{
    if (!m_deck)
        return;
    m_deck->title = title.toStdString();
    edited();
}

QString DeckPlayer::save(const QString& path)
{
    if (!m_deck)
        return tr("no deck is open");
    if (QString error = io::saveDeck(*m_deck, path); !error.isEmpty())
        return error;
    m_path = path;
    m_modified = false;
    emit deckChanged();
    return {};
}

void DeckPlayer::edited()
{
    m_modified = true;
    emit deckChanged();
}

} // namespace ratelab::ui
