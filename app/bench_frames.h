// The bench's figures of the app's frames: a slider change's update, its stages, and a drag.
#pragma once

#include <cstdint>

namespace ratelab::app {

// updateMs is the median time of a slider change at n requests: a new scenario simulated,
// reduced to the rows' pixels, laid out and painted on a 1600x900 dashboard.
double updateMs(std::int64_t n);

// UpdateStages is one update split into its stages (medians, ms): the frame built off the GUI
// thread (every row simulated and reduced to its pixels), the rows laid out with it, and the
// dashboard painted.
struct UpdateStages {
    double simulateReduceMs = 0;
    double layOutMs = 0;
    double paintMs = 0;
};
UpdateStages updateStages(std::int64_t n);

// DragFigures is what dragging the limit on a window reports.
struct DragFigures {
    double maxGuiStallMs = 0; // the longest the GUI event loop went without running a 1 ms timer
    double settleMs = 0;      // from the last change to the first paint of its frame
    double framesPerS = 0;    // frames delivered while the drag went on, per second of drag
};

// dragFigures is the median of three drags of the limit through `changes` values, 16 ms apart,
// at `requests` requests (every row on 8 local nodes with `cluster`), each on a fresh window.
DragFigures dragFigures(std::int64_t requests, int changes, bool cluster = false);

} // namespace ratelab::app
