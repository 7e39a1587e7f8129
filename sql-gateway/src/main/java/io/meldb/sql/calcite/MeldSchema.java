package io.meldb.sql.calcite;

import io.meldb.sql.catalog.TableDef;
import io.meldb.sql.catalog.ViewDef;
import org.apache.calcite.schema.Table;
import org.apache.calcite.schema.impl.AbstractSchema;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Calcite schema over one schema of the catalog tree. Tables come from the catalog as the connection's
 * transaction sees it, read at every statement (a cheap version check), so DDL committed through any gateway
 * is visible to the next statement.
 */
public final class MeldSchema extends AbstractSchema {
    private final MeldTxnContext context;
    private final String name;
    /** Calcite table objects by table definition, reused while the definition is unchanged. */
    private final Map<TableDef, MeldTable> tables = new HashMap<>();
    /** Calcite view objects by view definition. */
    private final Map<ViewDef, Table> views = new HashMap<>();

    public MeldSchema(final MeldTxnContext context, final String name) {
        this.context = context;
        this.name = name;
    }

    public MeldTxnContext context() {
        return context;
    }

    public String name() {
        return name;
    }

    @Override
    protected Map<String, Table> getTableMap() {
        final Map<String, Table> out = new LinkedHashMap<>();
        synchronized (tables) {
            final Map<String, TableDef> defs = context.catalog().tables(context.database(), name);
            tables.keySet().retainAll(defs.values());
            for (TableDef def : defs.values()) {
                out.put(def.name(), tables.computeIfAbsent(def, d -> new MeldTable(this, d)));
            }
            final Map<String, ViewDef> viewDefs = context.catalog().views(context.database(), name);
            views.keySet().retainAll(viewDefs.values());
            for (ViewDef def : viewDefs.values()) {
                out.put(def.name(), views.computeIfAbsent(def, MeldView::of));
            }
        }
        return out;
    }

    @Override
    public boolean isMutable() {
        return false;
    }
}
