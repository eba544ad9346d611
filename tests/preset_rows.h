// simulateRows runs every row of a scenario as the app draws them (rows.h): what the preset
// tests check their lessons' numbers against.
#pragma once

#include "rows.h"
#include "simulator.h"

#include <QtGlobal>

inline ratelab::Trace simulateRows(const ratelab::Scenario& s)
{
    ratelab::RowInputs in = ratelab::resolveRowInputs(s);
    ratelab::Trace t{s.config, in.arrivals, {}, in.costs, {}};
    for (std::size_t r = 0; r < ratelab::rowCount(s); ++r)
        t.results.push_back(ratelab::simulateRow(s, in, r));
    return t;
}

// rowResult is the row of algorithm a in a trace of simulateRows (the test fails without one).
inline const ratelab::AlgorithmTrace& rowResult(const ratelab::Trace& t, ratelab::Algorithm a)
{
    for (const ratelab::AlgorithmTrace& r : t.results)
        if (r.algorithm == a)
            return r;
    qFatal("algorithm %d not in the trace", int(a));
}
