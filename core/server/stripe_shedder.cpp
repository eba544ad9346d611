#include "server/stripe_shedder.h"

#include "arithmetic/decimal.h"

#include <charconv>

namespace ratelab {

namespace {

constexpr std::int64_t kBillion = 1'000'000'000;
constexpr std::int64_t kMaxClients = 10'000'000;

} // namespace

std::int64_t exactBillionths(double x, const std::string& what)
{
    char text[64];
    const auto end = std::to_chars(text, text + sizeof text, x, std::chars_format::fixed).ptr;
    const std::string_view s(text, std::size_t(end - text));
    const auto point = s.find('.');
    const std::size_t places = point == std::string_view::npos ? 0 : s.size() - point - 1;
    if (places > 9)
        throw InputError(what + ": at most 9 decimal places (got " + std::string(s) + ")");
    std::int64_t units = 0;
    for (const char c : s)
        if (c != '.')
            units = units * 10 + (c - '0');
    for (std::size_t i = places; i < 9; ++i)
        units *= 10;
    return units;
}

Gate::Verdict StripeShedder::offer(Nanos, std::int64_t id, std::int64_t client)
{
    const bool isCritical = m_byFile ? m_classified == id && m_classifiedCritical : critical(client);
    if (!isCritical) {
        // The post: with a reservation of 20%, a non-critical request over the 80% allocation
        // is rejected (503). Over: it would make the usage counted more than A.
        const std::int64_t usage = m_fleet ? m_inflight : nonCritical();
        if (usage >= m_allocation)
            return Verdict::Reject;
        m_nonCritical.insert(id);
    }
    ++m_inflight;
    return Verdict::Admit;
}

void StripeShedder::release(Nanos, std::int64_t id, bool, std::vector<std::int64_t>&)
{
    // Served or dropped alike: the attempt no longer uses the fleet.
    m_nonCritical.erase(id);
    if (m_inflight > 0)
        --m_inflight;
}

GateRecipe readStripeShedder(GateOptions& o)
{
    const std::int64_t capacity = o.integer("capacity", 0, 1, 1'000'000);
    const std::int64_t reserved = exactBillionths(o.real("reserved", 0.2, 0, 1), "stripe: reserved");
    const bool fleet = o.word("usage", "noncritical", {"noncritical", "fleet"}) == "fleet";
    const std::int64_t count = o.integer("critical", -1, 0, kMaxClients);
    const double shareValue = o.real("critical_share", -1, 0, 1);
    const std::int64_t clients = o.integer("clients", 0, 1, kMaxClients);
    const bool byFile = o.word("priority", "clients", {"clients", "file"}) == "file";
    o.done();
    if (capacity == 0)
        throw InputError("stripe: capacity: required (the workers it protects, 1 or more)");
    const bool share = shareValue >= 0;
    if (byFile && (count >= 0 || share || clients > 0))
        throw InputError("stripe: priority: with priority=file the arrivals' priority column says which requests are "
                         "critical; leave out critical, critical_share and clients");
    if (count >= 0 && (share || clients > 0))
        throw InputError("stripe: critical: give critical=N or critical_share=S with clients=K, not both");
    if (count < 0 && !share && !byFile)
        throw InputError("stripe: critical: required (critical=N: clients 0 to N-1 are critical; "
                         "or critical_share=S with clients=K; or priority=file)");
    if (share && clients == 0)
        throw InputError("stripe: clients: required with critical_share (how many clients the share is of)");
    if (!share && clients > 0)
        throw InputError("stripe: clients: only with critical_share");
    // A = floor((1 - R) * C) and N = ceil(S * K), both in billionths, exactly.
    const std::int64_t allocation = std::int64_t(floorDiv(Int128(kBillion - reserved) * capacity, kBillion));
    const std::int64_t critical = share ? std::int64_t(ceilDiv(Int128(exactBillionths(shareValue, "stripe: critical_share")) * clients, kBillion)) : count;
    return {[=](std::uint64_t) -> std::unique_ptr<Gate> { return std::make_unique<StripeShedder>(allocation, critical, fleet, byFile); },
            byFile};
}

} // namespace ratelab
