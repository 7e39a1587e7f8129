package io.meldb.sql.client;

import java.lang.reflect.Method;
import java.sql.Connection;

/**
 * What MeldDB's database metadata says where Avatica's client would answer for itself, wrongly for MeldDB: the
 * product's name and version, and that transactions (DDL included) and every isolation level are supported.
 */
final class MetaDataAnswers {
    /** The answer that means: pass the call on to Avatica. */
    static final Object ASK_THE_SERVER = new Object();

    private MetaDataAnswers() {
    }

    /** The answer to a {@code DatabaseMetaData} call, or {@link #ASK_THE_SERVER}. */
    static Object answer(final Method method, final Object[] args) {
        final boolean noArgs = method.getParameterCount() == 0;
        switch (method.getName()) {
            case "supportsTransactionIsolationLevel":
                if (args != null && args[0] instanceof Integer level) {
                    // Avatica's client says only TRANSACTION_NONE. MeldDB runs SERIALIZABLE as meld's serializable
                    // and the weaker levels as snapshot isolation, stronger than asked, as JDBC allows
                    return level != Connection.TRANSACTION_NONE;
                }
                break;
            case "getDatabaseProductName":
                if (noArgs) {
                    return io.meldb.sql.MeldVersion.PRODUCT; // Avatica's client names itself
                }
                break;
            case "getDatabaseProductVersion":
                if (noArgs) {
                    return io.meldb.sql.MeldVersion.VERSION;
                }
                break;
            case "supportsTransactions":
            case "supportsDataDefinitionAndDataManipulationTransactions":
                if (noArgs) {
                    return true; // DDL is an ordinary transaction on the catalog tree
                }
                break;
            default:
                break;
        }
        return ASK_THE_SERVER;
    }
}
