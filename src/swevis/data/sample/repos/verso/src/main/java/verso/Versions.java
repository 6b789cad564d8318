package verso;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

import verso.range.Range;

/** Operations on collections of versions: sorting, filtering by a range, picking the newest. */
public final class Versions {
    private Versions() {
    }

    /** The versions in ascending order (a new list). */
    public static List<Version> sorted(Collection<Version> versions) {
        List<Version> out = new ArrayList<>(versions);
        Collections.sort(out);
        return out;
    }

    /** Parses each string; the first that cannot be read stops with its ParseException. */
    public static List<Version> parseAll(Collection<String> texts) {
        List<Version> out = new ArrayList<>();
        for (String text : texts) {
            out.add(Version.parse(text));
        }
        return out;
    }

    /** The versions the range allows, in ascending order. */
    public static List<Version> matching(Collection<Version> versions, Range range) {
        List<Version> out = new ArrayList<>();
        for (Version v : sorted(versions)) {
            if (range.includes(v)) {
                out.add(v);
            }
        }
        return out;
    }

    /** The newest version the range allows, if any. */
    public static Optional<Version> latest(Collection<Version> versions, Range range) {
        List<Version> allowed = matching(versions, range);
        return allowed.isEmpty() ? Optional.empty() : Optional.of(allowed.get(allowed.size() - 1));
    }

    /** The newest release (not a pre-release) among the versions, if any. */
    public static Optional<Version> latestRelease(Collection<Version> versions) {
        Version best = null;
        for (Version v : versions) {
            if (!v.isPrerelease() && (best == null || v.isAfter(best))) {
                best = v;
            }
        }
        return Optional.ofNullable(best);
    }
}
