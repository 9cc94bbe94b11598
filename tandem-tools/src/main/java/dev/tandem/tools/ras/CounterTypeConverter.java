package dev.tandem.tools.ras;

import dev.tandem.ras.CounterType;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

import java.util.Arrays;

/** {@code --type}: a counter type by name ({@code qp}, {@code cq}, ...) or by its id; and ids back to names. */
final class CounterTypeConverter implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String value) {
        return CounterType.named(value).map(CounterType::id).orElseGet(() -> {
            try {
                return Integer.parseInt(value);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + value + "' is not a counter type: give one of "
                        + String.join(", ", Arrays.stream(CounterType.values()).map(CounterType::label).toList()) + ", or a type id");
            }
        });
    }

    /** The type's name when the engine uses the id, else the id itself. */
    static String describe(int typeId) {
        return CounterType.of(typeId).map(CounterType::label).orElse(String.valueOf(typeId));
    }
}
