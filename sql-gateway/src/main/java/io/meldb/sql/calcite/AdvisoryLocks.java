package io.meldb.sql.calcite;

import org.apache.calcite.schema.Function;
import org.apache.calcite.schema.impl.ScalarFunctionImpl;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * PostgreSQL's advisory lock functions, accepted and granted at once without locking anything: MeldDB has no lock
 * manager (transactions never wait for one another; meld decides at commit). Tools send them to keep two copies of
 * themselves apart, Flyway around every migration ({@code pg_try_advisory_xact_lock}). For a tool that only writes
 * the database in the locked section this is safe: two copies that run the same migration at once both write its
 * row of the schema history (and the catalog), so meld lets one commit and aborts the other (40001 or 23505), as
 * the lock would have kept it out. It is not safe for a program that uses an advisory lock to guard something
 * outside the database, or a section it runs across several transactions: docs/sql.md says so.
 *
 * <p>Registered under upper-case names, which is how {@link FunctionNames} leaves unquoted calls of functions
 * that are not MeldDB's own; a lock key is any value (one bigint or two integers).
 */
public final class AdvisoryLocks {
    private AdvisoryLocks() {
    }

    /** The functions, by the names calls reach the schema with. */
    static Map<String, Function> functions() {
        final Map<String, Function> f = new LinkedHashMap<>();
        for (String name : new String[] {"pg_try_advisory_lock", "pg_try_advisory_xact_lock",
                "pg_try_advisory_lock_shared", "pg_try_advisory_xact_lock_shared", "pg_advisory_unlock",
                "pg_advisory_unlock_shared"}) {
            f.put(name.toUpperCase(java.util.Locale.ROOT) + "/1", ScalarFunctionImpl.create(AdvisoryLocks.class,
                    "granted"));
            f.put(name.toUpperCase(java.util.Locale.ROOT) + "/2", ScalarFunctionImpl.create(AdvisoryLocks.class,
                    "granted2"));
        }
        for (String name : new String[] {"pg_advisory_lock", "pg_advisory_xact_lock", "pg_advisory_lock_shared",
                "pg_advisory_xact_lock_shared"}) {
            f.put(name.toUpperCase(java.util.Locale.ROOT) + "/1", ScalarFunctionImpl.create(AdvisoryLocks.class,
                    "taken"));
            f.put(name.toUpperCase(java.util.Locale.ROOT) + "/2", ScalarFunctionImpl.create(AdvisoryLocks.class,
                    "taken2"));
        }
        f.put("PG_ADVISORY_UNLOCK_ALL/0", ScalarFunctionImpl.create(AdvisoryLocks.class, "unlockAll"));
        return f;
    }

    /** pg_try_advisory_lock(key) and friends: always granted. */
    public static boolean granted(final Object key) {
        return true;
    }

    public static boolean granted2(final Object key1, final Object key2) {
        return true;
    }

    /** pg_advisory_lock(key) and friends, which return void: PostgreSQL shows an empty value. */
    public static String taken(final Object key) {
        return "";
    }

    public static String taken2(final Object key1, final Object key2) {
        return "";
    }

    public static String unlockAll() {
        return "";
    }
}
