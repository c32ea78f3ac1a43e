package dev.moroutine.isolated;

import dev.moroutine.Pool;
import dev.moroutine.internal.shared.SharedFiles;
import dev.moroutine.shared.Int32Atomic;
import dev.moroutine.shared.Shared;
import java.util.concurrent.CountDownLatch;

/** A parent JVM for {@link OrphanTest}: starts a pool, says its worker JVM's pid, and waits to be killed. */
public final class OrphanParent {

    private OrphanParent() {}

    public static void main(String[] args) throws InterruptedException {
        Pool pool = Isolated.workers(1);
        // A shared value passed to the worker, so that a chunk file exists: the worker deletes it when this JVM dies.
        Int32Atomic counter = Shared.shared(Shared.int32Atomic);
        pool.run(SharedJobs.count.call(counter, 1));
        System.out.println("shared files " + SharedFiles.directory());
        System.out.println("worker pid " + pool.run(Jobs.pid.call()));
        new CountDownLatch(1).await();
    }
}
