/**
 * Cluster workers: pools whose workers are the members of a Hazelcast cluster, made by
 * {@link dev.moroutine.cluster.Cluster#workers(com.hazelcast.core.HazelcastInstance, dev.moroutine.cluster.ClusterOptions)}.
 */
// Hazelcast ships no module descriptor, only an Automatic-Module-Name (com.hazelcast.core), a stable
// name; the seam and the codec are exported to this module by name only ("module" lint: see core).
@SuppressWarnings({"requires-automatic", "requires-transitive-automatic", "module"})
module dev.moroutine.cluster {
    requires transitive dev.moroutine;
    requires transitive com.hazelcast.core;
    requires dev.moroutine.isolated;
    requires org.apache.fory.core;

    exports dev.moroutine.cluster;
    // Hazelcast makes the envelopes it carries (DataSerializable: a public no-argument constructor).
    opens dev.moroutine.cluster.internal to com.hazelcast.core;
}
