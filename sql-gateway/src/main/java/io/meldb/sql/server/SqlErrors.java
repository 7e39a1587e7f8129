package io.meldb.sql.server;

import io.meldb.sql.ErrorFields;
import io.meldb.sql.SqlStateException;
import io.meldb.txn.api.TxnError;
import io.meldb.txn.api.TxnException;
import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.NoSuchConnectionException;
import org.apache.calcite.avatica.remote.AvaticaRuntimeException;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.validate.SqlValidatorException;

import java.sql.SQLException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Turns any failure of a statement into what the JDBC client must see: a message and a standard SQLState
 * (PostgreSQL's codes where the standard has none), vendor code 0. Avatica's stock server path sends SQLState
 * "00000" for every exception that is not an {@link AvaticaRuntimeException}; everything the gateway throws to
 * Avatica therefore goes through {@link #toAvatica}.
 */
public final class SqlErrors {
    /** Meld aborted the transaction: standard retry loops look for this. */
    public static final String SERIALIZATION_FAILURE = "40001";
    /** PostgreSQL's statement_too_complex (and its "stack depth limit exceeded"). */
    public static final String STATEMENT_TOO_COMPLEX = "54001";
    /** PostgreSQL's out_of_memory. */
    public static final String OUT_OF_MEMORY = "53200";
    /**
     * PostgreSQL's cannot_connect_now ("the database system is starting up"): no txn-server takes a new transaction
     * now. Sent on a live connection, which stays usable; see {@link #atBegin}.
     */
    public static final String CANNOT_CONNECT_NOW = "57P03";

    private SqlErrors() {
    }

    /**
     * The SQLState, message, (when the failure has them) PostgreSQL DETAIL and HINT of a failure, and the schema,
     * table, column, type or constraint it is about ({@link ErrorFields#NONE} for none).
     */
    public record Described(String sqlState, String message, String detail, ErrorFields fields, String hint) {
        public Described {
            fields = fields == null ? ErrorFields.NONE : fields;
        }

        public Described(final String sqlState, final String message, final String detail,
                         final ErrorFields fields) {
            this(sqlState, message, detail, fields, null);
        }

        public Described(final String sqlState, final String message, final String detail) {
            this(sqlState, message, detail, ErrorFields.NONE);
        }

        public Described(final String sqlState, final String message) {
            this(sqlState, message, null);
        }
    }

    public static RuntimeException toAvatica(final Throwable t) {
        if (t instanceof NoSuchConnectionException e) {
            return e; // Avatica handles this one itself
        }
        if (t instanceof AvaticaRuntimeException e) {
            return e;
        }
        final Described d = describe(t);
        return new Reported(d.message(), d.sqlState());
    }

    /**
     * Avatica's exception with its message as its own ({@link AvaticaRuntimeException} has none): Avatica's client
     * keeps only the server's stack traces when a prepare fails ("while preparing SQL: ..."), and this puts the
     * reason into their first line, where MeldDB's driver finds it (see ClientErrors).
     */
    static final class Reported extends AvaticaRuntimeException {
        private static final long serialVersionUID = 1L;

        Reported(final String message, final String sqlState) {
            super(message, 0, sqlState, AvaticaSeverity.ERROR);
        }

        @Override
        public String getMessage() {
            return getErrorMessage();
        }

        @Override
        public String toString() {
            return getClass().getName() + ": " + getErrorMessage();
        }
    }

    /** The failure as an unchecked exception that keeps its SQLState and message. */
    public static SqlStateException toSqlState(final Throwable t) {
        if (t instanceof SqlStateException e) {
            return e;
        }
        final Described d = describe(t);
        return new SqlStateException(d.sqlState(), d.message(), d.detail(), d.fields(), t).withHint(d.hint());
    }

    public static SQLException toSql(final Throwable t) {
        final Described d = describe(t);
        return new SQLException(d.message(), d.sqlState(), 0, t);
    }

    public static Described describe(final Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SqlStateException e) {
                return new Described(e.sqlState(), e.getMessage(), e.detail(), e.fields(), e.hint());
            }
            if (c instanceof TxnException e) {
                return fromTxn(e);
            }
        }
        // resource limits first: the parser wraps a stack overflow into a parse error
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof StackOverflowError) {
                return new Described(STATEMENT_TOO_COMPLEX, "statement too complex: its expressions are nested too "
                        + "deeply (stack depth limit exceeded)");
            }
            if (c instanceof OutOfMemoryError) {
                return new Described(OUT_OF_MEMORY, "out of memory: the gateway ran out of memory while running "
                        + "this statement");
            }
            if (c.getMessage() != null && c.getMessage().contains("grows beyond 64 KB")) {
                return new Described(STATEMENT_TOO_COMPLEX, "statement too complex: the code compiled for it exceeds "
                        + "the JVM's 64 KB method limit");
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SqlParseException e) {
                return new Described("42601", "syntax error: " + firstLine(e.getMessage()));
            }
            if (c instanceof CalciteContextException e) {
                return fromValidation(e.getMessage(), e.getCause() == null ? e.getMessage() : e.getCause().getMessage());
            }
            if (c instanceof SqlValidatorException e) {
                return fromValidation(e.getMessage(), e.getMessage());
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NumberFormatException e) {
                // PostgreSQL's code for text that is not a number: invalid_text_representation
                final String m = String.valueOf(e.getMessage());
                return new Described("22P02", "invalid input syntax for a number: "
                        + (m.startsWith("For input string: ") ? m.substring("For input string: ".length()) : m));
            }
            if (c instanceof IllegalArgumentException e && e.getMessage() != null
                    && e.getMessage().contains(" field is out of range in ")) {
                // "Value of DAY field is out of range in '2024-02-30'": PostgreSQL's datetime_field_overflow
                final String m = e.getMessage();
                return new Described("22008", "date/time field value out of range: "
                        + m.substring(m.indexOf(" out of range in ") + " out of range in ".length()));
            }
            if (c instanceof org.apache.calcite.runtime.CalciteException e && e.getMessage() != null
                    && e.getMessage().startsWith("Illegal ") && e.getMessage().contains(" literal ")) {
                return new Described("22007", "invalid input syntax for a date/time literal: " + e.getMessage());
            }
            if (c instanceof org.apache.calcite.runtime.CalciteException e && e.getMessage() != null
                    && e.getMessage().startsWith("Invalid character for cast: ")) {
                // Calcite's text-to-boolean cast: true and false are what it reads
                return new Described("22P02", "invalid input syntax for type boolean: \""
                        + e.getMessage().substring("Invalid character for cast: ".length()) + "\"");
            }
            if (c instanceof IllegalArgumentException e && e.getMessage() != null
                    && e.getMessage().startsWith("Cannot take logarithm")) {
                return new Described("2201E", "cannot take logarithm of zero or a negative number");
            }
            if (c instanceof IllegalArgumentException e && e.getMessage() != null
                    && (e.getMessage().startsWith("Invalid UUID string: ")
                    || e.getMessage().startsWith("UUID string too large"))) {
                // java.util.UUID's parser, reached by a value that is no UUID (a row, a parameter)
                final String m = e.getMessage();
                return new Described("22P02", "invalid input syntax for type uuid"
                        + (m.startsWith("Invalid UUID string: ") ? ": \"" + m.substring(21) + "\"" : ""));
            }
            if (c instanceof ArithmeticException e) {
                final String m = String.valueOf(e.getMessage());
                if (m.contains("by zero")) {
                    return new Described("22012", "division by zero");
                }
                return new Described("22003", "numeric value out of range: " + m);
            }
            if (c instanceof IllegalArgumentException e && e.getMessage() != null
                    && (e.getMessage().contains("Unparseable") || e.getMessage().startsWith("Invalid DATE")
                    || e.getMessage().startsWith("Invalid TIMESTAMP") || e.getMessage().startsWith("Invalid TIME"))) {
                return new Described("22007", e.getMessage());
            }
            if (c instanceof SQLException e && e.getSQLState() != null && !e.getSQLState().equals("00000")
                    && c.getCause() == null) {
                return new Described(e.getSQLState(), e.getMessage());
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            final Described unsupported = plannerLimit(c);
            if (unsupported != null) {
                return unsupported;
            }
        }
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof org.apache.calcite.runtime.CalciteException e && e.getMessage() != null) {
                // raised by Calcite's functions at run time on the values they were given (LPAD's empty pad, ...):
                // the data's fault, not the server's
                return new Described("22023", firstLine(e.getMessage()));
            }
        }
        return new Described("XX000", "internal error: " + rootMessage(t));
    }

    /**
     * A failure of {@link TxnRouter#begin} as the client must see it. No statement of the transaction ran yet, so
     * when no txn-server takes transactions (each is starting, recovering, stopping or unreachable: UNAVAILABLE,
     * or its connection broke while beginning: SESSION_LOST) the answer is 57P03, PostgreSQL's cannot_connect_now,
     * which it sends while the server starts up or shuts down: retry later, nothing was done. Not 08001: that is
     * "the connection could not be established", and clients and pools drop a connection that reports a class 08
     * error, while this one is fine and works again once a txn-server is back. Every other failure passes through.
     */
    public static RuntimeException atBegin(final TxnException e) {
        if (e.error() == TxnError.UNAVAILABLE || e.error() == TxnError.SESSION_LOST) {
            return new SqlStateException(CANNOT_CONNECT_NOW, "no transaction server takes transactions now ("
                    + e.getMessage() + "); nothing was done: retry shortly", null, e);
        }
        return e;
    }

    /**
     * What Calcite cannot plan or compile for a statement (no rule produces an executable plan, no code for an
     * operator on these types, an assertion of its planner or code generator): a feature MeldDB lacks, 0A000 naming
     * it, not an internal error. Real fixes put an operator's definition right; this is the net under them.
     */
    private static Described plannerLimit(final Throwable c) {
        final String m = c.getMessage() == null ? "" : firstLine(c.getMessage());
        if (c instanceof org.apache.calcite.plan.RelOptPlanner.CannotPlanException) {
            return new Described("0A000", "feature not supported: MeldDB cannot plan this statement (no executable "
                    + "plan for one of its operators)");
        }
        if (c instanceof IllegalStateException && m.startsWith("Unable to implement ")) {
            final String what = m.substring("Unable to implement ".length());
            final int cost = what.indexOf(": rowcount");
            return new Described("0A000", "feature not supported: MeldDB cannot execute "
                    + abbreviate(cost < 0 ? what : what.substring(0, cost)));
        }
        if (c instanceof AssertionError && fromCalcite(c)) {
            return new Described("0A000", "feature not supported: MeldDB's planner cannot handle this statement ("
                    + abbreviate(m) + ")");
        }
        return null;
    }

    private static boolean fromCalcite(final Throwable c) {
        final StackTraceElement[] stack = c.getStackTrace();
        return stack.length > 0 && stack[0].getClassName().startsWith("org.apache.calcite.");
    }

    private static String abbreviate(final String s) {
        return s.length() <= 200 ? s : s.substring(0, 200) + "...";
    }

    static Described fromTxn(final TxnException e) {
        final TxnError error = e.error();
        final String state = switch (error) {
            case CONFLICT -> SERIALIZATION_FAILURE;
            case OVERLOADED -> "53300";
            case TIMEOUT -> "57014";
            case TOO_LARGE -> "54000";
            case READ_ONLY -> "25006";
            // The transaction's txn-server went away under it (the gateway's link to it broke: SESSION_LOST, or it
            // stopped or lost the log: UNAVAILABLE): the transaction is aborted, nothing of it committed, and
            // running it again runs it on a server that is up. PostgreSQL's code for "your transaction was
            // cancelled by something outside it, retry it" (it uses it for recovery conflicts too) is 40001,
            // which retry loops look for. Never class 08 here: the client's connection to the gateway is alive,
            // and clients and pools throw away a connection that reports 08xxx. (At BEGIN, see atBegin: 57P03.)
            case SESSION_LOST, UNAVAILABLE -> SERIALIZATION_FAILURE;
            case OUTCOME_UNKNOWN -> "40003";
            case UNKNOWN_TRANSACTION -> "25P01";
            case BAD_REQUEST -> "22023";
            case INTERNAL -> "XX000";
            case OUT_OF_RANGE -> "22003";
            case NOT_APPLICABLE -> SERIALIZATION_FAILURE;
            case OUT_OF_MEMORY -> "53200";
        };
        final String what = switch (error) {
            case CONFLICT -> "could not serialize access due to a concurrent update (transaction aborted by meld; "
                    + "retry it)";
            case OVERLOADED -> "the transaction server is overloaded; retry later";
            case TIMEOUT -> "the transaction server did not answer in time";
            case TOO_LARGE -> "value or transaction too large";
            case READ_ONLY -> "cannot write in a read-only transaction";
            case SESSION_LOST -> "the connection to the transaction server was lost before the commit was sent; the "
                    + "transaction was aborted and did not commit (retry it)";
            case UNAVAILABLE -> "the transaction server became unavailable; the transaction was aborted and did not "
                    + "commit (retry it)";
            case OUTCOME_UNKNOWN -> "statement completion unknown: no transaction server could tell in time whether "
                    + "the commit happened (it may have; check before retrying)";
            case UNKNOWN_TRANSACTION -> "no active transaction";
            case BAD_REQUEST -> "bad request";
            case INTERNAL -> "internal error";
            case OUT_OF_RANGE -> "value out of range";
            case NOT_APPLICABLE -> "could not serialize access: the row an increment updates changed (retry it)";
            case OUT_OF_MEMORY -> "out of memory for versions; retry later";
        };
        return new Described(state, what + (e.getMessage() == null ? "" : ": " + e.getMessage()));
    }

    /** Calcite's position prefix of a validation message: "From line 1, column 15 to line 1, column 20: ". */
    private static final Pattern POSITION = Pattern.compile("^From line (\\d+), column (\\d+) to line \\d+, column "
            + "\\d+: |^At line (\\d+), column (\\d+): ");
    private static final Pattern NO_OBJECT = Pattern.compile("(?s)(?:Object|Table) '([^']*)' not found"
            + "(?: within '([^']*)')?.*");
    private static final Pattern NO_COLUMN = Pattern.compile("(?s)Column '([^']*)' not found in (?:any table|table "
            + "'([^']*)').*");
    private static final Pattern NO_FUNCTION = Pattern.compile("(?s)No match found for function signature "
            + "([^(]*)\\((.*)\\).*");

    private static Described fromValidation(final String full, final String inner) {
        final String m = inner == null ? "" : inner;
        final String where = position(full);
        // PostgreSQL's words for what applications and people meet most, the position as its DETAIL
        Matcher x = NO_OBJECT.matcher(m);
        if (x.matches()) {
            return new Described("42P01", "relation \"" + (x.group(2) == null ? "" : x.group(2) + ".") + x.group(1)
                    + "\" does not exist", where);
        }
        x = NO_COLUMN.matcher(m);
        if (x.matches()) {
            return new Described("42703", "column " + (x.group(2) == null ? "\"" + x.group(1) + "\""
                    : x.group(2) + "." + x.group(1)) + " does not exist", where);
        }
        x = NO_FUNCTION.matcher(m);
        if (x.matches()) {
            final String args = x.group(2).replace("<", "").replace(">", "").toLowerCase(java.util.Locale.ROOT);
            return new Described("42883", "function " + x.group(1).toLowerCase(java.util.Locale.ROOT) + "(" + args
                    + ") does not exist", where == null ? "No function matches the given name and argument types."
                    : where + ": no function matches the given name and argument types");
        }
        final String state;
        if (m.contains("Unknown target column") || m.matches("(?s)Unknown field.*")) {
            state = "42703";
        } else if (m.contains("does not allow NULLs")) {
            // PostgreSQL's words, naming the column: "null value in column "c" ... violates not-null constraint"
            final java.util.regex.Matcher col = java.util.regex.Pattern.compile("Column '(.*)' has no default")
                    .matcher(m);
            return new Described("23502", col.find() ? "null value in column \"" + col.group(1)
                    + "\" violates not-null constraint" : firstLine(POSITION.matcher(firstLine(full)).replaceFirst("")),
                    where);
        } else if (m.startsWith("No match found for function")
                || m.startsWith("Invalid number of arguments to function")) {
            state = "42883";
        } else if (m.startsWith("Cannot apply") || m.startsWith("Cannot assign") || m.contains("cannot convert")
                || m.startsWith("Cannot infer") || m.contains("Type mismatch") || m.contains("must be of type")) {
            state = "42804";
        } else if (m.contains("Number of INSERT target columns")) {
            state = "21S01";
        } else if (m.contains("ambiguous")) {
            state = "42702";
        } else if (m.contains("is not being grouped") || m.contains("Aggregate expression")) {
            state = "42803";
        } else {
            state = "42000";
        }
        return new Described(state, firstLine(POSITION.matcher(firstLine(full)).replaceFirst("")), where);
    }

    /** "at line L, column C" from Calcite's position prefix of {@code message}, or null. */
    private static String position(final String message) {
        final Matcher p = POSITION.matcher(message == null ? "" : message);
        if (!p.find()) {
            return null;
        }
        return p.group(1) != null ? "at line " + p.group(1) + ", column " + p.group(2)
                : "at line " + p.group(3) + ", column " + p.group(4);
    }

    private static String firstLine(final String s) {
        if (s == null) {
            return "";
        }
        final int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static String rootMessage(final Throwable t) {
        Throwable c = t;
        while (c.getCause() != null && c.getCause() != c) {
            c = c.getCause();
        }
        return c.getClass().getSimpleName() + (c.getMessage() == null ? "" : ": " + firstLine(c.getMessage()));
    }
}
