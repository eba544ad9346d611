#include "outputpath.h"

#include <QSaveFile>

#include <filesystem>
#include <system_error>

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

QString writeFileAtomically(const QString& path, const QByteArray& data)
{
    if (const QString problem = outputPathProblem(path); !problem.isEmpty())
        return problem;
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return QString("cannot write %1: %2").arg(path, file.errorString());
    if (file.write(data) != data.size()) {
        const QString reason = file.errorString();
        file.cancelWriting();
        return QString("cannot write %1: %2").arg(path, reason);
    }
    if (!file.commit())
        return QString("cannot write %1: %2").arg(path, file.errorString());
    return {};
}

} // namespace ratelab::io
