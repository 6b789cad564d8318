package verso;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads version strings. A leading "v" or "=" is accepted (tags are often written "v1.2.3");
 * numbers must not have leading zeros; identifiers are ASCII letters, digits and hyphens.
 */
final class VersionParser {
    private VersionParser() {
    }

    static Version parse(String text) {
        if (text == null) {
            throw new ParseException("no version given", "", 0);
        }
        String s = text.trim();
        if (s.startsWith("v") || s.startsWith("=")) {
            s = s.substring(1);
        }
        String build = "";
        List<String> prerelease = List.of();
        int dash = s.indexOf('-');
        if (dash >= 0) {
            prerelease = identifiers(s.substring(dash + 1), text);
            s = s.substring(0, dash);
        }
        String[] parts = s.split("\\.", -1);
        if (parts.length != 3) {
            throw new ParseException("expected MAJOR.MINOR.PATCH", text, 0);
        }
        return new Version(number(parts[0], text), number(parts[1], text), number(parts[2], text), prerelease, build);
    }

    /** A dot-separated list of identifiers, each non-empty and made of [0-9A-Za-z-]. */
    static List<String> identifiers(String part, String text) {
        List<String> out = new ArrayList<>();
        for (String id : part.split("\\.", -1)) {
            if (id.isEmpty()) {
                throw new ParseException("empty identifier", text, text.indexOf(part));
            }
            for (char c : id.toCharArray()) {
                if (!(Character.isLetterOrDigit(c) && c < 128) && c != '-') {
                    throw new ParseException("invalid character '" + c + "' in identifier", text, text.indexOf(id));
                }
            }
            out.add(id);
        }
        return out;
    }

    static int number(String part, String text) {
        if (part.isEmpty()) {
            throw new ParseException("empty version number", text, 0);
        }
        if (part.length() > 1 && part.charAt(0) == '0' && Character.isDigit(part.charAt(1))) {
            throw new ParseException("leading zero in " + part, text, text.indexOf(part));
        }
        return Integer.parseInt(part);
    }
}
