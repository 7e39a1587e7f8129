package io.meldb.sql.pg;

import java.time.DateTimeException;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * The session's {@code TimeZone} setting as a zone, which TIMESTAMP WITH TIME ZONE values are shown in. A name
 * Java does not know (PostgreSQL accepts a few more, like POSIX strings) shows UTC, the server's default.
 */
final class PgSessionZone {
    private PgSessionZone() {
    }

    static ZoneId of(final String setting) {
        if (setting == null || setting.isBlank()) {
            return ZoneOffset.UTC;
        }
        try {
            return ZoneId.of(setting.trim(), ZoneId.SHORT_IDS);
        } catch (DateTimeException e) {
            return ZoneOffset.UTC;
        }
    }
}
