package io.meldb.sql.pg;

import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.pg.catalog.PgMetaQuery;
import io.meldb.sql.server.SqlSession.PreparedSql;
import io.meldb.sql.server.StatementKind;

import java.sql.Types;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * A statement of the extended query protocol (named, or the unnamed one) or of a simple Query: its SQL, what runs
 * it (a {@link PgCommand} of the protocol layer, a {@link PgMetaQuery} on the system catalogs, or a
 * {@link PreparedSql} of the SQL engine), its parameter types
 * and its result columns ({@link PgColumns#NONE} for a statement that returns no rows). A DECLARE holds its query,
 * prepared with it: its parameters are the query's.
 */
final class PgStatement implements AutoCloseable {
    final String sql;
    final PgCommand command;
    final PreparedSql prepared;
    /** A system catalog query the front end answers itself, or null. */
    final PgMetaQuery meta;
    /** Parameter types as PostgreSQL OIDs: what the client declared, or what the statement infers. */
    final int[] parameterOids;
    /** For each parameter slot ({@code ?}) of the engine's statement, the client's parameter it takes. */
    final int[] slotParameter;
    /** The JDBC type of each parameter slot. */
    final int[] slotTypes;
    final PgColumns columns;
    /** The first word(s) of the command tag: "SELECT", "INSERT 0", "CREATE TABLE", ... */
    final String tag;
    /** A DECLARE's query (closed with it), or null. */
    final PgStatement query;
    /**
     * The formats the rows travel in under the simple query protocol: text, but binary for a FETCH from a BINARY
     * cursor (PostgreSQL's rule; under the extended protocol the Bind message says).
     */
    short[] simpleFormats = PgBind.NO_FORMATS;
    /** Gives the engine's statement back when this one is closed (the engine may keep its plan). */
    private final Consumer<PreparedSql> release;

    /**
     * @param rewrittenSlots the client's parameter of each {@code ?} of the rewritten SQL (see
     *                      {@link PgSqlRewriter}); empty when they are the same
     * @param parameterCount the number of the client's parameters ($1 ... $n)
     */
    PgStatement(final Consumer<PreparedSql> release, final String sql, final PgCommand command,
                final PreparedSql prepared, final int[] declared, final PgColumns columns, final int[] rewrittenSlots,
                final int parameterCount) {
        this(release, sql, command, prepared, null, null, declared, columns, rewrittenSlots, parameterCount,
                prepared == null ? new int[0] : prepared.parameterTypes());
    }

    /** A DECLARE of a cursor over {@code query}: no rows of its own, the query's parameters. */
    static PgStatement declare(final String sql, final PgCommand command, final PgStatement query) {
        return new PgStatement(p -> { }, sql, command, null, null, query, query.parameterOids, PgColumns.NONE,
                query.slotParameter, query.parameterOids.length, query.slotTypes);
    }

    /** A system catalog query: its parameters ($1 ... $n, each once) are text. */
    static PgStatement meta(final String sql, final PgMetaQuery meta, final int[] declared) {
        final int[] slotTypes = new int[meta.parameterCount()];
        java.util.Arrays.fill(slotTypes, Types.VARCHAR);
        return new PgStatement(p -> { }, sql, null, null, meta, null, declared, meta.columns(), new int[0],
                meta.parameterCount(), slotTypes);
    }

    private PgStatement(final Consumer<PreparedSql> release, final String sql, final PgCommand command,
                        final PreparedSql prepared, final PgMetaQuery meta, final PgStatement query,
                        final int[] declared, final PgColumns columns, final int[] rewrittenSlots,
                        final int parameterCount, final int[] slotTypes) {
        this.release = release;
        this.query = query;
        this.sql = sql;
        this.command = command;
        this.prepared = prepared;
        this.meta = meta;
        this.columns = columns;
        this.tag = tag(sql, command);
        this.slotTypes = slotTypes;
        final int slots = slotTypes.length;
        this.slotParameter = new int[slots];
        for (int i = 0; i < slots; i++) {
            slotParameter[i] = i < rewrittenSlots.length ? rewrittenSlots[i] : i;
        }
        final int n = Math.max(Math.max(parameterCount, rewrittenSlots.length == 0 ? slots : 0), declared.length);
        parameterOids = new int[n];
        for (int p = 0; p < n; p++) {
            final int oid = p < declared.length ? declared[p] : 0;
            parameterOids[p] = oid != 0 ? oid : PgType.ofJdbc(typeOfParameter(p)).oid();
        }
    }

    /** The JDBC type of the client's parameter {@code p}: that of the first slot that takes it. */
    private int typeOfParameter(final int p) {
        for (int i = 0; i < slotParameter.length; i++) {
            if (slotParameter[i] == p) {
                return slotTypes[i];
            }
        }
        return Types.VARCHAR;
    }

    /**
     * Whether executing the statement writes (DML or DDL, or a SELECT ... FOR UPDATE, whose rows count as written),
     * so that it needs an update transaction.
     */
    boolean writes() {
        return prepared != null && (prepared.kind() != StatementKind.READ
                || prepared.clauses() != null && prepared.clauses().locks());
    }

    @Override
    public void close() {
        if (prepared != null) {
            release.accept(prepared);
        }
        if (query != null) {
            query.close();
        }
    }

    /** Whether a CREATE statement is CREATE TABLE ... AS (an AS outside parentheses). */
    private static boolean isTableAs(final java.util.List<SqlLexer.Token> tokens) {
        if (tokens.size() < 2 || !tokens.get(1).is("TABLE")) {
            return false;
        }
        int depth = 0;
        for (SqlLexer.Token t : tokens) {
            if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals("(")) {
                depth++;
            } else if (t.kind() == SqlLexer.Kind.SYMBOL && t.text().equals(")")) {
                depth--;
            } else if (depth == 0 && t.is("AS") && t.kind() == SqlLexer.Kind.WORD && !t.quoted()) {
                return true;
            }
        }
        return false;
    }

    /** The command tag's fixed part, from the statement's first words. */
    private static String tag(final String sql, final PgCommand command) {
        if (command instanceof PgCommand.Begin b) {
            return b.tag();
        }
        if (command instanceof PgCommand.Commit) {
            return "COMMIT";
        }
        if (command instanceof PgCommand.Rollback || command instanceof PgCommand.RollbackToSavepoint) {
            return "ROLLBACK";
        }
        if (command instanceof PgCommand.Savepoint) {
            return "SAVEPOINT";
        }
        if (command instanceof PgCommand.ReleaseSavepoint) {
            return "RELEASE";
        }
        if (command instanceof PgCommand.SetConstraints) {
            return "SET CONSTRAINTS";
        }
        if (command instanceof PgCommand.SetTransaction || command instanceof PgCommand.Set) {
            return "SET";
        }
        if (command instanceof PgCommand.Show) {
            return "SHOW";
        }
        if (command instanceof PgCommand.Reset r) {
            return r.tag();
        }
        if (command instanceof PgCommand.NoOp n) {
            return n.tag();
        }
        final var tokens = SqlLexer.tokenize(sql);
        final String first = tokens.isEmpty() ? "" : tokens.get(0).text().toUpperCase(Locale.ROOT);
        switch (first) {
            case "INSERT":
                return "INSERT 0";
            case "CREATE":
            case "DROP": {
                int i = 1;
                while (i < tokens.size() && (tokens.get(i).is("UNIQUE") || tokens.get(i).is("OR")
                        || tokens.get(i).is("REPLACE") || tokens.get(i).is("TEMPORARY")
                        || tokens.get(i).is("TEMP") || tokens.get(i).is("UNLOGGED"))) {
                    i++;
                }
                if (first.equals("CREATE") && isTableAs(tokens)) {
                    return "SELECT"; // CREATE TABLE ... AS: PostgreSQL's tag is SELECT n
                }
                return i < tokens.size() ? first + " " + tokens.get(i).text() : first;
            }
            case "WITH":
            case "VALUES":
            case "EXPLAIN":
            case "(":
                return "SELECT";
            default:
                return first;
        }
    }
}
