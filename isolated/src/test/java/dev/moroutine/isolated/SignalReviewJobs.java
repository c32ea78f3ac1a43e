package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import dev.moroutine.Signal;
import java.net.InetAddress;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Moroutines of {@link SignalReviewTest}, loaded in the worker JVMs too. */
public final class SignalReviewJobs {

    private SignalReviewJobs() {}

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
