package io.meldb.sql.pg;

import io.meldb.sql.SqlStateException;
import io.meldb.sql.fast.ParameterValues;
import io.netty.buffer.ByteBuf;

/**
 * The Bind message of the extended query protocol (PostgreSQL docs, "Extended Query" and "Message Formats"): reads
 * the parameter values of a prepared statement in their text or binary formats into the portal's {@link
 * ParameterValues} (integers of a fast-path statement unboxed, {@link PgIntegerParameters}) and the formats its
 * result columns travel in. Its arrays (value positions, format lists) are kept for the next Bind.
 */
final class PgBind {
    /** No formats, and one format for all: text or binary (shared; never written to). */
    static final short[] NO_FORMATS = {};
    private static final short[] ALL_TEXT = {0};
    static final short[] ALL_BINARY = {1};

    private final PgPortals portals;
    private final PgOutput output;
    /** Where each parameter value of the Bind being read starts in its message, and its length (-1: NULL). */
    private int[] parameterAt = new int[8];
    private int[] parameterLength = new int[8];
    /** The parameter formats of the last Bind that had more than one (read into again when as many). */
    private short[] parameterFormats;

    PgBind(final PgPortals portals, final PgOutput output) {
        this.portals = portals;
        this.output = output;
    }

    /** Bind: makes a portal of a prepared statement with the message's parameter values and result formats. */
    void bind(final PgMessage m) {
        final String portalName = PgPortals.readName(m);
        final PgStatement statement = portals.readStatement(m);
        final String statementName = portals.lastStatementName();
        final short[] formats = readShorts(m, parameterFormats);
        if (formats.length > 1) {
            parameterFormats = formats;
        }
        final int count = m.readUnsignedShort();
        if (count != statement.parameterOids.length) {
            throw new PgProtocolException("bind message supplies " + count + " parameters, but prepared "
                    + "statement \"" + statementName + "\" requires " + statement.parameterOids.length);
        }
        if (formats.length > 1 && formats.length != count) {
            throw new PgProtocolException("bind message has " + formats.length + " parameter formats but "
                    + count + " parameters");
        }
        if (parameterAt.length < count) {
            parameterAt = new int[count];
            parameterLength = new int[count];
        }
        final ByteBuf body = m.body();
        for (int i = 0; i < count; i++) {
            final int length = m.readInt();
            parameterAt[i] = body.readerIndex();
            parameterLength[i] = length;
            if (length > 0) {
                m.skip(length);
            }
        }
        final short[] resultFormats = readShorts(m, portalName.isEmpty() && portals.unnamedPortal != null
                && portals.unnamedPortal.resultFormats.length > 1 && portals.unnamedPortal.result == null
                ? portals.unnamedPortal.resultFormats : null);
        if (resultFormats.length > 1 && resultFormats.length != statement.columns.size()) {
            if (portalName.isEmpty()) {
                portals.removePortal(""); // its formats may be overwritten: dropped, as PostgreSQL does
            }
            throw new PgProtocolException("bind message has " + resultFormats.length + " result formats but the "
                    + "query has " + statement.columns.size() + " columns");
        }
        final int slots = statement.slotTypes.length;
        final PgPortal portal;
        final ParameterValues values;
        if (portalName.isEmpty()) {
            // as PostgreSQL does, a Bind to the unnamed portal drops the one there before reading the values
            final PgPortal old = portals.portal("");
            if (old != null) {
                portals.closeCursor(old);
            }
            if (portals.unnamedPortal == null) {
                portals.unnamedPortal = new PgPortal(statement, new ParameterValues(), resultFormats);
            }
            portal = portals.unnamedPortal;
            values = portal.parameters.reset(slots);
            portal.rebind(statement, values, resultFormats);
        } else {
            values = new ParameterValues().reset(slots);
            portal = new PgPortal(statement, values, resultFormats);
        }
        // integers of a fast-path statement stay unboxed (PgIntegerParameters)
        final boolean unboxed = statement.prepared != null && statement.prepared.fast() != null;
        final int readerIndex = body.readerIndex();
        final int writerIndex = body.writerIndex();
        try {
            for (int slot = 0; slot < slots; slot++) {
                final int p = statement.slotParameter[slot];
                if (p < 0 || p >= count) {
                    throw new SqlStateException("08P01", "the statement uses parameter $" + (p + 1) + " but the bind "
                            + "message supplies " + count);
                }
                // the value's bytes as a window of the message body (no slice object)
                final ByteBuf raw = parameterLength[p] < 0 ? null
                        : body.setIndex(parameterAt[p], parameterAt[p] + parameterLength[p]);
                final boolean binary = PgBackend.format(formats, p) == 1;
                final PgType declared = PgType.ofOid(statement.parameterOids[p]);
                final int type = statement.slotTypes[slot];
                if (!(unboxed && raw != null && PgIntegerParameters.integral(type)
                        && PgIntegerParameters.read(raw, binary, declared, type, values, slot))) {
                    values.set(slot, PgParameters.readParameter(raw, binary, declared, type));
                }
            }
        } catch (RuntimeException | Error e) {
            if (portal == portals.unnamedPortal) {
                portals.removePortal(""); // half bound
            }
            throw e;
        } finally {
            body.setIndex(readerIndex, writerIndex);
        }
        portals.putPortal(portalName, portal);
        PgBackend.bindComplete(output.buffer());
    }

    /** A format list; one of more than one format goes into {@code reuse} when it has that length. */
    private static short[] readShorts(final PgMessage m, final short[] reuse) {
        final int n = m.readUnsignedShort();
        if (n == 0) {
            return NO_FORMATS;
        }
        if (n == 1) {
            final short f = m.readShort();
            if (f != 0 && f != 1) {
                throw new PgProtocolException("unsupported format code " + f);
            }
            return f == 0 ? ALL_TEXT : ALL_BINARY;
        }
        final short[] out = reuse != null && reuse.length == n ? reuse : new short[n];
        for (int i = 0; i < n; i++) {
            out[i] = m.readShort();
            if (out[i] != 0 && out[i] != 1) {
                throw new PgProtocolException("unsupported format code " + out[i]);
            }
        }
        return out;
    }
}
