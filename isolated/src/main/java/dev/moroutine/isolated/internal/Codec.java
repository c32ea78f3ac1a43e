package dev.moroutine.isolated.internal;

import dev.moroutine.AbortController;
import dev.moroutine.Mo;
import dev.moroutine.Signal;
import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.StreamArg;
import dev.moroutine.internal.dispatch.TaskArg;
import dev.moroutine.internal.shared.Desc;
import dev.moroutine.shared.SharedValue;
import dev.moroutine.stream.StreamMo0;
import dev.moroutine.stream.StreamMo1;
import dev.moroutine.stream.StreamMo2;
import dev.moroutine.stream.StreamMo3;
import dev.moroutine.stream.StreamMo4;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.fory.Fory;
import org.apache.fory.ThreadSafeFory;
import org.apache.fory.config.Language;
import org.apache.fory.memory.MemoryBuffer;

/**
 * The one place where what crosses a process boundary is encoded: a task (its moroutine's id and
 * arguments, task-args included) on the way to a worker, and the outcome of its run on the way
 * back. It depends only on the seam ({@link Invocation}, {@link TaskArg}) and on Apache Fory, so a
 * cluster backend can use it as it is.
 *
 * <p>Fory runs with class registration required: only the classes Fory knows (strings, boxed
 * primitives, arrays, the JDK's collections and time types, …) and those registered, in the same
 * order on both sides, cross; anything else is refused when it is encoded, naming the class to
 * register. Java serialization is never used. A throwable crosses back as a {@link RemoteFailure}
 * (names, message and stack as strings), so no exception class needs registering; it is made again
 * on the caller's side as the same class when that class has a public constructor taking a message.
 *
 * <h2>An invocation, as bytes</h2>
 * <pre>
 * id                      its length in bytes (var uint32), then "class#field" in UTF-8: written without
 *                         Fory, whose every serialize call resets its reference tables (a task without
 *                         arguments is then encoded and decoded with no Fory call at all)
 * argument count          int32
 * per argument            VALUE (byte), then the Fory-encoded value
 *                         or TASK_ARG (byte), its key (int64, see {@link #key}), then its invocation
 *                         or SHARED (byte), then where the value lives (see {@link SharedCrossing})
 *                         or STREAM (byte): a stream or channel argument, whose items follow as the task runs
 *                         or SIGNAL (byte), then its reason (a Fory string, null while it has not fired); a later
 *                         firing follows as a message of its own
 * </pre>
 * A task-arg is always sent whole: the receiver resolves it once per key and uses the invocation it
 * made first ever after, so that its task-arg cache, which is keyed by identity, hits.
 *
 * <p>Thread-safe: encoding and decoding borrow a {@link Fory} from a pool (Fory's own, lock-free
 * until every instance is busy).
 */
public final class Codec {

    private static final byte VALUE = 0;
    private static final byte TASK_ARG = 1;
    private static final byte SHARED = 2;
    private static final byte STREAM = 3;
    private static final byte SIGNAL = 4;
    /** The longest signal reason that crosses whole; see {@link #crossingReason}. */
    static final int MAX_REASON = 1024;
    private static final Pattern UNREGISTERED = Pattern.compile("[Cc]lass (\\S+) is not registered");
    /**
     * The key of each invocation sent as a task-arg while it lives, by identity (an invocation's
     * {@code equals} is {@code Object}'s): kept here rather than in every invocation, which most
     * tasks would pay for in bytes and never use.
     */
    private static final Map<Invocation, Long> KEYS = Collections.synchronizedMap(new WeakHashMap<>());
    private static final AtomicLong LAST_KEY = new AtomicLong();

    private final ThreadSafeFory fory;

    /**
     * A codec that lets these classes cross, besides those Fory knows.
     *
     * @param types the classes to register, in an order both sides share
     * @param concurrency how many threads may encode at once before one waits for another
     */
    public Codec(List<Class<?>> types, int concurrency) {
        // No code generation: its first use of each class costs a compiler run, which a worker JVM
        // that has just started would pay on its first tasks.
        fory = Fory.builder()
                .withLanguage(Language.JAVA)
                .requireClassRegistration(true)
                .withRefTracking(true)
                .withCodegen(false)
                .buildThreadSafeForyPool(concurrency);
        fory.register(RemoteFailure.class);
        fory.register(RemoteFailure[].class);
        for (Class<?> type : types) {
            fory.register(type);
        }
    }

    /** Makes, on the receiving side, what an encoded invocation names. */
    public interface Calls {
        /**
         * The call of a moroutine.
         *
         * @param id the moroutine's id
         * @param args its arguments, task-args as {@link TaskArg}s
         * @return the invocation
         */
        Invocation call(String id, Object[] args);

        /**
         * The one invocation that stands for a task-arg's key here, made of {@code decoded} the first time.
         *
         * @param key the task-arg's key on the sending side
         * @param decoded the invocation just decoded
         * @return the invocation to use
         */
        Invocation taskArg(long key, Invocation decoded);

        /**
         * A stream argument, fed by the sender as the task runs.
         *
         * @param position the argument's position
         * @return what stands for it in the invocation (a {@link StreamArg})
         */
        default Object stream(int position) {
            throw new UnsupportedOperationException("stream arguments do not cross here");
        }

        /**
         * A signal argument, fired by the sender when the signal it stands for fires.
         *
         * @param position the argument's position
         * @param reason the reason it fired with before the task was sent, or null if it had not fired
         * @return what stands for it in the invocation (a {@link Signal})
         */
        default Signal signal(int position, String reason) {
            throw new UnsupportedOperationException("signal arguments do not cross here");
        }
    }

    /**
     * Encodes a task for a worker in another process.
     *
     * @param invocation the task
     * @param destination the worker, for messages
     * @return the bytes
     * @throws IllegalArgumentException if an argument's class is not registered or cannot be encoded, or
     *     it is a shared value that lives outside the files worker JVMs map ({@link SharedCrossing})
     * @throws UnsupportedOperationException if a task-arg's argument is a signal, a stream or a channel,
     *     which do not cross yet
     */
    public byte[] encodeInvocation(Invocation invocation, String destination) {
        return fory.execute(encoder -> {
            // The encoder's own buffer, kept from call to call (its serialize(Object) alone uses it, not called here).
            MemoryBuffer out = encoder.getBuffer();
            out.writerIndex(0);
            try {
                write(encoder, out, invocation, invocation::toString, destination, true);
                return out.getBytes(0, out.writerIndex());
            } finally {
                encoder.resetBuffer(); // lets an unusually large one go
            }
        });
    }

    /**
     * Whether a task is a call of a streaming moroutine, whose function writes to an output stream.
     *
     * @param invocation the task
     * @return whether it streams
     */
    public static boolean streams(Invocation invocation) {
        return invocation instanceof Call<?> call && streams(call.moroutine());
    }

    private static boolean streams(Mo moroutine) {
        return moroutine instanceof StreamMo0<?> || moroutine instanceof StreamMo1<?, ?> || moroutine instanceof StreamMo2<?, ?, ?>
                || moroutine instanceof StreamMo3<?, ?, ?, ?> || moroutine instanceof StreamMo4<?, ?, ?, ?, ?>;
    }

    /**
     * The number that identifies {@code invocation} in this process, given when it is first sent as
     * a task-arg: the receiver caches the task-arg's value under it.
     *
     * @param invocation a task-arg's invocation
     * @return its key, never 0
     */
    static long key(Invocation invocation) {
        return KEYS.computeIfAbsent(invocation, sent -> LAST_KEY.incrementAndGet());
    }

    /**
     * Writes an invocation; {@code where} names it in a refusal's message, made only then (not for
     * every task sent).
     */
    private static void write(Fory encoder, MemoryBuffer out, Invocation invocation, Supplier<String> where, String destination,
            boolean task) {
        byte[] id = invocation.id().getBytes(StandardCharsets.UTF_8);
        out.writeVarUInt32(id.length);
        out.writeBytes(id);
        Object[] args = invocation.args();
        out.writeInt32(args.length);
        for (int i = 0; i < args.length; i++) {
            Object arg = args[i];
            int position = i + 1;
            if (arg instanceof TaskArg taskArg) {
                out.writeByte(TASK_ARG);
                out.writeInt64(key(taskArg.task()));
                write(encoder, out, taskArg.task(), () -> "task-arg " + taskArg.task() + " (argument " + position + " of "
                        + where.get() + ")", destination, false);
                continue;
            }
            if (arg instanceof StreamArg && task) { // its items follow as the task runs (see StreamFeeder)
                out.writeByte(STREAM);
                continue;
            }
            if (arg instanceof Signal signal && task) { // a later firing follows as a message (see IsolatedWorker)
                out.writeByte(SIGNAL);
                String reason = signal.reason();
                encoder.serialize(out, reason == null ? null : crossingReason(reason));
                continue;
            }
            if (arg instanceof SharedValue value) {
                out.writeByte(SHARED);
                SharedCrossing.write(encoder, out, value, "argument " + position + " of " + where.get(), destination);
                continue;
            }
            refuseUnsupported(arg, position, where, destination);
            out.writeByte(VALUE);
            try {
                encoder.serialize(out, arg);
            } catch (RuntimeException refused) {
                throw cannotCross("argument " + position + " of " + where.get() + " cannot cross to isolated worker " + destination
                        + ": it is a " + arg.getClass().getName(), refused); // not null: Fory encodes null
            }
        }
    }

    /**
     * A signal's reason as it crosses: whole up to {@link #MAX_REASON} characters, else cut there
     * (never inside a surrogate pair) and marked with "…", so a reason of any length fits a message.
     *
     * @param reason the reason
     * @return the reason that crosses
     */
    static String crossingReason(String reason) {
        if (reason.length() <= MAX_REASON) {
            return reason;
        }
        int end = Character.isHighSurrogate(reason.charAt(MAX_REASON - 1)) ? MAX_REASON - 1 : MAX_REASON;
        return reason.substring(0, end) + "…";
    }

    private static void refuseUnsupported(Object arg, int position, Supplier<String> where, String destination) {
        String what = arg instanceof StreamArg stream ? "a stream (" + stream.endpoint() + ") given to a task-arg"
                : arg instanceof Signal ? "a Signal given to a task-arg"
                : null;
        if (what != null) {
            throw new UnsupportedOperationException("argument " + position + " of " + where.get() + " is " + what
                    + ", which cannot cross to isolated worker "
                    + destination + " yet; run this task on a pool of threads (Moroutine.workers)");
        }
    }

    /** The public type of a shared value, as its user knows it: {@code Int32Atomic}, not its implementation. */
    static String sharedType(Class<?> type) {
        String face = Desc.publicType(type);
        return ("AEIOU".indexOf(face.charAt(0)) >= 0 ? "an " : "a ") + face;
    }

    /** Fory's refusal, as a message that says what to register. */
    private static IllegalArgumentException cannotCross(String what, RuntimeException refused) {
        // Fory says it in two ways (ClassUnregisteredException, InsecureException), with the same words.
        Matcher unregistered = UNREGISTERED.matcher(String.valueOf(refused.getMessage()));
        boolean found = unregistered.find();
        if (found && unregistered.group(1).startsWith(AbortController.class.getName() + "$")) { // a private class: no register(…)
            return new IllegalArgumentException(what + ", which holds a Signal: a Signal crosses only as an argument of its"
                    + " own, not inside another value; pass it to the moroutine as one of its arguments", refused);
        }
        String advice = found
                ? ", and class " + unregistered.group(1) + " is not registered. Register every class that crosses (besides"
                        + " strings, boxed primitives, arrays and the JDK's collections and time types) on the pool:"
                        + " IsolatedOptions.defaults().register(" + unregistered.group(1).replace('$', '.') + ".class)"
                : ", which Fory cannot encode: " + refused;
        return new IllegalArgumentException(what + advice, refused);
    }

    /**
     * Decodes a task encoded by {@link #encodeInvocation}.
     *
     * @param bytes the bytes
     * @param calls makes the invocations
     * @return the task
     */
    public Invocation decodeInvocation(byte[] bytes, Calls calls) {
        return decodeInvocation(MemoryBuffer.fromByteArray(bytes), calls);
    }

    /**
     * Decodes a task encoded by {@link #encodeInvocation}, from where {@code in} reads.
     *
     * @param in the bytes
     * @param calls makes the invocations
     * @return the task
     */
    public Invocation decodeInvocation(MemoryBuffer in, Calls calls) {
        return fory.execute(decoder -> read(decoder, in, calls));
    }

    private static Invocation read(Fory decoder, MemoryBuffer in, Calls calls) {
        String id = new String(in.readBytes(in.readVarUInt32()), StandardCharsets.UTF_8);
        Object[] args = new Object[in.readInt32()];
        for (int i = 0; i < args.length; i++) {
            byte kind = in.readByte();
            if (kind == TASK_ARG) {
                long key = in.readInt64();
                args[i] = new TaskArg(calls.taskArg(key, read(decoder, in, calls)));
            } else if (kind == SHARED) {
                args[i] = SharedCrossing.read(decoder, in);
            } else if (kind == STREAM) {
                args[i] = calls.stream(i);
            } else if (kind == SIGNAL) {
                args[i] = calls.signal(i, (String) decoder.deserialize(in));
            } else {
                args[i] = decoder.deserialize(in);
            }
        }
        return calls.call(id, args);
    }

    /**
     * Appends stream items to {@code out} as one Fory array (one reference table for the batch,
     * not one per item): all {@code count} of them, or, when they take more than {@code budget}
     * bytes, the largest leading half, quarter … that fits.
     *
     * @param items the items
     * @param from the first to encode
     * @param count how many there are from {@code from}
     * @param out where, at its writer index
     * @param budget the bytes the encoded items may take, unless a single item takes more
     * @param of the stream's task, for messages
     * @param worker the worker, for messages
     * @return how many items were encoded
     * @throws IllegalArgumentException if an item's class is not registered or cannot be encoded
     */
    public int encodeItems(Object[] items, int from, int count, MemoryBuffer out, int budget, Invocation of, String worker) {
        int start = out.writerIndex();
        return fory.execute(encoder -> {
            for (int n = count; ; n = (n + 1) / 2) {
                out.writerIndex(start);
                try {
                    encoder.serialize(out, java.util.Arrays.copyOfRange(items, from, from + n));
                } catch (RuntimeException refused) {
                    Object culprit = unencodable(encoder, items, from, n);
                    throw cannotCross("an item of the stream of " + of + " cannot cross between this JVM and isolated worker "
                            + worker + ": it is a " + culprit.getClass().getName(), refused);
                }
                if (out.writerIndex() - start <= budget || n == 1) {
                    return n;
                }
            }
        });
    }

    /** The first item that cannot be encoded alone, for the message. */
    private static Object unencodable(Fory encoder, Object[] items, int from, int n) {
        for (int i = from; i < from + n; i++) {
            try {
                encoder.serialize(items[i]);
            } catch (RuntimeException refused) {
                return items[i];
            }
        }
        return items[from];
    }

    /**
     * Decodes {@code count} items encoded by {@link #encodeItems}, as one array (for a pump that
     * hands them on as a run).
     *
     * @param bytes the bytes
     * @param offset where they start
     * @param count how many items
     * @return the items, in order
     */
    public Object[] decodeItems(byte[] bytes, int offset, int count) {
        MemoryBuffer in = MemoryBuffer.fromByteArray(bytes);
        in.readerIndex(offset);
        return decodeItems(in, count);
    }

    /**
     * Decodes {@code count} items encoded by {@link #encodeItems}, from where {@code in} reads.
     *
     * @param in the bytes
     * @param count how many items
     * @return the items, in order
     */
    public Object[] decodeItems(MemoryBuffer in, int count) {
        Object[] items = (Object[]) fory.deserialize(in);
        if (items.length != count) {
            throw new IllegalStateException(count + " items were sent, " + items.length + " arrived");
        }
        return items;
    }

    /**
     * Encodes a task's result, in the worker.
     *
     * @param value the result
     * @param of the task, for messages
     * @param worker the worker, for messages
     * @return the bytes
     * @throws IllegalArgumentException if its class is not registered or cannot be encoded
     */
    public byte[] encodeValue(Object value, Invocation of, String worker) {
        if (value instanceof SharedValue) {
            throw new IllegalArgumentException("the result of " + of + " is " + sharedType(value.getClass()) + ", which cannot"
                    + " cross back from isolated worker " + worker + ": shared values cross only from the parent, as"
                    + " arguments; allocate it in the parent and pass it to the task");
        }
        return fory.execute(encoder -> {
            try {
                return encoder.serialize(value);
            } catch (RuntimeException refused) {
                throw cannotCross("the result of " + of + " cannot cross back from isolated worker " + worker + ": it is a "
                        + value.getClass().getName(), refused);
            }
        });
    }

    /**
     * Decodes a result encoded by {@link #encodeValue}.
     *
     * @param bytes the bytes
     * @return the result
     */
    public Object decodeValue(byte[] bytes) {
        return fory.deserialize(bytes);
    }

    /**
     * Decodes a result encoded by {@link #encodeValue}, from where {@code in} reads.
     *
     * @param in the bytes
     * @return the result
     */
    public Object decodeValue(MemoryBuffer in) {
        return fory.deserialize(in);
    }

    /**
     * Encodes a throwable, whatever its class.
     *
     * @param failure the throwable
     * @return the bytes
     */
    public byte[] encodeFailure(Throwable failure) {
        RemoteFailure remote = describe(failure, 0);
        return fory.execute(encoder -> encoder.serialize(remote));
    }

    /** Deep enough for any real chain, bounded against a cycle of causes. */
    private static final int MAX_DEPTH = 32;

    /**
     * What the worker JVM sends of a throwable. A user's throwable may override {@code getMessage},
     * {@code getStackTrace} or {@code getCause} with code that throws: each is read on its own and
     * replaced by a note, so that the task is still answered.
     */
    private static RemoteFailure describe(Throwable failure, int depth) {
        StackTraceElement[] stack = read(failure::getStackTrace, new StackTraceElement[0]);
        String[] classes = new String[stack.length];
        String[] methods = new String[stack.length];
        String[] files = new String[stack.length];
        int[] lines = new int[stack.length];
        for (int i = 0; i < stack.length; i++) {
            classes[i] = stack[i].getClassName();
            methods[i] = stack[i].getMethodName();
            files[i] = stack[i].getFileName();
            lines[i] = stack[i].getLineNumber();
        }
        Throwable cause = read(failure::getCause, null);
        Throwable[] suppressed = depth < MAX_DEPTH ? failure.getSuppressed() : new Throwable[0];
        RemoteFailure[] others = new RemoteFailure[suppressed.length];
        for (int i = 0; i < suppressed.length; i++) {
            others[i] = describe(suppressed[i], depth + 1);
        }
        String message = read(failure::getMessage, "(its getMessage() threw)");
        return new RemoteFailure(failure.getClass().getName(), message, classes, methods, files, lines,
                cause != null && cause != failure && depth < MAX_DEPTH ? describe(cause, depth + 1) : null, others);
    }

    private static <T> T read(java.util.function.Supplier<T> part, T instead) {
        try {
            return part.get();
        } catch (RuntimeException | LinkageError | StackOverflowError thrown) {
            return instead;
        }
    }

    /**
     * Decodes a throwable encoded by {@link #encodeFailure}: the same class when it has a public
     * constructor taking a message (and a cause), else a stand-in that prints as the original; with
     * the worker's stack.
     *
     * @param bytes the bytes
     * @return the throwable
     */
    public Throwable decodeFailure(byte[] bytes) {
        return rebuild((RemoteFailure) fory.execute(decoder -> decoder.deserialize(bytes)));
    }

    private static Throwable rebuild(RemoteFailure remote) {
        Throwable cause = remote.cause() != null ? rebuild(remote.cause()) : null;
        Throwable made = instantiate(remote.type(), remote.message(), cause);
        StackTraceElement[] stack = new StackTraceElement[remote.classes().length];
        for (int i = 0; i < stack.length; i++) {
            stack[i] = new StackTraceElement(remote.classes()[i], remote.methods()[i], remote.files()[i], remote.lines()[i]);
        }
        made.setStackTrace(stack);
        for (RemoteFailure suppressed : remote.suppressed()) {
            made.addSuppressed(rebuild(suppressed));
        }
        return made;
    }

    private static Throwable instantiate(String type, String message, Throwable cause) {
        try {
            Class<? extends Throwable> made = Class.forName(type, false, ClassLoader.getSystemClassLoader()).asSubclass(Throwable.class);
            try {
                return made.getConstructor(String.class, Throwable.class).newInstance(message, cause);
            } catch (NoSuchMethodException noCauseParameter) {
                Throwable plain = made.getConstructor(String.class).newInstance(message);
                if (cause != null) {
                    plain.initCause(cause);
                }
                return plain;
            }
        } catch (ReflectiveOperationException | LinkageError | RuntimeException cannot) {
            return new ForeignException(type, message, cause);
        }
    }
}
