package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo1;
import java.util.concurrent.atomic.AtomicLong;

/** Moroutines of {@link DirectSendTest}; loaded in the worker JVMs too, so nothing here touches JUnit. */
public final class DirectJobs {

    private static final AtomicLong TICKETS = new AtomicLong();

    private DirectJobs() {}

    /** "pid:ticket:number": the JVM, the how-manieth task of this kind it ran, and the caller's number, returned. */
    public static final Mo1<Integer, String> ticket = mo(number -> ProcessHandle.current().pid() + ":" + TICKETS.incrementAndGet()
            + ":" + number);
}
