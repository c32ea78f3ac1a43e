package dev.moroutine.cluster.internal;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.ExecutionCallback;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceNotActiveException;
import com.hazelcast.core.IExecutorService;
import com.hazelcast.core.LifecycleEvent;
import com.hazelcast.core.LifecycleService;
import com.hazelcast.core.MemberLeftException;
import com.hazelcast.partition.Partition;
import com.hazelcast.spi.exception.TargetDisconnectedException;
import com.hazelcast.spi.exception.TargetNotMemberException;
import dev.moroutine.PoolOptions;
import dev.moroutine.Signal;
import dev.moroutine.WorkerHandle;
import dev.moroutine.cluster.ClusterOptions;
import dev.moroutine.internal.call.Call;
import dev.moroutine.internal.call.WorkerPool;
import dev.moroutine.internal.dispatch.Invocation;
import dev.moroutine.internal.dispatch.StreamArg;
import dev.moroutine.internal.dispatch.TaskArg;
import dev.moroutine.internal.dispatch.Worker;
import dev.moroutine.internal.shared.Desc;
import dev.moroutine.isolated.internal.Codec;
import dev.moroutine.shared.SharedValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One pool's link to the cluster: its workers by member, the codec, Hazelcast's executors, the
 * membership listener that adds a worker for a member that joins and settles the tasks of one that
 * leaves, and the lifecycle listener that settles every task when the caller's own instance shuts
 * down (else a stream's pump would wait for ever for takes, or answers, that no longer come).
 *
 * <p>A member becomes a worker once it has opened the pool ({@link Envelope#OPEN}: it then knows the
 * registered classes and the pool's settings); {@link WorkerPool#addWorker} gives it the next index.
 * A member that leaves is taken out of the pool ({@link WorkerPool#removeWorker}), then its worker
 * settles every task it had. So a balancer sees a member that joined from its next task on, and
 * never sees one that left after it was taken out. A worker made after the caller's instance began to
 * shut down is settled as it is made: {@code callerGone} is set before the workers are looked at.
 */
public final class ClusterBackend {

    private static final System.Logger LOG = System.getLogger(ClusterBackend.class.getName());
    private static final AtomicInteger POOLS = new AtomicInteger();
    private static final long OPEN_TIMEOUT_SECONDS = 30;
    /**
     * Where the answers to the pools' invocations are handled ({@link #submit}). Not Hazelcast's
     * executor for callbacks: where the common pool has one thread (2 cores or fewer), it starts a
     * thread for every callback, and it already starts one for every answer (to complete the future
     * that {@link IExecutorService#submitToMember(java.util.concurrent.Callable, Member)} returns),
     * so an answer handled there cost two thread starts, three on a client. A cached pool of daemon
     * threads, shared by this JVM's cluster pools; a thread idle for a minute ends.
     */
    private static final Executor ANSWERS = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
            new SynchronousQueue<>(), Thread.ofPlatform().daemon().name("moroutine-cluster-answers-", 1).factory());

    private final HazelcastInstance hazelcast;
    private final ClusterOptions options;
    private final Codec codec;
    private final String poolId = UUID.randomUUID().toString();
    private final String poolName;
    private final IExecutorService tasks;
    private final IExecutorService control;
    private final Map<UUID, ClusterWorker> workers = new ConcurrentHashMap<>();
    private volatile WorkerPool pool;
    /** The caller's instance's lifecycle, held: the instance's own answers a terminated one once it is gone. */
    private final LifecycleService lifecycle;
    /** The caller's instance's name, held: a client that shuts down no longer says it. */
    private final String instanceName;
    /** Set once the caller's instance is shutting down. */
    private final AtomicBoolean callerGone = new AtomicBoolean();

    private ClusterBackend(HazelcastInstance hazelcast, ClusterOptions options, String poolName) {
        this.hazelcast = hazelcast;
        this.options = options;
        this.poolName = poolName;
        this.codec = Codecs.of(options.registered());
        this.tasks = hazelcast.getExecutorService(options.executorName());
        this.control = hazelcast.getExecutorService(options.executorName() + "-control");
        this.lifecycle = hazelcast.getLifecycleService();
        this.instanceName = hazelcast.getName();
    }

    /**
     * Makes a pool whose workers are the cluster's members: those that open it now, and those that join later.
     *
     * @param hazelcast the user's instance (a member or a client), never shut down by the pool
     * @param options the pool's options
     * @return the pool
     */
    public static WorkerPool start(HazelcastInstance hazelcast, ClusterOptions options) {
        PoolOptions settings = options.poolOptions();
        String name = settings.threadNamePrefix().orElse("moroutine-cluster-" + POOLS.incrementAndGet());
        ClusterBackend backend = new ClusterBackend(hazelcast, options, name);
        UUID listener = hazelcast.getCluster().addMembershipListener(backend.new Membership());
        // A member fires SHUTTING_DOWN on the thread that shuts it down, before it stops; a client fires it on its own
        // thread while it stops: so failures of a stopped client settle the tasks too (see ClusterWorker.failed).
        UUID shutdown = backend.lifecycle.addLifecycleListener(event -> {
            if (event.getState() == LifecycleEvent.LifecycleState.SHUTTING_DOWN) {
                backend.callerShutDown();
            }
        });
        Runnable unlisten = () -> {
            backend.lifecycle.removeLifecycleListener(shutdown);
            try {
                hazelcast.getCluster().removeMembershipListener(listener);
            } catch (IllegalStateException gone) {
                // shut down (HazelcastInstanceNotActiveException, or a client's HazelcastClientNotActiveException): its listeners went too
            }
        };
        List<Member> opened;
        try {
            opened = backend.open(new ArrayList<>(hazelcast.getCluster().getMembers()));
        } catch (RuntimeException failed) {
            unlisten.run();
            throw failed;
        }
        if (opened.isEmpty()) {
            unlisten.run();
            throw new IllegalStateException("no member of the cluster of " + hazelcast.getName() + " opened pool " + name
                    + ", so it would have no workers");
        }
        WorkerPool made;
        synchronized (backend) { // a member that joins meanwhile waits for the pool
            made = new WorkerPool(opened.size(), settings.balancer(), settings.shutdownTimeout().orElse(null), name,
                    settings.highWaterMark(), settings.taskTimeout().orElse(null),
                    (workerName, index, group) -> backend.make(opened.get(index), workerName, index, group));
            backend.pool = made;
        }
        made.signal().onAbort(unlisten);
        return made;
    }

    private Worker make(Member member, String name, int index, dev.moroutine.internal.dispatch.WorkerGroup group) {
        ClusterWorker worker = new ClusterWorker(name, index, group, this, member);
        workers.put(member.getUuid(), worker);
        if (callerGone.get()) { // made while the caller's instance shuts down: the listener may have missed it
            worker.callerShutDown(instanceName);
        }
        return worker;
    }

    /**
     * The caller's instance is shutting down (its lifecycle listener, or a worker that saw it stopped):
     * every worker settles its tasks and refuses more. The first call does it; a worker made later sees
     * {@code callerGone} (see {@link #make}).
     */
    void callerShutDown() {
        if (!callerGone.compareAndSet(false, true)) {
            return;
        }
        for (ClusterWorker worker : workers.values()) {
            worker.callerShutDown(instanceName);
        }
    }

    /** Whether the caller's instance still runs: false from the start of its shutdown on. */
    boolean callerRunning() {
        return !callerGone.get() && lifecycle.isRunning();
    }

    /** Opens the pool on these members, at once; the members that did it, in order. */
    private List<Member> open(List<Member> members) {
        // The owner: this member or client, whose leaving closes the pool on the members.
        List<String> names = new ArrayList<>(List.of(hazelcast.getLocalEndpoint().getUuid().toString(), poolName));
        for (Class<?> type : options.registered()) {
            names.add(type.getName());
        }
        String[] header = names.toArray(String[]::new);
        long timeout = options.poolOptions().taskTimeout().map(t -> TimeUnit.NANOSECONDS.convert(t)).orElse(-1L);
        List<Future<byte[]>> answers = new ArrayList<>();
        for (Member member : members) {
            answers.add(control.submitToMember(new Envelope(Envelope.OPEN, poolId, timeout, options.poolOptions().highWaterMark(),
                    null, header), member));
        }
        List<Member> opened = new ArrayList<>();
        for (int i = 0; i < members.size(); i++) {
            try {
                answers.get(i).get(OPEN_TIMEOUT_SECONDS, TimeUnit.SECONDS);
                opened.add(members.get(i));
            } catch (ExecutionException failed) {
                if (!memberGone(failed.getCause())) {
                    throw new IllegalStateException("cluster member " + members.get(i) + " could not open pool " + poolName
                            + ": " + failed.getCause().getMessage(), failed.getCause());
                }
            } catch (TimeoutException late) {
                throw new IllegalStateException("cluster member " + members.get(i) + " did not open pool " + poolName
                        + " within " + OPEN_TIMEOUT_SECONDS + " s", late);
            } catch (InterruptedException interrupted) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while pool " + poolName + " opened on the cluster", interrupted);
            }
        }
        return opened;
    }

    /** Sees members join and leave (on Hazelcast's event thread; a join is opened on a virtual thread). */
    private final class Membership implements MembershipListener {
        @Override
        public void memberAdded(MembershipEvent event) {
            Member joined = event.getMember();
            Thread.ofVirtual().name(poolName + "-join").start(() -> join(joined));
        }

        @Override
        public void memberRemoved(MembershipEvent event) {
            left(event.getMember());
        }
    }

    private void join(Member joined) {
        try {
            if (open(List.of(joined)).isEmpty()) {
                return; // it left already
            }
            synchronized (this) {
                WorkerPool current = pool;
                if (current == null || workers.containsKey(joined.getUuid())) {
                    return; // one of the first members
                }
                current.addWorker((name, index, group) -> make(joined, name, index, group));
            }
            if (!hazelcast.getCluster().getMembers().contains(joined)) {
                left(joined); // it left while it was being added
            }
        } catch (RuntimeException refused) { // the pool closed meanwhile, or the member could not open it
            LOG.log(System.Logger.Level.DEBUG, "member " + joined + " did not become a worker of " + poolName, refused);
        }
    }

    private void left(Member member) {
        ClusterWorker worker = workers.remove(member.getUuid());
        if (worker == null) {
            return;
        }
        WorkerPool current = pool;
        if (current != null) {
            current.removeWorker(worker);
        }
        worker.memberLeft("left the cluster");
    }

    String poolId() {
        return poolId;
    }

    Codec codec() {
        return codec;
    }

    IExecutorService tasks() {
        return tasks;
    }

    IExecutorService control() {
        return control;
    }

    /**
     * Sends {@code envelope} to {@code member} through {@code executor}; its answer, or why there is
     * none, goes to {@code callback} on one of {@link #ANSWERS}' threads.
     *
     * @throws RuntimeException if Hazelcast refuses to send it (this instance or the member is gone)
     */
    static void submit(IExecutorService executor, Envelope envelope, Member member, ExecutionCallback<byte[]> callback) {
        // A CompletableFuture, a member's and a client's alike. Not a dependent stage of its own: Hazelcast makes each
        // one a future that its executor for callbacks completes, on a thread of its own (see ANSWERS); a plain
        // future that follows it, made by the JDK, is completed by the thread that completes the answer.
        CompletableFuture<?> answer = (CompletableFuture<?>) executor.submitToMember(envelope, member);
        CompletableFuture.allOf(answer).whenCompleteAsync((ignored, sameFailure) -> {
            byte[] reply;
            try {
                reply = (byte[]) answer.getNow(null);
            } catch (CompletionException | CancellationException failed) {
                callback.onFailure(failed instanceof CompletionException && failed.getCause() != null ? failed.getCause() : failed);
                return;
            }
            callback.onResponse(reply);
        }, ANSWERS);
    }

    HazelcastInstance hazelcast() {
        return hazelcast;
    }

    /** Whether a failure means the member (or this instance) is gone; a client sees its connection to the member drop. */
    static boolean memberGone(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof MemberLeftException || t instanceof TargetNotMemberException
                    || t instanceof HazelcastInstanceNotActiveException || t instanceof TargetDisconnectedException) {
                return true;
            }
        }
        return false;
    }

    boolean idempotent(Invocation invocation) {
        return invocation instanceof Call<?> call && options.idempotentMoroutines().contains(call.moroutine());
    }

    /** Sends a task whose member left to the least busy other worker; false if there is none. */
    boolean rerun(ClusterWorker.Pending pending, ClusterWorker from) {
        WorkerPool current = pool;
        if (current == null) {
            return false;
        }
        for (int attempt = 0; attempt < 3; attempt++) {
            ClusterWorker best = null;
            for (WorkerHandle handle : current.workers()) {
                if (handle instanceof ClusterWorker candidate && candidate != from
                        && (best == null || candidate.activeCount() < best.activeCount())) {
                    best = candidate;
                }
            }
            if (best == null) {
                return false;
            }
            try {
                best.accept(pending.execution, pending.request, false);
                return true;
            } catch (RuntimeException refused) {
                // that one is stopping too: try another
            }
        }
        return false;
    }

    /** The worker of the member that owns {@code key}'s partition, among {@code handles}; null if it is not one of them. */
    WorkerHandle ownerOf(Object key, List<WorkerHandle> handles) {
        Partition partition = hazelcast.getPartitionService().getPartition(key);
        Member owner = partition.getOwner();
        if (owner == null) {
            return null;
        }
        for (WorkerHandle handle : handles) {
            if (handle instanceof ClusterWorker worker && worker.member().getUuid().equals(owner.getUuid())) {
                return worker;
            }
        }
        return null;
    }

    /** Encodes a task for a member, refusing what cannot cross a machine with a message that says what to do instead. */
    byte[] encode(Invocation invocation, boolean streaming, ClusterWorker destination) {
        refuseLocal(invocation, String.valueOf(invocation), destination);
        Invocation sent = streaming ? new AsSent(invocation) : invocation; // the codec refuses streaming calls, for worker JVMs
        try {
            return codec.encodeInvocation(sent, "cluster member " + destination.member().getAddress());
        } catch (IllegalArgumentException refused) {
            String message = refused.getMessage()
                    .replace("cross to isolated worker", "cross to")
                    .replace("IsolatedOptions.defaults()", "ClusterOptions.defaults()");
            throw new IllegalArgumentException(message, refused.getCause());
        }
    }

    private static void refuseLocal(Invocation invocation, String where, ClusterWorker destination) {
        Object[] args = invocation.args();
        for (int i = 0; i < args.length; i++) {
            Object arg = args[i];
            String argument = "argument " + (i + 1) + " of " + where;
            if (arg instanceof TaskArg taskArg) {
                refuseLocal(taskArg.task(), "task-arg " + taskArg.task() + " (" + argument + ")", destination);
            } else if (arg instanceof SharedValue) {
                throw new IllegalArgumentException(argument + " is shared memory (" + sharedType(arg.getClass()) + "), which lives"
                        + " in this machine's memory and cannot cross to cluster member " + destination.member().getAddress()
                        + ". Keep state shared between members in the cluster instead: an IMap entry processor"
                        + " (map.executeOnKey(key, processor)) updates a value atomically where it lives, or an IAtomicLong"
                        + " (Hazelcast's CP subsystem, in the Enterprise edition since 5.5); or run this task on a pool of"
                        + " threads (Moroutine.workers)");
            } else if (arg instanceof StreamArg stream) {
                throw new UnsupportedOperationException(argument + " is a stream (" + stream.endpoint() + "), which cannot cross"
                        + " to cluster member " + destination.member().getAddress() + " yet; collect its items into a List"
                        + " and pass that, or run this task on a pool of threads (Moroutine.workers)");
            } else if (arg instanceof Signal) {
                throw new UnsupportedOperationException(argument + " is a Signal, which cannot cross to cluster member "
                        + destination.member().getAddress() + " yet; give the task a timeout (withTimeout) or cancel its"
                        + " future instead, which stops it on the member");
            }
        }
    }

    private static String sharedType(Class<?> type) {
        return article(Desc.publicType(type));
    }

    private static String article(String noun) {
        return ("AEIOU".indexOf(noun.charAt(0)) >= 0 ? "an " : "a ") + noun;
    }

    /** A streaming call as the codec sees it: its id and arguments, not its kind. */
    private static final class AsSent extends Invocation {
        private final Invocation call;

        AsSent(Invocation call) {
            super(call.args());
            this.call = call;
        }

        @Override
        public Duration timeout() {
            return call.timeout();
        }

        @Override
        public String id() {
            return call.id();
        }

        @Override
        protected Object invoke(Object[] resolved) {
            throw new UnsupportedOperationException("sent to a member, never run here");
        }

        @Override
        public String toString() {
            return call.toString();
        }
    }
}
