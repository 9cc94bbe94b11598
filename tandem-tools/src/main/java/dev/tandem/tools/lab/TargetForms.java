package dev.tandem.tools.lab;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The written forms of a {@link Target}; numbers start at 1, without leading zeros. */
final class TargetForms {
    private static final String NUMBER = "([1-9][0-9]{0,2})";
    private static final String ADAPTER_FORM = "(?:h|host)" + NUMBER + "\\.a" + NUMBER;
    private static final Pattern ADAPTER = Pattern.compile(ADAPTER_FORM);
    private static final Pattern SWITCH = Pattern.compile("switch" + NUMBER);
    private static final Pattern CABLE = Pattern.compile(ADAPTER_FORM + "-" + ADAPTER_FORM);

    private TargetForms() {
    }

    /** See {@link Target#parse}. */
    static Target parse(String text) {
        String t = text == null ? "" : text.strip();
        Matcher m = SWITCH.matcher(t);
        if (m.matches()) {
            return new Target.Switch(Integer.parseInt(m.group(1)));
        }
        m = ADAPTER.matcher(t);
        if (m.matches()) {
            return adapter(m, 1);
        }
        m = CABLE.matcher(t);
        if (m.matches()) {
            return new Target.Cable(adapter(m, 1), adapter(m, 3));
        }
        throw new IllegalArgumentException("'" + text + "' is not a lab target: give " + Target.FORMS);
    }

    private static Target.Adapter adapter(Matcher m, int group) {
        return new Target.Adapter(Integer.parseInt(m.group(group)), Integer.parseInt(m.group(group + 1)));
    }
}
