"""SQLAlchemy 1.4 (Debian's python3-sqlalchemy) over psycopg2 against a server: its everyday path, step by step.

Prints "OK <step> <value>" or "FAIL <step> <error>" for each step; SqlAlchemyTest compares the values with what
PostgreSQL 15 answers for the same steps. Usage: sqlalchemy_client.py postgresql+psycopg2://user@host:port/db
"""
import sys

from sqlalchemy import (JSON, Boolean, Column, DateTime, ForeignKey, Integer, MetaData, Numeric, String, Table,
                        Text, create_engine, inspect, select, text)
from sqlalchemy.exc import IntegrityError

engine = create_engine(sys.argv[1], future=True)
md = MetaData()
author = Table("sa_author", md,
               Column("id", Integer, primary_key=True),
               Column("name", String(50), nullable=False, unique=True),
               Column("active", Boolean, nullable=False, server_default=text("true")))
book = Table("sa_book", md,
             Column("id", Integer, primary_key=True),
             Column("author_id", ForeignKey("sa_author.id"), nullable=False),
             Column("title", Text),
             Column("price", Numeric(10, 2)),
             Column("published", DateTime),
             Column("meta", JSON))


def step(name, f):
    try:
        value = f()
        print("OK", name, "" if value is None else value, flush=True)
    except Exception as e:  # each step reports its own failure and the next one runs
        print("FAIL", name, type(e).__name__, str(e).splitlines()[0][:300], flush=True)


def crud():
    with engine.begin() as c:
        aid = c.execute(author.insert().values(name="ada").returning(author.c.id)).scalar()
        c.execute(book.insert().values(author_id=aid, title="t", price=1.25, meta={"k": [1, 2]}))
    with engine.connect() as c:
        return c.execute(select(author.c.name, book.c.title, book.c.price, book.c.meta).join(book)).all()


def unique_violation():
    with engine.connect() as c:
        try:
            with c.begin():
                c.execute(author.insert().values(name="ada"))
        except IntegrityError as e:
            diag = e.orig.diag
            return (e.orig.pgcode, diag.constraint_name, diag.table_name, diag.schema_name)


def rolled_back():
    with engine.connect() as c:
        tx = c.begin()
        c.execute(author.insert().values(name="bob"))
        tx.rollback()
        return c.execute(select(author.c.name).order_by(author.c.name)).scalars().all()


step("connect", lambda: engine.connect().close())
step("drop_all", lambda: md.drop_all(engine))
step("create_all", lambda: md.create_all(engine))
step("get_table_names", lambda: sorted(t for t in inspect(engine).get_table_names() if t.startswith("sa_")))
step("has_table", lambda: (inspect(engine).has_table("sa_book"), inspect(engine).has_table("sa_nothing")))
step("get_foreign_keys", lambda: inspect(engine).get_foreign_keys("sa_book"))
step("get_columns", lambda: [(c["name"], str(c["type"]), c["nullable"], c.get("default"))
                             for c in inspect(engine).get_columns("sa_book")])
step("get_pk_constraint", lambda: inspect(engine).get_pk_constraint("sa_book"))
step("get_unique_constraints", lambda: inspect(engine).get_unique_constraints("sa_author"))
step("get_indexes", lambda: inspect(engine).get_indexes("sa_author"))
step("crud", crud)
step("unique violation", unique_violation)
step("rolled back", rolled_back)
step("cleanup", lambda: md.drop_all(engine))
