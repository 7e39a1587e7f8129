package io.meldb.sql.jdbc;

import org.apache.calcite.avatica.AvaticaSeverity;
import org.apache.calcite.avatica.metrics.noop.NoopMetricsSystem;
import org.apache.calcite.avatica.proto.Common;
import org.apache.calcite.avatica.proto.Responses;
import org.apache.calcite.avatica.remote.Handler.HandlerResponse;
import org.apache.calcite.avatica.remote.LocalService;
import org.apache.calcite.avatica.remote.ProtobufHandler;
import org.apache.calcite.avatica.remote.ProtobufTranslation;
import org.apache.calcite.avatica.remote.ProtobufTranslationImpl;
import org.apache.calcite.avatica.remote.Service;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Avatica's protobuf requests against an {@link InlineMeta} (MeldDB's {@code MeldMeta}): each body parsed once
 * (Avatica's own handler parsed it a second time after the endpoint had checked it), run through Avatica's
 * {@link LocalService}, and its answer or error serialized as Avatica's handler does. Says where a request may
 * run: a statement that can never wait (a fast-path statement of an in-process transaction) on the I/O thread, a
 * COMMIT there without waiting for meld, everything else on a worker (it may plan with Calcite or wait). Counts
 * requests by kind, so tests can pin the round trips a JDBC call costs.
 */
final class AvaticaRequests {
    /** Where a request runs. */
    enum Mode { INLINE, COMMIT_ASYNC, WORKER }

    private final InlineMeta meta;
    private final LocalService service;
    private final ProtobufTranslation translation = new ProtobufTranslationImpl();
    private final ProtobufHandler errors;
    private final Map<Class<?>, LongAdder> counts = new ConcurrentHashMap<>();
    /** The answer to every successful COMMIT (it carries nothing), serialized once. */
    private final byte[] committed;
    private volatile Service.RpcMetadataResponse metadata;

    AvaticaRequests(final InlineMeta meta) {
        this.meta = meta;
        this.service = new LocalService(meta);
        this.errors = new ProtobufHandler(service, translation, NoopMetricsSystem.getInstance());
        // what ProtobufTranslationImpl writes for Avatica's (empty) CommitResponse, whose constructor it hides
        this.committed = Common.WireMessage.newBuilder().setName(Responses.CommitResponse.class.getName())
                .setWrappedMessage(Responses.CommitResponse.getDefaultInstance().toByteString()).build()
                .toByteArray();
    }

    /** The address the answers name as the server's (Avatica's RpcMetadata). */
    void serverAddress(final String hostAndPort) {
        final Service.RpcMetadataResponse metadata = new Service.RpcMetadataResponse(hostAndPort);
        service.setRpcMetadata(metadata);
        errors.setRpcMetadata(metadata);
        this.metadata = metadata;
    }

    /** The request in {@code body}; an IOException or RuntimeException when it is not Avatica's protobuf. */
    Service.Request parse(final byte[] body) throws IOException {
        final Service.Request request = translation.parseRequest(body);
        counts.computeIfAbsent(request.getClass(), c -> new LongAdder()).increment();
        return request;
    }

    Mode modeOf(final Service.Request request) {
        if (request instanceof Service.ExecuteRequest e && e.statementHandle != null
                && meta.runsWithoutWaiting(e.statementHandle.connectionId, e.statementHandle.id)) {
            return Mode.INLINE;
        }
        if (request instanceof Service.CommitRequest && meta.commitsWithoutWaiting()) {
            return Mode.COMMIT_ASYNC;
        }
        return Mode.WORKER;
    }

    /**
     * Runs the request; its answer or its error (status 500, as Avatica's handler sends it). With
     * {@code omitSignatures} (MeldDB's driver puts them back), an EXECUTE's result sets go without the statement's
     * signature, which the client already has.
     */
    HandlerResponse<byte[]> run(final Service.Request request, final boolean omitSignatures) {
        try {
            Service.Response response = AvaticaDispatch.apply(service, request);
            if (omitSignatures && request instanceof Service.ExecuteRequest
                    && response instanceof Service.ExecuteResponse e) {
                response = withoutSignatures(e);
            }
            return new HandlerResponse<>(translation.serializeResponse(response), 200);
        } catch (Exception e) {
            return errors.convertToErrorResponse(e);
        }
    }

    private static Service.ExecuteResponse withoutSignatures(final Service.ExecuteResponse e) {
        if (e.results == null || e.results.size() != 1 || e.results.get(0).signature == null) {
            return e;
        }
        final Service.ResultSetResponse rs = e.results.get(0);
        return new Service.ExecuteResponse(List.of(new Service.ResultSetResponse(rs.connectionId, rs.statementId,
                rs.ownStatement, null, rs.firstFrame, rs.updateCount, rs.rpcMetadata)), e.missingStatement,
                e.rpcMetadata);
    }

    /** The error answer for a request that failed outside Avatica's handling (an Error, a lost future). */
    HandlerResponse<byte[]> failure(final Throwable t) {
        return errors.convertToErrorResponse(t instanceof Exception e ? e : new RuntimeException(t));
    }

    /** A COMMIT that does not wait for meld: the answer completes on the thread that learns the outcome. */
    CompletableFuture<HandlerResponse<byte[]>> commitAsync(final Service.CommitRequest request) {
        final CompletableFuture<Void> decided;
        try {
            decided = meta.commitAsync(request.connectionId);
        } catch (RuntimeException e) {
            return CompletableFuture.completedFuture(errors.convertToErrorResponse(e));
        }
        return decided.handle((ok, error) -> error == null ? new HandlerResponse<>(committed, 200)
                : errors.convertToErrorResponse(meta.commitError(error)));
    }

    /** Requests parsed so far, by Avatica request class (simple name), e.g. {@code ExecuteRequest=10}. */
    Map<String, Long> counts() {
        final Map<String, Long> out = new TreeMap<>();
        counts.forEach((c, n) -> out.put(c.getSimpleName(), n.sum()));
        return out;
    }

    /** An Avatica error answer (status 500) that the client turns into an SQLException with {@code sqlState}. */
    byte[] refusal(final String sqlState, final String message) {
        try {
            return translation.serializeResponse(new Service.ErrorResponse(List.of(), message, 0, sqlState,
                    AvaticaSeverity.FATAL, metadata));
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialize an Avatica error", e);
        }
    }
}
