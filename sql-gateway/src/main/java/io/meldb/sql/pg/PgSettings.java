package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The run-time parameters of one PostgreSQL session (what SET, SHOW and RESET see, and ParameterStatus
 * reports). The ones that change what MeldDB does are read by the connection (search_path, the transaction
 * characteristics, client_encoding); the rest are kept and shown so that clients that set them at connect go
 * on. An unknown parameter is an error (42704), as in PostgreSQL, except custom "a.b" names.
 */
public final class PgSettings {
    /** What clients parse to learn the features of the server: PostgreSQL 15's protocol and catalog. */
    public static final String SERVER_VERSION = "15.0";
    /** Parameters that PostgreSQL reports with ParameterStatus at connect and whenever they change. */
    static final Set<String> REPORTED = Set.of("server_version", "server_encoding", "client_encoding",
            "application_name", "DateStyle", "IntervalStyle", "TimeZone", "integer_datetimes",
            "standard_conforming_strings", "is_superuser", "session_authorization");

    private static final Map<String, String> DEFAULTS = defaults();

    /** statement_timeout in milliseconds (0 = none), kept parsed: it is read at every execution. */
    private long statementTimeoutMillis;
    /** idle_in_transaction_session_timeout in milliseconds (0 = none), likewise read at every ReadyForQuery. */
    private long idleInTransactionMillis;
    /** Current values by canonical name (case as PostgreSQL spells it). */
    private final Map<String, String> values = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);

    PgSettings(final String user) {
        values.putAll(DEFAULTS);
        values.put("session_authorization", user);
    }

    /** Every parameter MeldDB knows with the value a new session starts with, by name (pg_settings lists them). */
    public static Map<String, String> defaultValues() {
        return java.util.Collections.unmodifiableMap(DEFAULTS);
    }

    private static Map<String, String> defaults() {
        final Map<String, String> d = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        d.put("server_version", SERVER_VERSION);
        d.put("server_version_num", "150000");
        d.put("server_encoding", "UTF8");
        d.put("client_encoding", "UTF8");
        d.put("application_name", "");
        d.put("DateStyle", "ISO, MDY");
        d.put("IntervalStyle", "postgres");
        d.put("TimeZone", "UTC");
        d.put("integer_datetimes", "on");
        d.put("standard_conforming_strings", "on");
        d.put("is_superuser", "on");
        d.put("session_authorization", "");
        d.put("search_path", "public");
        d.put("extra_float_digits", "1");
        d.put("default_transaction_isolation", "serializable");
        d.put("default_transaction_read_only", "off");
        d.put("transaction_isolation", "serializable");
        d.put("transaction_read_only", "off");
        d.put("statement_timeout", "0");
        d.put("meldb.statement_memory", io.meldb.sql.calcite.StatementMemory.DEFAULT_LIMIT / (1024 * 1024) + "MB");
        d.put("lock_timeout", "0");
        d.put("idle_in_transaction_session_timeout", "0");
        d.put("client_min_messages", "notice");
        d.put("max_identifier_length", "63");
        d.put("max_index_keys", "32"); // pgjdbc reads it before getImportedKeys / getExportedKeys
        d.put("lc_collate", "C");
        d.put("lc_ctype", "C");
        d.put("lc_messages", "C");
        d.put("lc_monetary", "C");
        d.put("lc_numeric", "C");
        d.put("lc_time", "C");
        d.put("synchronous_commit", "on");
        d.put("bytea_output", "hex");
        d.put("row_security", "on");
        d.put("check_function_bodies", "on");
        d.put("xmloption", "content");
        d.put("default_tablespace", "");
        d.put("default_table_access_method", "heap");
        d.put("default_with_oids", "off");
        d.put("escape_string_warning", "on");
        d.put("max_connections", "512");
        d.put("block_size", "8192");
        d.put("jit", "off");
        d.put("work_mem", "4MB");
        d.put("maintenance_work_mem", "64MB");
        d.put("geqo", "on");
        d.put("enable_seqscan", "on");
        d.put("timezone_abbreviations", "Default");
        d.put("session_replication_role", "origin");
        d.put("transaction_deferrable", "off");
        d.put("default_transaction_deferrable", "off");
        d.put("plan_cache_mode", "auto");
        // MeldDB's own: key accesses by primary key skip Calcite (off only to compare the two paths)
        d.put("meldb.fast_path", "on");
        return d;
    }

    /** The canonical name of a known parameter, or the name itself for a custom one. */
    private static String canonical(final String name) {
        for (String known : DEFAULTS.keySet()) {
            if (known.equalsIgnoreCase(name)) {
                return known;
            }
        }
        if (name.contains(".")) {
            return name.toLowerCase(Locale.ROOT);
        }
        throw new SqlStateException("42704", "unrecognized configuration parameter \"" + name + "\"");
    }

    public String get(final String name) {
        final String known = values.get(name); // case-insensitive: a set parameter needs no canonical name
        if (known != null) {
            return known;
        }
        final String key = canonical(name);
        final String v = values.get(key);
        if (v == null) {
            throw new SqlStateException("42704", "unrecognized configuration parameter \"" + name + "\"");
        }
        return v;
    }

    /** Sets a parameter; answers its canonical name. Read-only parameters and bad values are errors. */
    public String set(final String name, final String value) {
        final String key = canonical(name);
        switch (key) {
            case "server_version", "server_version_num", "server_encoding", "integer_datetimes", "lc_collate",
                 "lc_ctype", "max_identifier_length", "block_size", "is_superuser", "max_connections",
                 "session_authorization" ->
                    throw new SqlStateException("55P02", "parameter \"" + key + "\" cannot be changed");
            case "client_encoding" -> {
                final String e = value.toUpperCase(Locale.ROOT).replace("-", "").replace("_", "");
                if (!e.equals("UTF8") && !e.equals("UNICODE") && !e.equals("SQLASCII")) {
                    throw new SqlStateException("22023", "MeldDB speaks only UTF8; client_encoding \"" + value
                            + "\" is not supported");
                }
                values.put(key, "UTF8");
                return key;
            }
            case "DateStyle" -> {
                if (!value.toUpperCase(Locale.ROOT).contains("ISO")) {
                    throw new SqlStateException("22023", "MeldDB writes dates only in DateStyle ISO; \"" + value
                            + "\" is not supported");
                }
                values.put(key, "ISO, MDY");
                return key;
            }
            case "standard_conforming_strings" -> {
                if (!isOn(value)) {
                    throw new SqlStateException("22023", "MeldDB keeps standard_conforming_strings on");
                }
                values.put(key, "on");
                return key;
            }
            case "meldb.statement_memory" -> {
                io.meldb.sql.calcite.StatementMemory.parse(value); // 22023 before it is stored
                values.put(key, value.trim());
                return key;
            }
            case "default_transaction_isolation", "transaction_isolation" -> {
                values.put(key, isolation(value));
                return key;
            }
            case "statement_timeout", "lock_timeout", "idle_in_transaction_session_timeout" -> {
                final String old = values.put(key, value);
                try {
                    final long ms = millis(key);
                    if (key.equals("statement_timeout")) {
                        statementTimeoutMillis = ms;
                    } else if (key.equals("idle_in_transaction_session_timeout")) {
                        idleInTransactionMillis = ms;
                    }
                } catch (SqlStateException e) {
                    values.put(key, old);
                    throw e;
                }
                return key;
            }
            default -> {
                values.put(key, value);
                return key;
            }
        }
    }

    /** RESET: back to the default; answers the canonical name. */
    public String reset(final String name) {
        final String key = canonical(name);
        if (!key.equals("session_authorization")) {
            values.put(key, DEFAULTS.getOrDefault(key, ""));
        }
        if (key.equals("statement_timeout")) {
            statementTimeoutMillis = 0;
        } else if (key.equals("idle_in_transaction_session_timeout")) {
            idleInTransactionMillis = 0;
        }
        return key;
    }

    /** All parameters and their values, for SHOW ALL. */
    public Map<String, String> all() {
        return values;
    }

    /** A PostgreSQL isolation level name, normalized ("serializable", "repeatable read", ...). */
    static String isolation(final String value) {
        final String v = value.trim().toLowerCase(Locale.ROOT).replaceAll("\\s+", " ").replace("_", " ");
        return switch (v) {
            case "serializable", "repeatable read", "read committed", "read uncommitted" -> v;
            case "default" -> "serializable";
            default -> throw new SqlStateException("22023", "invalid value for parameter "
                    + "\"transaction_isolation\": \"" + value + "\"");
        };
    }

    long statementTimeoutMillis() {
        return statementTimeoutMillis;
    }

    long idleInTransactionMillis() {
        return idleInTransactionMillis;
    }

    /** A duration setting (statement_timeout, ...) in milliseconds: "0", "250" (ms), "250ms", "5s", "2min", "1h". */
    long millis(final String name) {
        final String v = get(name).trim().toLowerCase(Locale.ROOT);
        final java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d+)\\s*(ms|s|min|h|d)?").matcher(v);
        if (!m.matches()) {
            throw new SqlStateException("22023", "invalid value for parameter \"" + name + "\": \"" + v + "\"");
        }
        final long n = Long.parseLong(m.group(1));
        final String unit = m.group(2) == null ? "ms" : m.group(2);
        return switch (unit) {
            case "s" -> n * 1000;
            case "min" -> n * 60_000;
            case "h" -> n * 3_600_000;
            case "d" -> n * 86_400_000;
            default -> n;
        };
    }

    static boolean isOn(final String value) {
        return switch (value.trim().toLowerCase(Locale.ROOT)) {
            case "on", "true", "yes", "1", "t" -> true;
            default -> false;
        };
    }
}
