package io.meldb.sql.calcite;

import io.meldb.sql.SqlStateException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class JsonFunctionsTest {
    private static final String DOC = "{\"a\": {\"b\": [1, 2.50, \"x\\\"y\"]}, \"n\": 5, \"s\": \"h\\u00e9\", "
            + "\"z\": null, \"t\": true}";

    @Test
    void shouldAnswerAMemberAsItsTextAndAsTextUnquoted() {
        assertEquals("{\"b\": [1, 2.50, \"x\\\"y\"]}", JsonFunctions.field(DOC, "a"));
        assertEquals("5", JsonFunctions.field(DOC, "n"));
        assertEquals("5", JsonFunctions.fieldText(DOC, "n"));
        assertEquals("\"h\\u00e9\"", JsonFunctions.field(DOC, "s"));
        assertEquals("hé", JsonFunctions.fieldText(DOC, "s"));
        assertEquals("null", JsonFunctions.field(DOC, "z"));
        assertNull(JsonFunctions.fieldText(DOC, "z"), "a JSON null is SQL NULL as text");
        assertEquals("true", JsonFunctions.fieldText(DOC, "t"));
        assertNull(JsonFunctions.field(DOC, "missing"));
        assertNull(JsonFunctions.field(null, "a"));
    }

    @Test
    void shouldIndexArraysFromEitherEndAndAnswerNullForTheWrongKindOfValue() {
        final String b = JsonFunctions.field(JsonFunctions.field(DOC, "a"), "b");
        assertEquals("1", JsonFunctions.element(b, 0));
        assertEquals("2.50", JsonFunctions.element(b, 1));
        assertEquals("x\"y", JsonFunctions.elementText(b, -1));
        assertNull(JsonFunctions.element(b, 3));
        assertNull(JsonFunctions.element(b, -4));
        assertNull(JsonFunctions.element(DOC, 0), "an object indexed by number");
        assertNull(JsonFunctions.field(b, "a"), "an array asked for a key");
        assertNull(JsonFunctions.field("5", "a"), "a scalar asked for a key");
        assertEquals("2", JsonFunctions.field("{\"k\": 1, \"k\": 2}", "k"), "the last of duplicate keys");
    }

    @Test
    void shouldRefuseTextThatIsNoJsonWith22P02() {
        assertEquals("22P02", assertThrows(SqlStateException.class,
                () -> JsonFunctions.field("{\"a\": ", "a")).sqlState());
        assertEquals("22P02", assertThrows(SqlStateException.class,
                () -> JsonFunctions.field("{} x", "a")).sqlState());
        assertEquals("22P02", assertThrows(SqlStateException.class,
                () -> JsonFunctions.field("", "a")).sqlState());
    }
}
