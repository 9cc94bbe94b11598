package dev.tandem.tools.perf;

/**
 * Writes one JSON document by hand: objects, arrays, strings, numbers, booleans, null. Commas are
 * placed automatically; the caller nests begin/end calls correctly.
 */
public final class JsonWriter {
    private final StringBuilder out = new StringBuilder();
    /** One bit per nesting level: set once the level holds a value (so the next one needs a comma). */
    private long needsComma;
    private int depth;
    private boolean afterName;

    public JsonWriter beginObject() {
        value();
        out.append('{');
        push();
        return this;
    }

    public JsonWriter endObject() {
        pop();
        out.append('}');
        return this;
    }

    public JsonWriter beginArray() {
        value();
        out.append('[');
        push();
        return this;
    }

    public JsonWriter endArray() {
        pop();
        out.append(']');
        return this;
    }

    public JsonWriter name(String name) {
        if (afterName) {
            throw new IllegalStateException("name '" + name + "' follows a name without a value");
        }
        separate();
        string(name);
        out.append(':');
        afterName = true;
        return this;
    }

    public JsonWriter value(String s) {
        value();
        if (s == null) {
            out.append("null");
        } else {
            string(s);
        }
        return this;
    }

    public JsonWriter value(long n) {
        value();
        out.append(n);
        return this;
    }

    /** Non-finite numbers have no JSON form and are written as null. */
    public JsonWriter value(double d) {
        value();
        out.append(Double.isFinite(d) ? Double.toString(d) : "null");
        return this;
    }

    public JsonWriter value(boolean b) {
        value();
        out.append(b);
        return this;
    }

    public JsonWriter nullValue() {
        value();
        out.append("null");
        return this;
    }

    public JsonWriter field(String name, String v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, long v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, double v) {
        return name(name).value(v);
    }

    public JsonWriter field(String name, boolean v) {
        return name(name).value(v);
    }

    @Override
    public String toString() {
        if (depth != 0) {
            throw new IllegalStateException(depth + " object(s) or array(s) still open");
        }
        return out.toString();
    }

    private void value() {
        if (afterName) {
            afterName = false;
        } else {
            separate();
        }
    }

    private void separate() {
        if (depth > 0) {
            long bit = 1L << (depth - 1);
            if ((needsComma & bit) != 0) {
                out.append(',');
            }
            needsComma |= bit;
        }
    }

    private void push() {
        if (depth == 63) {
            throw new IllegalStateException("JSON nested too deeply");
        }
        depth++;
        needsComma &= ~(1L << (depth - 1));
    }

    private void pop() {
        if (depth == 0 || afterName) {
            throw new IllegalStateException(depth == 0 ? "nothing open to end" : "a name has no value");
        }
        depth--;
    }

    private void string(String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\b' -> out.append("\\b");
                case '\f' -> out.append("\\f");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
