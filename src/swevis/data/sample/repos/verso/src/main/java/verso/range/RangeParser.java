package verso.range;

import java.util.ArrayList;
import java.util.List;

import verso.ParseException;
import verso.Version;

/**
 * Reads ranges: "1.2.3", ">=1.2.0 <2.0.0", "^1.2.3", "~1.2.3", "1.x", "1.2.*", "*" and
 * alternatives joined by "||". Caret ranges keep the left-most non-zero number fixed; tilde
 * ranges keep MAJOR.MINOR fixed.
 */
final class RangeParser {
    private RangeParser() {
    }

    static Range parse(String text) {
        if (text == null) {
            throw new ParseException("no range given", "", 0);
        }
        List<List<Constraint>> alternatives = new ArrayList<>();
        for (String alternative : text.split("\\|\\|", -1)) {
            List<Constraint> set = new ArrayList<>();
            for (String token : alternative.trim().split("\\s+")) {
                if (!token.isEmpty()) {
                    set.addAll(constraints(token, text));
                }
            }
            if (set.isEmpty()) {
                set.add(new AnyVersion());
            }
            alternatives.add(set);
        }
        return new Range(alternatives);
    }

    static List<Constraint> constraints(String token, String text) {
        if (token.equals("*") || token.equalsIgnoreCase("x")) {
            return List.of(new AnyVersion());
        }
        if (token.startsWith("^")) {
            return caret(Version.parse(token.substring(1)));
        }
        if (token.startsWith("~")) {
            return tilde(Version.parse(token.substring(1)));
        }
        Operator op = Operator.leading(token);
        String rest = token.startsWith(op.symbol()) ? token.substring(op.symbol().length()) : token;
        if (isPartial(rest)) {
            if (op != Operator.EQUAL) {
                throw new ParseException("a wildcard cannot follow " + op.symbol(), text, text.indexOf(token));
            }
            return partial(rest, text);
        }
        return List.of(new Bound(op, Version.parse(rest)));
    }

    static List<Constraint> caret(Version v) {
        Version upper;
        if (v.major() > 0) {
            upper = v.nextMajor();
        } else if (v.minor() > 0) {
            upper = v.nextMinor();
        } else {
            upper = new Version(0, 0, v.patch() + 1);
        }
        return List.of(new Bound(Operator.GREATER_OR_EQUAL, v), new Bound(Operator.LESS, upper));
    }

    static List<Constraint> tilde(Version v) {
        return List.of(new Bound(Operator.GREATER_OR_EQUAL, v), new Bound(Operator.LESS, v.nextMinor()));
    }

    /** "1", "1.x", "1.2", "1.2.*": fewer than three numbers, or a wildcard in place of one. */
    static boolean isPartial(String s) {
        String[] parts = s.split("\\.", -1);
        if (parts.length < 3) {
            return true;
        }
        for (String p : parts) {
            if (isWildcard(p)) {
                return true;
            }
        }
        return false;
    }

    static List<Constraint> partial(String s, String text) {
        List<Integer> numbers = new ArrayList<>();
        for (String p : s.split("\\.", -1)) {
            if (isWildcard(p)) {
                break;
            }
            try {
                numbers.add(Integer.parseInt(p));
            } catch (NumberFormatException e) {
                throw new ParseException("not a number: " + p, text, text.indexOf(s));
            }
        }
        if (numbers.isEmpty()) {
            return List.of(new AnyVersion());
        }
        if (numbers.size() == 1) {
            Version low = new Version(numbers.get(0), 0, 0);
            return List.of(new Bound(Operator.GREATER_OR_EQUAL, low), new Bound(Operator.LESS, low.nextMajor()));
        }
        Version low = new Version(numbers.get(0), numbers.get(1), 0);
        return List.of(new Bound(Operator.GREATER_OR_EQUAL, low), new Bound(Operator.LESS, low.nextMinor()));
    }

    static boolean isWildcard(String part) {
        return part.equals("*") || part.equalsIgnoreCase("x");
    }
}
