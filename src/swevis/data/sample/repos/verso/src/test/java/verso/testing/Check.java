package verso.testing;

import java.util.Objects;

/** The assertions of the suite; a failed one throws AssertionError with what differed. */
public final class Check {
    private Check() {
    }

    public static void equal(Object expected, Object actual) {
        if (!Objects.equals(expected, actual)) {
            throw new AssertionError("expected <" + expected + "> but was <" + actual + ">");
        }
    }

    public static void isTrue(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError("expected true: " + what);
        }
    }

    public static void isFalse(boolean condition, String what) {
        if (condition) {
            throw new AssertionError("expected false: " + what);
        }
    }

    /** Runs the action and returns what it threw; fails unless it threw an instance of `type`. */
    public static <T extends Throwable> T raises(Class<T> type, Runnable action) {
        try {
            action.run();
        } catch (Throwable thrown) {
            if (type.isInstance(thrown)) {
                return type.cast(thrown);
            }
            throw new AssertionError("expected " + type.getSimpleName() + " but got " + thrown, thrown);
        }
        throw new AssertionError("expected " + type.getSimpleName() + " but nothing was thrown");
    }
}
