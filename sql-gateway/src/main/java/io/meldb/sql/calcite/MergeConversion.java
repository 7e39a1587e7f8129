package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.runtime.Hook;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlMerge;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParserPos;

import java.util.function.Consumer;

/**
 * Rewrites a parsed MERGE so that Calcite's conversion ({@code SqlToRelConverter.convertMerge}) hands
 * {@link MergeRows} the rows it expects, around two gaps in that conversion:
 * <ul>
 *   <li>Calcite rebuilds the INSERT values by looking through the projection under them, assuming it is the VALUES
 *       clause's own; when the source is a subquery whose top is a projection, that is the subquery's, and the
 *       values come out of the wrong columns. The source becomes {@code (SELECT * FROM source FETCH NEXT n ROWS
 *       ONLY) AS alias}, whose top is not a projection (n is the largest int: no row is dropped).</li>
 *   <li>Without a WHEN MATCHED clause Calcite joins the source to the target but drops the target's columns, so a
 *       matched source row could not be told from an unmatched one: the source also gets {@code WHERE NOT EXISTS
 *       (SELECT 1 FROM target WHERE cond)}, which keeps only the rows to insert (and reads the keys it checks, so
 *       meld sees a concurrent insert of them).</li>
 * </ul>
 * A plain table as the source of a MERGE with WHEN MATCHED is left alone, so its join can still use key lookups.
 */
public final class MergeConversion {
    private static final Consumer<Object[]> PARSED = args -> parsed((SqlNode) args[1]);

    private MergeConversion() {
    }

    /** Installs the rewrite for every statement Calcite parses in this process, from now on. */
    public static void install() {
        Installed.ONCE.hashCode();
    }

    /** Installs the hook once (class initialization is the once). */
    private static final class Installed {
        static final Object ONCE = Hook.PARSE_TREE.add(PARSED);
    }

    private static void parsed(final SqlNode node) {
        if (node instanceof SqlMerge m) {
            final boolean insertOnly = m.getUpdateCall() == null && m.getInsertCall() != null;
            if (insertOnly || !(m.getSourceTableRef() instanceof SqlIdentifier)
                    && !isAliasedTable(m.getSourceTableRef())) {
                m.setSourceTableRef(wrappedSource(m, insertOnly));
            }
        }
    }

    private static boolean isAliasedTable(final SqlNode source) {
        return source instanceof SqlBasicCall call && call.getKind() == SqlKind.AS
                && call.operandCount() == 2 && call.operand(0) instanceof SqlIdentifier;
    }

    /** {@code (SELECT * FROM source [WHERE NOT EXISTS (SELECT 1 FROM target WHERE cond)] FETCH ...) AS alias}. */
    private static SqlNode wrappedSource(final SqlMerge m, final boolean unmatchedOnly) {
        final SqlParserPos pos = SqlParserPos.ZERO;
        final SqlNode source = m.getSourceTableRef();
        final String alias = alias(source);
        SqlNode where = null;
        if (unmatchedOnly) {
            SqlNode target = SqlNode.clone(m.getTargetTable());
            if (m.getAlias() != null) {
                target = SqlStdOperatorTable.AS.createCall(pos, target, SqlNode.clone(m.getAlias()));
            }
            final SqlNode matches = new SqlSelect(pos, null,
                    SqlNodeList.of(SqlLiteral.createExactNumeric("1", pos)), target, SqlNode.clone(m.getCondition()),
                    null, null, null, null, null, null, null, null);
            where = SqlStdOperatorTable.NOT.createCall(pos, SqlStdOperatorTable.EXISTS.createCall(pos, matches));
        }
        final SqlNode select = new SqlSelect(pos, null, SqlNodeList.of(SqlIdentifier.star(pos)), source, where,
                null, null, null, null, null, null,
                SqlLiteral.createExactNumeric(Integer.toString(Integer.MAX_VALUE), pos), null);
        return SqlStdOperatorTable.AS.createCall(pos, select, new SqlIdentifier(alias, pos));
    }

    /** The name the MERGE's condition and values know the source by. */
    private static String alias(final SqlNode source) {
        if (source instanceof SqlBasicCall call && call.getKind() == SqlKind.AS) {
            return ((SqlIdentifier) call.operand(1)).getSimple();
        }
        if (source instanceof SqlIdentifier id) {
            return id.names.get(id.names.size() - 1);
        }
        throw new SqlStateException("42601", "MERGE ... USING (query) needs an alias for its source");
    }
}
