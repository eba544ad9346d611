#include "command.h"

#include "arithmetic/decimal.h"
#include "scenario/settings_codec.h"
#include "redis_store.h"

#include <QCoreApplication>

#include <cstring>
#include <iostream>

namespace ratelab::app {

bool argvHasOption(int argc, char** argv, const char* flag)
{
    const std::size_t n = std::strlen(flag);
    for (int i = 2; i < argc; ++i)
        if (std::strncmp(argv[i], flag, n) == 0 && (argv[i][n] == '\0' || argv[i][n] == '='))
            return true;
    return false;
}

int fail(const std::string& message)
{
    std::cerr << "ratelab: " << message << std::endl;
    return kBadInput;
}

bool parseOptions(QCommandLineParser& parser, const QStringList& args, QString& error)
{
    if (!parser.parse(args)) {
        error = parser.errorText();
        return false;
    }
    static const QStringList kAddUp = [] {
        QStringList names = {"layer", "product-option", "concurrency", "change"};
        const auto addLists = [&](const auto& table) { // --cohort, --join, --leave: the tables' lists
            for (const auto& s : table)
                if (s.form == SettingForm::List && !s.flag.empty())
                    names << QString::fromUtf8(s.flag.data(), qsizetype(s.flag.size()));
        };
        addLists(clusterSettings());
        addLists(clientSettings());
        return names;
    }();
    QStringList seen;
    for (const QString& name : parser.optionNames()) {
        if (kAddUp.contains(name) || seen.contains(name))
            continue;
        seen << name;
        const QStringList values = parser.values(name);
        if (values.size() > 1) {
            error = QString("--%1 is given %2 times ('%3'): give it once").arg(name).arg(values.size()).arg(values.join("', '"));
            return false;
        }
    }
    return true;
}

namespace {
QString g_commandName = "ratelab"; // "ratelab NAME" once runNamedCommand runs NAME
} // namespace

std::string helpText(const QCommandLineParser& parser)
{
    QString text = parser.helpText();
    const QString usage = "Usage: ";
    const QString program = QCoreApplication::arguments().value(0);
    if (!program.isEmpty() && text.startsWith(usage + program))
        text.replace(usage.size(), program.size(), g_commandName);
    return text.toStdString();
}

bool parseOrAnswer(QCommandLineParser& parser, const QStringList& args, int& status)
{
    if (QString error; !parseOptions(parser, args, error)) {
        status = fail(error.toStdString());
        return false;
    }
    if (parser.isSet("help")) {
        std::cout << helpText(parser);
        status = 0;
        return false;
    }
    return true;
}

bool parseOrFail(QCommandLineParser& parser, const QStringList& args, int& status)
{
    parser.addHelpOption();
    if (!parseOrAnswer(parser, args, status))
        return false;
    if (!parser.positionalArguments().isEmpty()) {
        status = fail("unexpected argument '" + parser.positionalArguments().first().toStdString() + "'");
        return false;
    }
    return true;
}

int runNamedCommand(const Command& command, const QStringList& arguments)
{
    QStringList args = arguments;
    args.removeAt(1);
    g_commandName = QString("ratelab %1").arg(command.name);
    QCommandLineParser parser;
    parser.setApplicationDescription(QString("ratelab %1: %2").arg(command.name, command.summary));
    try {
        return command.run(parser, args);
    } catch (const InputError& e) {
        return fail(e.what());
    } catch (const io::RedisError& e) { // Redis missing, unreachable, or an error reply
        return fail(e.what());
    } catch (const io::Interrupted& e) { // SIGINT/SIGTERM during a Redis run: cleaned up by now
        std::cerr << "ratelab: " << e.what() << std::endl;
        io::endBySignal(e.signal());
    }
}

void quietQtMessages()
{
    qInstallMessageHandler([](QtMsgType type, const QMessageLogContext&, const QString& message) {
        if (type == QtCriticalMsg || type == QtFatalMsg)
            std::cerr << "ratelab: " << message.toStdString() << std::endl;
    });
}

} // namespace ratelab::app
