#include "outputpath.h"

#include <QSaveFile>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include <unistd.h>

namespace ratelab::io {

QString outputPathProblem(const QString& path)
{
    if (path.isEmpty())
        return "no file name given";
    std::error_code ec;
    const auto status = std::filesystem::status(std::filesystem::path(path.toStdString()), ec);
    if (ec || status.type() == std::filesystem::file_type::not_found || status.type() == std::filesystem::file_type::regular)
        return {}; // new, or a regular file (a symlink to one counts): QSaveFile reports any other failure
    const char* what = "not a regular file";
    switch (status.type()) {
    case std::filesystem::file_type::directory: what = "a directory"; break;
    case std::filesystem::file_type::fifo: what = "a FIFO (named pipe)"; break;
    case std::filesystem::file_type::character:
    case std::filesystem::file_type::block: what = "a device"; break;
    case std::filesystem::file_type::socket: what = "a socket"; break;
    default: break;
    }
    return QString("cannot write %1: it is %2, not a regular file").arg(path, what);
}

QString cannotWrite(const QString& path, const QString& reason) { return QString("cannot write %1: %2").arg(path, reason); }

QString writeFileAtomically(const QString& path, const QByteArray& data)
{
    if (const QString problem = outputPathProblem(path); !problem.isEmpty())
        return problem;
    QSaveFile file(path);
    // Unbuffered: buffered, QFileDevice keeps up to 16 KB back for the flush in commit(), and Qt
    // 6.4's QSaveFile::commit does not see that flush fail. On a full disk it renamed an empty
    // temporary over the user's file and reported success.
    if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
        return cannotWrite(path, file.errorString());
    for (qint64 done = 0; done < data.size();) {
        const qint64 n = file.write(data.constData() + done, data.size() - done);
        if (n <= 0) {
            const QString reason = file.errorString();
            file.cancelWriting();
            return cannotWrite(path, reason);
        }
        done += n;
    }
    // The data on the disk before the name points at it: a crash after the rename leaves the new
    // file whole, and a disk that takes its blocks only now (delayed allocation, NFS) says so here.
    if (::fsync(file.handle()) != 0 && errno != EINVAL) { // EINVAL: a file system without fsync
        const QString reason = QString::fromLocal8Bit(std::strerror(errno));
        file.cancelWriting();
        return cannotWrite(path, reason);
    }
    if (!file.commit())
        return cannotWrite(path, file.errorString());
    return {};
}

} // namespace ratelab::io
