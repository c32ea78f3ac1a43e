package dev.moroutine.isolated.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * One worker JVM, as its parent sees it: the process, the file both map ({@link SharedFile}), the
 * doorbell socket ({@link Doorbell}), and the threads that forward its output. A worker replaces a
 * dead one with a new {@code ChildProcess}; all of it is used by the worker's pump thread only,
 * except the output, which two virtual threads forward (each line to this JVM's stdout or stderr,
 * prefixed with the worker's name) and remember (the last {@link #TAIL_LINES}, for the message of
 * a death).
 *
 * <p>Start-up: the parent makes a private directory with the file and a listening socket, then
 * starts the JVM, which maps the file, connects, and is ready. Once connected, the parent deletes the
 * directory: the mapping and the connection live on without names.
 */
final class ChildProcess implements AutoCloseable {

    private static final int TAIL_LINES = 20;
    private static final String RINGS = "rings";
    private static final String BELL = "bell";

    private final Process process;
    private final Path directory;
    private final SharedFile shared;
    private final ServerSocketChannel listening;
    private final Selector selector;
    private final ArrayDeque<String> tail = new ArrayDeque<>();
    private final List<Thread> forwarders;
    private SocketChannel socket;
    /** Why this JVM was killed on purpose, or null: an unexpected death. */
    private String killedBecause;

    private ChildProcess(Process process, Path directory, SharedFile shared, ServerSocketChannel listening, Selector selector,
            String name) {
        this.process = process;
        this.directory = directory;
        this.shared = shared;
        this.listening = listening;
        this.selector = selector;
        this.forwarders = List.of(forward(process.inputReader(), () -> System.out, name + "-stdout", name),
                forward(process.errorReader(), () -> System.err, name + "-stderr", name));
    }

    /**
     * Starts a worker JVM; it is ready once {@link #accept()} returns {@code true}.
     *
     * @param launcher the command
     * @param arguments the worker's arguments, after the directory
     * @param name the worker's name, which prefixes its output
     * @param selector the pump's selector, which the socket is registered with
     * @param exited run when the process ends
     * @return the starting JVM
     * @throws IOException if the files or the process cannot be made
     */
    static ChildProcess launch(Launcher launcher, List<String> arguments, String name, Selector selector, Runnable exited)
            throws IOException {
        Path directory = SharedFile.privateDirectory();
        SharedFile shared = null;
        ServerSocketChannel listening = null;
        try {
            shared = SharedFile.create(directory.resolve(RINGS));
            listening = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            listening.bind(UnixDomainSocketAddress.of(directory.resolve(BELL)));
            listening.configureBlocking(false);
            listening.register(selector, SelectionKey.OP_ACCEPT);
            Process process = launcher.start(concat(directory.toString(), arguments));
            // Not process.onExit(): it completes on the common pool, which a busy program may hold for as long as it likes.
            Thread.ofVirtual().name(name + "-exit").start(() -> awaitExit(process, exited));
            return new ChildProcess(process, directory, shared, listening, selector, name);
        } catch (IOException | RuntimeException | Error e) {
            if (listening != null) {
                listening.close();
            }
            if (shared != null) {
                shared.close();
            }
            deleteDirectory(directory);
            throw e;
        }
    }

    private static void awaitExit(Process process, Runnable exited) {
        for (;;) {
            try {
                process.waitFor();
                exited.run();
                return;
            } catch (InterruptedException ignored) {
                // nothing interrupts it on purpose: the process's end is what it waits for
            }
        }
    }

    private static List<String> concat(String first, List<String> rest) {
        List<String> all = new java.util.ArrayList<>(rest.size() + 1);
        all.add(first);
        all.addAll(rest);
        return all;
    }

    private Thread forward(BufferedReader lines, Supplier<PrintStream> to, String threadName, String name) {
        return Thread.ofVirtual().name(threadName).start(() -> {
            try (lines) {
                for (String line; (line = lines.readLine()) != null; ) {
                    synchronized (tail) {
                        if (tail.size() == TAIL_LINES) {
                            tail.removeFirst();
                        }
                        tail.addLast(line);
                    }
                    to.get().println("[" + name + "] " + line);
                }
            } catch (IOException ended) {
                // the process is gone: its output ends here
            }
        });
    }

    /**
     * Takes the JVM's connection if it has come, then deletes the directory.
     *
     * @return whether the JVM is connected, that is, ready
     * @throws IOException if the socket fails
     */
    boolean accept() throws IOException {
        if (socket != null) {
            return true;
        }
        SocketChannel connected = listening.accept();
        if (connected == null) {
            return false;
        }
        connected.configureBlocking(false);
        connected.register(selector, SelectionKey.OP_READ);
        socket = connected;
        listening.close();
        deleteDirectory(directory);
        return true;
    }

    SharedFile shared() {
        return shared;
    }

    SocketChannel socket() {
        return socket;
    }

    Process process() {
        return process;
    }

    /** Kills the JVM at once (SIGKILL on Unix), saying why in the messages of the tasks it takes along. */
    void kill(String because) {
        if (killedBecause == null) {
            killedBecause = because;
        }
        signalKill();
    }

    /**
     * Through the process's handle: {@link Process#destroyForcibly()} also closes this side of its
     * output pipes, and the forwarders would lose the lines not read yet, often the last ones.
     */
    private void signalKill() {
        process.toHandle().destroyForcibly();
    }

    /** Why this JVM was killed on purpose; null if it died by itself. */
    String killedBecause() {
        return killedBecause;
    }

    /**
     * Waits for the process to end after its socket closed, killing it if it lingers, then for its
     * output to be read to the end, so that the last lines are complete.
     */
    void awaitExit(Duration patience) {
        try {
            if (!process.waitFor(patience.toMillis(), TimeUnit.MILLISECONDS)) {
                signalKill();
                process.waitFor();
            }
            for (Thread forwarder : forwarders) {
                forwarder.join(patience);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * How the process ended, for messages: its exit status, and the signal that killed it when the
     * status says one did (128 + the signal's number, on Unix).
     */
    String exitDescription() {
        int status = process.exitValue();
        String signal = switch (status - 128) {
            case 9 -> " (signal 9, SIGKILL)";
            case 15 -> " (signal 15, SIGTERM)";
            case 6 -> " (signal 6, SIGABRT)";
            case 11 -> " (signal 11, SIGSEGV)";
            default -> "";
        };
        return "exit status " + status + signal;
    }

    /** The last lines the JVM wrote, stdout and stderr together, for messages. */
    String lastOutput() {
        synchronized (tail) {
            if (tail.isEmpty()) {
                return "It wrote nothing.";
            }
            return "Its last output:\n  " + String.join("\n  ", tail);
        }
    }

    long pid() {
        return process.pid();
    }

    /** Releases everything; the process must have ended, or be left to end by itself. */
    @Override
    public void close() {
        try {
            if (socket != null) {
                socket.close();
            }
            listening.close();
            process.getOutputStream().close(); // the worker's stdin: its end is its parent's end
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            shared.close();
            deleteDirectory(directory);
        }
    }

    private static void deleteDirectory(Path directory) {
        try {
            Files.deleteIfExists(directory.resolve(RINGS));
            Files.deleteIfExists(directory.resolve(BELL));
            Files.deleteIfExists(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete " + directory, e);
        }
    }
}
