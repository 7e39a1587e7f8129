package io.meldb.sql.catalog;

/** A schema as stored in the catalog: the database it belongs to and its name (upper case unless quoted). */
public record SchemaDef(String db, String name) {
}
