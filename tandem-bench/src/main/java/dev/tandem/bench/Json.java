package dev.tandem.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small JSON reader for JMH's {@code -rf json} output: objects become {@code Map<String, Object>}
 * (in order), arrays {@code List<Object>}, numbers {@code Double}, and {@code true}, {@code false},
 * {@code null} and strings as themselves. JMH writes {@code NaN} for missing scores; it reads as
 * {@link Double#NaN}.
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /**
     * Parses one JSON value.
     *
     * @throws IllegalArgumentException naming the offset of the first syntax error
     */
    static Object parse(String text) {
        Json j = new Json(text);
        Object v = j.value();
        j.blanks();
        if (j.at != text.length()) {
            throw j.error("end of input");
        }
        return v;
    }

    private Object value() {
        blanks();
        if (at >= text.length()) {
            throw error("a value");
        }
        char c = text.charAt(at);
        return switch (c) {
            case '{' -> object();
            case '[' -> array();
            case '"' -> string();
            case 't' -> word("true", Boolean.TRUE);
            case 'f' -> word("false", Boolean.FALSE);
            case 'n' -> word("null", null);
            case 'N' -> word("NaN", Double.NaN);
            default -> number();
        };
    }

    private Map<String, Object> object() {
        Map<String, Object> out = new LinkedHashMap<>();
        at++;
        blanks();
        if (peek('}')) {
            at++;
            return out;
        }
        while (true) {
            blanks();
            if (!peek('"')) {
                throw error("a member name");
            }
            String name = string();
            blanks();
            expect(':');
            out.put(name, value());
            blanks();
            if (peek(',')) {
                at++;
            } else {
                expect('}');
                return out;
            }
        }
    }

    private List<Object> array() {
        List<Object> out = new ArrayList<>();
        at++;
        blanks();
        if (peek(']')) {
            at++;
            return out;
        }
        while (true) {
            out.add(value());
            blanks();
            if (peek(',')) {
                at++;
            } else {
                expect(']');
                return out;
            }
        }
    }

    private String string() {
        StringBuilder b = new StringBuilder();
        at++;
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == '"') {
                return b.toString();
            }
            if (c == '\\') {
                if (at >= text.length()) {
                    break;
                }
                char e = text.charAt(at++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 't' -> b.append('\t');
                    case 'r' -> b.append('\r');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (at + 4 > text.length()) {
                            throw error("four hex digits");
                        }
                        b.append((char) Integer.parseInt(text.substring(at, at + 4), 16));
                        at += 4;
                    }
                    default -> b.append(e);
                }
            } else {
                b.append(c);
            }
        }
        throw error("a closing quote");
    }

    private Double number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) {
            at++;
        }
        try {
            return Double.valueOf(text.substring(start, at));
        } catch (NumberFormatException e) {
            at = start;
            throw error("a value");
        }
    }

    private Object word(String word, Object value) {
        if (!text.startsWith(word, at)) {
            throw error("'" + word + "'");
        }
        at += word.length();
        return value;
    }

    private boolean peek(char c) {
        return at < text.length() && text.charAt(at) == c;
    }

    private void expect(char c) {
        if (!peek(c)) {
            throw error("'" + c + "'");
        }
        at++;
    }

    private void blanks() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private IllegalArgumentException error(String expected) {
        String found = at < text.length() ? "'" + text.charAt(at) + "'" : "the end";
        return new IllegalArgumentException("JSON: expected " + expected + " at offset " + at + ", found " + found);
    }
}
