"""Django's everyday path against a PostgreSQL-protocol server: migrate (contrib apps and an app with foreign
keys and a JSONField), ORM create, select_related, annotate, JSON lookups, a unique violation, a rolled-back
atomic block. Prints one line per step: OK <step> <value> or FAIL <step> <error>."""
import os, sys, tempfile, textwrap, traceback

host, port, dbname = sys.argv[1], sys.argv[2], sys.argv[3]
root = tempfile.mkdtemp(prefix="djapp")
os.makedirs(os.path.join(root, "shop", "migrations"))
open(os.path.join(root, "shop", "__init__.py"), "w").close()
open(os.path.join(root, "shop", "migrations", "__init__.py"), "w").close()
with open(os.path.join(root, "shop", "models.py"), "w") as f:
    f.write(textwrap.dedent("""
        from django.db import models

        class Author(models.Model):
            name = models.CharField(max_length=50, unique=True)
            born = models.DateField(null=True)

        class Book(models.Model):
            author = models.ForeignKey(Author, on_delete=models.CASCADE, related_name="books")
            title = models.TextField()
            price = models.DecimalField(max_digits=8, decimal_places=2)
            published = models.DateTimeField(null=True)
            in_print = models.BooleanField(default=True)
            data = models.JSONField(default=dict)
    """))
sys.path.insert(0, root)

import django
from django.conf import settings

settings.configure(
    DATABASES={"default": {"ENGINE": "django.db.backends.postgresql", "NAME": dbname, "USER": "postgres",
                           "HOST": host, "PORT": port}},
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "django.contrib.admin",
                    "django.contrib.sessions", "django.contrib.messages", "shop"],
    USE_TZ=True, SECRET_KEY="x", DEFAULT_AUTO_FIELD="django.db.models.AutoField")
django.setup()


def step(name, fn):
    try:
        value = fn()
        print("OK", name, "" if value is None else value, flush=True)
    except Exception as e:
        print("FAIL", name, type(e).__name__, str(e).replace("\n", " ")[:300], flush=True)
        traceback.print_exc(file=sys.stderr)


from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, Sum
import io


def migrate():
    call_command("makemigrations", "shop", verbosity=0)
    call_command("migrate", verbosity=0)


step("migrate", migrate)
from shop.models import Author, Book
import datetime, decimal


def create():
    ada = Author.objects.create(name="ada", born=datetime.date(1815, 12, 10))
    bob = Author.objects.create(name="bob")
    Book.objects.create(author=ada, title="notes", price=decimal.Decimal("1.25"),
                        published=datetime.datetime(2020, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc),
                        data={"k": [1, 2], "tag": "math"})
    Book.objects.create(author=ada, title="letters", price=decimal.Decimal("10.50"), data={"tag": "post"})
    Book.objects.create(author=bob, title="cards", price=decimal.Decimal("3"), in_print=False)
    return (Author.objects.count(), Book.objects.count())


step("create", create)
step("select_related", lambda: [(b.title, b.author.name) for b in
                                Book.objects.select_related("author").order_by("title")])
step("annotate", lambda: [(a.name, a.n, a.total) for a in
                          Author.objects.annotate(n=Count("books"), total=Sum("books__price")).order_by("name")])
step("filter", lambda: list(Book.objects.filter(price__gt=2, in_print=True).values_list("title", flat=True)))
step("json lookup", lambda: list(Book.objects.filter(data__tag="math").values_list("title", flat=True)))
step("json key", lambda: list(Book.objects.filter(data__has_key="k").values_list("title", "data__k")))
step("dates", lambda: [b.published.isoformat() for b in Book.objects.filter(published__year=2020)])


def update_delete():
    n = Book.objects.filter(author__name="bob").update(price=decimal.Decimal("4.10"))
    d = Author.objects.filter(name="bob").delete()
    return (n, d[0], Book.objects.count())


step("update delete", update_delete)


def unique():
    try:
        with transaction.atomic():
            Author.objects.create(name="ada")
        return "no error"
    except IntegrityError as e:
        cause = e.__cause__
        return (cause.pgcode, cause.diag.constraint_name)


step("unique violation", unique)


def rolled_back():
    try:
        with transaction.atomic():
            Author.objects.create(name="carl")
            raise RuntimeError("undo")
    except RuntimeError:
        pass
    return list(Author.objects.values_list("name", flat=True).order_by("name"))


step("rolled back", rolled_back)


def fk_at_commit():
    try:
        with transaction.atomic():
            Book.objects.create(author_id=999, title="orphan", price=1)
        return "no error"
    except IntegrityError as e:
        return e.__cause__.pgcode


step("deferred fk", fk_at_commit)
step("introspection", lambda: sorted(t for t in connection.introspection.table_names() if t.startswith("shop")))
step("constraints", lambda: sorted((k, v["foreign_key"]) for k, v in
                                   connection.introspection.get_constraints(connection.cursor(), "shop_book").items()
                                   if v["foreign_key"]))
