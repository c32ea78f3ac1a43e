package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo1;

/** Moroutines of the item-order tests; loaded in the worker JVMs too, so nothing here touches JUnit. */
public final class OrderJobs {

    private OrderJobs() {}

    /** The numbers before the first 'x' of each item, in the order read: what a lost, repeated or reordered item changes. */
    public static final Mo1<Iterable<String>, String> numbers = mo(items -> {
        StringBuilder read = new StringBuilder();
        for (String item : items) {
            read.append(item, 0, item.indexOf('x')).append(',');
        }
        return read.toString();
    });
}
