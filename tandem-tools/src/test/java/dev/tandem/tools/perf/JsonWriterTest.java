package dev.tandem.tools.perf;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class JsonWriterTest {
    @Test
    @SuppressWarnings("unchecked")
    void nestedDocumentIsWellFormed() {
        String json = new JsonWriter().beginObject()
                .field("s", "quote \" backslash \\ newline \n tab \t bell \u0007")
                .field("n", 42)
                .field("d", 0.25)
                .field("nan", Double.NaN)
                .field("t", true)
                .name("none").nullValue()
                .name("list").beginArray().value(1).value("two").beginObject().endObject().beginArray().endArray().endArray()
                .name("obj").beginObject().field("k", "v").endObject()
                .endObject().toString();
        Map<String, Object> m = MiniJson.object(json);
        assertThat(m.get("s")).isEqualTo("quote \" backslash \\ newline \n tab \t bell \u0007");
        assertThat(m.get("n")).isEqualTo(42.0);
        assertThat(m.get("d")).isEqualTo(0.25);
        assertThat(m).containsEntry("nan", null).containsEntry("none", null).containsEntry("t", true);
        assertThat((List<Object>) m.get("list")).hasSize(4).startsWith(1.0, "two");
        assertThat(m.get("obj")).isEqualTo(Map.of("k", "v"));
    }

    @Test
    void misuseIsCaught() {
        assertThatThrownBy(() -> new JsonWriter().beginObject().toString()).hasMessageContaining("still open");
        assertThatThrownBy(() -> new JsonWriter().beginObject().name("a").name("b")).hasMessageContaining("without a value");
        assertThatThrownBy(() -> new JsonWriter().endObject()).hasMessageContaining("nothing open");
    }

    @Test
    void theTestParserRejectsMalformedJson() {
        assertThatThrownBy(() -> MiniJson.parse("{\"a\":1,}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MiniJson.parse("{\"a\":1 \"b\":2}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MiniJson.parse("[1,2")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> MiniJson.parse("{\"a\":NaN}")).isInstanceOf(IllegalArgumentException.class);
    }
}
