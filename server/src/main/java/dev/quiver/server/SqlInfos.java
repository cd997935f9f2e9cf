package dev.quiver.server;

import dev.quiver.planner.SqlFeatures.Feature;
import dev.quiver.planner.sql.FunctionCatalog;
import dev.quiver.planner.sql.FunctionCatalog.Category;
import dev.quiver.planner.sql.SqlLimits;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;
import org.apache.arrow.flight.sql.SqlInfoBuilder;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlInfo;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlOuterJoinsSupportLevel;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedGroupBy;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedResultSetType;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedSubqueries;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedUnions;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlNullOrdering;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedCaseSensitivity;
import org.apache.arrow.flight.sql.impl.FlightSql.SqlSupportedTransaction;
import org.apache.arrow.flight.sql.impl.FlightSql.SupportedSqlGrammar;

/**
 * Every SqlInfo key a Flight SQL client reads, each with the value of the right union member. What the SQL
 * dialect supports (joins, unions, subqueries, ORDER BY, LIKE … ESCAPE, GROUP BY) comes from the planner's
 * own probes ({@link dev.quiver.planner.SqlFeatures}), the function lists from its function catalog, the
 * limits from the server's {@link SqlLimits}: nothing here is a claim kept by hand.
 */
final class SqlInfos {
  static final String VERSION = "0.1.0";

  private final SqlInfoBuilder builder = new SqlInfoBuilder();
  /** The ids registered, kept here (SqlInfoBuilder keeps them private and fails on others). */
  private final Set<Integer> ids = new TreeSet<>();

  private SqlInfos() {}

  SqlInfoBuilder builder() {
    return builder;
  }

  /** The registered ids, ascending. */
  Set<Integer> ids() {
    return Collections.unmodifiableSet(ids);
  }

  private SqlInfos set(SqlInfo id, UnaryOperator<SqlInfoBuilder> with) {
    with.apply(builder);
    ids.add(id.getNumber());
    return this;
  }

  private static <E> E[] when(Map<Feature, Boolean> features, E[] empty, Object... featureThenValue) {
    List<E> out = new ArrayList<>();
    for (int i = 0; i < featureThenValue.length; i += 2) {
      @SuppressWarnings("unchecked")
      E value = (E) featureThenValue[i + 1];
      if (Boolean.TRUE.equals(features.get((Feature) featureThenValue[i])) && !out.contains(value)) out.add(value);
    }
    return out.toArray(empty);
  }

  private static String[] functions(Category c) {
    return FunctionCatalog.names(c).toArray(new String[0]);
  }

  /** The SqlInfo of a server whose planner supports {@code features} and which enforces {@code limits}. */
  static SqlInfos build(Map<Feature, Boolean> features, SqlLimits limits) {
    return new SqlInfos()
        .set(SqlInfo.FLIGHT_SQL_SERVER_NAME, b -> b.withFlightSqlServerName("Quiver"))
        .set(SqlInfo.FLIGHT_SQL_SERVER_VERSION, b -> b.withFlightSqlServerVersion(VERSION))
        .set(SqlInfo.FLIGHT_SQL_SERVER_ARROW_VERSION, b -> b.withFlightSqlServerArrowVersion("18.3.0"))
        .set(SqlInfo.FLIGHT_SQL_SERVER_READ_ONLY, b -> b.withFlightSqlServerReadOnly(true))
        .set(SqlInfo.FLIGHT_SQL_SERVER_SQL, b -> b.withFlightSqlServerSql(true))
        .set(SqlInfo.FLIGHT_SQL_SERVER_SUBSTRAIT, b -> b.withFlightSqlServerSubstrait(false))
        .set(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION,
            b -> b.withFlightSqlServerTransaction(SqlSupportedTransaction.SQL_SUPPORTED_TRANSACTION_NONE))
        // CancelFlightInfo (and the older CancelQuery) stop a running query: see StatementExecution.cancelFlightInfo
        .set(SqlInfo.FLIGHT_SQL_SERVER_CANCEL, b -> b.withFlightSqlServerCancel(true))
        .set(SqlInfo.FLIGHT_SQL_SERVER_BULK_INGESTION, b -> b.withFlightSqlServerBulkIngestion(false))
        .set(SqlInfo.FLIGHT_SQL_SERVER_STATEMENT_TIMEOUT, b -> b.withFlightSqlServerStatementTimeout(0))
        .set(SqlInfo.FLIGHT_SQL_SERVER_TRANSACTION_TIMEOUT, b -> b.withFlightSqlServerTransactionTimeout(0))
        .set(SqlInfo.SQL_IDENTIFIER_QUOTE_CHAR, b -> b.withSqlIdentifierQuoteChar("\""))
        .set(SqlInfo.SQL_SEARCH_STRING_ESCAPE, b -> b.withSqlSearchStringEscape("\\"))
        .set(SqlInfo.SQL_EXTRA_NAME_CHARACTERS, b -> b.withSqlExtraNameCharacters(""))
        .set(SqlInfo.SQL_SCHEMA_TERM, b -> b.withSqlSchemaTerm("schema"))
        .set(SqlInfo.SQL_PROCEDURE_TERM, b -> b.withSqlProcedureTerm("procedure"))
        .set(SqlInfo.SQL_CATALOG_TERM, b -> b.withSqlCatalogTerm("catalog"))
        .set(SqlInfo.SQL_DDL_CATALOG, b -> b.withSqlDdlCatalog(false))
        .set(SqlInfo.SQL_DDL_SCHEMA, b -> b.withSqlDdlSchema(false))
        .set(SqlInfo.SQL_DDL_TABLE, b -> b.withSqlDdlTable(false))
        .set(SqlInfo.SQL_IDENTIFIER_CASE,
            b -> b.withSqlIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE))
        .set(SqlInfo.SQL_QUOTED_IDENTIFIER_CASE,
            b -> b.withSqlQuotedIdentifierCase(SqlSupportedCaseSensitivity.SQL_CASE_SENSITIVITY_CASE_INSENSITIVE))
        .set(SqlInfo.SQL_ALL_TABLES_ARE_SELECTABLE, b -> b.withSqlAllTablesAreSelectable(true))
        .set(SqlInfo.SQL_NULL_ORDERING, b -> b.withSqlNullOrdering(SqlNullOrdering.SQL_NULLS_SORTED_HIGH))
        .set(SqlInfo.SQL_SUPPORTS_COLUMN_ALIASING,
            b -> b.withSqlSupportsColumnAliasing(features.get(Feature.COLUMN_ALIASING)))
        .set(SqlInfo.SQL_NULL_PLUS_NULL_IS_NULL, b -> b.withSqlNullPlusNullIsNull(true))
        .set(SqlInfo.SQL_SUPPORTS_TABLE_CORRELATION_NAMES, b -> b.withSqlSupportsTableCorrelationNames(true))
        .set(SqlInfo.SQL_SUPPORTS_DIFFERENT_TABLE_CORRELATION_NAMES,
            b -> b.withSqlSupportsDifferentTableCorrelationNames(false))
        .set(SqlInfo.SQL_SUPPORTS_EXPRESSIONS_IN_ORDER_BY,
            b -> b.withSqlSupportsExpressionsInOrderBy(features.get(Feature.EXPRESSION_IN_ORDER_BY)))
        .set(SqlInfo.SQL_SUPPORTS_ORDER_BY_UNRELATED,
            b -> b.withSqlSupportsOrderByUnrelated(features.get(Feature.ORDER_BY_UNRELATED)))
        .set(SqlInfo.SQL_SUPPORTS_LIKE_ESCAPE_CLAUSE,
            b -> b.withSqlSupportsLikeEscapeClause(features.get(Feature.LIKE_ESCAPE)))
        .set(SqlInfo.SQL_SUPPORTS_NON_NULLABLE_COLUMNS, b -> b.withSqlSupportsNonNullableColumns(true))
        .set(SqlInfo.SQL_SUPPORTS_INTEGRITY_ENHANCEMENT_FACILITY, b -> b.withSqlSupportsIntegrityEnhancementFacility(false))
        .set(SqlInfo.SQL_CATALOG_AT_START, b -> b.withSqlCatalogAtStart(true))
        .set(SqlInfo.SQL_SELECT_FOR_UPDATE_SUPPORTED, b -> b.withSqlSelectForUpdateSupported(false))
        .set(SqlInfo.SQL_STORED_PROCEDURES_SUPPORTED, b -> b.withSqlStoredProceduresSupported(false))
        .set(SqlInfo.SQL_CORRELATED_SUBQUERIES_SUPPORTED,
            b -> b.withSqlCorrelatedSubqueriesSupported(features.get(Feature.CORRELATED_SUBQUERY)))
        .set(SqlInfo.SQL_MAX_ROW_SIZE_INCLUDES_BLOBS, b -> b.withSqlMaxRowSizeIncludesBlobs(false))
        .set(SqlInfo.SQL_TRANSACTIONS_SUPPORTED, b -> b.withSqlTransactionsSupported(false))
        .set(SqlInfo.SQL_DATA_DEFINITION_CAUSES_TRANSACTION_COMMIT, b -> b.withSqlDataDefinitionCausesTransactionCommit(false))
        .set(SqlInfo.SQL_DATA_DEFINITIONS_IN_TRANSACTIONS_IGNORED, b -> b.withSqlDataDefinitionsInTransactionsIgnored(true))
        .set(SqlInfo.SQL_BATCH_UPDATES_SUPPORTED, b -> b.withSqlBatchUpdatesSupported(false))
        .set(SqlInfo.SQL_SAVEPOINTS_SUPPORTED, b -> b.withSqlSavepointsSupported(false))
        .set(SqlInfo.SQL_NAMED_PARAMETERS_SUPPORTED, b -> b.withSqlNamedParametersSupported(false))
        .set(SqlInfo.SQL_LOCATORS_UPDATE_COPY, b -> b.withSqlLocatorsUpdateCopy(false))
        .set(SqlInfo.SQL_STORED_FUNCTIONS_USING_CALL_SYNTAX_SUPPORTED,
            b -> b.withSqlStoredFunctionsUsingCallSyntaxSupported(false))
        .set(SqlInfo.SQL_SUPPORTED_GROUP_BY, b -> b.withSqlSupportedGroupBy(when(features, new SqlSupportedGroupBy[0],
            Feature.GROUP_BY_UNRELATED, SqlSupportedGroupBy.SQL_GROUP_BY_UNRELATED,
            Feature.GROUP_BY_BEYOND_SELECT, SqlSupportedGroupBy.SQL_GROUP_BY_BEYOND_SELECT)))
        .set(SqlInfo.SQL_SUPPORTED_GRAMMAR, b -> b.withSqlSupportedGrammar(SupportedSqlGrammar.SQL_MINIMUM_GRAMMAR))
        .set(SqlInfo.SQL_ANSI92_SUPPORTED_LEVEL, b -> b.withSqlAnsi92SupportedLevel())
        // a bitmask in the protocol: full outer joins include the limited ones
        .set(SqlInfo.SQL_OUTER_JOINS_SUPPORT_LEVEL, b -> b.withSqlOuterJoinSupportLevel(when(features,
            new SqlOuterJoinsSupportLevel[0],
            Feature.OUTER_JOIN, SqlOuterJoinsSupportLevel.SQL_LIMITED_OUTER_JOINS,
            Feature.FULL_OUTER_JOIN, SqlOuterJoinsSupportLevel.SQL_LIMITED_OUTER_JOINS,
            Feature.FULL_OUTER_JOIN, SqlOuterJoinsSupportLevel.SQL_FULL_OUTER_JOINS)))
        .set(SqlInfo.SQL_SCHEMAS_SUPPORTED_ACTIONS, b -> b.withSqlSchemasSupportedActions())
        .set(SqlInfo.SQL_CATALOGS_SUPPORTED_ACTIONS, b -> b.withSqlCatalogsSupportedActions())
        .set(SqlInfo.SQL_SUPPORTED_POSITIONED_COMMANDS, b -> b.withSqlSupportedPositionedCommands())
        // results are streams, read once front to back
        .set(SqlInfo.SQL_SUPPORTED_RESULT_SET_TYPES,
            b -> b.withSqlSupportedResultSetTypes(SqlSupportedResultSetType.SQL_RESULT_SET_TYPE_FORWARD_ONLY))
        .set(SqlInfo.SQL_SUPPORTED_SUBQUERIES, b -> b.withSqlSubQueriesSupported(when(features,
            new SqlSupportedSubqueries[0],
            Feature.SUBQUERY_IN_COMPARISON, SqlSupportedSubqueries.SQL_SUBQUERIES_IN_COMPARISONS,
            Feature.SUBQUERY_IN_EXISTS, SqlSupportedSubqueries.SQL_SUBQUERIES_IN_EXISTS,
            Feature.SUBQUERY_IN_IN, SqlSupportedSubqueries.SQL_SUBQUERIES_IN_INS,
            Feature.SUBQUERY_IN_QUANTIFIED, SqlSupportedSubqueries.SQL_SUBQUERIES_IN_QUANTIFIEDS)))
        .set(SqlInfo.SQL_SUPPORTED_UNIONS, b -> b.withSqlSupportedUnions(when(features, new SqlSupportedUnions[0],
            Feature.UNION, SqlSupportedUnions.SQL_UNION, Feature.UNION_ALL, SqlSupportedUnions.SQL_UNION_ALL)))
        // read-only, no transactions: NONE is the one level there is (JDBC tools ask for it, e.g. sqlline)
        .set(SqlInfo.SQL_SUPPORTED_TRANSACTIONS_ISOLATION_LEVELS, b -> b.withSqlSupportedTransactionsIsolationLevels(
            org.apache.arrow.flight.sql.impl.FlightSql.SqlTransactionIsolationLevel.SQL_TRANSACTION_NONE))
        // 0: no limit Quiver knows of
        .set(SqlInfo.SQL_MAX_BINARY_LITERAL_LENGTH, b -> b.withSqlMaxBinaryLiteralLength(0))
        .set(SqlInfo.SQL_MAX_CHAR_LITERAL_LENGTH, b -> b.withSqlMaxCharLiteralLength(0))
        .set(SqlInfo.SQL_MAX_COLUMN_NAME_LENGTH, b -> b.withSqlMaxColumnNameLength(0))
        .set(SqlInfo.SQL_MAX_COLUMNS_IN_GROUP_BY, b -> b.withSqlMaxColumnsInGroupBy(0))
        .set(SqlInfo.SQL_MAX_COLUMNS_IN_INDEX, b -> b.withSqlMaxColumnsInIndex(0))
        .set(SqlInfo.SQL_MAX_COLUMNS_IN_ORDER_BY, b -> b.withSqlMaxColumnsInOrderBy(0))
        .set(SqlInfo.SQL_MAX_COLUMNS_IN_SELECT, b -> b.withSqlMaxColumnsInSelect(0))
        .set(SqlInfo.SQL_MAX_COLUMNS_IN_TABLE, b -> b.withSqlMaxColumnsInTable(0))
        .set(SqlInfo.SQL_MAX_CONNECTIONS, b -> b.withSqlMaxConnections(0))
        .set(SqlInfo.SQL_MAX_CURSOR_NAME_LENGTH, b -> b.withSqlMaxCursorNameLength(0))
        .set(SqlInfo.SQL_MAX_INDEX_LENGTH, b -> b.withSqlMaxIndexLength(0))
        .set(SqlInfo.SQL_DB_SCHEMA_NAME_LENGTH, b -> b.withSqlDbSchemaNameLength(0))
        .set(SqlInfo.SQL_MAX_PROCEDURE_NAME_LENGTH, b -> b.withSqlMaxProcedureNameLength(0))
        .set(SqlInfo.SQL_MAX_CATALOG_NAME_LENGTH, b -> b.withSqlMaxCatalogNameLength(0))
        .set(SqlInfo.SQL_MAX_ROW_SIZE, b -> b.withSqlMaxRowSize(0))
        .set(SqlInfo.SQL_MAX_STATEMENT_LENGTH, b -> b.withSqlMaxStatementLength(limits.maxStatementBytes()))
        .set(SqlInfo.SQL_MAX_STATEMENTS, b -> b.withSqlMaxStatements(0))
        .set(SqlInfo.SQL_MAX_TABLE_NAME_LENGTH, b -> b.withSqlMaxTableNameLength(0))
        .set(SqlInfo.SQL_MAX_TABLES_IN_SELECT, b -> b.withSqlMaxTablesInSelect(limits.maxRelations()))
        .set(SqlInfo.SQL_MAX_USERNAME_LENGTH, b -> b.withSqlMaxUsernameLength(0))
        .set(SqlInfo.SQL_DEFAULT_TRANSACTION_ISOLATION, b -> b.withSqlDefaultTransactionIsolation(0))
        .set(SqlInfo.SQL_KEYWORDS, b -> b.withSqlKeywords(new String[] {"ANALYZE", "EXPLAIN", "ILIKE", "SHOW", "TRY_CAST",
            "VERBOSE"}))
        .set(SqlInfo.SQL_NUMERIC_FUNCTIONS, b -> b.withSqlNumericFunctions(functions(Category.NUMERIC)))
        .set(SqlInfo.SQL_STRING_FUNCTIONS, b -> b.withSqlStringFunctions(functions(Category.STRING)))
        .set(SqlInfo.SQL_SYSTEM_FUNCTIONS, b -> b.withSqlSystemFunctions(functions(Category.SYSTEM)))
        .set(SqlInfo.SQL_DATETIME_FUNCTIONS, b -> b.withSqlDatetimeFunctions(functions(Category.DATETIME)))
        .set(SqlInfo.SQL_SUPPORTS_CONVERT, b -> b.withSqlSupportsConvert(Map.of()));
  }
}
