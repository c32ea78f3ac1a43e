/**
 * moroutine: define a function once as a {@code static final} moroutine and run it on worker
 * threads, alone on its own dedicated worker or balanced over a pool.
 *
 * <p>Exported: {@code dev.moroutine} (moroutines, tasks, pools), {@code dev.moroutine.shared}
 * (off-heap shared memory) and {@code dev.moroutine.stream} (streaming). The workers, queues and
 * dispatch live in {@code dev.moroutine.internal}, which users cannot reach.
 */
// The backend modules named in the qualified exports below are built after this one, so javac
// cannot find them here ("module not found"); the runtime checks them when they are present.
@SuppressWarnings("module")
module dev.moroutine {
    requires org.jctools.core;

    exports dev.moroutine;
    exports dev.moroutine.shared;
    exports dev.moroutine.stream;

    // The seam, to the backend modules only (see ARCHITECTURE.md): not a published SPI. (serve uses DeferredWakes.)
    exports dev.moroutine.internal.dispatch to dev.moroutine.isolated, dev.moroutine.cluster, dev.moroutine.serve;
    exports dev.moroutine.internal.call to dev.moroutine.isolated, dev.moroutine.cluster;
    exports dev.moroutine.internal.shared to dev.moroutine.isolated, dev.moroutine.cluster;
    // A worker JVM's streams (its pump feeds the caller's Pipe, the child forwards its producer's) and a member's.
    exports dev.moroutine.internal.stream to dev.moroutine.isolated, dev.moroutine.cluster;
}
