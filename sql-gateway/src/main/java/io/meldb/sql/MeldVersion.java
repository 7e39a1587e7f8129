package io.meldb.sql;

/** MeldDB's version as clients see it (JDBC metadata, PostgreSQL's version()): one place for all of them. */
public final class MeldVersion {
    public static final String VERSION = "0.1.0";
    public static final String PRODUCT = "MeldDB";
    /** {@link #VERSION}'s first two numbers (JDBC's major and minor version). */
    public static final int MAJOR = 0;
    public static final int MINOR = 1;
    /** The name of MeldDB's JDBC driver ({@code DatabaseMetaData.getDriverName}). */
    public static final String DRIVER = "MeldDB JDBC Driver";

    private MeldVersion() {
    }
}
