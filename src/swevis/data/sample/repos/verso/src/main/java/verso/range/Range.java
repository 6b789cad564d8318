package verso.range;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

import verso.Version;

/**
 * A version range as package managers write it: alternatives joined by "||", each a set of
 * constraints that must all hold. A pre-release is only in a set one of whose bounds names a
 * pre-release of the same MAJOR.MINOR.PATCH (so "^1.2.0" never picks "1.3.0-beta.1").
 */
public final class Range {
    private final List<List<Constraint>> alternatives;

    Range(List<List<Constraint>> alternatives) {
        List<List<Constraint>> copy = new ArrayList<>();
        for (List<Constraint> set : alternatives) {
            copy.add(List.copyOf(set));
        }
        this.alternatives = List.copyOf(copy);
    }

    /** Reads a range string; see {@link RangeParser}. */
    public static Range parse(String text) {
        return RangeParser.parse(text);
    }

    public List<List<Constraint>> alternatives() {
        return alternatives;
    }

    public boolean includes(Version version) {
        for (List<Constraint> set : alternatives) {
            if (allHold(set, version) && prereleaseAllowed(set, version)) {
                return true;
            }
        }
        return false;
    }

    private static boolean allHold(List<Constraint> set, Version version) {
        for (Constraint c : set) {
            if (!c.test(version)) {
                return false;
            }
        }
        return true;
    }

    private static boolean prereleaseAllowed(List<Constraint> set, Version version) {
        if (!version.isPrerelease()) {
            return true;
        }
        for (Constraint c : set) {
            Version pivot = c.pivot();
            if (pivot != null && pivot.isPrerelease() && pivot.release().equals(version.release())) {
                return true;
            }
        }
        return false;
    }

    @Override
    public String toString() {
        return alternatives.stream()
            .map(set -> set.stream().map(Object::toString).collect(Collectors.joining(" ")))
            .collect(Collectors.joining(" || "));
    }
}
