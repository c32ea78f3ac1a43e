/**
 * moroutine: define a function once as a {@code static final} moroutine and run it on worker
 * threads, alone on its own dedicated worker or balanced over a pool.
 *
 * <p>Only {@code dev.moroutine} is exported; the workers, queues and dispatch live in
 * {@code dev.moroutine.internal}, which users cannot reach.
 */
module dev.moroutine {
    requires org.jctools.core;

    exports dev.moroutine;
    exports dev.moroutine.stream;
}
