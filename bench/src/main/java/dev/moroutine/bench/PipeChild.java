package dev.moroutine.bench;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;

/**
 * The naive peer of a worker JVM: a child process started with {@link ProcessBuilder} that reads
 * commands from its stdin and answers on its stdout, through buffered data streams. It flushes
 * when its input has nothing more ready, so pipelined commands share a write.
 *
 * <pre>
 * NOOP                  → int 1
 * PRODUCE n             → n ints 0 … n-1
 * SUM n, n ints         → long, their sum
 * PLUS_ONE n, n ints    → each int + 1
 * </pre>
 */
public final class PipeChild {

    static final int NOOP = 1;
    static final int PRODUCE = 2;
    static final int SUM = 3;
    static final int PLUS_ONE = 4;

    private PipeChild() {}

    /**
     * Serves until stdin ends.
     *
     * @param args none
     * @throws IOException if stdout fails
     */
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        DataOutputStream out = new DataOutputStream(new BufferedOutputStream(System.out, 1 << 16));
        try {
            for (;;) {
                switch (in.readInt()) {
                    case NOOP -> out.writeInt(1);
                    case PRODUCE -> {
                        int n = in.readInt();
                        for (int i = 0; i < n; i++) {
                            out.writeInt(i);
                        }
                    }
                    case SUM -> {
                        int n = in.readInt();
                        long sum = 0;
                        for (int i = 0; i < n; i++) {
                            sum += in.readInt();
                        }
                        out.writeLong(sum);
                    }
                    case PLUS_ONE -> {
                        int n = in.readInt();
                        for (int i = 0; i < n; i++) {
                            out.writeInt(in.readInt() + 1);
                            if (in.available() == 0) {
                                out.flush();
                            }
                        }
                    }
                    default -> throw new IOException("unknown command");
                }
                if (in.available() == 0) {
                    out.flush();
                }
            }
        } catch (EOFException parentGone) {
            out.flush();
        }
    }

    /** Starts one, with this JVM's class path. */
    static Process start() {
        try {
            return new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-cp",
                    System.getProperty("java.class.path"), PipeChild.class.getName())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start a child JVM: " + e, e);
        }
    }
}
