package io.meldb.sql.pgdiff;

/**
 * How a candidate's answer to one statement compares with the reference's (PostgreSQL 15, or MeldDB's PostgreSQL
 * front end when the candidate is its JDBC front end). Issue 33 allows only IDENTICAL and refusals.
 */
enum Verdict {
    /** Same column count, column types and values. */
    IDENTICAL,
    /** The reference answers, the candidate errors: allowed, and listed in refusals.txt. */
    REFUSES,
    /** Both error: fine, whatever the two SQLSTATEs. */
    BOTH_REFUSE,
    /** Both answer, differently: a wrong answer. */
    DIFFERENT,
    /** The reference errors, the candidate answers: a wrong answer too. */
    ACCEPTS_INVALID
}
