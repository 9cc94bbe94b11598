# Sourced by ./tandem and .ci/run: sets JAVA_HOME to a JDK 25 or newer.
#
#   tandem_find_jdk   -> 0 and JAVA_HOME exported, or 1 with a message on stderr
#
# Order: $JAVA_HOME if its `java -version` is 25 or newer; else the newest JDK 25+ under
# /usr/lib/jvm (Linux), /Library/Java/JavaVirtualMachines (macOS) or ~/.sdkman/candidates/java.

# Major version of the java launcher $1 (e.g. 25), or nothing.
tandem_java_major() {
    local line version
    line=$("$1" -version 2>&1 | head -n 1) || return 1
    version=$(printf '%s\n' "$line" | sed -n 's/.*version "\([^"]*\)".*/\1/p')
    [ -n "$version" ] || return 1
    case "$version" in
        1.*) version=${version#1.} ;;
    esac
    printf '%s\n' "${version%%[.+-]*}"
}

tandem_find_jdk() {
    local required=25 major best="" best_major=0 dir
    if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
        major=$(tandem_java_major "$JAVA_HOME/bin/java")
        if [ -n "$major" ] && [ "$major" -ge "$required" ]; then
            export JAVA_HOME
            return 0
        fi
    fi
    for dir in /usr/lib/jvm/* /Library/Java/JavaVirtualMachines/*/Contents/Home "$HOME"/.sdkman/candidates/java/*; do
        [ -x "$dir/bin/java" ] && [ -x "$dir/bin/javac" ] || continue
        major=$(tandem_java_major "$dir/bin/java")
        if [ -n "$major" ] && [ "$major" -ge "$required" ] && [ "$major" -gt "$best_major" ]; then
            best=$dir
            best_major=$major
        fi
    done
    if [ -n "$best" ]; then
        export JAVA_HOME=$best
        return 0
    fi
    {
        echo "tandem: no JDK $required or newer found."
        if [ -n "${JAVA_HOME:-}" ]; then
            echo "  JAVA_HOME=$JAVA_HOME is not a JDK $required+."
        fi
        echo "  Install JDK $required (e.g. Temurin $required from https://adoptium.net, or 'sdk install java 25-tem')"
        echo "  and set JAVA_HOME to it, e.g. export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64"
    } >&2
    return 1
}
