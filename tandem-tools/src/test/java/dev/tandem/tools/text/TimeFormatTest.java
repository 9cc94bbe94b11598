package dev.tandem.tools.text;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class TimeFormatTest {
    @Test
    void isoInUtc() {
        assertThat(TimeFormat.iso(0)).isEqualTo("1970-01-01T00:00:00.000Z");
        assertThat(TimeFormat.iso(1_748_772_000_123L)).isEqualTo("2025-06-01T10:00:00.123Z");
        assertThat(TimeFormat.isoMicros(1_748_772_000_123_456_789L)).isEqualTo("2025-06-01T10:00:00.123456Z");
    }

    @Test
    void agesForPeople() {
        assertThat(TimeFormat.age(0)).isEqualTo("0.0s");
        assertThat(TimeFormat.age(9_950)).isEqualTo("9.9s");
        assertThat(TimeFormat.age(12_000)).isEqualTo("12s");
        assertThat(TimeFormat.age(184_000)).isEqualTo("3m04s");
        assertThat(TimeFormat.age(7_500_000)).isEqualTo("2h05m");
        assertThat(TimeFormat.age(3 * 86_400_000L + 4 * 3_600_000L)).isEqualTo("3d04h");
        assertThat(TimeFormat.age(-2_000)).isEqualTo("in 2.0s");
    }
}
