#!/usr/bin/env python3
"""Writes the differential tier's corpus (issue 33): one .sql file per topic, beside this script.

Run it after editing: python3 generate.py. The files it writes are checked in; the hand-written queries are the
lists below, the rest are cross products (values x operators x types) made here. Format: README.md.
Every query must be deterministic on PostgreSQL 15 (no now(), random(); aggregates over ordered input when order
shows; multi-row results without ORDER BY are compared as multisets).
"""
import itertools
import os

HERE = os.path.dirname(os.path.abspath(__file__))
FILES = {}


def out(name, queries, setup=(), about=""):
    seen, qs = set(), []
    for q in queries:
        q = q.strip()
        if q and q not in seen and q not in setup:
            seen.add(q)
            qs.append(q)
    FILES[name] = (about, list(setup), qs)


def lit(v, t):
    return f"{v}::{t}" if not v.startswith("'") else f"{v}::{t}"


# ------------------------------------------------------------------------------------------------ integers
INTS = {
    "int2": ["0", "1", "-1", "7", "32767", "-32768"],
    "int4": ["0", "1", "-7", "100", "2147483647", "-2147483648"],
    "int8": ["0", "3", "-3", "1000000", "9223372036854775807", "-9223372036854775808"],
}
RIGHT = ["1", "2", "-1", "0", "3"]
q = []
for t, vals in INTS.items():
    for v in vals:
        for op in ["+", "-", "*", "/", "%"]:
            for r in RIGHT:
                q.append(f"SELECT ({v})::{t} {op} ({r})::{t}")
    for v in vals:
        q.append(f"SELECT -(({v})::{t})")
        q.append(f"SELECT abs(({v})::{t})")
        q.append(f"SELECT ({v})::{t} & 5::{t}")
        q.append(f"SELECT ({v})::{t} | 8::{t}")
        q.append(f"SELECT ({v})::{t} # 3::{t}")
        q.append(f"SELECT ~(({v})::{t})")
        q.append(f"SELECT ({v})::{t} << 2")
        q.append(f"SELECT ({v})::{t} >> 1")
        q.append(f"SELECT ({v})::{t} * 2")
        q.append(f"SELECT ({v})::{t} + 1")
for a, b in itertools.permutations(["int2", "int4", "int8"], 2):
    for x, y in [("1", "2"), ("100", "7"), ("-5", "3")]:
        for op in ["+", "-", "*", "/", "%"]:
            q.append(f"SELECT ({x})::{a} {op} ({y})::{b}")
q += [
    "SELECT 2147483647 + 1", "SELECT -2147483648 - 1", "SELECT 2147483647 * 2", "SELECT 9223372036854775807 + 1",
    "SELECT 32767::int2 + 1::int2", "SELECT (-32768)::int2 * (-1)::int2", "SELECT 7 / 2", "SELECT -7 / 2",
    "SELECT 7 % -2", "SELECT -7 % 2", "SELECT 1 / 0", "SELECT 1 % 0", "SELECT 2147483648", "SELECT 9223372036854775808",
    "SELECT 32768::int2", "SELECT '32767'::int2", "SELECT ' 42 '::int4", "SELECT '4x'::int4", "SELECT ''::int4",
    "SELECT '+7'::int8", "SELECT '-0'::int4", "SELECT 5::int4 / 2::int8", "SELECT gcd(12, 18)", "SELECT lcm(4, 6)",
    "SELECT factorial(5)", "SELECT 5 !", "SELECT @ -5", "SELECT 10 BETWEEN 1 AND 10", "SELECT 3 IN (1, 2, 3)",
    "SELECT 1 + 1 * 2", "SELECT (1 + 1) * 2", "SELECT 2 ^ 10", "SELECT 2 ^ 0.5", "SELECT |/ 16", "SELECT ||/ 27",
    "SELECT 17 / 4 * 4 + 17 % 4", "SELECT pg_typeof(1)::text", "SELECT pg_typeof(2147483648)::text",
    "SELECT pg_typeof(1::int2 + 1::int2)::text", "SELECT pg_typeof(1::int2 + 1)::text",
    "SELECT pg_typeof(1 + 1::int8)::text", "SELECT -2147483648 / -1", "SELECT (-32768)::int2 / (-1)::int2",
    "SELECT (-9223372036854775808)::int8 / (-1)::int8", "SELECT 0 / 5", "SELECT 5 / -1",
    "SELECT int4larger(3, 9)", "SELECT greatest(1, 5, 3)", "SELECT least(1, 5, 3)", "SELECT greatest(1, 2.5)",
    "SELECT sign(-8)", "SELECT 1::int4 = 1::int8", "SELECT 2::int2 < 3::int8", "SELECT 10::int8 <> 10::int2",
]
out("integers.sql", q, about="int2/int4/int8 arithmetic, bit operators, overflow, division and mixed widths")

# ------------------------------------------------------------------------------------------------ numeric
NUMS = ["0.1", "1.25", "-2.5", "100", "0", "123456789.123456789", "0.000001", "99.99"]
NRIGHT = ["0.2", "3", "-0.5", "7.00"]
q = ["SELECT 0.1::numeric + 0.2::numeric", "SELECT 1/3.0", "SELECT 1.0/3", "SELECT 10.0/4", "SELECT 2.0/3.0",
     "SELECT 1::numeric / 7", "SELECT 100::numeric / 3::numeric", "SELECT 1.5 * 1.5", "SELECT 0.1 * 3",
     "SELECT 1.10 + 2.205", "SELECT 1e3", "SELECT 1.5e-3", "SELECT 12.345::numeric(5,2)", "SELECT 12.344::numeric(5,2)",
     "SELECT 2.5::numeric(2,0)", "SELECT -2.5::numeric(2,0)", "SELECT 999.995::numeric(5,2)",
     "SELECT 1234.5::numeric(5,1)", "SELECT 12345.6::numeric(5,1)", "SELECT 'NaN'::numeric", "SELECT 'NaN'::numeric + 1",
     "SELECT 'Infinity'::numeric", "SELECT '-Infinity'::numeric", "SELECT ' 1.5 '::numeric", "SELECT '1.5x'::numeric",
     "SELECT 0.0", "SELECT -0.0", "SELECT 1.000", "SELECT 100::numeric", "SELECT 1.5::numeric(10,4)",
     "SELECT pg_typeof(1.5)::text", "SELECT pg_typeof(1.5 + 1)::text", "SELECT pg_typeof(1.5 * 2::int8)::text",
     "SELECT 1.5 + 1::int2", "SELECT 2::numeric ^ 0.5", "SELECT 2.0 ^ 10", "SELECT 10::numeric % 3",
     "SELECT 10.5 % 3", "SELECT -10.5 % 3", "SELECT 1 / 0.0", "SELECT 0.0 / 0.0", "SELECT 1::numeric(3,2)",
     "SELECT 10::numeric(3,2)", "SELECT 0.5::numeric(1,1)", "SELECT 1.25 = 1.250", "SELECT 1.25 < 1.3",
     "SELECT 'NaN'::numeric = 'NaN'::numeric", "SELECT 'NaN'::numeric > 1000", "SELECT 0.1 + 0.2 = 0.3",
     "SELECT 99999999999999999999.5 + 1", "SELECT 1.23456789012345678901234567890", "SELECT 1.5::numeric::text",
     "SELECT 3.0 = 3", "SELECT numeric '1.50'", "SELECT DECIMAL '7.125'", "SELECT 5 * 0.2", "SELECT 7 / 2.0",
     "SELECT (7 / 2)::numeric", "SELECT 7::numeric / 2", "SELECT 1.5::numeric(3,1) * 2.25::numeric(4,2)",
     "SELECT 1e-20 * 1e-20", "SELECT 1e20 * 1e20", "SELECT 123.456::numeric(20,10)", "SELECT 0.001::numeric(3,3)"]
for v in NUMS:
    for op in ["+", "-", "*", "/", "%"]:
        for r in NRIGHT:
            q.append(f"SELECT ({v})::numeric {op} ({r})::numeric")
for v in NUMS + ["2.5", "-2.5", "0.5", "1.4999", "-0.5"]:
    for f in ["round({})", "round({}, 1)", "round({}, -1)", "trunc({})", "trunc({}, 1)", "ceil({})", "floor({})",
              "abs({})", "sign({})", "scale({})", "{} * 2", "-{}"]:
        q.append("SELECT " + f.format(f"({v})::numeric"))
out("numeric.sql", q, about="numeric literals, precision and scale, rounding, arithmetic, NaN and infinities")

# ------------------------------------------------------------------------------------------------ floats
F8 = ["0.1", "1.5", "-2.5", "1e300", "1e-300", "3.14159", "0", "'NaN'", "'Infinity'", "'-Infinity'", "-0.0"]
q = ["SELECT round(2.5::float8)", "SELECT round(3.5::float8)", "SELECT round(-2.5::float8)", "SELECT 0.1::float8 + 0.2::float8",
     "SELECT 1::float8 / 3", "SELECT 1::float4 / 3", "SELECT 1.1::float4", "SELECT 1.1::float4::float8",
     "SELECT 1e308::float8 * 10", "SELECT 1e-308::float8 / 1e10", "SELECT 'NaN'::float8 = 'NaN'::float8",
     "SELECT 'NaN'::float8 > 'Infinity'::float8", "SELECT '-0'::float8", "SELECT 0.0::float8 = -0.0::float8",
     "SELECT 1::float8 / 0", "SELECT 0::float8 / 0", "SELECT sqrt(2::float8)", "SELECT sqrt(-1::float8)",
     "SELECT cbrt(27::float8)", "SELECT exp(1::float8)", "SELECT ln(10::float8)", "SELECT log(100::float8)",
     "SELECT log10(1000::float8)", "SELECT power(2::float8, 0.5)", "SELECT 2::float8 ^ 3", "SELECT pi()",
     "SELECT sin(0::float8)", "SELECT cos(0::float8)", "SELECT tan(0::float8)", "SELECT atan2(1, 1)",
     "SELECT degrees(pi())", "SELECT radians(180)", "SELECT float8 '1.5'", "SELECT real '1.5'",
     "SELECT double precision '2.25'", "SELECT '1e400'::float8", "SELECT '3.4e39'::float4", "SELECT ' 1.5 '::float8",
     "SELECT 'abc'::float8", "SELECT 1.5::float8::text", "SELECT 100000000000000000000::float8",
     "SELECT 1e15::float8", "SELECT 1e16::float8", "SELECT 123456789.123::float4", "SELECT 0.1::float4 + 0.2::float4",
     "SELECT pg_typeof(1.5::float4 + 1)::text", "SELECT pg_typeof(1.5::float4 * 1.5::float8)::text",
     "SELECT pg_typeof(1.5::float8 + 1.5)::text", "SELECT 1.5::float8 + 1.5", "SELECT 1.5::float4 + 1.5",
     "SELECT 4.5::float8::int4", "SELECT 5.5::float8::int4", "SELECT -4.5::float8::int4", "SELECT 3.7::float4::int2",
     "SELECT 1e10::float8::int4", "SELECT 'NaN'::float8::int4", "SELECT 2.5::float8::numeric",
     "SELECT 0.1::float8::numeric", "SELECT 1e100::float8::numeric", "SELECT 1.0E-5::float8", "SELECT 12345678901234567.0::float8",
     "SELECT trunc(-1.7::float8)", "SELECT ceil(-1.5::float8)", "SELECT floor(-1.5::float8)", "SELECT abs(-0.5::float8)",
     "SELECT sign(-0.5::float8)", "SELECT mod(7, 3)", "SELECT 5.5::float8 % 2"]
for t in ["float8", "float4"]:
    for v in F8:
        for op in ["+", "-", "*", "/"]:
            for r in ["0.5", "3", "-1"]:
                q.append(f"SELECT ({v})::{t} {op} ({r})::{t}")
        for f in ["round({})", "trunc({})", "ceil({})", "floor({})", "abs({})", "{}::text", "-{}"]:
            q.append("SELECT " + f.format(f"({v})::{t}"))
out("floats.sql", q, about="float4/float8 text output, special values, rounding and casts to integers")

# ------------------------------------------------------------------------------------------------ strings
STRS = ["'abc'", "'Hello World'", "''", "'  padded  '", "'ümlaut'", "'a,b,,c'", "'MiXeD'", "'x'"]
q = ["SELECT 'ab ' = 'ab'", "SELECT 'ab ' = 'ab'::text", "SELECT 'ab'::varchar(5) = 'ab '::varchar(5)",
     "SELECT CASE WHEN true THEN 'a' ELSE 'abc' END", "SELECT CASE WHEN false THEN 'a' ELSE 'abc' END",
     "SELECT CASE 1 WHEN 1 THEN 'one' WHEN 2 THEN 'two' END", "SELECT COALESCE(NULL, 'x', 'yy')",
     "SELECT 'a' || 'b'", "SELECT 'a' || NULL", "SELECT 'a' || 1", "SELECT 1 || 'a'", "SELECT 'a'::text || 2.5",
     "SELECT 'abc' < 'abd'", "SELECT 'B' < 'a'", "SELECT 'abc' LIKE 'a%'", "SELECT 'abc' LIKE 'A%'",
     "SELECT 'abc' ILIKE 'A%'", "SELECT 'a_c' LIKE 'a\\_c'", "SELECT 'abc' NOT LIKE '%d'", "SELECT 'abc' ~ '^a.c$'",
     "SELECT 'abc' ~* '^A'", "SELECT 'abc' !~ 'z'", "SELECT 'abc' SIMILAR TO 'a(b|x)c'", "SELECT 'x' IN ('x', 'y')",
     "SELECT 'it''s'", "SELECT E'tab\\there'", "SELECT 'abc'::varchar(2)", "SELECT 'abc'::char(5)",
     "SELECT length('abc'::char(5))", "SELECT 'abc'::char(5) || 'd'", "SELECT pg_typeof('abc')::text",
     "SELECT pg_typeof('a' || 'b')::text", "SELECT pg_typeof('abc'::varchar)::text", "SELECT 'abc'::name",
     "SELECT U&'\\0041'", "SELECT '' = ''", "SELECT '' IS NULL", "SELECT 'a' = 'A'", "SELECT 'abc' > 'ab'",
     "SELECT 'Z' > 'a'", "SELECT '10' < '9'", "SELECT 'abc' || 'def' || 'ghi'", "SELECT max('b'), min('a')"]
SF = ["length({})", "char_length({})", "octet_length({})", "bit_length({})", "upper({})", "lower({})",
      "initcap({})", "trim({})", "ltrim({})", "rtrim({})", "btrim({}, 'a')", "reverse({})", "md5({})",
      "left({}, 2)", "right({}, 2)", "left({}, -1)", "substr({}, 2)", "substr({}, 2, 2)", "substring({} from 2 for 3)",
      "position('b' in {})", "strpos({}, 'l')", "replace({}, 'l', 'L')", "repeat({}, 2)", "lpad({}, 6, '*')",
      "rpad({}, 6, '*')", "lpad({}, 2)", "split_part({}, ',', 2)", "translate({}, 'abc', 'xy')", "ascii({})",
      "concat({}, 1, NULL, 'z')", "concat_ws('-', {}, 'q')", "quote_literal({})", "quote_ident({})",
      "regexp_replace({}, '[aeiou]', '#', 'g')", "starts_with({}, 'a')", "{} || '!'", "to_hex(length({}))",
      "overlay({} placing 'ZZ' from 2 for 1)", "format('[%s]', {})", "encode(convert_to({}, 'UTF8'), 'hex')"]
for s in STRS:
    for f in SF:
        q.append("SELECT " + f.format(s))
out("strings.sql", q, about="text literals, comparison, pattern matching, CASE types, string functions")

# ------------------------------------------------------------------------------------------------ chars
CH_SETUP = ["CREATE TABLE ch_t1 (id int PRIMARY KEY, c char(5), v varchar(5), t text)",
            "INSERT INTO ch_t1 VALUES (1, 'ab', 'ab', 'ab'), (2, 'ab  ', 'ab  ', 'ab  '), (3, 'abcde', 'abcde', 'abcde'), (4, '', '', ''), (5, NULL, NULL, NULL)"]
q = []
for col in ["c", "v", "t"]:
    q += [f"SELECT id, {col} FROM ch_t1 ORDER BY id", f"SELECT id, length({col}) FROM ch_t1 ORDER BY id",
          f"SELECT id, octet_length({col}) FROM ch_t1 ORDER BY id", f"SELECT id, {col} || '|' FROM ch_t1 ORDER BY id",
          f"SELECT id FROM ch_t1 WHERE {col} = 'ab' ORDER BY id", f"SELECT id FROM ch_t1 WHERE {col} = 'ab  ' ORDER BY id",
          f"SELECT id FROM ch_t1 WHERE {col} < 'abc' ORDER BY id", f"SELECT id FROM ch_t1 WHERE {col} LIKE 'ab%' ORDER BY id",
          f"SELECT id, upper({col}) FROM ch_t1 ORDER BY id", f"SELECT id, {col}::text FROM ch_t1 ORDER BY id",
          f"SELECT count(DISTINCT {col}) FROM ch_t1", f"SELECT max({col}) FROM ch_t1", f"SELECT min({col}) FROM ch_t1",
          f"SELECT id, {col} = 'ab' FROM ch_t1 ORDER BY id", f"SELECT id FROM ch_t1 ORDER BY {col}, id",
          f"SELECT id, concat({col}, '.') FROM ch_t1 ORDER BY id", f"SELECT id, rtrim({col}) FROM ch_t1 ORDER BY id"]
q += ["SELECT c = v FROM ch_t1 WHERE id = 2", "SELECT c = t FROM ch_t1 WHERE id = 2", "SELECT v = t FROM ch_t1 WHERE id = 2",
      "SELECT 'ab'::char(3)", "SELECT 'ab'::char(3) = 'ab'", "SELECT 'ab'::char(3) = 'ab   '::char(5)",
      "SELECT 'abcdef'::char(3)", "SELECT 'ab'::char", "SELECT 'abc'::character(2)", "SELECT 'abc'::character varying(2)",
      "SELECT 'ab '::char(3) = 'ab'::char(2)", "SELECT 'ab '::varchar = 'ab'::varchar", "SELECT length('ab '::varchar)",
      "SELECT length('ab '::char(3))", "SELECT 'a'::char(3) || 'b'::char(3)", "SELECT 'a '::char(3) < 'a'::char(3)",
      "SELECT pg_typeof('a'::char(3))::text", "SELECT pg_typeof('a'::char(3) || 'b')::text",
      "SELECT 'ab'::char(4)::varchar(10) || '|'", "SELECT 'abc   '::varchar(3)", "SELECT CAST('x' AS char(2)) || '|'",
      "SELECT c FROM ch_t1 WHERE id = 1", "SELECT v FROM ch_t1 WHERE id = 3", "SELECT t FROM ch_t1 WHERE id = 4"]
out("chars.sql", q, CH_SETUP, "char(n) padding and comparison, varchar(n) and text side by side over a table")

# ------------------------------------------------------------------------------------------------ booleans
BV = ["true", "false", "NULL::boolean"]
q = []
for a in BV:
    for b in BV:
        for op in ["AND", "OR", "=", "<>", "<", "IS DISTINCT FROM"]:
            q.append(f"SELECT {a} {op} {b}")
    for f in ["NOT {}", "{} IS TRUE", "{} IS NOT FALSE", "{} IS UNKNOWN", "{}::text", "{}::int", "coalesce({}, false)"]:
        q.append("SELECT " + f.format(a))
for s in ["'t'", "'f'", "'yes'", "'no'", "'on'", "'off'", "'1'", "'0'", "'TRUE'", "' true '", "'maybe'", "'y'", "'of'"]:
    q.append(f"SELECT {s}::boolean")
q += ["SELECT 1::boolean", "SELECT 0::boolean", "SELECT 2::boolean", "SELECT bool_and(x) FROM (VALUES (true), (false)) t(x)",
      "SELECT bool_or(x) FROM (VALUES (true), (false)) t(x)", "SELECT every(x) FROM (VALUES (true), (NULL::boolean)) t(x)",
      "SELECT count(*) FILTER (WHERE x) FROM (VALUES (true), (false), (true)) t(x)", "SELECT max(x::int) FROM (VALUES (true)) t(x)",
      "SELECT true > false", "SELECT pg_typeof(true)::text", "SELECT 1 < 2 AND 'a' < 'b'", "SELECT NOT (1 = 1)",
      "SELECT (1 = 1) = true", "SELECT CASE WHEN NULL THEN 'y' ELSE 'n' END", "SELECT boolean 'true'"]
out("booleans.sql", q, about="three-valued logic, boolean spellings and casts, boolean aggregates")

# ------------------------------------------------------------------------------------------------ bytea
q = []
for b in ["'\\x'", "'\\xdeadbeef'", "'abc'", "'\\x00ff'", "'a\\\\b'"]:
    for f in ["{}::bytea", "length({}::bytea)", "octet_length({}::bytea)", "md5({}::bytea)", "encode({}::bytea, 'hex')",
              "encode({}::bytea, 'base64')", "encode({}::bytea, 'escape')", "{}::bytea || '\\x01'::bytea",
              "substring({}::bytea from 2 for 2)", "{}::bytea = 'abc'::bytea", "{}::bytea < '\\xff'::bytea", "sha256({}::bytea)"]:
        q.append("SELECT " + f.format(b))
q += ["SELECT decode('deadbeef', 'hex')", "SELECT decode('YWJj', 'base64')", "SELECT get_byte('\\x0102'::bytea, 1)",
      "SELECT set_byte('\\x0102'::bytea, 0, 255)", "SELECT 'abc'::bytea::text", "SELECT convert_from('\\x616263'::bytea, 'UTF8')",
      "SELECT convert_to('é', 'UTF8')", "SELECT pg_typeof('\\x01'::bytea)::text", "SELECT '\\xzz'::bytea",
      "SELECT position('\\x02'::bytea in '\\x010203'::bytea)", "SELECT bytea '\\x0a0b'", "SELECT btrim('\\x000100'::bytea, '\\x00'::bytea)",
      "SELECT get_bit('\\x01'::bytea, 0)", "SELECT length(''::bytea)"]
out("bytea.sql", q, about="bytea input (hex, escape), output, functions and comparison")

# ------------------------------------------------------------------------------------------------ datetime
DATES = ["'2024-02-28'", "'2024-02-29'", "'2023-12-31'", "'1999-01-01'", "'2000-03-01'", "'0001-01-01'"]
q = []
for d in DATES:
    for f in ["{}::date", "{}::date + 1", "{}::date - 1", "{}::date + interval '1 month'", "{}::date - '2000-01-01'::date",
              "extract(year from {}::date)", "extract(dow from {}::date)", "extract(doy from {}::date)", "date_part('month', {}::date)",
              "date_trunc('month', {}::date)", "{}::date::timestamp", "to_char({}::date, 'YYYY/MM/DD')", "{}::date + time '10:30'",
              "{}::date < '2024-01-01'::date", "{}::date + 365", "extract(week from {}::date)"]:
        q.append("SELECT " + f.format(d))
TS = ["'2024-02-29 12:34:56'", "'2023-12-31 23:59:59.999999'", "'2000-01-01 00:00:00'", "'2024-06-15 08:00:00.5'"]
for t in TS:
    for f in ["{}::timestamp", "{}::timestamp + interval '1 day'", "{}::timestamp - interval '1 hour 30 minutes'",
              "{}::timestamp + interval '1 month'", "{}::timestamp - '2000-01-01'::timestamp", "extract(epoch from {}::timestamp)",
              "extract(hour from {}::timestamp)", "extract(second from {}::timestamp)", "extract(microseconds from {}::timestamp)",
              "date_trunc('hour', {}::timestamp)", "date_trunc('day', {}::timestamp)", "date_trunc('year', {}::timestamp)",
              "{}::timestamp::date", "{}::timestamp::time", "{}::timestamp(0)", "{}::timestamp(2)",
              "to_char({}::timestamp, 'YYYY-MM-DD HH24:MI:SS')", "{}::timestamp::text", "age({}::timestamp, '2000-01-01'::timestamp)"]:
        q.append("SELECT " + f.format(t))
TIMES = ["'00:00'", "'12:34:56'", "'23:59:59.999999'", "'08:15:30.25'"]
for t in TIMES:
    for f in ["{}::time", "{}::time + interval '1 hour'", "{}::time - interval '30 minutes'", "{}::time - '06:00'::time",
              "extract(minute from {}::time)", "{}::time(0)", "{}::time < '12:00'::time", "date_trunc('hour', {}::time)"]:
        q.append("SELECT " + f.format(t))
q += ["SELECT DATE '2024-01-01'", "SELECT TIMESTAMP '2024-01-01 10:00'", "SELECT TIME '10:00'", "SELECT '2024-13-01'::date",
      "SELECT '2023-02-29'::date", "SELECT '24:00:00'::time", "SELECT '2024-01-01T10:00:00'::timestamp", "SELECT 'epoch'::timestamp",
      "SELECT 'infinity'::timestamp", "SELECT '-infinity'::date", "SELECT 'infinity'::date > '2024-01-01'::date",
      "SELECT make_date(2024, 2, 29)", "SELECT make_time(10, 20, 30.5)", "SELECT make_timestamp(2024, 1, 2, 3, 4, 5.5)",
      "SELECT to_date('05 Mar 2024', 'DD Mon YYYY')", "SELECT to_timestamp('2024-03-05 10:11', 'YYYY-MM-DD HH24:MI')::timestamp",
      "SELECT pg_typeof('2024-01-01'::date + 1)::text", "SELECT pg_typeof('2024-01-01'::date + interval '1 day')::text",
      "SELECT pg_typeof('2024-01-01'::date - '2023-01-01'::date)::text", "SELECT '2024-01-31'::date + interval '1 month'",
      "SELECT '2024-03-31'::timestamp - interval '1 month'", "SELECT '1999-12-31 23:59:59'::timestamp + interval '1 second'",
      "SELECT date '2024-03-10' - date '2024-03-01'", "SELECT '2024-01-01'::date = '2024-01-01 00:00'::timestamp",
      "SELECT extract(isodow from date '2024-01-07')", "SELECT extract(quarter from date '2024-05-01')",
      "SELECT extract(century from date '2001-01-01')", "SELECT extract(julian from date '2024-01-01')",
      "SELECT date_part('epoch', timestamp '1970-01-02 00:00')", "SELECT '2024-01-01 10:00'::timestamp(0) + interval '0.6 second'",
      "SELECT (date '2024-01-01', date '2024-02-01') OVERLAPS (date '2024-01-15', date '2024-03-01')",
      "SELECT to_char(timestamp '2024-01-05 15:04:05', 'Day DD Month YYYY HH12:MI AM')", "SELECT to_char(date '2024-01-05', 'IYYY-IW')",
      "SELECT justify_days(interval '35 days')", "SELECT date_trunc('week', timestamp '2024-01-10 10:00')",
      "SELECT isfinite(date '2024-01-01')", "SELECT '10:00'::time + '2024-01-01'::date"]
out("datetime.sql", q, about="date, time and timestamp literals, arithmetic, extract, date_trunc, to_char")

# ------------------------------------------------------------------------------------------------ timestamptz
TZ = ["'2024-02-29 12:34:56+00'", "'2024-02-29 12:34:56+05:30'", "'2023-12-31 23:59:59-08'", "'2024-07-01 00:00:00 Europe/Paris'",
      "'2024-03-10 02:30:00 America/New_York'"]
q = []
for t in TZ:
    for f in ["{}::timestamptz", "{}::timestamptz + interval '1 day'", "{}::timestamptz::timestamp", "{}::timestamptz::date",
              "extract(epoch from {}::timestamptz)", "extract(hour from {}::timestamptz)", "date_trunc('day', {}::timestamptz)",
              "{}::timestamptz AT TIME ZONE 'UTC'", "{}::timestamptz AT TIME ZONE 'Asia/Tokyo'",
              "{}::timestamptz - '2024-01-01 00:00+00'::timestamptz", "to_char({}::timestamptz, 'YYYY-MM-DD HH24:MI TZ')",
              "{}::timestamptz = '2024-02-29 12:34:56+00'::timestamptz", "{}::timestamptz::text", "{}::timestamptz(0)",
              "{}::timestamptz + interval '1 month'", "{}::timestamptz::time"]:
        q.append("SELECT " + f.format(t))
q += ["SELECT TIMESTAMPTZ '2024-01-01 10:00+02'", "SELECT TIMESTAMP WITH TIME ZONE '2024-01-01 10:00'",
      "SELECT '2024-01-01 10:00'::timestamp AT TIME ZONE 'UTC'", "SELECT '2024-01-01 10:00'::timestamp AT TIME ZONE 'America/Los_Angeles'",
      "SELECT to_timestamp(0)", "SELECT to_timestamp(1700000000.5)", "SELECT pg_typeof(to_timestamp(0))::text",
      "SELECT '2024-01-01'::date::timestamptz", "SELECT 'epoch'::timestamptz", "SELECT 'infinity'::timestamptz",
      "SELECT '2024-01-01 10:00+00'::timestamptz < '2024-01-01 11:00+02'::timestamptz", "SELECT current_setting('TimeZone')",
      "SELECT '2024-06-01 12:00:00.123456+00'::timestamptz", "SELECT '2024-06-01 12:00:00.1234567+00'::timestamptz",
      "SELECT make_timestamptz(2024, 1, 2, 3, 4, 5, 'UTC')", "SELECT timezone('UTC', '2024-01-01 10:00+03'::timestamptz)",
      "SELECT '2024-01-01 10:00+00'::timestamptz = '2024-01-01 10:00'::timestamp"]
out("timestamptz.sql", q, about="timestamp with time zone under TimeZone=UTC: input offsets, zones, AT TIME ZONE")

# ------------------------------------------------------------------------------------------------ intervals
IV = ["'1 day'", "'2 hours 30 minutes'", "'1 year 2 months'", "'-1 day'", "'1 day -1 hour'", "'00:00:01.5'", "'P1Y2M3DT4H5M6S'",
      "'36 hours'", "'1 mon'", "'3 weeks'"]
q = []
for i in IV:
    for f in ["interval {}", "{}::interval * 2", "{}::interval / 2", "{}::interval + interval '1 hour'", "-{}::interval",
              "extract(epoch from {}::interval)", "extract(day from {}::interval)", "extract(hour from {}::interval)",
              "justify_hours({}::interval)", "justify_interval({}::interval)", "{}::interval::text",
              "{}::interval > interval '1 day'", "date_trunc('day', {}::interval)", "{}::interval * 1.5", "to_char({}::interval, 'HH24:MI:SS')"]:
        q.append("SELECT " + f.format(i))
q += ["SELECT interval '1 day' = interval '24 hours'", "SELECT interval '1 month' = interval '30 days'",
      "SELECT interval '1' day", "SELECT interval '90' minute", "SELECT INTERVAL '1-2' YEAR TO MONTH",
      "SELECT '1 day'::interval(0)", "SELECT make_interval(years => 1, days => 2)", "SELECT make_interval(hours => 25)",
      "SELECT sum(x) FROM (VALUES (interval '1 day'), (interval '2 hours')) t(x)", "SELECT avg(x) FROM (VALUES (interval '1 day'), (interval '2 hours')) t(x)",
      "SELECT max(x) FROM (VALUES (interval '1 day'), (interval '25 hours')) t(x)", "SELECT pg_typeof(interval '1 day' * 2)::text",
      "SELECT timestamp '2024-01-01' + 3 * interval '1 week'", "SELECT 'abc'::interval", "SELECT interval '1.5 days'",
      "SELECT interval '1 year' / 12", "SELECT interval '100000 hours'"]
out("intervals.sql", q, about="interval input and output (IntervalStyle postgres), arithmetic, extract, justify")

# ------------------------------------------------------------------------------------------------ uuid
U = ["'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'", "'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'",
     "'a0eebc999c0b4ef8bb6d6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'", "'not-a-uuid'"]
q = []
for u in U:
    for f in ["{}::uuid", "{}::uuid::text", "{}::uuid = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid",
              "{}::uuid < 'b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid", "length({}::uuid::text)", "upper({}::uuid::text)"]:
        q.append("SELECT " + f.format(u))
UU_SETUP = ["CREATE TABLE uu_t1 (id uuid PRIMARY KEY, n int)",
            "INSERT INTO uu_t1 VALUES ('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1), ('00000000-0000-0000-0000-000000000001', 2), ('ffffffff-ffff-ffff-ffff-ffffffffffff', 3)"]
q += ["SELECT id, n FROM uu_t1 ORDER BY id", "SELECT n FROM uu_t1 WHERE id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
      "SELECT max(id::text) FROM uu_t1", "SELECT count(*) FROM uu_t1 WHERE id > '50000000-0000-0000-0000-000000000000'",
      "SELECT pg_typeof('a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid)::text", "SELECT id FROM uu_t1 WHERE n = 2"]
out("uuid.sql", q, UU_SETUP, "uuid input spellings, output, comparison, a uuid key")

# ------------------------------------------------------------------------------------------------ json
J = ["'{\"a\": 1, \"b\": [1, 2, 3], \"c\": {\"d\": \"x\"}}'", "'[1, \"two\", null, true]'", "'\"str\"'", "'42'", "'null'",
     "'{\"a\": 1.50, \"a2\": 1e2}'", "'{}'", "'{\"b\": 1, \"a\": 2, \"b\": 3}'"]
q = []
for j in J:
    for t in ["json", "jsonb"]:
        for f in ["{}::T", "{}::T -> 'a'", "{}::T ->> 'a'", "{}::T -> 1", "{}::T ->> 1", "{}::T #> '{{c,d}}'", "{}::T #>> '{{b,0}}'",
                  "T_typeof({}::T)", "{}::T::text", "T_array_length(CASE WHEN T_typeof({}::T) = 'array' THEN {}::T END)"]:
            q.append("SELECT " + f.replace("T_", t + "_").replace("::T", "::" + t).format(j, j))
q += ["SELECT '{\"a\":1}'::jsonb @> '{\"a\":1}'::jsonb", "SELECT '{\"a\":1}'::jsonb ? 'a'", "SELECT '{\"a\":1, \"b\":2}'::jsonb - 'a'",
      "SELECT '{\"a\":1}'::jsonb || '{\"b\":2}'::jsonb", "SELECT '[1,2]'::jsonb || '[3]'::jsonb", "SELECT jsonb_set('{\"a\":1}', '{a}', '2')",
      "SELECT jsonb_pretty('{\"a\":1}')", "SELECT to_json('text'::text)", "SELECT to_jsonb(1.5)", "SELECT to_json(ARRAY[1,2])",
      "SELECT json_build_object('a', 1, 'b', 'x')", "SELECT jsonb_build_object('a', 1, 'b', NULL)", "SELECT json_build_array(1, 'a', NULL)",
      "SELECT jsonb_build_array(1, 2.50)", "SELECT row_to_json(t) FROM (SELECT 1 AS a, 'x' AS b) t",
      "SELECT json_agg(x ORDER BY x) FROM (VALUES (3), (1), (2)) t(x)", "SELECT jsonb_agg(x ORDER BY x) FROM (VALUES ('b'), ('a')) t(x)",
      "SELECT json_object_agg(k, v ORDER BY k) FROM (VALUES ('a', 1), ('b', 2)) t(k, v)", "SELECT key, value FROM jsonb_each('{\"a\":1,\"b\":\"x\"}') ORDER BY key",
      "SELECT key, value FROM jsonb_each_text('{\"a\":1,\"b\":\"x\"}') ORDER BY key", "SELECT jsonb_object_keys('{\"b\":1,\"a\":2}') ORDER BY 1",
      "SELECT value FROM jsonb_array_elements('[1,\"a\",null]') ORDER BY 1", "SELECT jsonb_array_elements_text('[\"x\",\"y\"]') ORDER BY 1",
      "SELECT '{\"a\":1}'::json = '{\"a\":1}'::json", "SELECT '{\"a\":1}'::jsonb = '{\"a\": 1}'::jsonb", "SELECT '{bad'::json",
      "SELECT '[1,2'::jsonb", "SELECT ('{\"n\": 5}'::jsonb ->> 'n')::int + 1", "SELECT ('{\"n\": 5}'::jsonb -> 'n')::int + 1",
      "SELECT jsonb_strip_nulls('{\"a\":null,\"b\":1}')", "SELECT jsonb_path_query_first('{\"a\":[1,2]}', '$.a[1]')",
      "SELECT '{\"a\":{\"b\":1}}'::jsonb #- '{a,b}'", "SELECT jsonb_exists('{\"a\":1}', 'a')", "SELECT pg_typeof('{}'::jsonb -> 'a')::text",
      "SELECT pg_typeof('{}'::json ->> 'a')::text", "SELECT '1.0'::jsonb", "SELECT '1.0'::json", "SELECT '\"\\u00e9\"'::jsonb"]
JS_SETUP = ["CREATE TABLE js_t1 (id int PRIMARY KEY, doc jsonb, raw json)",
            "INSERT INTO js_t1 VALUES (1, '{\"name\": \"a\", \"n\": 1, \"tags\": [\"x\", \"y\"]}', '{\"name\": \"a\"}'), (2, '{\"name\": \"b\", \"n\": 2.5}', '{ \"name\" : \"b\" }'), (3, NULL, NULL)"]
q += ["SELECT id, doc FROM js_t1 ORDER BY id", "SELECT id, raw FROM js_t1 ORDER BY id", "SELECT id, doc ->> 'name' FROM js_t1 ORDER BY id",
      "SELECT id, doc -> 'n' FROM js_t1 ORDER BY id", "SELECT id FROM js_t1 WHERE doc @> '{\"name\": \"b\"}' ORDER BY id",
      "SELECT id, doc -> 'tags' -> 0 FROM js_t1 ORDER BY id", "SELECT sum((doc ->> 'n')::numeric) FROM js_t1",
      "SELECT id, raw ->> 'name' FROM js_t1 ORDER BY id", "SELECT count(*) FROM js_t1 WHERE doc ? 'tags'",
      "SELECT id, jsonb_typeof(doc -> 'n') FROM js_t1 ORDER BY id",
      "SELECT id FROM js_t1 WHERE doc ?| ARRAY['tags', 'x'] ORDER BY id", "SELECT id FROM js_t1 WHERE doc ?& ARRAY['name', 'n'] ORDER BY id",
      "SELECT id FROM js_t1 WHERE doc <@ '{\"name\": \"b\", \"n\": 2.5, \"z\": 0}' ORDER BY id",
      "SELECT id FROM js_t1 WHERE doc -> 'tags' ? 'x' ORDER BY id", "SELECT id, doc -> 'tags' ->> id - 1 FROM js_t1 ORDER BY id",
      "SELECT '[1, 2.0]'::jsonb @> '2'", "SELECT '[\"1\", 2]'::jsonb ? '2'", "SELECT '{\"a\": [1, {\"b\": 2}]}'::jsonb @> '{\"a\": [{\"b\": 2}]}'",
      "SELECT '{\"b\": 1, \"a\": 2}'::jsonb = '{\"a\": 2, \"b\": 1}'::jsonb"]
out("json.sql", q, JS_SETUP, "json and jsonb input, output (json keeps text, jsonb normalises), operators, functions")

# ------------------------------------------------------------------------------------------------ arrays
A = ["ARRAY[1, 2, 3]", "ARRAY[]::int[]", "ARRAY['a', 'b']", "ARRAY[1.5, 2]", "ARRAY[NULL, 1]", "'{1,2,3}'::int[]",
     "'{{1,2},{3,4}}'::int[]", "ARRAY[true, false]", "'{a,\"b c\",NULL}'::text[]"]
q = []
for a in A:
    for f in ["{}", "array_length({}, 1)", "cardinality({})", "({})[1]", "({})[2:3]", "array_to_string({}, ',')",
              "array_to_string({}, ',', '*')", "array_ndims({})", "array_upper({}, 1)", "array_dims({})", "pg_typeof({})::text",
              "{}::text", "array_position({}, ({})[1])", "({}) || ({})"]:
        q.append("SELECT " + f.format(a, a))
q += ["SELECT ARRAY[1,2] = ARRAY[1,2]", "SELECT ARRAY[1,2] < ARRAY[1,3]", "SELECT ARRAY[1,2] @> ARRAY[2]", "SELECT ARRAY[1,2] && ARRAY[2,5]",
      "SELECT 1 = ANY(ARRAY[1,2])", "SELECT 3 = ALL(ARRAY[3,3])", "SELECT 5 > ANY('{1,9}'::int[])", "SELECT array_append(ARRAY[1], 2)",
      "SELECT array_prepend(0, ARRAY[1])", "SELECT array_cat(ARRAY[1], ARRAY[2,3])", "SELECT array_remove(ARRAY[1,2,1], 1)",
      "SELECT array_replace(ARRAY[1,2,1], 1, 9)", "SELECT string_to_array('a,b,c', ',')", "SELECT unnest(ARRAY[3,1,2]) ORDER BY 1",
      "SELECT x, o FROM unnest(ARRAY['a','b']) WITH ORDINALITY AS t(x, o) ORDER BY o", "SELECT array_agg(x ORDER BY x) FROM (VALUES (2), (1)) t(x)",
      "SELECT array_agg(x ORDER BY x DESC) FROM (VALUES ('a'), ('b')) t(x)", "SELECT ARRAY(SELECT generate_series(1, 3))",
      "SELECT array_fill(7, ARRAY[3])", "SELECT ARRAY[1,2] || 3", "SELECT ARRAY[[1,2],[3,4]]", "SELECT (ARRAY[[1,2],[3,4]])[2][1]",
      "SELECT ARRAY[1,2][5]", "SELECT '{1,2'::int[]", "SELECT ARRAY[1, 'a']", "SELECT array_positions(ARRAY[1,2,1], 1)",
      "SELECT trim_array(ARRAY[1,2,3], 1)", "SELECT ARRAY['2024-01-01'::date]", "SELECT ARRAY[1::int8, 2]", "SELECT ARRAY[0.1::float8]"]
AR_SETUP = ["CREATE TABLE ar_t1 (id int PRIMARY KEY, xs int[], ts text[])",
            "INSERT INTO ar_t1 VALUES (1, '{1,2,3}', '{a,b}'), (2, '{}', '{}'), (3, NULL, '{NULL,x}'), (4, '{5}', '{\"q r\"}')"]
q += ["SELECT id, xs FROM ar_t1 ORDER BY id", "SELECT id, ts FROM ar_t1 ORDER BY id", "SELECT id, cardinality(xs) FROM ar_t1 ORDER BY id",
      "SELECT id FROM ar_t1 WHERE 2 = ANY(xs) ORDER BY id", "SELECT id, xs[1] FROM ar_t1 ORDER BY id", "SELECT id, array_length(ts, 1) FROM ar_t1 ORDER BY id",
      "SELECT id, u FROM ar_t1, unnest(xs) AS u ORDER BY id, u", "SELECT id FROM ar_t1 WHERE xs @> '{5}' ORDER BY id"]
out("arrays.sql", q, AR_SETUP, "array constructors, literals, subscripts, slices, operators, functions, array columns")

# ------------------------------------------------------------------------------------------------ aggregates
AG_SETUP = ["CREATE TABLE ag_t1 (id int PRIMARY KEY, g text, i int, b bigint, s smallint, n numeric(10,2), f float8, r real)",
            "INSERT INTO ag_t1 VALUES (1, 'a', 1, 10, 1, 1.25, 0.1, 0.5), (2, 'a', 2, 20, 2, 2.50, 0.2, 1.5), (3, 'b', 3, 30, 3, 3.75, 0.3, 2.5), (4, 'b', NULL, NULL, NULL, NULL, NULL, NULL), (5, 'c', 7, 9223372036854775807, 32767, 99999999.99, 1e300, 3.5)"]
q = ["SELECT avg(x) FROM (VALUES (1),(2)) t(x)", "SELECT sum(x) FROM (VALUES (1),(2)) t(x)", "SELECT avg(x) FROM (VALUES (1.5),(2)) t(x)",
     "SELECT count(*) FROM (VALUES (1),(NULL)) t(x)", "SELECT count(x) FROM (VALUES (1),(NULL)) t(x)", "SELECT sum(x) FROM (VALUES (NULL::int)) t(x)",
     "SELECT count(*) FROM ag_t1 WHERE false", "SELECT sum(i) FROM ag_t1 WHERE false", "SELECT avg(x::float8) FROM (VALUES (1),(2)) t(x)",
     "SELECT stddev(x) FROM (VALUES (1),(2),(4)) t(x)", "SELECT variance(x) FROM (VALUES (1),(2),(4)) t(x)",
     "SELECT stddev_pop(x) FROM (VALUES (1.0),(2.0)) t(x)", "SELECT var_samp(x) FROM (VALUES (1)) t(x)",
     "SELECT string_agg(x, ',' ORDER BY x) FROM (VALUES ('b'),('a')) t(x)", "SELECT string_agg(x, ',') FROM (VALUES ('only')) t(x)",
     "SELECT sum(x) FROM (VALUES (2147483647),(1)) t(x)", "SELECT sum(x::int8) FROM (VALUES (9223372036854775807),(1)) t(x)",
     "SELECT avg(x) FROM (VALUES (1::int2),(2::int2)) t(x)", "SELECT sum(x) FROM (VALUES (1::int2),(2::int2)) t(x)",
     "SELECT count(DISTINCT x) FROM (VALUES (1),(1),(2)) t(x)", "SELECT sum(DISTINCT x) FROM (VALUES (1),(1),(2)) t(x)",
     "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(2),(3),(4)) t(x)",
     "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(2),(3),(4)) t(x)",
     "SELECT mode() WITHIN GROUP (ORDER BY x) FROM (VALUES (1),(2),(2)) t(x)", "SELECT bit_and(x), bit_or(x) FROM (VALUES (5),(3)) t(x)",
     "SELECT max(x), min(x) FROM (VALUES ('2024-01-01'::date), ('2023-01-01'::date)) t(x)",
     "SELECT sum(x) FROM (VALUES (0.1::float8), (0.2::float8)) t(x)", "SELECT sum(x) FROM (VALUES (0.1), (0.2)) t(x)",
     "SELECT count(*) FROM generate_series(1, 100)", "SELECT sum(g) FROM generate_series(1, 100) g", "SELECT avg(g) FROM generate_series(1, 100) g",
     "SELECT corr(x, y) FROM (VALUES (1, 2), (2, 4), (3, 6)) t(x, y)", "SELECT regr_slope(y, x) FROM (VALUES (1, 2), (2, 4)) t(x, y)",
     "SELECT covar_pop(x, y) FROM (VALUES (1, 2), (2, 4)) t(x, y)", "SELECT pg_typeof(sum(1))::text", "SELECT pg_typeof(avg(1))::text",
     "SELECT pg_typeof(sum(1::int8))::text", "SELECT pg_typeof(count(*))::text", "SELECT pg_typeof(sum(1.5::float4))::text"]
for col in ["i", "b", "s", "n", "f", "r"]:
    for agg in ["count({})", "sum({})", "avg({})", "min({})", "max({})", "stddev_samp({})", "var_pop({})"]:
        a = agg.format(col)
        q.append(f"SELECT {a} FROM ag_t1")
        q.append(f"SELECT g, {a} FROM ag_t1 GROUP BY g ORDER BY g")
for extra in ["SELECT g, count(*) FROM ag_t1 GROUP BY g HAVING count(*) > 1 ORDER BY g",
              "SELECT g, sum(i) FILTER (WHERE i > 1) FROM ag_t1 GROUP BY g ORDER BY g",
              "SELECT g, string_agg(id::text, '-' ORDER BY id) FROM ag_t1 GROUP BY g ORDER BY g",
              "SELECT g, array_agg(id ORDER BY id) FROM ag_t1 GROUP BY g ORDER BY g",
              "SELECT count(*), count(i), count(DISTINCT g) FROM ag_t1", "SELECT g, max(n) - min(n) FROM ag_t1 GROUP BY g ORDER BY g",
              "SELECT sum(n) / count(n) FROM ag_t1", "SELECT avg(n)::numeric(10,3) FROM ag_t1", "SELECT round(avg(i), 2) FROM ag_t1",
              "SELECT g, bool_and(i > 0) FROM ag_t1 GROUP BY g ORDER BY g", "SELECT g FROM ag_t1 GROUP BY g ORDER BY g DESC",
              "SELECT g, count(*) FROM ag_t1 GROUP BY ROLLUP (g) ORDER BY g", "SELECT count(*) FROM (SELECT DISTINCT g FROM ag_t1) d",
              "SELECT sum(i) + sum(b) FROM ag_t1", "SELECT max(g || i) FROM ag_t1", "SELECT sum(i * n) FROM ag_t1",
              "SELECT g, avg(f) FROM ag_t1 GROUP BY g ORDER BY g", "SELECT i % 2, count(*) FROM ag_t1 GROUP BY i % 2 ORDER BY 1",
              "SELECT g, count(*) FROM ag_t1 GROUP BY 1 ORDER BY 2 DESC, 1", "SELECT sum(s) FROM ag_t1 WHERE s > 2",
              "SELECT max(n) FROM ag_t1 WHERE g = 'a'", "SELECT min(f) FROM ag_t1 WHERE g = 'b'"]:
    q.append(extra)
out("aggregates.sql", q, AG_SETUP, "aggregate result types (sum/avg widen), empty and NULL input, GROUP BY, FILTER, ordered-set")

# ------------------------------------------------------------------------------------------------ windows
WN_SETUP = ["CREATE TABLE wn_t1 (id int PRIMARY KEY, g text, v int, x numeric(6,2))",
            "INSERT INTO wn_t1 VALUES (1, 'a', 10, 1.50), (2, 'a', 20, 2.25), (3, 'a', 20, 3.00), (4, 'b', 5, 0.10), (5, 'b', 15, NULL), (6, 'c', NULL, 7.77)"]
q = []
for fn in ["row_number()", "rank()", "dense_rank()", "percent_rank()", "cume_dist()", "ntile(2)", "lag(v)", "lead(v)",
           "lag(v, 2, -1)", "first_value(v)", "last_value(v)", "nth_value(v, 2)", "sum(v)", "avg(v)", "count(*)", "count(v)",
           "min(x)", "max(x)", "sum(x)", "avg(x)"]:
    for over in ["OVER (ORDER BY id)", "OVER (PARTITION BY g ORDER BY id)", "OVER (PARTITION BY g)",
                 "OVER (ORDER BY id ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING)", "OVER (ORDER BY v, id)",
                 "OVER (PARTITION BY g ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING)"]:
        q.append(f"SELECT id, {fn} {over} FROM wn_t1 ORDER BY id")
q += ["SELECT id, sum(v) OVER w, count(*) OVER w FROM wn_t1 WINDOW w AS (PARTITION BY g ORDER BY id) ORDER BY id",
      "SELECT id, rank() OVER (ORDER BY v DESC NULLS LAST) FROM wn_t1 ORDER BY id",
      "SELECT id, sum(v) OVER (ORDER BY v RANGE BETWEEN 5 PRECEDING AND CURRENT ROW) FROM wn_t1 ORDER BY id",
      "SELECT id, v - lag(v) OVER (ORDER BY id) FROM wn_t1 ORDER BY id",
      "SELECT * FROM (SELECT id, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM wn_t1) s WHERE rn = 1 ORDER BY id",
      "SELECT x, row_number() OVER (ORDER BY x) FROM (VALUES (3), (1), (2)) t(x) ORDER BY x",
      "SELECT x, sum(x) OVER () FROM (VALUES (1), (2)) t(x) ORDER BY x",
      "SELECT x, avg(x) OVER (ORDER BY x) FROM (VALUES (1), (2), (4)) t(x) ORDER BY x",
      "SELECT g, sum(sum(v)) OVER (ORDER BY g) FROM wn_t1 GROUP BY g ORDER BY g",
      "SELECT id, pg_typeof(row_number() OVER ())::text FROM wn_t1 ORDER BY id",
      "SELECT id, pg_typeof(rank() OVER (ORDER BY id))::text FROM wn_t1 WHERE id = 1"]
out("windows.sql", q, WN_SETUP, "window functions: ranking, offsets, frames, aggregates over partitions")

# ------------------------------------------------------------------------------------------------ setops
SO_SETUP = ["CREATE TABLE so_t1 (id int PRIMARY KEY, v int, s text)", "CREATE TABLE so_t2 (id int PRIMARY KEY, v int, s text)",
            "INSERT INTO so_t1 VALUES (1, 1, 'a'), (2, 2, 'b'), (3, 2, 'b'), (4, NULL, NULL)",
            "INSERT INTO so_t2 VALUES (1, 2, 'b'), (2, 3, 'c'), (3, NULL, NULL)"]
q = []
for op in ["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"]:
    q += [f"SELECT v FROM so_t1 {op} SELECT v FROM so_t2", f"SELECT v FROM so_t1 {op} SELECT v FROM so_t2 ORDER BY 1",
          f"SELECT s FROM so_t1 {op} SELECT s FROM so_t2 ORDER BY 1", f"SELECT v, s FROM so_t1 {op} SELECT v, s FROM so_t2 ORDER BY 1, 2",
          f"SELECT 1 {op} SELECT 1", f"SELECT 1 {op} SELECT 2 ORDER BY 1", f"SELECT count(*) FROM (SELECT v FROM so_t1 {op} SELECT v FROM so_t2) u",
          f"SELECT 1 {op} SELECT 1.5 ORDER BY 1", f"SELECT 'a' {op} SELECT 'bb' ORDER BY 1", f"SELECT 1::int2 {op} SELECT 2::int8 ORDER BY 1",
          f"SELECT NULL {op} SELECT 1 ORDER BY 1", f"SELECT 'x'::char(3) {op} SELECT 'yy'::varchar ORDER BY 1"]
q += ["SELECT 1 UNION SELECT 2 UNION ALL SELECT 1 ORDER BY 1", "SELECT v FROM so_t1 UNION SELECT v FROM so_t2 ORDER BY 1 DESC NULLS LAST",
      "SELECT v FROM so_t1 UNION SELECT v FROM so_t2 ORDER BY 1 LIMIT 2", "(SELECT 1 UNION SELECT 2) INTERSECT SELECT 2",
      "SELECT pg_typeof(x)::text FROM (SELECT 1 AS x UNION SELECT 2.5) t LIMIT 1", "SELECT 1, 'a' UNION SELECT 2",
      "SELECT 1 UNION SELECT 'a'", "SELECT DISTINCT v FROM so_t1 ORDER BY 1", "SELECT v FROM so_t1 WHERE v IN (SELECT v FROM so_t2) ORDER BY 1",
      "SELECT v FROM so_t1 WHERE v NOT IN (SELECT v FROM so_t2 WHERE v IS NOT NULL) ORDER BY 1",
      "SELECT v FROM so_t1 WHERE EXISTS (SELECT 1 FROM so_t2 WHERE so_t2.v = so_t1.v) ORDER BY 1",
      "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) t(a, b) EXCEPT SELECT 1, 'a'", "VALUES (1), (2) UNION VALUES (3) ORDER BY 1"]
out("setops.sql", q, SO_SETUP, "UNION/INTERSECT/EXCEPT with and without ALL, result types of unions, NULLs in sets")

# ------------------------------------------------------------------------------------------------ nulls
NL_SETUP = ["CREATE TABLE nl_t1 (id int PRIMARY KEY, a int, b text)",
            "INSERT INTO nl_t1 VALUES (1, 1, 'x'), (2, NULL, 'y'), (3, 3, NULL), (4, NULL, NULL)"]
q = ["SELECT NULL", "SELECT NULL::int", "SELECT NULL + 1", "SELECT NULL = NULL", "SELECT NULL IS NULL", "SELECT NULL IS DISTINCT FROM NULL",
     "SELECT 1 IS DISTINCT FROM NULL", "SELECT 1 IS NOT DISTINCT FROM 1", "SELECT NULL || 'a'", "SELECT coalesce(NULL, NULL, 3)",
     "SELECT nullif(1, 1)", "SELECT nullif(1, 2)", "SELECT nullif('a', 'b')", "SELECT NULL IN (1, 2)", "SELECT 1 IN (1, NULL)",
     "SELECT 2 IN (1, NULL)", "SELECT 2 NOT IN (1, NULL)", "SELECT pg_typeof(NULL)::text", "SELECT pg_typeof(coalesce(NULL, 1))::text",
     "SELECT CASE WHEN NULL = NULL THEN 1 ELSE 0 END", "SELECT greatest(1, NULL)", "SELECT least(NULL, NULL::int)", "SELECT max(NULL::int)",
     "SELECT NULL::text IS NULL", "SELECT length(NULL)", "SELECT upper(NULL)", "SELECT abs(NULL::int)", "SELECT NULL::int[] IS NULL",
     "SELECT ARRAY[NULL]::int[]", "SELECT coalesce(NULL::numeric, 1.5)", "SELECT coalesce(1, 2.5)", "SELECT coalesce('a', NULL)",
     "SELECT NOT NULL::boolean", "SELECT NULL::boolean AND false", "SELECT NULL::boolean OR true", "SELECT NULL::date + 1",
     "SELECT count(NULL)", "SELECT NULL > 1", "SELECT NULLIF(0, 0) IS NULL", "SELECT coalesce(nullif('', ''), 'empty')"]
for e in ["a", "b", "a + 1", "b || '!'", "a IS NULL", "b IS NOT NULL", "coalesce(a, -1)", "coalesce(b, '-')", "nullif(a, 1)",
          "a = 1", "a <> 1", "a IS DISTINCT FROM 1", "a IS NOT DISTINCT FROM NULL", "CASE WHEN a IS NULL THEN 'none' ELSE 'some' END",
          "greatest(a, 2)", "length(b)"]:
    q.append(f"SELECT id, {e} FROM nl_t1 ORDER BY id")
q += ["SELECT id FROM nl_t1 WHERE a = NULL ORDER BY id", "SELECT id FROM nl_t1 WHERE a IS NULL ORDER BY id", "SELECT id FROM nl_t1 WHERE NOT (a = 1) ORDER BY id",
      "SELECT id FROM nl_t1 ORDER BY a, id", "SELECT id FROM nl_t1 ORDER BY a DESC, id", "SELECT id FROM nl_t1 ORDER BY a NULLS FIRST, id",
      "SELECT id FROM nl_t1 ORDER BY b DESC NULLS LAST, id", "SELECT count(a), count(b), count(*) FROM nl_t1", "SELECT sum(a), avg(a) FROM nl_t1",
      "SELECT a, count(*) FROM nl_t1 GROUP BY a ORDER BY a", "SELECT DISTINCT b FROM nl_t1 ORDER BY b", "SELECT id FROM nl_t1 WHERE b NOT IN ('x') ORDER BY id",
      "SELECT id FROM nl_t1 WHERE a IN (1, NULL) ORDER BY id", "SELECT t1.id, t2.id FROM nl_t1 t1 JOIN nl_t1 t2 ON t1.a = t2.a ORDER BY 1, 2",
      "SELECT t1.id, t2.id FROM nl_t1 t1 LEFT JOIN nl_t1 t2 ON t1.b = t2.b AND t1.id <> t2.id ORDER BY 1, 2"]
out("nulls.sql", q, NL_SETUP, "NULL through operators, functions, predicates, ordering, grouping and joins")

# ------------------------------------------------------------------------------------------------ casts
VALUES = {"int": ["0", "42", "-7", "2147483647"], "numeric": ["1.25", "-2.5", "0.5", "1e10"], "float8": ["1.5", "-0.5", "2.5", "1e-5"],
          "text": ["'12'", "'1.5'", "' 7 '", "'abc'", "'true'", "'2024-01-02'"], "bool": ["true", "false"]}
TARGETS = ["int2", "int4", "int8", "numeric", "numeric(5,1)", "float4", "float8", "text", "varchar(3)", "char(4)", "boolean"]
q = []
for src, vals in VALUES.items():
    for v in vals:
        for t in TARGETS:
            q.append(f"SELECT CAST({v}::{src} AS {t})")
for v in ["'2024-02-29'", "'2024-02-29 10:11:12'", "'2024-02-29 10:11:12+02'", "'10:11:12'", "'1 day 2 hours'",
          "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'{\"a\": 1}'", "'{1,2}'", "'\\x41'"]:
    for t in ["date", "timestamp", "timestamptz", "time", "interval", "uuid", "json", "jsonb", "int[]", "bytea", "text"]:
        q.append(f"SELECT {v}::{t}")
q += ["SELECT 2.5::numeric::int", "SELECT 3.5::numeric::int", "SELECT -2.5::numeric::int", "SELECT 0.5::numeric::int",
      "SELECT 2.5::int", "SELECT '2.5'::int", "SELECT 2.5::float8::int", "SELECT 1.5::float4::int2", "SELECT 99999::int2",
      "SELECT 1e20::int8", "SELECT 'NaN'::numeric::int", "SELECT 65::int::text", "SELECT 1::int::boolean", "SELECT true::int",
      "SELECT 42::text::int", "SELECT '42'::text::numeric(4,1)", "SELECT 123.456::text", "SELECT 1.0::float8::text",
      "SELECT 1e-7::float8::text", "SELECT 12345678.9::float4::text", "SELECT '2024-01-01'::date::text", "SELECT now()::date > '2000-01-01'",
      "SELECT CAST('1' AS integer) + CAST('2' AS bigint)", "SELECT int4 '5'", "SELECT int8 '5' * 2", "SELECT '5'::int4 + '5'",
      "SELECT '5' + 5", "SELECT 5 || ''", "SELECT pg_typeof('5' + 5)::text", "SELECT pg_typeof(CAST(1 AS numeric(5,2)))::text",
      "SELECT CAST(1.239 AS numeric(5,2))", "SELECT CAST(-1.235 AS numeric(5,2))", "SELECT CAST(1.5 AS real)", "SELECT CAST(2 AS double precision) / 3",
      "SELECT CAST('abc' AS varchar(2))", "SELECT CAST('ab' AS char(4)) || '|'", "SELECT CAST('x' AS text) = CAST('x ' AS char(2))",
      "SELECT '1'::money", "SELECT 12.5::money::numeric"]
out("casts.sql", q, about="explicit casts between every pair of common types, rounding and truncation on the way")

# ------------------------------------------------------------------------------------------------ operators
PAIRS = [("1", "2"), ("2", "2"), ("1::int8", "1.0"), ("1.5", "1.50"), ("0.1::float8", "0.1::numeric"), ("'a'", "'b'"),
         ("'ab '::char(3)", "'ab'::char(3)"), ("'ab '::text", "'ab'::text"), ("'ab '::varchar", "'ab'"), ("date '2024-01-01'", "timestamp '2024-01-01'"),
         ("interval '1 day'", "interval '24 hours'"), ("true", "false"), ("'Infinity'::float8", "1e308"), ("'NaN'::float8", "1"),
         ("1::int2", "1::int4"), ("2147483647", "2147483648"), ("'2024-01-01 00:00+00'::timestamptz", "'2024-01-01 01:00+01'::timestamptz"),
         ("ARRAY[1]", "ARRAY[1,0]"), ("'\\x01'::bytea", "'\\x0100'::bytea"), ("'{\"a\":1}'::jsonb", "'{\"a\":1.0}'::jsonb")]
q = []
for a, b in PAIRS:
    for op in ["=", "<>", "<", "<=", ">", ">="]:
        q.append(f"SELECT {a} {op} {b}")
    q.append(f"SELECT {a} IS DISTINCT FROM {b}")
    q.append(f"SELECT greatest({a}, {b})")
NUM_OPS = [("7", "2"), ("7.0", "2"), ("7::float8", "2"), ("7::int2", "2::int2"), ("-7", "2"), ("7::numeric(5,2)", "0.5")]
for a, b in NUM_OPS:
    for op in ["+", "-", "*", "/", "%", "^"]:
        q.append(f"SELECT {a} {op} {b}")
        q.append(f"SELECT pg_typeof({a} {op} {b})::text")
q += ["SELECT 2 + 3 * 4", "SELECT 2 ^ 3 ^ 2", "SELECT -2 ^ 2", "SELECT (-2) ^ 2", "SELECT 10 - 2 - 3", "SELECT 2 * 3 % 4",
      "SELECT 1 < 2 = true", "SELECT 'a' || 'b' = 'ab'", "SELECT 5 BETWEEN 10 AND 1", "SELECT 5 BETWEEN SYMMETRIC 10 AND 1",
      "SELECT 5 NOT BETWEEN 1 AND 4", "SELECT 'b' BETWEEN 'a' AND 'c'", "SELECT 1 = ANY(ARRAY[1, NULL])", "SELECT 3 <> ALL(ARRAY[1, 2])",
      "SELECT (1, 2) = (1, 2)", "SELECT (1, 2) < (1, 3)", "SELECT (1, NULL) = (1, 2)", "SELECT ROW(1, 'a') = ROW(1, 'a')",
      "SELECT 5 & 3 | 8", "SELECT 1 << 4 >> 2", "SELECT ~0", "SELECT 15 # 5", "SELECT 7 / 2 * 2", "SELECT 7.0 / 2 * 2"]
out("operators.sql", q, about="comparison operators across types and widths, arithmetic result types, precedence, row comparison")

# ------------------------------------------------------------------------------------------------ functions_string
q = []
for f, args in [("lower", ["'ABC'", "'ÀÉ'"]), ("upper", ["'abc'", "'straße'"]), ("initcap", ["'hello wORLD'", "'a-b c_d'"]),
                ("length", ["'héllo'", "''"]), ("char_length", ["'héllo'"]), ("octet_length", ["'héllo'"]),
                ("chr", ["65", "233", "0"]), ("ascii", ["'A'", "'é'", "''"]), ("to_hex", ["255", "-1", "0"]),
                ("md5", ["'abc'", "''"]), ("reverse", ["'abc'"]), ("trim", ["'  a  '"]), ("ltrim", ["'xxaxx', 'x'"]),
                ("rtrim", ["'xxaxx', 'x'"]), ("btrim", ["'xxaxx', 'x'"]), ("repeat", ["'ab', 3", "'ab', 0", "'ab', -1"]),
                ("lpad", ["'5', 3, '0'", "'12345', 3", "'', 2"]), ("rpad", ["'5', 3, '0'", "'12345', 3"]),
                ("substr", ["'hello', 0", "'hello', -1, 3", "'hello', 2, 100", "'hello', 3, 0"]),
                ("substring", ["'hello' from 2", "'hello' for 2", "'hello' from 'l+'", "'hello' similar 'h#\"el#\"%' escape '#'"]),
                ("position", ["'lo' in 'hello'", "'z' in 'hello'", "'' in 'hello'"]), ("strpos", ["'hello', 'l'"]),
                ("split_part", ["'a.b.c', '.', 2", "'a.b.c', '.', 5", "'a.b.c', '.', -1"]), ("replace", ["'aaa', 'a', 'bb'", "'abc', '', 'x'"]),
                ("translate", ["'12345', '143', 'ax'"]), ("left", ["'hello', 3", "'hello', -2"]), ("right", ["'hello', 3", "'hello', -2"]),
                ("concat", ["'a', NULL, 2, true", "NULL"]), ("concat_ws", ["',', 'a', NULL, 'b'", "NULL, 'a'"]),
                ("format", ["'%s-%s', 'a', 1", "'%I', 'Col'", "'%L', 'it''s'", "'%5s|', 'ab'", "'%-5s|', 'ab'"]),
                ("quote_ident", ["'abc'", "'Abc'", "'a b'"]), ("quote_literal", ["'O''Reilly'", "42"]), ("quote_nullable", ["NULL"]),
                ("regexp_replace", ["'foobar', 'o+', '0'", "'aaa', 'a', 'b', 'g'", "'Hello', '(l+)', '[\\1]'"]),
                ("regexp_match", ["'foobarbequebaz', 'ba.'", "'abc', 'z'"]), ("regexp_matches", ["'abc', '(b)(c)'"]),
                ("regexp_split_to_array", ["'a1b2c', '[0-9]'"]), ("string_to_array", ["'a b c', ' '", "'a,,b', ',', ''"]),
                ("starts_with", ["'alphabet', 'alph'"]), ("to_char", ["1234.5, '9999.99'", "-12, '999'", "1234567.891, '9G999G999D99'", "0.5, 'FM0.00'", "42, '000'"]),
                ("to_number", ["'12,345.6', '99G999D9'", "'-12'::text, '999'"]), ("encode", ["'abc'::bytea, 'base64'"]),
                ("decode", ["'616263', 'hex'"]), ("length", ["'abc'::bytea"]), ("overlay", ["'Txxxxas' placing 'hom' from 2 for 4"]),
                ("unistr", ["'d\\0061t\\+000061'"]), ("string_agg", ["'x', ','"]), ("sha256", ["'abc'::bytea"]),
                ("bit_length", ["'abc'"]), ("pg_typeof", ["'abc'::varchar || 'd'", "concat('a', 'b')", "upper('a'::char(3))", "left('abc'::varchar, 2)"]),
                ("lower", ["'ABC'::char(5)", "'ABC'::varchar(5)"]), ("upper", ["NULL::text"]), ("md5", ["NULL::text"])]:
    for a in args:
        q.append(f"SELECT {f}({a})")
for s in ["'The quick brown fox'", "'  two  spaces  '", "'CSV,with,commas'", "E'tab\\there'", "'MixedCase123'", "'ñandú'"]:
    for f in ["upper({})", "lower({})", "length({})", "reverse({})", "replace({}, ' ', '_')", "split_part({}, ' ', 2)",
              "initcap({})", "substr({}, 3, 4)", "position('o' in {})", "regexp_replace({}, '\\s+', ' ', 'g')", "left({}, 5) || right({}, 2)",
              "ascii({})", "{} ~ '[0-9]'", "{} ILIKE '%E%'", "{} < 'M'", "octet_length({})"]:
        q.append("SELECT " + f.format(s, s))
out("functions_string.sql", q, about="PostgreSQL's string functions with edge arguments (negative, empty, NULL, Unicode)")

# ------------------------------------------------------------------------------------------------ functions_math
q = []
MV = ["0", "1", "-1", "2.5", "-2.5", "10", "0.5", "1e-3"]
for v in MV:
    for f in ["abs({})", "ceil({})", "floor({})", "round({})", "trunc({})", "sign({})", "sqrt(abs({}))", "exp({})",
              "ln(abs({}) + 1)", "log(abs({}) + 1)", "power({}, 2)", "mod(({})::numeric, 3)", "degrees({})", "{}::float8 * pi()",
              "sin({})", "cos({})", "atan({})", "width_bucket({}, 0, 10, 5)", "div(({})::numeric, 2)", "round(({})::numeric, 2)"]:
        q.append("SELECT " + f.format(v))
    for f in ["abs({})", "ceil({})", "floor({})", "round({})", "sqrt(abs({}))", "exp({})", "power({}, 2)", "sign({})"]:
        q.append("SELECT " + f.format(f"({v})::float8"))
q += ["SELECT sqrt(-1)", "SELECT ln(0)", "SELECT ln(-1)", "SELECT log(2, 8)", "SELECT log(10, 1000)", "SELECT power(0, 0)",
      "SELECT power(-8, 1.0/3)", "SELECT power(2, -1)", "SELECT power(2::numeric, 100)", "SELECT exp(1000)", "SELECT exp(1000::float8)",
      "SELECT 10::numeric ^ -3", "SELECT round(1234.5678, -2)", "SELECT round(0.5)", "SELECT round(1.5)", "SELECT round(-0.5)",
      "SELECT round(2.5::numeric)", "SELECT round(2.5::float4)", "SELECT trunc(1234.5678, -2)", "SELECT div(-7, 2)", "SELECT mod(-7, 2)",
      "SELECT mod(7.5, 2)", "SELECT gcd(0, 0)", "SELECT lcm(0, 5)", "SELECT factorial(20)", "SELECT factorial(0)", "SELECT min_scale(1.500)",
      "SELECT trim_scale(1.500)", "SELECT width_bucket(5.35, 0.024, 10.06, 5)", "SELECT cot(1)", "SELECT asin(1)", "SELECT acos(2)",
      "SELECT sinh(1)", "SELECT tanh(100)", "SELECT sind(30)", "SELECT cosd(60)", "SELECT cbrt(-8)", "SELECT pg_typeof(sqrt(2))::text",
      "SELECT pg_typeof(sqrt(2.0))::text", "SELECT pg_typeof(round(2.5))::text", "SELECT pg_typeof(abs(-1::int2))::text",
      "SELECT pg_typeof(power(2, 3))::text", "SELECT pg_typeof(ceil(1.5))::text", "SELECT pg_typeof(mod(7, 2))::text",
      "SELECT pg_typeof(floor(1.5::float4))::text", "SELECT abs(-2147483648)", "SELECT abs((-32768)::int2)", "SELECT ceil(-0.5)",
      "SELECT floor(-0.0::float8)", "SELECT sqrt(16)", "SELECT sqrt(2.0)", "SELECT exp(1.0)", "SELECT ln(2.0)", "SELECT log(2.0)",
      "SELECT 2.0 ^ 0.5", "SELECT 1.1 ^ 2", "SELECT scale(1.1 * 1.1)", "SELECT generate_series(1, 5) ORDER BY 1",
      "SELECT generate_series(1, 10, 3) ORDER BY 1", "SELECT generate_series(5, 1, -2) ORDER BY 1", "SELECT sum(x) FROM generate_series(0.5, 2.5, 0.5) x",
      "SELECT greatest(1.5, 2, 0.5::float8)", "SELECT least(3, 2.5)", "SELECT pg_typeof(greatest(1, 2.5))::text"]
out("functions_math.sql", q, about="math functions on integers, numeric and float8, with their result types and domain errors")

# ------------------------------------------------------------------------------------------------ tables
TB_SETUP = ["CREATE TABLE tb_dept (id int PRIMARY KEY, name varchar(20) NOT NULL, budget numeric(12,2))",
            "CREATE TABLE tb_emp (id int PRIMARY KEY, dept_id int, name text NOT NULL, salary numeric(10,2), bonus real, hired date, active boolean, code char(4), score double precision, tiny smallint, big bigint)",
            "INSERT INTO tb_dept VALUES (1, 'Engineering', 1000000.00), (2, 'Sales', 250000.50), (3, 'Empty', NULL)",
            "INSERT INTO tb_emp VALUES (1, 1, 'Ann', 1.25, 0.5, '2020-01-15', true, 'A1', 1.1, 1, 10000000000)",
            "INSERT INTO tb_emp VALUES (2, 1, 'Bob', 85000.00, 1000.25, '2019-06-30', true, 'B22', 2.5, 2, -1)",
            "INSERT INTO tb_emp VALUES (3, 2, 'Cid', 52000.50, NULL, '2021-11-01', false, NULL, NULL, NULL, NULL)",
            "INSERT INTO tb_emp VALUES (4, NULL, 'Dee', NULL, 3.75, NULL, NULL, 'D', 0.1, 32767, 9223372036854775807)",
            "INSERT INTO tb_emp VALUES (5, 2, 'Eve', 61000.00, 0, '2024-02-29', true, 'E555', -0.5, -5, 0)",
            "UPDATE tb_emp SET bonus = bonus * 2 WHERE id = 2", "DELETE FROM tb_emp WHERE id = 99"]
q = []
for c in ["salary", "bonus", "hired", "active", "code", "score", "tiny", "big", "name"]:
    q += [f"SELECT id, {c} FROM tb_emp ORDER BY id", f"SELECT {c} FROM tb_emp WHERE id = 1", f"SELECT id FROM tb_emp ORDER BY {c}, id",
          f"SELECT max({c}) FROM tb_emp", f"SELECT count(DISTINCT {c}) FROM tb_emp", f"SELECT id, {c} IS NULL FROM tb_emp ORDER BY id",
          f"SELECT id, pg_typeof({c})::text FROM tb_emp WHERE id = 1", f"SELECT id, {c}::text FROM tb_emp ORDER BY id"]
for e in ["salary * 2", "salary + bonus", "salary / 3", "salary * 1.1", "bonus * 2", "score + 1", "tiny + tiny", "tiny * 1000",
          "big + 1", "big * 2", "hired + 30", "hired - date '2020-01-01'", "extract(year from hired)", "NOT active", "code || '|'",
          "length(code)", "upper(name)", "name || ' ' || code", "round(salary / 7, 2)", "salary::int", "score::numeric(5,2)",
          "coalesce(bonus, 0)", "CASE WHEN salary > 60000 THEN 'high' ELSE 'low' END", "salary > 60000", "tiny::int2 * tiny::int2"]:
    q.append(f"SELECT id, {e} FROM tb_emp ORDER BY id")
q += ["SELECT * FROM tb_dept ORDER BY id", "SELECT * FROM tb_emp ORDER BY id", "SELECT e.name, d.name FROM tb_emp e JOIN tb_dept d ON e.dept_id = d.id ORDER BY e.id",
      "SELECT e.name, d.name FROM tb_emp e LEFT JOIN tb_dept d ON e.dept_id = d.id ORDER BY e.id",
      "SELECT d.name, count(e.id) FROM tb_dept d LEFT JOIN tb_emp e ON e.dept_id = d.id GROUP BY d.name ORDER BY d.name",
      "SELECT d.name, sum(e.salary), avg(e.salary) FROM tb_dept d LEFT JOIN tb_emp e ON e.dept_id = d.id GROUP BY d.name ORDER BY d.name",
      "SELECT d.name FROM tb_dept d WHERE NOT EXISTS (SELECT 1 FROM tb_emp e WHERE e.dept_id = d.id) ORDER BY 1",
      "SELECT name FROM tb_emp WHERE salary > (SELECT avg(salary) FROM tb_emp) ORDER BY name", "SELECT name FROM tb_emp WHERE salary = 1.25",
      "SELECT name FROM tb_emp WHERE salary BETWEEN 50000 AND 70000 ORDER BY name", "SELECT name FROM tb_emp WHERE name LIKE '_e%' ORDER BY name",
      "SELECT name FROM tb_emp WHERE hired >= '2020-01-01' ORDER BY hired", "SELECT name FROM tb_emp WHERE code = 'A1' ORDER BY name",
      "SELECT name FROM tb_emp WHERE code = 'A1  ' ORDER BY name", "SELECT name FROM tb_emp WHERE active ORDER BY name",
      "SELECT name FROM tb_emp WHERE active IS NOT TRUE ORDER BY name", "SELECT name FROM tb_emp ORDER BY salary DESC NULLS LAST LIMIT 2",
      "SELECT name FROM tb_emp ORDER BY id LIMIT 2 OFFSET 1", "SELECT name FROM tb_emp ORDER BY id FETCH FIRST 1 ROWS ONLY",
      "SELECT count(*) FROM tb_emp", "SELECT sum(salary) FROM tb_emp", "SELECT avg(salary) FROM tb_emp", "SELECT avg(bonus) FROM tb_emp",
      "SELECT sum(big) FROM tb_emp", "SELECT avg(tiny) FROM tb_emp", "SELECT sum(tiny) FROM tb_emp", "SELECT sum(score) FROM tb_emp",
      "SELECT min(hired), max(hired) FROM tb_emp", "SELECT budget FROM tb_dept ORDER BY id", "SELECT sum(budget) FROM tb_dept",
      "SELECT name, budget / 12 FROM tb_dept ORDER BY id", "SELECT upper(name) FROM tb_dept ORDER BY 1",
      "SELECT t.id, t.name FROM (SELECT id, name FROM tb_emp WHERE id < 3) t ORDER BY t.id",
      "WITH s AS (SELECT dept_id, sum(salary) AS total FROM tb_emp GROUP BY dept_id) SELECT * FROM s ORDER BY dept_id NULLS FIRST",
      "SELECT id, name FROM tb_emp WHERE id IN (SELECT id FROM tb_emp WHERE bonus > 1) ORDER BY id",
      "SELECT name, (SELECT name FROM tb_dept d WHERE d.id = e.dept_id) FROM tb_emp e ORDER BY e.id",
      "SELECT dept_id, count(*) FROM tb_emp GROUP BY dept_id ORDER BY dept_id", "SELECT DISTINCT dept_id FROM tb_emp ORDER BY 1",
      "SELECT d.id, d.name, d.budget, count(e.id) FROM tb_dept d LEFT JOIN tb_emp e ON e.dept_id = d.id GROUP BY d.id ORDER BY d.name",
      "SELECT name, budget FROM tb_dept GROUP BY id ORDER BY id", "SELECT e.name, count(*) FROM tb_emp e JOIN tb_dept d ON d.id = e.dept_id GROUP BY e.id ORDER BY e.name",
      "SELECT name OPERATOR(pg_catalog.~) '^E', name COLLATE pg_catalog.default < 'F' FROM tb_dept ORDER BY id",
      "SELECT name FROM tb_emp WHERE dept_id IS NULL", "SELECT id, name FROM tb_emp WHERE id = 2", "SELECT bonus FROM tb_emp WHERE id = 2",
      "SELECT 1 FROM tb_emp WHERE false", "SELECT count(*) FROM tb_emp e1 CROSS JOIN tb_emp e2", "SELECT id FROM tb_emp"]
out("tables.sql", q, TB_SETUP, "queries over small tables: every column type stored and read back, joins, grouping, subqueries")

# ------------------------------------------------------------------------------------------------ write
README_FILES = []
for name, (about, setup, queries) in sorted(FILES.items()):
    lines = [f"-- {about}", "-- Generated by generate.py from its hand-written lists and cross products; edit the generator."]
    if setup:
        lines.append("-- setup")
        lines += setup
        lines.append("-- queries")
    lines += queries
    with open(os.path.join(HERE, name), "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    README_FILES.append((name, len(queries)))
total = sum(n for _, n in README_FILES)
for name, n in README_FILES:
    print(f"{name:24} {n:5}")
print(f"{'total':24} {total:5}")
