package io.meldb.sql.calcite;

import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.validate.SqlNameMatcher;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * MeldDB's own operators for PostgreSQL functions whose names Calcite's libraries also define, or that need more
 * than a function of the schema tree: the session keywords ({@link SessionKeywords}: {@code current_user},
 * {@code current_schema}, ...) and {@code pg_typeof} ({@link PgTypeOf}). The validator looks here before Calcite's
 * libraries ({@link MeldPrepare}), so these win over Calcite's operators of the same names. Names match whatever
 * their case: the parser folds unquoted names to lower case, MeldDB's function calls reach operators in upper case
 * ({@link FunctionNames}).
 */
final class PgOperatorTable implements SqlOperatorTable {
    static final PgOperatorTable INSTANCE = new PgOperatorTable();

    private final Map<String, List<SqlOperator>> byName = new HashMap<>();
    private final List<SqlOperator> all = new ArrayList<>();

    private PgOperatorTable() {
        SessionKeywords.operators().forEach(this::add);
        add(PgTypeOf.OPERATOR);
    }

    private void add(final SqlOperator op) {
        byName.computeIfAbsent(op.getName().toUpperCase(Locale.ROOT), n -> new ArrayList<>()).add(op);
        all.add(op);
    }

    @Override
    public void lookupOperatorOverloads(final SqlIdentifier opName, final SqlFunctionCategory category,
                                        final SqlSyntax syntax, final List<SqlOperator> operatorList,
                                        final SqlNameMatcher nameMatcher) {
        if (!opName.isSimple() || syntax != SqlSyntax.FUNCTION && syntax != SqlSyntax.FUNCTION_ID) {
            return;
        }
        final List<SqlOperator> found = byName.get(opName.getSimple().toUpperCase(Locale.ROOT));
        if (found != null) {
            operatorList.addAll(found);
        }
    }

    @Override
    public List<SqlOperator> getOperatorList() {
        return List.copyOf(all);
    }
}
