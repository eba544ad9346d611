// simulateRows runs every row of a scenario as the app draws them (rows.h): what the preset
// tests check their lessons' numbers against.
#pragma once

#include "scenario/rows.h"
#include "engine/simulator.h"

#include <QtGlobal>

inline ratelab::Trace simulateRows(const ratelab::Scenario& s)
{
    ratelab::RowInputs in = ratelab::resolveRowInputs(s);
    ratelab::Trace t{s.config, in.arrivals, {}, in.costs};
    for (std::size_t r = 0; r < ratelab::rowCount(s); ++r)
        t.results.push_back(ratelab::simulateRow(s, in, r));
    return t;
}

// decisionsOf returns every decision of a row of simulateRows, in order: recorded (a plain row)
// or read from the engine's log (a row the engine ran keeps no copy).
inline std::vector<ratelab::Decision> decisionsOf(const ratelab::AlgorithmTrace& r)
{
    if (!r.log)
        return r.decisions;
    std::vector<ratelab::Decision> out;
    for (const ratelab::LoggedAttempt& a : *r.log)
        out.push_back(a.decision());
    return out;
}

// rowResult is the row of algorithm a in a trace of simulateRows (the test fails without one).
inline const ratelab::AlgorithmTrace& rowResult(const ratelab::Trace& t, ratelab::Algorithm a)
{
    for (const ratelab::AlgorithmTrace& r : t.results)
        if (r.algorithm == a)
            return r;
    qFatal("algorithm %d not in the trace", int(a));
}

// admitted returns the indices of the admitted requests of a row of simulateRows.
inline std::vector<std::size_t> admitted(const ratelab::AlgorithmTrace& r)
{
    std::vector<std::size_t> out;
    const std::vector<ratelab::Decision> d = decisionsOf(r);
    for (std::size_t i = 0; i < d.size(); ++i)
        if (d[i].allowed)
            out.push_back(i);
    return out;
}

// range returns the indices from, from + 1, ..., to - 1.
inline std::vector<std::size_t> range(std::size_t from, std::size_t to)
{
    std::vector<std::size_t> out;
    for (std::size_t i = from; i < to; ++i)
        out.push_back(i);
    return out;
}
