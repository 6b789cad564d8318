"""The action classifier knows the test runners and build tools of Java, JavaScript/TypeScript,
Go and Rust as it knows pytest: running them is a test, installing with them is other.

Each command is labelled by hand with the reason, as in tests/fixtures/actions_labelled.csv
(these were written for this test, not taken from trajectories)."""

import pytest

from swevis.agents.observation.actions import classify_action, classify_actions

LABELLED = [
    # Java
    ("mvn test", "test", "maven runs the test phase"),
    ("mvn -q -B test -Dtest=GsonTest#testNull", "test", "one maven test method"),
    ("cd /testbed && ./mvnw -pl gson test 2>&1 | tail -40", "test", "the maven wrapper by path, output trimmed"),
    ("mvn compile", "test", "compiles the project, as make does"),
    ("mvn dependency:tree", "other", "lists dependencies, runs nothing of the project"),
    ("gradle test --tests 'org.example.FooTest'", "test", "gradle's test task"),
    ("./gradlew :core:test", "test", "the gradle wrapper by path"),
    ("gradlew test", "test", "the gradle wrapper by name"),
    ("./gradlew tasks --all", "other", "lists the build's tasks"),
    ("javac -d out src/Main.java && java -cp out Main", "test", "compiles and runs Java"),
    # JavaScript / TypeScript
    ("npm test", "test", "the project's test script"),
    ("npm test -- --testNamePattern='spinner'", "test", "the test script with jest's arguments"),
    ("npm run test:unit", "test", "a named script of the project"),
    ("npm install", "other", "installs dependencies"),
    ("npm ci --silent", "other", "installs the locked dependencies"),
    ("npm i -D jest", "other", "installs a package"),
    ("npx jest test/spinner.test.ts", "test", "jest through npx"),
    ("npx mocha test/unit/*.js --reporter dot", "test", "mocha through npx"),
    ("npx tsc --noEmit", "test", "type-checks the TypeScript project"),
    ("mocha test/parser.spec.js", "test", "mocha by name"),
    ("yarn test", "test", "yarn's test script"),
    ("yarn jest packages/core", "test", "jest through yarn"),
    ("yarn", "other", "a bare yarn installs"),
    ("yarn add lodash", "other", "adds a dependency"),
    ("pnpm test --filter core", "test", "pnpm's test script"),
    ("pnpm install", "other", "installs dependencies"),
    ("node --test test/", "test", "node's own test runner"),
    ("node reproduce.js", "test", "runs a reproduction"),
    ("node -e \"require('fs').writeFileSync('src/a.js', 'x')\"", "edit", "a node one-liner that writes a file"),
    ("cd /testbed && npx vitest run src/utils.test.ts 2>&1 | head -50", "test", "vitest through npx"),
    # Go
    ("go test ./...", "test", "every package's tests"),
    ("go test -run TestParse ./internal/parser", "test", "one test of one package"),
    ("go vet ./...", "test", "compiles and checks the packages"),
    ("go build ./cmd/hugo", "test", "compiles the project"),
    ("go mod download", "other", "fetches modules"),
    ("go get github.com/stretchr/testify", "other", "adds a module"),
    # Rust
    ("cargo test", "test", "the crate's tests"),
    ("cargo test --test integration_tests empty_file -- --nocapture", "test", "one integration test"),
    ("cargo build --release", "test", "compiles the crate"),
    ("cargo check", "test", "type-checks the crate"),
    ("cargo fmt", "edit", "rewrites the sources in place"),
    ("cargo fmt -- --check", "test", "checks formatting only"),
    ("cargo add serde", "other", "adds a dependency"),
    # mixed: the strongest class wins, as for pytest
    ("sed -i 's/a/b/' src/lib.rs && cargo test", "edit", "an edit before the test run"),
    ("grep -rn 'fn parse' src/ && go test ./...", "test", "a search, then the tests"),
    ("npm --version", "other", "asks the program about itself"),
]


@pytest.mark.parametrize("command, label, reason", LABELLED, ids=[c for c, _, _ in LABELLED])
def test_runners_of_other_languages(command, label, reason):
    assert classify_action(command) == label, reason


def test_the_labels_cover_every_runner_the_classifier_names():
    runners = {"mvn", "mvnw", "gradle", "gradlew", "npm", "npx", "mocha", "yarn", "pnpm", "node", "go", "cargo", "jest"}
    named = {w.rsplit("/", 1)[-1] for c, _, _ in LABELLED for w in c.split()}
    assert runners <= named


def test_a_script_written_then_run_with_node_is_a_test_not_an_edit():
    classes = classify_actions(["cat > repro.js <<'EOF'\nconsole.log(require('./src').parse(''))\nEOF", "node repro.js"])
    assert classes == ["edit", "test"]
