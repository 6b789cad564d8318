"""Token-boundary wraps for Java, JavaScript, TypeScript (TSX), Go and Rust as for Python: a
row never ends inside an identifier or a string literal (save after a run of spaces in it),
the lexer comes from the language registry, and Java and Rust windows render end to end."""

import re

import pytest

from swevis.index.languages import language_for
from swevis.render import prepare_lines, render_window
from swevis.render.raster import visible_rows
from swevis.render.wrap import CONTINUATION_MARK, break_points, lexer_for, segments

# one long line per language, each with a string literal (the part in LITERAL) and identifiers
LINES = {
    "src/main/java/org/x/Owners.java": (
        'List<Owner> activeOwners = ownerRepository.findAllByRegion(regionId).stream()'
        '.filter(Owner::isActive).collect(Collectors.toList()); log.warn("no active owner in " + regionId);',
        '"no active owner in "'),
    "lib/fetch.js": (
        'const response = await fetchWithRetry(`${baseUrl}/api/items?limit=${pageSize}`, '
        '{ headers: { "X-Request-Id": requestId }, timeoutMs: DEFAULT_TIMEOUT_MS });',
        '`${baseUrl}/api/items?limit=${pageSize}`'),
    "src/profiles.ts": (
        'export async function loadUserProfiles<T extends BaseProfile>(ids: ReadonlyArray<string>, '
        "options?: LoadOptions): Promise<Map<string, T>> { throw new Error('profiles unavailable'); }",
        "'profiles unavailable'"),
    "src/UserCard.tsx": (
        'return <UserCard key={user.id} displayName={`${user.firstName} ${user.lastName}`} '
        'onSelect={() => handleSelect(user.id)} className="user-card-compact" />;',
        '`${user.firstName} ${user.lastName}`'),
    "server/handler.go": (
        'func (s *Server) handleRequest(ctx context.Context, req *http.Request) (map[string]interface{}, error) '
        '{ return nil, fmt.Errorf("unsupported path: %s", req.URL.Path) }',
        '"unsupported path: %s"'),
    "src/config.rs": (
        "pub fn parse_config<'a>(input: &'a str, defaults: &HashMap<String, Vec<u8>>) -> Result<Config<'a>, "
        'ParseError> { Err(ParseError::new(format!("unexpected token at {}", input.len()))) }',
        '"unexpected token at {}"'),
}
LEXERS = {".java": "JavaLexer", ".js": "JavascriptLexer", ".ts": "TypeScriptLexer", ".tsx": "TsxLexer",
          ".go": "GoLexer", ".rs": "RustLexer"}


def _forbidden(line: str, literal: str) -> set[int]:
    """Columns a row may not start at: inside an identifier, or inside the string literal
    other than right after a run of spaces."""
    inside_words = {m.start() + k for m in re.finditer(r"\w+", line) for k in range(1, len(m.group()))}
    at = line.index(literal)
    inside_literal = {c for c in range(at + 1, at + len(literal)) if not line[c - 1].isspace()}
    return inside_words | inside_literal


@pytest.mark.parametrize("path", sorted(LINES))
def test_long_lines_break_only_at_token_boundaries(path):
    line, literal = LINES[path]
    assert type(lexer_for(path)).__name__ == LEXERS["." + path.rsplit(".", 1)[1]]
    (breaks,) = break_points((line,), path)
    assert len(breaks) > 20  # a token-level lexer, not plain text's spaces only
    assert not set(breaks) & _forbidden(line, literal), [line[c - 8 : c] + "|" + line[c : c + 8]
                                                         for c in sorted(set(breaks) & _forbidden(line, literal))]
    longest = max([len(w) for w in re.findall(r"\w+", line)] + [len(literal)])  # longer tokens are cut
    for width in range(max(30, longest), 90):
        rows = segments(len(line), breaks, width)
        assert "".join(line[s:e] for s, e in rows) == line and all(e - s <= width for s, e in rows)
        assert all(s not in _forbidden(line, literal) for s, _ in rows[1:]), (path, width)


@pytest.mark.parametrize("path", ["a.mts", "b.cts", "types/c.d.mts", "types/d.d.cts"])
def test_typescript_files_pygments_does_not_know_by_name_get_the_registrys_lexer(path):
    assert language_for(path).name == "typescript"
    assert type(lexer_for(path)).__name__ == "TypeScriptLexer"
    (breaks,) = break_points(("const timeoutMs: number = computeTimeout(settings.network);",), path)
    assert 17 in breaks and 19 not in breaks  # before "number", never inside it


def test_every_code_language_names_a_lexer_pygments_has():
    from pygments.lexers import get_lexer_by_name

    from swevis.index.languages import registered

    for language in registered("code"):
        assert language.lexer, language.name
        for ext in language.extensions:
            assert get_lexer_by_name(language.lexer_name("x" + ext)), (language.name, ext)


def test_a_string_literal_is_one_token_in_python_too():
    line = 'message = f"cannot add {other.currency!r} to {self.currency}" + suffix_text'
    (breaks,) = break_points((line,), "m.py")
    assert line.index('"') + 1 not in breaks and line.index("other") not in breaks
    assert line.index("+") in breaks and line.index("suffix_text") in breaks


def _rendered_rows(path: str, text: str, width: int) -> list[tuple[str, str]]:
    res = render_window(path, 10, text, 1, "qwen3", "qwen3.5", {"wrap_widths": [width], "max_wrap": width})
    assert res.pages and res.plan.wrap == width
    g, plan = res.plan.gutter, res.plan
    rows = [r for page in range(len(plan.page_columns)) for column in range(len(plan.page_columns[page]))
            for r in visible_rows(prepare_lines(text), 10, plan, page, column)]
    return [(r[:g].strip(), r[g:]) for r in rows]


def test_a_java_window_renders_with_token_boundary_wraps():
    text = ("    public Money plus(Money other) {\n"
            '        throw new IllegalArgumentException("cannot add " + other.currency + " to " + currency);\n'
            "    }\n")
    rows = _rendered_rows("src/main/java/org/ledgerly/Money.java", text, 40)
    assert [n for n, _ in rows] == ["10", "11", CONTINUATION_MARK, CONTINUATION_MARK, "12"]
    assert "".join(r for _, r in rows[1:4]) == text.splitlines()[1]
    # the string "cannot add " stays whole; rows start before tokens (`IllegalArgument...`, `+`)
    assert [r for _, r in rows[1:4]] == ["        throw new ", 'IllegalArgumentException("cannot add " ',
                                         '+ other.currency + " to " + currency);']


def test_a_rust_window_renders_with_token_boundary_wraps():
    text = ("impl FromStr for Money {\n"
            "    fn from_str(text: &str) -> Result<Self, Self::Err> {\n"
            "        let (code, amount) = text.trim().split_once(' ')"
            ".ok_or_else(|| ParseMoneyError::Shape(text.to_string()))?;\n"
            "    }\n"
            "}\n")
    rows = _rendered_rows("src/money.rs", text, 56)
    numbers = [n for n, _ in rows]
    assert numbers[:3] == ["10", "11", "12"] and numbers[-2:] == ["13", "14"]
    wrapped = [r for _, r in rows[2:-2]]  # `.ok_or_else(...)` begins a row, `' '` stays whole
    assert len(wrapped) >= 3 and all(n == CONTINUATION_MARK for n in numbers[3:-2])
    assert "".join(wrapped) == text.splitlines()[2]
    line = text.splitlines()[2]
    forbidden = _forbidden(line, "' '")
    starts = [sum(len(r) for r in wrapped[:k]) for k in range(1, len(wrapped))]
    assert starts and not set(starts) & forbidden, wrapped
