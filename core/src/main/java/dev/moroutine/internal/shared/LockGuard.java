package dev.moroutine.internal.shared;

import dev.moroutine.shared.Guard;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The guard of a held lock: which lock, which side of it, and which thread holds it ({@code null}
 * for a guard from an {@code …Async} acquisition, which any thread may close). The lock's state is
 * in shared memory; the guard only remembers that this holder has not released it yet.
 */
public final class LockGuard implements Guard {

    /** Something a guard releases. */
    interface Lock {
        /** Releases one hold of the given kind. */
        void release(int kind);
    }

    static final int MUTEX = 0;
    static final int READ = 1;
    static final int WRITE = 2;
    private static final String[] KINDS = {"lock", "read lock", "write lock"};

    private static final VarHandle RELEASED;

    static {
        try {
            RELEASED = MethodHandles.lookup().findVarHandle(LockGuard.class, "released", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Lock lock;
    private final int kind;
    private final Thread owner;
    /** Written by the owner only, or (for a guard with no owner) by compare-and-set. */
    private boolean released;

    LockGuard(Lock lock, int kind, Thread owner) {
        this.lock = lock;
        this.kind = kind;
        this.owner = owner;
    }

    @Override
    public void close() {
        if (owner != null) {
            Thread current = Thread.currentThread();
            if (current != owner) {
                throw new IllegalMonitorStateException("the " + KINDS[kind] + " of " + lock + " is held by thread \""
                        + owner.getName() + "\", which must release it; \"" + current.getName() + "\" tried to");
            }
            if (released) {
                throw alreadyReleased();
            }
            released = true;
        } else if (!RELEASED.compareAndSet(this, false, true)) {
            throw alreadyReleased();
        }
        lock.release(kind);
    }

    private IllegalMonitorStateException alreadyReleased() {
        return new IllegalMonitorStateException("this guard already released its " + KINDS[kind] + " of " + lock
                + "; a guard releases once");
    }

    @Override
    public String toString() {
        return "guard of the " + KINDS[kind] + " of " + lock + (released ? " (released)" : "");
    }
}
