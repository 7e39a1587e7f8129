package io.meldb.sql.client;

import java.lang.reflect.Method;
import java.sql.Connection;

/**
 * What MeldDB's database metadata says where Avatica's client would answer for itself, wrongly for MeldDB: the
 * product's and driver's names and versions, that transactions (DDL included) are supported and which isolation
 * levels are, and how identifiers are stored (folded to lower case, as in PostgreSQL).
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
                    // and REPEATABLE_READ as snapshot isolation (what PostgreSQL's REPEATABLE READ is); the weaker
                    // levels run as snapshot isolation too, which JDBC allows, but MeldDB has no level of their own
                    return level == Connection.TRANSACTION_SERIALIZABLE
                            || level == Connection.TRANSACTION_REPEATABLE_READ;
                }
                break;
            case "getDriverName":
                if (noArgs) {
                    return io.meldb.sql.MeldVersion.DRIVER; // Avatica's client names itself
                }
                break;
            case "getDriverVersion":
                if (noArgs) {
                    return io.meldb.sql.MeldVersion.VERSION;
                }
                break;
            case "getDriverMajorVersion":
                if (noArgs) {
                    return io.meldb.sql.MeldVersion.MAJOR;
                }
                break;
            case "getDriverMinorVersion":
                if (noArgs) {
                    return io.meldb.sql.MeldVersion.MINOR;
                }
                break;
            case "storesLowerCaseIdentifiers":
                if (noArgs) {
                    return true; // unquoted identifiers fold to lower case, as in PostgreSQL
                }
                break;
            case "storesUpperCaseIdentifiers":
            case "storesMixedCaseIdentifiers":
            case "supportsMixedCaseIdentifiers":
            case "storesLowerCaseQuotedIdentifiers":
            case "storesUpperCaseQuotedIdentifiers":
            case "storesMixedCaseQuotedIdentifiers":
                if (noArgs) {
                    return false;
                }
                break;
            case "supportsMixedCaseQuotedIdentifiers":
                if (noArgs) {
                    return true; // "Name" and name are two names
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
