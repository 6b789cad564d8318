package verso.range;

import verso.Version;

/** One test a version must pass to be in a comparator set. */
public interface Constraint {
    boolean test(Version version);

    /** The version the constraint compares with, or null when it has none ("*"). */
    Version pivot();
}
