package io.meldb.sql.server;

import io.meldb.sql.SqlStateException;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A {@code DatabaseMetaData} call that Avatica's protocol has no request for, as MeldDB's driver sends it: a
 * statement {@code /* meldb *&#47; METADATA method arg...} whose arguments are URL-encoded, {@code ~} for null
 * (see io.meldb.sql.client.MetaDataQueries, which writes them). Avatica's remote client answers getPrimaryKeys,
 * getIndexInfo, getImportedKeys and getExportedKeys itself with no rows; through this, MeldDB's catalog answers
 * them.
 */
record MetaDataRequest(String method, List<String> args) {
    static final String PREFIX = "/* meldb */ METADATA ";

    static MetaDataRequest parse(final String sql) {
        final String[] parts = sql.substring(PREFIX.length()).trim().split(" ");
        final String[] args = new String[parts.length - 1];
        for (int i = 1; i < parts.length; i++) {
            args[i - 1] = parts[i].equals("~") ? null : URLDecoder.decode(parts[i], StandardCharsets.UTF_8);
        }
        final MetaDataRequest r = new MetaDataRequest(parts[0], java.util.Arrays.asList(args));
        final int expected = switch (r.method) {
            case "getPrimaryKeys", "getImportedKeys", "getExportedKeys" -> 3;
            case "getIndexInfo" -> 4;
            default -> throw new SqlStateException("0A000", "DatabaseMetaData." + r.method
                    + " is not answered by the MeldDB gateway");
        };
        if (r.args.size() != expected) {
            throw new SqlStateException("08P01", "DatabaseMetaData." + r.method + " takes " + expected
                    + " arguments, the request has " + r.args.size());
        }
        return r;
    }

    MetaResults shape() {
        return switch (method) {
            case "getPrimaryKeys" -> CatalogMetaData.PRIMARY_KEYS;
            case "getIndexInfo" -> CatalogMetaData.INDEX_INFO;
            default -> ForeignKeyMetaData.KEYS;
        };
    }

    List<Object[]> rows(final CatalogMetaData m) {
        return switch (method) {
            case "getPrimaryKeys" -> m.primaryKeys(args.get(0), args.get(1), args.get(2));
            case "getIndexInfo" -> m.indexInfo(args.get(0), args.get(1), args.get(2),
                    Boolean.parseBoolean(args.get(3)));
            case "getImportedKeys" -> ForeignKeyMetaData.imported(m, args.get(0), args.get(1), args.get(2));
            default -> ForeignKeyMetaData.exported(m, args.get(0), args.get(1), args.get(2));
        };
    }
}
