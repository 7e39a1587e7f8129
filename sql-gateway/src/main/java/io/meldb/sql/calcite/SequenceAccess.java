package io.meldb.sql.calcite;

/**
 * The sequence functions as one connection sees them ({@code nextval}, {@code currval}, {@code setval}):
 * {@code name} is the text of the function's argument ({@code 's'}, {@code 'schema.s'}, quoted parts kept).
 */
public interface SequenceAccess {
    long nextval(String name);

    long currval(String name);

    long setval(String name, long value, boolean isCalled);
}
