package verso;

/** A version or range string that cannot be read; says what and where. */
public class ParseException extends IllegalArgumentException {
    private final String input;
    private final int position;

    public ParseException(String message, String input, int position) {
        super(message + " in '" + input + "' at " + Math.max(position, 0));
        this.input = input;
        this.position = Math.max(position, 0);
    }

    public String input() {
        return input;
    }

    public int position() {
        return position;
    }
}
