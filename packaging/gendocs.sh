#!/usr/bin/env bash
# Writes ratelab's man pages and its bash, zsh and fish completions from its own help, at build
# time (packaging/CMakeLists.txt), so they cannot drift from the options: `ratelab --help` gives
# the commands and the global options, `ratelab COMMAND --help` each command's (help.awk reads
# both).
#   gendocs.sh RATELAB VERSION OUT
# writes OUT/man/ratelab.1, ratelab-COMMAND.1 and ratelab-gui.1 (ratelab's page: the window),
# OUT/completions/ratelab.bash, _ratelab and ratelab.fish.
set -euo pipefail
ratelab=$1 version=$2 out=$3
here=$(cd "$(dirname "$0")" && pwd)
parts=$(mktemp -d)
trap 'rm -rf "$parts"' EXIT
# Only the help text is read here: in a sanitizer build, LeakSanitizer must not fail the build on
# Qt's own never-freed allocations (CI checks leaks in its fuzz stage, where stacks are whole).
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

"$ratelab" --help | awk -f "$here/help.awk" >"$parts/top"
commands=$(awk -F'\t' '$1 == "C" { print $2 }' "$parts/top")
[ -n "$commands" ] || { echo "gendocs.sh: no commands in '$ratelab --help'" >&2; exit 1; }
for c in $commands; do
    "$ratelab" "$c" --help | awk -f "$here/help.awk" >"$parts/$c"
    grep -q '^O' "$parts/$c" || { echo "gendocs.sh: no options in '$ratelab $c --help'" >&2; exit 1; }
done

# --- man pages ------------------------------------------------------------------------------------
# roff: a backslash is \e, a line may not start with . or ', and hyphens are \- (a minus, so that
# options can be searched for and copied); no hyphenation (.nh), no justification (.ad l).
roff='function esc(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); return s }
      function line(s) { s = esc(s); return s ~ /^[.'\'']/ ? "\\&" s : s }
      function names(s,   n, i, a, r) { n = split(s, a, ","); for (i = 1; i <= n; ++i) r = r (i > 1 ? ", " : "") "\\fB" esc(a[i]) "\\fR"; return r }
      function value(s) { gsub(/^<|>$/, "", s); return s == "" ? "" : " \\fI" esc(s) "\\fR" }
      function item(f) { print ".TP"; print names(f[2]) value(f[3]); print line(f[4]) }
      function header(name) { print ".TH " toupper(name) " 1 \"\" \"ratelab " version "\" \"RateLab Manual\""; print ".nh"; print ".ad l" }'
mkdir -p "$out/man" "$out/completions"
rm -f "$out"/man/*.1

for c in $commands; do
    summary=$(awk -F'\t' -v c="$c" '$1 == "C" && $2 == c { print $4 }' "$parts/top")
    awk -F'\t' -v c="$c" -v version="$version" -v summary="$summary" "$roff"'
        { f[1] = $1; f[2] = $2; f[3] = $3; f[4] = $4 }
        $1 == "U" { args = $2 }
        $1 == "D" { description = $2; sub("^ratelab " c ": ", "", description) }
        $1 == "O" { options[++n] = $0 }
        $1 == "A" { arguments[++m] = $0 }
        END {
            header("ratelab-" c)
            print ".SH NAME"; print "ratelab\\-" c " \\- " esc(summary)
            print ".SH SYNOPSIS"; print "\\fBratelab " c "\\fR [\\fIoptions\\fR]" value(args)
            print ".SH DESCRIPTION"; print line(description)
            print ".SH OPTIONS"
            for (i = 1; i <= n; ++i) { split(options[i], f, "\t"); item(f) }
            if (m) print ".SH ARGUMENTS"
            for (i = 1; i <= m; ++i) { split(arguments[i], f, "\t"); print ".TP"; print "\\fI" esc(f[2]) "\\fR"; print line(f[4]) }
            print ".SH EXIT STATUS"
            print "0 on success; 2 for bad input, with one line on standard error saying why."
            print ".SH SEE ALSO"; print "\\fBratelab\\fR(1)"
        }' "$parts/$c" >"$out/man/ratelab-$c.1"
done

awk -F'\t' -v version="$version" "$roff"'
    { f[1] = $1; f[2] = $2; f[3] = $3; f[4] = $4 }
    $1 == "C" { commands[++n] = $2; summaries[n] = $4 }
    $1 == "O" { options[++m] = $0 }
    END {
        header("ratelab")
        print ".SH NAME"; print "ratelab \\- rate limiters side by side: simulate, compare, explain"
        print ".SH SYNOPSIS"
        print "\\fBratelab\\fR [\\fB\\-\\-preset\\fR \\fIID\\fR | \\fB\\-\\-scenario\\fR \\fIFILE\\fR] [\\fB\\-\\-present\\fR]"
        print ".br"; print "\\fBratelab\\fR \\fIcommand\\fR [\\fIoptions\\fR]"
        print ".SH DESCRIPTION"
        print "RateLab shows how rate limiters really behave: fixed and sliding windows, token and"
        print "leaky buckets, GCRA and the limiters of real products run side by side over the same"
        print "simulated traffic, with exact integer\\-nanosecond arithmetic."
        print ".PP"
        print "Without a command, \\fBratelab\\fR opens the RateLab window (\\fBratelab\\-gui\\fR, beside it)."
        print "With a command, it runs it and prints the result; no display is needed, also for"
        print "\\fBexport\\fR, which draws the dashboard to a PNG image. Each command has its own page,"
        print "and lists its options with \\fBratelab\\fR \\fIcommand\\fR \\fB\\-\\-help\\fR."
        print ".SH COMMANDS"
        for (i = 1; i <= n; ++i) { print ".TP"; print "\\fB" commands[i] "\\fR"; print line(summaries[i]) " See \\fBratelab\\-" commands[i] "\\fR(1)." }
        print ".SH OPTIONS"
        for (i = 1; i <= m; ++i) { split(options[i], f, "\t"); item(f) }
        print ".SH EXIT STATUS"
        print "0 on success; 2 for bad input, with one line on standard error saying why."
        print ".SH SEE ALSO"
        for (i = 1; i <= n; ++i) print "\\fBratelab\\-" commands[i] "\\fR(1)" (i < n ? "," : "")
    }' "$parts/top" >"$out/man/ratelab.1"
echo '.so man1/ratelab.1' >"$out/man/ratelab-gui.1"

# --- completions ----------------------------------------------------------------------------------
# optionsOf C: command C's option names, space-separated ("--limit -n -h --help").
optionsOf() { awk -F'\t' '$1 == "O" { gsub(",", " ", $2); printf "%s%s", sep, $2; sep = " " }' "$parts/$1"; }
# records C: "NAME<tab>TAKES_VALUE<tab>SHORT DESCRIPTION" for each of C's options, one name a line;
# the description is cut at its first clause, for a menu.
records() {
    awk -F'\t' '$1 == "O" {
        d = $4; sub(/[.;:] .*/, "", d); sub(/ \(.*/, "", d); sub(/\.$/, "", d)
        if (length(d) > 70) d = substr(d, 1, 67) "..."
        n = split($2, a, ","); for (i = 1; i <= n; ++i) print a[i] "\t" ($3 != "") "\t" d
    }' "$parts/$1"
}
topRecords() { awk -F'\t' '$1 == "C" { d = $4; sub(/\.$/, "", d); print $2 "\t" d }' "$parts/top"; }
quote() { local s=${1//\'/\'\\\'\'}; printf "'%s'" "$s"; }  # for bash and zsh
fishQuote() { local s=${1//\\/\\\\}; s=${s//\'/\\\'}; printf "'%s'" "$s"; }

{
    echo "# bash completion for ratelab, generated from its --help by packaging/gendocs.sh."
    echo "_ratelab() {"
    echo '    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} words'
    echo '    if [[ $prev == --preset ]]; then # the built-in scenarios, from the ratelab being completed'
    echo '        local ratelab=${COMP_WORDS[0]/#\~/$HOME}'
    echo '        COMPREPLY=($(compgen -W "$("$ratelab" presets 2>/dev/null | cut -d" " -f1)" -- "$cur"))'
    echo '        return'
    echo '    fi'
    echo '    if ((COMP_CWORD == 1)); then'
    echo "        words=\"$(echo $commands) $(optionsOf top)\""
    echo '    else'
    echo '        case ${COMP_WORDS[1]} in'
    for c in $commands; do
        echo "        $c) words=\"$(optionsOf "$c")\" ;;"
    done
    echo '        *) return ;;'
    echo '        esac'
    echo '        [[ $cur == -* ]] || return # a value or a file: readline completes file names'
    echo '    fi'
    echo '    COMPREPLY=($(compgen -W "$words" -- "$cur"))'
    echo "}"
    echo "complete -o default -F _ratelab ratelab"
} >"$out/completions/ratelab.bash"

{
    echo "#compdef ratelab"
    echo "# zsh completion for ratelab, generated from its --help by packaging/gendocs.sh."
    echo "local -a commands options"
    echo "commands=("
    topRecords | while IFS=$'\t' read -r name d; do echo "    $(quote "$name:$d")"; done
    echo ")"
    echo 'if [[ $words[CURRENT-1] == --preset ]]; then # the built-in scenarios'
    echo '    local -a presets'
    echo '    presets=(${${(f)"$(${~words[1]} presets 2>/dev/null)"}%%  *})'
    echo '    compadd -a presets'
    echo '    return'
    echo 'fi'
    echo 'if ((CURRENT == 2)); then'
    echo '    [[ $PREFIX == -* ]] || { _describe -t commands command commands; return }'
    echo '    options=('
    records top | while IFS=$'\t' read -r name _ d; do echo "        $(quote "$name:$d")"; done
    echo '    )'
    echo 'else'
    echo '    case $words[2] in'
    for c in $commands; do
        echo "    $c) options=("
        records "$c" | while IFS=$'\t' read -r name _ d; do echo "        $(quote "$name:$d")"; done
        echo "        ) ;;"
    done
    echo '    *) return 1 ;;'
    echo '    esac'
    echo '    [[ $PREFIX == -* ]] || { _files; return }'
    echo 'fi'
    echo '_describe -t options option options'
} >"$out/completions/_ratelab"

{
    echo "# fish completion for ratelab, generated from its --help by packaging/gendocs.sh."
    echo "function __ratelab_presets # the built-in scenarios, from the ratelab being completed"
    echo "    set -l ratelab (commandline -opc)[1]"
    echo "    command \$ratelab presets 2>/dev/null | string replace -r '  +' \\t"
    echo "end"
    # fishOption CONDITION NAME TAKES_VALUE DESCRIPTION
    fishOption() {
        local line="complete -c ratelab -n $(fishQuote "$1")"
        if [[ $2 == --* ]]; then line+=" -l ${2#--}"; else line+=" -s ${2#-}"; fi
        if [ "$2" = --preset ]; then line+=" -x -a '(__ratelab_presets)'"; elif [ "$3" = 1 ]; then line+=" -r"; fi
        echo "$line -d $(fishQuote "$4")"
    }
    topRecords | while IFS=$'\t' read -r name d; do
        echo "complete -c ratelab -n __fish_use_subcommand -f -a $name -d $(fishQuote "$d")"
    done
    records top | while IFS=$'\t' read -r name value d; do fishOption __fish_use_subcommand "$name" "$value" "$d"; done
    for c in $commands; do
        records "$c" | while IFS=$'\t' read -r name value d; do
            fishOption "__fish_seen_subcommand_from $c" "$name" "$value" "$d"
        done
    done
} >"$out/completions/ratelab.fish"
