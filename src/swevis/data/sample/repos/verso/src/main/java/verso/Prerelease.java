package verso;

import java.util.List;

/** The order of pre-release identifier lists (semantic versioning, section 11). */
final class Prerelease {
    private Prerelease() {
    }

    /** A release (no identifiers) sorts after every pre-release of the same numbers. */
    static int compare(List<String> a, List<String> b) {
        if (a.isEmpty() || b.isEmpty()) {
            return Boolean.compare(a.isEmpty(), b.isEmpty());
        }
        int shared = Math.min(a.size(), b.size());
        for (int i = 0; i < shared; i++) {
            int c = compareIdentifiers(a.get(i), b.get(i));
            if (c != 0) {
                return c;
            }
        }
        return Integer.compare(a.size(), b.size());
    }

    static int compareIdentifiers(String x, String y) {
        return x.compareTo(y);
    }

    static boolean isNumeric(String id) {
        for (char c : id.toCharArray()) {
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return !id.isEmpty();
    }
}
