/**
 * Isolated workers: pools whose workers are child JVMs, made by
 * {@link dev.moroutine.isolated.Isolated#workers(int, dev.moroutine.isolated.IsolatedOptions)}.
 */
// Agrona ships no module descriptor, only an Automatic-Module-Name: its name is stable, so requiring it is safe.
@SuppressWarnings({"requires-automatic", "module"})
module dev.moroutine.isolated {
    requires transitive dev.moroutine;
    requires java.management;
    requires org.agrona;
    requires org.apache.fory.core;
    requires org.jctools.core;

    exports dev.moroutine.isolated;
    // The codec, to the cluster backend, which encodes its tasks the same way.
    exports dev.moroutine.isolated.internal to dev.moroutine.cluster;
    // Fory encodes the library's own records (a failure as it crosses back).
    opens dev.moroutine.isolated.internal to org.apache.fory.core;
}
