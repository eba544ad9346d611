#include "outputpath.h"

#include <QSaveFile>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>

#include <unistd.h>

namespace ratelab::io {

namespace {

// QSaveFile writes to an unnamed file (O_TMPFILE), but on commit over an existing target it links
// that file to a named temporary and renames it: a signal between the two leaves "path.XXXXXX"
// beside the target. SIGINT, SIGTERM and SIGHUP are therefore held while a file is written and
// delivered, with whatever disposition was there before, once the file is whole or abandoned.
// Dispositions are process-wide, so a signal sent to any thread waits too (blocking the writing
// thread's mask would not hold a signal the kernel hands to another thread). SIGKILL cannot wait:
// it can still leave that one temporary, holding the whole new file, beside the old target.
constexpr int kHeld[] = {SIGINT, SIGTERM, SIGHUP};
std::atomic<int> g_heldSignal{0};
std::mutex g_holding; // one write holds the signals at a time

void recordSignal(int sig) { g_heldSignal.store(sig); }

class HeldSignals {
public:
    HeldSignals()
        : m_lock(g_holding)
    {
        struct sigaction sa {};
        sa.sa_handler = recordSignal;
        sigemptyset(&sa.sa_mask);
        for (std::size_t i = 0; i < std::size(kHeld); ++i)
            sigaction(kHeld[i], &sa, &m_old[i]);
    }
    ~HeldSignals()
    {
        for (std::size_t i = 0; i < std::size(kHeld); ++i)
            sigaction(kHeld[i], &m_old[i], nullptr);
        if (const int sig = g_heldSignal.exchange(0); sig != 0)
            ::raise(sig); // what it would have done, now that the file is whole or gone
    }
    HeldSignals(const HeldSignals&) = delete;
    HeldSignals& operator=(const HeldSignals&) = delete;

private:
    std::lock_guard<std::mutex> m_lock;
    struct sigaction m_old[std::size(kHeld)];
};

} // namespace

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
    const HeldSignals held;
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
