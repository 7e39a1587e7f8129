package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.apache.calcite.DataContext;

/** What the code Calcite generates for {@link SequenceFunction} calls at run time. */
public final class SequenceRuntime {
    private SequenceRuntime() {
    }

    public static long nextval(final DataContext root, final String name) {
        return sequences(root).nextval(name);
    }

    public static long currval(final DataContext root, final String name) {
        return sequences(root).currval(name);
    }

    public static long setval(final DataContext root, final String name, final long value) {
        return sequences(root).setval(name, value, true);
    }

    public static long setvalCalled(final DataContext root, final String name, final long value,
                                    final boolean isCalled) {
        return sequences(root).setval(name, value, isCalled);
    }

    private static SequenceAccess sequences(final DataContext root) {
        final MeldRootSchema schema = root.getRootSchema().unwrap(MeldRootSchema.class);
        if (schema == null) {
            throw new SqlStateException("0A000", "sequences are not available here");
        }
        return schema.context().sequences();
    }
}
