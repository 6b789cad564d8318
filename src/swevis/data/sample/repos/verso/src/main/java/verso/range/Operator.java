package verso.range;

/** The comparison of a bound. */
public enum Operator {
    LESS("<"),
    LESS_OR_EQUAL("<="),
    GREATER(">"),
    GREATER_OR_EQUAL(">="),
    EQUAL("=");

    private final String symbol;

    Operator(String symbol) {
        this.symbol = symbol;
    }

    public String symbol() {
        return symbol;
    }

    /** Whether a comparison result (version against pivot) satisfies this operator. */
    boolean accepts(int comparison) {
        switch (this) {
            case LESS:
                return comparison < 0;
            case LESS_OR_EQUAL:
                return comparison <= 0;
            case GREATER:
                return comparison > 0;
            case GREATER_OR_EQUAL:
                return comparison >= 0;
            default:
                return comparison == 0;
        }
    }

    /** The operator a range string starts with, longest symbol first; EQUAL when none. */
    static Operator leading(String text) {
        for (Operator op : new Operator[] {LESS_OR_EQUAL, GREATER_OR_EQUAL, LESS, GREATER, EQUAL}) {
            if (text.startsWith(op.symbol)) {
                return op;
            }
        }
        return EQUAL;
    }
}
