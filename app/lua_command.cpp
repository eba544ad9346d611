#include "lua_command.h"

#include "command.h"
#include "arithmetic/decimal.h"
#include "engine/layered.h"
#include "redis_store.h"
#include "scenario/scenario_parts.h"
#include "server_script.h"

#include <QFile>

#include <iostream>
#include <vector>

namespace ratelab::app {

namespace {

std::string knownIds()
{
    std::string known;
    for (Algorithm a : kAllAlgorithms)
        known += (known.empty() ? "" : ", ") + std::string(algorithmId(a));
    return known;
}

// exampleFile maps --example's language to its resource.
const char* exampleFile(const QString& language)
{
    if (language == "python")
        return "caller.py";
    if (language == "node")
        return "caller.js";
    if (language == "go")
        return "caller.go";
    if (language == "shell")
        return "caller.sh";
    return nullptr;
}

std::string replaced(std::string text, const std::string& from, const std::string& to)
{
    for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
        text.replace(at, from.size(), to);
    return text;
}

// Policy is the server-clock script's layers and the command that prints it again.
struct Policy {
    std::vector<Layer> layers;
    std::string command = "ratelab lua";
};

// algorithmPolicy makes the one layer of ALGORITHM with --limit, --window, --capacity and --rate;
// it returns why not, or nothing.
std::string algorithmPolicy(const QCommandLineParser& parser, Algorithm a, Policy& out)
{
    std::string spec = std::string(algorithmId(a)) + ":";
    for (const char* option : {"limit", "window", "capacity", "rate"})
        if (parser.isSet(option)) {
            const std::string value = parser.value(option).toStdString();
            if (value.find(',') != std::string::npos || value.find('=') != std::string::npos)
                return std::string("--") + option + ": not a number: " + ratelab::quoted(value);
            spec += std::string(spec.back() == ':' ? "" : ",") + option + "=" + value;
        }
    try {
        out.layers.push_back(parseLayer(spec));
    } catch (const InputError& e) {
        throw InputError(std::string("lua: ") + e.what());
    }
    out.command.append(" ").append(algorithmId(a)).append(" --server-clock");
    for (const char* option : {"limit", "window", "capacity", "rate"})
        if (parser.isSet(option))
            out.command += std::string(" --") + option + " " + parser.value(option).toStdString();
    return {};
}

// layersPolicy makes the layers of --layer, each with its config inside; it returns why not, or
// nothing.
std::string layersPolicy(const QCommandLineParser& parser, const QStringList& specs, Policy& out)
{
    if (specs.isEmpty())
        return "lua: name one algorithm (" + knownIds() + ") or give --layer";
    for (const char* option : {"limit", "window", "capacity", "rate"})
        if (parser.isSet(option))
            return std::string("--") + option + ": with --layer, give the config inside each layer";
    out.command += " --server-clock";
    for (const QString& spec : specs) {
        try {
            out.layers.push_back(parseLayer(spec.toStdString()));
        } catch (const InputError& e) {
            throw InputError("--layer: " + std::string(e.what()));
        }
        out.command += " --layer " + spec.toStdString();
    }
    return {};
}

// printExample prints the caller in LANGUAGE of the policy's script.
int printExample(const QString& language, const Policy& policy)
{
    const char* file = exampleFile(language);
    if (!file)
        return fail("--example: unknown language " + ratelab::quoted(language.toStdString())
                    + " (known: python, node, go, shell)");
    QFile f(QStringLiteral(":/examples/%1").arg(QLatin1String(file)));
    if (!f.open(QIODevice::ReadOnly))
        return fail(std::string("the example ") + file + " is missing from the build");
    std::cout << replaced(replaced(f.readAll().toStdString(), "@COMMAND@", policy.command), "@LAYERS@",
                          std::to_string(policy.layers.size()));
    return 0;
}

void addLuaOptions(QCommandLineParser& parser)
{
    parser.addPositionalArgument("algorithm", "The algorithm whose script to print: " + QString::fromStdString(knownIds()) + ".");
    parser.addOption({"server-clock", "Print the script for services: Redis TIME, the config inside, checked arguments."});
    parser.addOption({"layer", "--server-clock: a layer ALG:limit=L,window=S,capacity=C,rate=R (repeat, in order; "
                               "instead of ALGORITHM).", "spec"});
    parser.addOption({"limit", "--server-clock: requests per window (default 10).", "n"});
    parser.addOption({"window", "--server-clock: window in seconds (default 10).", "seconds"});
    parser.addOption({"capacity", "--server-clock: bucket capacity (default: the limit).", "n"});
    parser.addOption({"rate", "--server-clock: tokens per second, e.g. 2.5 or 3/7 (default: limit / window).", "r"});
    parser.addOption({"example", "Print a caller of the server-clock script: python, node, go or shell.", "language"});
    parser.addHelpOption();
}

} // namespace

int printLua(QCommandLineParser& parser, const QStringList& args)
{
    addLuaOptions(parser);
    if (int status = 0; !parseOrAnswer(parser, args, status))
        return status;
    const QStringList names = parser.positionalArguments();
    const bool serverClock = parser.isSet("server-clock") || parser.isSet("example");
    const QStringList layerSpecs = parser.values("layer");
    if (names.size() > 1)
        return fail("lua: name one algorithm (" + knownIds() + ")");
    std::optional<Algorithm> a;
    if (names.size() == 1) {
        a = algorithmFromId(names.first().toStdString());
        if (!a)
            return fail("lua: unknown algorithm " + ratelab::quoted(names.first().toStdString()) + " (known: " + knownIds() + ")");
        if (const std::string why = noLuaScript(*a); !why.empty())
            return fail("lua: " + why);
    }
    for (const char* option : {"layer", "limit", "window", "capacity", "rate"})
        if (parser.isSet(option) && !serverClock)
            return fail(std::string("--") + option + ": applies only with --server-clock (the injected-time script "
                        "takes its config as arguments)");
    if (!serverClock) {
        if (!a)
            return fail("lua: name one algorithm (" + knownIds() + ")");
        std::cout << io::luaScript(*a);
        return 0;
    }
    if (a && !layerSpecs.isEmpty())
        return fail("lua: name one algorithm or give --layer, not both");
    Policy policy;
    if (const std::string why = a ? algorithmPolicy(parser, *a, policy) : layersPolicy(parser, layerSpecs, policy);
        !why.empty())
        return fail(why);
    const std::string script = io::serverClockScript(policy.layers, policy.command); // checks every layer
    if (parser.isSet("example"))
        return printExample(parser.value("example"), policy);
    std::cout << script;
    return 0;
}

} // namespace ratelab::app
