package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.calcite.SequenceAccess;
import io.meldb.sql.catalog.SequenceDef;
import io.meldb.sql.catalog.Sequences;

import java.util.HashMap;
import java.util.Map;

/**
 * {@code nextval}, {@code currval} and {@code setval} for one connection: values come from the gateway's
 * {@link SequenceCache}; {@code currval} is the value this connection last got from {@code nextval} (or set with
 * {@code setval}), 55000 before that, as in PostgreSQL. Unqualified names resolve in the connection's schema.
 */
final class SessionSequences implements SequenceAccess {
    private final GatewayConnection connection;
    private final SequenceCache cache;
    /** The last value per sequence id: {value, 1 once set}. */
    private final Map<Integer, long[]> current = new HashMap<>();
    /** The sequence {@link #nextval} resolved last (an INSERT loop asks for the same one every time). */
    private Resolved last;

    /** A name resolved in one catalog version: the definition, the gateway's range and the session's value. */
    private record Resolved(String name, io.meldb.sql.catalog.Catalog catalog, String schema, SequenceDef def,
                            SequenceCache.Range range, long[] current) {
    }
    private volatile String schema = SqlEngine.SCHEMA;

    SessionSequences(final GatewayConnection connection, final SequenceCache cache) {
        this.connection = connection;
        this.cache = cache;
    }

    void schema(final String newSchema) {
        schema = newSchema;
    }

    /** The schema unqualified names resolve in. */
    String schema() {
        return schema;
    }

    @Override
    public long nextval(final String name) {
        final Resolved r = resolveCached(name);
        final long v = cache.next(r.def, r.range);
        r.current[0] = v;
        r.current[1] = 1;
        return v;
    }

    @Override
    public long currval(final String name) {
        final SequenceDef q = resolve(name);
        final long[] v = currentOf(q);
        if (v[1] == 0) {
            throw new SqlStateException("55000", "currval of sequence \"" + q.name() + "\" is not yet defined "
                    + "in this session");
        }
        return v[0];
    }

    private long[] currentOf(final SequenceDef q) {
        synchronized (current) {
            return current.computeIfAbsent(q.id(), id -> new long[2]);
        }
    }

    /** {@link #resolve}, remembered for the same name (the same String) in the same catalog version. */
    private Resolved resolveCached(final String name) {
        final io.meldb.sql.catalog.Catalog catalog = connection.catalog();
        final Resolved r = last;
        if (r != null && r.name == name && r.catalog == catalog && r.schema == schema) {
            return r;
        }
        final SequenceDef q = resolve(name);
        final Resolved fresh = new Resolved(name, catalog, schema, q, cache.range(q), currentOf(q));
        last = fresh;
        return fresh;
    }

    @Override
    public long setval(final String name, final long value, final boolean isCalled) {
        final SequenceDef q = resolve(name);
        cache.set(q, value, isCalled);
        if (isCalled) {
            final long[] v = currentOf(q);
            v[0] = value;
            v[1] = 1;
        }
        return value;
    }

    private SequenceDef resolve(final String name) {
        if (name == null) {
            throw new SqlStateException("22004", "the sequence name must not be null");
        }
        final String[] parts = Sequences.parseName(name);
        final SequenceDef q = connection.catalog().sequence(connection.database(),
                parts[0] == null ? schema : parts[0], parts[1]);
        if (q == null) {
            throw Sequences.unknown(parts[1]);
        }
        return q;
    }
}
