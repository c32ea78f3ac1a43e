package dev.moroutine.examples.readme;

import static dev.moroutine.Moroutine.*;

import dev.moroutine.Mo1;
import dev.moroutine.Mo2;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

public final class Sql {
    public static final Mo1<String, Connection> openDb = mo(url -> DriverManager.getConnection(url));

    public static final Mo2<Connection, String, Integer> exec = mo((db, sql) -> {
        try (Statement statement = db.createStatement()) {
            return statement.executeUpdate(sql);
        }
    });

    public static final Mo2<Connection, String, Long> count = mo((db, table) -> {
        try (Statement statement = db.createStatement();
                ResultSet rows = statement.executeQuery("SELECT count(*) FROM " + table)) {
            rows.next();
            return rows.getLong(1);
        }
    });
}
