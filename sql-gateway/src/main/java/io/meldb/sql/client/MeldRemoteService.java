package io.meldb.sql.client;

import org.apache.calcite.avatica.AvaticaConnection;
import org.apache.calcite.avatica.ConnectionConfig;
import org.apache.calcite.avatica.Meta;
import org.apache.calcite.avatica.remote.AuthenticationType;
import org.apache.calcite.avatica.remote.ProtobufTranslationImpl;
import org.apache.calcite.avatica.remote.RemoteProtobufService;
import org.apache.calcite.avatica.remote.Service;

import java.net.MalformedURLException;
import java.net.URL;
import java.util.ArrayList;
import java.util.List;

/**
 * Avatica's protobuf service for MeldDB's driver, over {@link MeldHttpClient}. An EXECUTE of a prepared statement
 * leaves without the statement's signature (its columns and parameters, which Avatica's client repeats in every
 * request though the gateway knows the statement by id), and the gateway, told by the client's
 * {@link MeldHttpClient#SIGNATURES_HEADER header} that it may, answers without it too; the signature the statement
 * was prepared with is put back into the answer here. Both sides thus stop serializing and parsing the same column
 * metadata twice per statement (docs/perf/sql-txn.md). Everything else is Avatica's service unchanged.
 */
public final class MeldRemoteService extends RemoteProtobufService {
    public MeldRemoteService(final MeldHttpClient client) {
        super(client, new ProtobufTranslationImpl());
    }

    @Override
    public Service.Response _apply(final Service.Request request) {
        if (!(request instanceof Service.ExecuteRequest e) || e.statementHandle == null
                || e.statementHandle.signature == null) {
            return super._apply(request);
        }
        final Meta.StatementHandle h = e.statementHandle;
        final Service.Response response = super._apply(new Service.ExecuteRequest(
                new Meta.StatementHandle(h.connectionId, h.id, null), e.parameterValues, e.maxRowCount));
        return response instanceof Service.ExecuteResponse r ? withSignature(r, h.signature) : response;
    }

    /** The answer with {@code signature} wherever the gateway left it out. */
    private static Service.ExecuteResponse withSignature(final Service.ExecuteResponse r, final Meta.Signature signature) {
        if (r.results == null) {
            return r;
        }
        boolean omitted = false;
        for (Service.ResultSetResponse rs : r.results) {
            omitted |= rs.signature == null && rs.updateCount == -1;
        }
        if (!omitted) {
            return r;
        }
        final List<Service.ResultSetResponse> results = new ArrayList<>(r.results.size());
        for (Service.ResultSetResponse rs : r.results) {
            results.add(rs.signature != null || rs.updateCount != -1 ? rs : new Service.ResultSetResponse(
                    rs.connectionId, rs.statementId, rs.ownStatement, signature, rs.firstFrame, rs.updateCount,
                    rs.rpcMetadata));
        }
        return new Service.ExecuteResponse(results, r.missingStatement, r.rpcMetadata);
    }

    /** Avatica's {@code factory} connection property: this service for each connection, from its URL and user. */
    public static final class Factory implements Service.Factory {
        @Override
        public Service create(final AvaticaConnection connection) {
            final ConnectionConfig config = connection.config();
            final MeldHttpClient client;
            try {
                client = new MeldHttpClient(new URL(config.url()), true);
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("not a gateway URL: " + config.url(), e);
            }
            if ("BASIC".equalsIgnoreCase(config.authentication()) && config.avaticaUser() != null
                    && config.avaticaPassword() != null) {
                client.setUsernamePassword(AuthenticationType.BASIC, config.avaticaUser(), config.avaticaPassword());
            }
            return new MeldRemoteService(client);
        }
    }
}
