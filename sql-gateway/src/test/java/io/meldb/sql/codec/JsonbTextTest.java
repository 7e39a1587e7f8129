package io.meldb.sql.codec;

import io.meldb.sql.SqlStateException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** jsonb's canonical text, each expectation as PostgreSQL 15's {@code SELECT 'input'::jsonb} prints it. */
class JsonbTextTest {
    @Test
    void objectsAreDeduplicatedAndOrderedByKeyLengthThenBytes() {
        assertEquals("{\"a\": 2, \"b\": 1}", JsonbText.normalize("{\"b\":1,\"a\":2}"));
        assertEquals("{\"b\": 1, \"aa\": 2}", JsonbText.normalize("{\"aa\":2,\"b\":1}"));
        assertEquals("{\"a\": 3}", JsonbText.normalize("{\"a\":1, \"a\": 3}"), "the last duplicate wins");
        assertEquals("{\"k\": [1, 2], \"tag\": \"math\"}", JsonbText.normalize(" {\"tag\" : \"math\",\"k\":[1,2]} "));
        assertEquals("{}", JsonbText.normalize("{ }"));
        assertEquals("[]", JsonbText.normalize("[ ]"));
        assertEquals("{\"B\": 1, \"a\": 2}", JsonbText.normalize("{\"a\":2,\"B\":1}"), "bytes, not collation");
    }

    @Test
    void numbersPrintAsNumericAndStringsAreEscapedAsEscapeJson() {
        assertEquals("[100, 1.50, 0.01, 0, 15, -3]", JsonbText.normalize("[1e2, 1.50, 1E-2, -0, 1.5e1, -3]"));
        assertEquals("\"a\\\"b\\\\c\\nd/é\"", JsonbText.normalize("\"a\\\"b\\\\c\\u000ad\\/\\u00e9\""));
        assertEquals("\"\\u001f\"", JsonbText.normalize("\"\\u001F\""));
        assertEquals("[true, false, null]", JsonbText.normalize("[true,false,null]"));
    }

    @Test
    void badInputIsPostgresError() {
        assertEquals("22P02", assertThrows(SqlStateException.class, () -> JsonbText.normalize("{bad")).sqlState());
        assertEquals("22P05", assertThrows(SqlStateException.class,
                () -> JsonbText.normalize("\"\\u0000\"")).sqlState());
    }
}
