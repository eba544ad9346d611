// The bench's figures of the app's frames: a slider change's update, its stages, and a drag.
#pragma once

#include "scenario/scenario.h"

#include <cstdint>
#include <functional>

namespace ratelab::app {

// updateMs is the median time of a slider change at n requests: a new scenario simulated,
// reduced to the rows' pixels, laid out and painted on a 1600x900 dashboard.
double updateMs(std::int64_t n);

// UpdateStages is one drag frame split into its stages (medians, ms): the frame built off the
// GUI thread as the pipeline builds it (every row simulated and reduced to its pixels, the
// arrivals and lookback reused from the drag's earlier frames), the rows laid out with it, and
// the dashboard painted.
struct UpdateStages {
    double simulateReduceMs = 0;
    double layOutMs = 0;
    double paintMs = 0;
};
UpdateStages updateStages(std::int64_t n);
// updateStages times the stages of kRuns + 1 changes of `start` (the first a warm-up), change
// making the run-th from it.
UpdateStages updateStages(const Scenario& start, const std::function<void(Scenario&, int)>& change);

// DragFigures is what dragging the limit on a window reports.
struct DragFigures {
    double maxGuiStallMs = 0; // the longest the GUI event loop went without running a 1 ms timer
    double settleMs = 0;      // from the last change to the first paint of its frame
    double framesPerS = 0;    // frames delivered while the drag went on, per second of drag
};

// dragFigures is the median of three drags of the limit through `changes` values, 16 ms apart,
// at `requests` requests (every row on 8 local nodes with `cluster`), each on a fresh window.
DragFigures dragFigures(std::int64_t requests, int changes, bool cluster = false);

// dragServerScenario is `requests` Poisson requests (benchScenario) through a fixed window,
// served by 64 workers of an exponential 50 ms with a queue of 1000 and a client timeout of 1 s,
// with a Gradient2 row.
Scenario dragServerScenario(std::int64_t requests);
// dragServerFigures is the median of three drags of the server's workers through `changes`
// values (65 on), 16 ms apart, on dragServerScenario(requests).
DragFigures dragServerFigures(std::int64_t requests, int changes);
// serverStages is updateStages of that drag's changes of workers.
UpdateStages serverStages(std::int64_t requests);
// clusterStages is updateStages of the cluster drag's changes of the limit (dragFigures with
// `cluster`).
UpdateStages clusterStages(std::int64_t requests);

} // namespace ratelab::app
