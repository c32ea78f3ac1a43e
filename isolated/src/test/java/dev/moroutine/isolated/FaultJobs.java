package dev.moroutine.isolated;

import static dev.moroutine.Moroutine.mo;
import static dev.moroutine.stream.Streaming.emitting;

import dev.moroutine.Mo0;
import dev.moroutine.Mo1;
import dev.moroutine.stream.StreamMo1;
import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectOutput;
import java.net.InetAddress;
import java.net.Socket;

/**
 * Moroutines of the fault and race tests (a runaway, an echo of large items, an unprintable failure,
 * an argument that holds the worker JVM's reader);
 * loaded in the worker JVMs too, so nothing here touches JUnit.
 */
public final class FaultJobs {

    private FaultJobs() {}

    /**
     * An argument whose decoding, in the worker JVM, holds its reader (which decodes each task as it
     * reads it) until the gate, a socket on {@code port}, answers: it writes 1, then reads a byte.
     */
    public static final class Gate implements Externalizable {
        private static final long serialVersionUID = 1L;
        private int port;

        /** For the codec. */
        public Gate() {}

        public Gate(int port) {
            this.port = port;
        }

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeInt(port);
        }

        @Override
        public void readExternal(ObjectInput in) throws IOException {
            port = in.readInt();
            try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
                socket.getOutputStream().write(1);
                socket.getInputStream().read();
            }
        }

        @Override
        public String toString() {
            return "gate";
        }
    }

    /** Emits each item of its stream argument as it takes it: the child reads the request ring and writes the reply ring at once. */
    public static final StreamMo1<Iterable<String>, String> echo = emitting((Iterable<String> items,
            dev.moroutine.stream.Emitter<String> out) -> {
        for (String item : items) {
            out.emit(item);
        }
    });

    /** Says it started, like {@link Jobs#block}, then runs until its JVM is killed: it ignores interrupts. */
    public static final Mo1<Integer, Integer> startThenSpin = mo(port -> {
        try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
            socket.getOutputStream().write(1);
        }
        for (long i = 0; ; i++) {
            if (i == Long.MAX_VALUE) {
                return port;
            }
        }
    });

    /** An exception whose message cannot be read: building it fails, as a lazily built message may. */
    public static final class UnprintableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public UnprintableException() {
            super();
        }

        @Override
        public String getMessage() {
            throw new IllegalStateException("no message");
        }
    }

    public static final Mo0<String> throwUnprintable = mo(() -> {
        throw new UnprintableException();
    });
}
