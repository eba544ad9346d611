// simulateRows runs every row of a scenario as the app draws them (rows.h): what the preset
// tests check their lessons' numbers against.
#pragma once

#include "rows.h"
#include "simulator.h"

inline ratelab::Trace simulateRows(const ratelab::Scenario& s)
{
    ratelab::RowInputs in = ratelab::resolveRowInputs(s);
    ratelab::Trace t{s.config, in.arrivals, {}, in.costs, {}};
    for (std::size_t r = 0; r < ratelab::rowCount(s); ++r)
        t.results.push_back(ratelab::simulateRow(s, in, r));
    return t;
}
