# Compile the sources with the JDK alone (no build tool, no downloads) and run test classes:
#   bash run-tests.sh                     every *Test class under src/test/java
#   bash run-tests.sh verso.VersionTest   the named classes
# Prints "PASS <class>.<method>" or "FAIL <class>.<method>: <reason>" for each test.
set -u
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
javac -encoding UTF-8 -d "$out" $(find src -name '*.java') || exit 2
if [ $# -eq 0 ]; then
    set -- $(cd src/test/java && find . -name '*Test.java' | sort | sed 's|^\./||; s|\.java$||; s|/|.|g')
fi
java -cp "$out" verso.testing.TestRunner "$@"
