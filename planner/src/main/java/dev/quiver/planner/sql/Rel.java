package dev.quiver.planner.sql;

import dev.quiver.planner.plan.LogicalPlan;
import java.util.List;

/** A planned relation: a plan whose fields carry internal names, and the names the query sees. */
record Rel(LogicalPlan plan, List<String> visible) {}
