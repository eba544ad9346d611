// Presets: the classroom scenarios compiled into the program (resources/presets/ID.ratelab.json),
// each with a title and a short lesson that the charts demonstrate.
#pragma once

#include "scenariofile.h"

#include <QList>
#include <QString>

namespace ratelab::io {

struct PresetInfo {
    QString id;    // "edge-burst"
    QString title; // "Boundary burst: twice the limit in a fixed window"
};

// presets lists every preset in the order they are taught.
QList<PresetInfo> presets();

// loadPreset loads a preset by id. An unknown id is refused with a message naming the known ones.
LoadResult loadPreset(const QString& id);

} // namespace ratelab::io
