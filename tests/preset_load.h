// preset loads a preset by its id for a test, which fails at once when it does not load.
#pragma once

#include "presets.h"

#include <QtGlobal>

inline ratelab::Scenario preset(const QString& id)
{
    const ratelab::io::LoadResult r = ratelab::io::loadPreset(id);
    if (!r.scenario)
        qFatal("preset %s: %s", qPrintable(id), qPrintable(r.error));
    return *r.scenario;
}
