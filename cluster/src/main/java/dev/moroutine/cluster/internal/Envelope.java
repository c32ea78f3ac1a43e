package dev.moroutine.cluster.internal;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.nio.ObjectDataInput;
import com.hazelcast.nio.ObjectDataOutput;
import com.hazelcast.nio.serialization.DataSerializable;
import java.io.IOException;
import java.util.concurrent.Callable;

/**
 * What crosses to a member: one Hazelcast {@link Callable}, written with Hazelcast's own
 * {@link DataSerializable} (never Java serialization), that carries a task as the bytes of the
 * shared {@code Codec} (Fory), or a control message, and answers with bytes ({@link MemberSide}
 * says what they hold). A {@code DataSerializable} needs no factory in the members' configuration:
 * Hazelcast writes its class name and makes it with the public no-argument constructor.
 */
public final class Envelope implements Callable<byte[]>, DataSerializable, HazelcastInstanceAware {

    /**
     * Opens a pool on the member: {@code names} = the owner's UUID, the pool's name, the registered
     * classes' names; {@code number} = the high-water mark; {@code seq} = the task timeout in nanoseconds, or -1.
     */
    static final byte OPEN = 0;
    /**
     * Runs value tasks, in order: {@code payload} = their count (int32), then per task its sequence
     * number (int64), its own timeout in nanoseconds or -1 (int64), the length of its invocation
     * (int32) and the invocation. Answered with the count, then per task its sequence number, the
     * length of its answer and the answer.
     */
    static final byte RUN = 1;
    /**
     * Starts the streaming task {@code seq}, answered at once; its items are pulled. {@code payload} =
     * its own timeout in nanoseconds or -1 (int64), its high-water mark (int32), the invocation.
     */
    static final byte STREAM = 2;
    /** Takes the items ready of the stream {@code seq}; {@code number} = the count its consumer has taken (the credit). */
    static final byte PULL = 3;
    /** Cancels the task or stream {@code seq}, interrupting it. */
    static final byte CANCEL = 4;
    /** Closes the pool on the member: {@code number} 1 = gracefully (its tasks finish), 0 = at once. */
    static final byte CLOSE = 5;

    private byte kind;
    private String pool;
    private long seq;
    private long number;
    private byte[] payload;
    private String[] names;
    private transient HazelcastInstance member;

    /** For Hazelcast, which reads the fields next. */
    public Envelope() {}

    Envelope(byte kind, String pool, long seq, long number, byte[] payload, String[] names) {
        this.kind = kind;
        this.pool = pool;
        this.seq = seq;
        this.number = number;
        this.payload = payload;
        this.names = names;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance instance) {
        this.member = instance;
    }

    @Override
    public byte[] call() {
        return MemberSide.of(member).handle(kind, pool, seq, number, payload, names);
    }

    @Override
    public void writeData(ObjectDataOutput out) throws IOException {
        out.writeByte(kind);
        out.writeString(pool);
        out.writeLong(seq);
        out.writeLong(number);
        out.writeByteArray(payload);
        out.writeStringArray(names);
    }

    @Override
    public void readData(ObjectDataInput in) throws IOException {
        kind = in.readByte();
        pool = in.readString();
        seq = in.readLong();
        number = in.readLong();
        payload = in.readByteArray();
        names = in.readStringArray();
    }

    @Override
    public String toString() {
        return "moroutine envelope " + kind + " of pool " + pool + " #" + seq;
    }
}
