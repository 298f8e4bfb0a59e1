#pragma once
// A run's timeline as one self-contained SVG (no script, no external style): x is virtual time,
// one lane per row of `TimelineModel`; faults are coloured bands (also shaded faintly across every
// lane, so their effect on checkpoints and transactions lines up), checkpoints and transactions
// are bars from start to end coloured by outcome, instants are small shapes, a failing oracle is a
// red line at the end. Every shape has a <title>, which browsers show on hover. A legend closes
// the picture.
#include <string>

#include "reports/timeline_model.h"

namespace eosim::reports {

struct TimelineSvgOptions {
    int width_px = 1280;       // the whole picture
    int label_width_px = 150;  // lane labels on the left
};

std::string timeline_svg(const TimelineModel& model, const TimelineSvgOptions& options = {});

}  // namespace eosim::reports
