package verso.range;

import verso.Version;

/** "*" or an empty range: every release. */
public final class AnyVersion implements Constraint {
    @Override
    public boolean test(Version version) {
        return true;
    }

    @Override
    public Version pivot() {
        return null;
    }

    @Override
    public String toString() {
        return "*";
    }
}
