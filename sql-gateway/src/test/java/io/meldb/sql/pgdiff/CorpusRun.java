package io.meldb.sql.pgdiff;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * Runs the corpus against the three targets: PostgreSQL 15 (absent when the machine has none), MeldDB's PostgreSQL
 * front end and MeldDB's JDBC front end. A file's setup statements run on PostgreSQL and on MeldDB (through its
 * PostgreSQL front end; both MeldDB front ends see the same database), then its queries run on the three targets at
 * once, each target in file order on its own thread.
 */
final class CorpusRun {
    /** One statement's outcomes; {@code postgres} is null without PostgreSQL, {@code meldJdbc} null for setup. */
    record Statement(String file, String sql, boolean setup, QueryOutcome postgres, QueryOutcome meldPg,
                     QueryOutcome meldJdbc) {
        String key() {
            return Corpus.key(file, sql);
        }

        boolean ordered() {
            return Corpus.isOrdered(sql);
        }
    }

    private CorpusRun() {
    }

    static List<Statement> run(final List<Corpus.File> corpus, final QueryTarget postgres, final QueryTarget meldPg,
                               final QueryTarget meldJdbc) {
        final List<Statement> out = new ArrayList<>();
        final ExecutorService pool = Executors.newFixedThreadPool(3, r -> {
            final Thread t = new Thread(r, "pgdiff-run");
            t.setDaemon(true);
            return t;
        });
        try {
            for (Corpus.File f : corpus) {
                for (String sql : f.setup()) {
                    out.add(new Statement(f.name(), sql, true, postgres == null ? null : postgres.run(sql),
                            meldPg.run(sql), null));
                }
                final CompletableFuture<List<QueryOutcome>> pg = postgres == null
                        ? CompletableFuture.completedFuture(null) : runAll(pool, postgres, f.queries());
                final CompletableFuture<List<QueryOutcome>> mp = runAll(pool, meldPg, f.queries());
                final CompletableFuture<List<QueryOutcome>> mj = runAll(pool, meldJdbc, f.queries());
                for (int i = 0; i < f.queries().size(); i++) {
                    out.add(new Statement(f.name(), f.queries().get(i), false,
                            pg.join() == null ? null : pg.join().get(i), mp.join().get(i), mj.join().get(i)));
                }
            }
        } finally {
            pool.shutdownNow();
        }
        return out;
    }

    private static CompletableFuture<List<QueryOutcome>> runAll(final ExecutorService pool, final QueryTarget target,
                                                                final List<String> queries) {
        return CompletableFuture.supplyAsync(() -> {
            final List<QueryOutcome> outcomes = new ArrayList<>(queries.size());
            for (String q : queries) {
                outcomes.add(target.run(q));
            }
            return outcomes;
        }, pool);
    }
}
