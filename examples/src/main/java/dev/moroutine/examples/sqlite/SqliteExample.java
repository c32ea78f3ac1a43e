package dev.moroutine.examples.sqlite;

import static dev.moroutine.Moroutine.*;
import static dev.moroutine.examples.Check.check;
import static dev.moroutine.examples.sqlite.Db.*;

import dev.moroutine.Pool;
import dev.moroutine.Task;
import java.sql.Connection;
import java.util.List;
import java.util.Map;

/**
 * A SQLite database on a worker via task-arg caching: {@code openDb.call(url)} is a task, passed in
 * place of the {@link Connection} to every {@code exec} and {@code query} call. The worker runs it
 * once, caches the connection and reuses it; the main thread never touches it, and the pool closes
 * it when the worker stops. Uses the real SQLite of {@code org.xerial:sqlite-jdbc}.
 */
public final class SqliteExample {

    private SqliteExample() {}

    /**
     * Creates, fills and queries an in-memory table on a one-worker pool.
     *
     * @param args ignored
     */
    public static void main(String[] args) {
        Task<Connection> db = openDb.call("jdbc:sqlite::memory:");
        int opensBefore = opens.get();

        List<Map<String, Object>> rows;
        String worker;
        try (Pool pool = workers(1)) {
            worker = pool.workers().getFirst().name();
            pool.run(exec.call(db, "CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)"));
            int inserted = pool.run(exec.call(db, "INSERT INTO users (name) VALUES ('Alice'), ('Bob'), ('Carol')"));
            System.out.println("inserted " + inserted + " rows");
            rows = pool.run(query.call(db, "SELECT id, name FROM users ORDER BY id"));
        }

        rows.forEach(System.out::println);
        int opened = opens.get() - opensBefore;
        System.out.println("connections opened: " + opened + ", on " + openedOn.get());
        List<Map<String, Object>> expected = List.of(
                Map.of("id", 1, "name", "Alice"), Map.of("id", 2, "name", "Bob"), Map.of("id", 3, "name", "Carol"));
        check(rows.equals(expected) && opened == 1 && worker.equals(openedOn.get()),
                "3 rows read back; the connection was opened once, on the pool's worker " + worker);
    }
}
