package io.meldb.sql;

/** MeldDB's version as clients see it (JDBC metadata, PostgreSQL's version()): one place for all of them. */
public final class MeldVersion {
    public static final String VERSION = "0.1.0";
    public static final String PRODUCT = "MeldDB";

    private MeldVersion() {
    }
}
