package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.streaming;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Signal;
import dev.moroutine.stream.StreamMo1;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/** Moroutines of {@link SignalLifecycleTest}, loaded in the worker JVMs too. */
public final class SignalJobs {

    private SignalJobs() {}

    /** Waits for its signal, and returns what its reason looks like: its length, hash and last character's code. */
    public static final Mo1<Signal, String> awaitAbortDigest = mo(signal -> {
        String reason = awaitReason(signal);
        return reason.equals("never fired") ? reason : digest(reason);
    });

    /**
     * Registers an action that throws an Error, says so by connecting to the test's port, then waits for
     * its signal as {@link Jobs#awaitAbort} does.
     */
    public static final Mo2<Signal, Integer, String> awaitAbortWithFaultyAction = mo((signal, port) -> {
        signal.onAbort(() -> {
            throw new AssertionError("an onAbort action failed");
        });
        CountDownLatch fired = new CountDownLatch(1);
        Signal.Registration registration = signal.onAbort(fired::countDown);
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.getOutputStream().write(1);
        }
        boolean firedInTime = fired.await(60, TimeUnit.SECONDS);
        registration.close();
        return firedInTime ? signal.reason() : "never fired";
    });

    /** Takes a large argument, to fill the request ring, and waits for its signal. */
    public static final Mo2<String, Signal, String> awaitAbortWithPayload = mo((payload, signal) -> awaitReason(signal));

    /** Counts up until its signal fires (ten million at most). */
    public static final StreamMo1<Signal, Integer> countUntilAborted = streaming(signal ->
            IntStream.iterate(0, i -> i < 10_000_000 && !signal.aborted(), i -> i + 1).boxed());

    /** The same signal twice: both must fire. */
    public static final Mo2<Signal, Signal, String> awaitBoth = mo((first, second) -> {
        CountDownLatch fired = new CountDownLatch(2);
        first.onAbort(fired::countDown);
        second.onAbort(fired::countDown);
        return fired.await(60, TimeUnit.SECONDS) ? first.reason() + "|" + second.reason() : "never fired";
    });

    static String awaitReason(Signal signal) throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        Signal.Registration registration = signal.onAbort(fired::countDown);
        boolean firedInTime = fired.await(60, TimeUnit.SECONDS);
        registration.close();
        return firedInTime ? signal.reason() : "never fired";
    }

    public static String digest(String reason) {
        return reason.length() + "/" + reason.hashCode() + "/" + (int) reason.charAt(reason.length() - 1);
    }
}
