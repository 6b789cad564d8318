package verso.testing;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Comparator;

/**
 * Runs the @Test methods of the named classes, each on a fresh instance, in name order, and
 * prints one line a test: "PASS <class>.<method>" or "FAIL <class>.<method>: <reason>".
 * Exits 1 when a test failed, 2 when a class cannot be loaded.
 */
public final class TestRunner {
    private TestRunner() {
    }

    public static void main(String[] args) {
        int failed = 0;
        int passed = 0;
        for (String name : args) {
            Class<?> type;
            try {
                type = Class.forName(name);
            } catch (ClassNotFoundException e) {
                System.out.println("ERROR " + name + ": no such test class");
                System.exit(2);
                return;
            }
            Method[] methods = type.getDeclaredMethods();
            Arrays.sort(methods, Comparator.comparing(Method::getName));
            for (Method method : methods) {
                if (!method.isAnnotationPresent(Test.class)) {
                    continue;
                }
                String reason = run(type, method);
                String id = type.getName() + "." + method.getName();
                if (reason == null) {
                    passed++;
                    System.out.println("PASS " + id);
                } else {
                    failed++;
                    System.out.println("FAIL " + id + ": " + reason);
                }
            }
        }
        System.out.println(passed + " passed, " + failed + " failed");
        System.exit(failed == 0 ? 0 : 1);
    }

    /** null when the test passed, else why it failed. */
    static String run(Class<?> type, Method method) {
        try {
            Object instance = type.getDeclaredConstructor().newInstance();
            method.invoke(instance);
            return null;
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            StackTraceElement[] frames = cause.getStackTrace();
            String where = frames.length > 0 ? " (" + frames[0] + ")" : "";
            return cause + where;
        } catch (ReflectiveOperationException e) {
            return "cannot run: " + e;
        }
    }
}
