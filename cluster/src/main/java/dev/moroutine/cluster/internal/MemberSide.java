package dev.moroutine.cluster.internal;

import com.hazelcast.client.Client;
import com.hazelcast.client.ClientListener;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent;
import dev.moroutine.Balancer;
import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.call.Definition;
import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.internal.dispatch.Execution;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.isolated.internal.Codec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * What a member holds for the pools that send it tasks: per pool, one worker thread (a
 * {@link WorkerPool} of one thread, so task-args are resolved and cached there, and closed when it
 * stops), the pool's codec, the task-args it decoded (by the sender's key, so the worker's cache
 * hits) and the streams it serves. Kept in the member's user context, so several members in one
 * JVM each have their own.
 *
 * <p>A pool here closes when its owner says so ({@link Envelope#CLOSE}), when its owner (a member or
 * a client) leaves the cluster, and when this member shuts down; closing stops its worker, which closes the task-arg values.
 * Once this member shuts down, a stream's pull that finds its pool gone is answered {@link #LEFT},
 * as one that found it still there: the stream is lost with the member, not cancelled.
 *
 * <h2>Answers</h2>
 * One byte, then: {@link #VALUE} the encoded result; {@link #FAILURE} an encoded throwable;
 * {@link #CANCELLED} the reason in UTF-8; {@link #OK} nothing; {@link #ITEMS} and {@link #END}
 * the item count (int32) and the items as one encoded array (after {@code END} there are no more);
 * {@link #LEFT} the reason in UTF-8.
 *
 * <h2>Streams</h2>
 * A streaming task runs on the pool's worker thread into a {@link StreamServer}, which the owner
 * pulls ({@link Envelope#PULL}) in batches, granting credit with each pull: the producer is never
 * more than the stream's high-water mark ahead of the owner's consumer.
 */
final class MemberSide {

    static final byte VALUE = 0;
    static final byte FAILURE = 1;
    static final byte CANCELLED = 2;
    static final byte OK = 3;
    static final byte ITEMS = 4;
    static final byte END = 5;
    /** The task did not finish because this member is shutting down: its owner treats it as lost with the member. */
    static final byte LEFT = 6;

    private static final String KEY = MemberSide.class.getName();
    private static final InheritableThreadLocal<HazelcastInstance> HERE = new InheritableThreadLocal<>();

    private final HazelcastInstance member;
    private final Map<String, PoolHere> pools = new ConcurrentHashMap<>();
    /** Set when this member shuts down: the tasks it stops are answered {@link #LEFT}, not cancelled. */
    private volatile boolean shuttingDown;

    private MemberSide(HazelcastInstance member) {
        this.member = member;
    }

    static MemberSide of(HazelcastInstance member) {
        Object known = member.getUserContext().get(KEY);
        if (known != null) {
            return (MemberSide) known;
        }
        MemberSide made = new MemberSide(member);
        Object raced = member.getUserContext().putIfAbsent(KEY, made);
        if (raced != null) {
            return (MemberSide) raced;
        }
        member.getLifecycleService().addLifecycleListener(event -> {
            if (event.getState() == LifecycleEvent.LifecycleState.SHUTTING_DOWN) {
                made.closeAll("member " + member.getName() + " is shutting down");
            }
        });
        member.getCluster().addMembershipListener(new MembershipListener() {
            @Override
            public void memberAdded(MembershipEvent event) {}

            @Override
            public void memberRemoved(MembershipEvent event) {
                made.ownerLeft(event.getMember().getUuid());
            }
        });
        member.getClientService().addClientListener(new ClientListener() { // an owner may be a client
            @Override
            public void clientConnected(Client client) {}

            @Override
            public void clientDisconnected(Client client) {
                made.ownerLeft(client.getUuid());
            }
        });
        return made;
    }

    /**
     * The member whose worker thread runs the calling code, for a task that needs its Hazelcast instance.
     *
     * @return the instance, or null outside a cluster task
     */
    static HazelcastInstance here() {
        return HERE.get();
    }

    byte[] handle(byte kind, String poolId, long seq, long number, byte[] payload, String[] names) {
        if (kind == Envelope.OPEN) {
            open(poolId, names, (int) number, seq);
            return new byte[] {OK};
        }
        PoolHere pool = pools.get(poolId);
        if (pool == null && shuttingDown && (kind == Envelope.STREAM || kind == Envelope.PULL)) {
            return left("its pools were closing"); // closeAll removed it: the stream is lost with this member
        }
        if (pool == null && kind == Envelope.RUN) { // a batch is answered task by task, as the caller reads it
            return answerEach(payload, shuttingDown ? left("its pools were closing") : cancelled(notOpen(poolId)));
        }
        if (pool == null) {
            return kind == Envelope.STREAM || kind == Envelope.PULL ? cancelled(notOpen(poolId)) : new byte[] {OK};
        }
        return switch (kind) {
            case Envelope.RUN -> pool.runBatch(payload);
            case Envelope.STREAM -> pool.stream(seq, payload);
            case Envelope.PULL -> pool.pull(seq, number);
            case Envelope.CANCEL -> pool.cancel(seq);
            case Envelope.CLOSE -> {
                pools.remove(poolId, pool);
                pool.close(number == 1);
                yield new byte[] {OK};
            }
            default -> throw new IllegalArgumentException("unknown envelope kind " + kind);
        };
    }

    private String notOpen(String poolId) {
        return "pool " + poolId + " is not open on member " + member.getCluster().getLocalMember()
                + " (it was closed, or its owner left the cluster)";
    }

    /** A batch's reply (see {@link PoolHere#runBatch}) giving every task of {@code payload} the same answer. */
    static byte[] answerEach(byte[] payload, byte[] answer) {
        ByteBuffer in = ByteBuffer.wrap(payload);
        int count = in.getInt();
        ByteBuffer out = ByteBuffer.allocate(Integer.BYTES + count * (Long.BYTES + Integer.BYTES + answer.length));
        out.putInt(count);
        for (int i = 0; i < count; i++) {
            long seq = in.getLong();
            in.getLong(); // its timeout
            int request = in.getInt();
            in.position(in.position() + request);
            out.putLong(seq).putInt(answer.length).put(answer);
        }
        return out.array();
    }

    private void open(String poolId, String[] names, int highWaterMark, long taskTimeoutNanos) {
        pools.computeIfAbsent(poolId, id -> {
            List<Class<?>> types = new ArrayList<>();
            ClassLoader loader = loader();
            for (int i = 2; i < names.length; i++) {
                try {
                    types.add(Class.forName(names[i], false, loader));
                } catch (ClassNotFoundException missing) {
                    throw new IllegalStateException("class " + names[i] + ", registered on pool " + names[1] + ", is not on the"
                            + " class path of member " + member.getCluster().getLocalMember() + ": every member needs the"
                            + " application's classes", missing);
                }
            }
            return new PoolHere(id, UUID.fromString(names[0]), names[1], Codecs.of(types), highWaterMark,
                    taskTimeoutNanos < 0 ? null : Duration.ofNanos(taskTimeoutNanos));
        });
    }

    private ClassLoader loader() {
        ClassLoader configured = member.getConfig().getClassLoader();
        return configured != null ? configured : ClassLoader.getSystemClassLoader();
    }

    private void closeAll(String why) {
        shuttingDown = true;
        for (PoolHere pool : pools.values()) {
            pools.remove(pool.id, pool);
            pool.close(false);
        }
    }

    private void ownerLeft(UUID owner) {
        for (PoolHere pool : pools.values()) {
            if (pool.owner.equals(owner)) {
                pools.remove(pool.id, pool);
                pool.close(false);
            }
        }
    }

    private byte[] left(String doing) {
        return tagged(LEFT, ("member " + member.getName() + " shut down while " + doing).getBytes(StandardCharsets.UTF_8));
    }

    private static byte[] cancelled(String why) {
        return tagged(CANCELLED, why.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] tagged(byte kind, byte[] payload) {
        byte[] reply = new byte[payload.length + 1];
        reply[0] = kind;
        System.arraycopy(payload, 0, reply, 1, payload.length);
        return reply;
    }

    /** One pool, on this member. */
    private final class PoolHere implements Codec.Calls {
        final String id;
        final UUID owner;
        final Codec codec;
        final WorkerPool local;
        final Worker worker;
        final Map<String, Definition> definitions = new ConcurrentHashMap<>();
        final Map<Long, Invocation> taskArgs = new ConcurrentHashMap<>();
        final Map<Long, Execution<Object>> running = new ConcurrentHashMap<>();
        final Map<Long, StreamServer> streams = new ConcurrentHashMap<>();

        PoolHere(String id, UUID owner, String poolName, Codec codec, int highWaterMark, Duration taskTimeout) {
            this.id = id;
            this.owner = owner;
            this.codec = codec;
            Balancer only = (workers, task) -> workers.get(0);
            HERE.set(member); // inherited by the worker thread
            try {
                this.local = new WorkerPool(1, only, null, poolName + "-on-" + member.getName(), highWaterMark, taskTimeout,
                        WorkerPool.THREADS);
            } finally {
                HERE.remove();
            }
            this.worker = (Worker) local.workers().get(0);
        }

        @Override
        public Invocation call(String id, Object[] args) {
            return definitions.computeIfAbsent(id, known -> Definition.find(known, loader())).call(args);
        }

        @Override
        public Invocation taskArg(long key, Invocation decoded) {
            return taskArgs.computeIfAbsent(key, first -> decoded);
        }

        private Call<?> decode(byte[] payload, long timeoutNanos) {
            Call<?> call = (Call<?>) codec.decodeInvocation(payload, this);
            return timeoutNanos < 0 ? call : call.withTimeout(Duration.ofNanos(timeoutNanos));
        }

        /**
         * Runs a batch of value tasks, in order, on the pool's worker: all are queued there at once
         * (one wake-up), then this thread waits for each in turn and answers them all together.
         */
        byte[] runBatch(byte[] payload) {
            ByteBuffer in = ByteBuffer.wrap(payload);
            int count = in.getInt();
            long[] seqs = new long[count];
            Object[] started = new Object[count]; // a Started, or the answer of a task that did not start
            for (int i = 0; i < count; i++) {
                seqs[i] = in.getLong();
                long timeoutNanos = in.getLong();
                byte[] request = new byte[in.getInt()];
                in.get(request);
                started[i] = start(seqs[i], request, timeoutNanos);
            }
            byte[][] answers = new byte[count][];
            int size = Integer.BYTES;
            for (int i = 0; i < count; i++) {
                answers[i] = started[i] instanceof Started run ? finish(seqs[i], run) : (byte[]) started[i];
                size += Long.BYTES + Integer.BYTES + answers[i].length;
            }
            ByteBuffer out = ByteBuffer.allocate(size);
            out.putInt(count);
            for (int i = 0; i < count; i++) {
                out.putLong(seqs[i]).putInt(answers[i].length).put(answers[i]);
            }
            return out.array();
        }

        /** A task queued on the worker, and its outcome as a future that waits without spinning (Execution.get spins first). */
        private record Started(Execution<Object> execution, CompletableFuture<Object> answer) {}

        private Object start(long seq, byte[] request, long timeoutNanos) {
            Execution<Object> execution;
            try {
                execution = new Execution<>(decode(request, timeoutNanos), null);
            } catch (RuntimeException | LinkageError undecodable) {
                return tagged(FAILURE, codec.encodeFailure(undecodable));
            }
            running.put(seq, execution);
            CompletableFuture<Object> answer = new CompletableFuture<>();
            execution.whenComplete((result, failure) -> {
                if (failure == null) {
                    answer.complete(result);
                } else {
                    answer.completeExceptionally(failure);
                }
            });
            try {
                worker.dispatch(execution);
            } catch (RuntimeException refused) {
                execution.completeExceptionally(refused);
            }
            return new Started(execution, answer);
        }

        private byte[] finish(long seq, Started started) {
            Execution<Object> execution = started.execution();
            try {
                Object value;
                try {
                    value = started.answer().get();
                } catch (InterruptedException interrupted) { // the member is shutting down
                    execution.cancel(true);
                    Thread.currentThread().interrupt();
                    return cancelled("member " + member.getName() + " stopped while running " + execution.invocation());
                } catch (CancellationException stopped) {
                    return failed(stopped);
                } catch (ExecutionException failed) {
                    return failed(failed.getCause());
                }
                try {
                    return tagged(VALUE, codec.encodeValue(value, execution.invocation(), member.getName()));
                } catch (RuntimeException refused) {
                    return tagged(FAILURE, codec.encodeFailure(refused));
                }
            } finally {
                running.remove(seq);
            }
        }

        /** The answer for a task (or a stream) that failed or was stopped. */
        private byte[] failed(Throwable thrown) {
            if (thrown instanceof CancellationException stopped) {
                return shuttingDown ? left("running it") : cancelled(String.valueOf(stopped.getMessage()));
            }
            // A CancellationException the function threw is stored wrapped: send the function's own.
            Throwable own = thrown instanceof CompletionException && thrown.getCause() != null ? thrown.getCause() : thrown;
            return tagged(FAILURE, codec.encodeFailure(own));
        }

        /** Starts a streaming task: {@code payload} = its own timeout in nanoseconds or -1 (int64), its high-water mark (int32), the invocation. */
        byte[] stream(long seq, byte[] payload) {
            ByteBuffer in = ByteBuffer.wrap(payload);
            long timeoutNanos = in.getLong();
            int highWaterMark = in.getInt();
            byte[] request = Arrays.copyOfRange(payload, in.position(), payload.length);
            Execution<Object> execution;
            StreamServer server;
            try {
                Call<?> call = decode(request, timeoutNanos);
                server = new StreamServer(highWaterMark, "stream of " + call + " on member " + member.getName(), codec,
                        member.getName(), this::failed, () -> shuttingDown ? left("serving the stream")
                                : cancelled("the stream was closed on member " + member.getName()));
                execution = new Execution<>(call, server);
            } catch (RuntimeException | LinkageError refused) {
                return tagged(FAILURE, codec.encodeFailure(refused));
            }
            streams.put(seq, server);
            server.start(execution);
            try {
                worker.dispatch(execution);
            } catch (RuntimeException refused) {
                execution.completeExceptionally(refused);
            }
            return new byte[] {OK};
        }

        byte[] pull(long seq, long consumed) {
            StreamServer server = streams.get(seq);
            if (server == null) {
                return shuttingDown ? left("serving the stream") : cancelled("the stream was closed on member " + member.getName());
            }
            try {
                byte[] answer = server.pull(consumed);
                if (answer[0] != ITEMS) {
                    streams.remove(seq, server); // its last answer
                }
                return answer;
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                return cancelled("member " + member.getName() + " stopped while serving a stream");
            }
        }

        byte[] cancel(long seq) {
            Execution<Object> execution = running.get(seq);
            if (execution != null) {
                execution.cancel(true);
            }
            StreamServer server = streams.remove(seq);
            if (server != null) {
                server.close();
            }
            return new byte[] {OK};
        }

        void close(boolean graceful) {
            for (Iterator<StreamServer> it = streams.values().iterator(); it.hasNext(); ) {
                StreamServer server = it.next();
                it.remove();
                server.close();
            }
            if (graceful) {
                local.close();
            } else {
                local.terminate();
            }
            try {
                worker.awaitStopped(2, TimeUnit.SECONDS); // its task-arg values are closed by then
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
