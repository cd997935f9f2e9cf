-- Inputs that once failed the SQL fuzzer (SqlFuzzTest, SqlFuzzServerTest), replayed by both on every run.
-- One case per record: a line "-- case: <what went wrong>" starts it, the statement follows (it may span
-- lines). In a statement, {{N*text}} stands for text repeated N times, {{U+XXXX}} for a code point, and
-- {{empty}} for the empty statement.
-- case: the empty statement
{{empty}}
-- case: lexical error (unclosed quote) showed net.sf.jsqlparser.parser.TokenMgrException in the message
SELECT CAST(i32 AS VARCHAR), TRY_CAST(s AS INTEGER), CAST('1.5 t CROSS JOIN bools
-- case: lexical error (a character that starts no token) showed TokenMgrException
SELECT s , ( SELECT \ ( i64 ) FROM t x WHERE x . s = t . i32 ) FROM t
-- case: a lone quote: TokenMgrException in the message
'
-- case: a lone double quote: TokenMgrException in the message
"
-- case: a NUL character: TokenMgrException in the message
SELECT 1 {{U+0000}}
-- case: control and non-characters after SELECT: TokenMgrException in the message
SELECT {{U+0005}}{{U+FFF3}}{{U+FFFF}}
-- case: emoji and a control character: TokenMgrException in the message
{{U+1F63D}}{{U+0005}}吔湶飩‗{{U+1F62E}}
-- case: a lone surrogate
SELECT '{{U+D800}}' || s FROM t
-- case: FROM ".." (JSqlParser gives the table no name): NullPointerException in unquote
SELECT count(*) FROM ".."
-- case: FROM "." and dotted quoted names
SELECT * FROM "."."." JOIN quiver."..".t ON true
-- case: ORDER BY a 39-digit position: NumberFormatException from LongValue.getValue
SELECT regexp_like(CAST(i32 AS FLOAT), '[') AS "x" FROM t ORDER BY 999999999999999999999999999999999999999
-- case: GROUP BY a position beyond int: (int) cast wrapped around to a valid position
SELECT i32 FROM t GROUP BY 4294967297
-- case: ORDER BY of a set operation by a huge position
SELECT s FROM t UNION SELECT s FROM t ORDER BY 99999999999999999999
-- case: 30 UNION ALLs: LogicalPlan.Union.schema() asked each input per column, exponential in the depth
SELECT 1{{30* UNION ALL SELECT 1}}
-- case: 2,000 UNION ALLs: a left-deep Union tree overflowed the optimizer's stack; typing pairwise was quadratic
SELECT 1{{2000* UNION ALL SELECT 1}}
-- case: mixed UNION and UNION ALL chain, and nested parenthesized unions
SELECT NULL{{50* UNION SELECT 1 UNION ALL SELECT NULL}} UNION ALL (SELECT 2 UNION (SELECT 3 UNION ALL SELECT 4))
-- case: 300 EXCEPTs nest 600 plan levels: over the limit
SELECT s FROM t{{300* EXCEPT SELECT 'x'}}
-- case: a cross product of 40 tables ran forever: only scans checked the cancellation
SELECT count(*) FROM t a{{40* JOIN t ON true}}
-- case: a small cross product that the time bound must stop
SELECT * FROM t t1, t t2, t t3, t t4 WHERE t1.i32 < 0 LIMIT 1
-- case: 128 joined tables: join ordering is superlinear (over the relation limit)
SELECT count(*) FROM t t0{{127*, t}}
-- case: nested scalar subqueries of random expressions: JSqlParser took over 20 s (now a parse time budget)
SELECT TRY_CAST(X'00ff' AS UNSIGNED) WHERE d IN (CASE WHEN d IN (SELECT ((SELECT NOT s FROM t x WHERE x.i32 = t.i32)), (SELECT TRY_CAST(i8 AS UUID) FROM t x) LIKE NULL, X'00ff' AS c2, CASE WHEN regexp_like(TIMESTAMP '2020-01-01 00:00:00+02:00', '(?i)S1') ILIKE '%1' IS NOT FALSE THEN i64 END FROM (SELECT *, (s), CAST(d AS SMALLINT), DATE '2020-02-29') AS sub) THEN i32 END, 'éè') LIMIT -1 UNION ALL SELECT DISTINCT CAST((SELECT NOT s FROM t x WHERE x.i32 = t.i32) AS INTEGER), bool_and(*), * FROM t LEFT JOIN bools ON extract(nope FROM current_date - INTERVAL '-1' MONTH) WHERE no_such_function() IN (NOT d, 9223372036854775808) ORDER BY 5 DESC
-- case: 20 nested scalar subqueries: exponential parse time
SELECT {{20*(SELECT }}1{{20*)}}
-- case: 3,000 nested parentheses: the parser overflowed its stack ("syntax error: null")
SELECT * FROM t WHERE {{3000*(}}i32 = 1{{3000*)}}
-- case: 1,000 nested CASEs: the parser overflowed its stack
SELECT {{1000*CASE WHEN b THEN }}1{{1000* END}} FROM t
-- case: a chain of 3,000 additions: the binder overflowed its stack
SELECT 1{{3000* + i32}} FROM t
-- case: a chain of 1,000 concatenations: every level printed the whole chain (cubic time)
SELECT s{{1000* || s}} FROM t
-- case: 5,000 ANDs in the select list: naming the column printed the chain recursively (StackOverflowError)
SELECT i32 = 1{{5000* AND i32 = 1}} FROM t
-- case: 10,000 ORs in WHERE must keep working
SELECT count(*) FROM t WHERE i32 = 1{{10000* OR i32 = 2}}
-- case: an integer literal of 1,000 digits: the error message quoted all of it
SELECT * FROM t WHERE i64 = {{100*7861051236}}
-- case: a 90,000-character quoted table name: the NOT_FOUND message quoted all of it
SELECT * FROM "{{90000*%}}"
-- case: a LIKE pattern that is refused as a regular expression leaked the result vector
SELECT 'aaaaaaaaaaaaaaaa' LIKE '{{1000*%a_%}}'
-- case: the same in a filter over a table
SELECT count(*) FROM t WHERE s || 'aaaaaaaaaaaaaaaaaaaaaaa' NOT LIKE '{{1000*%a_%}}'
-- case: nested counted repetitions filled the heap while RE2/J compiled them
SELECT regexp_like('aaaa', '((a{1000}){1000}){1000}')
-- case: nested counted repetitions in a filter
SELECT count(*) FROM t WHERE regexp_like(s, 'x{0,1000}{0,1000}')
-- case: 20,000 concatenated .* groups overflowed RE2/J's stack (now refused by length)
SELECT regexp_like(s, '{{20000*(?s:.*)}}') FROM t
-- case: a LIKE pattern of 2,001 literal characters and one _ (quoted char by char it was over 10,000)
SELECT count(*) FROM t WHERE s LIKE '{{2001*x}}_'
-- case: SET with a long run of spaces: the server's SET pattern backtracked in cubic time (minutes)
SET x = a{{20000* }}y
-- case: SHOW with a long run of spaces
SHOW x{{20000* }}y
-- case: a scalar subquery inside an aggregate: INTERNAL "column __agg0 not in input" (its join came after the aggregation)
SELECT count(DISTINCT (SELECT count(*) FROM bools)) + 1
-- case: a scalar subquery in GROUP BY: the same
SELECT count(*) FROM t GROUP BY (SELECT 1)
-- case: round() to a number of digits beyond int: ArithmeticException "BigInteger would overflow supported range"
SELECT round(f64, 2394710968807890581.2394710968807890581) FROM t
-- case: round() to digits that a cast to int wrapped around
SELECT round(f64, 4294967296), round(dec, -2147483649), round(i64, 9223372036854775807), round(i64, -20) FROM t
-- case: a cast of a long string: the error message quoted all of it
SELECT CAST('{{5000*x}}' AS INTEGER)
-- case: LIMIT of 400 digits: the error message quoted all of it
SELECT i32 FROM t LIMIT {{400*7}}
-- case: a DATE literal of 400 characters: the error message quoted all of it
SELECT DATE '1e{{400*3}}'
-- case: casts of long strings to DATE and DOUBLE: the error message quoted all of it
SELECT CAST('{{40000*%}}' AS DATE), CAST('{{30000*''}}' AS DOUBLE)
-- case: a cast of 300,000 digits: parsing digits is quadratic (a million took 14 s)
SELECT CAST('{{300000*7}}' AS DECIMAL(38,0))
-- case: an integer literal of 300,000 digits: the same, in the binder
SELECT {{300000*7}}
-- case: a decimal literal of 300,000 digits
SELECT 0.{{300000*7}}
-- case: a cast of 100,000 digits to DOUBLE: its pattern backtracked quadratically
SELECT CAST('1{{100000*1}}x' AS DOUBLE)
-- case: a timestamp with 100,000 spaces: the time-zone pattern backtracked quadratically
SELECT CAST('2020-01-01 00:00:00{{100000* }}x' AS TIMESTAMP)
-- case: a TIMESTAMP literal with 100,000 spaces: the offset pattern of the binder backtracked
SELECT TIMESTAMP '2020-01-01 1{{100000* }}x'
-- case: ORDER BY NULL: UnsupportedOperationException copying Arrow's Null vector in the sort
SELECT DATE '2020-01-01' FROM t ORDER BY NULL
-- case: a parameter and ORDER BY NULL
SELECT ? FROM t ORDER BY NULL
-- case: untyped NULL columns through sorts, joins, limits and scalar subqueries
SELECT a.x, b.i32, (SELECT NULL) FROM (SELECT NULL AS x FROM t LIMIT 5) a JOIN t b ON true ORDER BY 1 LIMIT 7
-- case: (VALUES …) AS v(x) ignored its column list ("column x does not exist")
SELECT x FROM (VALUES (1), (2)) AS v(x) UNION SELECT NULL UNION ALL SELECT y FROM (VALUES (3, 4)) AS w(y, z)
-- case: a mutated TPC-H Q15 whose scalar subquery aggregates an outer column: INTERNAL "column __agg0 not in input"
with revenue0 as ( select l_suppkey as supplier_no , sum ( l_extendedprice * ( 1 - l_discount ) ) as total_revenue from lineitem where l_shipdate >= date '1996-01-01' and l_shipdate < date '1996-01-01' + interval '3' month group by l_suppkey ) select s_suppkey , s_name s_name , s_address , s_phone , total_revenue from supplier , revenue0 where s_suppkey = supplier_no and total_revenue = ( select max ( total_revenue ) -1 revenue0 ) order by s_suppkey
-- case: outer columns in a scalar subquery's select list: INTERNAL "column i32 not in input"
SELECT i32, (SELECT t.i32 + 1), (SELECT max(t.i64) FROM bools) FROM t
-- case: outer columns in the select list of EXISTS and IN subqueries
SELECT count(*) FROM t WHERE EXISTS (SELECT t.i32 FROM bools) AND i32 IN (SELECT t.i32 FROM bools)
-- case: a syntax error at a 100,000-character token: the message quoted the token whole
SELECT 'x' '{{100000*y}}'
