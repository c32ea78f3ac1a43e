package dev.moroutine.internal.dispatch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.moroutine.AbortController;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An invocation's arguments are scanned for stream arguments unless its class knows there are
 * none, and for signals when its run asks.
 */
class InvocationScanTest {

    private static Invocation invocation(Object... args) {
        return made(false, args);
    }

    /** An invocation whose class knows that it takes no stream, as a call of a values-only overload does. */
    private static Invocation ofValues(Object... args) {
        return made(true, args);
    }

    private static Invocation made(boolean valuesOnly, Object... args) {
        return new Invocation(args) {
            @Override
            public boolean takesStream() {
                return !valuesOnly && super.takesStream();
            }

            @Override
            public String id() {
                return "InvocationScanTest#invocation";
            }

            @Override
            protected Object invoke(Object[] resolved) {
                return null;
            }
        };
    }

    @Test
    void plainValuesBindNothing() {
        Invocation plain = invocation(1, "two", null);
        assertFalse(plain.takesSignal());
        assertFalse(plain.takesStream());
        Execution<Object> execution = new Execution<>(plain, null);
        assertNull(execution.binding(0));
        assertNull(execution.output());
    }

    @Test
    void aSignalAnywhereIsFound() {
        Invocation withSignal = invocation(1, null, new AbortController().signal());
        assertTrue(withSignal.takesSignal());
        assertFalse(withSignal.takesStream());
    }

    /** Known to take no stream: nothing to bind, and a signal among its values is still found for the run. */
    @Test
    void valuesOnlyBindNothingAndStillFindTheirSignal() {
        Invocation values = ofValues(1, new AbortController().signal());
        assertFalse(values.takesStream());
        assertTrue(values.takesSignal());
        assertNull(new Execution<>(values, null).binding(0));
    }

    @Test
    void aStreamArgumentAnywhereIsBoundAndTheOthersAreNot() {
        List<Invocation> bound = new ArrayList<>();
        Endpoint.Binding binding = worker -> "opened";
        Endpoint endpoint = consumer -> {
            bound.add(consumer);
            return binding;
        };
        Invocation withStream = invocation("x", null, new StreamArg(endpoint));
        assertTrue(withStream.takesStream());
        assertFalse(withStream.takesSignal());
        Execution<Object> execution = new Execution<>(withStream, null);
        assertSame(binding, execution.binding(2));
        assertNull(execution.binding(0));
        assertEquals(List.of(withStream), bound, "bound once, for this invocation");
    }
}
