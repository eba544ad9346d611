# Reads one `ratelab --help` or `ratelab COMMAND --help` (QCommandLineParser's layout) and prints
# its parts, one a line, fields separated by tabs:
#   U  ARGS                     the usage's arguments after [options] ("LOG", "algorithm")
#   D  TEXT                     the description line ("ratelab compare: Run every limiter ...")
#   O  NAMES  VALUE  TEXT       an option: NAMES "-h,--help", VALUE "<seconds>" or empty
#   C  NAME   -      TEXT       a command (`ratelab --help` only)
#   A  NAME   -      TEXT       a positional argument
# Qt wraps each description at column 79; the lines are joined again here.
function emit() {
    if (kind != "")
        print kind "\t" names "\t" value "\t" text
    kind = ""
}
# add appends one line of a description that starts at column col. Qt breaks inside a word only
# when a line has nowhere else to break: a line without a space that fills its width.
function add(segment, col) {
    text = text == "" ? segment : text (glue ? "" : " ") segment
    glue = index(segment, " ") == 0 && length(segment) >= 78 - col
}
/^Usage: / {
    args = $0
    sub(/^Usage: [^ ]+ */, "", args)
    sub(/^\[options\] */, "", args)
    print "U\t" args
    next
}
/^[A-Z][A-Za-z ]*:$/ { emit(); section = substr($0, 1, length($0) - 1); next }
/^$/ { emit(); next }
section == "" { if ($0 !~ /^ /) print "D\t" $0; next }
/^  [^ ]/ {
    emit()
    line = substr($0, 3)
    head = line; first = ""
    if (match(line, /  +/)) {
        head = substr(line, 1, RSTART - 1)
        first = substr(line, RSTART + RLENGTH)
        col = 2 + RSTART + RLENGTH - 1
    }
    kind = section == "Options" ? "O" : section == "Commands" ? "C" : section == "Arguments" ? "A" : ""
    names = ""; value = ""; text = ""; glue = 0
    if (kind == "O") {
        n = split(head, words, " ")
        for (i = 1; i <= n; ++i) {
            if (words[i] ~ /^-/) {
                sub(/,$/, "", words[i])
                names = names == "" ? words[i] : names "," words[i]
            } else {
                value = value == "" ? words[i] : value " " words[i]
            }
        }
    } else {
        names = head; value = "-"
    }
    if (first != "")
        add(first, col)
    next
}
/^   / {
    segment = $0
    sub(/^ +/, "", segment)
    add(segment, length($0) - length(segment))
}
END { emit() }
