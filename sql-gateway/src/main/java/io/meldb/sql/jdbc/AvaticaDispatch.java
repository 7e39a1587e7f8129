package io.meldb.sql.jdbc;

import org.apache.calcite.avatica.remote.Service;

/**
 * A parsed Avatica request handed to the {@link Service} method for its kind: what {@code Request.accept} does,
 * which Avatica keeps package-private (its own handler parses the body again to call it).
 */
final class AvaticaDispatch {
    private AvaticaDispatch() {
    }

    static Service.Response apply(final Service service, final Service.Request r) {
        // the kinds a JDBC transaction sends, first
        if (r instanceof Service.ExecuteRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.CommitRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.FetchRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.PrepareAndExecuteRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.RollbackRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.PrepareRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.CloseStatementRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.CreateStatementRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.ConnectionSyncRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.SyncResultsRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.ExecuteBatchRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.PrepareAndExecuteBatchRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.OpenConnectionRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.CloseConnectionRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.DatabasePropertyRequest x) {
            return service.apply(x);
        }
        return metaData(service, r);
    }

    private static Service.Response metaData(final Service service, final Service.Request r) {
        if (r instanceof Service.CatalogsRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.SchemasRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.TablesRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.TableTypesRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.TypeInfoRequest x) {
            return service.apply(x);
        }
        if (r instanceof Service.ColumnsRequest x) {
            return service.apply(x);
        }
        throw new UnsupportedOperationException("an Avatica request MeldDB does not serve: "
                + r.getClass().getSimpleName());
    }
}
