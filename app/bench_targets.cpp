// The speed targets (bench_targets.h).
#include "bench_targets.h"

#include "bench_compare.h"
#include "limiters/limiter.h"

#include <QJsonValue>

#include <algorithm>

namespace ratelab::app {

namespace {

// A frame's time is judged against the work it stands for, rows x requests x floor_ns of the same
// run, so that a machine twice as slow has a bound twice as long. Every textbook decision within
// 1.5 floors, the sliding log, which keeps a log, within 2.
std::vector<BenchTarget> makeTargets()
{
    std::vector<BenchTarget> t = {
        {"drag.frame_floor_ratio", "a drag frame at 1M (in rows x requests x floor)", 2.0, true},
        {"drag.settle_floor_ratio", "a drag's settle at 1M (in rows x requests x floor)", 2.5, true},
        {"update_floor_ratio.1000000", "an update at 1M (in rows x requests x floor)", 2.0, true},
        {"engine_floor_ratio", "an attempt through the engine (floors)", 25, true},
    };
    for (Algorithm a : kAllAlgorithms)
        t.push_back({"decide_floor_ratio." + std::string(algorithmId(a)), "a decision of " + std::string(algorithmTitle(a)) + " (floors)",
                     a == Algorithm::SlidingWindowLog ? 2.0 : 1.5, true});
    t.insert(t.end(), {
                          {"drag_cluster8.frames_per_s", "a drag at 1M on 8 local nodes (frames/s)", 12, false},
                          {"drag_cluster8.settle_ms", "that drag's settle (ms)", 250, true},
                          {"drag_server.frames_per_s", "a drag at 1M with a server behind the limiter (frames/s)", 8, false},
                          {"drag_server.settle_ms", "that drag's settle (ms)", 250, true},
                          {"drag_cluster8_100000.frames_per_s", "a drag at 100k on 8 local nodes (frames/s)", 30, false},
                          {"drag_server_100000.frames_per_s", "a drag at 100k with a server behind the limiter (frames/s)", 30, false},
                          {"advise_ms", "advise --for nginx --compare on a 1M-line log of 10k keys (ms)", 5000, true},
                          {"advise_replay_ratio", "that advise against one replay per family it searches", 2.0, true},
                      });
    return t;
}

// figureAt finds a dotted path's leaf: absent, or present and a number or null.
std::optional<QJsonValue> figureAt(const QJsonObject& run, const std::string& path)
{
    QJsonValue v = run;
    std::size_t from = 0;
    while (from <= path.size()) {
        const std::size_t dot = std::min(path.find('.', from), path.size());
        if (!v.isObject())
            return std::nullopt;
        v = v.toObject().value(QString::fromStdString(path.substr(from, dot - from)));
        from = dot + 1;
    }
    if (v.isUndefined())
        return std::nullopt;
    return v;
}

} // namespace

const std::vector<BenchTarget>& benchTargets()
{
    static const std::vector<BenchTarget> targets = makeTargets();
    return targets;
}

std::vector<TargetCheck> checkTargets(const QJsonObject& run)
{
    std::vector<TargetCheck> out;
    for (const BenchTarget& t : benchTargets()) {
        TargetCheck c;
        c.target = t;
        if (const auto v = figureAt(run, t.figure)) {
            c.measured = true;
            if (v->isDouble())
                c.value = v->toDouble();
        }
        out.push_back(std::move(c));
    }
    return out;
}

std::string targetsText(const std::vector<TargetCheck>& checks)
{
    std::string out = "Targets (a ratio to this run's floor where it says floors)\n";
    int met = 0, judged = 0;
    for (const TargetCheck& c : checks) {
        const std::string value = c.value ? shortNumber(*c.value) : c.measured ? "none" : "-";
        const std::string verdict = !c.measured ? "not measured" : c.met() ? "met" : "MISSED";
        std::string bound = value + (c.target.atMost ? " <= " : " >= ") + shortNumber(c.target.bound);
        bound.resize(std::max<std::size_t>(bound.size() + 2, 18), ' ');
        out += "  " + verdict + std::string(14 - verdict.size(), ' ') + bound + c.target.what + "  (" + c.target.figure + ")\n";
        met += c.met();
        judged += c.measured;
    }
    out += "  " + std::to_string(met) + " of " + std::to_string(judged) + " met\n";
    return out;
}

} // namespace ratelab::app
