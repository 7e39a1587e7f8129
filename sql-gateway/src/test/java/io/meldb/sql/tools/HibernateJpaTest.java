package io.meldb.sql.tools;

import io.meldb.sql.server.EmbeddedGateway;
import jakarta.persistence.Column;
import jakarta.persistence.Entity;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import jakarta.persistence.FetchType;
import jakarta.persistence.GeneratedValue;
import jakarta.persistence.GenerationType;
import jakarta.persistence.Id;
import jakarta.persistence.JoinColumn;
import jakarta.persistence.ManyToOne;
import jakarta.persistence.OneToMany;
import jakarta.persistence.Table;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.cfg.Configuration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A JPA application on Hibernate ORM 6, unchanged, against MeldDB over PostgreSQL's JDBC driver with Hibernate's
 * PostgreSQLDialect (which Hibernate chooses itself): Hibernate creates the schema (sequences, tables, the foreign key), then CRUD on two related
 * entities with sequence-generated ids, a JPQL query with a join, and a unit of work retried when meld aborts it
 * (SQLSTATE 40001).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class HibernateJpaTest {
    private static EmbeddedGateway db;
    private static EntityManagerFactory emf;

    @Entity(name = "Author")
    @Table(name = "author")
    public static class Author {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE)
        Long id;

        @Column(nullable = false, length = 100)
        String name;

        @OneToMany(mappedBy = "author")
        List<Book> books = new ArrayList<>();

        public Author() {
        }

        Author(final String name) {
            this.name = name;
        }
    }

    @Entity(name = "Book")
    @Table(name = "book")
    public static class Book {
        @Id
        @GeneratedValue(strategy = GenerationType.SEQUENCE)
        Long id;

        @Column(nullable = false, length = 200)
        String title;

        int stock;

        @ManyToOne(fetch = FetchType.LAZY, optional = false)
        @JoinColumn(name = "author_id")
        Author author;

        public Book() {
        }

        Book(final String title, final int stock, final Author author) {
            this.title = title;
            this.stock = stock;
            this.author = author;
        }
    }

    @BeforeAll
    static void start() {
        db = new EmbeddedGateway();
        emf = new Configuration()
                .addAnnotatedClass(Author.class)
                .addAnnotatedClass(Book.class)
                .setProperty(AvailableSettings.JAKARTA_JDBC_URL, db.gateway.pgJdbcUrl())
                .setProperty(AvailableSettings.JAKARTA_JDBC_USER, "test")
                .setProperty(AvailableSettings.JAKARTA_JDBC_PASSWORD, "")
                .setProperty(AvailableSettings.HBM2DDL_AUTO, "create")
                .setProperty(AvailableSettings.POOL_SIZE, "4")
                .buildSessionFactory();
    }

    @AfterAll
    static void stop() {
        try {
            if (emf != null) {
                emf.close();
            }
        } finally {
            if (db != null) {
                db.close();
            }
        }
    }

    /** Runs {@code work} in a transaction, again while meld aborts it (SQLSTATE 40001); answers the tries taken. */
    static int inTransaction(final Consumer<EntityManager> work) {
        for (int attempt = 1; ; attempt++) {
            final EntityManager em = emf.createEntityManager();
            try {
                em.getTransaction().begin();
                work.accept(em);
                em.getTransaction().commit();
                return attempt;
            } catch (RuntimeException e) {
                if (em.getTransaction().isActive()) {
                    em.getTransaction().rollback();
                }
                if (!"40001".equals(sqlState(e)) || attempt == 10) {
                    throw e;
                }
            } finally {
                em.close();
            }
        }
    }

    static String sqlState(final Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof SQLException s) {
                return s.getSQLState();
            }
        }
        return null;
    }

    @Test
    void hibernateRecognizesPostgreSqlAndReadsTheConnectionsMetadata() throws SQLException {
        final org.hibernate.engine.jdbc.env.spi.JdbcEnvironment env = emf.unwrap(
                org.hibernate.engine.spi.SessionFactoryImplementor.class).getJdbcServices().getJdbcEnvironment();
        assertTrue(env.getDialect() instanceof org.hibernate.dialect.PostgreSQLDialect, env.getDialect().toString());
        // Hibernate reads DatabaseMetaData.getSQLKeywords, which pgjdbc asks of pg_get_keywords()
        try (java.sql.Connection c = db.connectPg()) {
            final String keywords = c.getMetaData().getSQLKeywords();
            assertTrue(java.util.Arrays.asList(keywords.split(",")).contains("MULTISET"), keywords);
        }
    }

    @Test
    void createsReadsUpdatesAndDeletesRelatedEntitiesWithGeneratedIds() {
        final long[] ids = new long[3];
        inTransaction(em -> {
            final Author ada = new Author("Ada");
            final Author alan = new Author("Alan");
            em.persist(ada);
            em.persist(alan);
            final Book notes = new Book("Notes on the Engine", 3, ada);
            em.persist(notes);
            em.persist(new Book("On Computable Numbers", 5, alan));
            ids[0] = ada.id;
            ids[1] = alan.id;
            ids[2] = notes.id;
        });
        assertTrue(ids[0] != ids[1], "generated ids differ");

        final List<Object[]> byAuthor = new ArrayList<>();
        inTransaction(em -> byAuthor.addAll(em.createQuery(
                "select a.name, b.title from Book b join b.author a where b.stock > :min order by a.name",
                Object[].class).setParameter("min", 1).getResultList()));
        assertEquals(List.of("Ada Notes on the Engine", "Alan On Computable Numbers"),
                byAuthor.stream().map(r -> r[0] + " " + r[1]).toList());

        inTransaction(em -> em.find(Book.class, ids[2]).title = "Notes (revised)");
        inTransaction(em -> {
            final Author ada = em.find(Author.class, ids[0]);
            assertEquals(List.of("Notes (revised)"), ada.books.stream().map(b -> b.title).toList());
        });

        inTransaction(em -> em.remove(em.find(Book.class, ids[2])));
        inTransaction(em -> {
            assertNull(em.find(Book.class, ids[2]));
            assertNotNull(em.find(Author.class, ids[0]));
            assertEquals(1L, em.createQuery("select count(b) from Book b", Long.class).getSingleResult());
        });
    }

    @Test
    void aUnitOfWorkMeldAbortsWith40001IsRetriedAndLosesNoUpdate() throws Exception {
        final long[] id = new long[1];
        inTransaction(em -> {
            final Author author = new Author("Grace");
            em.persist(author);
            final Book book = new Book("Compilers", 10, author);
            em.persist(book);
            id[0] = book.id;
        });
        // the first try of this unit of work reads the stock, then another transaction takes one and commits
        // before this one does: meld aborts it at commit, and the retry sees the other's update
        final int[] tries = {0};
        final int taken = inTransaction(em -> {
            final Book book = em.find(Book.class, id[0]);
            if (tries[0]++ == 0) {
                inTransaction(other -> other.find(Book.class, id[0]).stock -= 1);
            }
            book.stock -= 2;
        });
        assertEquals(2, taken, "aborted once by meld, then committed");
        inTransaction(em -> assertEquals(7, em.find(Book.class, id[0]).stock, "both updates kept"));
    }
}
