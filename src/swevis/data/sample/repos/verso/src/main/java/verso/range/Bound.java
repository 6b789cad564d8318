package verso.range;

import verso.Version;

/** A comparison with one version, e.g. ">=1.2.0". */
public final class Bound implements Constraint {
    private final Operator operator;
    private final Version version;

    public Bound(Operator operator, Version version) {
        this.operator = operator;
        this.version = version;
    }

    @Override
    public boolean test(Version candidate) {
        return operator.accepts(candidate.compareTo(version));
    }

    @Override
    public Version pivot() {
        return version;
    }

    public Operator operator() {
        return operator;
    }

    @Override
    public String toString() {
        return operator.symbol() + version;
    }
}
