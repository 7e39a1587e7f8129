package io.meldb.sql.pg.catalog;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows of {@code pg_type} MeldDB lists, as PostgreSQL 15 numbers and describes them: the types MeldDB's
 * columns and results have, the types of the system catalogs' own columns ({@code name}, {@code oid},
 * {@code "char"}, {@code int2vector}, {@code regclass}, ...), and the array type of each (named {@code _int4},
 * its {@code typelem} the element type and the element's {@code typarray} pointing back), so that a client looking
 * up a type's array OID (psycopg's {@code TypeInfo.fetch}, SQLAlchemy's connect, pgjdbc) finds PostgreSQL's. Also
 * {@code format_type(oid, typmod)}, PostgreSQL's SQL spelling of a type with its modifier.
 */
final class PgTypeCatalog {
    /** One pg_type row: the columns tools read. {@code sqlName}: how format_type spells it (null: the typname). */
    record TypeRow(int oid, String typname, int typlen, char typcategory, int typelem, int typarray, char typtype,
                   char typalign, char typstorage, String sqlName) {
        boolean isArray() {
            return typcategory == 'A' && typname.startsWith("_");
        }

        /** typinput, as PostgreSQL names the function: {@code int4in}, but {@code numeric_in}, {@code jsonb_in}. */
        String input() {
            return isArray() ? "array_in" : typname + (UNDERSCORED.contains(typname) ? "_in" : "in");
        }

        /** typoutput: {@code int4out}, {@code numeric_out}, ... */
        String output() {
            return isArray() ? "array_out" : typname + (UNDERSCORED.contains(typname) ? "_out" : "out");
        }
    }

    /** The types whose input and output functions PostgreSQL names with an underscore ({@code date_in}). */
    private static final java.util.Set<String> UNDERSCORED = java.util.Set.of("date", "time", "timestamp",
            "timestamptz", "interval", "numeric", "uuid", "json", "jsonb", "record", "void");

    private static final List<TypeRow> ROWS;
    private static final Map<Integer, TypeRow> BY_OID = new HashMap<>();

    static {
        final List<TypeRow> base = List.of(
                row(16, "bool", 1, 'B', 1000, 'c', 'p', "boolean"),
                row(17, "bytea", -1, 'U', 1001, 'i', 'x', null),
                row(18, "char", 1, 'Z', 1002, 'c', 'p', "\"char\""),
                new TypeRow(19, "name", 64, 'S', 18, 1003, 'b', 'c', 'p', null),
                row(20, "int8", 8, 'N', 1016, 'd', 'p', "bigint"),
                row(21, "int2", 2, 'N', 1005, 's', 'p', "smallint"),
                new TypeRow(22, "int2vector", -1, 'A', 21, 1006, 'b', 'i', 'p', null),
                row(23, "int4", 4, 'N', 1007, 'i', 'p', "integer"),
                row(24, "regproc", 4, 'N', 1008, 'i', 'p', null),
                row(25, "text", -1, 'S', 1009, 'i', 'x', null),
                row(26, "oid", 4, 'N', 1028, 'i', 'p', null),
                new TypeRow(30, "oidvector", -1, 'A', 26, 1013, 'b', 'i', 'p', null),
                row(114, "json", -1, 'U', 199, 'i', 'x', null),
                row(700, "float4", 4, 'N', 1021, 'i', 'p', "real"),
                row(701, "float8", 8, 'N', 1022, 'd', 'p', "double precision"),
                new TypeRow(705, "unknown", -2, 'X', 0, 0, 'p', 'c', 'p', null),
                row(1042, "bpchar", -1, 'S', 1014, 'i', 'x', "character"),
                row(1043, "varchar", -1, 'S', 1015, 'i', 'x', "character varying"),
                row(1082, "date", 4, 'D', 1182, 'i', 'p', null),
                row(1083, "time", 8, 'D', 1183, 'd', 'p', "time without time zone"),
                row(1114, "timestamp", 8, 'D', 1115, 'd', 'p', "timestamp without time zone"),
                row(1184, "timestamptz", 8, 'D', 1185, 'd', 'p', "timestamp with time zone"),
                row(1186, "interval", 16, 'T', 1187, 'd', 'p', null),
                row(1700, "numeric", -1, 'N', 1231, 'i', 'm', null),
                row(2205, "regclass", 4, 'N', 2210, 'i', 'p', null),
                row(2206, "regtype", 4, 'N', 2211, 'i', 'p', null),
                new TypeRow(2249, "record", -1, 'P', 0, 2287, 'p', 'd', 'x', null),
                new TypeRow(2278, "void", 4, 'P', 0, 0, 'p', 'i', 'p', null),
                row(2950, "uuid", 16, 'U', 2951, 'c', 'p', null),
                row(3802, "jsonb", -1, 'U', 3807, 'i', 'x', null));
        final List<TypeRow> all = new ArrayList<>(base);
        for (TypeRow t : base) {
            if (t.typarray() != 0) {
                all.add(new TypeRow(t.typarray(), "_" + t.typname(), -1, 'A', t.oid(), 0, 'b',
                        t.typalign() == 'd' ? 'd' : 'i', 'x', null));
            }
        }
        all.sort((a, b) -> Integer.compare(a.oid(), b.oid()));
        ROWS = Collections.unmodifiableList(all);
        for (TypeRow t : ROWS) {
            BY_OID.put(t.oid(), t);
        }
    }

    private PgTypeCatalog() {
    }

    private static TypeRow row(final int oid, final String name, final int len, final char category,
                               final int array, final char align, final char storage, final String sqlName) {
        return new TypeRow(oid, name, len, category, 0, array, 'b', align, storage, sqlName);
    }

    /** Every row, by OID. */
    static List<TypeRow> rows() {
        return ROWS;
    }

    /** The row of a type OID, or null. */
    static TypeRow ofOid(final int oid) {
        return BY_OID.get(oid);
    }

    /**
     * The OID of the type a name finds, as regtype's input reads it: a number is the OID itself, otherwise the
     * pg_type name ({@code int4}, {@code _int4}, {@code pg_catalog.jsonb}) or the SQL name ({@code integer},
     * {@code character varying}, {@code integer[]}, {@code int}); 42704 when no type has it.
     */
    static int oidOf(final String text) {
        String t = text.trim().toLowerCase(java.util.Locale.ROOT);
        if (!t.isEmpty() && t.chars().allMatch(Character::isDigit)) {
            return (int) Long.parseLong(t);
        }
        if (t.indexOf('.') >= 0 && t.indexOf(' ') < 0 && !t.endsWith("[]")) {
            // a qualified name, read as a regclass name is: every type is in pg_catalog
            final String[] name = RegclassName.parse(text);
            if (name[0] != null && !name[0].equals(SystemSchemas.PG_CATALOG)) {
                throw new io.meldb.sql.SqlStateException("42704", "type \"" + text.trim() + "\" does not exist");
            }
            t = name[1];
        }
        if (t.endsWith("[]")) {
            final TypeRow element = BY_OID.get(oidOf(t.substring(0, t.length() - 2)));
            if (element != null && element.typarray() != 0) {
                return element.typarray();
            }
        }
        final String name = switch (t) {
            case "int" -> "integer";
            case "float" -> "double precision";
            case "decimal" -> "numeric";
            case "varchar" -> "character varying";
            default -> t;
        };
        for (TypeRow r : ROWS) {
            if (r.typname().equals(name) || name.equals(r.sqlName()) || name.equals("\"" + r.typname() + "\"")) {
                return r.oid();
            }
        }
        throw new io.meldb.sql.SqlStateException("42704", "type \"" + text.trim() + "\" does not exist");
    }

    /**
     * PostgreSQL's {@code format_type(type, typmod)}: the type's SQL name with its modifier ({@code character
     * varying(10)} for varchar and typmod 14, {@code numeric(10,2)}, {@code timestamp(3) with time zone}), an
     * array's element type followed by {@code []}, {@code ???} for an OID that is no type. A null typmod means
     * "no modifier given", which spells {@code bpchar} as {@code character} (with -1 it stays {@code bpchar}).
     */
    static String format(final int oid, final Integer typmod) {
        final TypeRow t = BY_OID.get(oid);
        if (t == null) {
            return "???";
        }
        if (t.isArray()) {
            return format(t.typelem(), typmod) + "[]";
        }
        final int mod = typmod == null ? -1 : typmod;
        return switch (t.oid()) {
            case 1042 -> mod >= 4 ? "character(" + (mod - 4) + ")" : typmod == null ? "character" : "bpchar";
            case 1043 -> mod >= 4 ? "character varying(" + (mod - 4) + ")" : "character varying";
            case 1700 -> mod >= 4 ? "numeric(" + (((mod - 4) >> 16) & 0xffff) + "," + ((mod - 4) & 0xffff) + ")"
                    : "numeric";
            case 1083, 1114, 1184 -> mod >= 0
                    ? t.sqlName().replaceFirst("^(\\w+)", "$1(" + mod + ")") : t.sqlName();
            default -> t.sqlName() != null ? t.sqlName() : t.typname();
        };
    }
}
