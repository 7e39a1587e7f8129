package io.meldb.sql.calcite;

import org.apache.calcite.prepare.CalcitePrepareImpl;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;

/** Calcite's statement preparation with MeldDB's conversion of SQL into expressions ({@link MeldConvertlets}). */
public final class MeldPrepare extends CalcitePrepareImpl {
    @Override
    protected SqlRexConvertletTable createConvertletTable() {
        return MeldConvertlets.INSTANCE;
    }
}
