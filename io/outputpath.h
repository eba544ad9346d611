// Writing output files: only ever over a regular file (or to a new path), and atomically.
//
// Every file the program writes (scenarios, decks, CSV, JSON, SVG, PNG, PDF, per-key reports, the
// app's exports) goes through writeFileAtomically as one block of bytes: a writer encodes into
// memory (a QBuffer never fails), then this writes a temporary file beside the target, checks
// every write, fsyncs it and renames it over the target. On any failure the old file stays as it
// was, the temporary is gone, and the caller gets one line that says why.
//
// Renaming over a FIFO, a device node or a socket would replace that special file with a regular
// one; outputPathProblem refuses those first.
#pragma once

#include <QByteArray>
#include <QString>

namespace ratelab::io {

// outputPathProblem returns why path cannot be written as an output file (it exists and is not a
// regular file: a directory, a FIFO, a device, a socket), or an empty string when it can.
QString outputPathProblem(const QString& path);

// writeFileAtomically writes data to path after outputPathProblem agrees. It returns an empty
// string, or one line, "cannot write PATH: REASON" (REASON the system's, "No space left on
// device"), after which path holds what it held before.
QString writeFileAtomically(const QString& path, const QByteArray& data);

// cannotWrite is that line, for a writer that failed before it had its bytes.
QString cannotWrite(const QString& path, const QString& reason);

} // namespace ratelab::io
