#include "limiters/products/python_limits.h"

#include <array>
#include <cctype>
#include <regex>

namespace ratelab {

namespace {

constexpr std::array<std::string_view, 3> kStrategies = {"fixed-window", "fixed-window-elastic-expiry", "moving-window"};

struct LimitItem {
    std::int64_t amount;
    std::int64_t expirySeconds;
};

// parseLimit reads one item of limits' string notation (limits/util.py SINGLE_EXPR).
std::optional<LimitItem> parseLimit(const std::string& text)
{
    if (text.size() > 200)
        return std::nullopt; // std::regex recurses per character: keep it short
    static const std::regex expr(R"(^\s*([0-9]+)\s*(/|\s*per\s*)\s*([0-9]+)*\s*(hour|minute|second|day|month|year)s?\s*$)",
                                 std::regex::icase);
    std::smatch m;
    if (!std::regex_match(text, m, expr) || m[1].length() > 10 || m[3].length() > 10)
        return std::nullopt;
    std::string g = m[4].str();
    for (char& c : g)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    const std::int64_t seconds = g == "second" ? 1 : g == "minute" ? 60 : g == "hour" ? 3600 : g == "day" ? 86400
                               : g == "month" ? 86400 * 30 : 86400 * 30 * 12;
    const std::int64_t multiples = m[3].matched && m[3].length() > 0 ? std::stoll(m[3].str()) : 1;
    return LimitItem{std::stoll(m[1].str()), seconds * std::max<std::int64_t>(multiples, 1)};
}

} // namespace

PythonLimits::PythonLimits(const LimiterConfig& config)
{
    const ProductParams p(Algorithm::PythonLimits, config);
    const std::string s = p.choice("strategy", "fixed-window", kStrategies);
    m_strategy = s == "fixed-window" ? Strategy::FixedWindow
               : s == "moving-window" ? Strategy::MovingWindow : Strategy::FixedWindowElastic;
    if (const auto text = p.text("limit")) {
        const auto item = parseLimit(*text);
        if (!item)
            p.fail("limit " + quoted(*text) + " is not limits' notation (\"10/minute\", \"10 per 2 minutes\")");
        m_amount = item->amount;
        m_expiry = item->expirySeconds;
    } else if (p.given()) {
        p.fail("limit is required (\"10/minute\", \"10 per 2 minutes\")");
    } else {
        const auto w = wholeUnits(config.windowNanos(), kNanosPerSecond);
        if (!w)
            p.fail("the window must be whole seconds for limits (or give --product-option limit=\"N per M seconds\")");
        m_amount = config.limit();
        m_expiry = *w;
    }
    if (m_amount > LimiterConfig::kMaxLimit)
        p.fail("the amount must be at most " + std::to_string(LimiterConfig::kMaxLimit));
}

Decision PythonLimits::step(Nanos t, std::int64_t cost)
{
    const double now = seconds(t);
    Decision d;
    if (m_strategy == Strategy::MovingWindow) {
        if (!admits(t, cost))
            return d;
        m_next += cost; // events[key][:0] = [entry] * cost
        if (!m_runs.empty() && m_runs.front().atime == now)
            m_runs.front().end = m_next;
        else
            m_runs.push_front({now, m_next});
        while (m_runs.size() > 1 && m_runs.back().end <= m_next - m_amount)
            m_runs.pop_back(); // wholly older than the newest m_amount: never read again
        d.allowed = true;
        return d;
    }
    // incr(): get() drops an expired counter, then += amount; expiry set on the first hit (or
    // every hit, elastic).
    if (m_hasCounter && m_expiration <= now) {
        m_hasCounter = false;
        m_counter = 0;
    }
    m_counter += cost;
    if (m_strategy == Strategy::FixedWindowElastic || m_counter == cost) {
        m_expiration = now + double(m_expiry);
        m_hasCounter = true;
    }
    d.allowed = m_counter <= m_amount;
    return d;
}

bool PythonLimits::admits(Nanos t, std::int64_t cost) const
{
    const double now = seconds(t);
    if (m_strategy != Strategy::MovingWindow)
        return counterAt(now) + cost <= m_amount;
    if (cost > m_amount)
        return false;
    const auto index = std::size_t(m_amount - cost);
    const std::optional<double> entry = atimeAt(std::int64_t(index));
    return !(entry && *entry >= now - double(m_expiry));
}

std::optional<double> PythonLimits::atimeAt(std::int64_t i) const
{
    if (i >= kept())
        return std::nullopt;
    const std::int64_t number = m_next - 1 - i;
    // Run k holds [end of run k + 1, end of run k): the entry is in the run just before the first
    // run whose end is <= number (the front's end, m_next, is above it).
    const auto after = std::partition_point(m_runs.begin(), m_runs.end(), [&](const Run& r) { return r.end > number; });
    return std::prev(after)->atime;
}

std::int64_t PythonLimits::inWindow(double now) const
{
    // The entries with atime >= now - expiry are the newest ones (atimes never increase going back).
    const double threshold = now - double(m_expiry);
    const auto older = std::partition_point(m_runs.begin(), m_runs.end(), [&](const Run& r) { return r.atime >= threshold; });
    const std::int64_t newer = older == m_runs.end() ? m_next : m_next - older->end;
    return std::min(newer, m_amount);
}

std::int32_t PythonLimits::remainingAt(Nanos t) const
{
    const double now = seconds(t);
    if (m_strategy == Strategy::MovingWindow)
        return clampRemaining(m_amount - inWindow(now));
    return clampRemaining(Int128(m_amount) - counterAt(now));
}

double PythonLimits::levelAt(Nanos t) const
{
    const double now = seconds(t);
    return double(m_strategy == Strategy::MovingWindow ? inWindow(now) : counterAt(now));
}

} // namespace ratelab
