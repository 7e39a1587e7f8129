"""Server-side cursors of psycopg2 (named cursors) and psycopg 3 (ServerCursor) against a PostgreSQL server.

Usage: cursor_client.py URL. Prints one line per step: "OK <step> <value>" (an error as "error <sqlstate>"),
which PgPythonCursorsTest compares with what PostgreSQL 15 answers.
"""
import sys

import psycopg
import psycopg2

URL = sys.argv[1]


def step(name, fn):
    try:
        value = fn()
    except (psycopg2.Error, psycopg.Error) as e:
        code = e.pgcode if isinstance(e, psycopg2.Error) else e.sqlstate
        value = "error %s" % code
    print("OK %s %s" % (name, value), flush=True)


def setup():
    with psycopg2.connect(URL) as c, c.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS pyc")
        cur.execute("CREATE TABLE pyc (id int PRIMARY KEY, v text)")
        cur.execute("INSERT INTO pyc SELECT g, 'v' || g FROM generate_series(1, 5000) g")
    return ""


def psycopg2_steps():
    c = psycopg2.connect(URL)

    def iteration():
        # DECLARE "named" CURSOR WITHOUT HOLD FOR ..., then FETCH FORWARD 2000 FROM "named" until empty
        n = c.cursor("named")
        n.itersize = 2000
        n.execute("SELECT id, v FROM pyc WHERE id > %s ORDER BY id", (10,))
        rows = list(n)
        names = [d.name for d in n.description]
        n.close()
        c.commit()
        return (len(rows), rows[0], rows[-1], names)

    def fetch_and_scroll():
        n = c.cursor("moves")
        n.execute("SELECT id FROM pyc ORDER BY id")
        out = [n.fetchone(), n.fetchmany(3)]
        n.scroll(10)  # MOVE 10
        out.append(n.fetchone())
        n.scroll(100, mode="absolute")  # MOVE ABSOLUTE 100
        out.append(n.fetchone())
        c.commit()
        return out

    def scroll_back_default():
        n = c.cursor("back")
        n.execute("SELECT id FROM pyc ORDER BY id")
        n.fetchmany(5)
        try:
            n.scroll(-2)
            return n.fetchone()
        finally:
            c.rollback()

    def scrollable():
        s = c.cursor("sc", scrollable=True)
        s.execute("SELECT id FROM pyc ORDER BY id LIMIT 10")
        out = [[r[0] for r in s.fetchall()]]
        s.scroll(2, mode="absolute")
        out.append(s.fetchone())
        s.scroll(-2)
        out.append(s.fetchone())
        c.commit()
        return out

    def withhold():
        h = c.cursor("held", withhold=True)
        h.execute("SELECT id FROM pyc ORDER BY id LIMIT 5")
        first = h.fetchone()
        c.commit()
        rest = h.fetchall()
        h.close()
        c.commit()
        return (first, rest)

    def ended_by_rollback():
        n = c.cursor("gone")
        n.execute("SELECT id FROM pyc")
        c.rollback()
        try:
            with c.cursor() as plain:
                plain.execute('FETCH NEXT FROM "gone"')
                return plain.fetchall()
        finally:
            c.rollback()

    step("psycopg2 named iteration", iteration)
    step("psycopg2 fetch and scroll", fetch_and_scroll)
    step("psycopg2 scroll back on a default cursor", scroll_back_default)
    step("psycopg2 scrollable", scrollable)
    step("psycopg2 withhold", withhold)
    step("psycopg2 ended by rollback", ended_by_rollback)
    c.close()


def psycopg3_steps():
    conn = psycopg.connect(URL)

    def server_cursor():
        # DECLARE with a parameter over the extended protocol, Describe of the cursor's portal, FETCH FORWARD
        with conn.cursor(name="p3") as cur:
            cur.execute("SELECT id, v FROM pyc WHERE id <= %s ORDER BY id", (4,))
            out = ([d.name for d in cur.description], cur.fetchmany(2), cur.fetchall())
        conn.commit()
        return out

    def scrollable():
        with conn.cursor(name="p3s", scrollable=True) as cur:
            cur.execute("SELECT id FROM pyc WHERE id BETWEEN %s AND %s ORDER BY id", (3, 8))
            out = [cur.fetchmany(2)]
            cur.scroll(-1)
            out.append(cur.fetchone())
            cur.scroll(0, mode="absolute")
            out.append(cur.fetchall())
        conn.commit()
        return out

    def withhold():
        with conn.cursor(name="p3h", withhold=True) as cur:
            cur.execute("SELECT id FROM pyc WHERE id <= %s ORDER BY id", (3,))
            conn.commit()
            out = cur.fetchall()
        conn.commit()
        return out

    def binary():
        with conn.cursor(name="p3b", binary=True) as cur:
            cur.execute("SELECT id, v FROM pyc WHERE id <= %s ORDER BY id", (2,))
            out = cur.fetchall()
        conn.commit()
        return out

    step("psycopg3 server cursor", server_cursor)
    step("psycopg3 scrollable", scrollable)
    step("psycopg3 withhold", withhold)
    step("psycopg3 binary", binary)
    conn.close()

    auto = psycopg.connect(URL, autocommit=True)

    def autocommit():
        with auto.cursor(name="auto") as cur:
            cur.execute("SELECT 1")
            return cur.fetchall()

    def autocommit_withhold():
        with auto.cursor(name="autoh", withhold=True) as cur:
            cur.execute("SELECT id FROM pyc WHERE id <= %s ORDER BY id", (2,))
            return cur.fetchall()

    step("psycopg3 autocommit", autocommit)
    step("psycopg3 autocommit withhold", autocommit_withhold)
    auto.close()


step("setup", setup)
psycopg2_steps()
psycopg3_steps()
step("cleanup", lambda: psycopg2.connect(URL).cursor().execute("DROP TABLE pyc") or "")
