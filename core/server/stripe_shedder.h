// StripeShedder: Stripe's fleet-usage load shedder as a Gate (kind "stripe"). Stripe published
// no source; the rule is the one of the post that describes it (Paul Tarjan, "Scaling your API
// with rate limiters", stripe.com/blog/rate-limiters, 2017, section "Fleet usage load shedder"):
// requests are critical or not, a fraction of the infrastructure is always reserved for the
// critical ones, and with a reservation of 20% a non-critical request over the non-critical
// requests' 80% allocation is rejected with a 503. RateLab's reading, each decision ours where
// the post is silent:
//   - capacity C is the workers the shedder protects; the allocation of non-critical requests is
//     A = floor((1 - reserved) * C), computed exactly from the decimal given (0.2 is 2/10, not
//     the double nearest it);
//   - a non-critical attempt is admitted iff the counted usage is below A, where usage is the
//     non-critical attempts in flight ("their allocation": usage=noncritical, the default) or
//     every attempt in flight, critical ones too (usage=fleet);
//   - a critical attempt is never shed: the post sheds only non-critical ones (beyond the
//     workers, the server's own queue takes it or refuses it);
//   - "critical" is a property of the client, not of the API method as at Stripe (RateLab's
//     requests have no method): the first N client ids, 0 to N - 1, are critical (clients are
//     numbered cohort by cohort, so a first cohort of N clients is the critical one). N is
//     critical=N, or ceil(S * K) from critical_share=S and clients=K (exactly, from the decimal);
//     one of the two is required. (A list of ids would need a text accessor GateOptions lacks.)
//     Or priority=file: "critical" is a property of the request, as at Stripe, read from the
//     arrivals file's priority column (`critical` or `normal`), which the engine hands the gate
//     through Gate::classify; a request added by hand is normal. Every attempt of a request
//     (its retries) has its class.
//   - nothing queues: an attempt is admitted or rejected, at once.
#pragma once

#include "server/gate.h"

#include <unordered_set>

namespace ratelab {

// StripeShedder rejects a non-critical attempt when the usage it counts is at its allocation,
// and admits every critical attempt.
class StripeShedder final : public Gate {
public:
    // StripeShedder takes the allocation A >= 0, the count N of critical clients (ids 0 to N - 1)
    // and whether critical attempts count against A (usage=fleet). byFile: the class is the
    // request's (classify), not the client's, and N is unused.
    StripeShedder(std::int64_t allocation, std::int64_t criticalClients, bool fleet, bool byFile = false)
        : m_allocation(allocation), m_criticalClients(criticalClients), m_fleet(fleet), m_byFile(byFile)
    {
    }

    Verdict offer(Nanos t, std::int64_t id, std::int64_t client) override;
    // classify keeps attempt id's class for the offer that follows (priority=file).
    void classify(std::int64_t id, bool critical) override
    {
        m_classified = id;
        m_classifiedCritical = critical;
    }
    // byFile is true for priority=file: the arrivals' priority column decides.
    bool byFile() const { return m_byFile; }
    void release(Nanos t, std::int64_t id, bool dropped, std::vector<std::int64_t>& dispatched) override;
    // limit returns the non-critical allocation A (a critical attempt has no limit here).
    std::int64_t limit() const override { return m_allocation; }
    std::int64_t inflight() const override { return m_inflight; }

    // critical reports whether client's attempts are critical (never shed).
    bool critical(std::int64_t client) const { return client >= 0 && client < m_criticalClients; }
    // nonCritical returns the non-critical attempts in flight.
    std::int64_t nonCritical() const { return std::int64_t(m_nonCritical.size()); }

private:
    std::int64_t m_allocation;
    std::int64_t m_criticalClients;
    bool m_fleet;
    bool m_byFile;
    std::int64_t m_classified = -1; // the id classify last named (priority=file)
    bool m_classifiedCritical = false;
    std::int64_t m_inflight = 0;
    std::unordered_set<std::int64_t> m_nonCritical; // ids of the non-critical attempts in flight
};

// readStripeShedder reads "capacity=C,reserved=R,usage=noncritical|fleet" and one of
// "critical=N", "critical_share=S,clients=K" or "priority=file" (capacity 1 to 1,000,000, required; reserved 0 to
// 1, default 0.2; N 0 to 10,000,000; S 0 to 1; K 1 to 10,000,000; at most 9 decimal places for R
// and S). It throws InputError naming the key.
GateRecipe readStripeShedder(GateOptions& o);

// exactBillionths returns x, a double in [0, 1] read from a decimal of at most 9 decimal places,
// in billionths: the decimal the user wrote (0.2 -> 200,000,000), recovered from the shortest
// text that reads back to x. It throws InputError (prefixed with what) for more places.
std::int64_t exactBillionths(double x, const std::string& what);

} // namespace ratelab
