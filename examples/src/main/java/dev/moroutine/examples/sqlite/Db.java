package dev.moroutine.examples.sqlite;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Database moroutines. {@link #exec} and {@link #query} take the {@link Connection} first; callers
 * pass the task {@code openDb.call(url)} in its place, so the connection is opened on the worker,
 * cached there and never leaves it.
 */
public final class Db {

    private Db() {}

    /** How many connections {@link #openDb} has opened: evidence for the example, not needed in real code. */
    static final AtomicInteger opens = new AtomicInteger();
    /** The thread that opened the last one. */
    static final AtomicReference<String> openedOn = new AtomicReference<>();

    /** Opens a connection; used as a task-arg, it runs once per worker. */
    public static final Mo1<String, Connection> openDb = mo((String url) -> {
        opens.incrementAndGet();
        openedOn.set(Thread.currentThread().getName());
        return DriverManager.getConnection(url);
    });

    /** Runs a statement and returns its update count. */
    public static final Mo2<Connection, String, Integer> exec = mo((Connection db, String sql) -> {
        try (Statement statement = db.createStatement()) {
            return statement.executeUpdate(sql);
        }
    });

    /** Runs a query and returns its rows as column-name-to-value maps, in column order. */
    public static final Mo2<Connection, String, List<Map<String, Object>>> query = mo((Connection db, String sql) -> {
        try (Statement statement = db.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            ResultSetMetaData meta = rs.getMetaData();
            List<Map<String, Object>> rows = new ArrayList<>();
            while (rs.next()) {
                Map<String, Object> row = new LinkedHashMap<>();
                for (int c = 1; c <= meta.getColumnCount(); c++) {
                    row.put(meta.getColumnLabel(c), rs.getObject(c));
                }
                rows.add(row);
            }
            return rows;
        }
    });
}
