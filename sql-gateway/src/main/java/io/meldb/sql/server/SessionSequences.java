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
    /** The last value per sequence id. */
    private final Map<Integer, Long> current = new HashMap<>();
    private volatile String schema = SqlEngine.SCHEMA;

    SessionSequences(final GatewayConnection connection, final SequenceCache cache) {
        this.connection = connection;
        this.cache = cache;
    }

    void schema(final String newSchema) {
        schema = newSchema;
    }

    @Override
    public long nextval(final String name) {
        final SequenceDef q = resolve(name);
        final long v = cache.next(q);
        synchronized (current) {
            current.put(q.id(), v);
        }
        return v;
    }

    @Override
    public long currval(final String name) {
        final SequenceDef q = resolve(name);
        synchronized (current) {
            final Long v = current.get(q.id());
            if (v == null) {
                throw new SqlStateException("55000", "currval of sequence \"" + q.name() + "\" is not yet defined "
                        + "in this session");
            }
            return v;
        }
    }

    @Override
    public long setval(final String name, final long value, final boolean isCalled) {
        final SequenceDef q = resolve(name);
        cache.set(q, value, isCalled);
        if (isCalled) {
            synchronized (current) {
                current.put(q.id(), value);
            }
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
