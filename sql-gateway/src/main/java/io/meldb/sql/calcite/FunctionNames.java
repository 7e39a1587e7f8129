package io.meldb.sql.calcite;

import org.apache.calcite.runtime.Hook;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.util.SqlBasicVisitor;

import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Lets unquoted function names resolve whatever their case. MeldDB folds unquoted identifiers to lower case and
 * then matches names exactly ({@link MeldLex}); Calcite's function libraries register their functions in upper
 * case and look them up with the same exact matcher, so {@code length(x)} would find nothing. After parsing, an
 * unquoted call of an unresolved function is renamed to upper case, unless it is one of MeldDB's own functions
 * (registered in lower case: {@link #OWN}). Quoted function names are left exactly as written.
 */
public final class FunctionNames {
    /** MeldDB's functions, found in the schema tree by their lower-case names. */
    public static final Set<String> OWN = Set.of("nextval", "currval", "setval", "date_trunc", "left", "right",
            "gen_random_uuid", "uuid_generate_v4", GenerateSeries.NAME, "json_field", "json_field_text",
            "json_element", "json_element_text", "json_get", "json_get_text",
            "jsonb_exists", "jsonb_exists_any", "jsonb_exists_all", "jsonb_contains", "jsonb_contained",
            "array_lower", "array_upper", "array_length", "array_to_string", "string_to_array");

    private static final Consumer<Object[]> HOOK = args -> fold((SqlNode) args[1]);

    private FunctionNames() {
    }

    /** Folds function names of every statement that Calcite parses in this process, from now on. */
    public static void install() {
        Holder.INSTALLED.hashCode();
    }

    /** Installs the hook once (class initialization is the once). */
    private static final class Holder {
        static final Object INSTALLED = Hook.PARSE_TREE.add(HOOK);
    }

    /** Renames the unresolved, unquoted function calls of {@code node} to upper case, in place. */
    public static void fold(final SqlNode node) {
        if (node == null) {
            return;
        }
        node.accept(new SqlBasicVisitor<Void>() {
            @Override
            public Void visit(final org.apache.calcite.sql.SqlNodeList list) {
                PgFunctionCalls.rewrite(list);
                return super.visit(list);
            }

            @Override
            public Void visit(final SqlCall call) {
                if (call instanceof org.apache.calcite.sql.SqlSelect select) {
                    SeriesAliases.rewrite(select);
                }
                if (call instanceof SqlBasicCall basic) {
                    PgFunctionCalls.rewrite(basic);
                }
                if (call instanceof SqlBasicCall basic && call.getOperator() instanceof SqlUnresolvedFunction q
                        && q.getSqlIdentifier() != null && q.getSqlIdentifier().names.size() == 2
                        && !q.getSqlIdentifier().isComponentQuoted(0)
                        && q.getSqlIdentifier().names.get(0).equalsIgnoreCase("pg_catalog")) {
                    // pg_catalog.setval(...), as pg_dump writes: PostgreSQL's built-ins are MeldDB's unqualified ones
                    basic.setOperator(new SqlUnresolvedFunction(new SqlIdentifier(q.getSqlIdentifier().names.get(1),
                            q.getSqlIdentifier().getParserPosition()), null, null, null, null, q.getFunctionType()));
                }
                if (call instanceof SqlBasicCall basic && call.getOperator() instanceof SqlUnresolvedFunction f) {
                    final SqlIdentifier id = f.getSqlIdentifier();
                    final String lower = id == null || !id.isSimple() ? null
                            : id.getSimple().toLowerCase(Locale.ROOT);
                    if (lower != null && !id.isComponentQuoted(0) && OWN.contains(lower)
                            && !lower.equals(id.getSimple())) {
                        // a keyword such as LEFT comes out of the parser in upper case
                        basic.setOperator(new SqlUnresolvedFunction(new SqlIdentifier(lower,
                                id.getParserPosition()), null, null, null, null, f.getFunctionType()));
                    } else if (id != null && id.isSimple() && !id.isComponentQuoted(0)
                            && !OWN.contains(id.getSimple())) {
                        final String upper = id.getSimple().toUpperCase(Locale.ROOT);
                        if (!upper.equals(id.getSimple())) {
                            basic.setOperator(new SqlUnresolvedFunction(new SqlIdentifier(upper,
                                    id.getParserPosition()), null, null, null, null, f.getFunctionType()));
                        }
                    }
                }
                return super.visit(call);
            }
        });
    }
}
