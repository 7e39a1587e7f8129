package io.meldb.sql.pg;

import io.meldb.sql.fast.ParameterValues;
import io.meldb.sql.pg.catalog.PgMetaQueries;
import io.meldb.sql.server.StatementKind;
import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.Objects;

/**
 * One connection's simple-query statements by shape ({@link PgShapeScanner}): a Query message that holds one
 * statement of a shape seen before is answered from here without making a String of it, splitting, lexing or
 * preparing it again — the work a prepared statement saves an extended-protocol client, done for pgbench -M simple,
 * psql scripts and drivers that interpolate values. Kept: protocol commands (BEGIN, END, ...: their parse depends
 * on the text only) and fast-path statements whose lifted literals all land in INTEGER or BIGINT parameters (the
 * rule of {@link PgLiteralShapes}); such a statement is valid while the catalog, search_path and
 * session_authorization it was prepared under hold. Shapes that are neither (Calcite statements, catalog queries,
 * COPY, SET with a value) are remembered as such, so that they go to the general path without being prepared twice.
 * An open-addressing table of at most {@link #MAX_ENTRIES}; full, it starts again empty.
 */
final class PgShapeCache {
    private static final int MAX_ENTRIES = 128;
    private static final int[] NO_DECLARED = new int[0];

    /** A shape and what runs it (null: the general path does), with the state it was prepared under. */
    static final class Entry {
        final byte[] shape;
        final int hash;
        final PgStatement statement;
        /** Its parameter values, bound by {@link #lookup} (one holder per shape: no array made per statement). */
        final ParameterValues values = new ParameterValues();
        /** The catalog, search_path and session_authorization it depends on; null catalog: on none of them. */
        final Object catalog;
        final String searchPath;
        final String authorization;

        Entry(final byte[] shape, final int hash, final PgStatement statement, final Object catalog,
              final String searchPath, final String authorization) {
            this.shape = shape;
            this.hash = hash;
            this.statement = statement;
            this.catalog = catalog;
            this.searchPath = searchPath;
            this.authorization = authorization;
        }
    }

    private final PgContext context;
    private final PgPreparer preparer;
    private final PgShapeScanner scanner = new PgShapeScanner();
    private Entry[] table = new Entry[2 * MAX_ENTRIES];
    private int size;
    /** What the last {@link #lookup} scanned: {@link PgShapeScanner#NONE} when there is nothing to admit. */
    private int scanned;

    PgShapeCache(final PgContext context, final PgPreparer preparer) {
        this.context = context;
        this.preparer = preparer;
    }

    /**
     * The kept statement of the Query whose body is {@code body} (not consumed), its values bound into the entry's
     * holder; null when the shape is not kept, has no statement, or a value does not fit its parameter. A statement
     * of the SQL engine must still pass {@link #valid} before it runs.
     */
    Entry lookup(final ByteBuf body) {
        scanned = PgShapeScanner.NONE;
        final int from = body.readerIndex();
        final int nul = body.indexOf(from, body.writerIndex(), (byte) 0);
        if (nul < 0) {
            return null;
        }
        scanned = scanner.scan(body, from, nul, true);
        if (scanned == PgShapeScanner.NONE) {
            return null;
        }
        final Entry e = find();
        return e == null || e.statement == null || !bind(e) ? null : e;
    }

    /**
     * Whether the last {@link #lookup} found no entry for a shape that {@link #admit} may add: none kept, or one for
     * the general path that the catalog has outgrown (a table that gained a primary key).
     */
    boolean admissible() {
        if (scanned == PgShapeScanner.NONE) {
            return false;
        }
        final Entry e = find();
        return e == null || e.statement == null && !valid(e);
    }

    /**
     * Whether the catalog, search_path and session_authorization are those {@code e} was prepared under (outside a
     * transaction, reading the catalog takes a snapshot: callers on the I/O thread check first that it cannot wait).
     * An entry that is no longer valid is dropped, and the next {@link #admit} prepares its shape again.
     */
    boolean valid(final Entry e) {
        if (e.catalog == null) {
            return true;
        }
        if (e.catalog == context.session.state().catalog()
                && Objects.equals(e.searchPath, context.settings.get("search_path"))
                && Objects.equals(e.authorization, context.settings.get("session_authorization"))) {
            return true;
        }
        remove(e);
        return false;
    }

    /**
     * After a {@link #lookup} that found nothing ({@link #admissible}): prepares the scanned shape of the Query
     * {@code sql} (its text, for what depends on the literals' text: a catalog query, a command) and keeps it. Answers
     * the entry with its values bound, or null for the general path: a shape that is not kept (remembered as such),
     * a value that does not fit, or a statement that fails to prepare (the general path answers its error).
     */
    Entry admit(final String sql) {
        final String shape = new String(scanner.shape(), 0, scanner.shapeLength(), StandardCharsets.UTF_8);
        final int n = scanner.count();
        final PgCommand command;
        try {
            command = PgCommand.parse(sql);
        } catch (RuntimeException e) {
            return null;
        }
        if (command != null && (n > 0 || command instanceof PgCommand.OnCursor) || PgCopy.isCopy(sql)
                || PgMetaQueries.recognize(sql) != null) {
            // SET ... = 5, cursor statements (a FETCH's columns are its cursor's), COPY, psql's and drivers'
            // catalog queries: by their text
            put(null, null);
            return null;
        }
        if (command == null) {
            final StatementKind kind = StatementKind.of(sql);
            if (kind != StatementKind.READ && kind != StatementKind.WRITE
                    || io.meldb.sql.catalog.SqlLexer.firstKeyword(sql).equals("EXPLAIN")) {
                put(null, null);
                return null;
            }
        }
        final Object catalog = command == null ? context.session.state().catalog() : null;
        final PgStatement statement;
        try {
            statement = preparer.prepareTimed(shape, n == 0 ? NO_DECLARED : new int[n]);
        } catch (RuntimeException e) {
            return null;
        }
        if (command == null && !kept(statement, n)) {
            statement.close();
            put(null, catalog);
            return null;
        }
        final Entry e = put(statement, catalog);
        return bind(e) ? e : null;
    }

    /** Drops every entry (the connection closes). */
    void clear() {
        for (int i = 0; i < table.length; i++) {
            final Entry e = table[i];
            if (e != null && e.statement != null) {
                e.statement.close();
            }
            table[i] = null;
        }
        size = 0;
    }

    /** A fast-path statement whose every parameter slot is an INTEGER or BIGINT taking one of the n literals. */
    private static boolean kept(final PgStatement statement, final int n) {
        if (statement.prepared == null || statement.prepared.fast() == null || statement.parameterOids.length != n) {
            return false;
        }
        for (int slot = 0; slot < statement.slotTypes.length; slot++) {
            final int type = statement.slotTypes[slot];
            final int p = statement.slotParameter[slot];
            if (type != Types.INTEGER && type != Types.BIGINT || p < 0 || p >= n) {
                return false;
            }
        }
        return true;
    }

    /** Binds the scanned values into {@code e}'s holder; false when one is out of its INTEGER parameter's range. */
    private boolean bind(final Entry e) {
        final PgStatement statement = e.statement;
        final int slots = statement.slotTypes.length;
        final ParameterValues values = e.values.size() == slots ? e.values : e.values.reset(slots);
        final long[] literals = scanner.values();
        for (int slot = 0; slot < slots; slot++) {
            final long v = literals[statement.slotParameter[slot]];
            if (statement.slotTypes[slot] == Types.INTEGER && v != (int) v) {
                return false; // this value only: its literal text says what it means (the general path)
            }
            values.setLong(slot, v);
        }
        return true;
    }

    private Entry find() {
        final byte[] s = scanner.shape();
        final int length = scanner.shapeLength();
        final int hash = scanner.hash();
        final int mask = table.length - 1;
        for (int i = hash & mask; ; i = (i + 1) & mask) {
            final Entry e = table[i];
            if (e == null) {
                return null;
            }
            if (e.hash == hash && e.shape.length == length
                    && java.util.Arrays.equals(e.shape, 0, length, s, 0, length)) {
                return e;
            }
        }
    }

    private Entry put(final PgStatement statement, final Object catalog) {
        if (size >= MAX_ENTRIES) {
            clear();
        }
        final Entry e = new Entry(java.util.Arrays.copyOf(scanner.shape(), scanner.shapeLength()), scanner.hash(),
                statement, catalog, context.settings.get("search_path"),
                context.settings.get("session_authorization"));
        final int mask = table.length - 1;
        int i = e.hash & mask;
        while (table[i] != null) {
            i = (i + 1) & mask;
        }
        table[i] = e;
        size++;
        return e;
    }

    /** Removes {@code e}, moving the entries after it in its run back so that every one stays reachable. */
    private void remove(final Entry e) {
        final int mask = table.length - 1;
        int i = e.hash & mask;
        while (table[i] != e) {
            i = (i + 1) & mask;
        }
        table[i] = null;
        size--;
        if (e.statement != null) {
            e.statement.close();
        }
        for (int j = (i + 1) & mask; table[j] != null; j = (j + 1) & mask) {
            final Entry moved = table[j];
            table[j] = null;
            int k = moved.hash & mask;
            while (table[k] != null) {
                k = (k + 1) & mask;
            }
            table[k] = moved;
        }
    }
}
