package dev.moroutine.examples.serve;

import static dev.moroutine.Moroutine.mo;

import dev.moroutine.Mo0;
import dev.moroutine.Mo2;
import dev.moroutine.serve.Request;
import dev.moroutine.serve.Response;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/** A hit counter kept in one SQLite database per worker. */
public final class Counter {

    private Counter() {}

    /** Opens a worker's database, on that worker, when its first request needs it. */
    public static final Mo0<Connection> openCounter = mo(() -> {
        Connection db = DriverManager.getConnection("jdbc:sqlite::memory:");
        try (Statement create = db.createStatement()) {
            create.execute("CREATE TABLE hits (n INTEGER)");
            create.execute("INSERT INTO hits VALUES (0)");
        }
        return db;
    });

    /** Counts a request in its worker's database, with no lock: only that worker ever uses it. */
    public static final Mo2<Connection, Request, Response> hit = mo((db, request) -> {
        try (Statement statement = db.createStatement()) {
            statement.executeUpdate("UPDATE hits SET n = n + 1");
            try (ResultSet row = statement.executeQuery("SELECT n FROM hits")) {
                row.next();
                return Response.text(Thread.currentThread().getName() + " " + row.getInt(1));
            }
        }
    });
}
