package dev.tandem.tools.text;

import org.junit.jupiter.api.Test;

import java.io.PrintWriter;
import java.io.StringWriter;

import static org.assertj.core.api.Assertions.assertThat;

class TextTableTest {
    @Test
    void padsColumnsRightAlignsMarkedOnesAndKeepsRowsOnOneLine() {
        TextTable table = new TextTable("NAME", ">N", "TEXT");
        assertThat(table.isEmpty()).isTrue();
        table.row("a", 1, "x").row("long name", 1234, "two\nlines");
        assertThat(table.isEmpty()).isFalse();
        StringWriter out = new StringWriter();
        try (PrintWriter w = new PrintWriter(out)) {
            table.print(w, "  ");
        }
        assertThat(out.toString().lines().toList()).containsExactly(
                "  NAME          N  TEXT",
                "  a             1  x",
                "  long name  1234  two?lines");
    }

    @Test
    void oneLineShowsControlCharactersAsQuestionMarks() {
        assertThat(TextTable.oneLine("plain")).isEqualTo("plain");
        assertThat(TextTable.oneLine("a\tb\r\n\u007F")).isEqualTo("a?b???");
    }
}
