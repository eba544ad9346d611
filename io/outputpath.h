// Writing output files: only ever over a regular file (or to a new path), and atomically.
//
// QSaveFile writes a temporary file beside the target and renames it over the target, so a
// failed write leaves the old file whole. Renaming over a FIFO, a device node or a socket would
// replace that special file with a regular one; outputPathProblem refuses those first.
#pragma once

#include <QByteArray>
#include <QString>

namespace ratelab::io {

// outputPathProblem returns why path cannot be written as an output file (it exists and is not a
// regular file: a directory, a FIFO, a device, a socket), or an empty string when it can.
QString outputPathProblem(const QString& path);

// writeFileAtomically writes data to path through QSaveFile after outputPathProblem agrees. It
// returns an empty string, or one line saying why nothing was written.
QString writeFileAtomically(const QString& path, const QByteArray& data);

} // namespace ratelab::io
