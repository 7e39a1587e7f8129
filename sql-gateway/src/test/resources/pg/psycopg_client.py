"""A psycopg 3 session against MeldDB's PostgreSQL port, run by PsycopgTest.

Prints "OK <check>" for every check that passed; any failure raises and exits non-zero.
"""
import datetime
import decimal
import sys
import uuid

import psycopg
from psycopg import errors


def main(conninfo):
    with psycopg.connect(conninfo, autocommit=True) as conn:
        conn.execute("CREATE TABLE PY (id INTEGER PRIMARY KEY, name VARCHAR(20), amount DECIMAL(10, 2), "
                     "seen TIMESTAMP, ok BOOLEAN)")
        conn.execute("INSERT INTO PY VALUES (%s, %s, %s, %s, %s)",
                     (1, "ada", decimal.Decimal("12.50"), datetime.datetime(2024, 2, 29, 10, 11, 12), True))
        with conn.cursor() as cur:
            cur.executemany("INSERT INTO PY (id, name) VALUES (%s, %s)", [(i, "n%d" % i) for i in range(2, 12)])
        row = conn.execute("SELECT name, amount, seen, ok FROM PY WHERE id = %s", (1,)).fetchone()
        assert row == ("ada", decimal.Decimal("12.50"), datetime.datetime(2024, 2, 29, 10, 11, 12), True), row
        print("OK parameters and types")

        count = conn.execute("SELECT COUNT(*) FROM PY").fetchone()[0]
        assert count == 11, count
        print("OK executemany")

        with conn.cursor(binary=True) as cur:
            cur.execute("SELECT id, amount FROM PY WHERE id = %s", (1,))
            assert cur.fetchone() == (1, decimal.Decimal("12.50"))
        print("OK binary results")

        conn.execute("CREATE TABLE PY_TYPES (id INTEGER PRIMARY KEY, r REAL, t TIME, z TIMESTAMPTZ, b BYTEA, "
                     "u UUID, j JSONB)")
        when = datetime.datetime(2024, 2, 29, 10, 11, 12, 250000, tzinfo=datetime.timezone(datetime.timedelta(hours=2)))
        key = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
        conn.execute("INSERT INTO PY_TYPES VALUES (%s, %s, %s, %s, %s, %s, %s)",
                     (1, 1.25, datetime.time(10, 11, 12, 345000), when, b"\x00\xff", key, '{"a": 1}'))
        for binary in (False, True):
            with conn.cursor(binary=binary) as cur:
                cur.execute("SELECT r, t, z, b, u, j FROM PY_TYPES WHERE id = %s", (1,))
                r, t, z, b, u, j = cur.fetchone()
                assert r == 1.25 and t == datetime.time(10, 11, 12, 345000), (r, t)
                assert z == when and z.utcoffset() is not None, z
                assert bytes(b) == b"\x00\xff" and u == key and isinstance(u, uuid.UUID), (b, u)
                # a json column is json on the wire, which psycopg decodes as it does PostgreSQL's
                assert j == {"a": 1}, j
        print("OK new types")

        try:
            conn.execute("SELECT * FROM NO_SUCH_TABLE")
            raise AssertionError("no error")
        except errors.UndefinedTable:
            pass
        assert conn.execute("SELECT 1 + 1").fetchone()[0] == 2
        print("OK error then the session goes on")

    with psycopg.connect(conninfo) as conn:  # not autocommit: psycopg opens a transaction block
        with conn.transaction():
            conn.execute("UPDATE PY SET amount = 1 WHERE id = 2")
        try:
            with conn.transaction():
                conn.execute("UPDATE PY SET amount = 99 WHERE id = 3")
                raise RuntimeError("roll back")
        except RuntimeError:
            pass
        amounts = conn.execute("SELECT id, amount FROM PY WHERE id IN (2, 3) ORDER BY id").fetchall()
        assert amounts == [(2, decimal.Decimal("1.00")), (3, None)], amounts
        conn.commit()
        print("OK transactions")

        with conn.cursor() as cur:
            with cur.copy("COPY PY (id, name) FROM STDIN") as copy:
                for i in range(100, 150):
                    copy.write_row((i, "copied %d" % i))
        conn.commit()
        assert conn.execute("SELECT COUNT(*) FROM PY WHERE id >= 100").fetchone()[0] == 50
        print("OK copy")


if __name__ == "__main__":
    main(sys.argv[1])
