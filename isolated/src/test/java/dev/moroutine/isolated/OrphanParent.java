package dev.moroutine.isolated;

import dev.moroutine.Pool;
import java.util.concurrent.CountDownLatch;

/** A parent JVM for {@link OrphanTest}: starts a pool, says its worker JVM's pid, and waits to be killed. */
public final class OrphanParent {

    private OrphanParent() {}

    public static void main(String[] args) throws InterruptedException {
        Pool pool = Isolated.workers(1);
        System.out.println("worker pid " + pool.run(Jobs.pid.call()));
        new CountDownLatch(1).await();
    }
}
