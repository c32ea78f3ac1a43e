package dev.moroutine.serve;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/** Collects what the server logs (through System.Logger's java.util.logging backend) while it is open. */
final class LogCapture extends Handler implements AutoCloseable {

    private final Logger logger = Logger.getLogger(Server.class.getName());
    private final List<LogRecord> records = new CopyOnWriteArrayList<>();
    private final boolean parentHandlers = logger.getUseParentHandlers();

    /** Captures instead of printing: an expected warning in the build log would read as a problem. */
    LogCapture() {
        logger.addHandler(this);
        logger.setUseParentHandlers(false);
    }

    List<LogRecord> records() {
        return records;
    }

    @Override
    public void publish(LogRecord record) {
        records.add(record);
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        logger.removeHandler(this);
        logger.setUseParentHandlers(parentHandlers);
    }
}
