package dev.moroutine.internal.call;

import dev.moroutine.Mo;
import dev.moroutine.Task;
import dev.moroutine.internal.dispatch.Endpoint;
import dev.moroutine.internal.dispatch.IdleTimeout;
import dev.moroutine.internal.dispatch.StreamArg;
import dev.moroutine.internal.dispatch.TaskArg;
import dev.moroutine.internal.dispatch.ThreadWorker;
import dev.moroutine.internal.dispatch.Worker;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Everything a moroutine is behind its typed {@code MoN} face: where it was made, its identity
 * (found lazily), its function, and its dedicated worker (started lazily).
 */
public final class Definition {

    /** The moroutine's function, taking its arguments as an array. */
    @FunctionalInterface
    public interface Invoker {
        /**
         * Runs the function.
         *
         * @param args the resolved arguments, as many as the arity; a streaming moroutine's output
         *     follows them (see the stream layer's {@code StreamCall.output})
         * @return the result (null for a streaming moroutine)
         * @throws Exception whatever the function throws
         */
        Object invoke(Object[] args) throws Exception;
    }

    private static final VarHandle DEDICATED;

    static {
        try {
            DEDICATED = MethodHandles.lookup().findVarHandle(Definition.class, "dedicated", Worker.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * The definitions made by each class's initialiser, for {@link #find}: a process that looks a
     * moroutine up by its id gets the object from the field, and its definition from here.
     */
    private static final ClassValue<ConcurrentLinkedQueue<Definition>> MADE_IN = new ClassValue<>() {
        @Override
        protected ConcurrentLinkedQueue<Definition> computeValue(Class<?> type) {
            return new ConcurrentLinkedQueue<>();
        }
    };

    private final Mo moroutine;
    private final Class<?> declaringClass;
    private final String site;
    private final Invoker invoker;
    private volatile String id;
    private volatile Worker dedicated;

    /**
     * Makes the definition of a moroutine.
     *
     * @param moroutine the public moroutine object, which must end up in a static final field
     * @param site the frame of the {@code mo(…)} call
     * @param invoker the function
     */
    public Definition(Mo moroutine, StackWalker.StackFrame site, Invoker invoker) {
        this.moroutine = moroutine;
        this.declaringClass = site.getDeclaringClass();
        this.site = site.getFileName() + ":" + site.getLineNumber();
        this.invoker = invoker;
        MADE_IN.get(declaringClass).add(this);
    }

    /**
     * The moroutine with an id, as a backend in another process finds it: loads (and initialises)
     * its class, reads the field and returns its definition.
     *
     * @param id the moroutine's id, {@code "class#field"}
     * @param loader the class loader that loads its class
     * @return the definition
     * @throws IllegalArgumentException if {@code id} names no moroutine that this process can read
     */
    public static Definition find(String id, ClassLoader loader) {
        int hash = id.indexOf('#');
        if (hash <= 0 || hash == id.length() - 1) {
            throw new IllegalArgumentException("\"" + id + "\" is not a moroutine id, which is \"class#field\"");
        }
        String className = id.substring(0, hash);
        Object value;
        Class<?> type;
        try {
            type = Class.forName(className, true, loader);
            Field field = type.getDeclaredField(id.substring(hash + 1));
            if (!Modifier.isStatic(field.getModifiers()) || !field.trySetAccessible()) {
                throw new IllegalArgumentException("the field of moroutine " + id + " is not static, or not accessible to"
                        + " module dev.moroutine; add `opens " + type.getPackageName() + " to dev.moroutine;` to your"
                        + " module-info.java");
            }
            value = field.get(null);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException("moroutine " + id + " cannot be found in this process (" + e
                    + "); it must be on the class path or module path here too", e);
        }
        for (Definition definition : MADE_IN.get(type)) {
            if (definition.moroutine == value) {
                return definition;
            }
        }
        throw new IllegalArgumentException(id + " does not hold a moroutine made by " + className + " itself");
    }

    /** The arguments of every call of a moroutine of no parameters: shared, never written. */
    public static final Object[] NO_ARGS = {};

    private static final StackWalker WALKER = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE);

    /**
     * The frame that called a factory method ({@code mo(…)}, {@code streaming(…)}): where the
     * moroutine is made, whose class must hold it in a static final field.
     *
     * @param factory the class whose static method was called
     * @return the caller's frame
     */
    public static StackWalker.StackFrame callSite(Class<?> factory) {
        return WALKER.walk(frames -> frames
                .filter(frame -> frame.getDeclaringClass() != factory && frame.getDeclaringClass() != Definition.class)
                .findFirst()
                .orElseThrow());
    }

    /**
     * Checks a task given as a task-arg.
     *
     * @param task the task-arg
     * @param position its argument position, from 1
     * @return the argument as it crosses the seam: a stream or a channel is a {@link StreamArg},
     *     any other task a {@link TaskArg}
     */
    public static Object taskArg(Task<?> task, int position) {
        if (task == null) {
            throw new NullPointerException("task-arg " + position + " is null; pass a task made by a moroutine's call(…), "
                    + "or cast a null value to the parameter's type");
        }
        return task instanceof Endpoint stream ? new StreamArg(stream) : new TaskArg(Call.of(task));
    }

    /**
     * The moroutine's identity, {@code "class#field"}, resolved on first use.
     *
     * @return the identity
     * @throws IllegalStateException if the moroutine is not in a static final field of its class
     */
    public String id() {
        String known = id;
        return known != null ? known : resolveId();
    }

    /**
     * Describes a call of a value moroutine.
     *
     * @param args the arguments: values, or {@link #taskArg}s
     * @param <R> the result type
     * @return the task
     */
    public <R> Call<R> call(Object... args) {
        id();
        return new Call<>(this, args, null, null);
    }

    /**
     * Describes a call of a value moroutine whose arguments are all values, which the calling thread
     * then never reads (see {@link dev.moroutine.internal.dispatch.Invocation}); a moroutine's overload without task-args.
     *
     * @param args the arguments: values only, no {@link #taskArg}s
     * @param <R> the result type
     * @return the task
     */
    public <R> Call<R> callValues(Object... args) {
        id();
        return Call.ofValues(this, args);
    }

    /**
     * The arguments of a call of this moroutine.
     *
     * @param task the task
     * @return its arguments
     * @throws IllegalArgumentException if the task is another moroutine's
     */
    public Arguments arguments(Task<?> task) {
        Call<?> call = Call.of(Objects.requireNonNull(task, "task"));
        if (call.definition() != this) {
            throw new IllegalArgumentException(call + " is not a call of " + this + "; check with isTask(moroutine, task) first");
        }
        return new Arguments(call);
    }

    /** A call's arguments as a caller may read them: values yes, task-args no. */
    public static final class Arguments {
        private final Call<?> call;

        Arguments(Call<?> call) {
            this.call = call;
        }

        /**
         * The value at a position.
         *
         * @param index the position, from 0
         * @return the value
         * @throws IllegalArgumentException if the position holds a task-arg
         */
        public Object value(int index) {
            Object arg = call.args()[index];
            if (arg instanceof TaskArg || arg instanceof StreamArg) {
                Object task = arg instanceof TaskArg taskArg ? taskArg.task() : ((StreamArg) arg).endpoint();
                throw new IllegalArgumentException("argument " + (index + 1) + " of " + call + " is the task-arg "
                        + task + ", whose value exists only on a worker");
            }
            return arg;
        }

        @Override
        public String toString() {
            return "arguments of " + call;
        }
    }

    Mo moroutine() {
        return moroutine;
    }

    Object invoke(Object[] args) throws Exception {
        return invoker.invoke(args);
    }

    /**
     * The moroutine's own worker: one daemon thread, started on first use, that stops after the
     * {@link IdleTimeout} and is started again by the next dispatch (see {@link ThreadWorker}).
     */
    Worker dedicatedWorker() {
        Worker worker = dedicated;
        if (worker != null) {
            return worker;
        }
        IdleTimeout.get(); // a malformed system property fails this call, not the worker thread
        ThreadWorker created = new ThreadWorker("moroutine-" + id(), 0, null);
        if (DEDICATED.compareAndSet(this, null, created)) {
            created.start();
            return created;
        }
        return dedicated;
    }

    private String resolveId() {
        // A field dev.moroutine cannot read may be the one that holds this moroutine, or another of
        // the same type: the message names them all, since none can be told apart without reading it.
        SortedSet<String> unreadable = new TreeSet<>();
        Field unassigned = null;
        for (Field field : declaringClass.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (!Modifier.isStatic(modifiers) || !Modifier.isFinal(modifiers) || !field.getType().isInstance(moroutine)) {
                continue;
            }
            if (!field.trySetAccessible()) {
                unreadable.add(field.getName());
                continue;
            }
            Object value;
            try {
                value = field.get(null);
            } catch (IllegalAccessException e) {
                unreadable.add(field.getName());
                continue;
            }
            if (value == moroutine) {
                String resolved = declaringClass.getName() + "#" + field.getName();
                id = resolved;
                return resolved;
            }
            if (value == null) {
                unassigned = field;
            }
        }
        String where = "the moroutine made at " + site + " (in " + declaringClass.getName() + ")";
        if (!unreadable.isEmpty()) {
            String fields = unreadable.size() == 1
                    ? "its field " + unreadable.first() + " is"
                    : "its fields " + String.join(", ", unreadable) + " (one of which should hold it) are";
            throw new IllegalStateException(where + " could not be looked up: " + fields
                    + " not accessible to module dev.moroutine; add `opens " + declaringClass.getPackageName()
                    + " to dev.moroutine;` to your module-info.java (or make both the class and the field public"
                    + " in an exported package)");
        }
        if (unassigned != null) {
            throw new IllegalStateException(where + " was used while " + declaringClass.getName()
                    + " was still initialising, before its field " + unassigned.getName()
                    + " was assigned; keep static initialisers free of moroutine calls");
        }
        throw new IllegalStateException(where + " is not stored in a static final field of " + declaringClass.getName()
                + "; declare it there, as `static final MoN<…> name = mo(…);`, so that workers can find it by name");
    }

    @Override
    public String toString() {
        try {
            return id();
        } catch (IllegalStateException notInAField) {
            return "moroutine made at " + site;
        }
    }
}
