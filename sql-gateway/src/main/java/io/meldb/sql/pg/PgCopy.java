package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.catalog.SqlLexer;
import io.meldb.sql.catalog.SqlLexer.Kind;
import io.meldb.sql.catalog.SqlLexer.Token;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * {@code COPY table [(columns)] FROM STDIN} and {@code COPY table [(columns)] | (query) TO STDOUT} in PostgreSQL's
 * text or CSV format (PostgreSQL docs, "COPY"): the statement's options, and for FROM STDIN the rows cut out of the
 * CopyData stream, each as text fields (null for NULL). Data may arrive in any pieces; a row is complete at its
 * newline (for CSV, one outside quotes). {@link PgCopyOut} writes the rows of TO STDOUT with these options.
 */
final class PgCopy {
    final String schema;
    final String table;
    /** The target columns as named, or empty for all columns. */
    final List<String> columns;
    /** COPY ... TO STDOUT (else FROM STDIN). */
    final boolean toStdout;
    /** The query of {@code COPY (query) TO STDOUT}, or null for a table. */
    final String query;
    final boolean csv;
    final char delimiter;
    final String nullText;
    final char quote;
    final char escape;
    final boolean header;
    private boolean skipHeader;
    private final StringBuilder pending = new StringBuilder();
    private boolean ended;

    private PgCopy(final String schema, final String table, final List<String> columns, final boolean toStdout,
                   final String query, final boolean csv, final char delimiter, final String nullText,
                   final boolean header, final char quote, final char escape) {
        this.schema = schema;
        this.table = table;
        this.columns = columns;
        this.toStdout = toStdout;
        this.query = query;
        this.header = header;
        this.csv = csv;
        this.delimiter = delimiter;
        this.nullText = nullText;
        this.skipHeader = header;
        this.quote = quote;
        this.escape = escape;
    }

    /** Whether {@code sql} is a COPY statement. */
    static boolean isCopy(final String sql) {
        return SqlLexer.firstKeyword(sql).equals("COPY");
    }

    /** Parses a COPY statement; only FROM STDIN and TO STDOUT are served (0A000 otherwise). */
    static PgCopy parse(final String sql) {
        final List<Token> t = SqlLexer.tokenize(sql);
        int i = 1;
        String schema = null;
        String name = null;
        String query = null;
        if (symbol(t.get(i), "(")) {
            // COPY (query) TO STDOUT: the query's text, up to its matching parenthesis
            int depth = 0;
            int close = i;
            do {
                if (t.get(close).kind() == Kind.END) {
                    throw syntax(t.get(close));
                }
                depth += symbol(t.get(close), "(") ? 1 : symbol(t.get(close), ")") ? -1 : 0;
                close++;
            } while (depth > 0);
            query = sql.substring(t.get(i).position() + 1, t.get(close - 1).position()).trim();
            i = close;
        } else {
            name = name(t.get(i++));
            if (symbol(t.get(i), ".")) {
                schema = name;
                name = name(t.get(i + 1));
                i += 2;
            }
        }
        final List<String> columns = new ArrayList<>();
        if (query == null && symbol(t.get(i), "(")) {
            i++;
            while (true) {
                columns.add(name(t.get(i++)));
                if (symbol(t.get(i), ",")) {
                    i++;
                } else if (symbol(t.get(i), ")")) {
                    i++;
                    break;
                } else {
                    throw syntax(t.get(i));
                }
            }
        }
        final boolean toStdout = t.get(i).is("TO");
        if (!toStdout && !t.get(i).is("FROM") || query != null && !toStdout) {
            throw syntax(t.get(i));
        }
        i++;
        if (toStdout && !t.get(i).is("STDOUT")) {
            throw new SqlStateException("0A000", "COPY TO a file or program is not supported: MeldDB writes COPY "
                    + "data only TO STDOUT (psql's \\copy ... to 'file' receives it that way)");
        }
        if (!toStdout && !t.get(i).is("STDIN")) {
            throw new SqlStateException("0A000", "COPY FROM a file is not supported: MeldDB reads COPY data only "
                    + "FROM STDIN (psql's \\copy sends a file that way)");
        }
        i++;
        boolean csv = false;
        Character delimiter = null;
        String nullText = null;
        boolean header = false;
        char quote = '"';
        Character escape = null;
        if (t.get(i).is("WITH")) {
            i++;
        }
        final boolean parenthesized = symbol(t.get(i), "(");
        if (parenthesized) {
            i++;
        }
        while (t.get(i).kind() != Kind.END && !symbol(t.get(i), ";") && !symbol(t.get(i), ")")) {
            final Token option = t.get(i++);
            if (symbol(option, ",")) {
                continue;
            }
            switch (option.kind() == Kind.WORD ? option.text() : "") {
                case "FORMAT" -> {
                    final String format = t.get(i++).text().toUpperCase(Locale.ROOT);
                    if (format.equals("CSV")) {
                        csv = true;
                    } else if (!format.equals("TEXT")) {
                        throw new SqlStateException("0A000", "COPY format " + format.toLowerCase(Locale.ROOT)
                                + " is not supported (text and csv are)");
                    }
                }
                case "CSV" -> csv = true;
                case "BINARY" -> throw new SqlStateException("0A000", "COPY format binary is not supported "
                        + "(text and csv are)");
                case "HEADER" -> {
                    header = true;
                    if (t.get(i).is("TRUE") || t.get(i).is("ON")) {
                        i++;
                    } else if (t.get(i).is("FALSE") || t.get(i).is("OFF")) {
                        header = false;
                        i++;
                    }
                }
                case "DELIMITER" -> {
                    if (t.get(i).is("AS")) {
                        i++;
                    }
                    delimiter = oneChar(t.get(i++), "DELIMITER");
                }
                case "NULL" -> {
                    if (t.get(i).is("AS")) {
                        i++;
                    }
                    nullText = t.get(i++).text();
                }
                case "QUOTE" -> quote = oneChar(t.get(i++), "QUOTE");
                case "ESCAPE" -> escape = oneChar(t.get(i++), "ESCAPE");
                case "ENCODING" -> {
                    final String e = t.get(i++).text().toUpperCase(Locale.ROOT).replace("-", "");
                    if (!e.equals("UTF8")) {
                        throw new SqlStateException("0A000", "COPY data must be UTF8");
                    }
                }
                case "FREEZE" -> {
                    // no meaning for MeldDB; its optional boolean too
                    if (t.get(i).is("TRUE") || t.get(i).is("ON") || t.get(i).is("FALSE") || t.get(i).is("OFF")
                            || t.get(i).kind() == Kind.NUMBER) {
                        i++;
                    }
                }
                default -> throw syntax(option);
            }
        }
        return new PgCopy(schema, name, columns, toStdout, query, csv,
                delimiter != null ? delimiter : csv ? ',' : '\t', nullText != null ? nullText : csv ? "" : "\\N",
                header, quote, escape != null ? escape : quote);
    }

    /** Feeds CopyData; answers the rows it completed. After the "\." end marker the rest is ignored. */
    List<String[]> feed(final String data) {
        pending.append(data);
        final List<String[]> rows = new ArrayList<>();
        int start = 0;
        boolean quoted = false;
        for (int i = 0; i < pending.length() && !ended; i++) {
            final char c = pending.charAt(i);
            if (csv && c == quote) {
                quoted = !quoted;
            } else if (!csv && c == '\\') {
                i++; // an escaped character, newline included, is part of the field
            } else if (c == '\n' && !quoted) {
                line(pending.substring(start, i), rows);
                start = i + 1;
            }
        }
        pending.delete(0, start);
        return rows;
    }

    /** CopyDone: the last line, if it had no newline. */
    List<String[]> finish() {
        final List<String[]> rows = new ArrayList<>();
        if (!ended && pending.length() > 0) {
            line(pending.toString(), rows);
        }
        pending.setLength(0);
        return rows;
    }

    private void line(final String raw, final List<String[]> rows) {
        final String line = raw.endsWith("\r") ? raw.substring(0, raw.length() - 1) : raw;
        if (line.equals("\\.")) {
            ended = true;
            return;
        }
        if (skipHeader) {
            skipHeader = false;
            return;
        }
        rows.add(csv ? csvFields(line) : textFields(line));
    }

    private String[] textFields(final String line) {
        final List<String> fields = new ArrayList<>();
        final StringBuilder field = new StringBuilder();
        boolean escaped = false;
        for (int i = 0; i <= line.length(); i++) {
            if (i == line.length() || line.charAt(i) == delimiter) {
                final String raw = field.toString();
                fields.add(!escaped && raw.equals(nullText) ? null : raw);
                field.setLength(0);
                escaped = false;
                continue;
            }
            final char c = line.charAt(i);
            if (c != '\\' || i + 1 == line.length()) {
                field.append(c);
                continue;
            }
            final char e = line.charAt(++i);
            if (e == 'N' && nullText.equals("\\N")) {
                field.append("\\N");
                continue;
            }
            escaped = true;
            switch (e) {
                case 'b' -> field.append('\b');
                case 'f' -> field.append('\f');
                case 'n' -> field.append('\n');
                case 'r' -> field.append('\r');
                case 't' -> field.append('\t');
                case 'v' -> field.append('\u000B');
                case 'x' -> {
                    int j = i + 1;
                    while (j < line.length() && j < i + 3 && Character.digit(line.charAt(j), 16) >= 0) {
                        j++;
                    }
                    if (j == i + 1) {
                        field.append('x');
                    } else {
                        field.append((char) Integer.parseInt(line.substring(i + 1, j), 16));
                        i = j - 1;
                    }
                }
                default -> {
                    if (e >= '0' && e <= '7') {
                        int j = i;
                        while (j < line.length() && j < i + 3 && line.charAt(j) >= '0' && line.charAt(j) <= '7') {
                            j++;
                        }
                        field.append((char) Integer.parseInt(line.substring(i, j), 8));
                        i = j - 1;
                    } else {
                        field.append(e);
                    }
                }
            }
        }
        return fields.toArray(new String[0]);
    }

    private String[] csvFields(final String line) {
        final List<String> fields = new ArrayList<>();
        final StringBuilder field = new StringBuilder();
        boolean inQuotes = false;
        boolean wasQuoted = false;
        for (int i = 0; i <= line.length(); i++) {
            if (i == line.length() || (!inQuotes && line.charAt(i) == delimiter)) {
                final String raw = field.toString();
                fields.add(!wasQuoted && raw.equals(nullText) ? null : raw);
                field.setLength(0);
                wasQuoted = false;
                continue;
            }
            final char c = line.charAt(i);
            if (inQuotes) {
                if (c == escape && i + 1 < line.length() && line.charAt(i + 1) == quote) {
                    field.append(quote);
                    i++;
                } else if (c == quote) {
                    inQuotes = false;
                } else {
                    field.append(c);
                }
            } else if (c == quote) {
                inQuotes = true;
                wasQuoted = true;
            } else {
                field.append(c);
            }
        }
        if (inQuotes) {
            throw new SqlStateException("22P04", "unterminated CSV quoted field");
        }
        return fields.toArray(new String[0]);
    }

    private static String name(final Token t) {
        if (t.kind() != Kind.WORD) {
            throw syntax(t);
        }
        return t.name();
    }

    private static boolean symbol(final Token t, final String s) {
        return t.kind() == Kind.SYMBOL && t.text().equals(s);
    }

    private static char oneChar(final Token t, final String option) {
        if (t.kind() != Kind.STRING || t.text().length() != 1) {
            throw new SqlStateException("22023", "COPY " + option + " must be a single one-byte character");
        }
        return t.text().charAt(0);
    }

    private static SqlStateException syntax(final Token t) {
        return new SqlStateException("42601", "syntax error in COPY at or near \"" + t.text() + "\"");
    }
}
