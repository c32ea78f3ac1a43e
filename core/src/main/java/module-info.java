/**
 * moroutine: define a function once as a {@code static final} moroutine and run it on worker
 * threads, alone on its own dedicated worker or balanced over a pool.
 *
 * <p>Exported: {@code dev.moroutine} (moroutines, tasks, pools), {@code dev.moroutine.shared}
 * (off-heap shared memory) and {@code dev.moroutine.stream} (streaming). The workers, queues and
 * dispatch live in {@code dev.moroutine.internal}, which users cannot reach.
 */
module dev.moroutine {
    requires org.jctools.core;

    exports dev.moroutine;
    exports dev.moroutine.shared;
    exports dev.moroutine.stream;
}
