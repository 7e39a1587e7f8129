package io.meldb.sql.pg;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the open transaction changed of its session's settings, undone at its end as PostgreSQL undoes it: a value
 * set with SET LOCAL (or {@code set_config(name, value, true)}) lasts until the transaction ends, one set with SET
 * (or {@code set_config(name, value, false)}) stays when it commits; when it rolls back, every setting it changed
 * is back to what it was before. (PostgreSQL also undoes the changes made after a savepoint when the transaction
 * rolls back to it; MeldDB does not.)
 */
final class PgSettingChanges {
    /** A setting's value before the transaction (null: a custom setting it did not have) and after a commit. */
    private record Change(String before, String committed) {
    }

    private final Map<String, Change> changes = new LinkedHashMap<>();

    /** Setting {@code name} went from {@code before} to {@code now} inside the transaction, locally or not. */
    void changed(final String name, final String before, final String now, final boolean local) {
        final Change earlier = changes.get(name);
        final String atStart = earlier == null ? before : earlier.before();
        final String kept = earlier == null ? before : earlier.committed();
        changes.put(name, new Change(atStart, local ? kept : now));
    }

    /**
     * The transaction ended: the value each setting it changed takes now (null: the default), by name. Forgets the
     * changes.
     */
    Map<String, String> end(final boolean committed) {
        if (changes.isEmpty()) {
            return Map.of();
        }
        final Map<String, String> out = new LinkedHashMap<>();
        changes.forEach((name, c) -> out.put(name, committed ? c.committed() : c.before()));
        changes.clear();
        return out;
    }
}
