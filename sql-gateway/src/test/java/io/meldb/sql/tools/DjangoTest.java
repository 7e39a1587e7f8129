package io.meldb.sql.tools;

import io.meldb.sql.server.EmbeddedGateway;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Django 3.2 over psycopg2 (Debian's python3-django and python3-psycopg2), unchanged, through its everyday path
 * against MeldDB ({@code tools/django_client.py}): {@code migrate} of contenttypes, auth, admin, sessions and an app
 * with a foreign key (created DEFERRABLE INITIALLY DEFERRED, as Django does) and a JSONField; ORM create,
 * select_related, annotate (GROUP BY the primary key), filters, JSON key lookups ({@code ->}, {@code ?}), a
 * timezone-aware date lookup, update and a cascading delete, a unique violation whose diagnostics name the
 * constraint, a rolled-back atomic block, a foreign key violation found at COMMIT, and introspection. Each step's
 * value must be what PostgreSQL 15 answers ({@link #POSTGRES}, recorded from the same script against PostgreSQL 15);
 * {@link #NOT_YET} lists the steps MeldDB cannot do yet, which must still fail.
 */
@Tag("process")
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class DjangoTest {
    /** What each step answers against PostgreSQL 15. */
    private static final Map<String, String> POSTGRES = new LinkedHashMap<>();

    static {
        POSTGRES.put("migrate", "");
        POSTGRES.put("create", "(2, 3)");
        POSTGRES.put("select_related", "[('cards', 'bob'), ('letters', 'ada'), ('notes', 'ada')]");
        POSTGRES.put("annotate", "[('ada', 2, Decimal('11.75')), ('bob', 1, Decimal('3.00'))]");
        POSTGRES.put("filter", "['letters']");
        POSTGRES.put("json lookup", "['notes']");
        POSTGRES.put("json key", "[('notes', [1, 2])]");
        POSTGRES.put("dates", "['2020-01-02T03:04:05+00:00']");
        POSTGRES.put("update delete", "(1, 2, 2)");
        POSTGRES.put("unique violation", "('23505', 'shop_author_name_key')");
        POSTGRES.put("rolled back", "['ada']");
        POSTGRES.put("deferred fk", "23503");
        POSTGRES.put("introspection", "['shop_author', 'shop_book']");
        POSTGRES.put("constraints", "[('shop_book_author_id_82b8ab51_fk_shop_author_id', ('shop_author', 'id'))]");
    }

    /** Steps that fail on MeldDB today (docs/status.md): index introspection reads pg_index.indkey as int2vector. */
    private static final Set<String> NOT_YET = Set.of("constraints");

    @Test
    void shouldRunDjangosEverydayPathAsAgainstPostgres() throws Exception {
        PythonClient.requireModules("django, psycopg2");
        try (EmbeddedGateway db = new EmbeddedGateway()) {
            final URI url = URI.create(db.gateway.pgUrl());
            ClientSteps.assertSteps(POSTGRES, NOT_YET, PythonClient.steps("django_client.py",
                    List.of(url.getHost(), Integer.toString(url.getPort()), url.getPath().substring(1)),
                    POSTGRES.keySet()));
        }
    }
}
